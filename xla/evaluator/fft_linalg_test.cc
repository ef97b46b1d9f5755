// Fft, TriangularSolve and Cholesky in the reference evaluator, on values
// worked out by hand (and the StableHLO spec's and interpreter tests'
// examples): small DFTs, RFFT/IRFFT round trips, every combination of
// left_side/lower/transpose_a/unit_diagonal on a 2x2 system whose unread
// entries are NaN, and Cholesky factors of known matrices.
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"

namespace xla {
namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

absl::StatusOr<Literal> EvalText(const std::string& text, std::vector<const Literal*> args) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return HloEvaluator().Evaluate(**module, args);
}

// `ROOT r = <result> <op>(p0[, p1]), <attrs>`.
std::string Module(const std::vector<std::string>& params, const std::string& result, const std::string& op,
                   const std::string& attrs) {
  std::string text = "HloModule m\nENTRY e {\n";
  std::string args;
  for (size_t i = 0; i < params.size(); ++i) {
    absl::StrAppend(&text, "  p", i, " = ", params[i], " parameter(", i, ")\n");
    absl::StrAppend(&args, i ? ", " : "", "p", i);
  }
  absl::StrAppend(&text, "  ROOT r = ", result, " ", op, "(", args, "), ", attrs, "\n}\n");
  return text;
}

// Every element of `actual` (any float or complex type) within `tol` of
// `expected` (absolute), NaN matching NaN.
void ExpectNear(const absl::StatusOr<Literal>& actual, const std::vector<c128>& expected, double tol) {
  ASSERT_TRUE(actual.ok()) << actual.status();
  ASSERT_EQ(actual->element_count(), static_cast<int64_t>(expected.size())) << actual->ToString();
  for (size_t i = 0; i < expected.size(); ++i) {
    c128 v;
    switch (actual->element_type()) {
      case C64: v = c128(actual->data<c64>()[i]); break;
      case C128: v = actual->data<c128>()[i]; break;
      default: v = c128(actual->GetAsDouble(static_cast<int64_t>(i)), 0); break;
    }
    for (int part = 0; part < 2; ++part) {
      const double a = part ? v.imag() : v.real(), e = part ? expected[i].imag() : expected[i].real();
      if (std::isnan(e)) {
        EXPECT_TRUE(std::isnan(a)) << "element " << i << ": " << actual->ToString();
      } else {
        EXPECT_NEAR(a, e, tol) << "element " << i << (part ? " (imag)" : " (real)") << ": " << actual->ToString();
      }
    }
  }
}

// --- Fft ------------------------------------------------------------------------

TEST(FftTest, ImpulseAndConstant) {
  Literal impulse = Literal::CreateR1<c64>({1, 0, 0, 0});
  Literal constant = Literal::CreateR1<c64>({1, 1, 1, 1});
  Literal shifted = Literal::CreateR1<c64>({0, 1, 0, 0});
  const std::string fft = Module({"c64[4]"}, "c64[4]", "fft", "fft_type=FFT, fft_length={4}");
  const std::string ifft = Module({"c64[4]"}, "c64[4]", "fft", "fft_type=IFFT, fft_length={4}");
  ExpectNear(EvalText(fft, {&impulse}), {1, 1, 1, 1}, 1e-6);
  ExpectNear(EvalText(fft, {&constant}), {4, 0, 0, 0}, 1e-6);
  // exp(-2 pi i k / 4) for k = 0..3.
  ExpectNear(EvalText(fft, {&shifted}), {1, c128(0, -1), -1, c128(0, 1)}, 1e-6);
  // IFFT scales by 1/N.
  ExpectNear(EvalText(ifft, {&impulse}), {0.25, 0.25, 0.25, 0.25}, 1e-7);
  Literal four = Literal::CreateR1<c64>({4, 0, 0, 0});
  ExpectNear(EvalText(ifft, {&four}), {1, 1, 1, 1}, 1e-6);
}

TEST(FftTest, SpecExamples) {
  // From the StableHLO interpreter's fft tests (c128).
  Literal x = Literal::CreateR1<c128>({c128(1, 2), c128(3, -4)});
  ExpectNear(EvalText(Module({"c128[2]"}, "c128[2]", "fft", "fft_type=FFT, fft_length={2}"), {&x}),
             {c128(4, -2), c128(-2, 6)}, 1e-12);
  Literal x2 = Literal::CreateR2<c128>({{c128(1, 2), c128(3, -4)}, {c128(-5, 6), c128(-7, -8)}});
  const std::string fft2 = Module({"c128[2,2]"}, "c128[2,2]", "fft", "fft_type=FFT, fft_length={2,2}");
  ExpectNear(EvalText(fft2, {&x2}), {c128(-8, -4), c128(0, 20), c128(16, 0), c128(-4, -8)}, 1e-12);
  Literal y2 = Literal::CreateR2<c128>({{c128(-8, -4), c128(0, 20)}, {c128(16, 0), c128(-4, -8)}});
  ExpectNear(EvalText(Module({"c128[2,2]"}, "c128[2,2]", "fft", "fft_type=IFFT, fft_length={2,2}"), {&y2}),
             {c128(1, 2), c128(3, -4), c128(-5, 6), c128(-7, -8)}, 1e-12);
  // A batch of two 1-D transforms: only the innermost dimension.
  ExpectNear(EvalText(Module({"c128[2,2]"}, "c128[2,2]", "fft", "fft_type=FFT, fft_length={2}"), {&x2}),
             {c128(4, -2), c128(-2, 6), c128(-12, -2), c128(2, 14)}, 1e-12);
}

TEST(FftTest, RfftAndIrfft) {
  Literal x = Literal::CreateR1<double>({1, 2, 3, 4});
  const std::string rfft = Module({"f64[4]"}, "c128[3]", "fft", "fft_type=RFFT, fft_length={4}");
  ExpectNear(EvalText(rfft, {&x}), {10, c128(-2, 2), -2}, 1e-12);
  Literal half = Literal::CreateR1<c128>({10, c128(-2, 2), -2});
  const std::string irfft = Module({"c128[3]"}, "f64[4]", "fft", "fft_type=IRFFT, fft_length={4}");
  ExpectNear(EvalText(irfft, {&half}), {1, 2, 3, 4}, 1e-12);
  // The imaginary parts of the DC and Nyquist entries do not contribute.
  Literal noisy = Literal::CreateR1<c128>({c128(10, 5), c128(-2, 2), c128(-2, 7)});
  ExpectNear(EvalText(irfft, {&noisy}), {1, 2, 3, 4}, 1e-12);
  // Odd length: X1 = 1 + 2 w + 3 w^2 with w = exp(-2 pi i / 3).
  Literal odd = Literal::CreateR1<float>({1, 2, 3});
  auto spectrum = EvalText(Module({"f32[3]"}, "c64[2]", "fft", "fft_type=RFFT, fft_length={3}"), {&odd});
  ExpectNear(spectrum, {6, c128(-1.5, std::sqrt(3.0) / 2)}, 1e-6);
  ASSERT_TRUE(spectrum.ok());
  ExpectNear(EvalText(Module({"c64[2]"}, "f32[3]", "fft", "fft_type=IRFFT, fft_length={3}"), {&*spectrum}),
             {1, 2, 3}, 1e-6);
  // Length 1 and a zero-sized batch.
  Literal one = Literal::CreateR1<float>({7});
  ExpectNear(EvalText(Module({"f32[1]"}, "c64[1]", "fft", "fft_type=RFFT, fft_length={1}"), {&one}), {7}, 0);
  Literal empty(ShapeUtil::MakeShape(F32, {0, 4}));
  ExpectNear(EvalText(Module({"f32[0,4]"}, "c64[0,3]", "fft", "fft_type=RFFT, fft_length={4}"), {&empty}), {}, 0);
}

TEST(FftTest, TwoDimensionalRoundTrip) {
  // The interpreter tests' 4x4 RFFT and its IRFFT.
  Literal x = Literal::CreateR2<double>({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}});
  auto y = EvalText(Module({"f64[4,4]"}, "c128[4,3]", "fft", "fft_type=RFFT, fft_length={4,4}"), {&x});
  ExpectNear(y,
             {136, c128(-8, 8), -8, c128(-32, 32), 0, 0, -32, 0, 0, c128(-32, -32), 0, 0}, 1e-12);
  ASSERT_TRUE(y.ok());
  ExpectNear(EvalText(Module({"c128[4,3]"}, "f64[4,4]", "fft", "fft_type=IRFFT, fft_length={4,4}"), {&*y}),
             {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 1e-12);
}

TEST(FftTest, BadInstructionIsAnError) {
  Literal x = Literal::CreateR1<float>({1, 2, 3, 4});
  auto r = EvalText(Module({"f32[4]"}, "c64[3]", "fft", "fft_type=FFT, fft_length={4}"), {&x});
  EXPECT_FALSE(r.ok());
}

// --- TriangularSolve ------------------------------------------------------------------

struct SolveCase {
  bool left_side, lower;
  const char* transpose;
  bool unit_diagonal;
  std::vector<float> x;  // row-major [2, 2]
};

TEST(TriangularSolveTest, EveryOptionCombination) {
  // a = [[2, 9], [3, 4]] with NaN in the triangle not read (and on the
  // diagonal with unit_diagonal); b = [[1, 2], [3, 4]]. Expected values:
  // op(T)^-1 b or b op(T)^-1 in exact rational arithmetic.
  const std::vector<SolveCase> cases = {
      {true, true, "NO_TRANSPOSE", false, {0.5f, 1, 0.375f, 0.25f}},
      {true, true, "NO_TRANSPOSE", true, {1, 2, 0, -2}},
      {true, true, "TRANSPOSE", false, {-0.625f, -0.5f, 0.75f, 1}},
      {true, true, "TRANSPOSE", true, {-8, -10, 3, 4}},
      {true, false, "NO_TRANSPOSE", false, {-2.875f, -3.5f, 0.75f, 1}},
      {true, false, "NO_TRANSPOSE", true, {-26, -34, 3, 4}},
      {true, false, "TRANSPOSE", false, {0.5f, 1, -0.375f, -1.25f}},
      {true, false, "TRANSPOSE", true, {1, 2, -6, -14}},
      {false, true, "NO_TRANSPOSE", false, {-0.25f, 0.5f, 0, 1}},
      {false, true, "NO_TRANSPOSE", true, {-5, 2, -9, 4}},
      {false, true, "TRANSPOSE", false, {0.5f, 0.125f, 1.5f, -0.125f}},
      {false, true, "TRANSPOSE", true, {1, -1, 3, -5}},
      {false, false, "NO_TRANSPOSE", false, {0.5f, -0.625f, 1.5f, -2.375f}},
      {false, false, "NO_TRANSPOSE", true, {1, -7, 3, -23}},
      {false, false, "TRANSPOSE", false, {-1.75f, 0.5f, -3, 1}},
      {false, false, "TRANSPOSE", true, {-17, 2, -33, 4}},
  };
  Literal b = Literal::CreateR2<float>({{1, 2}, {3, 4}});
  for (const SolveCase& c : cases) {
    const float d0 = c.unit_diagonal ? kNaN : 2, d1 = c.unit_diagonal ? kNaN : 4;
    Literal a = c.lower ? Literal::CreateR2<float>({{d0, kNaN}, {3, d1}})
                        : Literal::CreateR2<float>({{d0, 9}, {kNaN, d1}});
    const std::string attrs =
        absl::StrCat("left_side=", c.left_side ? "true" : "false", ", lower=", c.lower ? "true" : "false",
                     ", unit_diagonal=", c.unit_diagonal ? "true" : "false", ", transpose_a=", c.transpose);
    SCOPED_TRACE(attrs);
    std::vector<c128> expected(c.x.begin(), c.x.end());
    ExpectNear(EvalText(Module({"f32[2,2]", "f32[2,2]"}, "f32[2,2]", "triangular-solve", attrs), {&a, &b}),
               expected, 1e-6);
    // ADJOINT of a real matrix is its transpose.
    if (std::string(c.transpose) == "TRANSPOSE") {
      const std::string adjoint = absl::StrCat(attrs.substr(0, attrs.rfind('=') + 1), "ADJOINT");
      ExpectNear(EvalText(Module({"f32[2,2]", "f32[2,2]"}, "f32[2,2]", "triangular-solve", adjoint), {&a, &b}),
                 expected, 1e-6);
    }
  }
}

TEST(TriangularSolveTest, SpecAndComplexExamples) {
  // The StableHLO spec's example.
  Literal a = Literal::CreateR2<float>({{1, 0, 0}, {2, 4, 0}, {3, 5, 6}});
  Literal b = Literal::CreateR2<float>({{2, 0, 0}, {4, 8, 0}, {6, 10, 12}});
  const std::string lower_left = "left_side=true, lower=true, unit_diagonal=false, transpose_a=NO_TRANSPOSE";
  ExpectNear(EvalText(Module({"f32[3,3]", "f32[3,3]"}, "f32[3,3]", "triangular-solve", lower_left), {&a, &b}),
             {2, 0, 0, 0, 2, 0, 0, 0, 2}, 1e-6);
  // The interpreter tests' complex examples, plain and ADJOINT.
  Literal ca = Literal::CreateR2<c64>({{c64(1, 1), 0, 0}, {c64(2, -2), c64(3, 4), 0}, {c64(4, -3), c64(5, 5), c64(6, -8)}});
  Literal cb = Literal::CreateR2<c64>({{c64(7, -2)}, {c64(8, 4)}, {c64(9, -5)}});
  ExpectNear(EvalText(Module({"c64[3,3]", "c64[3,1]"}, "c64[3,1]", "triangular-solve", lower_left), {&ca, &cb}),
             {c128(2.5, -4.5), c128(4.32, 0.24), c128(-0.29, -0.77)}, 1e-5);
  const std::string adjoint = "left_side=true, lower=true, transpose_a=ADJOINT";
  ExpectNear(EvalText(Module({"c64[3,3]", "c64[3,1]"}, "c64[3,1]", "triangular-solve", adjoint), {&ca, &cb}),
             {c128(7.18, 2.68), c128(-0.08, 3.16), c128(0.14, -1.02)}, 1e-5);
}

TEST(TriangularSolveTest, BatchesAndHalfTypes) {
  // Two batches of a 2x2 lower solve from the right: x [[a, 0], [c, d]] = b.
  Literal a = Literal::CreateR3<double>({{{2, 0}, {1, 4}}, {{1, 0}, {0, 0.5}}});
  Literal b = Literal::CreateR3<double>({{{6, 8}}, {{3, 1}}});
  const std::string right = "lower=true, transpose_a=NO_TRANSPOSE";
  // Batch 0: x1 = 8/4 = 2, x0 = (6 - 2*1)/2 = 2; batch 1: x1 = 2, x0 = 3.
  ExpectNear(EvalText(Module({"f64[2,2,2]", "f64[2,1,2]"}, "f64[2,1,2]", "triangular-solve", right), {&a, &b}),
             {2, 2, 3, 2}, 1e-12);
  // bf16: computed in f32, rounded once: 1/3 -> bf16(0.333984375).
  Literal ha = Literal::CreateR2<bfloat16>({{bfloat16(3.0f)}});
  Literal hb = Literal::CreateR2<bfloat16>({{bfloat16(1.0f)}});
  ExpectNear(EvalText(Module({"bf16[1,1]", "bf16[1,1]"}, "bf16[1,1]", "triangular-solve",
                             "left_side=true, lower=true, transpose_a=NO_TRANSPOSE"),
                      {&ha, &hb}),
             {static_cast<double>(static_cast<float>(bfloat16(1.0f / 3)))}, 0);
  Literal fa = Literal::CreateR2<half>({{half(1.0f), half(0.0f)}, {half(2.0f), half(1.0f)}});
  Literal fb = Literal::CreateR2<half>({{half(1.0f)}, {half(4.0f)}});
  ExpectNear(EvalText(Module({"f16[2,2]", "f16[2,1]"}, "f16[2,1]", "triangular-solve",
                             "left_side=true, lower=true, unit_diagonal=true, transpose_a=NO_TRANSPOSE"),
                      {&fa, &fb}),
             {1, 2}, 0);
}

// --- Cholesky -----------------------------------------------------------------------

TEST(CholeskyTest, SpecExampleBothTriangles) {
  // The spec's example, with 99 in the triangle that is not read.
  Literal lower_in = Literal::CreateR2<float>({{1, 99, 99}, {2, 20, 99}, {3, 26, 70}});
  ExpectNear(EvalText(Module({"f32[3,3]"}, "f32[3,3]", "cholesky", "lower=true"), {&lower_in}),
             {1, 0, 0, 2, 4, 0, 3, 5, 6}, 1e-6);
  Literal upper_in = Literal::CreateR2<float>({{1, 2, 3}, {99, 20, 26}, {99, 99, 70}});
  ExpectNear(EvalText(Module({"f32[3,3]"}, "f32[3,3]", "cholesky", "lower=false"), {&upper_in}),
             {1, 2, 3, 0, 4, 5, 0, 0, 6}, 1e-6);
}

TEST(CholeskyTest, Hermitian) {
  // l = [[2, 0], [1+i, 3]]: a = l l^H = [[4, 2-2i], [2+2i, 11]]; u = l^H.
  Literal a = Literal::CreateR2<c128>({{4, c128(2, -2)}, {c128(2, 2), 11}});
  ExpectNear(EvalText(Module({"c128[2,2]"}, "c128[2,2]", "cholesky", "lower=true"), {&a}),
             {2, 0, c128(1, 1), 3}, 1e-12);
  ExpectNear(EvalText(Module({"c128[2,2]"}, "c128[2,2]", "cholesky", "lower=false"), {&a}),
             {2, c128(1, -1), 0, 3}, 1e-12);
}

TEST(CholeskyTest, NotPositiveDefiniteGivesNaNsPerMatrix) {
  // Batch 0 has pivot 1 - 4 = -3; batch 1 is fine. A zero last pivot is not
  // an error (its square root is 0, not NaN).
  Literal a = Literal::CreateR3<double>({{{1, 2}, {2, 1}}, {{4, 2}, {2, 2}}, {{1, 1}, {1, 1}}});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ExpectNear(EvalText(Module({"f64[3,2,2]"}, "f64[3,2,2]", "cholesky", "lower=true"), {&a}),
             {nan, nan, nan, nan, 2, 0, 1, 1, 1, 0, 1, 0}, 1e-12);
  Literal n = Literal::CreateR2<float>({{kNaN, 0}, {0, 1}});
  ExpectNear(EvalText(Module({"f32[2,2]"}, "f32[2,2]", "cholesky", "lower=true"), {&n}),
             {kNaN, kNaN, kNaN, kNaN}, 0);
}

}  // namespace
}  // namespace xla
