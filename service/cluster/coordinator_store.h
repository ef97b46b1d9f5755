// CoordinatorStore: Gloo's rendezvous store (gloo::rendezvous::Store) on the
// cluster coordinator's key-value calls. One per run on each host: it
// deletes the keys it set when the run's communicator lets it go (by then
// every peer of the run has read them: a collective between two hosts
// completes only after both connected). Failures throw gloo::IoException,
// which is how Gloo's rendezvous reports errors; the communicator turns
// them into a status. A get waits in short calls, so Cancel ends it soon.
#ifndef SERVICE_CLUSTER_COORDINATOR_STORE_H_
#define SERVICE_CLUSTER_COORDINATOR_STORE_H_

#include <gloo/rendezvous/store.h>

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/xla_cluster.grpc.pb.h"

namespace xla {

class CoordinatorStore final : public gloo::rendezvous::Store {
 public:
  // `stub` outlives the store. `timeout` bounds each get and wait.
  // `abort_key` (may be empty): the run's abort record, which a waiting get
  // checks between its short calls.
  CoordinatorStore(XlaCluster::Stub* stub, std::string auth_token, absl::Duration timeout,
                   std::string abort_key = "");
  ~CoordinatorStore() override;

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

  // Ends every get and wait in progress or later with an IoException
  // quoting `why` (a host of the run left the cluster).
  void Cancel(const std::string& why);
  // Records that this host aborted the run (`why`) under the abort key, so
  // the other hosts' waits end with it. Best effort; the record expires
  // with the coordinator's store entries, not with this store.
  void PublishAbort(const std::string& why);
  // Why another host aborted the run (its PublishAbort); empty: none did,
  // or the coordinator does not answer.
  std::string AbortReason();

 private:
  void Prepare(grpc::ClientContext* context, absl::Duration timeout) const;
  std::string Get(const std::string& key, absl::Duration timeout);

  XlaCluster::Stub* const stub_;
  const std::string auth_token_;
  const absl::Duration timeout_;
  const std::string abort_key_;
  absl::Mutex mu_;
  std::vector<std::string> own_keys_ ABSL_GUARDED_BY(mu_);
  std::string cancelled_ ABSL_GUARDED_BY(mu_);  // empty: not cancelled
  // Values a wait fetched, for the get that follows it (Gloo waits for a
  // key, then gets it: one call instead of two).
  absl::flat_hash_map<std::string, std::string> fetched_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xla

#endif  // SERVICE_CLUSTER_COORDINATOR_STORE_H_
