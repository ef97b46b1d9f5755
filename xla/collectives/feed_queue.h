// FeedQueue: one device's infeed or outfeed, a FIFO of values. Infeed pops
// (waiting up to a timeout for a value to arrive), Outfeed pushes; the host
// side does the opposite. Thread-safe.
#ifndef XLA_COLLECTIVES_FEED_QUEUE_H_
#define XLA_COLLECTIVES_FEED_QUEUE_H_

#include <deque>
#include <functional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "xla/literal.h"

namespace xla {
namespace collectives {

class FeedQueue {
 public:
  static constexpr absl::Duration kStopPollInterval = absl::Milliseconds(10);

  void Push(Literal value);
  // Push unless the queue already holds `max_values` (RESOURCE_EXHAUSTED):
  // a client filling a device's infeed must not grow it without bound.
  absl::Status PushBounded(Literal value, size_t max_values);
  // The oldest value; DEADLINE_EXCEEDED naming `label` when none arrives
  // within `timeout`. When `check` rejects the value, its error is returned
  // and the value stays at the front of the queue. `stopped`, when given, is
  // asked every kStopPollInterval while waiting (outside the queue's lock):
  // a non-OK status (the run's deadline or cancel, the client gone) ends the
  // wait with that status.
  absl::StatusOr<Literal> Pop(absl::string_view label, absl::Duration timeout,
                              const std::function<absl::Status(const Literal&)>& check = nullptr,
                              const std::function<absl::Status()>& stopped = nullptr);
  size_t size() const;

 private:
  mutable absl::Mutex mu_;
  std::deque<Literal> values_ ABSL_GUARDED_BY(mu_);
};

}  // namespace collectives
}  // namespace xla

#endif  // XLA_COLLECTIVES_FEED_QUEUE_H_
