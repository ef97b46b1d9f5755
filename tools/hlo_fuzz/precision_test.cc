// The error model, its module analysis, and the output comparison.
#include "tools/hlo_fuzz/precision.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "tools/hlo_fuzz/output_comparison.h"
#include "tools/hlo_fuzz/precision_analysis.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace hlo_fuzz {
namespace {

using O = HloOpcode;

TEST(PrecisionTest, IeeeOpsOfExactValuesAreExact) {
  for (HloOpcode op : {O::kAdd, O::kSubtract, O::kDivide, O::kMaximum, O::kRemainder}) {
    EXPECT_TRUE(BinaryPrecision(op, F32, Exact(4), Exact(4)).exact()) << HloOpcodeString(op);
  }
  EXPECT_TRUE(UnaryPrecision(O::kSqrt, F32, F32, Exact(4)).exact());
  EXPECT_TRUE(UnaryPrecision(O::kFloor, F64, F64, Exact(4)).exact());
  EXPECT_TRUE(UnaryPrecision(O::kConvert, F32, S32, Exact(4)).exact());
  EXPECT_TRUE(BinaryPrecision(O::kShiftLeft, S32, Exact(4), Exact(4)).exact());
}

TEST(PrecisionTest, ContractionIntoFmaIsAllowed) {
  const Precision product = BinaryPrecision(O::kMultiply, F32, Exact(4), Exact(4));
  EXPECT_TRUE(product.exact());
  EXPECT_TRUE(product.product);
  const Precision sum = BinaryPrecision(O::kAdd, F32, product, Exact(4));
  EXPECT_FALSE(sum.exact());
  EXPECT_FALSE(sum.unusable);
  EXPECT_GE(sum.abs, std::ldexp(16.0, -23));
  // f16/bf16 products are rounded before the add.
  EXPECT_TRUE(BinaryPrecision(O::kAdd, BF16, BinaryPrecision(O::kMultiply, BF16, Exact(4), Exact(4)), Exact(4))
                  .exact());
  // An unbounded product leaves no usable bound.
  EXPECT_TRUE(BinaryPrecision(O::kAdd, F32, BinaryPrecision(O::kMultiply, F32, Exact(), Exact()), Exact()).unusable);
}

TEST(PrecisionTest, DiscontinuousOpsNeedExactOperands) {
  const Precision approx = UnaryPrecision(O::kExp, F32, F32, Exact(4));
  EXPECT_FALSE(approx.exact());
  EXPECT_FALSE(approx.unusable);
  for (HloOpcode op : {O::kFloor, O::kCeil, O::kSign, O::kRoundNearestEven, O::kIsFinite}) {
    EXPECT_TRUE(UnaryPrecision(op, F32, op == O::kIsFinite ? PRED : F32, approx).unusable) << HloOpcodeString(op);
  }
  EXPECT_TRUE(UnaryPrecision(O::kConvert, F32, S32, approx).unusable);
  EXPECT_TRUE(BinaryPrecision(O::kCompare, F32, approx, Exact(1)).unusable);
  EXPECT_TRUE(BinaryPrecision(O::kDivide, F32, Exact(1), approx).unusable);
  EXPECT_TRUE(SelectPrecision(BinaryPrecision(O::kCompare, F32, approx, Exact()), Exact(), Exact()).unusable);
  // Continuous ones propagate the error.
  EXPECT_FALSE(UnaryPrecision(O::kTanh, F32, F32, approx).unusable);
  EXPECT_FALSE(BinaryPrecision(O::kMaximum, F32, approx, Exact()).unusable);
  EXPECT_FALSE(UnaryPrecision(O::kConvert, F32, F64, approx).unusable);
}

TEST(PrecisionTest, NanBitsAndZeroSigns) {
  // max may return either NaN, a dot's zero may be -0 or +0: a TOTALORDER
  // compare or a divisor would show it.
  const Precision max = BinaryPrecision(O::kMaximum, F32, Exact(), Exact());
  EXPECT_TRUE(max.exact());
  EXPECT_TRUE(TotalOrderComparePrecision(max, Exact()).unusable);
  EXPECT_TRUE(TotalOrderComparePrecision(Exact(), Exact()).exact());
  const Precision dot = ContractionPrecision(F32, F32, Exact(4), Exact(4), 1);
  EXPECT_TRUE(dot.exact());
  EXPECT_TRUE(BinaryPrecision(O::kDivide, F32, Exact(), dot).unusable);
  EXPECT_TRUE(BinaryPrecision(O::kDivide, F32, dot, Exact()).exact());
  EXPECT_TRUE(UnaryPrecision(O::kRsqrt, F32, F32, dot).unusable);
  EXPECT_FALSE(UnaryPrecision(O::kAbs, F32, F32, dot).zero_sign_varies);
}

TEST(PrecisionTest, ClampBoundsOnlyWhenFinite) {
  Precision lo = Exact(0.25), hi = Exact(1), inf = Exact(0);
  lo.may_be_inf = hi.may_be_inf = false;
  const Precision x = UnaryPrecision(O::kExp, F32, F32, Exact(4));
  EXPECT_EQ(ClampPrecision(lo, x, hi).mag, 1);
  // clamp(-0.25, exp(x), inf) is not bounded by 0.25 (found by the fuzzer).
  EXPECT_EQ(ClampPrecision(lo, x, inf).mag, x.mag);
}

TEST(PrecisionTest, ReassociatedSums) {
  const Precision sum = ReassociatedSumPrecision(F32, F32, Exact(4), 10);
  EXPECT_FALSE(sum.exact());
  EXPECT_NEAR(sum.abs, 10 * 40 * std::ldexp(1.0, -23), 1e-9);
  EXPECT_TRUE(ReassociatedSumPrecision(F32, F32, Exact(4), 1).exact());
  // Another order could overflow.
  EXPECT_TRUE(ReassociatedSumPrecision(F32, F32, Exact(1e38), 10).unusable);
  EXPECT_TRUE(ContractionPrecision(S32, S32, Exact(), Exact(), 100).exact());
}

std::vector<Precision> Analyze(const std::string& text, const std::vector<Literal>& args) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  auto result = AnalyzeOutputPrecision(**module, args);
  EXPECT_TRUE(result.ok()) << result.status();
  return *result;
}

TEST(PrecisionAnalysisTest, ClassifiesOutputs) {
  const std::vector<Precision> p = Analyze(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  n = s32[4] parameter(1)
  t = f32[4] tanh(x)
  f = f32[4] floor(t)
  z = f32[] constant(0)
  r = f32[] reduce(x, z), dimensions={0}, to_apply=add
  w = f32[1] reduce-window(x, z), window={size=4}, to_apply=add
  k = s32[4] shift-left(n, n)
  ROOT out = (f32[4], f32[4], f32[], f32[1], s32[4]) tuple(t, f, r, w, k)
}
)",
                                           {Literal::CreateR1<float>({1, 2, 3, -4}),
                                            Literal::CreateR1<int32_t>({1, 2, 3, 4})});
  ASSERT_EQ(p.size(), 5);
  EXPECT_FALSE(p[0].exact() || p[0].unusable);  // tanh: approximate
  EXPECT_TRUE(p[1].unusable);                  // floor of an approximation
  EXPECT_FALSE(p[2].exact() || p[2].unusable);  // reassociable sum
  EXPECT_NEAR(p[2].abs, 5 * 20 * std::ldexp(1.0, -23), 1e-9);  // 5 terms of magnitude <= 4
  EXPECT_TRUE(p[3].exact());                   // reduce-window folds in a fixed order
  EXPECT_TRUE(p[4].exact());
}

TEST(PrecisionAnalysisTest, WhileConditionMustStayExact) {
  const std::vector<Precision> p = Analyze(R"(
HloModule m
cond {
  s = (f32[], f32[]) parameter(0)
  v = f32[] get-tuple-element(s), index=0
  one = f32[] constant(1)
  ROOT lt = pred[] compare(v, one), direction=LT
}
body {
  s = (f32[], f32[]) parameter(0)
  v = f32[] get-tuple-element(s), index=0
  w = f32[] get-tuple-element(s), index=1
  e = f32[] exponential(v)
  ROOT t = (f32[], f32[]) tuple(e, w)
}
ENTRY e {
  x = f32[] parameter(0)
  init = (f32[], f32[]) tuple(x, x)
  ROOT l = (f32[], f32[]) while(init), condition=cond, body=body
}
)",
                                           {Literal::CreateR0<float>(-1)});
  ASSERT_EQ(p.size(), 2);
  EXPECT_TRUE(p[0].unusable);
  EXPECT_TRUE(p[1].unusable);  // the trip count itself is uncertain
}

TEST(OutputComparisonTest, SpecialsAndTolerances) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  ComparisonCounts counts;
  auto cmp = [&](std::initializer_list<float> e, std::initializer_list<float> a, const Precision& p) {
    return CompareOutputs(Literal::CreateR1<float>(e), Literal::CreateR1<float>(a), {p}, &counts).ok();
  };
  EXPECT_TRUE(cmp({nan, 1, -0.0f}, {-nan, 1, 0.0f}, Exact()));
  EXPECT_FALSE(cmp({nan}, {1}, Exact()));
  EXPECT_FALSE(cmp({1}, {nan}, UnaryPrecision(O::kExp, F32, F32, Exact(4))));
  EXPECT_FALSE(cmp({inf}, {3.4e38f}, UnaryPrecision(O::kExp, F32, F32, Exact(100))));
  EXPECT_FALSE(cmp({inf}, {-inf}, Exact()));
  EXPECT_FALSE(cmp({1}, {std::nextafter(1.0f, 2.0f)}, Exact()));
  EXPECT_TRUE(cmp({1}, {std::nextafter(1.0f, 2.0f)}, UnaryPrecision(O::kExp, F32, F32, Exact(4))));
  EXPECT_FALSE(cmp({1}, {1.001f}, UnaryPrecision(O::kExp, F32, F32, Exact(4))));
  counts = ComparisonCounts();
  EXPECT_TRUE(cmp({1}, {2}, Unusable()));
  EXPECT_EQ(counts.skipped, 1);
  // Integers compare bit for bit; layouts must match too.
  EXPECT_FALSE(CompareOutputs(Literal::CreateR1<int64_t>({int64_t{1} << 60}),
                              Literal::CreateR1<int64_t>({(int64_t{1} << 60) + 1}), {Exact()}, &counts)
                   .ok());
  Literal m = Literal::CreateR2<float>({{1, 2}, {3, 4}});
  EXPECT_FALSE(CompareOutputs(m, m.Relayout(Layout({0, 1})), {Exact()}, &counts).ok());
}

}  // namespace
}  // namespace hlo_fuzz
}  // namespace xla
