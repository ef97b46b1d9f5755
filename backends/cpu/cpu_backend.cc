#include "backends/cpu/cpu_backend.h"

namespace xla {
namespace cpu {
namespace {

// Priority -1: the interpreter (0) stays the default backend until the CPU
// backend covers the whole op slice (issue 4); then this becomes the
// highest priority.
const bool registered = [] {
  BackendRegistry::Register("cpu", /*priority=*/-1, []() -> absl::StatusOr<std::unique_ptr<Backend>> {
    return std::make_unique<CpuBackend>();
  });
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace xla
