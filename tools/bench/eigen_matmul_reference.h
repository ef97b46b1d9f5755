// The matmul reference of cpu_bench: Eigen's tensor contraction called
// directly on an Eigen::ThreadPoolDevice. Its own translation unit because
// it is compiled for AVX2+FMA (see BUILD.bazel): the reference is what Eigen
// reaches on this machine, not what the project's default -O2 x86-64 flags
// (SSE2) allow.
#ifndef TOOLS_BENCH_EIGEN_MATMUL_REFERENCE_H_
#define TOOLS_BENCH_EIGEN_MATMUL_REFERENCE_H_

#include <cstdint>
#include <memory>

namespace xla {
namespace bench {

class EigenMatMulReference {
 public:
  // True when this CPU runs the AVX2+FMA code the reference is built as.
  static bool Supported();

  explicit EigenMatMulReference(int threads);
  ~EigenMatMulReference();

  // out = lhs . rhs for row-major n x n matrices.
  void Run(const float* lhs, const float* rhs, float* out, int64_t n) { Run(lhs, rhs, out, n, n, n); }
  // out[m, n] = lhs[m, k] . rhs[k, n], row-major.
  void Run(const float* lhs, const float* rhs, float* out, int64_t m, int64_t k, int64_t n);

 private:
  struct Pool;
  std::unique_ptr<Pool> pool_;
};

}  // namespace bench
}  // namespace xla

#endif  // TOOLS_BENCH_EIGEN_MATMUL_REFERENCE_H_
