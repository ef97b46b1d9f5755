#include "backends/cpu/cpu_backend.h"

namespace xla {
namespace cpu {
namespace {

// Priority 1, above the interpreter (0): where linked in, the CPU backend is
// the default of LocalClient, xla_run and the daemon. The interpreter stays
// available by name as the reference.
const bool registered = [] {
  BackendRegistry::Register("cpu", /*priority=*/1, []() -> absl::StatusOr<std::unique_ptr<Backend>> {
    return std::make_unique<CpuBackend>();
  });
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace xla
