// Cluster: a cluster of tools/xla_service daemons for tests, each a
// separate process on 127.0.0.1 with its own port, sharing one auth token
// (a file in TEST_TMPDIR); rank 0 serves the coordinator on a free port.
#ifndef TESTS_CLUSTER_CLUSTER_PROCESS_H_
#define TESTS_CLUSTER_CLUSTER_PROCESS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/daemon/daemon_process.h"

namespace xla {

class Cluster {
 public:
  // Starts ranks 0 .. start_ranks - 1 (all when -1) of a cluster of `size`
  // daemons with `flags`; when all are started, waits until they listen
  // (which they do once the cluster has formed).
  static absl::StatusOr<std::unique_ptr<Cluster>> Start(int size, const std::vector<std::string>& flags,
                                                        int start_ranks = -1);

  // Starts one more daemon as `rank` of this cluster with `token` (empty:
  // the cluster's), not waiting for it; the caller owns it.
  absl::StatusOr<std::unique_ptr<DaemonProcess>> StartRank(int rank, const std::vector<std::string>& flags,
                                                           const std::string& token = "");

  DaemonProcess& daemon(int rank) { return *daemons_[rank]; }
  const std::string& token() const { return token_; }
  const std::string& coordinator() const { return coordinator_; }

 private:
  int size_ = 0;
  std::string token_;
  std::string token_dir_;
  std::string coordinator_;
  std::vector<std::unique_ptr<DaemonProcess>> daemons_;
};

}  // namespace xla

#endif  // TESTS_CLUSTER_CLUSTER_PROCESS_H_
