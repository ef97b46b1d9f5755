// Runtime triangular solve and Cholesky factorization called from JIT code,
// on batches of row-major matrices, through Eigen. The semantics are the
// reference evaluator's (xla/evaluator/linalg_ops.cc).
//
// TriangularSolve<T>(device, out, a, b, batch, m, n, left_side, lower,
// unit_diagonal, transpose_a): for each of `batch` systems, a [m, m], b and
// out [m, n] (left_side) or [n, m]: out = x with op(a) x = b or x op(a) = b,
// op(a) = a (transpose_a 0), a^T (1) or a^H (2). Only the lower (or upper)
// triangle of a is read, without the diagonal when unit_diagonal. `out` may
// be `b`.
//
// Cholesky<T>(device, out, a, batch, n, lower): for each [n, n] matrix, the
// lower factor l (a = l l^H) from a's lower triangle, or the upper factor u
// (a = u^H u) from its upper triangle; the other triangle of out is zero. A
// matrix where a pivot's square root is NaN (not positive definite) gives
// NaNs throughout. `out` may not overlap `a`.
//
// T: F32, F64, C64, C128 (f16/bf16 are converted to f32 around the call by
// the CPU pipeline). `device` is the run's Eigen::ThreadPoolDevice (matrices
// of a batch run in parallel) or null. `stop` (may be null): the run's stop
// flag (runtime_stop.h), read between matrices, before every column of a
// factorization and between groups of a solve's independent vectors.
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_LINALG_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_LINALG_H_

#include <cstdint>

extern "C" {
#define XLA_CPU_RUNTIME_LINALG(T)                                                                                  \
  void __xla_cpu_runtime_TriangularSolve##T(const void* device, void* out, const void* a, const void* b,          \
                                            int64_t batch, int64_t m, int64_t n, int32_t left_side, int32_t lower, \
                                            int32_t unit_diagonal, int32_t transpose_a,                            \
                                            const volatile uint8_t* stop);                                         \
  void __xla_cpu_runtime_Cholesky##T(const void* device, void* out, const void* a, int64_t batch, int64_t n,      \
                                     int32_t lower, const volatile uint8_t* stop);
XLA_CPU_RUNTIME_LINALG(F32)
XLA_CPU_RUNTIME_LINALG(F64)
XLA_CPU_RUNTIME_LINALG(C64)
XLA_CPU_RUNTIME_LINALG(C128)
#undef XLA_CPU_RUNTIME_LINALG
}

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_LINALG_H_
