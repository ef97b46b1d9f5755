// triangular-solve and cholesky on the CPU backend (Eigen in the runtime)
// against the reference evaluator on random inputs: every combination of
// left_side/lower/transpose_a/unit_diagonal, f32/f64/c64/c128 and f16/bf16
// (computed in f32), batches, other layouts, the batch over threads. The
// entries the op must not read (the other triangle, and the diagonal with
// unit_diagonal) are NaN, so reading one shows. Cholesky inputs are
// Hermitian positive definite (m m^H + n I) with NaN in the other triangle,
// plus matrices that are not positive definite (NaN-filled per matrix).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Sets element `i` of `lit` (any float or complex type) to `v`.
void SetValue(Literal& lit, int64_t i, std::complex<double> v) {
  switch (lit.element_type()) {
    case F16: lit.data<half>()[i] = static_cast<half>(static_cast<float>(v.real())); break;
    case BF16: lit.data<bfloat16>()[i] = static_cast<bfloat16>(static_cast<float>(v.real())); break;
    case F32: lit.data<float>()[i] = static_cast<float>(v.real()); break;
    case F64: lit.data<double>()[i] = v.real(); break;
    case C64: lit.data<complex64>()[i] = complex64(v); break;
    case C128: lit.data<complex128>()[i] = v; break;
    default: ADD_FAILURE() << "type"; break;
  }
}

bool IsComplexType(PrimitiveType t) { return t == C64 || t == C128; }

// Batches of [m, m] matrices `a` for a triangular solve: random entries in
// [-1, 1] in the read triangle, a diagonal of magnitude about m (well
// conditioned), NaN where the op may not read.
Literal SolveMatrix(const Shape& shape, bool lower, bool unit_diagonal, std::mt19937_64& rng) {
  Literal lit(shape);
  std::uniform_real_distribution<double> u(-1, 1);
  const int64_t m = shape.dimensions(shape.rank() - 1);
  const bool complex = IsComplexType(shape.element_type());
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    const int64_t row = (i / m) % m, col = i % m;
    std::complex<double> v(u(rng), complex ? u(rng) : 0);
    if (row == col) v = unit_diagonal ? kNaN : v + (u(rng) < 0 ? -1.0 : 1.0) * (m + 1.0);
    if (lower ? col > row : col < row) v = kNaN;
    SetValue(lit, i, v);
  }
  return lit;
}

Literal RandomValues(const Shape& shape, std::mt19937_64& rng) {
  Literal lit(shape);
  std::uniform_real_distribution<double> u(-2, 2);
  const bool complex = IsComplexType(shape.element_type());
  for (int64_t i = 0; i < lit.element_count(); ++i) SetValue(lit, i, {u(rng), complex ? u(rng) : 0});
  return lit;
}

// The CPU result of `text` has only finite values (the comparison with the
// evaluator takes NaN as equal to NaN: this shows neither read a NaN entry
// it must not read). Matrices listed in `nan_matrices` (of `matrix`
// elements each) must be all NaN instead.
void ExpectFinite(const std::string& text, const std::vector<Literal>& args, int64_t matrix = 1,
                  std::vector<int64_t> nan_matrices = {}) {
  auto r = cpu_test::RunOnCpu(text, args);
  ASSERT_TRUE(r.ok()) << r.status();
  for (int64_t i = 0; i < r->element_count(); ++i) {
    double v = 0;
    switch (r->element_type()) {
      case C64: v = std::abs(r->data<complex64>()[i]); break;
      case C128: v = std::abs(r->data<complex128>()[i]); break;
      default: v = r->GetAsDouble(i); break;
    }
    const bool want_nan = std::find(nan_matrices.begin(), nan_matrices.end(), i / matrix) != nan_matrices.end();
    if (want_nan) {
      ASSERT_TRUE(std::isnan(v)) << "element " << i << " " << r->ToString();
    } else {
      ASSERT_TRUE(std::isfinite(v)) << "element " << i << " " << r->ToString();
    }
  }
}

std::string SolveModule(const std::string& type, const std::string& a_dims, const std::string& b_dims,
                        const std::string& attrs) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, a_dims, " parameter(0)\n  b = ", type, b_dims,
                      " parameter(1)\n  ROOT r = ", type, b_dims, " triangular-solve(a, b), ", attrs, "\n}\n");
}

ErrorSpec Tolerance(PrimitiveType t) {
  switch (t) {
    case F64: case C128: return {1e-12, 1e-12};
    case F32: case C64: return {1e-5, 1e-5};
    default: return {1e-2, 1e-2};  // f16/bf16: one rounding of an f32 value apart at most
  }
}

TEST(CpuTriangularSolveTest, EveryOptionAndType) {
  std::mt19937_64 rng(1);
  for (PrimitiveType type : {F32, F64, C64, C128}) {
    const std::string name(primitive_util::LowercaseName(type));
    for (bool left_side : {true, false}) {
      for (bool lower : {true, false}) {
        for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
          for (bool unit : {false, true}) {
            const std::string attrs = absl::StrCat("left_side=", left_side ? "true" : "false", ", lower=",
                                                   lower ? "true" : "false", ", unit_diagonal=",
                                                   unit ? "true" : "false", ", transpose_a=", transpose);
            // A batch of 2x3 systems with m = 5 and 4 right-hand sides.
            const std::string b_dims = left_side ? "[2,3,5,4]" : "[2,3,4,5]";
            const std::string text = SolveModule(name, "[2,3,5,5]", b_dims, attrs);
            SCOPED_TRACE(text);
            std::vector<Literal> args;
            args.push_back(SolveMatrix(ShapeUtil::MakeShape(type, {2, 3, 5, 5}), lower, unit, rng));
            args.push_back(RandomValues(*ShapeUtil::ParseShape(name + b_dims), rng));
            CompareWithEvaluator(text, args, Tolerance(type));
            ExpectFinite(text, args);
          }
        }
      }
    }
  }
}

TEST(CpuTriangularSolveTest, HalfTypesLargerSystemsAndThreads) {
  std::mt19937_64 rng(2);
  struct Case {
    PrimitiveType type;
    std::string a, b, attrs;
    int threads;
  };
  const std::vector<Case> cases = {
      {F16, "[4,4]", "[4,1]", "left_side=true, lower=false, unit_diagonal=true, transpose_a=NO_TRANSPOSE", 0},
      {BF16, "[4,4]", "[4,1]", "left_side=true, lower=false, unit_diagonal=true, transpose_a=NO_TRANSPOSE", 0},
      {F16, "[3,6,6]", "[3,2,6]", "lower=true, transpose_a=TRANSPOSE", 0},
      {BF16, "[6,6]", "[6,3]", "left_side=true, lower=true, transpose_a=ADJOINT", 0},
      {F32, "[40,40]", "[40,33]", "left_side=true, lower=true, transpose_a=NO_TRANSPOSE", 0},
      {F64, "[37,37]", "[5,37]", "lower=false, transpose_a=ADJOINT", 0},
      {C64, "[64,8,8]", "[64,8,3]", "left_side=true, lower=false, transpose_a=ADJOINT", 4},
      {F32, "[1,1]", "[1,7]", "left_side=true, lower=true, transpose_a=NO_TRANSPOSE", 0},
  };
  for (const Case& c : cases) {
    const std::string name(primitive_util::LowercaseName(c.type));
    const std::string text = SolveModule(name, c.a, c.b, c.attrs);
    SCOPED_TRACE(text);
    const Shape a = *ShapeUtil::ParseShape(name + c.a);
    std::vector<Literal> args;
    args.push_back(SolveMatrix(a, c.attrs.find("lower=true") != std::string::npos,
                               c.attrs.find("unit_diagonal=true") != std::string::npos, rng));
    args.push_back(RandomValues(*ShapeUtil::ParseShape(name + c.b), rng));
    CompareWithEvaluator(text, args, Tolerance(c.type), cpu_test::WithThreads(c.threads));
    ExpectFinite(text, args);
  }
}

TEST(CpuTriangularSolveTest, LayoutsAndFusedNeighbours) {
  // a read through a column-major copy, b from a fused elementwise
  // producer, the result into a column-major buffer feeding a consumer.
  const std::string text =
      "HloModule m\nENTRY e {\n  a = f32[5,5] parameter(0)\n  b = f32[5,3] parameter(1)\n"
      "  at = f32[5,5]{0,1} copy(a)\n  nb = f32[5,3] negate(b)\n"
      "  x = f32[5,3]{0,1} triangular-solve(at, nb), left_side=true, lower=true, transpose_a=TRANSPOSE\n"
      "  ROOT r = f32[5,3] add(x, nb)\n}\n";
  std::mt19937_64 rng(3);
  std::vector<Literal> args;
  args.push_back(SolveMatrix(ShapeUtil::MakeShape(F32, {5, 5}), true, false, rng));
  args.push_back(RandomValues(ShapeUtil::MakeShape(F32, {5, 3}), rng));
  CompareWithEvaluator(text, args, Tolerance(F32));
  ExpectFinite(text, args);
}

// Hermitian positive definite [n, n] matrices (m m^H + n I, m in [-1, 1]),
// NaN in the triangle not read; matrix `not_pd` of the batch (if >= 0) is
// made indefinite (its first diagonal entry negative).
Literal SpdMatrices(const Shape& shape, bool lower, int64_t not_pd, std::mt19937_64& rng) {
  Literal lit(shape);
  std::uniform_real_distribution<double> u(-1, 1);
  const int64_t n = shape.dimensions(shape.rank() - 1);
  const bool complex = IsComplexType(shape.element_type());
  const int64_t batch = n == 0 ? 0 : lit.element_count() / (n * n);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<std::complex<double>> m(n * n);
    for (auto& v : m) v = {u(rng), complex ? u(rng) : 0};
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        std::complex<double> s = i == j ? static_cast<double>(n) : 0.0;
        for (int64_t k = 0; k < n; ++k) s += m[i * n + k] * std::conj(m[j * n + k]);
        if (b == not_pd && i == 0 && j == 0) s = -1;
        if (lower ? j > i : j < i) s = kNaN;
        SetValue(lit, b * n * n + i * n + j, s);
      }
    }
  }
  return lit;
}

TEST(CpuCholeskyTest, MatchesEvaluator) {
  std::mt19937_64 rng(4);
  struct Case {
    PrimitiveType type;
    std::vector<int64_t> dims;
    int64_t not_pd;
    int threads;
  };
  const std::vector<Case> cases = {
      {F32, {1, 1}, -1, 0},       {F32, {6, 6}, -1, 0},       {F64, {3, 9, 9}, 1, 0},
      {C64, {2, 7, 7}, -1, 0},    {C128, {2, 2, 5, 5}, 2, 0}, {F16, {4, 4}, -1, 0},
      {BF16, {2, 3, 3}, -1, 0},   {F32, {48, 6, 6}, 7, 4},    {F64, {40, 40}, -1, 0},
      {F32, {0, 3, 3}, -1, 0},
  };
  for (const Case& c : cases) {
    for (bool lower : {true, false}) {
      const Shape shape = ShapeUtil::MakeShape(c.type, c.dims);
      const std::string text = absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape.ToString(),
                                            " parameter(0)\n  ROOT r = ", shape.ToString(),
                                            " cholesky(a), lower=", lower ? "true" : "false", "\n}\n");
      SCOPED_TRACE(text);
      std::vector<Literal> args;
      args.push_back(SpdMatrices(shape, lower, c.not_pd, rng));
      ErrorSpec tolerance = Tolerance(c.type);
      if (c.type == F32 || c.type == C64) tolerance = {1e-4, 1e-4};
      CompareWithEvaluator(text, args, tolerance, cpu_test::WithThreads(c.threads));
      const int64_t n = c.dims.back();
      std::vector<int64_t> nan_matrices;
      if (c.not_pd >= 0) nan_matrices.push_back(c.not_pd);
      ExpectFinite(text, args, n * n, nan_matrices);
    }
  }
}

TEST(CpuCholeskyTest, KnownFactorAndLayout) {
  // The StableHLO spec's example read from a column-major copy (so the
  // pipeline copies it back), with 99 in the triangle not read.
  const std::string text = "HloModule m\nENTRY e {\n  a = f32[3,3] parameter(0)\n  c = f32[3,3]{0,1} copy(a)\n"
                           "  ROOT r = f32[3,3] cholesky(c), lower=true\n}\n";
  Literal a = Literal::CreateR2<float>({{1, 99, 99}, {2, 20, 99}, {3, 26, 70}});
  auto r = cpu_test::RunOnCpu(text, {a});
  ASSERT_TRUE(r.ok()) << r.status();
  absl::Status near =
      literal_comparison::Near(Literal::CreateR2<float>({{1, 0, 0}, {2, 4, 0}, {3, 5, 6}}), *r, ErrorSpec{1e-6, 1e-6});
  EXPECT_TRUE(near.ok()) << near << r->ToString();
}

}  // namespace
}  // namespace cpu
}  // namespace xla
