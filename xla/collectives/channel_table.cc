#include "xla/collectives/channel_table.h"

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
  return Channel(channel_id).Pop(absl::StrCat(label, " on channel ", channel_id), timeout, nullptr, stopped);
}

size_t ChannelTable::pending(int64_t channel_id) { return Channel(channel_id).size(); }

}  // namespace collectives
}  // namespace xla
