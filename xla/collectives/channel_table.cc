#include "xla/collectives/channel_table.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace xla {
namespace collectives {

FeedQueue& ChannelTable::Channel(int64_t channel_id) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<FeedQueue>& q = channels_[channel_id];
  if (q == nullptr) q = std::make_unique<FeedQueue>();
  return *q;
}

void ChannelTable::Send(int64_t channel_id, Literal value) { Channel(channel_id).Push(std::move(value)); }

absl::StatusOr<Literal> ChannelTable::Recv(int64_t channel_id, absl::string_view label, absl::Duration timeout,
                                           const std::function<absl::Status()>& stopped) {
  const std::string where = absl::StrCat(label, " on channel ", channel_id);
  FeedQueue& channel = Channel(channel_id);
  if (stopped == nullptr) return channel.Pop(where, timeout);
  // Waits in short slices so a failure elsewhere in the run ends the wait.
  constexpr absl::Duration kSlice = absl::Milliseconds(10);
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    const absl::Duration left = deadline - absl::Now();
    absl::StatusOr<Literal> value = channel.Pop(where, std::max(absl::ZeroDuration(), std::min(left, kSlice)));
    if (value.ok()) return value;
    if (absl::Status s = stopped(); !s.ok()) {
      return absl::AbortedError(absl::StrCat(where, ": stopped because the run failed: ", s.message()));
    }
    if (left <= kSlice) {
      return absl::DeadlineExceededError(
          absl::StrCat(where, ": no value arrived within ", absl::FormatDuration(timeout)));
    }
  }
}

size_t ChannelTable::pending(int64_t channel_id) { return Channel(channel_id).size(); }

}  // namespace collectives
}  // namespace xla
