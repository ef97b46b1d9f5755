// Scalar runtime helpers called from JIT code for operations that are not
// worth emitting inline (integer power by squaring).
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_MATH_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_MATH_H_

#include <cstdint>

extern "C" {
// The evaluator's integer power (wrapping; negative exponents give 0 except
// for bases 1 and -1). Narrower types pass sign/zero-extended values and
// truncate the result.
int64_t __xla_cpu_runtime_PowS64(int64_t base, int64_t exponent);
uint64_t __xla_cpu_runtime_PowU64(uint64_t base, uint64_t exponent);
}

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_MATH_H_
