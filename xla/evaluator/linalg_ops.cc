// TriangularSolve and Cholesky over batches of matrices (the innermost two
// dimensions; the others are batch dimensions).
//
// Arithmetic: f16, bf16 and f32 are computed in f32 (converted in, rounded
// once on the way out), f64 in f64, c64/c128 in complex<float>/<double>.
//
// TriangularSolve: x with op(a) x = b (left_side) or x op(a) = b, op(a) = a,
// a^T or a^H, by forward or back substitution. Only the `lower` (or upper)
// triangle of a is read, and with unit_diagonal not its diagonal (taken as
// 1). A zero on the diagonal divides by zero (inf/NaN), as in XLA.
//
// Cholesky: for `lower`, l with a = l l^H from a's lower triangle, column by
// column (Cholesky-Crout, the order of XLA's expander): l[j][j] =
// sqrt(re(a[j][j]) - sum_k |l[j][k]|^2), l[i][j] = (a[i][j] - sum_k l[i][k]
// conj(l[j][k])) / l[j][j] for i > j. For upper, u = (the lower factor of
// a^T)^T, read from a's upper triangle, so a = u^H u. The other triangle of
// the result is zero. As XLA's expander does, a matrix for which some
// pivot's square root is NaN (a negative or NaN pivot: not positive
// definite) gives a matrix of NaNs; each matrix of a batch on its own.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>
#include <vector>

#include "xla/evaluator/evaluator_internal.h"
#include "xla/shape_inference.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

namespace {

template <typename T>
struct IsComplex : std::false_type {
  using Real = T;
};
template <typename T>
struct IsComplex<std::complex<T>> : std::true_type {
  using Real = T;
};

template <typename T>
T Conj(T v) {
  if constexpr (IsComplex<T>::value) {
    return std::conj(v);
  } else {
    return v;
  }
}

// `lit`'s elements in the compute type C (E: the literal's C++ type).
template <typename C, typename E>
std::vector<C> Read(const Literal& lit) {
  absl::Span<const E> in = lit.data<E>();
  std::vector<C> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if constexpr (IsComplex<C>::value) {
      out[i] = in[i];
    } else {
      out[i] = static_cast<C>(in[i]);
    }
  }
  return out;
}

template <typename C, typename E>
void Write(const std::vector<C>& values, Literal& lit) {
  absl::Span<E> out = lit.data<E>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<E>(values[i]);
}

// The compute type C and the literal's C++ type E of an element type.
template <typename C, typename E>
struct Types {
  using Compute = C;
  using Element = E;
};

// Runs `f(Types<C, E>{})` for the element type.
template <typename F>
absl::Status ForLinalgType(const HloInstruction& instruction, PrimitiveType type, F&& f) {
  switch (type) {
    case F16: f(Types<float, half>{}); return absl::OkStatus();
    case BF16: f(Types<float, bfloat16>{}); return absl::OkStatus();
    case F32: f(Types<float, float>{}); return absl::OkStatus();
    case F64: f(Types<double, double>{}); return absl::OkStatus();
    case C64: f(Types<complex64, complex64>{}); return absl::OkStatus();
    case C128: f(Types<complex128, complex128>{}); return absl::OkStatus();
    default:
      return InvalidArgument("HloEvaluator: %s: unexpected element type %s", InstrLabel(instruction),
                             primitive_util::LowercaseName(type));
  }
}

// Solves one system in place: `x` holds b ([m, n] for left_side, [n, m]
// otherwise) and receives x; `a` is [m, m].
template <typename C>
void SolveOne(const C* a, C* x, int64_t m, int64_t n, const TriangularSolveOptions& options) {
  const bool transposed = options.transpose_a() != TriangularSolveOptions::NO_TRANSPOSE;
  const bool adjoint = options.transpose_a() == TriangularSolveOptions::ADJOINT;
  // op(a)[i][k]; called only for entries in op(a)'s triangle, which maps
  // onto the chosen triangle of a.
  auto t = [&](int64_t i, int64_t k) -> C {
    if (!transposed) return a[i * m + k];
    return adjoint ? Conj(a[k * m + i]) : a[k * m + i];
  };
  auto diagonal = [&](int64_t i) -> C { return options.unit_diagonal() ? C(1) : t(i, i); };
  // op(a) is lower triangular when exactly one of lower and transposed holds.
  const bool t_lower = options.lower() != transposed;
  if (options.left_side()) {
    // op(a) x = b, column by column: forward (lower) or back substitution.
    for (int64_t col = 0; col < n; ++col) {
      for (int64_t step = 0; step < m; ++step) {
        if (StopRequested()) return;  // the evaluation fails; the rest is never read
        const int64_t i = t_lower ? step : m - 1 - step;
        C sum = x[i * n + col];
        if (t_lower) {
          for (int64_t k = 0; k < i; ++k) sum -= t(i, k) * x[k * n + col];
        } else {
          for (int64_t k = i + 1; k < m; ++k) sum -= t(i, k) * x[k * n + col];
        }
        x[i * n + col] = sum / diagonal(i);
      }
    }
  } else {
    // x op(a) = b, row by row: sum_k x[k] op(a)[k][j] = b[j]; a lower op(a)
    // has k >= j, so j runs backwards.
    for (int64_t row = 0; row < n; ++row) {
      C* xr = x + row * m;
      for (int64_t step = 0; step < m; ++step) {
        if (StopRequested()) return;  // the evaluation fails; the rest is never read
        const int64_t j = t_lower ? m - 1 - step : step;
        C sum = xr[j];
        if (t_lower) {
          for (int64_t k = j + 1; k < m; ++k) sum -= xr[k] * t(k, j);
        } else {
          for (int64_t k = 0; k < j; ++k) sum -= xr[k] * t(k, j);
        }
        xr[j] = sum / diagonal(j);
      }
    }
  }
}

// Factors one [n, n] matrix: `a` in, `l` out (zeroed by the caller).
template <typename C>
void CholeskyOne(const C* a, C* l, int64_t n, bool lower) {
  using R = typename IsComplex<C>::Real;
  // The lower triangle of a (lower) or of a^T (upper): element (i, j), i >= j.
  auto in = [&](int64_t i, int64_t j) -> C { return lower ? a[i * n + j] : a[j * n + i]; };
  auto out = [&](int64_t i, int64_t j) -> C& { return lower ? l[i * n + j] : l[j * n + i]; };
  bool failed = false;
  for (int64_t j = 0; j < n; ++j) {
    R pivot = std::real(in(j, j));
    for (int64_t k = 0; k < j; ++k) pivot -= std::norm(out(j, k));
    const R root = std::sqrt(pivot);
    failed |= std::isnan(root);
    out(j, j) = C(root);
    for (int64_t i = j + 1; i < n; ++i) {
      if (StopRequested()) return;  // the evaluation fails; the rest is never read
      C sum = in(i, j);
      for (int64_t k = 0; k < j; ++k) sum -= out(i, k) * Conj(out(j, k));
      out(i, j) = sum / C(root);
    }
  }
  if (failed) {
    for (int64_t i = 0; i < n * n; ++i) l[i] = C(std::numeric_limits<R>::quiet_NaN());
  }
}

int64_t BatchCount(const Shape& shape) {
  int64_t count = 1;
  for (int64_t d = 0; d + 2 < shape.rank(); ++d) count *= shape.dimensions(d);
  return count;
}

}  // namespace

absl::StatusOr<Literal> EvaluateTriangularSolve(const HloInstruction& instruction, const Literal& a,
                                                const Literal& b) {
  RETURN_IF_ERROR(ExpectArray(instruction, a.shape(), "a"));
  RETURN_IF_ERROR(ExpectArray(instruction, b.shape(), "b"));
  const TriangularSolveOptions& options = instruction.attributes().triangular_solve_options();
  ASSIGN_OR_RETURN(Shape expected, ShapeInference::InferTriangularSolveShape(a.shape(), b.shape(), options));
  if (!expected.Compatible(instruction.shape())) {
    return InvalidArgument("HloEvaluator: %s: the solve gives %s, but the instruction's shape is %s",
                           InstrLabel(instruction), expected.ToString(), instruction.shape().ToString());
  }
  Literal result(RowMajorShape(instruction.shape()));
  if (result.element_count() == 0) return result;
  const int64_t rank = b.shape().rank();
  const int64_t m = a.shape().dimensions(rank - 1);
  const int64_t n = options.left_side() ? b.shape().dimensions(rank - 1) : b.shape().dimensions(rank - 2);
  const int64_t batch = BatchCount(b.shape());
  RETURN_IF_ERROR(ForLinalgType(instruction, b.element_type(), [&](auto types) {
    using C = typename decltype(types)::Compute;
    using E = typename decltype(types)::Element;
    const std::vector<C> av = Read<C, E>(a);
    std::vector<C> x = Read<C, E>(b);
    for (int64_t i = 0; i < batch; ++i) SolveOne(av.data() + i * m * m, x.data() + i * m * n, m, n, options);
    Write<C, E>(x, result);
  }));
  return result;
}

absl::StatusOr<Literal> EvaluateCholesky(const HloInstruction& instruction, const Literal& a) {
  RETURN_IF_ERROR(ExpectArray(instruction, a.shape(), "a"));
  ASSIGN_OR_RETURN(Shape expected, ShapeInference::InferCholeskyShape(a.shape()));
  if (!expected.Compatible(instruction.shape())) {
    return InvalidArgument("HloEvaluator: %s: the factor of %s is %s, but the instruction's shape is %s",
                           InstrLabel(instruction), a.shape().ToString(), expected.ToString(),
                           instruction.shape().ToString());
  }
  Literal result(RowMajorShape(instruction.shape()));
  if (result.element_count() == 0) return result;
  const int64_t n = a.shape().dimensions(a.shape().rank() - 1);
  const int64_t batch = BatchCount(a.shape());
  const bool lower = instruction.attributes().cholesky_options().lower();
  RETURN_IF_ERROR(ForLinalgType(instruction, a.element_type(), [&](auto types) {
    using C = typename decltype(types)::Compute;
    using E = typename decltype(types)::Element;
    const std::vector<C> av = Read<C, E>(a);
    std::vector<C> l(av.size(), C(0));
    for (int64_t i = 0; i < batch; ++i) CholeskyOne(av.data() + i * n * n, l.data() + i * n * n, n, lower);
    Write<C, E>(l, result);
  }));
  return result;
}

}  // namespace evaluator_internal
}  // namespace xla
