// ContextRegistry: the coordinator's record of the Gloo contexts that the
// daemons of a cluster keep across runs (service/cluster/gloo_context_pool.h
// is each daemon's side). Connecting a context of N hosts costs each of them
// a full mesh of TCP connections through the store, 5 to 30 ms here; a run
// that finds a connected context free skips that.
//
// A context belongs to one set of hosts. A run's group (every host of the
// group claims it with the same run id and group key) is given a context of
// its set that no other run holds, and holds it until every host of the set
// has released it. The operations on a context then come in the same order
// on every host (one run at a time, each running the same program), so each
// host's count of its operations, the Gloo tags, stays in step.
//
// A context is retired, never to be handed out again, when any host
// releases it after a failure, when its run is aborted, and when one of its
// hosts is lost or registers again (a restarted daemon has no copy of it).
// Context ids start at a random value, so a restarted coordinator does not
// hand out the ids of contexts the daemons connected under the old one.
#ifndef SERVICE_CLUSTER_CONTEXT_REGISTRY_H_
#define SERVICE_CLUSTER_CONTEXT_REGISTRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace xla {

class ContextRegistry {
 public:
  struct Options {
    int cluster_size = 1;
    // Contexts a set of hosts may keep; a claim beyond them gets id 0 (the
    // run connects its own context).
    int max_contexts_per_set = 8;
    // Runs with claims outstanding, and aborted runs remembered (so their
    // late claims are refused) for run_ttl. A context held longer than
    // run_ttl is retired (a host that never released it): the hosts still
    // using it keep their copies until their run ends.
    int64_t max_runs = 4096;
    absl::Duration run_ttl = absl::Minutes(10);
  };
  struct Claim {
    int64_t context_id = 0;  // 0: none free and the set at its bound
    std::vector<int64_t> live_ids;  // the set's contexts not retired
  };

  explicit ContextRegistry(const Options& options);

  // Rank `rank`'s claim for group `group` of run `run_id` over `hosts`
  // (ascending, including `rank`). Refused (ABORTED) when the run was
  // aborted or its context for the group retired.
  absl::StatusOr<Claim> ClaimContext(int rank, const std::string& run_id, const std::string& group,
                                     const std::vector<int>& hosts);
  // Rank `rank` is done with the contexts `ids` it claimed for `run_id`; ok:
  // every operation on them succeeded there. Ids that are not that run's
  // claims (retired, or another run's) are ignored.
  void Release(int rank, const std::string& run_id, absl::Span<const int64_t> ids, bool ok);
  // Retires the contexts the run holds and refuses its later claims;
  // returns the retired ids.
  std::vector<int64_t> AbortRun(const std::string& run_id);
  // Retires every context whose set has `rank` (lost, or registered again).
  void RetireHost(int rank);

  // Contexts not retired, and how many of them a run holds now.
  int64_t live_contexts() const;
  int64_t contexts_in_use() const;

 private:
  struct Context {
    std::vector<int> hosts;
    std::string run_id;  // the run holding it; empty: free
    absl::Time claimed;
    std::vector<int> released;  // ranks that released it after that run
  };
  struct GroupClaim {
    int64_t context_id = 0;
    std::vector<int> hosts;
    int claims = 0;  // how many of the hosts have claimed it
  };
  struct Run {
    absl::flat_hash_map<std::string, GroupClaim> groups;
    bool aborted = false;
    absl::Time expires;
  };

  void Retire(int64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A free context of the set, a new one, or 0 at the set's bound.
  int64_t Take(const std::vector<int>& hosts, const std::string& run_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<int64_t> LiveIds(const std::vector<int>& hosts) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Forgets the run once every group has all its claims and its contexts
  // are no longer held for it (aborted runs stay until they expire).
  void ForgetIfDone(const std::string& run_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropExpiredRuns() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Options options_;
  mutable absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, Context> contexts_ ABSL_GUARDED_BY(mu_);  // live ones
  absl::flat_hash_map<std::string, Run> runs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xla

#endif  // SERVICE_CLUSTER_CONTEXT_REGISTRY_H_
