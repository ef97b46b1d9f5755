#include "backends/cpu/runtime/runtime_linalg.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "Eigen/Core"
#include "backends/cpu/runtime/runtime_parallel.h"
#include "backends/cpu/runtime/runtime_stop.h"

namespace xla {
namespace cpu {
namespace {

template <typename T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Solves with `op_a` (a, a^T or a^H of the row-major map) viewed as `Mode`
// (its lower or upper triangle, unit or not).
template <int Mode, typename OpA, typename X>
void SolveWith(const OpA& op_a, X& x, bool left_side) {
  if (left_side) {
    op_a.template triangularView<Mode>().solveInPlace(x);
  } else {
    op_a.template triangularView<Mode>().template solveInPlace<Eigen::OnTheRight>(x);
  }
}

template <typename OpA, typename X>
void SolveTriangle(const OpA& op_a, X& x, bool left_side, bool op_lower, bool unit_diagonal) {
  if (op_lower) {
    unit_diagonal ? SolveWith<Eigen::UnitLower>(op_a, x, left_side) : SolveWith<Eigen::Lower>(op_a, x, left_side);
  } else {
    unit_diagonal ? SolveWith<Eigen::UnitUpper>(op_a, x, left_side) : SolveWith<Eigen::Upper>(op_a, x, left_side);
  }
}

template <typename T>
struct SolveCall {
  T* out;
  const T* a;
  const T* b;
  int64_t m, n;
  bool left_side, lower, unit_diagonal;
  int32_t transpose_a;
  const volatile uint8_t* stop;
};

// The independent columns (left side) or rows (right side) of one system's x
// solved per Eigen call, so that a stop request waits for at most about
// kSolveMacsPerStopCheck multiply-adds (at least kSolveMinVectorsPerCall).
constexpr double kSolveMacsPerStopCheck = double{1 << 30};
constexpr int64_t kSolveMinVectorsPerCall = 16;

template <typename T>
void SolveBody(void* context, int64_t begin, int64_t end) {
  const SolveCall<T>& c = *static_cast<const SolveCall<T>*>(context);
  const int64_t rows = c.left_side ? c.m : c.n, cols = c.left_side ? c.n : c.m;
  for (int64_t i = begin; i < end; ++i) {
    Eigen::Map<const RowMajorMatrix<T>> a(c.a + i * c.m * c.m, c.m, c.m);
    T* x_data = c.out + i * c.m * c.n;
    if (x_data != c.b + i * c.m * c.n) std::memcpy(x_data, c.b + i * c.m * c.n, sizeof(T) * c.m * c.n);
    Eigen::Map<RowMajorMatrix<T>> x(x_data, rows, cols);
    // x's columns (left side: op(a) x = b) or rows (x op(a) = b) are
    // independent systems.
    const int64_t vectors = c.left_side ? cols : rows;
    const double macs_per_vector = static_cast<double>(c.m) * static_cast<double>(c.m) / 2;
    const int64_t per_call = std::max<int64_t>(
        kSolveMinVectorsPerCall, static_cast<int64_t>(kSolveMacsPerStopCheck / std::max(macs_per_vector, 1.0)));
    for (int64_t first = 0; first < vectors; first += per_call) {
      if (StopRequested(c.stop)) return;
      const int64_t count = std::min(per_call, vectors - first);
      auto part = c.left_side ? x.block(0, first, rows, count) : x.block(first, 0, count, cols);
      // The triangle of a read is `lower`'s; op(a)'s is the other one when
      // a is transposed.
      switch (c.transpose_a) {
        case 0: SolveTriangle(a, part, c.left_side, c.lower, c.unit_diagonal); break;
        case 1: SolveTriangle(a.transpose(), part, c.left_side, !c.lower, c.unit_diagonal); break;
        default: SolveTriangle(a.adjoint(), part, c.left_side, !c.lower, c.unit_diagonal); break;
      }
    }
  }
}

template <typename T>
void TriangularSolve(const void* device, void* out, const void* a, const void* b, int64_t batch, int64_t m, int64_t n,
                     int32_t left_side, int32_t lower, int32_t unit_diagonal, int32_t transpose_a,
                     const volatile uint8_t* stop) {
  SolveCall<T> call{static_cast<T*>(out), static_cast<const T*>(a), static_cast<const T*>(b), m, n,
                    left_side != 0, lower != 0, unit_diagonal != 0, transpose_a, stop};
  const double bytes = sizeof(T) * static_cast<double>(m * m + m * n);
  __xla_cpu_runtime_ParallelFor(device, &SolveBody<T>, &call, batch, bytes, sizeof(T) * static_cast<double>(m * n),
                                static_cast<double>(m) * m * n);
}

// Cholesky-Crout, column by column as the evaluator (and XLA's expander):
// `in` and `l` are maps whose (i, j), i >= j, is the lower triangle read
// and written (column-major maps of row-major data for the upper case).
// Eigen's LLT is not used: it stops at the first non-positive pivot (a zero
// last pivot is a valid factor here) and lets NaN pivots through, where the
// op's result is all NaNs exactly when a pivot's square root is NaN.
// Reads `stop` before every column and leaves l unfinished once it is set.
template <typename T, typename In, typename Out>
void FactorOne(const In& in, Out& l, const volatile uint8_t* stop) {
  using Real = typename Eigen::NumTraits<T>::Real;
  const int64_t n = in.rows();
  l.setZero();
  bool failed = false;
  for (int64_t j = 0; j < n; ++j) {
    if (StopRequested(stop)) return;
    const Real pivot = Eigen::numext::real(in(j, j)) - l.row(j).head(j).squaredNorm();
    const Real root = std::sqrt(pivot);
    failed |= std::isnan(root);
    l(j, j) = T(root);
    const int64_t below = n - j - 1;
    if (below > 0) {
      l.col(j).tail(below) =
          (in.col(j).tail(below) - l.bottomLeftCorner(below, j) * l.row(j).head(j).adjoint()) / T(root);
    }
  }
  if (failed) l.setConstant(T(std::numeric_limits<Real>::quiet_NaN()));
}

template <typename T>
struct CholeskyCall {
  T* out;
  const T* a;
  int64_t n;
  bool lower;
  const volatile uint8_t* stop;
};

template <typename T>
void CholeskyBody(void* context, int64_t begin, int64_t end) {
  using ColMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
  const CholeskyCall<T>& c = *static_cast<const CholeskyCall<T>*>(context);
  for (int64_t i = begin; i < end; ++i) {
    const T* a = c.a + i * c.n * c.n;
    T* out = c.out + i * c.n * c.n;
    if (c.lower) {
      Eigen::Map<const RowMajorMatrix<T>> in(a, c.n, c.n);
      Eigen::Map<RowMajorMatrix<T>> l(out, c.n, c.n);
      FactorOne<T>(in, l, c.stop);
    } else {
      // u = (the lower factor of a^T)^T: the same loop over transposed views.
      Eigen::Map<const ColMajorMatrix> in(a, c.n, c.n);
      Eigen::Map<ColMajorMatrix> l(out, c.n, c.n);
      FactorOne<T>(in, l, c.stop);
    }
  }
}

template <typename T>
void Cholesky(const void* device, void* out, const void* a, int64_t batch, int64_t n, int32_t lower,
              const volatile uint8_t* stop) {
  CholeskyCall<T> call{static_cast<T*>(out), static_cast<const T*>(a), n, lower != 0, stop};
  const double bytes = sizeof(T) * static_cast<double>(n * n);
  __xla_cpu_runtime_ParallelFor(device, &CholeskyBody<T>, &call, batch, bytes, bytes,
                                static_cast<double>(n) * n * n / 3);
}

}  // namespace
}  // namespace cpu
}  // namespace xla

extern "C" {
#define XLA_CPU_RUNTIME_LINALG(NAME, T)                                                                           \
  void __xla_cpu_runtime_TriangularSolve##NAME(const void* device, void* out, const void* a, const void* b,      \
                                               int64_t batch, int64_t m, int64_t n, int32_t left_side,           \
                                               int32_t lower, int32_t unit_diagonal, int32_t transpose_a,        \
                                               const volatile uint8_t* stop) {                                    \
    xla::cpu::TriangularSolve<T>(device, out, a, b, batch, m, n, left_side, lower, unit_diagonal, transpose_a,    \
                                 stop);                                                                           \
  }                                                                                                               \
  void __xla_cpu_runtime_Cholesky##NAME(const void* device, void* out, const void* a, int64_t batch, int64_t n,  \
                                        int32_t lower, const volatile uint8_t* stop) {                            \
    xla::cpu::Cholesky<T>(device, out, a, batch, n, lower, stop);                                                 \
  }
XLA_CPU_RUNTIME_LINALG(F32, float)
XLA_CPU_RUNTIME_LINALG(F64, double)
XLA_CPU_RUNTIME_LINALG(C64, std::complex<float>)
XLA_CPU_RUNTIME_LINALG(C128, std::complex<double>)
#undef XLA_CPU_RUNTIME_LINALG
}
