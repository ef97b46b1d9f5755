#include "xla/collectives/replica_context.h"

#include <functional>

#include "absl/strings/str_cat.h"

namespace xla {
namespace collectives {

int64_t ReplicaContext::NextOccurrence(const std::string& key) {
  absl::MutexLock lock(&mu_);
  return occurrences_[key]++;
}

absl::StatusOr<Literal> ReplicaContext::Recv(int64_t channel_id, absl::string_view label) {
  if (channels_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(label, ": this run has no channel table"));
  std::function<absl::Status()> stopped;
  if (communicator_ != nullptr) stopped = [this] { return communicator_->aborted(); };
  return channels_->Recv(channel_id, label, feed_timeout_, stopped);
}

}  // namespace collectives
}  // namespace xla
