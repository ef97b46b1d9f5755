// The chlo decompositions, imported and run on the evaluator, against
// reference values (the C library's, or tabulated ones) at the points where
// their formulations switch branches.
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/stablehlo/importer.h"

namespace xla {
namespace stablehlo {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// chlo.`op` on `xs` as a tensor of element type `type` (f16, bf16, f32,
// f64), results widened to double.
std::vector<double> RunUnary(const std::string& op, const std::string& type, const std::vector<double>& xs) {
  std::vector<std::string> items;
  for (double x : xs) items.push_back(absl::StrFormat("%.17g", x));
  const std::string tensor = absl::StrCat("tensor<", xs.size(), "x", type, ">");
  const std::string text = absl::StrCat("func.func @main() -> ", tensor, " {\n  %x = stablehlo.constant dense<[",
                                        absl::StrJoin(items, ", "), "]> : ", tensor, "\n  %y = chlo.", op, " %x : ",
                                        tensor, " -> ", tensor, "\n  return %y : ", tensor, "\n}\n");
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(text, "chlo.mlir");
  EXPECT_TRUE(chunks.ok()) << chunks.status();
  if (!chunks.ok()) return {};
  HloEvaluator evaluator;
  absl::StatusOr<Literal> result = evaluator.Evaluate(*(*chunks)[0].entries[0].module, {});
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  std::vector<Literal> outputs = std::move(*result).DecomposeTuple();
  absl::StatusOr<Literal> wide = outputs[0].Convert(F64);
  EXPECT_TRUE(wide.ok()) << wide.status();
  if (!wide.ok()) return {};
  auto data = wide->data<double>();
  return std::vector<double>(data.begin(), data.end());
}

// Relative error of `got` against `want`, infinities and NaN matched exactly.
void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double rel, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << "[" << i << "] = " << got[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << "[" << i << "]";
    } else {
      EXPECT_LE(std::abs(got[i] - want[i]), rel * std::abs(want[i]))
          << what << "[" << i << "] = " << absl::StrFormat("%.17g", got[i]) << ", want "
          << absl::StrFormat("%.17g", want[i]);
    }
  }
}

// erf_inv is ill-conditioned near +-1 (erf is flat there), so its results
// are checked by their residual: erfc(r) against 1 - |x| (exact in the
// argument's type) for |x| >= 1/2, erf(r) against x below.
void ExpectErfInvResidual(const std::vector<double>& xs, const std::string& type, double rel) {
  std::vector<double> rs = RunUnary("erf_inv", type, xs);
  ASSERT_EQ(rs.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = std::abs(xs[i]), r = std::abs(rs[i]);
    const double got = x >= 0.5 ? std::erfc(r) : std::erf(r);
    const double want = x >= 0.5 ? 1 - x : x;
    EXPECT_LE(std::abs(got - want), rel * want) << type << " erf_inv(" << absl::StrFormat("%.17g", xs[i])
                                                << ") = " << absl::StrFormat("%.17g", rs[i]);
  }
}

// chlo.`op` on complex<`part`> values (part f32 or f64), widened to c128.
std::vector<std::complex<double>> RunComplexUnary(const std::string& op, const std::string& part,
                                                  const std::vector<std::complex<double>>& zs) {
  std::vector<std::string> items;
  for (std::complex<double> z : zs) items.push_back(absl::StrFormat("(%.17g, %.17g)", z.real(), z.imag()));
  const std::string tensor = absl::StrCat("tensor<", zs.size(), "xcomplex<", part, ">>");
  const std::string text = absl::StrCat("func.func @main() -> ", tensor, " {\n  %x = stablehlo.constant dense<[",
                                        absl::StrJoin(items, ", "), "]> : ", tensor, "\n  %y = chlo.", op, " %x : ",
                                        tensor, " -> ", tensor, "\n  return %y : ", tensor, "\n}\n");
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(text, "chlo.mlir");
  EXPECT_TRUE(chunks.ok()) << chunks.status();
  if (!chunks.ok()) return {};
  HloEvaluator evaluator;
  absl::StatusOr<Literal> result = evaluator.Evaluate(*(*chunks)[0].entries[0].module, {});
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  std::vector<Literal> outputs = std::move(*result).DecomposeTuple();
  absl::StatusOr<Literal> wide = outputs[0].Convert(C128);
  EXPECT_TRUE(wide.ok()) << wide.status();
  if (!wide.ok()) return {};
  auto data = wide->data<complex128>();
  return std::vector<std::complex<double>>(data.begin(), data.end());
}

TEST(ChloDecompositionTest, ErfInvInvertsErfOnEveryRange) {
  // Both sides of Giles' w = 5 (f32) and w = 6.25, 16 (f64) switches, w =
  // -log(1 - x^2) up to ~30: x = erf(t) for t from tiny to 5.5, rounded to
  // the argument's type.
  const std::vector<double> ts = {1e-30, 1e-8, 0.1, -0.5, 1.0, -1.5, 2.0, 2.5, 3.0, -3.5, 4.0, 5.0, 5.5};
  std::vector<double> f64_xs, f32_xs;
  for (double t : ts) f64_xs.push_back(std::erf(t));
  for (size_t i = 0; i < 10; ++i) f32_xs.push_back(static_cast<float>(f64_xs[i]));
  ExpectErfInvResidual(f64_xs, "f64", 1e-13);
  ExpectErfInvResidual(f32_xs, "f32", 2e-5);
  ExpectNear(RunUnary("erf_inv", "f64", {0.5}), {0.47693627620446987}, 1e-15, "erf_inv f64");
  ExpectNear(RunUnary("erf_inv", "f64", {1, -1, 1.5, -2}), {kInf, -kInf, NAN, NAN}, 0, "erf_inv edges");
  ExpectNear(RunUnary("erf_inv", "f32", {1, -1, 1.5}), {kInf, -kInf, NAN}, 0, "erf_inv f32 edges");
  ExpectNear(RunUnary("erf_inv", "bf16", {0.5, -0.25}), {0.47693627620446987, -0.22531205501217808}, 8e-3,
             "erf_inv bf16");
}

TEST(ChloDecompositionTest, ErfcAgreesWithTheCLibraryIncludingItsTails) {
  // |x| < 1 (1 - erf), [1, 2) and >= 2 (f32), [1, 8) and >= 8 (f64),
  // negative x (2 - erfc(-x)).
  const std::vector<double> xs = {0, 1e-10, 0.5, -0.9, 1.0, 1.5, -1.5, 2.5, 5, 7.9, 9, 20, 26, -6};
  std::vector<double> want;
  for (double x : xs) want.push_back(std::erfc(x));
  ExpectNear(RunUnary("erfc", "f64", xs), want, 1e-13, "erfc f64");
  // f32: erfc(9) = 4e-37 is already subnormal-adjacent, so stop at 9.
  std::vector<double> f32_xs(xs.begin(), xs.begin() + 11);
  std::vector<double> f32_want(want.begin(), want.begin() + 11);
  ExpectNear(RunUnary("erfc", "f32", f32_xs), f32_want, 2e-6, "erfc f32");
  ExpectNear(RunUnary("erfc", "f32", {12, 30}), {0, 0}, 0, "erfc f32 underflow");
  // Like XLA, 0 once exp(-x^2) leaves the normal range (erfc(27) = 5e-319).
  ExpectNear(RunUnary("erfc", "f64", {27, 30}), {0, 0}, 0, "erfc f64 underflow");
  ExpectNear(RunUnary("erfc", "f16", {0.5, 2}), {std::erfc(0.5), std::erfc(2.0)}, 1e-3, "erfc f16");
}

TEST(ChloDecompositionTest, BesselI1eAgreesWithTheStandardLibrary) {
  // Both expansions (|x| <= 8 and above), odd symmetry, and large |x|
  // where exp(-|x|) I1(x) ~ 1/sqrt(2 pi |x|).
  const std::vector<double> xs = {1e-3, 0.5, 1, -2.5, 7.9, 8, 8.1, -20, 100, 700};
  std::vector<double> want;
  for (double x : xs) want.push_back(std::copysign(std::cyl_bessel_i(1.0, std::abs(x)), x) * std::exp(-std::abs(x)));
  ExpectNear(RunUnary("bessel_i1e", "f64", xs), want, 1e-14, "bessel_i1e f64");
  ExpectNear(RunUnary("bessel_i1e", "f32", xs), want, 3e-6, "bessel_i1e f32");
  ExpectNear(RunUnary("bessel_i1e", "f64", {0}), {0}, 0, "bessel_i1e f64 zero");
  ExpectNear(RunUnary("bessel_i1e", "f16", {-1, 10}), {want[2] * -1, std::cyl_bessel_i(1.0, 10.0) * std::exp(-10.0)},
             1e-3, "bessel_i1e f16");
}

TEST(ChloDecompositionTest, RealAcosIsAccurateNearPlusMinusOne) {
  const std::vector<double> xs = {-1, -0.9999999, -0.5, 0, 1e-8, 0.5, 0.9999999, 1, 1.5};
  std::vector<double> want;
  for (double x : xs) want.push_back(std::acos(x));
  ExpectNear(RunUnary("acos", "f64", xs), want, 4e-16, "acos f64");
}

// Each part within `rel` of the C library's (glibc's casin, ...) part,
// relative to the part itself: the formulations keep both parts accurate,
// not just the larger one.
void ExpectComplexNear(const std::string& op, const std::string& part, const std::vector<std::complex<double>>& zs,
                       std::complex<double> (*reference)(const std::complex<double>&), double rel) {
  std::vector<std::complex<double>> got = RunComplexUnary(op, part, zs);
  ASSERT_EQ(got.size(), zs.size());
  for (size_t i = 0; i < zs.size(); ++i) {
    // The argument as the evaluator sees it.
    std::complex<double> z = zs[i];
    if (part == "f32") z = {static_cast<float>(z.real()), static_cast<float>(z.imag())};
    std::complex<double> want = reference(z);
    // Rounded to the part type (parts like 1e-50 are 0 in f32).
    if (part == "f32") want = {static_cast<float>(want.real()), static_cast<float>(want.imag())};
    const std::string what = absl::StrFormat("%s<%s>(%.17g, %.17g) = (%.17g, %.17g), want (%.17g, %.17g)", op, part,
                                             z.real(), z.imag(), got[i].real(), got[i].imag(), want.real(),
                                             want.imag());
    EXPECT_LE(std::abs(got[i].real() - want.real()), rel * std::abs(want.real())) << what;
    EXPECT_LE(std::abs(got[i].imag() - want.imag()), rel * std::abs(want.imag())) << what;
  }
}

// Points in every region of the formulations, in all four quadrants:
// near 0, near +-1 (tiny imaginary part, inside and outside [-1, 1]), on
// both sides of a = 1.5, and parts beyond sqrt(max)/8 or beyond eps times
// the other.
std::vector<std::complex<double>> InverseTrigPoints(bool f64) {
  const double big = f64 ? 1e200 : 1e25, tiny = f64 ? 1e-200 : 1e-30;
  return {{1e-3, 2e-3},   {0.5, 0.5},   {-0.5, 0.25}, {0.9, -1e-3}, {1.5, 2},      {-2, -3},    {0.3, tiny},
          {-3, tiny},     {1, 1e-6},    {0.99, 0.2},  {1.2, 0.4},   {-7, 30},      {big, 1},    {1, -big},
          {big, big / 3}, {-1e-3, big}, {tiny, 0.7},  {20, -1e-4},  {-0.25, -0.9}, {1e-3, -15}};
}

TEST(ChloDecompositionTest, ComplexInverseTrigAgreesWithTheCLibrary) {
  using C = std::complex<double>;
  struct Fn {
    const char* op;
    C (*reference)(const C&);
  };
  const Fn fns[] = {{"asin", std::asin}, {"acos", std::acos},   {"asinh", std::asinh},
                    {"acosh", std::acosh}, {"atanh", std::atanh}, {"atan", std::atan}};
  for (const Fn& fn : fns) {
    ExpectComplexNear(fn.op, "f64", InverseTrigPoints(true), fn.reference, 1e-14);
    ExpectComplexNear(fn.op, "f32", InverseTrigPoints(false), fn.reference, 4e-6);
  }
}

}  // namespace
}  // namespace stablehlo
}  // namespace xla
