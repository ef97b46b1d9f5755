// Runtime matrix multiply called from JIT code for rank-2 (and, in a loop,
// batched) f32/f64 dots, through Eigen's tensor contraction.
//
// out[m, n] = sum_k lhs[m, k] * rhs[k, n], all row-major. With transpose_lhs
// the lhs buffer holds [k, m]; with transpose_rhs the rhs buffer holds [n, k].
// `device` is the run's Eigen::ThreadPoolDevice, or null for one thread.
//
// `epilogue` (may be null) is applied to every block of `out` once the
// block's sums are complete, while the block is still in cache: JIT code
// passes a dot's elementwise consumers this way (ir_emitter.h).
//
// `stop` (may be null) is the run's stop flag (runtime_stop.h): a large
// product is computed in groups of rows of bounded work
// (MatMulRowsPerCall), and the call returns early once the flag is set.
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_MATMUL_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_MATMUL_H_

#include <cstdint>

extern "C" {
// Rewrites rows [row_begin, row_end) x columns [col_begin, col_end) of the
// row-major [m, n] `out` in place; `context` is the caller's. Blocks are
// disjoint and may be processed on several threads at once.
typedef void (*XlaCpuMatMulEpilogue)(const void* context, void* out, int64_t row_begin, int64_t row_end,
                                     int64_t col_begin, int64_t col_end);

void __xla_cpu_runtime_MatMulF32(const void* device, float* out, const float* lhs, const float* rhs, int64_t m, int64_t n, int64_t k,
                                 int32_t transpose_lhs, int32_t transpose_rhs, XlaCpuMatMulEpilogue epilogue,
                                 const void* epilogue_context, const volatile uint8_t* stop);
void __xla_cpu_runtime_MatMulF64(const void* device, double* out, const double* lhs, const double* rhs, int64_t m, int64_t n,
                                 int64_t k, int32_t transpose_lhs, int32_t transpose_rhs, XlaCpuMatMulEpilogue epilogue,
                                 const void* epilogue_context, const volatile uint8_t* stop);
}

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_MATMUL_H_
