// GlooContextPool: a cluster daemon's Gloo contexts kept across runs, so a
// run whose hosts have run together before skips connecting (5 to 30 ms a
// context here). The coordinator (ContextRegistry) decides which context a
// run's group uses, so the hosts agree on it and no two runs share one;
// this pool keeps this host's copy of each, connects the ones it has not
// seen (through the run's store, so an abort still ends the wait), and
// drops the ones the coordinator no longer lists.
#ifndef SERVICE_CLUSTER_GLOO_CONTEXT_POOL_H_
#define SERVICE_CLUSTER_GLOO_CONTEXT_POOL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "proto/xla_cluster.grpc.pb.h"
#include "xla/collectives/gloo_context_source.h"

namespace xla {

class GlooContextPool final : public collectives::GlooContextSource {
 public:
  // `stub` outlives the pool.
  GlooContextPool(XlaCluster::Stub* stub, std::string auth_token, int rank);

  absl::StatusOr<std::shared_ptr<collectives::GlooGroupContext>> Acquire(const std::string& run_id,
                                                                         const std::string& group,
                                                                         const std::vector<int>& hosts,
                                                                         const Connect& connect) override;
  // Run `run_id` ended on this host; ok: every operation of it succeeded
  // here. Its contexts go back to the pool (after a failure, they are
  // closed and dropped), and the coordinator is told before this returns,
  // so the client's next run finds them free.
  void Release(const std::string& run_id, bool ok);
  // This host aborts the run: the coordinator retires the contexts its
  // groups hold, and this host closes its copies, so the other hosts
  // blocked on them fail now (even on a context this host never reached).
  void AbortRun(const std::string& run_id);

  // Contexts connected, and acquisitions served by a kept one.
  int64_t connected() const;
  int64_t reused() const;

 private:
  void Prepare(grpc::ClientContext* context) const;
  // Closes and forgets the kept contexts `ids`.
  void Drop(const std::vector<int64_t>& ids);

  XlaCluster::Stub* const stub_;
  const std::string auth_token_;
  const int rank_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<int64_t, std::shared_ptr<collectives::GlooGroupContext>> kept_ ABSL_GUARDED_BY(mu_);
  // The kept contexts each run in progress here holds.
  absl::flat_hash_map<std::string, std::vector<int64_t>> held_ ABSL_GUARDED_BY(mu_);
  int64_t connected_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t reused_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace xla

#endif  // SERVICE_CLUSTER_GLOO_CONTEXT_POOL_H_
