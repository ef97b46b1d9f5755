#include "tools/bench/eigen_matmul_reference.h"

// This file's Eigen is built for AVX2+FMA, the CPU backend's for the
// baseline ISA. Inline functions and template instances of the same name
// would be merged by the linker across the two (one definition rule), mixing
// e.g. 32-byte and 16-byte aligned allocation; renaming the namespace keeps
// this copy of Eigen apart.
#define Eigen EigenBenchAvx2
#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"

namespace xla {
namespace bench {

struct EigenMatMulReference::Pool {
  explicit Pool(int threads) : pool(threads), device(&pool, threads) {}
  Eigen::ThreadPool pool;
  Eigen::ThreadPoolDevice device;
};

bool EigenMatMulReference::Supported() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

EigenMatMulReference::EigenMatMulReference(int threads) : pool_(std::make_unique<Pool>(threads)) {}
EigenMatMulReference::~EigenMatMulReference() = default;

void EigenMatMulReference::Run(const float* lhs, const float* rhs, float* out, int64_t m, int64_t k, int64_t n) {
  // Column-major views (Eigen's native layout): a row-major matrix read
  // column-major is its transpose, so out^T = rhs^T . lhs^T.
  using Map = Eigen::TensorMap<Eigen::Tensor<const float, 2, Eigen::ColMajor>>;
  using OutMap = Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::ColMajor>>;
  Map lhs_t(lhs, k, m), rhs_t(rhs, n, k);
  OutMap out_t(out, n, m);
  Eigen::array<Eigen::IndexPair<Eigen::Index>, 1> dims = {Eigen::IndexPair<Eigen::Index>(1, 0)};
  out_t.device(pool_->device) = rhs_t.contract(lhs_t, dims);
}

}  // namespace bench
}  // namespace xla
