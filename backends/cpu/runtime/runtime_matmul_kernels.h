// Matrix-multiply kernels of the CPU runtime, one per instruction set: the
// same Eigen contraction (runtime_matmul_kernel.inc) compiled for the
// baseline x86-64 ISA, for AVX2+FMA and for AVX-512, each against its own
// copy of Eigen (renamed namespace), so one binary runs on any x86-64 CPU and
// uses the widest vectors the host has. runtime_matmul.cc picks one at the
// first call (SelectedMatMulKernels).
//
// Threads reach the renamed Eigen copies through TaskScheduler, a plain
// interface over the backend's thread pool (an Eigen type of one copy cannot
// be handed to another).
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_MATMUL_KERNELS_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_MATMUL_KERNELS_H_

#include <cstdint>
#include <functional>

#include "backends/cpu/runtime/runtime_matmul.h"

namespace xla {
namespace cpu {

class TaskScheduler {
 public:
  virtual ~TaskScheduler() = default;
  virtual void Schedule(std::function<void()> fn) = 0;
  virtual int NumThreads() const = 0;
  // In [0, NumThreads()) on a pool thread, -1 elsewhere.
  virtual int CurrentThreadId() const = 0;
};

// out[m, n] = sum_k lhs[m, k] * rhs[k, n], row-major; with transpose_lhs the
// lhs buffer holds [k, m], with transpose_rhs the rhs buffer holds [n, k].
// `scheduler` null: on the calling thread. `epilogue` (may be null): applied
// to each finished block of `out` (runtime_matmul.h). The rows of `out` are
// computed `rows_per_call` at a time (<= 0: all at once), each group one
// contraction, and `stop` (may be null) is read before each: once it is
// set, the rest is skipped (runtime_stop.h).
template <typename T>
using MatMulKernel = void (*)(TaskScheduler* scheduler, T* out, const T* lhs, const T* rhs, int64_t m, int64_t n,
                              int64_t k, bool transpose_lhs, bool transpose_rhs, XlaCpuMatMulEpilogue epilogue,
                              const void* epilogue_context, int64_t rows_per_call, const volatile uint8_t* stop);

// How many rows of an [m, n] x [n, k] product one contraction computes so
// that a stop request waits for at most about kMatMulMacsPerStopCheck
// multiply-adds: all m when the product is not much larger, else at least
// kMatMulMinRowsPerCall (a group of fewer rows would cost Eigen's packing
// of rhs, once per group, more than 1/kMatMulMinRowsPerCall of its work).
constexpr double kMatMulMacsPerStopCheck = double{1 << 30};
constexpr int64_t kMatMulMinRowsPerCall = 64;
int64_t MatMulRowsPerCall(int64_t m, int64_t n, int64_t k);

struct MatMulKernels {
  const char* isa;
  MatMulKernel<float> f32;
  MatMulKernel<double> f64;
};

// Each ISA's kernels; `Supported` says whether this CPU can run them.
MatMulKernels BaselineMatMulKernels();
MatMulKernels Avx2MatMulKernels();
MatMulKernels Avx512MatMulKernels();
bool HostSupportsAvx2MatMul();
bool HostSupportsAvx512MatMul();

// The widest kernels the host supports (chosen once).
const MatMulKernels& SelectedMatMulKernels();

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_MATMUL_KERNELS_H_
