// ChannelTable: the channels of Send/Recv, keyed by channel id (the handle
// CreateChannelHandle gives out). Each channel is a FIFO of values: a send
// appends and never waits (the channel buffers), a receive takes the oldest
// value and waits up to a timeout for one, failing with DEADLINE_EXCEEDED
// naming the channel. Executions that run at the same time and hold the
// same table (through their ReplicaContext) talk over it; the host side of
// SendToHost / RecvFromHost is a plain Send or Recv on the table.
// Thread-safe.
#ifndef XLA_COLLECTIVES_CHANNEL_TABLE_H_
#define XLA_COLLECTIVES_CHANNEL_TABLE_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "xla/collectives/feed_queue.h"
#include "xla/literal.h"

namespace xla {
namespace collectives {

class ChannelTable {
 public:
  void Send(int64_t channel_id, Literal value);
  // The channel's oldest value; `label` names the receiving op in errors.
  // `stopped`, when given, is asked every few milliseconds while waiting:
  // a non-OK status (the run stopped, its rendezvous aborted by a failing
  // process) ends the wait with that status.
  absl::StatusOr<Literal> Recv(int64_t channel_id, absl::string_view label, absl::Duration timeout,
                               const std::function<absl::Status()>& stopped = nullptr);
  // Values sent on the channel and not received yet.
  size_t pending(int64_t channel_id);

 private:
  FeedQueue& Channel(int64_t channel_id);

  absl::Mutex mu_;
  // FeedQueue is not movable: the map holds pointers that stay put.
  absl::flat_hash_map<int64_t, std::unique_ptr<FeedQueue>> channels_ ABSL_GUARDED_BY(mu_);
};

}  // namespace collectives
}  // namespace xla

#endif  // XLA_COLLECTIVES_CHANNEL_TABLE_H_
