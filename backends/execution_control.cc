#include "backends/execution_control.h"

namespace xla {

bool ExecutionControl::ShouldStop() const {
  const absl::Time now = absl::Now();
  // The probe (a system call for gRPC) at most once per kProbeInterval: the
  // interpreter checks at every loop iteration.
  const int64_t now_ns = absl::ToUnixNanos(now);
  if (cancelled_probe_ && !cancelled_.load(std::memory_order_relaxed) &&
      now_ns >= next_probe_ns_.load(std::memory_order_relaxed)) {
    next_probe_ns_.store(now_ns + absl::ToInt64Nanoseconds(kProbeInterval), std::memory_order_relaxed);
    if (cancelled_probe_()) cancelled_.store(true, std::memory_order_relaxed);
  }
  if (!cancelled_.load(std::memory_order_relaxed) && now < deadline_) return false;
  stopped_.store(true, std::memory_order_relaxed);
  return true;
}

absl::Status ExecutionControl::StopStatus() const {
  if (cancelled_.load(std::memory_order_relaxed)) return absl::CancelledError("the run was cancelled");
  return absl::DeadlineExceededError("the run did not finish before its deadline");
}

void ExecutionControl::SetError(const absl::Status& status) const {
  absl::MutexLock lock(&error_mu_);
  if (error_.ok()) error_ = status;
}

absl::Status ExecutionControl::error() const {
  absl::MutexLock lock(&error_mu_);
  return error_;
}

}  // namespace xla

extern "C" bool __xla_runtime_ShouldStop(const void* control) {
  return control != nullptr && static_cast<const xla::ExecutionControl*>(control)->ShouldStop();
}
