#include "tests/conformance/check_evaluation.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "xla/types.h"

namespace xla {
namespace conformance {
namespace {

using stablehlo::CheckSpec;

CheckSpec Spec(CheckSpec::Kind kind, bool custom_call = false) {
  CheckSpec s;
  s.kind = kind;
  s.custom_call_form = custom_call;
  return s;
}

TEST(CheckEvaluationTest, UlpDistanceCountsBothZerosAsOneValue) {
  EXPECT_EQ(UlpDistance(0x00000000, 0x80000000, 32), 0);
  EXPECT_EQ(UlpDistance(0x3F800000, 0x3F800001, 32), 1);
  // Smallest positive and negative subnormals are 2 apart (via zero).
  EXPECT_EQ(UlpDistance(0x00000001, 0x80000001, 32), 2);
  EXPECT_EQ(UlpDistance(0x3C00, 0x3C02, 16), 2);
}

TEST(CheckEvaluationTest, EqIsBitExact) {
  Literal a = Literal::CreateR1<float>({0.0f, 1.0f});
  Literal b = Literal::CreateR1<float>({-0.0f, 1.0f});
  CheckVerdict v = EvaluateCheck(Spec(CheckSpec::kEq), a, b);
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.message.find("element 0"), std::string::npos) << v.message;
  EXPECT_TRUE(EvaluateCheck(Spec(CheckSpec::kEq), a, a).pass);
}

TEST(CheckEvaluationTest, CloseUsesUlpsThenTheFallbackOnlyForCustomCalls) {
  const float one = 1.0f;
  const float four_ulp = std::nextafter(std::nextafter(std::nextafter(std::nextafter(one, 2.0f), 2.0f), 2.0f), 2.0f);
  Literal a = Literal::CreateR1<float>({four_ulp});
  Literal e = Literal::CreateR1<float>({one});
  CheckVerdict plain = EvaluateCheck(Spec(CheckSpec::kClose), a, e);
  EXPECT_FALSE(plain.pass);
  CheckVerdict call = EvaluateCheck(Spec(CheckSpec::kClose, /*custom_call=*/true), a, e);
  EXPECT_TRUE(call.pass);          // 4.8e-7 <= 1e-5
  EXPECT_FALSE(call.strict_pass);  // but 4 ulp > 1
}

TEST(CheckEvaluationTest, NonFiniteRule) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Literal a = Literal::CreateR1<float>({nan, inf});
  Literal e = Literal::CreateR1<float>({-nan, inf});
  EXPECT_TRUE(EvaluateCheck(Spec(CheckSpec::kAlmostEq), a, e).pass);
  Literal e2 = Literal::CreateR1<float>({nan, -inf});
  EXPECT_FALSE(EvaluateCheck(Spec(CheckSpec::kAlmostEq), a, e2).pass);
}

TEST(CheckEvaluationTest, AlmostEqIsRelativeAboveOne) {
  CheckSpec s = Spec(CheckSpec::kAlmostEq);
  s.tolerance = 1e-3;
  EXPECT_TRUE(EvaluateCheck(s, Literal::CreateR1<double>({1000.5}), Literal::CreateR1<double>({1000.0})).pass);
  EXPECT_FALSE(EvaluateCheck(s, Literal::CreateR1<double>({1002.0}), Literal::CreateR1<double>({1000.0})).pass);
  EXPECT_FALSE(EvaluateCheck(s, Literal::CreateR1<double>({0.002}), Literal::CreateR1<double>({0.0})).pass);
}

TEST(CheckEvaluationTest, ComplexPartsCompareSeparately) {
  Literal a = Literal::CreateR1<complex64>({{1.0f, 2.0f}});
  Literal e = Literal::CreateR1<complex64>({{1.0f, 2.5f}});
  CheckVerdict v = EvaluateCheck(Spec(CheckSpec::kClose, true), a, e);
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.message.find("(imag)"), std::string::npos) << v.message;
}

TEST(CheckEvaluationTest, ShapeMismatchFails) {
  CheckVerdict v = EvaluateCheck(Spec(CheckSpec::kEq), Literal::CreateR1<float>({1.0f}),
                                 Literal::CreateR1<double>({1.0}));
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.message.find("differ in shape"), std::string::npos);
}

}  // namespace
}  // namespace conformance
}  // namespace xla
