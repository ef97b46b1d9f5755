// Cluster: a cluster of tools/xla_service daemons on this machine, for the
// tests, the cluster benchmark and `tools/xla cluster-demo`. Every daemon is
// a separate process sharing one auth token (a file in TEST_TMPDIR or
// /tmp); rank 0 serves the coordinator.
//
// Hosts are network namespaces with their own addresses (10.213.X.R+1 on a
// bridge that this process reaches at 10.213.X.254) when the machine allows
// it (root, and `ip netns` works); otherwise processes on 127.0.0.1 ports.
// mode() says which, and why not namespaces. The namespaces, the bridge and
// the daemons go away with the Cluster.
#ifndef TOOLS_CLUSTER_LAUNCHER_H_
#define TOOLS_CLUSTER_LAUNCHER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/daemon_process.h"

namespace xla {

class Cluster {
 public:
  struct Options {
    int size = 3;
    std::vector<std::string> flags;  // for every daemon
    // Ranks started now (-1: all, then waits until they listen, which
    // they do once the cluster has formed).
    int start_ranks = -1;
    bool network_namespaces = false;  // try them; loopback if unavailable
  };
  static absl::StatusOr<std::unique_ptr<Cluster>> Start(const Options& options);
  // Loopback processes.
  static absl::StatusOr<std::unique_ptr<Cluster>> Start(int size, const std::vector<std::string>& flags,
                                                        int start_ranks = -1);
  ~Cluster();

  // Starts one more daemon as `rank` of this cluster with `token` (empty:
  // the cluster's), not waiting for it; the caller owns it.
  absl::StatusOr<std::unique_ptr<DaemonProcess>> StartRank(int rank, const std::vector<std::string>& flags,
                                                           const std::string& token = "");

  DaemonProcess& daemon(int rank) { return *daemons_[rank]; }
  const std::string& token() const { return token_; }
  const std::string& coordinator() const { return coordinator_; }
  // "network namespaces 10.213.7.0/24" or "loopback ports (...why...)".
  const std::string& mode() const { return mode_; }
  // Host `rank`'s address, and the command prefix that runs a program on
  // that host (in its namespace; empty on loopback).
  std::string HostAddress(int rank) const;
  std::vector<std::string> CommandPrefix(int rank) const;

 private:
  // Sets up the namespaces and the bridge; an error when the machine does
  // not allow them (nothing is left behind then).
  absl::Status CreateNamespaces();
  void DeleteNamespaces();

  int size_ = 0;
  std::string token_;
  std::string token_dir_;
  std::string coordinator_;
  std::string mode_;
  std::string tag_;               // unique per Cluster: names of namespaces and links
  std::string subnet_;            // "10.213.X" with namespaces, "" on loopback
  std::vector<std::string> namespaces_;
  std::string bridge_;
  std::vector<std::unique_ptr<DaemonProcess>> daemons_;
};

}  // namespace xla

#endif  // TOOLS_CLUSTER_LAUNCHER_H_
