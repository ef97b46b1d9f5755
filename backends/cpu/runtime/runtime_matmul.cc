#include "backends/cpu/runtime/runtime_matmul.h"

#include <algorithm>

#include "backends/cpu/runtime/runtime_matmul_kernels.h"
#include "backends/cpu/runtime/runtime_stop.h"

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"

namespace xla {
namespace cpu {

bool HostSupportsAvx2MatMul() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

bool HostSupportsAvx512MatMul() {
  return HostSupportsAvx2MatMul() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
}

const MatMulKernels& SelectedMatMulKernels() {
  static const MatMulKernels kernels = HostSupportsAvx512MatMul() ? Avx512MatMulKernels()
                                       : HostSupportsAvx2MatMul() ? Avx2MatMulKernels()
                                                                  : BaselineMatMulKernels();
  return kernels;
}

int64_t MatMulRowsPerCall(int64_t m, int64_t n, int64_t k) {
  const double macs_per_row = static_cast<double>(n) * static_cast<double>(k);
  if (static_cast<double>(m) * macs_per_row <= 2 * kMatMulMacsPerStopCheck) return m;
  const double rows = std::max<double>(kMatMulMinRowsPerCall, kMatMulMacsPerStopCheck / std::max(macs_per_row, 1.0));
  return std::min<int64_t>(m, static_cast<int64_t>(rows));
}

namespace {

// The backend's pool (a baseline Eigen::ThreadPool) as a TaskScheduler.
class PoolScheduler final : public TaskScheduler {
 public:
  explicit PoolScheduler(Eigen::ThreadPoolInterface* pool) : pool_(pool) {}
  void Schedule(std::function<void()> fn) override { pool_->Schedule(std::move(fn)); }
  int NumThreads() const override { return pool_->NumThreads(); }
  int CurrentThreadId() const override { return pool_->CurrentThreadId(); }

 private:
  Eigen::ThreadPoolInterface* pool_;
};

template <typename T>
void Run(MatMulKernel<T> kernel, const void* device, T* out, const T* lhs, const T* rhs, int64_t m, int64_t n,
         int64_t k, int32_t transpose_lhs, int32_t transpose_rhs, XlaCpuMatMulEpilogue epilogue,
         const void* epilogue_context, const volatile uint8_t* stop) {
  if (StopRequested(stop)) return;
  const int64_t rows_per_call = MatMulRowsPerCall(m, n, k);
  const auto* pool_device = static_cast<const Eigen::ThreadPoolDevice*>(device);
  if (pool_device == nullptr) {
    kernel(nullptr, out, lhs, rhs, m, n, k, transpose_lhs != 0, transpose_rhs != 0, epilogue, epilogue_context,
           rows_per_call, stop);
    return;
  }
  PoolScheduler scheduler(pool_device->getPool());
  kernel(&scheduler, out, lhs, rhs, m, n, k, transpose_lhs != 0, transpose_rhs != 0, epilogue, epilogue_context,
         rows_per_call, stop);
}

}  // namespace
}  // namespace cpu
}  // namespace xla

extern "C" {

void __xla_cpu_runtime_MatMulF32(const void* device, float* out, const float* lhs, const float* rhs, int64_t m,
                                 int64_t n, int64_t k, int32_t transpose_lhs, int32_t transpose_rhs,
                                 XlaCpuMatMulEpilogue epilogue, const void* epilogue_context,
                                 const volatile uint8_t* stop) {
  xla::cpu::Run(xla::cpu::SelectedMatMulKernels().f32, device, out, lhs, rhs, m, n, k, transpose_lhs, transpose_rhs,
                epilogue, epilogue_context, stop);
}

void __xla_cpu_runtime_MatMulF64(const void* device, double* out, const double* lhs, const double* rhs, int64_t m,
                                 int64_t n, int64_t k, int32_t transpose_lhs, int32_t transpose_rhs,
                                 XlaCpuMatMulEpilogue epilogue, const void* epilogue_context,
                                 const volatile uint8_t* stop) {
  xla::cpu::Run(xla::cpu::SelectedMatMulKernels().f64, device, out, lhs, rhs, m, n, k, transpose_lhs, transpose_rhs,
                epilogue, epilogue_context, stop);
}

}  // extern "C"
