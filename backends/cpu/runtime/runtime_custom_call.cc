#include "backends/cpu/runtime/runtime_custom_call.h"

#include "backends/execution_control.h"
#include "xla/custom_call/custom_call_invocation.h"

extern "C" bool __xla_cpu_runtime_CustomCall(const void* control, const void* invocation,
                                             const void* const* operands, void* const* results) {
  absl::Status status =
      static_cast<const xla::CustomCallInvocation*>(invocation)->Invoke(operands, results);
  if (status.ok()) return true;
  // CpuExecutable always passes a control (its own when the caller has none).
  if (control != nullptr) static_cast<const xla::ExecutionControl*>(control)->SetError(status);
  return false;
}
