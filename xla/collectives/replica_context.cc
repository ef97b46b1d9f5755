#include "xla/collectives/replica_context.h"

#include <functional>
#include <string>

#include "absl/strings/str_cat.h"

namespace xla {
namespace collectives {

int64_t ReplicaContext::NextOccurrence(const std::string& key) {
  absl::MutexLock lock(&mu_);
  return occurrences_[key]++;
}

std::function<absl::Status()> ReplicaContext::WaitStopProbe(
    std::string label, const std::function<absl::Status()>& run_stopped) const {
  if (run_stopped == nullptr && communicator_ == nullptr) return nullptr;
  return [this, run_stopped, where = std::move(label)]() -> absl::Status {
    if (run_stopped != nullptr) {
      if (absl::Status stop = run_stopped(); !stop.ok()) {
        return absl::Status(stop.code(), absl::StrCat(where, ": ", stop.message()));
      }
    }
    if (communicator_ != nullptr) {
      if (absl::Status aborted = communicator_->aborted(); !aborted.ok()) {
        return absl::AbortedError(absl::StrCat(where, ": stopped because the run failed: ", aborted.message()));
      }
    }
    return absl::OkStatus();
  };
}

absl::StatusOr<Literal> ReplicaContext::PopInfeed(absl::string_view label,
                                                  const std::function<absl::Status()>& run_stopped) {
  return infeed_->Pop(label, feed_timeout_, nullptr, WaitStopProbe(std::string(label), run_stopped));
}

absl::StatusOr<Literal> ReplicaContext::Recv(int64_t channel_id, absl::string_view label,
                                             const std::function<absl::Status()>& run_stopped) {
  if (channels_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(label, ": this run has no channel table"));
  return channels_->Recv(channel_id, label, feed_timeout_,
                         WaitStopProbe(absl::StrCat(label, " on channel ", channel_id), run_stopped));
}

}  // namespace collectives
}  // namespace xla
