// ReplicaContext: one process's place in a run of num_replicas x
// num_partitions processes of the same executable (its replica and
// partition ids), and what it shares with the others (the communicator of
// the collectives, the Send/Recv channel table, which executions of other
// runs may share too) or holds as its device (infeed and outfeed queues: its
// own, or a device's persistent ones the service passes in). The
// interpreter's evaluator and the CPU runtime calls read it; an execution
// without one is process (0, 0) of a 1 x 1 run with empty queues.
#ifndef XLA_COLLECTIVES_REPLICA_CONTEXT_H_
#define XLA_COLLECTIVES_REPLICA_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "xla/collectives/channel_table.h"
#include "xla/collectives/feed_queue.h"
#include "xla/collectives/process_groups.h"
#include "xla/collectives/communicator.h"

namespace xla {
namespace collectives {

class ReplicaContext {
 public:
  // A single process: (0, 0) of 1 x 1, no communicator.
  ReplicaContext() : ReplicaContext(1, 1, ProcessId{}, nullptr) {}
  // `communicator` is shared by every process of the run (may be null when
  // the run has one process).
  ReplicaContext(int64_t num_replicas, int64_t num_partitions, ProcessId self, std::shared_ptr<Communicator> communicator,
                 absl::Duration feed_timeout = absl::Seconds(30))
      : num_replicas_(num_replicas),
        num_partitions_(num_partitions),
        self_(self),
        communicator_(std::move(communicator)),
        feed_timeout_(feed_timeout) {}
  ReplicaContext(const ReplicaContext&) = delete;
  ReplicaContext& operator=(const ReplicaContext&) = delete;

  int64_t num_replicas() const { return num_replicas_; }
  int64_t num_partitions() const { return num_partitions_; }
  ProcessId self() const { return self_; }
  // How the run's processes exchange collective data (an in-process
  // Rendezvous, or a transport between hosts).
  Communicator* communicator() const { return communicator_.get(); }

  // How often this process reached the collective `key` before: the n-th
  // execution of an instruction (in a loop) is its own exchange.
  int64_t NextOccurrence(const std::string& key);

  FeedQueue& infeed() { return *infeed_; }
  FeedQueue& outfeed() { return *outfeed_; }
  // Replaces the context's own queues by a device's persistent ones, which
  // clients fill and drain while the run goes on. Call before the run.
  void set_feeds(std::shared_ptr<FeedQueue> infeed, std::shared_ptr<FeedQueue> outfeed) {
    infeed_ = std::move(infeed);
    outfeed_ = std::move(outfeed);
  }
  absl::Duration feed_timeout() const { return feed_timeout_; }
  // The infeed queue's oldest value within the feed timeout. The wait ends
  // early with `run_stopped`'s status (its code, the message after `label`)
  // once it is not OK (the run's deadline or cancel; polled every few
  // milliseconds, may be null), or with ABORTED once the communicator is
  // aborted by a failing process.
  absl::StatusOr<Literal> PopInfeed(absl::string_view label, const std::function<absl::Status()>& run_stopped);

  // Send/Recv's channels (may be null: the run has none). Set before the run.
  void set_channels(std::shared_ptr<ChannelTable> channels) { channels_ = std::move(channels); }
  ChannelTable* channels() const { return channels_.get(); }
  // Receives on `channel_id` within the run's timeout, ending early as
  // PopInfeed does.
  absl::StatusOr<Literal> Recv(int64_t channel_id, absl::string_view label,
                               const std::function<absl::Status()>& run_stopped);

 private:
  // What the waits above poll (null when nothing can end them early).
  std::function<absl::Status()> WaitStopProbe(std::string label,
                                              const std::function<absl::Status()>& run_stopped) const;

  const int64_t num_replicas_;
  const int64_t num_partitions_;
  const ProcessId self_;
  const std::shared_ptr<Communicator> communicator_;
  const absl::Duration feed_timeout_;
  std::shared_ptr<ChannelTable> channels_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, int64_t> occurrences_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<FeedQueue> infeed_ = std::make_shared<FeedQueue>();
  std::shared_ptr<FeedQueue> outfeed_ = std::make_shared<FeedQueue>();
};

}  // namespace collectives
}  // namespace xla

#endif  // XLA_COLLECTIVES_REPLICA_CONTEXT_H_
