#include "backends/execution_control.h"

namespace xla {

bool ExecutionControl::ShouldStop() const {
  if (cancelled_probe_ && !cancelled_.load(std::memory_order_relaxed) && cancelled_probe_()) {
    cancelled_.store(true, std::memory_order_relaxed);
  }
  if (!cancelled_.load(std::memory_order_relaxed) && absl::Now() < deadline_) return false;
  stopped_.store(true, std::memory_order_relaxed);
  return true;
}

absl::Status ExecutionControl::StopStatus() const {
  if (cancelled_.load(std::memory_order_relaxed)) return absl::CancelledError("the run was cancelled");
  return absl::DeadlineExceededError("the run did not finish before its deadline");
}

}  // namespace xla

extern "C" bool __xla_runtime_ShouldStop(const void* control) {
  return control != nullptr && static_cast<const xla::ExecutionControl*>(control)->ShouldStop();
}
