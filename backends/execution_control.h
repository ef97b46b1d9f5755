// ExecutionControl: how a caller stops a run that takes too long. Backends
// check it at loop back-edges (every While iteration in the interpreter,
// every 1024th in CPU code), so a runaway loop ends with DEADLINE_EXCEEDED
// (or CANCELLED) instead of holding a thread forever. Thread-safe.
#ifndef BACKENDS_EXECUTION_CONTROL_H_
#define BACKENDS_EXECUTION_CONTROL_H_

#include <atomic>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace xla {

class ExecutionControl {
 public:
  explicit ExecutionControl(absl::Time deadline = absl::InfiniteFuture()) : deadline_(deadline) {}

  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }

  // True once cancelled or past the deadline; remembers that it said so.
  bool ShouldStop() const;
  // Whether ShouldStop() ever returned true (the run was cut short).
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  // The status of a stopped run: CANCELLED or DEADLINE_EXCEEDED.
  absl::Status StopStatus() const;

 private:
  const absl::Time deadline_;
  std::atomic<bool> cancelled_{false};
  mutable std::atomic<bool> stopped_{false};
};

}  // namespace xla

extern "C" {
// For JIT code: ShouldStop() of `control` (an ExecutionControl*, may be null).
bool __xla_runtime_ShouldStop(const void* control);
}

#endif  // BACKENDS_EXECUTION_CONTROL_H_
