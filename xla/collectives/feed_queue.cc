#include "xla/collectives/feed_queue.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace xla {
namespace collectives {

void FeedQueue::Push(Literal value) {
  absl::MutexLock lock(&mu_);
  values_.push_back(std::move(value));
}

absl::Status FeedQueue::PushBounded(Literal value, size_t max_values) {
  absl::MutexLock lock(&mu_);
  if (values_.size() >= max_values) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the queue already holds ", values_.size(), " values (the most it takes)"));
  }
  values_.push_back(std::move(value));
  return absl::OkStatus();
}

absl::StatusOr<Literal> FeedQueue::Pop(absl::string_view label, absl::Duration timeout,
                                       const std::function<absl::Status(const Literal&)>& check,
                                       const std::function<absl::Status()>& stopped) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::MutexLock lock(&mu_);
  auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !values_.empty(); };
  while (true) {
    const absl::Duration left = std::max(deadline - absl::Now(), absl::ZeroDuration());
    const absl::Duration slice = stopped ? std::min(left, kStopPollInterval) : left;
    if (mu_.AwaitWithTimeout(absl::Condition(&ready), slice)) break;
    if (left <= slice) {
      return absl::DeadlineExceededError(
          absl::StrCat(label, ": no value arrived in the queue within ", absl::FormatDuration(timeout)));
    }
    // The probe may take other locks (a run's control, gRPC's call state).
    mu_.Unlock();
    absl::Status status = stopped();
    mu_.Lock();
    if (!status.ok()) return status;
  }
  if (check) {
    absl::Status accepted = check(values_.front());
    if (!accepted.ok()) return accepted;
  }
  Literal value = std::move(values_.front());
  values_.pop_front();
  return value;
}

size_t FeedQueue::size() const {
  absl::MutexLock lock(&mu_);
  return values_.size();
}

}  // namespace collectives
}  // namespace xla
