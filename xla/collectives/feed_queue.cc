#include "xla/collectives/feed_queue.h"

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
                                       const std::function<absl::Status(const Literal&)>& check) {
  absl::MutexLock lock(&mu_);
  auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !values_.empty(); };
  if (!mu_.AwaitWithTimeout(absl::Condition(&ready), timeout)) {
    return absl::DeadlineExceededError(
        absl::StrCat(label, ": no value arrived in the queue within ", absl::FormatDuration(timeout)));
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
