#include "backends/cpu/runtime/runtime_math.h"

extern "C" {

uint64_t __xla_cpu_runtime_PowU64(uint64_t base, uint64_t exponent) {
  uint64_t result = 1;
  while (exponent != 0) {
    if (exponent & 1) result *= base;
    base *= base;
    exponent >>= 1;
  }
  return result;
}

int64_t __xla_cpu_runtime_PowS64(int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent & 1) ? -1 : 1;
    return 0;
  }
  return static_cast<int64_t>(__xla_cpu_runtime_PowU64(static_cast<uint64_t>(base), static_cast<uint64_t>(exponent)));
}

}  // extern "C"
