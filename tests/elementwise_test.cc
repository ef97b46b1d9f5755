// Element-wise ops through the client API: every unary and binary op of the
// operation-semantics document, comparisons (IEEE and total order),
// implicit broadcasting, select, clamp, convert and bitcast-convert.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/client_test_base.h"

namespace xla {
namespace {

using test::AddParam;
using test::ClientTest;
using test::L;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kInfD = std::numeric_limits<double>::infinity();
constexpr double kNaND = std::numeric_limits<double>::quiet_NaN();
constexpr int32_t kS32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kS32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kS64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kS64Max = std::numeric_limits<int64_t>::max();
constexpr double kPi = 3.14159265358979323846;

float FloatFromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

Literal Tuple2(Literal a, Literal b) {
  std::vector<Literal> v;
  v.push_back(std::move(a));
  v.push_back(std::move(b));
  return Literal::MakeTuple(std::move(v));
}

Literal TupleOf(std::vector<Literal> v) { return Literal::MakeTuple(std::move(v)); }

// A binary op as a two-argument callable (no broadcast dimensions).
#define BIN(F) [](XlaOp a, XlaOp b) { return F(a, b); }

class ElementwiseTest : public ClientTest {
 protected:
  // Runs `op(x)` for x given as a parameter and compares with `expected`.
  void CheckUnary(const std::function<XlaOp(XlaOp)>& op, const Literal& x, const Literal& expected,
                  std::optional<ErrorSpec> error = std::nullopt) {
    XlaBuilder b(TestName());
    std::vector<Literal> args;
    op(AddParam(&b, x, &args));
    ComputeAndCompare(&b, args, expected, error);
  }
  // Runs `op(x, y)` for x, y given as parameters and compares with `expected`.
  void CheckBinary(const std::function<XlaOp(XlaOp, XlaOp)>& op, const Literal& x, const Literal& y,
                   const Literal& expected, std::optional<ErrorSpec> error = std::nullopt) {
    XlaBuilder b(TestName());
    std::vector<Literal> args;
    XlaOp px = AddParam(&b, x, &args);
    XlaOp py = AddParam(&b, y, &args);
    op(px, py);
    ComputeAndCompare(&b, args, expected, error);
  }

  // One typed body per element type: add, subtract, multiply, divide,
  // remainder, max and min on values whose results fit every type.
  template <typename T>
  void CheckBasicArithmetic() {
    SCOPED_TRACE(primitive_util::LowercaseName(primitive_util::NativeToPrimitiveType<T>()));
    auto v = [](std::initializer_list<double> d) {
      std::vector<T> out;
      for (double x : d) out.push_back(static_cast<T>(static_cast<float>(x)));
      return out;
    };
    std::vector<T> a = v({7, 6, 9, 10}), bv = v({3, 2, 9, 5});
    Literal la = Literal::CreateR1<T>(a), lb = Literal::CreateR1<T>(bv);
    auto r1 = [](const std::vector<T>& x) { return Literal::CreateR1<T>(x); };
    CheckBinary([](XlaOp x, XlaOp y) { return Add(x, y); }, la, lb, r1(v({10, 8, 18, 15})));
    CheckBinary([](XlaOp x, XlaOp y) { return Sub(x, y); }, la, lb, r1(v({4, 4, 0, 5})));
    CheckBinary([](XlaOp x, XlaOp y) { return Mul(x, y); }, la, lb, r1(v({21, 12, 81, 50})));
    CheckBinary([](XlaOp x, XlaOp y) { return Max(x, y); }, la, lb, r1(v({7, 6, 9, 10})));
    CheckBinary([](XlaOp x, XlaOp y) { return Min(x, y); }, la, lb, r1(v({3, 2, 9, 5})));
    CheckBinary([](XlaOp x, XlaOp y) { return Rem(x, y); }, la, lb, r1(v({1, 0, 0, 0})));
    std::vector<T> quotient;
    for (size_t i = 0; i < a.size(); ++i) {
      if constexpr (primitive_util::is_float_v<T>) {
        if constexpr (std::is_same_v<T, double>) {
          quotient.push_back(a[i] / bv[i]);
        } else {
          quotient.push_back(static_cast<T>(static_cast<float>(a[i]) / static_cast<float>(bv[i])));
        }
      } else {
        quotient.push_back(static_cast<T>(a[i] / bv[i]));
      }
    }
    CheckBinary([](XlaOp x, XlaOp y) { return Div(x, y); }, la, lb, r1(quotient));
    // The same with constants instead of parameters, through the operators.
    XlaBuilder b(TestName() + "_constants");
    XlaOp ca = ConstantLiteral(&b, la), cb = ConstantLiteral(&b, lb);
    XlaOp two = ConstantLiteral(&b, Literal::CreateR0<T>(static_cast<T>(2.0f)));
    (ca + cb) * two - ca;
    ComputeAndCompare(&b, r1(v({13, 10, 27, 20})));
  }
};

// --- Unary ------------------------------------------------------------------

TEST_P(ElementwiseTest, AbsNegFloorCeilF32) {
  Literal x = Literal::CreateR1<float>({-2.5f, -0.5f, -0.0f, 0.0f, 1.5f, kInf, -kInf, kNaN});
  CheckUnary(Abs, x, Literal::CreateR1<float>({2.5f, 0.5f, 0.0f, 0.0f, 1.5f, kInf, kInf, kNaN}));
  CheckUnary(Neg, x, Literal::CreateR1<float>({2.5f, 0.5f, 0.0f, -0.0f, -1.5f, -kInf, kInf, kNaN}));
  CheckUnary(Floor, x, Literal::CreateR1<float>({-3.0f, -1.0f, -0.0f, 0.0f, 1.0f, kInf, -kInf, kNaN}));
  CheckUnary(Ceil, x, Literal::CreateR1<float>({-2.0f, -0.0f, -0.0f, 0.0f, 2.0f, kInf, -kInf, kNaN}));
}

TEST_P(ElementwiseTest, RoundingModes) {
  Literal x = Literal::CreateR1<float>({-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, -0.0f, 0.4f, -0.4f, 3.7f});
  // Round: ties away from zero.
  CheckUnary(Round, x,
             Literal::CreateR1<float>({-3.0f, -2.0f, -1.0f, 1.0f, 2.0f, 3.0f, -0.0f, 0.0f, -0.0f, 4.0f}));
  // RoundNearestEven: ties to even.
  CheckUnary(RoundNearestEven, x,
             Literal::CreateR1<float>({-2.0f, -2.0f, -0.0f, 0.0f, 2.0f, 2.0f, -0.0f, 0.0f, -0.0f, 4.0f}));
  Literal xd = Literal::CreateR1<double>({2.5, 3.5, -4.5, 1e300});
  CheckUnary(RoundNearestEven, xd, Literal::CreateR1<double>({2.0, 4.0, -4.0, 1e300}));
  CheckUnary(Round, xd, Literal::CreateR1<double>({3.0, 4.0, -5.0, 1e300}));
}

TEST_P(ElementwiseTest, SignAndIsFinite) {
  Literal x = Literal::CreateR1<float>({-3.0f, -0.0f, 0.0f, 5.0f, kNaN, -kInf, kInf, 1e-40f});
  CheckUnary(Sign, x, Literal::CreateR1<float>({-1.0f, -0.0f, 0.0f, 1.0f, kNaN, -1.0f, 1.0f, 1.0f}));
  CheckUnary(IsFinite, x, Literal::CreateR1<bool>({true, true, true, true, false, false, false, true}));
  CheckUnary(IsFinite, Literal::CreateR1<double>({kInfD, 1e308, kNaND}),
             Literal::CreateR1<bool>({false, true, false}));
  CheckUnary(Sign, Literal::CreateR1<int32_t>({-5, 0, 7, kS32Min, kS32Max}),
             Literal::CreateR1<int32_t>({-1, 0, 1, -1, 1}));
  CheckUnary(Sign, Literal::CreateR1<int8_t>({-128, 0, 127}), Literal::CreateR1<int8_t>({-1, 0, 1}));
}

TEST_P(ElementwiseTest, TranscendentalF32) {
  const std::vector<float> xs = {-2.0f, -0.5f, 0.0f, 0.5f, 1.0f, 3.0f};
  Literal x = Literal::CreateR1<float>(xs);
  struct Case {
    const char* name;
    std::function<XlaOp(XlaOp)> op;
    std::function<double(double)> ref;
  };
  std::vector<Case> cases = {
      {"exp", Exp, [](double v) { return std::exp(v); }},
      {"expm1", Expm1, [](double v) { return std::expm1(v); }},
      {"sin", Sin, [](double v) { return std::sin(v); }},
      {"cos", Cos, [](double v) { return std::cos(v); }},
      {"tan", Tan, [](double v) { return std::tan(v); }},
      {"tanh", Tanh, [](double v) { return std::tanh(v); }},
      {"erf", Erf, [](double v) { return std::erf(v); }},
      {"logistic", Logistic, [](double v) { return 1.0 / (1.0 + std::exp(-v)); }},
      {"cbrt", Cbrt, [](double v) { return std::cbrt(v); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<float> expected;
    for (float v : xs) expected.push_back(static_cast<float>(c.ref(v)));
    CheckUnary(c.op, x, Literal::CreateR1<float>(expected), ErrorSpec{1e-6, 1e-5});
  }
}

TEST_P(ElementwiseTest, LogSqrtFamilyF32) {
  const std::vector<float> xs = {0.25f, 1.0f, 2.0f, 10.0f, 1e-6f, 1e10f};
  Literal x = Literal::CreateR1<float>(xs);
  struct Case {
    const char* name;
    std::function<XlaOp(XlaOp)> op;
    std::function<double(double)> ref;
  };
  std::vector<Case> cases = {
      {"log", Log, [](double v) { return std::log(v); }},
      {"log1p", Log1p, [](double v) { return std::log1p(v); }},
      {"sqrt", Sqrt, [](double v) { return std::sqrt(v); }},
      {"rsqrt", Rsqrt, [](double v) { return 1.0 / std::sqrt(v); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<float> expected;
    for (float v : xs) expected.push_back(static_cast<float>(c.ref(v)));
    CheckUnary(c.op, x, Literal::CreateR1<float>(expected), ErrorSpec{1e-6, 1e-5});
  }
}

TEST_P(ElementwiseTest, TranscendentalSpecialValues) {
  ErrorSpec tight{1e-7, 1e-6};
  CheckUnary(Log, Literal::CreateR1<float>({0.0f, -1.0f, kInf, 1.0f}),
             Literal::CreateR1<float>({-kInf, kNaN, kInf, 0.0f}), tight);
  CheckUnary(Log1p, Literal::CreateR1<float>({-1.0f, -2.0f, 1e-10f}),
             Literal::CreateR1<float>({-kInf, kNaN, 1e-10f}), ErrorSpec{0, 1e-5});
  CheckUnary(Expm1, Literal::CreateR1<float>({1e-10f, -kInf, kInf}), Literal::CreateR1<float>({1e-10f, -1.0f, kInf}),
             ErrorSpec{0, 1e-5});
  CheckUnary(Exp, Literal::CreateR1<float>({-kInf, kInf, 0.0f, 100.0f}),
             Literal::CreateR1<float>({0.0f, kInf, 1.0f, kInf}), tight);
  CheckUnary(Sqrt, Literal::CreateR1<float>({-1.0f, -0.0f, 4.0f, kInf}),
             Literal::CreateR1<float>({kNaN, -0.0f, 2.0f, kInf}));
  CheckUnary(Rsqrt, Literal::CreateR1<float>({0.0f, 4.0f, kInf, -1.0f}),
             Literal::CreateR1<float>({kInf, 0.5f, 0.0f, kNaN}), tight);
  CheckUnary(Cbrt, Literal::CreateR1<float>({-8.0f, 27.0f, -kInf}), Literal::CreateR1<float>({-2.0f, 3.0f, -kInf}),
             tight);
  CheckUnary(Tanh, Literal::CreateR1<float>({kInf, -kInf, 20.0f}), Literal::CreateR1<float>({1.0f, -1.0f, 1.0f}),
             tight);
  CheckUnary(Logistic, Literal::CreateR1<float>({kInf, -kInf, 0.0f, -100.0f}),
             Literal::CreateR1<float>({1.0f, 0.0f, 0.5f, 0.0f}), tight);
  CheckUnary(Erf, Literal::CreateR1<float>({kInf, -kInf, 0.0f}), Literal::CreateR1<float>({1.0f, -1.0f, 0.0f}),
             tight);
}

TEST_P(ElementwiseTest, TranscendentalF64) {
  const std::vector<double> xs = {-1.5, 0.1, 0.7, 2.0};
  Literal x = Literal::CreateR1<double>(xs);
  auto expect = [&](double (*f)(double)) {
    std::vector<double> out;
    for (double v : xs) out.push_back(f(v));
    return Literal::CreateR1<double>(out);
  };
  ErrorSpec e{1e-14, 1e-13};
  CheckUnary(Exp, x, expect(std::exp), e);
  CheckUnary(Sin, x, expect(std::sin), e);
  CheckUnary(Cos, x, expect(std::cos), e);
  CheckUnary(Tanh, x, expect(std::tanh), e);
  CheckUnary(Erf, x, expect(std::erf), e);
  CheckUnary(Log, Literal::CreateR1<double>({0.5, 2.0, 1e300}),
             Literal::CreateR1<double>({std::log(0.5), std::log(2.0), std::log(1e300)}), e);
  CheckUnary(Sqrt, Literal::CreateR1<double>({2.0, 1e-300}), Literal::CreateR1<double>({std::sqrt(2.0), 1e-150}), e);
}

TEST_P(ElementwiseTest, UnaryHalfAndBfloat16) {
  CheckUnary(Abs, Literal::CreateR1<half>({half(-1.5f), half(2.0f), half(-0.0f)}),
             Literal::CreateR1<half>({half(1.5f), half(2.0f), half(0.0f)}));
  CheckUnary(Neg, Literal::CreateR1<bfloat16>({bfloat16(-1.5f), bfloat16(3.0f)}),
             Literal::CreateR1<bfloat16>({bfloat16(1.5f), bfloat16(-3.0f)}));
  CheckUnary(Floor, Literal::CreateR1<half>({half(-1.5f), half(2.75f)}),
             Literal::CreateR1<half>({half(-2.0f), half(2.0f)}));
  CheckUnary(Sqrt, Literal::CreateR1<bfloat16>({bfloat16(4.0f), bfloat16(2.0f)}),
             Literal::CreateR1<bfloat16>({bfloat16(2.0f), bfloat16(std::sqrt(2.0f))}), ErrorSpec{0, 1e-2});
  CheckUnary(Exp, Literal::CreateR1<half>({half(0.0f), half(1.0f), half(12.0f)}),
             Literal::CreateR1<half>({half(1.0f), half(std::exp(1.0f)), half(std::exp(12.0f))}),
             ErrorSpec{0, 1e-3});
  // exp(12) = 162755 overflows f16 (max 65504).
  CheckUnary(Exp, Literal::CreateR1<half>({half(12.0f)}),
             Literal::CreateR1<half>({half(std::numeric_limits<float>::infinity())}));
  CheckUnary(IsFinite, Literal::CreateR1<half>({half(1.0f), half(kInf), half(kNaN)}),
             Literal::CreateR1<bool>({true, false, false}));
}

TEST_P(ElementwiseTest, IntegerUnary) {
  Literal x = Literal::CreateR1<int32_t>({kS32Min, -5, -1, 0, 1, 7, kS32Max});
  CheckUnary(Abs, x, Literal::CreateR1<int32_t>({kS32Min, 5, 1, 0, 1, 7, kS32Max}));
  CheckUnary(Neg, x, Literal::CreateR1<int32_t>({kS32Min, 5, 1, 0, -1, -7, -kS32Max}));
  CheckUnary(Not, x, Literal::CreateR1<int32_t>({kS32Max, 4, 0, -1, -2, -8, kS32Min}));
  CheckUnary(Clz, x, Literal::CreateR1<int32_t>({0, 0, 0, 32, 31, 29, 1}));
  CheckUnary(PopulationCount, x, Literal::CreateR1<int32_t>({1, 31, 32, 0, 1, 3, 31}));

  Literal u = Literal::CreateR1<uint8_t>({0, 1, 0x80, 0xFF, 0x0F});
  CheckUnary(Clz, u, Literal::CreateR1<uint8_t>({8, 7, 0, 0, 4}));
  CheckUnary(PopulationCount, u, Literal::CreateR1<uint8_t>({0, 1, 1, 8, 4}));
  CheckUnary(Not, u, Literal::CreateR1<uint8_t>({0xFF, 0xFE, 0x7F, 0x00, 0xF0}));

  CheckUnary(Clz, Literal::CreateR1<int64_t>({1, 0, -1, int64_t{1} << 40}),
             Literal::CreateR1<int64_t>({63, 64, 0, 23}));
  CheckUnary(PopulationCount, Literal::CreateR1<int64_t>({-1, kS64Min}), Literal::CreateR1<int64_t>({64, 1}));
  CheckUnary(Abs, Literal::CreateR1<int8_t>({-128, -7, 7}), Literal::CreateR1<int8_t>({-128, 7, 7}));
  CheckUnary(Clz, Literal::CreateR1<uint16_t>({1, 0x100}), Literal::CreateR1<uint16_t>({15, 7}));
  CheckUnary(Not, Literal::CreateR1<bool>({true, false}), Literal::CreateR1<bool>({false, true}));
}

TEST_P(ElementwiseTest, ComplexUnary) {
  Literal x = Literal::CreateR1<complex64>({{3, 4}, {-1, -1}, {0, 2}});
  CheckUnary(Real, x, Literal::CreateR1<float>({3, -1, 0}));
  CheckUnary(Imag, x, Literal::CreateR1<float>({4, -1, 2}));
  CheckUnary(Abs, x, Literal::CreateR1<float>({5, std::sqrt(2.0f), 2}), ErrorSpec{1e-6, 1e-6});
  CheckUnary(Neg, x, Literal::CreateR1<complex64>({{-3, -4}, {1, 1}, {-0.0f, -2}}));
  CheckUnary(Exp, Literal::CreateR1<complex64>({{0, static_cast<float>(kPi)}}),
             Literal::CreateR1<complex64>({{-1, 0}}), ErrorSpec{1e-6, 1e-6});
  CheckUnary(Sign, Literal::CreateR1<complex64>({{3, 4}, {0, 0}}),
             Literal::CreateR1<complex64>({{0.6f, 0.8f}, {0, 0}}), ErrorSpec{1e-6, 1e-6});
  // On real operands Real is the identity and Imag is zero.
  CheckUnary(Real, Literal::CreateR1<float>({1.5f, -2}), Literal::CreateR1<float>({1.5f, -2}));
  CheckUnary(Imag, Literal::CreateR1<float>({1.5f, -2}), Literal::CreateR1<float>({0, 0}));
  Literal xd = Literal::CreateR1<complex128>({{1, -2}});
  CheckUnary(Real, xd, Literal::CreateR1<double>({1}));
  CheckUnary(Imag, xd, Literal::CreateR1<double>({-2}));
}

TEST_P(ElementwiseTest, UnaryOnScalarAndRank3) {
  CheckUnary(Neg, Literal::CreateR0<float>(2.5f), Literal::CreateR0<float>(-2.5f));
  CheckUnary(Abs, Literal::CreateR3<int32_t>({{{-1, 2}, {-3, 4}}, {{5, -6}, {7, -8}}}),
             Literal::CreateR3<int32_t>({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}));
  // Zero-element arrays are fine too.
  CheckUnary(Exp, Literal(ShapeUtil::MakeShape(F32, {0, 3})), Literal(ShapeUtil::MakeShape(F32, {0, 3})));
}

// --- Binary arithmetic --------------------------------------------------------

TEST_P(ElementwiseTest, BasicArithmeticEveryType) {
  CheckBasicArithmetic<int8_t>();
  CheckBasicArithmetic<int16_t>();
  CheckBasicArithmetic<int32_t>();
  CheckBasicArithmetic<int64_t>();
  CheckBasicArithmetic<uint8_t>();
  CheckBasicArithmetic<uint16_t>();
  CheckBasicArithmetic<uint32_t>();
  CheckBasicArithmetic<uint64_t>();
  CheckBasicArithmetic<half>();
  CheckBasicArithmetic<bfloat16>();
  CheckBasicArithmetic<float>();
  CheckBasicArithmetic<double>();
}

TEST_P(ElementwiseTest, IntegerWrapAround) {
  CheckBinary(BIN(Add), Literal::CreateR1<int32_t>({kS32Max, kS32Min}), Literal::CreateR1<int32_t>({1, -1}),
              Literal::CreateR1<int32_t>({kS32Min, kS32Max}));
  CheckBinary(BIN(Sub), Literal::CreateR1<int32_t>({kS32Min}), Literal::CreateR1<int32_t>({1}),
              Literal::CreateR1<int32_t>({kS32Max}));
  CheckBinary(BIN(Mul), Literal::CreateR1<int32_t>({65536, kS32Min}), Literal::CreateR1<int32_t>({65536, -1}),
              Literal::CreateR1<int32_t>({0, kS32Min}));
  CheckBinary(BIN(Add), Literal::CreateR1<uint8_t>({255, 200}), Literal::CreateR1<uint8_t>({1, 100}),
              Literal::CreateR1<uint8_t>({0, 44}));
  CheckBinary(BIN(Sub), Literal::CreateR1<uint8_t>({0}), Literal::CreateR1<uint8_t>({1}), Literal::CreateR1<uint8_t>({255}));
  CheckBinary(BIN(Mul), Literal::CreateR1<int16_t>({300}), Literal::CreateR1<int16_t>({300}),
              Literal::CreateR1<int16_t>({24464}));
  CheckBinary(BIN(Add), Literal::CreateR1<int64_t>({kS64Max}), Literal::CreateR1<int64_t>({1}),
              Literal::CreateR1<int64_t>({kS64Min}));
  CheckBinary(BIN(Add), Literal::CreateR1<uint64_t>({~uint64_t{0}}), Literal::CreateR1<uint64_t>({2}),
              Literal::CreateR1<uint64_t>({1}));
}

TEST_P(ElementwiseTest, IntegerDivisionCornerCases) {
  Literal a = Literal::CreateR1<int32_t>({7, -7, 7, -7, 5, kS32Min, kS32Min, 0, -5});
  Literal b = Literal::CreateR1<int32_t>({2, 2, -2, -2, 0, -1, 1, 3, 0});
  // Truncating division; x / 0 = -1; INT_MIN / -1 = INT_MIN.
  CheckBinary(BIN(Div), a, b, Literal::CreateR1<int32_t>({3, -3, -3, 3, -1, kS32Min, kS32Min, 0, -1}));
  // The remainder takes the dividend's sign; x % 0 = x; INT_MIN % -1 = 0.
  CheckBinary(BIN(Rem), a, b, Literal::CreateR1<int32_t>({1, -1, 1, -1, 5, 0, 0, 0, -5}));

  Literal ua = Literal::CreateR1<uint32_t>({7, 5, 0xFFFFFFFFu, 0xFFFFFFFEu});
  Literal ub = Literal::CreateR1<uint32_t>({2, 0, 1, 0xFFFFFFFFu});
  CheckBinary(BIN(Div), ua, ub, Literal::CreateR1<uint32_t>({3, 0xFFFFFFFFu, 0xFFFFFFFFu, 0}));
  CheckBinary(BIN(Rem), ua, ub, Literal::CreateR1<uint32_t>({1, 5, 0, 0xFFFFFFFEu}));

  CheckBinary(BIN(Div), Literal::CreateR1<int8_t>({-128, -128, 100}), Literal::CreateR1<int8_t>({-1, 0, -3}),
              Literal::CreateR1<int8_t>({-128, -1, -33}));
  CheckBinary(BIN(Rem), Literal::CreateR1<int8_t>({-128, -128, 100}), Literal::CreateR1<int8_t>({-1, 0, -3}),
              Literal::CreateR1<int8_t>({0, -128, 1}));
  CheckBinary(BIN(Div), Literal::CreateR1<int64_t>({kS64Min, kS64Max}), Literal::CreateR1<int64_t>({-1, 0}),
              Literal::CreateR1<int64_t>({kS64Min, -1}));
  CheckBinary(BIN(Rem), Literal::CreateR1<int64_t>({kS64Min, kS64Max}), Literal::CreateR1<int64_t>({-1, 0}),
              Literal::CreateR1<int64_t>({0, kS64Max}));
}

TEST_P(ElementwiseTest, FloatDivisionAndRemainder) {
  CheckBinary(BIN(Div), Literal::CreateR1<float>({1, -1, 0, 1, -0.0f}), Literal::CreateR1<float>({0, 0, 0, -kInf, 1}),
              Literal::CreateR1<float>({kInf, -kInf, kNaN, -0.0f, -0.0f}));
  // fmod semantics: the result has the dividend's sign.
  CheckBinary(BIN(Rem), Literal::CreateR1<float>({5.5f, -5.5f, 5.5f, 1, kInf, 1, -0.0f}),
              Literal::CreateR1<float>({2, 2, -2, 0, 1, kInf, 3}),
              Literal::CreateR1<float>({1.5f, -1.5f, 1.5f, kNaN, kNaN, 1, -0.0f}));
  CheckBinary(BIN(Rem), Literal::CreateR1<double>({10.25, -7}), Literal::CreateR1<double>({3, 2.5}),
              Literal::CreateR1<double>({1.25, -2}));
}

TEST_P(ElementwiseTest, Pow) {
  CheckBinary(BIN(Pow), Literal::CreateR1<float>({2, 4, 9, 0, -8, kNaN, 1, 2, 0, -2, 10}),
              Literal::CreateR1<float>({10, 0.5f, -0.5f, 0, 1.0f / 3, 0, kNaN, -1, -1, 3, 0.5f}),
              Literal::CreateR1<float>({1024, 2, 1.0f / 3, 1, kNaN, 1, 1, 0.5f, kInf, -8, std::sqrt(10.0f)}),
              ErrorSpec{1e-6, 1e-6});
  CheckBinary(BIN(Pow), Literal::CreateR1<int32_t>({2, 3, 2, 1, -1, -1, -2, 0, 5, 2, 2}),
              Literal::CreateR1<int32_t>({10, 0, -1, -5, -3, -4, 3, 0, 1, 31, 32}),
              Literal::CreateR1<int32_t>({1024, 1, 0, 1, -1, 1, -8, 1, 5, kS32Min, 0}));
  CheckBinary(BIN(Pow), Literal::CreateR1<uint8_t>({3, 2}), Literal::CreateR1<uint8_t>({5, 8}),
              Literal::CreateR1<uint8_t>({243, 0}));
  CheckBinary(BIN(Pow), Literal::CreateR1<double>({2, 10}), Literal::CreateR1<double>({0.5, -2}),
              Literal::CreateR1<double>({std::sqrt(2.0), 0.01}), ErrorSpec{1e-15, 1e-14});
}

TEST_P(ElementwiseTest, MaxMinPropagateNaNAndOrderZeros) {
  Literal a = Literal::CreateR1<float>({1, kNaN, 2, -0.0f, 0.0f, -kInf, 3, kNaN});
  Literal b = Literal::CreateR1<float>({2, 1, kNaN, 0.0f, -0.0f, 1, 3, kNaN});
  CheckBinary(BIN(Max), a, b, Literal::CreateR1<float>({2, kNaN, kNaN, 0.0f, 0.0f, 1, 3, kNaN}));
  CheckBinary(BIN(Min), a, b, Literal::CreateR1<float>({1, kNaN, kNaN, -0.0f, -0.0f, -kInf, 3, kNaN}));
  CheckBinary(BIN(Max), Literal::CreateR1<double>({kNaND, 1}), Literal::CreateR1<double>({1, kNaND}),
              Literal::CreateR1<double>({kNaND, kNaND}));
  CheckBinary(BIN(Max), Literal::CreateR1<int32_t>({kS32Min, -1, 5}), Literal::CreateR1<int32_t>({0, -2, 5}),
              Literal::CreateR1<int32_t>({0, -1, 5}));
  CheckBinary(BIN(Min), Literal::CreateR1<int32_t>({kS32Min, -1, 5}), Literal::CreateR1<int32_t>({0, -2, 5}),
              Literal::CreateR1<int32_t>({kS32Min, -2, 5}));
  // Unsigned comparison: 0xFFFFFFFF is the largest.
  CheckBinary(BIN(Max), Literal::CreateR1<uint32_t>({0xFFFFFFFFu, 1}), Literal::CreateR1<uint32_t>({1, 2}),
              Literal::CreateR1<uint32_t>({0xFFFFFFFFu, 2}));
  CheckBinary(BIN(Min), Literal::CreateR1<half>({half(1.0f), half(kNaN)}), Literal::CreateR1<half>({half(-1.0f), half(0.0f)}),
              Literal::CreateR1<half>({half(-1.0f), half(kNaN)}));
}

TEST_P(ElementwiseTest, LogicalAndBitwise) {
  Literal pa = Literal::CreateR1<bool>({false, false, true, true});
  Literal pb = Literal::CreateR1<bool>({false, true, false, true});
  CheckBinary(BIN(And), pa, pb, Literal::CreateR1<bool>({false, false, false, true}));
  CheckBinary(BIN(Or), pa, pb, Literal::CreateR1<bool>({false, true, true, true}));
  CheckBinary(BIN(Xor), pa, pb, Literal::CreateR1<bool>({false, true, true, false}));

  Literal ia = Literal::CreateR1<int32_t>({0x0F0F, -1, 0x1234});
  Literal ib = Literal::CreateR1<int32_t>({0x00FF, 0x5555, 0});
  CheckBinary(BIN(And), ia, ib, Literal::CreateR1<int32_t>({0x000F, 0x5555, 0}));
  CheckBinary(BIN(Or), ia, ib, Literal::CreateR1<int32_t>({0x0FFF, -1, 0x1234}));
  CheckBinary(BIN(Xor), ia, ib, Literal::CreateR1<int32_t>({0x0FF0, -21846, 0x1234}));

  Literal ua = Literal::CreateR1<uint8_t>({0xF0}), ub = Literal::CreateR1<uint8_t>({0x3C});
  CheckBinary(BIN(And), ua, ub, Literal::CreateR1<uint8_t>({0x30}));
  CheckBinary(BIN(Or), ua, ub, Literal::CreateR1<uint8_t>({0xFC}));
  CheckBinary(BIN(Xor), ua, ub, Literal::CreateR1<uint8_t>({0xCC}));
  CheckBinary(BIN(Xor), Literal::CreateR1<uint64_t>({0xFFFF0000FFFF0000ull}), Literal::CreateR1<uint64_t>({0x0F0F0F0F0F0F0F0Full}),
              Literal::CreateR1<uint64_t>({0xF0F00F0FF0F00F0Full}));
}

TEST_P(ElementwiseTest, ShiftsAtAndOverBitWidth) {
  Literal a = Literal::CreateR1<int32_t>({1, 1, 1, 1, 1, -8, -8, 8, -1, 0x40000000, -1});
  Literal b = Literal::CreateR1<int32_t>({0, 1, 31, 32, 33, 1, 32, 32, 100, 1, -1});
  CheckBinary(BIN(ShiftLeft), a, b, Literal::CreateR1<int32_t>({1, 2, kS32Min, 0, 0, -16, 0, 0, 0, kS32Min, 0}));
  CheckBinary(BIN(ShiftRightArithmetic), a, b,
              Literal::CreateR1<int32_t>({1, 0, 0, 0, 0, -4, -1, 0, -1, 0x20000000, -1}));
  CheckBinary(BIN(ShiftRightLogical), a, b,
              Literal::CreateR1<int32_t>({1, 0, 0, 0, 0, 0x7FFFFFFC, 0, 0, 0, 0x20000000, 0}));

  Literal ua = Literal::CreateR1<uint8_t>({0x80, 0x80, 0x01, 0xFF, 0x81});
  Literal ub = Literal::CreateR1<uint8_t>({1, 8, 7, 9, 0});
  CheckBinary(BIN(ShiftLeft), ua, ub, Literal::CreateR1<uint8_t>({0x00, 0x00, 0x80, 0x00, 0x81}));
  CheckBinary(BIN(ShiftRightLogical), ua, ub, Literal::CreateR1<uint8_t>({0x40, 0x00, 0x00, 0x00, 0x81}));
  // Arithmetic shifts of unsigned values shift in the top bit.
  CheckBinary(BIN(ShiftRightArithmetic), ua, ub, Literal::CreateR1<uint8_t>({0xC0, 0xFF, 0x00, 0xFF, 0x81}));

  Literal la = Literal::CreateR1<int64_t>({1, 1, -1, kS64Min, 3});
  Literal lb = Literal::CreateR1<int64_t>({63, 64, 63, 63, 65});
  CheckBinary(BIN(ShiftLeft), la, lb, Literal::CreateR1<int64_t>({kS64Min, 0, kS64Min, 0, 0}));
  CheckBinary(BIN(ShiftRightLogical), la, lb, Literal::CreateR1<int64_t>({0, 0, 1, 1, 0}));
  CheckBinary(BIN(ShiftRightArithmetic), la, lb, Literal::CreateR1<int64_t>({0, 0, -1, -1, 0}));
  CheckBinary(BIN(ShiftLeft), Literal::CreateR1<int16_t>({1, 1}), Literal::CreateR1<int16_t>({15, 16}),
              Literal::CreateR1<int16_t>({-32768, 0}));
}

TEST_P(ElementwiseTest, Atan2) {
  CheckBinary(BIN(Atan2), Literal::CreateR1<float>({1, 1, -1, 0, -0.0f, 0, 1, kInf, kNaN}),
              Literal::CreateR1<float>({1, -1, -1, -1, -1, 0, 0, kInf, 1}),
              Literal::CreateR1<float>({static_cast<float>(kPi / 4), static_cast<float>(3 * kPi / 4),
                                        static_cast<float>(-3 * kPi / 4), static_cast<float>(kPi),
                                        static_cast<float>(-kPi), 0, static_cast<float>(kPi / 2),
                                        static_cast<float>(kPi / 4), kNaN}),
              ErrorSpec{1e-6, 1e-6});
  // Signs of zero results are exact.
  CheckBinary(BIN(Atan2), Literal::CreateR1<float>({-0.0f, 0.0f}), Literal::CreateR1<float>({1, 1}),
              Literal::CreateR1<float>({-0.0f, 0.0f}));
  CheckBinary(BIN(Atan2), Literal::CreateR1<double>({1}), Literal::CreateR1<double>({-1}),
              Literal::CreateR1<double>({3 * kPi / 4}), ErrorSpec{1e-15, 1e-15});
}

TEST_P(ElementwiseTest, ComplexFromParts) {
  CheckBinary([](XlaOp re, XlaOp im) { return Complex(re, im); }, Literal::CreateR1<float>({1, 2}),
              Literal::CreateR1<float>({3, -4}), Literal::CreateR1<complex64>({{1, 3}, {2, -4}}));
  CheckBinary([](XlaOp re, XlaOp im) { return Complex(re, im); }, Literal::CreateR0<double>(0.5),
              Literal::CreateR1<double>({1, 2}), Literal::CreateR1<complex128>({{0.5, 1}, {0.5, 2}}));
  // Complex arithmetic.
  Literal a = Literal::CreateR1<complex64>({{1, 2}}), b = Literal::CreateR1<complex64>({{3, -1}});
  CheckBinary(BIN(Mul), a, b, Literal::CreateR1<complex64>({{5, 5}}));
  CheckBinary(BIN(Add), a, b, Literal::CreateR1<complex64>({{4, 1}}));
  CheckBinary(BIN(Div), a, b, Literal::CreateR1<complex64>({{0.1f, 0.7f}}), ErrorSpec{1e-6, 1e-6});
}

// --- Comparisons --------------------------------------------------------------

TEST_P(ElementwiseTest, CompareFloatAllDirections) {
  Literal a = Literal::CreateR1<float>({1, 2, 3, kNaN, -0.0f, kNaN, -kInf});
  Literal b = Literal::CreateR1<float>({2, 2, 1, 1, 0.0f, kNaN, -kInf});
  CheckBinary(BIN(Eq), a, b, Literal::CreateR1<bool>({false, true, false, false, true, false, true}));
  CheckBinary(BIN(Ne), a, b, Literal::CreateR1<bool>({true, false, true, true, false, true, false}));
  CheckBinary(BIN(Lt), a, b, Literal::CreateR1<bool>({true, false, false, false, false, false, false}));
  CheckBinary(BIN(Le), a, b, Literal::CreateR1<bool>({true, true, false, false, true, false, true}));
  CheckBinary(BIN(Gt), a, b, Literal::CreateR1<bool>({false, false, true, false, false, false, false}));
  CheckBinary(BIN(Ge), a, b, Literal::CreateR1<bool>({false, true, true, false, true, false, true}));
}

TEST_P(ElementwiseTest, CompareTotalOrder) {
  const float neg_nan = -std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(std::signbit(neg_nan));
  Literal a = Literal::CreateR1<float>({neg_nan, -kInf, -1, -0.0f, 0.0f, 1, kInf, kNaN, kNaN, -0.0f});
  Literal b = Literal::CreateR1<float>({-kInf, -1, -0.0f, 0.0f, 1, kInf, kNaN, kNaN, neg_nan, -0.0f});
  CheckBinary(BIN(LtTotalOrder), a, b,
              Literal::CreateR1<bool>({true, true, true, true, true, true, true, false, false, false}));
  CheckBinary(BIN(EqTotalOrder), a, b,
              Literal::CreateR1<bool>({false, false, false, false, false, false, false, true, false, true}));
  CheckBinary(BIN(NeTotalOrder), a, b,
              Literal::CreateR1<bool>({true, true, true, true, true, true, true, false, true, false}));
  CheckBinary(BIN(LeTotalOrder), a, b,
              Literal::CreateR1<bool>({true, true, true, true, true, true, true, true, false, true}));
  CheckBinary(BIN(GtTotalOrder), a, b,
              Literal::CreateR1<bool>({false, false, false, false, false, false, false, false, true, false}));
  CheckBinary(BIN(GeTotalOrder), a, b,
              Literal::CreateR1<bool>({false, false, false, false, false, false, false, true, true, true}));
  // f64 and bf16 follow the same order.
  CheckBinary(BIN(LtTotalOrder), Literal::CreateR1<double>({-0.0, kNaND, -kNaND}),
              Literal::CreateR1<double>({0.0, kInfD, -kInfD}), Literal::CreateR1<bool>({true, false, true}));
  CheckBinary(BIN(LtTotalOrder), Literal::CreateR1<bfloat16>({bfloat16(-0.0f), bfloat16(1.0f)}),
              Literal::CreateR1<bfloat16>({bfloat16(0.0f), bfloat16(kNaN)}), Literal::CreateR1<bool>({true, true}));
  // The IEEE forms on the same -0/+0 pair.
  CheckBinary(BIN(Lt), Literal::CreateR1<float>({-0.0f}), Literal::CreateR1<float>({0.0f}), Literal::CreateR1<bool>({false}));
}

TEST_P(ElementwiseTest, CompareIntegersAndPreds) {
  Literal sa = Literal::CreateR1<int32_t>({-1, 0, kS32Min, 5});
  Literal sb = Literal::CreateR1<int32_t>({0, 0, kS32Max, 4});
  CheckBinary(BIN(Lt), sa, sb, Literal::CreateR1<bool>({true, false, true, false}));
  CheckBinary(BIN(Ge), sa, sb, Literal::CreateR1<bool>({false, true, false, true}));
  // Unsigned order: 0xFFFFFFFF is larger than 0.
  Literal ua = Literal::CreateR1<uint32_t>({0xFFFFFFFFu, 0, 5});
  Literal ub = Literal::CreateR1<uint32_t>({0, 0, 6});
  CheckBinary(BIN(Lt), ua, ub, Literal::CreateR1<bool>({false, false, true}));
  CheckBinary(BIN(Gt), ua, ub, Literal::CreateR1<bool>({true, false, false}));
  CheckBinary(BIN(Eq), ua, ub, Literal::CreateR1<bool>({false, true, false}));
  CheckBinary(BIN(Ne), Literal::CreateR1<int64_t>({kS64Max, kS64Max}), Literal::CreateR1<int64_t>({kS64Max - 1, kS64Max}),
              Literal::CreateR1<bool>({true, false}));
  // false < true.
  Literal pa = Literal::CreateR1<bool>({false, true, false, true});
  Literal pb = Literal::CreateR1<bool>({false, false, true, true});
  CheckBinary(BIN(Lt), pa, pb, Literal::CreateR1<bool>({false, false, true, false}));
  CheckBinary(BIN(Eq), pa, pb, Literal::CreateR1<bool>({true, false, false, true}));
  CheckBinary(BIN(Ge), pa, pb, Literal::CreateR1<bool>({true, true, false, true}));
}

// --- Implicit broadcasting ----------------------------------------------------

TEST_P(ElementwiseTest, ScalarBroadcast) {
  Literal v = Literal::CreateR1<float>({1, 2, 3});
  CheckBinary(BIN(Add), Literal::CreateR0<float>(10), v, Literal::CreateR1<float>({11, 12, 13}));
  CheckBinary(BIN(Sub), v, Literal::CreateR0<float>(1), Literal::CreateR1<float>({0, 1, 2}));
  CheckBinary(BIN(Sub), Literal::CreateR0<float>(10), v, Literal::CreateR1<float>({9, 8, 7}));
  CheckBinary(BIN(Div), Literal::CreateR2<int32_t>({{10, 20}, {30, 40}}), Literal::CreateR0<int32_t>(10),
              Literal::CreateR2<int32_t>({{1, 2}, {3, 4}}));
  CheckBinary(BIN(Lt), Literal::CreateR0<float>(2), v, Literal::CreateR1<bool>({false, false, true}));
}

TEST_P(ElementwiseTest, MatrixPlusVectorOnEachDimension) {
  Literal m = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  // Vector of size 3 along dimension 1 (added to each row).
  CheckBinary([](XlaOp x, XlaOp y) { return Add(x, y, {1}); }, m, Literal::CreateR1<float>({10, 20, 30}),
              Literal::CreateR2<float>({{11, 22, 33}, {14, 25, 36}}));
  // Vector of size 2 along dimension 0 (added to each column).
  CheckBinary([](XlaOp x, XlaOp y) { return Add(x, y, {0}); }, m, Literal::CreateR1<float>({100, 200}),
              Literal::CreateR2<float>({{101, 102, 103}, {204, 205, 206}}));
  // The lower-rank operand on the left; order matters for Sub.
  CheckBinary([](XlaOp x, XlaOp y) { return Sub(x, y, {0}); }, Literal::CreateR1<float>({100, 200}), m,
              Literal::CreateR2<float>({{99, 98, 97}, {196, 195, 194}}));
  // Comparisons broadcast the same way.
  CheckBinary([](XlaOp x, XlaOp y) { return Gt(x, y, {1}); }, m, Literal::CreateR1<float>({0, 5, 5}),
              Literal::CreateR2<bool>({{true, false, false}, {true, false, true}}));
}

TEST_P(ElementwiseTest, DegenerateDimensions) {
  // f32[2,1] + f32[1,3] -> f32[2,3].
  CheckBinary(BIN(Add), Literal::CreateR2<float>({{1}, {2}}), Literal::CreateR2<float>({{10, 20, 30}}),
              Literal::CreateR2<float>({{11, 21, 31}, {12, 22, 32}}));
  // f32[2,3] * f32[2,1].
  CheckBinary(BIN(Mul), Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}), Literal::CreateR2<float>({{2}, {-1}}),
              Literal::CreateR2<float>({{2, 4, 6}, {-4, -5, -6}}));
  // A size-1 vector mapped onto dimension 1 of size 3 broadcasts along it.
  CheckBinary([](XlaOp x, XlaOp y) { return Add(x, y, {1}); }, Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}}),
              Literal::CreateR1<int32_t>({100}), Literal::CreateR2<int32_t>({{101, 102, 103}, {104, 105, 106}}));
}

TEST_P(ElementwiseTest, HigherRankBroadcastDimensions) {
  Literal t = Literal::CreateR3<int32_t>({{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}});
  // s32[2,3] onto dimensions {0, 2} of s32[2,2,3].
  CheckBinary([](XlaOp x, XlaOp y) { return Add(x, y, {0, 2}); }, t,
              Literal::CreateR2<int32_t>({{100, 200, 300}, {1000, 2000, 3000}}),
              Literal::CreateR3<int32_t>({{{101, 202, 303}, {104, 205, 306}}, {{1007, 2008, 3009}, {1010, 2011, 3012}}}));
  // s32[2] onto dimension 1.
  CheckBinary([](XlaOp x, XlaOp y) { return Mul(x, y, {1}); }, t, Literal::CreateR1<int32_t>({1, -1}),
              Literal::CreateR3<int32_t>({{{1, 2, 3}, {-4, -5, -6}}, {{7, 8, 9}, {-10, -11, -12}}}));
}

// --- Select and clamp -----------------------------------------------------------

TEST_P(ElementwiseTest, SelectDocExamples) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp pred = AddParam(&b, Literal::CreateR1<bool>({true, false, false, true}), &args);
  XlaOp v1 = AddParam(&b, Literal::CreateR1<int32_t>({1, 2, 3, 4}), &args);
  XlaOp v2 = AddParam(&b, Literal::CreateR1<int32_t>({100, 200, 300, 400}), &args);
  Select(pred, v1, v2);
  ComputeAndCompare(&b, args, Literal::CreateR1<int32_t>({1, 200, 300, 4}));

  for (bool p : {true, false}) {
    XlaBuilder bs(TestName() + (p ? "_true" : "_false"));
    std::vector<Literal> sargs;
    XlaOp sp = AddParam(&bs, Literal::CreateR0<bool>(p), &sargs);
    XlaOp s1 = AddParam(&bs, Literal::CreateR1<int32_t>({1, 2, 3, 4}), &sargs);
    XlaOp s2 = AddParam(&bs, Literal::CreateR1<int32_t>({100, 200, 300, 400}), &sargs);
    Select(sp, s1, s2);
    ComputeAndCompare(&bs, sargs,
                      p ? Literal::CreateR1<int32_t>({1, 2, 3, 4}) : Literal::CreateR1<int32_t>({100, 200, 300, 400}));
  }
}

TEST_P(ElementwiseTest, SelectFloatKeepsNaNAndSignedZero) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR2<float>({{kNaN, -0.0f}, {1, 2}}), &args);
  XlaOp y = AddParam(&b, Literal::CreateR2<float>({{0, 0}, {-1, -2}}), &args);
  Select(Ne(x, y), x, y);  // NaN != 0 is true; -0 != 0 is false.
  ComputeAndCompare(&b, args, Literal::CreateR2<float>({{kNaN, 0.0f}, {1, 2}}));
}

TEST_P(ElementwiseTest, SelectBetweenTuplesWithScalarPred) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp p = AddParam(&b, Literal::CreateR0<bool>(false), &args);
  XlaOp t1 = Tuple(&b, {ConstantR1<float>(&b, {1, 2}), ConstantR0<int32_t>(&b, 3)});
  XlaOp t2 = Tuple(&b, {ConstantR1<float>(&b, {4, 5}), ConstantR0<int32_t>(&b, 6)});
  Select(p, t1, t2);
  ComputeAndCompare(&b, args, Tuple2(Literal::CreateR1<float>({4, 5}), Literal::CreateR0<int32_t>(6)));
}

TEST_P(ElementwiseTest, ClampDocExampleAndForms) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp operand = AddParam(&b, Literal::CreateR1<int32_t>({-1, 5, 9}), &args);
  Clamp(ConstantR0<int32_t>(&b, 0), operand, ConstantR0<int32_t>(&b, 6));
  ComputeAndCompare(&b, args, Literal::CreateR1<int32_t>({0, 5, 6}));

  // Arrays for all three.
  XlaBuilder b2(TestName() + "_arrays");
  std::vector<Literal> args2;
  XlaOp lo = AddParam(&b2, Literal::CreateR1<float>({0, 1, 2}), &args2);
  XlaOp x = AddParam(&b2, Literal::CreateR1<float>({-5, 5, 2.5f}), &args2);
  XlaOp hi = AddParam(&b2, Literal::CreateR1<float>({1, 2, 3}), &args2);
  Clamp(lo, x, hi);
  ComputeAndCompare(&b2, args2, Literal::CreateR1<float>({0, 2, 2.5f}));

  // Scalar min, array max.
  XlaBuilder b3(TestName() + "_mixed");
  std::vector<Literal> args3;
  XlaOp x3 = AddParam(&b3, Literal::CreateR1<uint8_t>({0, 50, 250}), &args3);
  XlaOp hi3 = AddParam(&b3, Literal::CreateR1<uint8_t>({100, 40, 200}), &args3);
  Clamp(ConstantR0<uint8_t>(&b3, 10), x3, hi3);
  ComputeAndCompare(&b3, args3, Literal::CreateR1<uint8_t>({10, 40, 200}));

  // clamp(a, x, b) = min(max(a, x), b): NaN propagates.
  XlaBuilder b4(TestName() + "_nan");
  std::vector<Literal> args4;
  XlaOp x4 = AddParam(&b4, Literal::CreateR1<float>({-1, 0.5f, 2, kNaN}), &args4);
  Clamp(ConstantR0<float>(&b4, 0), x4, ConstantR0<float>(&b4, 1));
  ComputeAndCompare(&b4, args4, Literal::CreateR1<float>({0, 0.5f, 1, kNaN}));

  // min > max: min(max(5, x), 1) is 1 everywhere.
  XlaBuilder b5(TestName() + "_inverted");
  std::vector<Literal> args5;
  XlaOp x5 = AddParam(&b5, Literal::CreateR1<int32_t>({0, 3, 10}), &args5);
  Clamp(ConstantR0<int32_t>(&b5, 5), x5, ConstantR0<int32_t>(&b5, 1));
  ComputeAndCompare(&b5, args5, Literal::CreateR1<int32_t>({1, 1, 1}));
}

// --- ReducePrecision --------------------------------------------------------------

// To IEEE half and back: ties to even, beyond 65504 infinity, below the
// smallest normal (2^-14) zero: reduce-precision keeps no subnormals.
TEST_P(ElementwiseTest, ReducePrecisionToHalf) {
  const float ulp = std::ldexp(1.0f, -10);
  CheckUnary([](XlaOp x) { return ReducePrecision(x, 5, 10); },
             Literal::CreateR1<float>({1 + ulp / 2, 1 + 1.5f * ulp, 65504.0f, 65520.0f, -70000.0f,
                                       std::ldexp(1.0f, -14), std::ldexp(1.0f, -15), kNaN}),
             Literal::CreateR1<float>({1, 1 + 2 * ulp, 65504.0f, kInf, -kInf, std::ldexp(1.0f, -14), 0, kNaN}));
  // To bfloat16's format (e8m7) on f64: 1 + 2^-8 and 1 + 3 * 2^-8 are ties.
  CheckUnary([](XlaOp x) { return ReducePrecision(x, 8, 7); },
             Literal::CreateR1<double>({1.00390625, 1.01171875, 1e39, -1e-39}),
             Literal::CreateR1<double>({1.0, 1.015625, kInf, -0.0}));
}

TEST_P(ElementwiseTest, ReducePrecisionErrors) {
  XlaBuilder b(TestName());
  ReducePrecision(Parameter(&b, 0, ShapeUtil::MakeShape(S32, {2}), "x"), 5, 10);
  EXPECT_FALSE(b.Build().ok());
  XlaBuilder b2(TestName() + "_bits");
  ReducePrecision(Parameter(&b2, 0, ShapeUtil::MakeShape(F32, {2}), "x"), 0, 10);
  auto built = b2.Build();
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.status().message().find("exponent_bits must be at least 1"), std::string::npos) << built.status();
}

// --- RngBitGenerator -------------------------------------------------------------

// The 64-bit THREE_FRY stream of the conformance corpus's
// rng_bit_generator_uint64_2.mlir (values from XLA): state [3, 3] gives 3349939604322698703
// and the state [3, 4].
TEST_P(ElementwiseTest, RngBitGeneratorThreeFryMatchesXla) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp state = AddParam(&b, Literal::CreateR1<uint64_t>({3, 3}), &args);
  RngBitGenerator(RNG_THREE_FRY, state, ShapeUtil::MakeShape(U64, {}));
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR1<uint64_t>({3, 4}));
  expected.push_back(Literal::CreateR0<uint64_t>(3349939604322698703ULL));
  ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)));
}

// --- Convert ----------------------------------------------------------------------

TEST_P(ElementwiseTest, ConvertDocExample) {
  CheckUnary([](XlaOp x) { return ConvertElementType(x, F32); }, Literal::CreateR1<int32_t>({0, 1, 2}),
             Literal::CreateR1<float>({0, 1, 2}));
}

TEST_P(ElementwiseTest, ConvertFloatToIntTruncatesAndSaturates) {
  CheckUnary([](XlaOp x) { return ConvertElementType(x, S32); },
             Literal::CreateR1<float>({2.7f, -2.7f, 1e10f, -1e10f, kInf, -kInf, kNaN, 2147483520.0f, -2147483648.0f}),
             Literal::CreateR1<int32_t>({2, -2, kS32Max, kS32Min, kS32Max, kS32Min, 0, 2147483520, kS32Min}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, U8); }, Literal::CreateR1<float>({300, -5, 255.9f, kNaN, 1.5f}),
             Literal::CreateR1<uint8_t>({255, 0, 255, 0, 1}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, S8); }, Literal::CreateR1<float>({200, -200, -128.9f, 127.9f}),
             Literal::CreateR1<int8_t>({127, -128, -128, 127}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, S64); }, Literal::CreateR1<double>({1e19, -1e19, 9.2e18}),
             Literal::CreateR1<int64_t>({kS64Max, kS64Min, 9200000000000000000LL}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, U64); }, Literal::CreateR1<float>({-1, 1e20f, 4096.5f}),
             Literal::CreateR1<uint64_t>({0, ~uint64_t{0}, 4096}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, S16); },
             Literal::CreateR1<half>({half(-40000.0f), half(kInf), half(3.75f)}),
             Literal::CreateR1<int16_t>({-32768, 32767, 3}));
}

TEST_P(ElementwiseTest, ConvertBetweenIntegers) {
  CheckUnary([](XlaOp x) { return ConvertElementType(x, U8); }, Literal::CreateR1<int32_t>({257, -1, 128}),
             Literal::CreateR1<uint8_t>({1, 255, 128}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, S8); }, Literal::CreateR1<int32_t>({200, -129}),
             Literal::CreateR1<int8_t>({-56, 127}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, S32); }, Literal::CreateR1<uint32_t>({0xFFFFFFFFu}),
             Literal::CreateR1<int32_t>({-1}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, S32); }, Literal::CreateR1<int8_t>({-1, 127}),
             Literal::CreateR1<int32_t>({-1, 127}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, S32); }, Literal::CreateR1<uint8_t>({255}),
             Literal::CreateR1<int32_t>({255}));
  // Sign extension first, then reinterpretation.
  CheckUnary([](XlaOp x) { return ConvertElementType(x, U64); }, Literal::CreateR1<int32_t>({-1}),
             Literal::CreateR1<uint64_t>({~uint64_t{0}}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, S64); }, Literal::CreateR1<uint32_t>({0xFFFFFFFFu}),
             Literal::CreateR1<int64_t>({4294967295LL}));
}

TEST_P(ElementwiseTest, ConvertPred) {
  CheckUnary([](XlaOp x) { return ConvertElementType(x, PRED); }, Literal::CreateR1<int32_t>({0, 1, -3}),
             Literal::CreateR1<bool>({false, true, true}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, S32); }, Literal::CreateR1<bool>({true, false}),
             Literal::CreateR1<int32_t>({1, 0}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, F32); }, Literal::CreateR1<bool>({true, false}),
             Literal::CreateR1<float>({1, 0}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, PRED); }, Literal::CreateR1<float>({0, -0.0f, 0.5f, -2}),
             Literal::CreateR1<bool>({false, false, true, true}));
}

TEST_P(ElementwiseTest, ConvertIntToFloatRoundsToNearestEven) {
  CheckUnary([](XlaOp x) { return ConvertElementType(x, F32); },
             Literal::CreateR1<int32_t>({16777217, 16777219, -16777217, kS32Max}),
             Literal::CreateR1<float>({16777216.0f, 16777220.0f, -16777216.0f, 2147483648.0f}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, F32); }, Literal::CreateR1<uint32_t>({0xFFFFFFFFu}),
             Literal::CreateR1<float>({4294967296.0f}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, F64); }, Literal::CreateR1<int64_t>({kS64Min, (int64_t{1} << 53) + 1}),
             Literal::CreateR1<double>({-9223372036854775808.0, 9007199254740992.0}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, F16); }, Literal::CreateR1<int32_t>({70000, 2049, -3}),
             Literal::CreateR1<half>({half(kInf), half(2048.0f), half(-3.0f)}));
}

TEST_P(ElementwiseTest, ConvertFloatWidths) {
  // f32 -> bf16 rounds to nearest even: 1 + 2^-8 is a tie (down to 1),
  // 1 + 3 * 2^-8 is a tie (up to 1 + 2^-6).
  CheckUnary([](XlaOp x) { return ConvertElementType(x, BF16); },
             Literal::CreateR1<float>({1.0f, 1.00390625f, 1.01171875f, 1.005f, -0.0f, kInf, kNaN, 3.0e38f}),
             Literal::CreateR1<bfloat16>({bfloat16(1.0f), bfloat16(1.0f), bfloat16(1.015625f), bfloat16(1.0078125f),
                                          bfloat16(-0.0f), bfloat16(kInf), bfloat16(kNaN), bfloat16(3.0e38f)}));
  // f32 -> f16: overflow to inf, subnormals, ties to even.
  CheckUnary([](XlaOp x) { return ConvertElementType(x, F16); },
             Literal::CreateR1<float>({1.0f, 65504.0f, 65520.0f, 1e5f, -1e5f, 5.9604645e-8f, 1.00048828125f, 1e-9f}),
             Literal::CreateR1<half>({half(1.0f), half(65504.0f), half(kInf), half(kInf), half(-kInf),
                                      half(5.9604645e-8f), half(1.0f), half(0.0f)}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, F32); },
             Literal::CreateR1<half>({half(65504.0f), half(5.9604645e-8f), half(-2.5f)}),
             Literal::CreateR1<float>({65504.0f, 5.9604645e-8f, -2.5f}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, F32); }, Literal::CreateR1<bfloat16>({bfloat16(1.5f)}),
             Literal::CreateR1<float>({1.5f}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, BF16); }, Literal::CreateR1<half>({half(3.0f), half(-0.5f)}),
             Literal::CreateR1<bfloat16>({bfloat16(3.0f), bfloat16(-0.5f)}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, F32); }, Literal::CreateR1<double>({1e300, 0.1, -1e-50}),
             Literal::CreateR1<float>({kInf, 0.1f, -0.0f}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, F64); }, Literal::CreateR1<float>({0.1f}),
             Literal::CreateR1<double>({static_cast<double>(0.1f)}));
  CheckUnary([](XlaOp x) { return ConvertElementType(x, C64); }, Literal::CreateR1<float>({1.5f}),
             Literal::CreateR1<complex64>({{1.5f, 0}}));
}

// --- Bitcast-convert ---------------------------------------------------------------

TEST_P(ElementwiseTest, BitcastConvertSameWidth) {
  CheckUnary([](XlaOp x) { return BitcastConvertType(x, S32); }, Literal::CreateR1<float>({1.0f, -0.0f, kInf}),
             Literal::CreateR1<int32_t>({0x3F800000, kS32Min, 0x7F800000}));
  CheckUnary([](XlaOp x) { return BitcastConvertType(x, F32); }, Literal::CreateR1<uint32_t>({0x40490FDBu, 0xFF800000u}),
             Literal::CreateR1<float>({FloatFromBits(0x40490FDBu), -kInf}));
  CheckUnary([](XlaOp x) { return BitcastConvertType(x, S64); }, Literal::CreateR1<double>({1.0}),
             Literal::CreateR1<int64_t>({0x3FF0000000000000LL}));
  CheckUnary([](XlaOp x) { return BitcastConvertType(x, U16); }, Literal::CreateR1<half>({half(1.0f), half(-2.0f)}),
             Literal::CreateR1<uint16_t>({0x3C00, 0xC000}));
  CheckUnary([](XlaOp x) { return BitcastConvertType(x, S16); }, Literal::CreateR1<bfloat16>({bfloat16(1.0f)}),
             Literal::CreateR1<int16_t>({0x3F80}));
  CheckUnary([](XlaOp x) { return BitcastConvertType(x, U32); }, Literal::CreateR1<int32_t>({-1}),
             Literal::CreateR1<uint32_t>({0xFFFFFFFFu}));
}

TEST_P(ElementwiseTest, BitcastConvertDifferentWidth) {
  // f32[] -> f16[2]: the bytes of 0x3C004000 (little-endian) are the halves
  // 0x4000 (2.0) then 0x3C00 (1.0).
  CheckUnary([](XlaOp x) { return BitcastConvertType(x, F16); }, Literal::CreateR0<float>(FloatFromBits(0x3C004000u)),
             Literal::CreateR1<half>({half(2.0f), half(1.0f)}));
  // s32[2] -> s8[2,4].
  CheckUnary([](XlaOp x) { return BitcastConvertType(x, S8); }, Literal::CreateR1<int32_t>({0x01020304, -1}),
             Literal::CreateR2<int8_t>({{4, 3, 2, 1}, {-1, -1, -1, -1}}));
  // s8[2,4] -> s32[2].
  CheckUnary([](XlaOp x) { return BitcastConvertType(x, S32); },
             Literal::CreateR2<int8_t>({{4, 3, 2, 1}, {0, 0, 0, -128}}),
             Literal::CreateR1<int32_t>({0x01020304, kS32Min}));
  // u8[4] -> f32[].
  CheckUnary([](XlaOp x) { return BitcastConvertType(x, F32); }, Literal::CreateR1<uint8_t>({0, 0, 0x80, 0x3F}),
             Literal::CreateR0<float>(1.0f));
  // s64[] -> s32[2].
  CheckUnary([](XlaOp x) { return BitcastConvertType(x, S32); }, Literal::CreateR0<int64_t>(0x0000000200000001LL),
             Literal::CreateR1<int32_t>({1, 2}));
  // f32[3] -> f16[3,2] -> f32[3] is the identity on bits.
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<float>({1.5f, -0.0f, kNaN}), &args);
  XlaOp halves = BitcastConvertType(x, F16);
  BitcastConvertType(halves, F32);
  ComputeAndCompare(&b, args, Literal::CreateR1<float>({1.5f, -0.0f, kNaN}));
  XlaBuilder b2(TestName() + "_shape");
  std::vector<Literal> args2;
  BitcastConvertType(AddParam(&b2, Literal(ShapeUtil::MakeShape(F32, {10})), &args2), F16);
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b2.Build());
  ASSERT_OK_AND_ASSIGN(ProgramShape ps, c.GetProgramShape());
  EXPECT_EQ(ps.result().ToString(), "f16[10,2]");
}

// --- One semantics: what the builder accepts, the backend runs -----------------

// For every element-wise op and element type: either Build() rejects the
// combination, or the backend runs it (and agrees with the reference). An op
// that builds and then fails at run time means shape inference and the
// evaluator disagree about the op's domain.
TEST_P(ElementwiseTest, EveryAcceptedTypeCombinationRuns) {
  const std::vector<PrimitiveType> types = {PRED, S8, S16, S32, S64, U8, U16, U32, U64,
                                            F16, BF16, F32, F64, C64, C128};
  std::vector<std::pair<std::string, std::function<XlaOp(XlaOp)>>> unary = {
      {"abs", Abs}, {"cbrt", Cbrt}, {"ceil", Ceil}, {"clz", Clz}, {"cos", Cos}, {"erf", Erf},
      {"exp", Exp}, {"expm1", Expm1}, {"floor", Floor}, {"imag", Imag}, {"is-finite", IsFinite},
      {"log", Log}, {"log1p", Log1p}, {"logistic", Logistic}, {"neg", Neg}, {"not", Not},
      {"popcnt", PopulationCount}, {"real", Real}, {"round", Round}, {"round-even", RoundNearestEven},
      {"rsqrt", Rsqrt}, {"sign", Sign}, {"sin", Sin}, {"sqrt", Sqrt}, {"tan", Tan}, {"tanh", Tanh},
  };
  std::vector<std::pair<std::string, std::function<XlaOp(XlaOp, XlaOp)>>> binary = {
      {"add", BIN(Add)}, {"sub", BIN(Sub)}, {"mul", BIN(Mul)}, {"div", BIN(Div)}, {"rem", BIN(Rem)},
      {"pow", BIN(Pow)}, {"max", BIN(Max)}, {"min", BIN(Min)}, {"and", BIN(And)}, {"or", BIN(Or)},
      {"xor", BIN(Xor)}, {"shl", BIN(ShiftLeft)}, {"sra", BIN(ShiftRightArithmetic)},
      {"srl", BIN(ShiftRightLogical)}, {"atan2", BIN(Atan2)}, {"complex", BIN(Complex)},
      {"eq", BIN(Eq)}, {"lt", BIN(Lt)}, {"ge", BIN(Ge)}, {"lt-total-order", BIN(LtTotalOrder)},
      {"eq-total-order", BIN(EqTotalOrder)},
      {"select", [](XlaOp a, XlaOp b) { return Select(Lt(a, b), a, b); }},
      {"clamp", [](XlaOp a, XlaOp b) { return Clamp(a, b, b); }},
  };
  std::vector<std::string> failures;
  std::mt19937 rng(3);
  auto run = [&](const std::string& what, XlaBuilder* b, int num_params, PrimitiveType type) {
    absl::StatusOr<XlaComputation> c = b->Build();
    if (!c.ok()) return;  // rejected at build time: fine
    std::vector<Literal> args;
    for (int i = 0; i < num_params; ++i) {
      args.push_back(test::RandomLiteral(ShapeUtil::MakeShape(type, {3}), rng, 1, 3));
    }
    absl::StatusOr<Literal> r = ExecuteComputation(*c, args);
    if (!r.ok()) {
      failures.push_back(absl::StrCat(what, ": builds but fails to run: ", r.status().ToString()));
      return;
    }
    absl::StatusOr<Literal> ref = test::EvaluateWithReference(*c, args);
    if (!ref.ok()) {
      failures.push_back(absl::StrCat(what, ": reference evaluator fails: ", ref.status().ToString()));
    }
  };
  for (PrimitiveType t : types) {
    const std::string tn(primitive_util::LowercaseName(t));
    for (const auto& [name, op] : unary) {
      XlaBuilder b(absl::StrCat(TestName(), "_", name, "_", tn));
      op(Parameter(&b, 0, ShapeUtil::MakeShape(t, {3}), "x"));
      run(absl::StrCat(name, "(", tn, ")"), &b, 1, t);
    }
    for (const auto& [name, op] : binary) {
      XlaBuilder b(absl::StrCat(TestName(), "_", name, "_", tn));
      op(Parameter(&b, 0, ShapeUtil::MakeShape(t, {3}), "x"), Parameter(&b, 1, ShapeUtil::MakeShape(t, {3}), "y"));
      run(absl::StrCat(name, "(", tn, ", ", tn, ")"), &b, 2, t);
    }
    for (PrimitiveType to : types) {
      const std::string ton(primitive_util::LowercaseName(to));
      XlaBuilder b(absl::StrCat(TestName(), "_convert_", tn, "_", ton));
      ConvertElementType(Parameter(&b, 0, ShapeUtil::MakeShape(t, {3}), "x"), to);
      run(absl::StrCat("convert(", tn, " -> ", ton, ")"), &b, 1, t);
      if (primitive_util::ByteWidth(t) == primitive_util::ByteWidth(to)) {
        XlaBuilder bc(absl::StrCat(TestName(), "_bitcast_", tn, "_", ton));
        BitcastConvertType(Parameter(&bc, 0, ShapeUtil::MakeShape(t, {3}), "x"), to);
        run(absl::StrCat("bitcast-convert(", tn, " -> ", ton, ")"), &bc, 1, t);
      }
    }
  }
  EXPECT_TRUE(failures.empty()) << failures.size() << " accepted combinations fail at run time:\n  "
                                << absl::StrJoin(failures, "\n  ");
}

TEST_P(ElementwiseTest, TotalOrderComparisonsOnIntegersUseTheIntegerOrder) {
  // The TotalOrder forms add a total order for floats; on integers they are
  // the ordinary comparisons.
  Literal a = Literal::CreateR1<int32_t>({-1, 0, 5, kS32Min});
  Literal b = Literal::CreateR1<int32_t>({0, 0, 4, kS32Max});
  CheckBinary(BIN(LtTotalOrder), a, b, Literal::CreateR1<bool>({true, false, false, true}));
  CheckBinary(BIN(EqTotalOrder), a, b, Literal::CreateR1<bool>({false, true, false, false}));
  CheckBinary(BIN(GeTotalOrder), Literal::CreateR1<uint8_t>({255, 0}), Literal::CreateR1<uint8_t>({1, 1}),
              Literal::CreateR1<bool>({true, false}));
}

// --- Differential: random inputs against the reference evaluator ----------------

TEST_P(ElementwiseTest, RandomUnaryFloatOpsMatchReference) {
  std::vector<std::pair<const char*, std::function<XlaOp(XlaOp)>>> ops = {
      {"abs", Abs},     {"ceil", Ceil},   {"floor", Floor}, {"neg", Neg},     {"round", Round},
      {"rne", RoundNearestEven},          {"sign", Sign},   {"exp", Exp},     {"expm1", Expm1},
      {"log", Log},     {"log1p", Log1p}, {"sqrt", Sqrt},   {"rsqrt", Rsqrt}, {"cbrt", Cbrt},
      {"sin", Sin},     {"cos", Cos},     {"tan", Tan},     {"tanh", Tanh},   {"erf", Erf},
      {"logistic", Logistic},             {"is_finite", IsFinite},
  };
  int seed = 1;
  for (const auto& [name, op] : ops) {
    for (PrimitiveType type : {F32, F64, F16}) {
      SCOPED_TRACE(absl::StrCat(name, " ", primitive_util::LowercaseName(type)));
      XlaBuilder b(absl::StrCat(TestName(), "_", name));
      op(Parameter(&b, 0, ShapeUtil::MakeShape(type, {3, 5}), "x"));
      RandomSpec spec;
      spec.lo = -5;
      spec.hi = 5;
      spec.seed = seed++;
      CompareWithReferenceOnRandomInputs(&b, type == F16 ? ErrorSpec{1e-3, 1e-3} : ErrorSpec{1e-6, 1e-6}, spec);
    }
  }
}

TEST_P(ElementwiseTest, RandomBinaryOpsMatchReference) {
  std::vector<std::pair<const char*, std::function<XlaOp(XlaOp, XlaOp)>>> float_ops = {
      {"add", [](XlaOp a, XlaOp b) { return Add(a, b); }}, {"sub", [](XlaOp a, XlaOp b) { return Sub(a, b); }},
      {"mul", [](XlaOp a, XlaOp b) { return Mul(a, b); }}, {"div", [](XlaOp a, XlaOp b) { return Div(a, b); }},
      {"rem", [](XlaOp a, XlaOp b) { return Rem(a, b); }}, {"pow", [](XlaOp a, XlaOp b) { return Pow(a, b); }},
      {"max", [](XlaOp a, XlaOp b) { return Max(a, b); }}, {"min", [](XlaOp a, XlaOp b) { return Min(a, b); }},
      {"atan2", [](XlaOp a, XlaOp b) { return Atan2(a, b); }}, {"lt", [](XlaOp a, XlaOp b) { return Lt(a, b); }},
      {"ge_total", [](XlaOp a, XlaOp b) { return GeTotalOrder(a, b); }},
  };
  std::vector<std::pair<const char*, std::function<XlaOp(XlaOp, XlaOp)>>> int_ops = {
      {"add", [](XlaOp a, XlaOp b) { return Add(a, b); }}, {"mul", [](XlaOp a, XlaOp b) { return Mul(a, b); }},
      {"div", [](XlaOp a, XlaOp b) { return Div(a, b); }}, {"rem", [](XlaOp a, XlaOp b) { return Rem(a, b); }},
      {"and", [](XlaOp a, XlaOp b) { return And(a, b); }}, {"xor", [](XlaOp a, XlaOp b) { return Xor(a, b); }},
      {"shl", [](XlaOp a, XlaOp b) { return ShiftLeft(a, b); }},
      {"sra", [](XlaOp a, XlaOp b) { return ShiftRightArithmetic(a, b); }},
      {"srl", [](XlaOp a, XlaOp b) { return ShiftRightLogical(a, b); }},
      {"max", [](XlaOp a, XlaOp b) { return Max(a, b); }}, {"le", [](XlaOp a, XlaOp b) { return Le(a, b); }},
  };
  int seed = 100;
  for (const auto& [name, op] : float_ops) {
    SCOPED_TRACE(name);
    XlaBuilder b(absl::StrCat(TestName(), "_f32_", name));
    // Broadcast a row vector against a matrix, too.
    op(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4, 6}), "x"),
       Parameter(&b, 1, ShapeUtil::MakeShape(F32, {4, 6}), "y"));
    CompareWithReferenceOnRandomInputs(&b, ErrorSpec{1e-6, 1e-6}, RandomSpec{-4, 4, 3, static_cast<uint32_t>(seed++)});
  }
  for (const auto& [name, op] : int_ops) {
    for (PrimitiveType type : {S32, U8, S64}) {
      SCOPED_TRACE(absl::StrCat(name, " ", primitive_util::LowercaseName(type)));
      XlaBuilder b(absl::StrCat(TestName(), "_int_", name));
      op(Parameter(&b, 0, ShapeUtil::MakeShape(type, {5, 7}), "x"),
         Parameter(&b, 1, ShapeUtil::MakeShape(type, {5, 7}), "y"));
      CompareWithReferenceOnRandomInputs(&b, ErrorSpec{0, 0}, RandomSpec{-70, 70, 3, static_cast<uint32_t>(seed++)});
    }
  }
}

TEST_P(ElementwiseTest, RandomFusedExpressionMatchesReference) {
  // A small elementwise graph with broadcasts, converts and a select: the
  // kind of expression a compiling backend fuses.
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {8, 16}), "x");
  XlaOp bias = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {16}), "bias");
  XlaOp scale = Parameter(&b, 2, ShapeUtil::MakeShape(F32, {}), "scale");
  XlaOp y = Add(Mul(x, scale), bias, {1});
  XlaOp relu = Select(Gt(y, ConstantR0<float>(&b, 0)), y, Mul(y, ConstantR0<float>(&b, 0.1f)));
  XlaOp q = ConvertElementType(ConvertElementType(Tanh(relu), BF16), F32);
  Add(q, Exp(Neg(Abs(x))));
  CompareWithReferenceOnRandomInputs(&b, ErrorSpec{1e-6, 1e-6}, RandomSpec{-3, 3, 4, 7});
}

XLA_CLIENT_TEST_P(ElementwiseTest);

// The comparison helper other tests rely on must see every bit of a 64-bit
// integer (ExactlyEqual does; literal_comparison::Equal goes through double).
TEST(LiteralComparisonTest, EqualDistinguishesLargeIntegers) {
  Literal a = Literal::CreateR1<int64_t>({kS64Max});
  Literal b = Literal::CreateR1<int64_t>({kS64Max - 1});
  EXPECT_FALSE(test::ExactlyEqual(a, b).ok());
  EXPECT_FALSE(literal_comparison::Equal(a, b).ok()) << "int64 " << kS64Max << " compared equal to " << kS64Max - 1;
  Literal c = Literal::CreateR1<uint64_t>({~uint64_t{0}});
  Literal d = Literal::CreateR1<uint64_t>({~uint64_t{0} - 1});
  EXPECT_FALSE(literal_comparison::Equal(c, d).ok()) << "uint64 max compared equal to max - 1";
}

}  // namespace
}  // namespace xla
