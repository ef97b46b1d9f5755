#include "backends/cpu/runtime_matmul.h"

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"

namespace {

template <typename T>
void MatMul(const void* device, T* out, const T* lhs, const T* rhs, int64_t m, int64_t n, int64_t k, bool transpose_lhs,
            bool transpose_rhs) {
  using Index = Eigen::Index;
  Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor>> a(lhs, transpose_lhs ? k : m, transpose_lhs ? m : k);
  Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor>> b(rhs, transpose_rhs ? n : k, transpose_rhs ? k : n);
  Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor>> c(out, m, n);
  Eigen::array<Eigen::IndexPair<Index>, 1> dims = {
      Eigen::IndexPair<Index>(transpose_lhs ? 0 : 1, transpose_rhs ? 1 : 0)};
  if (device != nullptr) {
    c.device(*static_cast<const Eigen::ThreadPoolDevice*>(device)) = a.contract(b, dims);
  } else {
    c = a.contract(b, dims);
  }
}

}  // namespace

extern "C" {

void __xla_cpu_runtime_MatMulF32(const void* device, float* out, const float* lhs, const float* rhs, int64_t m, int64_t n, int64_t k,
                                 int32_t transpose_lhs, int32_t transpose_rhs) {
  MatMul(device, out, lhs, rhs, m, n, k, transpose_lhs != 0, transpose_rhs != 0);
}

void __xla_cpu_runtime_MatMulF64(const void* device, double* out, const double* lhs, const double* rhs, int64_t m, int64_t n,
                                 int64_t k, int32_t transpose_lhs, int32_t transpose_rhs) {
  MatMul(device, out, lhs, rhs, m, n, k, transpose_lhs != 0, transpose_rhs != 0);
}

}  // extern "C"
