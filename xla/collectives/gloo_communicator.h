// GlooCommunicator: the Communicator of one run whose processes live on
// several hosts (daemons of a cluster). Every host creates one for the run,
// with the same run id and the same map of processes to hosts.
//
// Processes of one host meet in memory (an in-process Rendezvous); only
// what crosses hosts goes through Gloo (TCP). An exchange whose group spans
// hosts runs in three steps: the group's local members gather in memory; the
// first of them (the host's leader for that group) exchanges its host's
// contributions with the other hosts' leaders (Gloo allgather of sizes, then
// allgatherv of the bytes); the leader hands the whole group's contributions
// to its local members. An all-reduce of a type and reduction Gloo has
// (sums and products of floats and integers; minimum and maximum of
// integers) runs natively instead: local members fold in memory in group
// order, the leaders all-reduce with Gloo's ring algorithm, and the leader
// hands the result to its local members.
//
// Float sums and products across hosts therefore round in this order: each
// host folds its own members' values in group order, and Gloo's ring
// combines the hosts' partial results, segment by segment in ring order
// (which differs between segments). Integer results, and every other
// collective, are bit for bit those of one process.
//
// Gloo contexts: one per distinct cross-host group, from the context source
// when there is one (a cluster daemon's contexts kept across runs), else
// connected through the run's Store (keys under "<run id>/<group>/") on
// first use and closed with the communicator. A group's
// leader on each host is the same process every time, which runs its
// collectives in program order, so the operations on one context come in
// the same order on every host; each carries a sequence number as its Gloo
// tag and the exchange's key digest, checked on arrival, so a host running
// a different program fails with a clear error instead of mixing data.
//
// Failure: a Gloo error (a peer's connection closed, a timeout) fails the
// exchange with UNAVAILABLE or DEADLINE_EXCEEDED naming the hosts of the
// group, and aborts the communicator. Abort closes every Gloo connection of
// the run, so the other hosts' leaders fail at once rather than at their
// timeout.
#ifndef XLA_COLLECTIVES_GLOO_COMMUNICATOR_H_
#define XLA_COLLECTIVES_GLOO_COMMUNICATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "xla/collectives/communicator.h"
#include "xla/collectives/gloo_context_source.h"
#include "xla/collectives/rendezvous.h"

namespace gloo {
class Context;
namespace rendezvous {
class Store;
}  // namespace rendezvous
namespace transport {
class Device;
}  // namespace transport
}  // namespace gloo

namespace xla {
namespace collectives {

// What a Store throws when another host has aborted the run (its reason is
// the message): the exchange then fails with ABORTED, not UNAVAILABLE.
class PeerAbortedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class GlooCommunicator final : public Communicator {
 public:
  struct Options {
    // Unique per run and the same on every host: the prefix of the run's
    // Store keys.
    std::string run_id;
    int64_t num_partitions = 1;
    // The host of every process of the run, by process index (replica *
    // num_partitions + partition).
    std::vector<int> host_of_process;
    int self_host = 0;
    // Names of the hosts (by host index) for error messages, e.g.
    // "host 2 (10.0.0.3:7000)"; empty: "host N".
    std::vector<std::string> host_names;
    std::shared_ptr<gloo::rendezvous::Store> store;
    std::shared_ptr<gloo::transport::Device> device;
    absl::Duration timeout = absl::Seconds(30);
    // Called once, at the first Abort, with its status: how the other
    // hosts learn of a failure here before they have a connection to see
    // close (ClusterMember publishes it through the coordinator).
    std::function<void(const absl::Status&)> on_abort;
    // When a Gloo operation fails: why another host aborted the run, if one
    // did (empty: none), so the failure says so (ABORTED) rather than
    // blaming the connection its abort closed.
    std::function<std::string()> peer_abort_reason;
    // Null: each group's context is connected for this run only.
    std::shared_ptr<GlooContextSource> context_source;
  };

  static absl::StatusOr<std::shared_ptr<GlooCommunicator>> Create(Options options);
  ~GlooCommunicator() override;

  // Communicator (its comments say what each does).
  absl::StatusOr<std::vector<Blob>> Exchange(absl::string_view key, absl::Span<const ProcessId> group, ProcessId self,
                                             std::string contribution, absl::string_view label) override;
  bool ReducesNatively(absl::Span<const ProcessId> group, ReductionKind reduction,
                       PrimitiveType type) const override;
  absl::Status AllReduce(absl::string_view key, absl::Span<const ProcessId> group, ProcessId self,
                         ReductionKind reduction, PrimitiveType type, const void* input, void* output,
                         int64_t count, absl::string_view label) override;
  void Abort(const absl::Status& status) override;
  absl::Status aborted() const override;
  absl::Duration timeout() const override { return options_.timeout; }

 private:
  // A leader's result for its host's other members of a group.
  struct Handoff {
    absl::StatusOr<std::vector<Blob>> blobs;
    int64_t readers_left = 0;
  };
  using GroupContext = GlooGroupContext;

  // What each host's leader sends first: the exchange key's digest and the
  // byte size of its part.
  struct PartHeader {
    uint64_t key_digest = 0;
    uint64_t bytes = 0;
  };

  explicit GlooCommunicator(Options options);
  // All-gathers every host's header (Gloo's errors are thrown). A host at
  // another key (or, with same_bytes, with another size) fails the
  // exchange with INVALID_ARGUMENT and aborts the run.
  absl::StatusOr<std::vector<PartHeader>> GatherHeaders(GroupContext& group_context, PartHeader mine,
                                                        bool same_bytes, absl::string_view label);

  int HostOf(ProcessId process) const;
  std::vector<int> HostsOf(absl::Span<const ProcessId> group) const;
  std::vector<ProcessId> LocalMembers(absl::Span<const ProcessId> group) const;
  std::string HostList(const std::vector<int>& hosts) const;
  // The group's context, connected on first use (every host's leader of the
  // group connects at its first exchange; only that one thread of a host
  // uses the group's context, so connects of different groups may block on
  // their peers at once without waiting for each other).
  absl::StatusOr<GroupContext*> ContextFor(absl::Span<const ProcessId> group, absl::string_view label);
  // The cross-host step of Exchange, run by the host's leader: every
  // member's contribution in group order.
  absl::StatusOr<std::vector<Blob>> CrossHost(absl::string_view key, absl::Span<const ProcessId> group,
                                              const std::vector<Blob>& local_blobs, absl::string_view label);
  // The leader publishes `blobs` for `readers` local members; a member
  // waits for them.
  void Publish(const std::string& key, absl::StatusOr<std::vector<Blob>> blobs, int64_t readers);
  absl::StatusOr<std::vector<Blob>> AwaitPublished(const std::string& key, ProcessId self, absl::string_view label);
  // A Gloo exception as a status naming the group's hosts; aborts the run.
  absl::Status GlooFailure(const std::exception& e, const std::vector<int>& hosts, absl::string_view label);

  const Options options_;
  Rendezvous local_;

  mutable absl::Mutex mu_;
  absl::Status aborted_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<GroupContext>> contexts_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Handoff> handoffs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace collectives
}  // namespace xla

#endif  // XLA_COLLECTIVES_GLOO_COMMUNICATOR_H_
