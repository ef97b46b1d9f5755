// Tests of the reference evaluator: every op of the slice on real values,
// including the operation-semantics document's examples and corner cases.
#include "xla/evaluator/hlo_evaluator.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/casts.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

Shape S(const std::string& text) {
  auto s = ShapeUtil::ParseShape(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  return s.ok() ? *s : Shape();
}

// Builds one computation instruction by instruction.
class Builder {
 public:
  explicit Builder(std::string name) : comp_(std::make_unique<HloComputation>(std::move(name))) {}

  HloInstruction* Param(int64_t n, const std::string& shape) {
    return comp_->AddInstruction(HloInstruction::CreateParameter(n, S(shape), absl::StrCat("p", n)));
  }
  HloInstruction* Const(Literal literal) {
    return Named(comp_->AddInstruction(HloInstruction::CreateConstant(std::move(literal))));
  }
  HloInstruction* Op(HloOpcode opcode, const std::string& shape, std::vector<HloInstruction*> operands,
                     HloInstructionProto attrs = {}, std::vector<HloComputation*> called = {}) {
    return Named(comp_->AddInstruction(HloInstruction::Create(opcode, S(shape), operands, called, attrs)));
  }
  std::unique_ptr<HloComputation> Build(HloInstruction* root) {
    comp_->set_root_instruction(root);
    return std::move(comp_);
  }

 private:
  HloInstruction* Named(HloInstruction* i) {
    i->set_name(absl::StrCat(HloOpcodeString(i->opcode()), ".", next_++));
    return i;
  }
  std::unique_ptr<HloComputation> comp_;
  int next_ = 0;
};

absl::StatusOr<Literal> Eval(HloModule& module, std::vector<const Literal*> args) {
  return HloEvaluator().Evaluate(module, args);
}

// A module whose entry is `op(p0, p1, ...)` with parameters of the given shapes.
std::unique_ptr<HloModule> OneOp(HloOpcode opcode, const std::string& result,
                                 const std::vector<std::string>& params, HloInstructionProto attrs = {}) {
  auto module = std::make_unique<HloModule>("m");
  Builder b("entry");
  std::vector<HloInstruction*> ops;
  for (size_t i = 0; i < params.size(); ++i) ops.push_back(b.Param(i, params[i]));
  module->AddEntryComputation(b.Build(b.Op(opcode, result, ops, attrs)));
  return module;
}

// --- Attribute helpers ---------------------------------------------------------

HloInstructionProto Dims(std::vector<int64_t> dims) {
  HloInstructionProto a;
  for (int64_t d : dims) a.add_dimensions(d);
  return a;
}

HloInstructionProto Cmp(const std::string& direction, const std::string& type = "") {
  HloInstructionProto a;
  a.set_comparison_direction(direction);
  if (!type.empty()) a.set_comparison_type(type);
  return a;
}

HloInstructionProto SliceAttr(std::vector<std::array<int64_t, 3>> dims) {
  HloInstructionProto a;
  for (const auto& d : dims) {
    auto* sd = a.add_slice_dimensions();
    sd->set_start(d[0]);
    sd->set_limit(d[1]);
    sd->set_stride(d[2]);
  }
  return a;
}

HloInstructionProto PadAttr(std::vector<std::array<int64_t, 3>> dims) {
  HloInstructionProto a;
  for (const auto& d : dims) {
    auto* pd = a.mutable_padding_config()->add_dimensions();
    pd->set_edge_padding_low(d[0]);
    pd->set_edge_padding_high(d[1]);
    pd->set_interior_padding(d[2]);
  }
  return a;
}

HloInstructionProto DotAttr(std::vector<int64_t> lhs_batch, std::vector<int64_t> rhs_batch,
                            std::vector<int64_t> lhs_contract, std::vector<int64_t> rhs_contract) {
  HloInstructionProto a;
  auto* d = a.mutable_dot_dimension_numbers();
  for (int64_t x : lhs_batch) d->add_lhs_batch_dimensions(x);
  for (int64_t x : rhs_batch) d->add_rhs_batch_dimensions(x);
  for (int64_t x : lhs_contract) d->add_lhs_contracting_dimensions(x);
  for (int64_t x : rhs_contract) d->add_rhs_contracting_dimensions(x);
  return a;
}

template <typename T> Literal R1(std::initializer_list<T> v) { return Literal::CreateR1<T>(v); }
template <typename T> Literal R0(T v) { return Literal::CreateR0<T>(v); }

// Evaluates `op(args...)` with parameters shaped like the arguments.
absl::StatusOr<Literal> EvalOp(HloOpcode opcode, const std::string& result, const std::vector<Literal>& args,
                               HloInstructionProto attrs = {}) {
  HloModule module("m");
  Builder b("entry");
  std::vector<HloInstruction*> ops;
  for (size_t i = 0; i < args.size(); ++i) ops.push_back(b.Param(i, args[i].shape().ToString()));
  module.AddEntryComputation(b.Build(b.Op(opcode, result, ops, attrs)));
  std::vector<const Literal*> ptrs;
  for (const Literal& a : args) ptrs.push_back(&a);
  return HloEvaluator().Evaluate(module, ptrs);
}

#define EXPECT_LITERAL(expr, expected)                         \
  do {                                                         \
    absl::StatusOr<Literal> _r = (expr);                       \
    ASSERT_TRUE(_r.ok()) << _r.status();                       \
    EXPECT_EQ(*_r, (expected)) << "got " << _r->ToString();    \
  } while (0)

#define EXPECT_ERROR(expr, substring)                                                  \
  do {                                                                                 \
    absl::StatusOr<Literal> _r = (expr);                                               \
    ASSERT_FALSE(_r.ok()) << "unexpected success: " << _r->ToString();                 \
    EXPECT_NE(std::string(_r.status().message()).find(substring), std::string::npos)   \
        << _r.status();                                                                \
  } while (0)

// `name(p0, p1) = op(p0, p1)` on scalars of `type`.
std::unique_ptr<HloComputation> BinaryComputation(const std::string& name, HloOpcode opcode,
                                                  const std::string& type, bool swapped = false) {
  Builder b(name);
  HloInstruction* x = b.Param(0, type + "[]");
  HloInstruction* y = b.Param(1, type + "[]");
  return b.Build(swapped ? b.Op(opcode, type + "[]", {y, x}) : b.Op(opcode, type + "[]", {x, y}));
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// --- Elementwise unary ---------------------------------------------------------

TEST(UnaryTest, FloatRounding) {
  Literal x = R1<float>({-2.5f, -1.5f, -0.5f, -0.3f, 0.5f, 1.5f, 2.5f, 2.6f});
  EXPECT_LITERAL(EvalOp(HloOpcode::kRoundNearestAfz, "f32[8]", {x}),
                 R1<float>({-3, -2, -1, -0.0f, 1, 2, 3, 3}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kRoundNearestEven, "f32[8]", {x}),
                 R1<float>({-2, -2, -0.0f, -0.0f, 0, 2, 2, 3}));
  auto even = EvalOp(HloOpcode::kRoundNearestEven, "f32[8]", {x});
  ASSERT_TRUE(even.ok());
  EXPECT_TRUE(std::signbit(even->data<float>()[2]));  // -0.5 -> -0
  EXPECT_LITERAL(EvalOp(HloOpcode::kCeil, "f32[8]", {x}), R1<float>({-2, -1, -0.0f, -0.0f, 1, 2, 3, 3}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kFloor, "f32[8]", {x}), R1<float>({-3, -2, -1, -1, 0, 1, 2, 2}));
}

// The operation-semantics rules with XLA's choices: ties to even on the
// mantissa, overflow to signed infinity, everything at or below the reduced
// format's smallest normal exponent to signed zero, NaN kept (inf when no
// mantissa bits are left).
TEST(UnaryTest, ReducePrecision) {
  HloInstructionProto e5m10;
  e5m10.set_exponent_bits(5);
  e5m10.set_mantissa_bits(10);
  const double nan_bits = absl::bit_cast<double>(uint64_t{0x7FFFFFFFFFFFFFFF});
  auto f64 = EvalOp(HloOpcode::kReducePrecision, "f64[6]",
                    {R1<double>({std::numeric_limits<double>::infinity(), nan_bits, 4.9e-324, 0.0, 65505.0, 65520.0})},
                    e5m10);
  ASSERT_TRUE(f64.ok()) << f64.status();
  EXPECT_EQ(f64->data<double>()[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(absl::bit_cast<uint64_t>(f64->data<double>()[1]), uint64_t{0x7FFFFFFFFFFFFFFF});  // the input NaN
  EXPECT_EQ(f64->data<double>()[2], 0.0);
  EXPECT_EQ(f64->data<double>()[4], 65504.0);
  EXPECT_EQ(f64->data<double>()[5], std::numeric_limits<double>::infinity());

  const float ulp = std::ldexp(1.0f, -10);
  EXPECT_LITERAL(
      EvalOp(HloOpcode::kReducePrecision, "f32[8]",
             {R1<float>({1 + ulp / 2, 1 + 1.5f * ulp, 1 + 0.75f * ulp, std::ldexp(1.0f, -14),
                         std::ldexp(1.5f, -15), -65520.0f, -1e-6f, 65504.0f})},
             e5m10),
      R1<float>({1, 1 + 2 * ulp, 1 + ulp, std::ldexp(1.0f, -14), 0, -kInf, -0.0f, 65504.0f}));
  auto neg_zero = EvalOp(HloOpcode::kReducePrecision, "f32[1]", {R1<float>({-1e-6f})}, e5m10);
  ASSERT_TRUE(neg_zero.ok());
  EXPECT_TRUE(std::signbit(neg_zero->data<float>()[0]));

  HloInstructionProto e5m0;
  e5m0.set_exponent_bits(5);
  e5m0.set_mantissa_bits(0);
  EXPECT_LITERAL(EvalOp(HloOpcode::kReducePrecision, "f32[4]", {R1<float>({kNaN, 1.4f, 1.5f, 3.0f})}, e5m0),  // 3: the tie goes to the even exponent
                 R1<float>({kInf, 1, 2, 2}));

  HloInstructionProto e5m2;
  e5m2.set_exponent_bits(5);
  e5m2.set_mantissa_bits(2);
  EXPECT_LITERAL(EvalOp(HloOpcode::kReducePrecision, "bf16[3]",
                        {R1<bfloat16>({bfloat16(1.75f), bfloat16(1.875f), bfloat16(1.625f)})}, e5m2),
                 R1<bfloat16>({bfloat16(1.75f), bfloat16(2.0f), bfloat16(1.5f)}));
  // Wider than the source: a no-op.
  HloInstructionProto e11m52;
  e11m52.set_exponent_bits(11);
  e11m52.set_mantissa_bits(52);
  EXPECT_LITERAL(EvalOp(HloOpcode::kReducePrecision, "f16[3]", {R1<half>({half(0.1f), half(-6e-8f), half(65504)})},
                        e11m52),
                 R1<half>({half(0.1f), half(-6e-8f), half(65504)}));
  EXPECT_FALSE(EvalOp(HloOpcode::kReducePrecision, "s32[1]", {R1<int32_t>({1})}, e5m10).ok());
}

TEST(UnaryTest, FloatSignAbsNegate) {
  Literal x = R1<float>({-3.0f, -0.0f, 0.0f, 2.0f, kNaN, -kInf});
  auto sign = EvalOp(HloOpcode::kSign, "f32[6]", {x});
  ASSERT_TRUE(sign.ok());
  EXPECT_EQ(*sign, R1<float>({-1, -0.0f, 0, 1, kNaN, -1}));
  EXPECT_TRUE(std::signbit(sign->data<float>()[1]));
  EXPECT_FALSE(std::signbit(sign->data<float>()[2]));
  EXPECT_LITERAL(EvalOp(HloOpcode::kAbs, "f32[6]", {x}), R1<float>({3, 0, 0, 2, kNaN, kInf}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kNegate, "f32[6]", {x}), R1<float>({3, 0, -0.0f, -2, kNaN, kInf}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kIsFinite, "pred[6]", {x}),
                 R1<bool>({true, true, true, true, false, false}));
}

TEST(UnaryTest, FloatTranscendental) {
  Literal x = R1<double>({0.25, 1.0, 2.0});
  struct Case {
    HloOpcode op;
    double (*f)(double);
  };
  std::vector<Case> cases = {
      {HloOpcode::kExp, [](double v) { return std::exp(v); }},
      {HloOpcode::kExpm1, [](double v) { return std::expm1(v); }},
      {HloOpcode::kLog, [](double v) { return std::log(v); }},
      {HloOpcode::kLog1p, [](double v) { return std::log1p(v); }},
      {HloOpcode::kSqrt, [](double v) { return std::sqrt(v); }},
      {HloOpcode::kRsqrt, [](double v) { return 1 / std::sqrt(v); }},
      {HloOpcode::kCbrt, [](double v) { return std::cbrt(v); }},
      {HloOpcode::kSin, [](double v) { return std::sin(v); }},
      {HloOpcode::kCos, [](double v) { return std::cos(v); }},
      {HloOpcode::kTan, [](double v) { return std::tan(v); }},
      {HloOpcode::kTanh, [](double v) { return std::tanh(v); }},
      {HloOpcode::kErf, [](double v) { return std::erf(v); }},
      {HloOpcode::kLogistic, [](double v) { return 1 / (1 + std::exp(-v)); }},
  };
  for (const Case& c : cases) {
    auto r = EvalOp(c.op, "f64[3]", {x});
    ASSERT_TRUE(r.ok()) << HloOpcodeString(c.op) << ": " << r.status();
    for (int i = 0; i < 3; ++i) {
      EXPECT_DOUBLE_EQ(r->data<double>()[i], c.f(x.data<double>()[i])) << HloOpcodeString(c.op);
    }
  }
  // Specific values.
  EXPECT_LITERAL(EvalOp(HloOpcode::kSqrt, "f32[3]", {R1<float>({4, 9, -1})}), R1<float>({2, 3, kNaN}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kLog, "f32[2]", {R1<float>({0, 1})}), R1<float>({-kInf, 0}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kLogistic, "f32[3]", {R1<float>({0, -kInf, kInf})}), R1<float>({0.5f, 0, 1}));
}

TEST(UnaryTest, HalfAndBfloat16) {
  Literal h = R1<half>({half(1.5f), half(-2.25f), half(4.0f)});
  EXPECT_LITERAL(EvalOp(HloOpcode::kSqrt, "f16[3]", {h}),
                 R1<half>({half(std::sqrt(1.5f)), half(std::sqrt(-2.25f)), half(2.0f)}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kNegate, "f16[3]", {h}), R1<half>({half(-1.5f), half(2.25f), half(-4.0f)}));
  Literal b = R1<bfloat16>({bfloat16(2.5f), bfloat16(-0.5f)});
  EXPECT_LITERAL(EvalOp(HloOpcode::kRoundNearestEven, "bf16[2]", {b}), R1<bfloat16>({bfloat16(2), bfloat16(-0.0f)}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kExp, "bf16[2]", {b}),
                 R1<bfloat16>({bfloat16(std::exp(2.5f)), bfloat16(std::exp(-0.5f))}));
}

TEST(UnaryTest, Integers) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  Literal x = R1<int32_t>({-5, 0, 7, kMin});
  EXPECT_LITERAL(EvalOp(HloOpcode::kAbs, "s32[4]", {x}), R1<int32_t>({5, 0, 7, kMin}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kNegate, "s32[4]", {x}), R1<int32_t>({5, 0, -7, kMin}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kSign, "s32[4]", {x}), R1<int32_t>({-1, 0, 1, -1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kNot, "s32[4]", {x}), R1<int32_t>({4, -1, -8, 0x7fffffff}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kClz, "s32[4]", {x}), R1<int32_t>({0, 32, 29, 0}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kPopulationCount, "s32[4]", {x}), R1<int32_t>({31, 0, 3, 1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kClz, "u8[3]", {R1<uint8_t>({1, 0x80, 0})}), R1<uint8_t>({7, 0, 8}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kSign, "u16[2]", {R1<uint16_t>({0, 9})}), R1<uint16_t>({0, 1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kNegate, "s8[2]", {R1<int8_t>({-128, 5})}), R1<int8_t>({-128, -5}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kNot, "pred[2]", {R1<bool>({true, false})}), R1<bool>({false, true}));
}

TEST(UnaryTest, Complex) {
  Literal x = R1<complex64>({complex64(3, 4), complex64(-1, 0)});
  EXPECT_LITERAL(EvalOp(HloOpcode::kAbs, "f32[2]", {x}), R1<float>({5, 1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kReal, "f32[2]", {x}), R1<float>({3, -1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kImag, "f32[2]", {x}), R1<float>({4, 0}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kNegate, "c64[2]", {x}), R1<complex64>({complex64(-3, -4), complex64(1, -0.0f)}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kSign, "c64[2]", {x}), R1<complex64>({complex64(0.6f, 0.8f), complex64(-1, 0)}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kSqrt, "c64[2]", {x}),
                 R1<complex64>({std::sqrt(complex64(3, 4)), std::sqrt(complex64(-1, 0))}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kExp, "c64[2]", {x}),
                 R1<complex64>({std::exp(complex64(3, 4)), std::exp(complex64(-1, 0))}));
  Literal small = R1<complex128>({complex128(1e-10, 2e-10)});
  auto em1 = EvalOp(HloOpcode::kExpm1, "c128[1]", {small});
  ASSERT_TRUE(em1.ok());
  // exp(a)cos(b) - 1 ~ a + a^2/2 - b^2/2; exp(a)sin(b) ~ b + ab (naive exp(x)-1 loses all of it).
  EXPECT_NEAR(em1->data<complex128>()[0].real(), 1e-10 - 1.5e-20, 1e-26);
  EXPECT_NEAR(em1->data<complex128>()[0].imag(), 2e-10 + 2e-20, 1e-26);
  EXPECT_LITERAL(EvalOp(HloOpcode::kReal, "f32[2]", {R1<float>({1, 2})}), R1<float>({1, 2}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kImag, "f32[2]", {R1<float>({1, 2})}), R1<float>({0, 0}));
}

TEST(UnaryTest, InvalidTypesAreErrors) {
  EXPECT_ERROR(EvalOp(HloOpcode::kSqrt, "s32[1]", {R1<int32_t>({4})}), "not defined");
  EXPECT_ERROR(EvalOp(HloOpcode::kClz, "f32[1]", {R1<float>({4})}), "not defined");
  EXPECT_ERROR(EvalOp(HloOpcode::kAbs, "c64[1]", {R1<complex64>({complex64(1, 1)})}), "result type");
}

// --- Reference formulas at the edges ----------------------------------------------
// Each value pinned against long double (or libm) arithmetic: where a naive
// formula overflows, underflows or mishandles a special value.

// Distance in representable values between two finite floats (0: equal).
template <typename F> int64_t UlpDistance(F a, F b) {
  using I = std::conditional_t<sizeof(F) == 4, int32_t, int64_t>;
  auto key = [](F v) {
    I bits;
    std::memcpy(&bits, &v, sizeof v);
    return bits < 0 ? static_cast<int64_t>(std::numeric_limits<I>::min()) - bits : static_cast<int64_t>(bits);
  };
  return std::abs(key(a) - key(b));
}

// logistic(x) in long double: e^x / (1 + e^x), which does not overflow for x < 0.
long double LogisticLd(long double x) {
  return x < 0 ? std::exp(x) / (1 + std::exp(x)) : 1 / (1 + std::exp(-x));
}

TEST(EdgeValuesTest, LogisticNeverOverflows) {
  const std::vector<float> xs = {-100, -88.8f, -90, -95.5f, -103, -104, -110, -50, -10, -1, -1e-8f,
                                 0,    1e-8f,  1,   10,     20,    88,   100,  -0.0f};
  Literal x = Literal::CreateR1<float>(xs);
  auto r = EvalOp(HloOpcode::kLogistic, absl::StrCat("f32[", xs.size(), "]"), {x});
  ASSERT_TRUE(r.ok()) << r.status();
  for (size_t i = 0; i < xs.size(); ++i) {
    const float expected = static_cast<float>(LogisticLd(xs[i]));
    EXPECT_LE(UlpDistance(r->data<float>()[i], expected), 2)
        << "logistic(" << xs[i] << ") = " << r->data<float>()[i] << ", expected " << expected;
  }
  // 1/(1+e^100) = 3.72e-44, a subnormal: 27 * 2^-149 (1/(1+exp(-x)) gave 0).
  EXPECT_EQ(r->data<float>()[0], 27 * std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(r->data<float>()[0], static_cast<float>(LogisticLd(-100)));
  EXPECT_GT(r->data<float>()[4], 0.0f);  // -103: still a subnormal
  EXPECT_EQ(r->data<float>()[6], 0.0f);  // -110: below half the smallest subnormal
  EXPECT_LITERAL(EvalOp(HloOpcode::kLogistic, "f32[3]", {R1<float>({-kInf, kInf, kNaN})}), R1<float>({0, 1, kNaN}));

  // f64 between -745 and -709.8 (where e^-x overflows a double): subnormal results.
  auto d = EvalOp(HloOpcode::kLogistic, "f64[3]", {R1<double>({-720, -740, -30})});
  ASSERT_TRUE(d.ok()) << d.status();
  for (int i = 0; i < 3; ++i) {
    const double x = d->data<double>()[i];
    const double expected = static_cast<double>(LogisticLd(std::vector<long double>{-720, -740, -30}[i]));
    EXPECT_GT(x, 0.0);
    EXPECT_LE(UlpDistance(x, expected), 2) << x << " vs " << expected;
  }
  // bf16 has f32's exponent range: logistic(-90) = 8.2e-40 is a bf16 subnormal.
  auto b = EvalOp(HloOpcode::kLogistic, "bf16[2]", {R1<bfloat16>({bfloat16(-90.0f), bfloat16(-2.0f)})});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->data<bfloat16>()[0], bfloat16(static_cast<float>(LogisticLd(-90))));
  EXPECT_GT(static_cast<float>(b->data<bfloat16>()[0]), 0.0f);
  EXPECT_EQ(b->data<bfloat16>()[1], bfloat16(static_cast<float>(LogisticLd(-2))));
  auto h = EvalOp(HloOpcode::kLogistic, "f16[2]", {R1<half>({half(-10.0f), half(3.0f)})});
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->data<half>()[0], half(static_cast<float>(LogisticLd(-10))));  // an f16 subnormal
  EXPECT_EQ(h->data<half>()[1], half(static_cast<float>(LogisticLd(3))));
}

TEST(EdgeValuesTest, ComplexLogistic) {
  // Re(x) < -88.7: e^-x overflows c64; the result is e^x (times 1/(1+e^x) = 1).
  const std::vector<complex64> xs = {{-100, 1}, {-100, 0}, {-95, -2.5f}, {-1000, 2.5f}, {0.5f, -1}, {-3, 0.25f}};
  auto r = EvalOp(HloOpcode::kLogistic, "c64[6]", {Literal::CreateR1<complex64>(xs)});
  ASSERT_TRUE(r.ok()) << r.status();
  for (size_t i = 0; i < xs.size(); ++i) {
    const std::complex<long double> x(xs[i].real(), xs[i].imag());
    const std::complex<long double> e = std::exp(x);
    const std::complex<long double> ld = xs[i].real() < 0 ? e / (1.0L + e) : 1.0L / (1.0L + std::exp(-x));
    const complex64 got = r->data<complex64>()[i];
    EXPECT_LE(UlpDistance(got.real(), static_cast<float>(ld.real())), 2) << i << ": " << got.real();
    EXPECT_LE(UlpDistance(got.imag(), static_cast<float>(ld.imag())), 2) << i << ": " << got.imag();
  }
  EXPECT_GT(r->data<complex64>()[0].real(), 0.0f);  // was 0
  EXPECT_EQ(r->data<complex64>()[1], complex64(27 * std::numeric_limits<float>::denorm_min(), 0));
  // -1000 + 2.5i: exactly zero, with the signs of e^x = e^-1000 (cos 2.5, sin 2.5).
  EXPECT_TRUE(std::signbit(r->data<complex64>()[3].real()));
  EXPECT_FALSE(std::signbit(r->data<complex64>()[3].imag()));
  auto d = EvalOp(HloOpcode::kLogistic, "c128[1]", {R1<complex128>({complex128(-720, 0.5)})});
  ASSERT_TRUE(d.ok()) << d.status();
  const std::complex<long double> e = std::exp(std::complex<long double>(-720, 0.5));
  EXPECT_LE(UlpDistance(d->data<complex128>()[0].real(), static_cast<double>(e.real())), 1);
  EXPECT_LE(UlpDistance(d->data<complex128>()[0].imag(), static_cast<double>(e.imag())), 1);
}

TEST(EdgeValuesTest, ComplexSignScalesBeforeDividing) {
  const float kMax = std::numeric_limits<float>::max(), kDen = std::numeric_limits<float>::denorm_min();
  auto r = EvalOp(HloOpcode::kSign, "c64[5]",
                  {R1<complex64>({complex64(kMax, kMax), complex64(kDen, kDen), complex64(-3 * kDen, 4 * kDen),
                                  complex64(kMax, -1), complex64(3, -4)})});
  ASSERT_TRUE(r.ok()) << r.status();
  const float h = static_cast<float>(1 / std::sqrt(2.0L));
  for (int i = 0; i < 2; ++i) {  // |x| overflowed: was (0, 0); |x| subnormal: was (1, 1)
    EXPECT_LE(UlpDistance(r->data<complex64>()[i].real(), h), 1) << r->data<complex64>()[i].real();
    EXPECT_LE(UlpDistance(r->data<complex64>()[i].imag(), h), 1) << r->data<complex64>()[i].imag();
  }
  EXPECT_EQ(r->data<complex64>()[2], complex64(-0.6f, 0.8f));
  EXPECT_EQ(r->data<complex64>()[3].real(), 1.0f);
  EXPECT_LT(r->data<complex64>()[3].imag(), 0.0f);
  EXPECT_EQ(r->data<complex64>()[4], complex64(0.6f, -0.8f));
  const double kDMax = std::numeric_limits<double>::max();
  auto d = EvalOp(HloOpcode::kSign, "c128[1]", {R1<complex128>({complex128(kDMax, -kDMax)})});
  ASSERT_TRUE(d.ok()) << d.status();
  const double hd = static_cast<double>(1 / std::sqrt(2.0L));
  EXPECT_LE(UlpDistance(d->data<complex128>()[0].real(), hd), 1);
  EXPECT_LE(UlpDistance(d->data<complex128>()[0].imag(), -hd), 1);
}

// The principal cube root in long double polar form.
std::complex<long double> CbrtLd(std::complex<long double> x) {
  return std::polar(std::cbrt(std::abs(x)), std::arg(x) / 3);
}

TEST(EdgeValuesTest, ComplexCbrtIsThePrincipalCubeRoot) {
  // StableHLO's interpret test: cbrt(3 + 4i).
  auto c = EvalOp(HloOpcode::kCbrt, "c128[1]", {R1<complex128>({complex128(3, 4)})});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_LE(UlpDistance(c->data<complex128>()[0].real(), 1.6289371459221759), 2);
  EXPECT_LE(UlpDistance(c->data<complex128>()[0].imag(), 0.5201745023045458), 2);
  // Every quadrant and magnitude, |x| overflowing or subnormal included.
  const double kDMax = std::numeric_limits<double>::max(), kDDen = std::numeric_limits<double>::denorm_min();
  std::vector<complex128> xs = {{-8, 0}, {0, 8}, {0, -8}, {-1, -1e-300}, {kDMax, kDMax}, {-kDMax, 1},
                                {3 * kDDen, -5 * kDDen}, {1e-300, 1e300}, {0.5, -2}, {-7, 3}};
  auto d = EvalOp(HloOpcode::kCbrt, "c128[10]", {Literal::CreateR1<complex128>(xs)});
  ASSERT_TRUE(d.ok()) << d.status();
  for (size_t i = 0; i < xs.size(); ++i) {
    const std::complex<long double> e = CbrtLd({xs[i].real(), xs[i].imag()});
    const complex128 got = d->data<complex128>()[i];
    EXPECT_LE(UlpDistance(got.real(), static_cast<double>(e.real())), 4) << xs[i] << " -> " << got;
    EXPECT_LE(UlpDistance(got.imag(), static_cast<double>(e.imag())), 4) << xs[i] << " -> " << got;
  }
  // c64 is computed in double and rounded once.
  std::vector<complex64> fs = {{3, 4}, {-8, 0}, {-1, -1e-30f}, {3.4e38f, 3.4e38f}, {1e-45f, 0}, {-7, 3}};
  auto f = EvalOp(HloOpcode::kCbrt, "c64[6]", {Literal::CreateR1<complex64>(fs)});
  ASSERT_TRUE(f.ok()) << f.status();
  for (size_t i = 0; i < fs.size(); ++i) {
    const std::complex<long double> e = CbrtLd({fs[i].real(), fs[i].imag()});
    const complex64 got = f->data<complex64>()[i];
    EXPECT_LE(UlpDistance(got.real(), static_cast<float>(e.real())), 1) << fs[i] << " -> " << got;
    EXPECT_LE(UlpDistance(got.imag(), static_cast<float>(e.imag())), 1) << fs[i] << " -> " << got;
  }
  // Special values: real infinities stay on their ray (no inf * 0 = NaN part).
  auto s = EvalOp(HloOpcode::kCbrt, "c64[5]",
                  {R1<complex64>({complex64(kInf, 0), complex64(kInf, -0.0f), complex64(0, 0), complex64(-kInf, 0),
                                  complex64(std::nanf(""), 1)})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->data<complex64>()[0], complex64(kInf, 0));
  EXPECT_TRUE(std::signbit(s->data<complex64>()[1].imag()));
  EXPECT_EQ(s->data<complex64>()[2], complex64(0, 0));
  EXPECT_EQ(s->data<complex64>()[3], complex64(kInf, kInf));  // e^(i pi/3) ray
  EXPECT_TRUE(std::isnan(s->data<complex64>()[4].real()));
  EXPECT_TRUE(std::isnan(s->data<complex64>()[4].imag()));
}

TEST(EdgeValuesTest, ComplexExpm1WhereExpOverflows) {
  auto r = EvalOp(HloOpcode::kExpm1, "c64[5]",
                  {R1<complex64>({complex64(88.75f, 2.5f), complex64(100, 0), complex64(100, -0.0f),
                                  complex64(kInf, 0), complex64(-kInf, 0)})});
  ASSERT_TRUE(r.ok()) << r.status();
  // e^88.75 = 3.5e38 overflows f32, but e^88.75 cos 2.5 and e^88.75 sin 2.5 do not (were -inf, inf).
  const long double e = std::exp(88.75L);
  EXPECT_LE(UlpDistance(r->data<complex64>()[0].real(), static_cast<float>(e * std::cos(2.5L) - 1)), 1);
  EXPECT_LE(UlpDistance(r->data<complex64>()[0].imag(), static_cast<float>(e * std::sin(2.5L))), 1);
  // Real arguments stay real (the imaginary part was inf * 0 = NaN).
  EXPECT_EQ(r->data<complex64>()[1], complex64(kInf, 0));
  EXPECT_FALSE(std::signbit(r->data<complex64>()[1].imag()));
  EXPECT_TRUE(std::signbit(r->data<complex64>()[2].imag()));
  EXPECT_EQ(r->data<complex64>()[3], complex64(kInf, 0));
  EXPECT_EQ(r->data<complex64>()[4], complex64(-1, 0));
  auto d = EvalOp(HloOpcode::kExpm1, "c128[1]", {R1<complex128>({complex128(710, 3)})});
  ASSERT_TRUE(d.ok()) << d.status();
  const long double ed = std::exp(710.0L);
  EXPECT_LE(UlpDistance(d->data<complex128>()[0].real(), static_cast<double>(ed * std::cos(3.0L) - 1)), 1);
  EXPECT_LE(UlpDistance(d->data<complex128>()[0].imag(), static_cast<double>(ed * std::sin(3.0L))), 1);
}

TEST(EdgeValuesTest, ComplexLog1pLargeAndNearMinusOne) {
  const float kMax = std::numeric_limits<float>::max();
  const std::vector<complex64> xs = {{1e20f, 0},          {kMax / 4, kMax / 4}, {-1, 1e-10f}, {-1 + 0x1p-20f, 0},
                                     {-1.1f, 0.01f},      {1e-30f, 1e-30f},     {0.5f, 0.5f}, {-0.5f, 0},
                                     {-2.5f, -0.0f},      {3, -4}};
  auto r = EvalOp(HloOpcode::kLog1p, absl::StrCat("c64[", xs.size(), "]"), {Literal::CreateR1<complex64>(xs)});
  ASSERT_TRUE(r.ok()) << r.status();
  for (size_t i = 0; i < xs.size(); ++i) {
    // log(1 + x) with 1 + x exact in long double for these inputs.
    const std::complex<long double> ld =
        std::log(std::complex<long double>(1.0L + xs[i].real(), xs[i].imag()));
    const complex64 got = r->data<complex64>()[i];
    const float re = i == 5 ? 1e-30f : static_cast<float>(ld.real());  // log1p(2e-30)/2, below ld's 1 + x
    EXPECT_LE(UlpDistance(got.real(), re), 2) << i << ": " << got.real() << " vs " << re;
    EXPECT_LE(UlpDistance(got.imag(), static_cast<float>(ld.imag())), 2) << i << ": " << got.imag();
  }
  EXPECT_NEAR(r->data<complex64>()[0].real(), 46.0517f, 1e-4);      // was inf
  EXPECT_NEAR(r->data<complex64>()[2].real(), -23.02585f, 1e-4);    // log(1e-10), was -inf
  EXPECT_NEAR(r->data<complex64>()[3].real(), -13.862944f, 1e-5);   // log(2^-20), was -inf
  EXPECT_TRUE(std::signbit(r->data<complex64>()[8].imag()));        // branch cut: -pi for -0
  auto d = EvalOp(HloOpcode::kLog1p, "c128[2]", {R1<complex128>({complex128(1e200, 0), complex128(-1, 1e-200)})});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_DOUBLE_EQ(d->data<complex128>()[0].real(), 200 * std::log(10.0));
  EXPECT_DOUBLE_EQ(d->data<complex128>()[1].real(), -200 * std::log(10.0));
  EXPECT_DOUBLE_EQ(d->data<complex128>()[1].imag(), std::acos(-1.0) / 2);
}

// Formulas audited and found right; pinned so they stay so.
TEST(EdgeValuesTest, RealFormulasAtSpecialValues) {
  auto one = [](HloOpcode op, float x) {
    auto r = EvalOp(op, "f32[1]", {R1<float>({x})});
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->data<float>()[0] : kNaN;
  };
  EXPECT_EQ(one(HloOpcode::kExpm1, 1e-10f), std::expm1(1e-10f));  // not exp(x) - 1 = 0
  EXPECT_EQ(one(HloOpcode::kExpm1, -kInf), -1.0f);
  EXPECT_EQ(one(HloOpcode::kLog1p, 1e-30f), 1e-30f);
  EXPECT_EQ(one(HloOpcode::kLog1p, -1.0f), -kInf);
  EXPECT_TRUE(std::isnan(one(HloOpcode::kLog1p, -2.0f)));
  EXPECT_EQ(one(HloOpcode::kTanh, 20.0f), 1.0f);
  EXPECT_EQ(one(HloOpcode::kTanh, -kInf), -1.0f);
  EXPECT_TRUE(std::signbit(one(HloOpcode::kTanh, -0.0f)));
  EXPECT_EQ(one(HloOpcode::kRsqrt, -0.0f), -kInf);
  EXPECT_EQ(one(HloOpcode::kRsqrt, kInf), 0.0f);
  EXPECT_EQ(one(HloOpcode::kRsqrt, std::numeric_limits<float>::denorm_min()),
            static_cast<float>(1 / std::sqrt(static_cast<long double>(std::numeric_limits<float>::denorm_min()))));
  EXPECT_EQ(one(HloOpcode::kCbrt, -27.0f), -3.0f);
  EXPECT_EQ(one(HloOpcode::kErf, -kInf), -1.0f);
  EXPECT_EQ(one(HloOpcode::kErf, 10.0f), 1.0f);
  EXPECT_TRUE(std::signbit(one(HloOpcode::kErf, -0.0f)));
  EXPECT_TRUE(std::signbit(one(HloOpcode::kSqrt, -0.0f)));
  EXPECT_TRUE(std::signbit(one(HloOpcode::kSign, -0.0f)));
  EXPECT_EQ(one(HloOpcode::kExp, 89.0f), kInf);
  EXPECT_EQ(one(HloOpcode::kExp, -103.0f), std::numeric_limits<float>::denorm_min());  // e^-103 = 1.8e-45
  EXPECT_EQ(one(HloOpcode::kExp, -104.0f), 0.0f);  // e^-104 = 6.8e-46, below half of it
  // Round-nearest-even (checked against nearbyint over every f32 once).
  EXPECT_LITERAL(EvalOp(HloOpcode::kRoundNearestEven, "f32[8]",
                        {R1<float>({0.49999997f, -0.49999997f, 8388609.0f, -8388609.5f, 16777215.0f, 3.5f, -4.5f,
                                    1e30f})}),
                 R1<float>({0, -0.0f, 8388609.0f, -8388610.0f, 16777215.0f, 4, -4, 1e30f}));

  // Binary: atan2 and pow at signed zeros and infinities (C99 Annex F), remainder.
  auto two = [](HloOpcode op, float a, float b) {
    auto r = EvalOp(op, "f32[1]", {R1<float>({a}), R1<float>({b})});
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->data<float>()[0] : kNaN;
  };
  const float kPi = static_cast<float>(std::acos(-1.0L));
  EXPECT_EQ(two(HloOpcode::kAtan2, 0.0f, -0.0f), kPi);
  EXPECT_EQ(two(HloOpcode::kAtan2, -0.0f, -0.0f), -kPi);
  EXPECT_TRUE(std::signbit(two(HloOpcode::kAtan2, -0.0f, 1.0f)));
  EXPECT_EQ(two(HloOpcode::kAtan2, kInf, -kInf), static_cast<float>(3 * std::acos(-1.0L) / 4));
  EXPECT_EQ(two(HloOpcode::kAtan2, 1e-30f, 1e30f), 1e-60f);  // underflows to 0 as it should
  EXPECT_EQ(two(HloOpcode::kPower, -0.0f, -1.0f), -kInf);
  EXPECT_EQ(two(HloOpcode::kPower, kNaN, 0.0f), 1.0f);
  EXPECT_EQ(two(HloOpcode::kPower, -1.0f, kInf), 1.0f);
  EXPECT_EQ(two(HloOpcode::kPower, 10.0f, 39.0f), kInf);
  EXPECT_EQ(two(HloOpcode::kPower, 10.0f, -45.0f), std::pow(10.0f, -45.0f));  // subnormal
  EXPECT_TRUE(std::isnan(two(HloOpcode::kPower, -8.0f, 1.0f / 3)));
  EXPECT_TRUE(std::signbit(two(HloOpcode::kRemainder, -0.0f, 1.0f)));
  EXPECT_EQ(two(HloOpcode::kRemainder, 5.0f, kInf), 5.0f);
  EXPECT_TRUE(std::isnan(two(HloOpcode::kRemainder, kInf, 2.0f)));
  EXPECT_EQ(two(HloOpcode::kRemainder, 1e30f, 3.0f), std::fmod(1e30f, 3.0f));  // exact, not 1e30 - 3*floor(..)
}

// Integer division, remainder and shifts at the edges of every width.
TEST(EdgeValuesTest, IntegerDivisionAndShiftsEveryWidth) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kDivide, "s16[3]", {R1<int16_t>({-32768, -32768, 9}), R1<int16_t>({-1, 0, 0})}),
                 R1<int16_t>({-32768, -1, -1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kRemainder, "s16[2]", {R1<int16_t>({-32768, -32768}), R1<int16_t>({-1, 0})}),
                 R1<int16_t>({0, -32768}));
  const int64_t kMin64 = std::numeric_limits<int64_t>::min();
  EXPECT_LITERAL(EvalOp(HloOpcode::kDivide, "s64[2]", {R1<int64_t>({kMin64, kMin64}), R1<int64_t>({-1, 2})}),
                 R1<int64_t>({kMin64, kMin64 / 2}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kRemainder, "s64[1]", {R1<int64_t>({kMin64}), R1<int64_t>({-1})}),
                 R1<int64_t>({0}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kRemainder, "s8[2]", {R1<int8_t>({-128, -7}), R1<int8_t>({-1, 3})}),
                 R1<int8_t>({0, -1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDivide, "u64[1]", {R1<uint64_t>({5}), R1<uint64_t>({0})}),
                 R1<uint64_t>({std::numeric_limits<uint64_t>::max()}));
  // Shift counts are unsigned: negative and >= width give 0 (or the sign fill).
  EXPECT_LITERAL(EvalOp(HloOpcode::kShiftLeft, "s64[4]", {R1<int64_t>({1, 1, 1, 3}), R1<int64_t>({63, 64, -1, 1})}),
                 R1<int64_t>({kMin64, 0, 0, 6}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kShiftRightArithmetic, "s64[3]",
                        {R1<int64_t>({kMin64, kMin64, 5}), R1<int64_t>({63, 64, 64})}),
                 R1<int64_t>({-1, -1, 0}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kShiftRightLogical, "u64[3]",
                        {R1<uint64_t>({~0ull, ~0ull, ~0ull}), R1<uint64_t>({63, 64, ~0ull})}),
                 R1<uint64_t>({1, 0, 0}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kShiftLeft, "s8[3]", {R1<int8_t>({1, 1, -1}), R1<int8_t>({7, 8, -128})}),
                 R1<int8_t>({-128, 0, 0}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kShiftRightArithmetic, "s16[2]", {R1<int16_t>({-2, -2}), R1<int16_t>({15, -1})}),
                 R1<int16_t>({-1, -1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kShiftRightLogical, "s16[2]", {R1<int16_t>({-2, -2}), R1<int16_t>({15, 16})}),
                 R1<int16_t>({1, 0}));
}

// Convert rounds once (Literal::Convert): through float, s32 16842753 became
// 16777216 in bf16 and f64 1 + 2^-8 + 2^-40 became 1.
TEST(EdgeValuesTest, ConvertToBfloat16RoundsOnce) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kConvert, "bf16[2]", {R1<int32_t>({(1 << 24) + (1 << 16) + 1, -3})}),
                 R1<bfloat16>({bfloat16(16908288.0f), bfloat16(-3.0f)}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kConvert, "bf16[1]", {R1<double>({1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)})}),
                 R1<bfloat16>({bfloat16(1.0078125f)}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kConvert, "f16[1]", {R1<double>({1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)})}),
                 R1<half>({half(1.0009765625f)}));
}

// Complex formulas audited and found right (glibc's cexp/clog/csqrt/cabs and
// the compiler's C99 Annex G division scale instead of overflowing).
TEST(EdgeValuesTest, ComplexLibraryFormulasDoNotOverflow) {
  const float kMax = std::numeric_limits<float>::max();
  auto abs = EvalOp(HloOpcode::kAbs, "f32[2]", {R1<complex64>({complex64(kMax / 2, kMax / 2), complex64(3e-45f, 4e-45f)})});
  ASSERT_TRUE(abs.ok()) << abs.status();
  EXPECT_EQ(abs->data<float>()[0], static_cast<float>(std::hypot(static_cast<long double>(kMax / 2),
                                                                 static_cast<long double>(kMax / 2))));
  EXPECT_GT(abs->data<float>()[1], 0.0f);
  auto div = EvalOp(HloOpcode::kDivide, "c64[2]",
                    {R1<complex64>({complex64(1e30f, 1e30f), complex64(1, 0)}),
                     R1<complex64>({complex64(1e30f, 1e30f), complex64(1e-30f, 1e-30f)})});
  ASSERT_TRUE(div.ok()) << div.status();
  EXPECT_EQ(div->data<complex64>()[0], complex64(1, 0));
  EXPECT_FLOAT_EQ(div->data<complex64>()[1].real(), 5e29f);
  EXPECT_FLOAT_EQ(div->data<complex64>()[1].imag(), -5e29f);
  auto exp = EvalOp(HloOpcode::kExp, "c64[1]", {R1<complex64>({complex64(88.8f, 1.5f)})});
  ASSERT_TRUE(exp.ok()) << exp.status();
  EXPECT_LE(UlpDistance(exp->data<complex64>()[0].real(), static_cast<float>(std::exp(static_cast<long double>(88.8f)) * std::cos(1.5L))), 2);
  auto log = EvalOp(HloOpcode::kLog, "c64[2]", {R1<complex64>({complex64(kMax, kMax), complex64(-1, -0.0f)})});
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_FLOAT_EQ(log->data<complex64>()[0].real(),
                  static_cast<float>(std::log(static_cast<long double>(kMax)) + std::log(2.0L) / 2));
  EXPECT_EQ(log->data<complex64>()[1].imag(), -static_cast<float>(std::acos(-1.0L)));
  auto sqrt = EvalOp(HloOpcode::kSqrt, "c64[1]", {R1<complex64>({complex64(kMax, kMax)})});
  ASSERT_TRUE(sqrt.ok()) << sqrt.status();
  EXPECT_TRUE(std::isfinite(sqrt->data<complex64>()[0].real()));
  EXPECT_TRUE(std::isfinite(sqrt->data<complex64>()[0].imag()));
  auto tanh = EvalOp(HloOpcode::kTanh, "c64[1]", {R1<complex64>({complex64(100, 1)})});
  ASSERT_TRUE(tanh.ok()) << tanh.status();
  EXPECT_EQ(tanh->data<complex64>()[0].real(), 1.0f);
}

// --- Elementwise binary ----------------------------------------------------------

TEST(BinaryTest, IntegerWrapAround) {
  const int32_t kMax = std::numeric_limits<int32_t>::max(), kMin = std::numeric_limits<int32_t>::min();
  EXPECT_LITERAL(EvalOp(HloOpcode::kAdd, "s32[2]", {R1<int32_t>({kMax, 1}), R1<int32_t>({1, 2})}),
                 R1<int32_t>({kMin, 3}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kSubtract, "s32[1]", {R1<int32_t>({kMin}), R1<int32_t>({1})}),
                 R1<int32_t>({kMax}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kMultiply, "s32[1]", {R1<int32_t>({65536}), R1<int32_t>({65536})}),
                 R1<int32_t>({0}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kMultiply, "s8[2]", {R1<int8_t>({16, -128}), R1<int8_t>({8, -1})}),
                 R1<int8_t>({-128, -128}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kMultiply, "u16[1]", {R1<uint16_t>({65535}), R1<uint16_t>({65535})}),
                 R1<uint16_t>({1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kAdd, "u8[1]", {R1<uint8_t>({250}), R1<uint8_t>({10})}), R1<uint8_t>({4}));
}

TEST(BinaryTest, IntegerDivisionAndRemainder) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  Literal a = R1<int32_t>({7, -7, 7, -7, 5, kMin, kMin});
  Literal b = R1<int32_t>({2, 2, -2, -2, 0, -1, 0});
  EXPECT_LITERAL(EvalOp(HloOpcode::kDivide, "s32[7]", {a, b}), R1<int32_t>({3, -3, -3, 3, -1, kMin, -1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kRemainder, "s32[7]", {a, b}), R1<int32_t>({1, -1, 1, -1, 5, 0, kMin}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDivide, "u32[2]", {R1<uint32_t>({7, 9}), R1<uint32_t>({0, 2})}),
                 R1<uint32_t>({0xffffffffu, 4}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kRemainder, "u32[2]", {R1<uint32_t>({7, 9}), R1<uint32_t>({0, 2})}),
                 R1<uint32_t>({7, 1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDivide, "s8[1]", {R1<int8_t>({-128}), R1<int8_t>({-1})}), R1<int8_t>({-128}));
}

TEST(BinaryTest, FloatDivisionAndRemainder) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kRemainder, "f32[4]", {R1<float>({-7.5f, 7.5f, 5.0f, 1.0f}),
                                                           R1<float>({2.0f, -2.0f, 0.0f, kInf})}),
                 R1<float>({-1.5f, 1.5f, kNaN, 1.0f}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDivide, "f32[3]", {R1<float>({1, -1, 0}), R1<float>({0, 0, 0})}),
                 R1<float>({kInf, -kInf, kNaN}));
}

TEST(BinaryTest, Power) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kPower, "s32[8]",
                        {R1<int32_t>({2, 3, 1, -1, -1, 0, 2, -2}), R1<int32_t>({10, -1, -5, -3, -2, 0, 31, 3})}),
                 R1<int32_t>({1024, 0, 1, -1, 1, 1, std::numeric_limits<int32_t>::min(), -8}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kPower, "u8[2]", {R1<uint8_t>({2, 3}), R1<uint8_t>({9, 5})}),
                 R1<uint8_t>({0, 243}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kPower, "f32[3]", {R1<float>({2, 4, 1}), R1<float>({-1, 0.5f, kNaN})}),
                 R1<float>({0.5f, 2, 1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kPower, "c64[1]", {R1<complex64>({complex64(0, 1)}), R1<complex64>({complex64(0, 0)})}),
                 R1<complex64>({complex64(1, 0)}));
}

TEST(BinaryTest, MaxMinPropagateNaN) {
  Literal a = R1<float>({1, kNaN, 3, -0.0f, 0.0f});
  Literal b = R1<float>({kNaN, 2, 1, 0.0f, -0.0f});
  auto mx = EvalOp(HloOpcode::kMaximum, "f32[5]", {a, b});
  ASSERT_TRUE(mx.ok());
  EXPECT_EQ(*mx, R1<float>({kNaN, kNaN, 3, 0, 0}));
  EXPECT_FALSE(std::signbit(mx->data<float>()[3]));
  EXPECT_FALSE(std::signbit(mx->data<float>()[4]));
  auto mn = EvalOp(HloOpcode::kMinimum, "f32[5]", {a, b});
  ASSERT_TRUE(mn.ok());
  EXPECT_EQ(*mn, R1<float>({kNaN, kNaN, 1, 0, 0}));
  EXPECT_TRUE(std::signbit(mn->data<float>()[3]));
  EXPECT_TRUE(std::signbit(mn->data<float>()[4]));
  EXPECT_LITERAL(EvalOp(HloOpcode::kMaximum, "s32[2]", {R1<int32_t>({-5, 3}), R1<int32_t>({2, -9})}),
                 R1<int32_t>({2, 3}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kMinimum, "u32[2]", {R1<uint32_t>({5, 0xffffffffu}), R1<uint32_t>({2, 1})}),
                 R1<uint32_t>({2, 1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kMaximum, "c64[2]",
                        {R1<complex64>({complex64(1, 5), complex64(2, 1)}),
                         R1<complex64>({complex64(1, 6), complex64(1, 9)})}),
                 R1<complex64>({complex64(1, 6), complex64(2, 1)}));
}

TEST(BinaryTest, LogicalAndBitwise) {
  Literal p = R1<bool>({false, false, true, true});
  Literal q = R1<bool>({false, true, false, true});
  EXPECT_LITERAL(EvalOp(HloOpcode::kAnd, "pred[4]", {p, q}), R1<bool>({false, false, false, true}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kOr, "pred[4]", {p, q}), R1<bool>({false, true, true, true}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kXor, "pred[4]", {p, q}), R1<bool>({false, true, true, false}));
  Literal a = R1<uint32_t>({0xf0f0u, 0xffffffffu});
  Literal b = R1<uint32_t>({0x0ff0u, 0x1u});
  EXPECT_LITERAL(EvalOp(HloOpcode::kAnd, "u32[2]", {a, b}), R1<uint32_t>({0x00f0u, 1u}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kOr, "u32[2]", {a, b}), R1<uint32_t>({0xfff0u, 0xffffffffu}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kXor, "u32[2]", {a, b}), R1<uint32_t>({0xff00u, 0xfffffffeu}));
  EXPECT_ERROR(EvalOp(HloOpcode::kAnd, "f32[1]", {R1<float>({1}), R1<float>({1})}), "not defined");
}

TEST(BinaryTest, Shifts) {
  Literal a = R1<int32_t>({1, -8, -8, -1, 5, -5, 1});
  Literal n = R1<int32_t>({31, 1, 40, 28, 32, -1, 0});
  EXPECT_LITERAL(EvalOp(HloOpcode::kShiftLeft, "s32[7]", {a, n}),
                 R1<int32_t>({std::numeric_limits<int32_t>::min(), -16, 0, -268435456, 0, 0, 1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kShiftRightArithmetic, "s32[7]", {a, n}), R1<int32_t>({0, -4, -1, -1, 0, -1, 1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kShiftRightLogical, "s32[7]", {a, n}),
                 R1<int32_t>({0, 0x7ffffffc, 0, 15, 0, 0, 1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kShiftRightArithmetic, "u8[3]", {R1<uint8_t>({0x80, 0x80, 0x40}),
                                                                      R1<uint8_t>({1, 9, 1})}),
                 R1<uint8_t>({0xc0, 0xff, 0x20}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kShiftLeft, "u8[2]", {R1<uint8_t>({0x81, 1}), R1<uint8_t>({1, 8})}),
                 R1<uint8_t>({0x02, 0}));
}

TEST(BinaryTest, Atan2AndComplex) {
  auto r = EvalOp(HloOpcode::kAtan2, "f32[3]", {R1<float>({1, 1, -1}), R1<float>({1, -1, 0})});
  ASSERT_TRUE(r.ok());
  EXPECT_FLOAT_EQ(r->data<float>()[0], std::atan2(1.0f, 1.0f));
  EXPECT_FLOAT_EQ(r->data<float>()[1], std::atan2(1.0f, -1.0f));
  EXPECT_FLOAT_EQ(r->data<float>()[2], std::atan2(-1.0f, 0.0f));
  EXPECT_LITERAL(EvalOp(HloOpcode::kComplex, "c64[2]", {R1<float>({1, 2}), R1<float>({3, 4})}),
                 R1<complex64>({complex64(1, 3), complex64(2, 4)}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kMultiply, "c128[1]", {R1<complex128>({complex128(1, 2)}),
                                                           R1<complex128>({complex128(3, 4)})}),
                 R1<complex128>({complex128(-5, 10)}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDivide, "c64[1]", {R1<complex64>({complex64(-5, 10)}),
                                                        R1<complex64>({complex64(3, 4)})}),
                 R1<complex64>({complex64(1, 2)}));
}

TEST(BinaryTest, HalfPrecisionRoundsEachOp) {
  // 2048 + 1 is not representable in f16 (rounds to even 2048).
  EXPECT_LITERAL(EvalOp(HloOpcode::kAdd, "f16[2]", {R1<half>({half(2048.0f), half(0.5f)}),
                                                    R1<half>({half(1.0f), half(0.25f)})}),
                 R1<half>({half(2048.0f), half(0.75f)}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kMultiply, "bf16[1]", {R1<bfloat16>({bfloat16(3.0f)}),
                                                          R1<bfloat16>({bfloat16(1.5f)})}),
                 R1<bfloat16>({bfloat16(4.5f)}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kMaximum, "f16[1]", {R1<half>({half(kNaN)}), R1<half>({half(1.0f)})}),
                 R1<half>({half(kNaN)}));
}

TEST(BinaryTest, MismatchedShapesAreErrors) {
  EXPECT_ERROR(EvalOp(HloOpcode::kAdd, "f32[2]", {R1<float>({1, 2}), R1<float>({1, 2, 3})}), "rhs");
  EXPECT_ERROR(EvalOp(HloOpcode::kAdd, "f32[2]", {R1<float>({1, 2}), R1<int32_t>({1, 2})}), "");
}

// --- Compare, select, clamp -------------------------------------------------------

TEST(CompareTest, FloatIeee) {
  Literal a = R1<float>({1, kNaN, -0.0f, 2, kNaN});
  Literal b = R1<float>({2, 1, 0.0f, 2, kNaN});
  EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[5]", {a, b}, Cmp("EQ")),
                 R1<bool>({false, false, true, true, false}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[5]", {a, b}, Cmp("NE")),
                 R1<bool>({true, true, false, false, true}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[5]", {a, b}, Cmp("LT", "FLOAT")),
                 R1<bool>({true, false, false, false, false}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[5]", {a, b}, Cmp("GE")),
                 R1<bool>({false, false, true, true, false}));
}

TEST(CompareTest, TotalOrder) {
  const float neg_nan = -std::numeric_limits<float>::quiet_NaN();
  // -NaN < -Inf < -1 < -0 < +0 < 1 < +Inf < +NaN
  std::vector<float> order = {neg_nan, -kInf, -1.0f, -0.0f, 0.0f, 1.0f, kInf, kNaN};
  for (size_t i = 0; i < order.size(); ++i) {
    for (size_t j = 0; j < order.size(); ++j) {
      Literal a = R1<float>({order[i]}), b = R1<float>({order[j]});
      EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[1]", {a, b}, Cmp("LT", "TOTALORDER")), R1<bool>({i < j}));
      EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[1]", {a, b}, Cmp("EQ", "TOTALORDER")), R1<bool>({i == j}));
    }
  }
  EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[1]", {R1<half>({half(-0.0f)}), R1<half>({half(0.0f)})},
                        Cmp("LT", "TOTALORDER")),
                 R1<bool>({true}));
}

TEST(CompareTest, IntegersPredAndComplex) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[3]", {R1<int32_t>({-1, 5, 3}), R1<int32_t>({1, 5, 2})},
                        Cmp("LT", "SIGNED")),
                 R1<bool>({true, false, false}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[2]", {R1<uint32_t>({0xffffffffu, 1}), R1<uint32_t>({1, 1})},
                        Cmp("GT")),
                 R1<bool>({true, false}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[2]", {R1<bool>({false, true}), R1<bool>({true, true})},
                        Cmp("LT")),
                 R1<bool>({true, false}));
  Literal c1 = R1<complex64>({complex64(1, 2), complex64(1, 2), complex64(0, 5)});
  Literal c2 = R1<complex64>({complex64(1, 2), complex64(1, 3), complex64(1, 0)});
  EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[3]", {c1, c2}, Cmp("EQ")), R1<bool>({true, false, false}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kCompare, "pred[3]", {c1, c2}, Cmp("LT")), R1<bool>({false, true, true}));
}

TEST(CompareTest, BadDirectionOrTypeIsError) {
  EXPECT_ERROR(EvalOp(HloOpcode::kCompare, "pred[1]", {R1<int32_t>({1}), R1<int32_t>({1})}, Cmp("XX")), "XX");
  EXPECT_ERROR(EvalOp(HloOpcode::kCompare, "pred[1]", {R1<int32_t>({1}), R1<int32_t>({1})}, Cmp("EQ", "FLOAT")),
               "comparison type");
  EXPECT_ERROR(EvalOp(HloOpcode::kCompare, "pred[1]", {R1<float>({1}), R1<float>({1})}, Cmp("EQ", "SIGNED")),
               "comparison type");
}

TEST(SelectClampTest, Select) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kSelect, "s32[3]",
                        {R1<bool>({true, false, true}), R1<int32_t>({1, 2, 3}), R1<int32_t>({10, 20, 30})}),
                 R1<int32_t>({1, 20, 3}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kSelect, "f32[2]", {R0<bool>(false), R1<float>({1, 2}), R1<float>({3, 4})}),
                 R1<float>({3, 4}));
}

TEST(SelectClampTest, SelectTuplesWithScalarPred) {
  Literal t = Literal::MakeTuple({R1<float>({1, 2}), R0<int32_t>(3)});
  Literal f = Literal::MakeTuple({R1<float>({4, 5}), R0<int32_t>(6)});
  EXPECT_LITERAL(EvalOp(HloOpcode::kSelect, "(f32[2], s32[])", {R0<bool>(false), t, f}), f);
  EXPECT_LITERAL(EvalOp(HloOpcode::kSelect, "(f32[2], s32[])", {R0<bool>(true), t, f}), t);
  EXPECT_ERROR(EvalOp(HloOpcode::kSelect, "(f32[2], s32[])", {R1<bool>({true}), t, f}), "pred scalar");
}

TEST(SelectClampTest, Clamp) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kClamp, "s32[4]", {R0<int32_t>(0), R1<int32_t>({-3, 2, 7, 5}), R0<int32_t>(5)}),
                 R1<int32_t>({0, 2, 5, 5}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kClamp, "f32[3]",
                        {R1<float>({0, 1, 0}), R1<float>({-1, kNaN, 3}), R1<float>({1, 2, 2})}),
                 R1<float>({0, kNaN, 2}));
}

// --- Conversions ------------------------------------------------------------------------

TEST(ConvertTest, ConvertAndBitcastConvert) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kConvert, "s32[4]", {R1<float>({1.7f, -1.7f, kNaN, 1e20f})}),
                 R1<int32_t>({1, -1, 0, std::numeric_limits<int32_t>::max()}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kConvert, "f16[1]", {R1<int32_t>({3})}), R1<half>({half(3.0f)}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kBitcastConvert, "s32[2]", {R1<float>({1.0f, -0.0f})}),
                 R1<int32_t>({0x3f800000, std::numeric_limits<int32_t>::min()}));
  // Narrower: a minor dimension of the width ratio is added (little-endian host).
  EXPECT_LITERAL(EvalOp(HloOpcode::kBitcastConvert, "u8[1,4]", {R1<uint32_t>({0x04030201u})}),
                 Literal::CreateR2<uint8_t>({{1, 2, 3, 4}}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kBitcastConvert, "u16[]", {R1<uint8_t>({0x01, 0x02})}), R0<uint16_t>(0x0201));
  EXPECT_ERROR(EvalOp(HloOpcode::kBitcastConvert, "s32[4]", {Literal::CreateR2<float>({{1, 2}, {3, 4}})}),
               "bitcast-convert");
}

TEST(ConvertTest, BitcastConvertPredIsOneBit) {
  // StableHLO's i1 has one bit: element i is bit i, least significant first
  // (its interpret test: 64 x i1 <-> i64 0x0123456789ABCDEF).
  const uint64_t kBits = 0x0123456789ABCDEFull;
  std::vector<bool> bits(64);
  for (int i = 0; i < 64; ++i) bits[i] = (kBits >> i) & 1;
  Literal preds(ShapeUtil::MakeShape(PRED, {64}));
  for (int i = 0; i < 64; ++i) preds.data<bool>()[i] = bits[i];
  EXPECT_LITERAL(EvalOp(HloOpcode::kBitcastConvert, "s64[]", {preds}), R0<int64_t>(static_cast<int64_t>(kBits)));
  EXPECT_LITERAL(EvalOp(HloOpcode::kBitcastConvert, "pred[64]", {R0<double>(absl::bit_cast<double>(kBits))}), preds);
  // A wider rank: each row of 8 packs into one u8; bf16 unpacks to 16.
  EXPECT_LITERAL(EvalOp(HloOpcode::kBitcastConvert, "u8[2]",
                        {Literal::CreateR2<bool>({{true, false, false, false, false, false, false, true},
                                                  {false, true, false, false, false, false, false, false}})}),
                 R1<uint8_t>({0x81, 0x02}));
  auto unpacked = EvalOp(HloOpcode::kBitcastConvert, "pred[1,16]", {R1<bfloat16>({bfloat16(-2.0f)})});
  ASSERT_TRUE(unpacked.ok()) << unpacked.status();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(unpacked->data<bool>()[i], i == 14 || i == 15) << i;  // 0xC000
  // pred to pred keeps the values.
  EXPECT_LITERAL(EvalOp(HloOpcode::kBitcastConvert, "pred[3]", {R1<bool>({true, false, true})}),
                 R1<bool>({true, false, true}));
  EXPECT_ERROR(EvalOp(HloOpcode::kBitcastConvert, "s8[]", {R1<bool>({true, false})}), "bitcast-convert");
}

// --- Shape ops ---------------------------------------------------------------------------

Literal Iota2D(int64_t rows, int64_t cols) {
  std::vector<float> v(rows * cols);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return *Literal::CreateFromVector<float>({rows, cols}, v);
}

TEST(ShapeOpsTest, Broadcast) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kBroadcast, "s32[2,3]", {R1<int32_t>({1, 2, 3})}, Dims({1})),
                 Literal::CreateR2<int32_t>({{1, 2, 3}, {1, 2, 3}}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kBroadcast, "s32[2,3]", {R1<int32_t>({1, 2})}, Dims({0})),
                 Literal::CreateR2<int32_t>({{1, 1, 1}, {2, 2, 2}}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kBroadcast, "f32[2,2]", {R0<float>(7)}, Dims({})),
                 Literal::CreateR2<float>({{7, 7}, {7, 7}}));
  // Operand dims mapped out of order: operand [2,3] -> result [3,2] (a transpose).
  EXPECT_LITERAL(EvalOp(HloOpcode::kBroadcast, "f32[3,2]", {Iota2D(2, 3)}, Dims({1, 0})),
                 Literal::CreateR2<float>({{0, 3}, {1, 4}, {2, 5}}));
  EXPECT_ERROR(EvalOp(HloOpcode::kBroadcast, "f32[2,3]", {R1<float>({1, 2})}, Dims({1})), "does not match");
}

TEST(ShapeOpsTest, ReshapeTransposeReverse) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kReshape, "f32[3,2]", {Iota2D(2, 3)}, {}),
                 Literal::CreateR2<float>({{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kTranspose, "f32[3,2]", {Iota2D(2, 3)}, Dims({1, 0})),
                 Literal::CreateR2<float>({{0, 3}, {1, 4}, {2, 5}}));
  Literal x3 = Literal::CreateR3<int32_t>({{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}});
  EXPECT_LITERAL(EvalOp(HloOpcode::kTranspose, "s32[3,2,2]", {x3}, Dims({2, 0, 1})),
                 Literal::CreateR3<int32_t>({{{1, 4}, {7, 10}}, {{2, 5}, {8, 11}}, {{3, 6}, {9, 12}}}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kReverse, "s32[2,2,3]", {x3}, Dims({0, 2})),
                 Literal::CreateR3<int32_t>({{{9, 8, 7}, {12, 11, 10}}, {{3, 2, 1}, {6, 5, 4}}}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kReverse, "f32[0]", {R1<float>({})}, Dims({0})), R1<float>({}));
  EXPECT_ERROR(EvalOp(HloOpcode::kTranspose, "f32[3,2]", {Iota2D(2, 3)}, Dims({0, 0})), "permutation");
}

TEST(ShapeOpsTest, SliceDocExamples) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kSlice, "f32[2]", {R1<float>({0, 1, 2, 3, 4})}, SliceAttr({{2, 4, 1}})),
                 R1<float>({2, 3}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kSlice, "f32[2,2]", {Iota2D(4, 3)}, SliceAttr({{2, 4, 1}, {1, 3, 1}})),
                 Literal::CreateR2<float>({{7, 8}, {10, 11}}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kSlice, "f32[2,2]", {Iota2D(4, 3)}, SliceAttr({{0, 4, 2}, {0, 3, 2}})),
                 Literal::CreateR2<float>({{0, 2}, {6, 8}}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kSlice, "f32[2]", {R1<float>({0, 1, 2, 3, 4})}, SliceAttr({{1, 5, 3}})),
                 R1<float>({1, 4}));
  EXPECT_ERROR(EvalOp(HloOpcode::kSlice, "f32[2]", {R1<float>({0, 1, 2})}, SliceAttr({{2, 4, 1}})), "invalid slice");
}

TEST(ShapeOpsTest, DynamicSliceDocExamplesAndClamping) {
  Literal a = R1<float>({0, 1, 2, 3, 4});
  HloInstructionProto sizes;
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicSlice, "f32[2]", {a, R0<int32_t>(2)}), R1<float>({2, 3}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicSlice, "f32[2,2]", {Iota2D(4, 3), R0<int32_t>(2), R0<int32_t>(1)}),
                 Literal::CreateR2<float>({{7, 8}, {10, 11}}));
  // Clamped: start 4 -> 3, start -2 -> 0, huge unsigned -> max.
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicSlice, "f32[2]", {a, R0<int32_t>(4)}), R1<float>({3, 4}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicSlice, "f32[2]", {a, R0<int64_t>(-2)}), R1<float>({0, 1}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicSlice, "f32[2]", {a, R0<uint64_t>(~0ull)}), R1<float>({3, 4}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicSlice, "f32[2,2]", {Iota2D(4, 3), R0<int32_t>(9), R0<int32_t>(-1)}),
                 Literal::CreateR2<float>({{6, 7}, {9, 10}}));
  // Older form with one index vector.
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicSlice, "f32[2,2]", {Iota2D(4, 3), R1<int32_t>({2, 1})}),
                 Literal::CreateR2<float>({{7, 8}, {10, 11}}));
  EXPECT_ERROR(EvalOp(HloOpcode::kDynamicSlice, "f32[2]", {a}), "start indices");
}

TEST(ShapeOpsTest, DynamicUpdateSliceDocExamplesAndClamping) {
  Literal a = R1<float>({0, 1, 2, 3, 4});
  Literal u = R1<float>({5, 6});
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicUpdateSlice, "f32[5]", {a, u, R0<int32_t>(2)}),
                 R1<float>({0, 1, 5, 6, 4}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicUpdateSlice, "f32[5]", {a, u, R0<int32_t>(100)}),
                 R1<float>({0, 1, 2, 5, 6}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicUpdateSlice, "f32[5]", {a, u, R0<int32_t>(-3)}),
                 R1<float>({5, 6, 2, 3, 4}));
  Literal u2 = Literal::CreateR2<float>({{12, 13}, {14, 15}, {16, 17}});
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicUpdateSlice, "f32[4,3]", {Iota2D(4, 3), u2, R0<int32_t>(1), R0<int32_t>(1)}),
                 Literal::CreateR2<float>({{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, {9, 16, 17}}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDynamicUpdateSlice, "f32[4,3]", {Iota2D(4, 3), u2, R0<int32_t>(3), R0<int32_t>(5)}),
                 Literal::CreateR2<float>({{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, {9, 16, 17}}));
}

TEST(ShapeOpsTest, ConcatenateDocExamples) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kConcatenate, "s32[6]",
                        {R1<int32_t>({2, 3}), R1<int32_t>({4, 5}), R1<int32_t>({6, 7})}, Dims({0})),
                 R1<int32_t>({2, 3, 4, 5, 6, 7}));
  Literal a = Literal::CreateR2<int32_t>({{1, 2}, {3, 4}, {5, 6}});
  Literal b = Literal::CreateR2<int32_t>({{7, 8}});
  EXPECT_LITERAL(EvalOp(HloOpcode::kConcatenate, "s32[4,2]", {a, b}, Dims({0})),
                 Literal::CreateR2<int32_t>({{1, 2}, {3, 4}, {5, 6}, {7, 8}}));
  Literal c = Literal::CreateR2<int32_t>({{9}, {10}, {11}});
  EXPECT_LITERAL(EvalOp(HloOpcode::kConcatenate, "s32[3,3]", {a, c}, Dims({1})),
                 Literal::CreateR2<int32_t>({{1, 2, 9}, {3, 4, 10}, {5, 6, 11}}));
  EXPECT_ERROR(EvalOp(HloOpcode::kConcatenate, "s32[4,2]", {a, c}, Dims({0})), "does not fit");
}

TEST(ShapeOpsTest, Pad) {
  // The StableHLO spec example: low {0,1}, high {2,1}, interior {1,2}.
  Literal x = Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}});
  EXPECT_LITERAL(EvalOp(HloOpcode::kPad, "s32[5,9]", {x, R0<int32_t>(0)}, PadAttr({{0, 2, 1}, {1, 1, 2}})),
                 Literal::CreateR2<int32_t>({{0, 1, 0, 0, 2, 0, 0, 3, 0},
                                             {0, 0, 0, 0, 0, 0, 0, 0, 0},
                                             {0, 4, 0, 0, 5, 0, 0, 6, 0},
                                             {0, 0, 0, 0, 0, 0, 0, 0, 0},
                                             {0, 0, 0, 0, 0, 0, 0, 0, 0}}));
  // Negative edge padding crops (after interior padding).
  EXPECT_LITERAL(EvalOp(HloOpcode::kPad, "f32[4]", {R1<float>({1, 2, 3}), R0<float>(-1)}, PadAttr({{-1, 0, 1}})),
                 R1<float>({-1, 2, -1, 3}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kPad, "f32[3]", {R1<float>({1, 2, 3}), R0<float>(9)}, PadAttr({{-2, 2, 0}})),
                 R1<float>({3, 9, 9}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kPad, "f32[1]", {R1<float>({1, 2, 3}), R0<float>(9)}, PadAttr({{-1, -1, 0}})),
                 R1<float>({2}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kPad, "f32[2]", {R1<float>({1, 2, 3}), R0<float>(9)}, PadAttr({{-1, -2, 1}})),
                 R1<float>({9, 2}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kPad, "f32[2,3]", {Literal::CreateR2<float>({{1}}), R0<float>(0)},
                        PadAttr({{1, 0, 0}, {0, 2, 0}})),
                 Literal::CreateR2<float>({{0, 0, 0}, {1, 0, 0}}));
  EXPECT_ERROR(EvalOp(HloOpcode::kPad, "f32[5]", {R1<float>({1, 2, 3}), R0<float>(9)}, PadAttr({{1, 0, 0}})),
               "does not give");
}

TEST(ShapeOpsTest, Iota) {
  HloModule module("m");
  Builder b("entry");
  HloInstruction* i0 = b.Op(HloOpcode::kIota, "s32[4,8]", {}, Dims({0}));
  HloInstruction* i1 = b.Op(HloOpcode::kIota, "s32[4,8]", {}, Dims({1}));
  HloInstruction* f = b.Op(HloOpcode::kIota, "f32[3]", {}, Dims({0}));
  module.AddEntryComputation(b.Build(b.Op(HloOpcode::kTuple, "(s32[4,8], s32[4,8], f32[3])", {i0, i1, f})));
  auto r = HloEvaluator().Evaluate(module, {});
  ASSERT_TRUE(r.ok()) << r.status();
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 8; ++j) {
      EXPECT_EQ(r->tuple_elements()[0].Get<int32_t>({i, j}), i);
      EXPECT_EQ(r->tuple_elements()[1].Get<int32_t>({i, j}), j);
    }
  }
  EXPECT_EQ(r->tuple_elements()[2], R1<float>({0, 1, 2}));
}

// --- Dot ------------------------------------------------------------------------------------

TEST(DotTest, MatrixProducts) {
  Literal a = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  Literal b = Literal::CreateR2<float>({{7, 8}, {9, 10}, {11, 12}});
  EXPECT_LITERAL(EvalOp(HloOpcode::kDot, "f32[2,2]", {a, b}, DotAttr({}, {}, {1}, {0})),
                 Literal::CreateR2<float>({{58, 64}, {139, 154}}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDot, "f32[2]", {a, R1<float>({1, 0, -1})}, DotAttr({}, {}, {1}, {0})),
                 R1<float>({-2, -2}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDot, "f32[]", {R1<float>({1, 2}), R1<float>({3, 4})}, DotAttr({}, {}, {0}, {0})),
                 R0<float>(11));
  // Contract lhs dim 0 with rhs dim 1: a^T (3x2) * b^T (2x3).
  EXPECT_LITERAL(EvalOp(HloOpcode::kDot, "f32[3,3]", {a, b}, DotAttr({}, {}, {0}, {1})),
                 Literal::CreateR2<float>({{39, 49, 59}, {54, 68, 82}, {69, 87, 105}}));
  // Outer product (no contraction).
  EXPECT_LITERAL(EvalOp(HloOpcode::kDot, "s32[2,2]", {R1<int32_t>({1, 2}), R1<int32_t>({3, 4})}, DotAttr({}, {}, {}, {})),
                 Literal::CreateR2<int32_t>({{3, 4}, {6, 8}}));
}

TEST(DotTest, BatchDotSpecExample) {
  Literal lhs = Literal::CreateR3<int32_t>({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}});
  Literal rhs = Literal::CreateR3<int32_t>({{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}});
  EXPECT_LITERAL(EvalOp(HloOpcode::kDot, "s32[2,2,2]", {lhs, rhs}, DotAttr({0}, {0}, {2}, {1})), lhs);
  // Batch dimension last on the rhs.
  Literal rhs_t = Literal::CreateR3<int32_t>({{{2, 1}, {0, 0}}, {{0, 0}, {2, 1}}});  // [k][n][b]
  EXPECT_LITERAL(EvalOp(HloOpcode::kDot, "s32[2,2,2]", {lhs, rhs_t}, DotAttr({0}, {2}, {2}, {0})),
                 Literal::CreateR3<int32_t>({{{2, 4}, {6, 8}}, {{5, 6}, {7, 8}}}));
  EXPECT_ERROR(EvalOp(HloOpcode::kDot, "s32[2,2]", {Literal::CreateR2<int32_t>({{1, 2}}),
                                                     Literal::CreateR2<int32_t>({{1, 2}})},
                      DotAttr({}, {}, {1}, {0})),
               "contracting");
}

TEST(DotTest, MixedAndLowPrecision) {
  // s8 x s8 -> s32 does not overflow in s8.
  EXPECT_LITERAL(EvalOp(HloOpcode::kDot, "s32[]", {R1<int8_t>({100, 100}), R1<int8_t>({100, 100})},
                        DotAttr({}, {}, {0}, {0})),
                 R0<int32_t>(20000));
  // f16: accumulates in f32, rounds once: 2048 + 1 + 1 = 2050 (exact in f16).
  EXPECT_LITERAL(EvalOp(HloOpcode::kDot, "f16[]", {R1<half>({half(2048.0f), half(1.0f), half(1.0f)}),
                                                   R1<half>({half(1.0f), half(1.0f), half(1.0f)})},
                        DotAttr({}, {}, {0}, {0})),
                 R0<half>(half(2050.0f)));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDot, "f32[]", {R1<bfloat16>({bfloat16(1.5f), bfloat16(2.0f)}),
                                                   R1<bfloat16>({bfloat16(2.0f), bfloat16(0.25f)})},
                        DotAttr({}, {}, {0}, {0})),
                 R0<float>(3.5f));
  EXPECT_LITERAL(EvalOp(HloOpcode::kDot, "c64[]", {R1<complex64>({complex64(1, 1)}), R1<complex64>({complex64(1, -1)})},
                        DotAttr({}, {}, {0}, {0})),
                 R0<complex64>(complex64(2, 0)));
}

// --- Reduce and map ------------------------------------------------------------------------

// Module: reduce(p0, init) over `dims` with `reducer`.
absl::StatusOr<Literal> ReduceWith(std::unique_ptr<HloComputation> reducer, const Literal& x, const Literal& init,
                                   std::vector<int64_t> dims, const std::string& result) {
  HloModule module("m");
  HloComputation* r = module.AddEmbeddedComputation(std::move(reducer));
  Builder b("entry");
  HloInstruction* p = b.Param(0, x.shape().ToString());
  HloInstruction* i = b.Param(1, init.shape().ToString());
  module.AddEntryComputation(b.Build(b.Op(HloOpcode::kReduce, result, {p, i}, Dims(dims), {r})));
  return HloEvaluator().Evaluate(module, {&x, &init});
}

Literal DocReduceInput() {
  // [4,2,3], values 1..6 replicated across dimension 0.
  return Literal::CreateR3<float>({{{1, 2, 3}, {4, 5, 6}},
                                   {{1, 2, 3}, {4, 5, 6}},
                                   {{1, 2, 3}, {4, 5, 6}},
                                   {{1, 2, 3}, {4, 5, 6}}});
}

TEST(ReduceTest, DocExamples) {
  Literal x = DocReduceInput();
  Literal zero = R0<float>(0);
  auto add = [] { return BinaryComputation("add", HloOpcode::kAdd, "f32"); };
  EXPECT_LITERAL(ReduceWith(add(), x, zero, {0}, "f32[2,3]"), Literal::CreateR2<float>({{4, 8, 12}, {16, 20, 24}}));
  EXPECT_LITERAL(ReduceWith(add(), x, zero, {2}, "f32[4,2]"),
                 Literal::CreateR2<float>({{6, 15}, {6, 15}, {6, 15}, {6, 15}}));
  EXPECT_LITERAL(ReduceWith(add(), x, zero, {0, 1}, "f32[3]"), R1<float>({20, 28, 36}));
  EXPECT_LITERAL(ReduceWith(add(), x, zero, {0, 1, 2}, "f32[]"), R0<float>(84));
  EXPECT_LITERAL(ReduceWith(add(), x, zero, {}, "f32[4,2,3]"), x);
  Literal m = Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}});
  EXPECT_LITERAL(ReduceWith(BinaryComputation("add", HloOpcode::kAdd, "s32"), m, R0<int32_t>(0), {0}, "s32[3]"),
                 R1<int32_t>({5, 7, 9}));
  EXPECT_LITERAL(ReduceWith(BinaryComputation("add", HloOpcode::kAdd, "s32"), m, R0<int32_t>(0), {1}, "s32[2]"),
                 R1<int32_t>({6, 15}));
}

TEST(ReduceTest, MaxMinAndOrderedReducers) {
  Literal x = R1<float>({3, -1, 7, 2});
  EXPECT_LITERAL(ReduceWith(BinaryComputation("max", HloOpcode::kMaximum, "f32"), x, R0<float>(-kInf), {0}, "f32[]"),
                 R0<float>(7));
  EXPECT_LITERAL(ReduceWith(BinaryComputation("min", HloOpcode::kMinimum, "f32"), x, R0<float>(kInf), {0}, "f32[]"),
                 R0<float>(-1));
  // Non-commutative reducers show the fold order: acc = f(acc, x) left to right.
  Literal s = R1<int32_t>({1, 2, 3});
  EXPECT_LITERAL(ReduceWith(BinaryComputation("sub", HloOpcode::kSubtract, "s32"), s, R0<int32_t>(10), {0}, "s32[]"),
                 R0<int32_t>(4));  // ((10-1)-2)-3
  EXPECT_LITERAL(ReduceWith(BinaryComputation("rsub", HloOpcode::kSubtract, "s32", true), s, R0<int32_t>(10), {0},
                            "s32[]"),
                 R0<int32_t>(-8));  // 3-(2-(1-10))
  EXPECT_LITERAL(ReduceWith(BinaryComputation("and", HloOpcode::kAnd, "pred"), R1<bool>({true, false}),
                            R0<bool>(true), {0}, "pred[]"),
                 R0<bool>(false));
}

TEST(ReduceTest, GeneralReducerComputation) {
  // f(acc, x) = acc + 2 * x: not a single binary op, so evaluated as a computation.
  Builder rb("acc_plus_twice");
  HloInstruction* acc = rb.Param(0, "f32[]");
  HloInstruction* x = rb.Param(1, "f32[]");
  HloInstruction* two = rb.Const(R0<float>(2));
  HloInstruction* twice = rb.Op(HloOpcode::kMultiply, "f32[]", {two, x});
  auto reducer = rb.Build(rb.Op(HloOpcode::kAdd, "f32[]", {acc, twice}));
  EXPECT_LITERAL(ReduceWith(std::move(reducer), Literal::CreateR2<float>({{1, 2}, {3, 4}}), R0<float>(1), {1}, "f32[2]"),
                 R1<float>({7, 15}));
}

TEST(ReduceTest, VariadicArgmax) {
  // f(max, argmax, value, index) = value >= max ? (value, index) : (max, argmax)
  HloModule module("m");
  Builder rb("argmax");
  HloInstruction* mx = rb.Param(0, "f32[]");
  HloInstruction* amx = rb.Param(1, "s32[]");
  HloInstruction* v = rb.Param(2, "f32[]");
  HloInstruction* idx = rb.Param(3, "s32[]");
  HloInstruction* ge = rb.Op(HloOpcode::kCompare, "pred[]", {v, mx}, Cmp("GE"));
  HloInstruction* nv = rb.Op(HloOpcode::kSelect, "f32[]", {ge, v, mx});
  HloInstruction* ni = rb.Op(HloOpcode::kSelect, "s32[]", {ge, idx, amx});
  HloComputation* reducer = module.AddEmbeddedComputation(rb.Build(rb.Op(HloOpcode::kTuple, "(f32[], s32[])", {nv, ni})));
  Builder b("entry");
  HloInstruction* values = b.Param(0, "f32[2,4]");
  HloInstruction* iota = b.Op(HloOpcode::kIota, "s32[2,4]", {}, Dims({1}));
  HloInstruction* init_v = b.Const(R0<float>(-kInf));
  HloInstruction* init_i = b.Const(R0<int32_t>(-1));
  module.AddEntryComputation(b.Build(b.Op(HloOpcode::kReduce, "(f32[2], s32[2])", {values, iota, init_v, init_i},
                                          Dims({1}), {reducer})));
  Literal x = Literal::CreateR2<float>({{1, 9, 3, 9}, {-5, -2, -7, -3}});
  auto r = HloEvaluator().Evaluate(module, {&x});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Literal::MakeTuple({R1<float>({9, -2}), R1<int32_t>({3, 1})}));
}

TEST(ReduceTest, Errors) {
  EXPECT_ERROR(ReduceWith(BinaryComputation("add", HloOpcode::kAdd, "f32"), R1<float>({1}), R0<float>(0), {1}, "f32[]"),
               "reduce dimension");
  EXPECT_ERROR(ReduceWith(BinaryComputation("add", HloOpcode::kAdd, "s32"), R1<float>({1}), R0<float>(0), {0}, "f32[]"),
               "reducer parameter");
}

TEST(MapTest, BinaryMap) {
  HloModule module("m");
  // f(x, y) = x * y + 1
  Builder fb("f");
  HloInstruction* x = fb.Param(0, "f32[]");
  HloInstruction* y = fb.Param(1, "f32[]");
  HloInstruction* one = fb.Const(R0<float>(1));
  HloInstruction* prod = fb.Op(HloOpcode::kMultiply, "f32[]", {x, y});
  HloComputation* f = module.AddEmbeddedComputation(fb.Build(fb.Op(HloOpcode::kAdd, "f32[]", {prod, one})));
  Builder b("entry");
  HloInstruction* a = b.Param(0, "f32[2,2]");
  HloInstruction* c = b.Param(1, "f32[2,2]");
  module.AddEntryComputation(b.Build(b.Op(HloOpcode::kMap, "f32[2,2]", {a, c}, Dims({0, 1}), {f})));
  Literal la = Literal::CreateR2<float>({{1, 2}, {3, 4}});
  Literal lc = Literal::CreateR2<float>({{5, 6}, {7, 8}});
  EXPECT_LITERAL(HloEvaluator().Evaluate(module, {&la, &lc}), Literal::CreateR2<float>({{6, 13}, {22, 33}}));
}

// --- Tuples and control flow ------------------------------------------------------------

TEST(ControlFlowTest, TupleAndGetTupleElement) {
  HloModule module("m");
  Builder b("entry");
  HloInstruction* p = b.Param(0, "(f32[2], s32[])");
  HloInstruction* g0 = b.Op(HloOpcode::kGetTupleElement, "f32[2]", {p}, [] {
    HloInstructionProto a;
    a.set_tuple_index(0);
    return a;
  }());
  HloInstruction* g1 = b.Op(HloOpcode::kGetTupleElement, "s32[]", {p}, [] {
    HloInstructionProto a;
    a.set_tuple_index(1);
    return a;
  }());
  module.AddEntryComputation(b.Build(b.Op(HloOpcode::kTuple, "(s32[], f32[2])", {g1, g0})));
  Literal arg = Literal::MakeTuple({R1<float>({1, 2}), R0<int32_t>(7)});
  EXPECT_LITERAL(HloEvaluator().Evaluate(module, {&arg}), Literal::MakeTuple({R0<int32_t>(7), R1<float>({1, 2})}));
}

TEST(ControlFlowTest, Call) {
  HloModule module("m");
  HloComputation* add = module.AddEmbeddedComputation(BinaryComputation("add", HloOpcode::kAdd, "s32"));
  Builder b("entry");
  HloInstruction* x = b.Param(0, "s32[]");
  HloInstruction* c = b.Op(HloOpcode::kCall, "s32[]", {x, x}, {}, {add});
  module.AddEntryComputation(b.Build(b.Op(HloOpcode::kCall, "s32[]", {c, x}, {}, {add})));
  Literal a = R0<int32_t>(5);
  EXPECT_LITERAL(HloEvaluator().Evaluate(module, {&a}), R0<int32_t>(15));
}

// while (i < n) { i += 1; acc *= 2 } over the state (s32 i, s32 n, f32 acc).
std::unique_ptr<HloModule> DoublingLoop() {
  auto module = std::make_unique<HloModule>("loop");
  const std::string state = "(s32[], s32[], f32[])";
  auto gte = [](int64_t i) {
    HloInstructionProto a;
    a.set_tuple_index(i);
    return a;
  };
  Builder cb("cond");
  HloInstruction* cs = cb.Param(0, state);
  HloInstruction* ci = cb.Op(HloOpcode::kGetTupleElement, "s32[]", {cs}, gte(0));
  HloInstruction* cn = cb.Op(HloOpcode::kGetTupleElement, "s32[]", {cs}, gte(1));
  HloComputation* cond = module->AddEmbeddedComputation(cb.Build(cb.Op(HloOpcode::kCompare, "pred[]", {ci, cn}, Cmp("LT"))));
  Builder bb("body");
  HloInstruction* bs = bb.Param(0, state);
  HloInstruction* bi = bb.Op(HloOpcode::kGetTupleElement, "s32[]", {bs}, gte(0));
  HloInstruction* bn = bb.Op(HloOpcode::kGetTupleElement, "s32[]", {bs}, gte(1));
  HloInstruction* ba = bb.Op(HloOpcode::kGetTupleElement, "f32[]", {bs}, gte(2));
  HloInstruction* one = bb.Const(R0<int32_t>(1));
  HloInstruction* two = bb.Const(R0<float>(2));
  HloInstruction* ni = bb.Op(HloOpcode::kAdd, "s32[]", {bi, one});
  HloInstruction* na = bb.Op(HloOpcode::kMultiply, "f32[]", {ba, two});
  HloComputation* body = module->AddEmbeddedComputation(bb.Build(bb.Op(HloOpcode::kTuple, state, {ni, bn, na})));
  Builder eb("entry");
  HloInstruction* init = eb.Param(0, state);
  module->AddEntryComputation(eb.Build(eb.Op(HloOpcode::kWhile, state, {init}, {}, {cond, body})));
  return module;
}

TEST(ControlFlowTest, WhileLoop) {
  auto module = DoublingLoop();
  Literal init = Literal::MakeTuple({R0<int32_t>(0), R0<int32_t>(10), R0<float>(1)});
  EXPECT_LITERAL(HloEvaluator().Evaluate(*module, {&init}),
                 Literal::MakeTuple({R0<int32_t>(10), R0<int32_t>(10), R0<float>(1024)}));
  // Zero iterations.
  Literal done = Literal::MakeTuple({R0<int32_t>(5), R0<int32_t>(3), R0<float>(1)});
  EXPECT_LITERAL(HloEvaluator().Evaluate(*module, {&done}), done);
  // Bounded evaluator: exactly at the limit is fine, one more is an error.
  EXPECT_TRUE(HloEvaluator(10).Evaluate(*module, {&init}).ok());
  auto limited = HloEvaluator(9).Evaluate(*module, {&init});
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(std::string(limited.status().message()).find("9 iterations"), std::string::npos) << limited.status();
}

// Branch computations: negate, identity(times 1), add 100.
TEST(ControlFlowTest, ConditionalBothForms) {
  auto make = [](const std::string& selector_shape, int branches) {
    auto module = std::make_unique<HloModule>("cond");
    std::vector<HloComputation*> comps;
    for (int i = 0; i < branches; ++i) {
      Builder bb(absl::StrCat("branch", i));
      HloInstruction* x = bb.Param(0, "s32[]");
      HloInstruction* k = bb.Const(R0<int32_t>(100 * (i + 1)));
      comps.push_back(module->AddEmbeddedComputation(bb.Build(bb.Op(HloOpcode::kAdd, "s32[]", {x, k}))));
    }
    Builder b("entry");
    std::vector<HloInstruction*> ops = {b.Param(0, selector_shape)};
    for (int i = 0; i < branches; ++i) ops.push_back(b.Param(i + 1, "s32[]"));
    module->AddEntryComputation(b.Build(b.Op(HloOpcode::kConditional, "s32[]", ops, {}, comps)));
    return module;
  };
  auto pred_module = make("pred[]", 2);
  Literal t = R0<bool>(true), f = R0<bool>(false), a = R0<int32_t>(1), c = R0<int32_t>(2);
  EXPECT_LITERAL(HloEvaluator().Evaluate(*pred_module, {&t, &a, &c}), R0<int32_t>(101));
  EXPECT_LITERAL(HloEvaluator().Evaluate(*pred_module, {&f, &a, &c}), R0<int32_t>(202));
  auto indexed = make("s32[]", 3);
  Literal d = R0<int32_t>(3);
  for (auto [index, expected] : std::vector<std::pair<int32_t, int32_t>>{{0, 101}, {1, 202}, {2, 303}, {3, 303},
                                                                         {-1, 303}, {100, 303}}) {
    Literal i = R0<int32_t>(index);
    EXPECT_LITERAL(HloEvaluator().Evaluate(*indexed, {&i, &a, &c, &d}), R0<int32_t>(expected));
  }
}

TEST(ControlFlowTest, Fusion) {
  HloModule module("m");
  Builder fb("fused");
  HloInstruction* x = fb.Param(0, "f32[2]");
  HloInstruction* y = fb.Param(1, "f32[2]");
  HloInstruction* s = fb.Op(HloOpcode::kAdd, "f32[2]", {x, y});
  HloComputation* fused = module.AddEmbeddedComputation(fb.Build(fb.Op(HloOpcode::kMultiply, "f32[2]", {s, s})));
  Builder b("entry");
  HloInstruction* p0 = b.Param(0, "f32[2]");
  HloInstruction* p1 = b.Param(1, "f32[2]");
  module.AddEntryComputation(b.Build(b.Op(HloOpcode::kFusion, "f32[2]", {p0, p1}, {}, {fused})));
  Literal a = R1<float>({1, 2}), c = R1<float>({2, 3});
  EXPECT_LITERAL(HloEvaluator().Evaluate(module, {&a, &c}), R1<float>({9, 25}));
}

// --- Layouts, arguments, errors --------------------------------------------------------------

TEST(EvaluatorTest, LayoutsOfArgumentsAndResult) {
  HloModule module("m");
  Builder b("entry");
  HloInstruction* p = b.Param(0, "f32[2,3]{0,1}");
  HloInstruction* t = b.Op(HloOpcode::kTranspose, "f32[3,2]{0,1}", {p}, Dims({1, 0}));
  module.AddEntryComputation(b.Build(t));
  // Argument given in row-major layout; the parameter's layout differs (allowed).
  Literal x = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  auto r = HloEvaluator().Evaluate(module, {&x});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Literal::CreateR2<float>({{1, 4}, {2, 5}, {3, 6}}));
  EXPECT_EQ(r->shape().layout(), Layout({0, 1}));
  // Column-major data: {1,4},{2,5},{3,6} stored as 1 2 3 4 5 6.
  EXPECT_EQ(r->data<float>()[1], 2.0f);
  // Argument in column-major layout.
  Literal xc = x.Relayout(Layout({0, 1}));
  EXPECT_LITERAL(HloEvaluator().Evaluate(module, {&xc}), Literal::CreateR2<float>({{1, 4}, {2, 5}, {3, 6}}));
}

TEST(EvaluatorTest, BitcastFollowsLayouts) {
  HloModule module("m");
  Builder b("entry");
  HloInstruction* p = b.Param(0, "f32[2,3]{0,1}");
  module.AddEntryComputation(b.Build(b.Op(HloOpcode::kBitcast, "f32[3,2]{1,0}", {p})));
  Literal x = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  // Physical order of x in {0,1} is 1 4 2 5 3 6, read as row-major [3,2].
  EXPECT_LITERAL(HloEvaluator().Evaluate(module, {&x}), Literal::CreateR2<float>({{1, 4}, {2, 5}, {3, 6}}));
}

TEST(EvaluatorTest, ArgumentErrorsNameTheParameter) {
  auto m = OneOp(HloOpcode::kAdd, "f32[2]", {"f32[2]", "f32[2]"});
  Literal a = R1<float>({1, 2});
  Literal bad = R1<float>({1, 2, 3});
  EXPECT_ERROR(Eval(*m, {&a}), "takes 2 arguments");
  EXPECT_ERROR(Eval(*m, {&a, &bad}), "parameter 'p1'");
}

TEST(EvaluatorTest, UnimplementedOpcodeIsNamed) {
  // A custom-call runs a registered handler; none is registered here.
  EXPECT_ERROR(EvalOp(HloOpcode::kCustomCall, "f32[1]", {R1<float>({1})}), "target '' is not registered");
  EXPECT_ERROR(EvalOp(HloOpcode::kAddDependency, "f32[1]", {R1<float>({1}), Literal::CreateToken()}),
               "opcode 'add-dependency' is not implemented");
}

// Without a ReplicaContext an evaluation is one process: a collective over
// a group of one returns its operand; send and recv have no channel table.
TEST(EvaluatorTest, SingleProcessCollectivesAndChannels) {
  HloInstructionProto split;
  split.add_dimensions(0);
  EXPECT_LITERAL(EvalOp(HloOpcode::kAllToAll, "f32[2]", {R1<float>({1, 2})}, split), R1<float>({1, 2}));
  auto r = EvalOp(HloOpcode::kSend, "(f32[1], u32[], token[])", {R1<float>({1}), Literal::CreateToken()});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("no channel table"));
}

TEST(EvaluatorTest, DeadCodeIsNotEvaluated) {
  HloModule module("m");
  Builder b("entry");
  HloInstruction* p = b.Param(0, "f32[1]");
  b.Op(HloOpcode::kFft, "f32[1]", {p});  // unimplemented, but unused
  module.AddEntryComputation(b.Build(b.Op(HloOpcode::kNegate, "f32[1]", {p})));
  Literal x = R1<float>({2});
  EXPECT_LITERAL(HloEvaluator().Evaluate(module, {&x}), R1<float>({-2}));
}

TEST(EvaluatorTest, EvaluateInstructionOnConstants) {
  HloModule module("m");
  Builder b("entry");
  HloInstruction* c1 = b.Const(R1<int32_t>({1, 2}));
  HloInstruction* c2 = b.Const(R1<int32_t>({3, 4}));
  HloInstruction* add = b.Op(HloOpcode::kAdd, "s32[2]", {c1, c2});
  module.AddEntryComputation(b.Build(add));
  Literal x = R1<int32_t>({10, 20}), y = R1<int32_t>({1, 1});
  EXPECT_LITERAL(HloEvaluator().EvaluateInstruction(*add, {&x, &y}), R1<int32_t>({11, 21}));
  EXPECT_LITERAL(HloEvaluator().EvaluateInstruction(*c1, {}), R1<int32_t>({1, 2}));
  EXPECT_ERROR(HloEvaluator().EvaluateInstruction(*add, {&x}), "operands");
  EXPECT_LITERAL(HloEvaluator().Evaluate(module, {}), R1<int32_t>({4, 6}));
}

TEST(EvaluatorTest, CyclicCallIsAnErrorNotACrash) {
  // Hand-built (CreateFromProto would reject it): a computation that calls itself.
  HloModule module("m");
  HloComputation* placeholder = module.AddEmbeddedComputation(BinaryComputation("add", HloOpcode::kAdd, "s32"));
  Builder b("self");
  HloInstruction* x = b.Param(0, "s32[]");
  HloInstruction* call = b.Op(HloOpcode::kCall, "s32[]", {x}, {}, {placeholder});
  HloComputation* self = module.AddEntryComputation(b.Build(call));
  call->set_called_computation(0, self);
  Literal a = R0<int32_t>(1);
  EXPECT_ERROR(HloEvaluator().Evaluate(module, {&a}), "nest deeper");
}

TEST(EvaluatorTest, HugeResultIsResourceExhausted) {
  HloModule module("m");
  Builder b("entry");
  HloInstruction* one = b.Const(R0<float>(1));
  module.AddEntryComputation(b.Build(b.Op(HloOpcode::kBroadcast, "f32[1073741824,1073741824]", {one}, Dims({}))));
  auto r = HloEvaluator().Evaluate(module, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
}

TEST(EvaluatorTest, DeclaredShapeMismatchIsError) {
  // The instruction claims s32[3] but adding two s32[2] gives s32[2].
  EXPECT_ERROR(EvalOp(HloOpcode::kAdd, "s32[3]", {R1<int32_t>({1, 2}), R1<int32_t>({1, 2})}), "");
  EXPECT_ERROR(EvalOp(HloOpcode::kReshape, "s32[3]", {R1<int32_t>({1, 2})}), "element counts");
}

// --- Modules from HLO text ---------------------------------------------------------------

absl::StatusOr<Literal> EvalText(const std::string& text, std::vector<const Literal*> args,
                                 int64_t max_loop_iterations = -1) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return HloEvaluator(max_loop_iterations).Evaluate(**module, args);
}

TEST(HloTextTest, SoftmaxRow) {
  const char* text = R"(
HloModule softmax

max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[2,3] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  mx = f32[2] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mxb = f32[2,3] broadcast(mx), dimensions={0}
  d = f32[2,3] subtract(x, mxb)
  e = f32[2,3] exponential(d)
  s = f32[2] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[2,3] broadcast(s), dimensions={0}
  ROOT r = f32[2,3] divide(e, sb)
})";
  Literal x = Literal::CreateR2<float>({{1, 2, 3}, {0, 0, 0}});
  auto r = EvalText(text, {&x});
  ASSERT_TRUE(r.ok()) << r.status();
  float z = std::exp(-2.0f) + std::exp(-1.0f) + 1.0f;
  EXPECT_FLOAT_EQ(r->Get<float>({0, 0}), std::exp(-2.0f) / z);
  EXPECT_FLOAT_EQ(r->Get<float>({0, 2}), 1.0f / z);
  EXPECT_FLOAT_EQ(r->Get<float>({1, 1}), 1.0f / 3);
}

TEST(HloTextTest, WhileLoopSumsOneToTen) {
  const char* text = R"(
HloModule loop

cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  acc1 = s32[] add(acc, i1)
  ROOT t = (s32[], s32[]) tuple(i1, acc1)
}

ENTRY main {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT sum = s32[] get-tuple-element(w), index=1
})";
  EXPECT_LITERAL(EvalText(text, {}), R0<int32_t>(55));
  EXPECT_ERROR(EvalText(text, {}, 5), "limit of 5 iterations");
}

TEST(HloTextTest, ConditionalAndSliceOps) {
  const char* text = R"(
HloModule cond

neg {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}

rev {
  x = f32[4] parameter(0)
  ROOT r = f32[4] reverse(x), dimensions={0}
}

ENTRY main {
  p = pred[] parameter(0)
  x = f32[6] parameter(1)
  s = f32[4] slice(x), slice={[1:5]}
  ROOT c = f32[4] conditional(p, s, s), true_computation=neg, false_computation=rev
})";
  Literal x = R1<float>({0, 1, 2, 3, 4, 5});
  Literal t = R0<bool>(true), f = R0<bool>(false);
  EXPECT_LITERAL(EvalText(text, {&t, &x}), R1<float>({-1, -2, -3, -4}));
  EXPECT_LITERAL(EvalText(text, {&f, &x}), R1<float>({4, 3, 2, 1}));
}

TEST(HloTextTest, DotWithLayoutsAndConstants) {
  const char* text = R"(
HloModule dot

ENTRY main {
  a = f32[2,3]{0,1} parameter(0)
  b = f32[3,2] constant({{1, 0}, {0, 1}, {1, 1}})
  ROOT d = f32[2,2]{0,1} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  Literal a = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  EXPECT_LITERAL(EvalText(text, {&a}), Literal::CreateR2<float>({{4, 5}, {10, 11}}));
}

// A fusion with its fused computation, a bitcast to another element type of
// the same byte size and an opt-barrier over a tuple; no HloModule header.
TEST(HloTextTest, FusionBitcastAndOptBarrier) {
  const char* text = R"(
%fused_computation (p0: f32[2,3], p1: f32[2,3]) -> f32[2,3] {
  %p0 = f32[2,3]{1,0} parameter(0)
  %p1 = f32[2,3]{1,0} parameter(1)
  %sum = f32[2,3]{1,0} add(%p0, %p1)
  ROOT %prod = f32[2,3]{1,0} multiply(%sum, %p0)
}

ENTRY %main (x: f32[2,3], y: f32[2,3]) -> (s32[6], f32[2,3]) {
  %x = f32[2,3]{1,0} parameter(0)
  %y = f32[2,3]{1,0} parameter(1)
  %fusion = f32[2,3]{1,0} fusion(%x, %y), kind=kLoop, calls=%fused_computation
  %bc = s32[6]{0} bitcast(%fusion)
  %t = (s32[6]{0}, f32[2,3]{1,0}) tuple(%bc, %y)
  ROOT %barrier = (s32[6]{0}, f32[2,3]{1,0}) opt-barrier(%t)
})";
  Literal x = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  Literal y = Literal::CreateR2<float>({{1, 1, 1}, {-1, -2, -3}});
  auto r = EvalText(text, {&x, &y});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->tuple_elements().size(), 2u);
  // (x + y) * x = {{2, 6, 12}, {12, 15, 18}}, as its f32 bit patterns.
  std::vector<int32_t> bits;
  for (float v : {2.0f, 6.0f, 12.0f, 12.0f, 15.0f, 18.0f}) {
    int32_t b;
    std::memcpy(&b, &v, sizeof b);
    bits.push_back(b);
  }
  EXPECT_EQ(r->tuple_elements()[0], Literal::CreateR1<int32_t>(bits));
  EXPECT_EQ(bits[0], 0x40000000);  // 2.0f
  EXPECT_EQ(r->tuple_elements()[1], y);
}

TEST(EvaluatorTest, BitcastBetweenElementTypesOfTheSameByteSize) {
  // s32 {1, -1} as little-endian u16 pieces.
  EXPECT_LITERAL(EvalOp(HloOpcode::kBitcast, "u16[4]", {R1<int32_t>({1, -1})}),
                 R1<uint16_t>({1, 0, 0xFFFF, 0xFFFF}));
  // f64 1.0 = 0x3FF0000000000000 as two u32 words, low word first.
  EXPECT_LITERAL(EvalOp(HloOpcode::kBitcast, "u32[2,1]", {R1<double>({1.0})}),
                 Literal::CreateR2<uint32_t>({{0}, {0x3FF00000u}}));
  EXPECT_LITERAL(EvalOp(HloOpcode::kBitcast, "f32[]", {R1<uint32_t>({0x3F800000u})}), R0<float>(1.0f));
  EXPECT_ERROR(EvalOp(HloOpcode::kBitcast, "f32[3]", {R1<int32_t>({1, 2})}), "cannot bitcast s32[2]");
  EXPECT_ERROR(EvalOp(HloOpcode::kBitcast, "pred[4]", {R1<uint8_t>({0, 1, 2, 3})}), "cannot bitcast u8[4]");
}

TEST(EvaluatorTest, OptBarrierPassesValuesThrough) {
  EXPECT_LITERAL(EvalOp(HloOpcode::kOptimizationBarrier, "f32[3]", {R1<float>({1, kNaN, -0.0f})}),
                 R1<float>({1, kNaN, -0.0f}));
  HloModule module("m");
  Builder b("entry");
  HloInstruction* p0 = b.Param(0, "f32[2]");
  HloInstruction* p1 = b.Param(1, "s32[]");
  HloInstruction* t = b.Op(HloOpcode::kTuple, "(f32[2], s32[])", {p0, p1});
  module.AddEntryComputation(b.Build(b.Op(HloOpcode::kOptimizationBarrier, "(f32[2], s32[])", {t})));
  Literal a = R1<float>({3, 4}), c = R0<int32_t>(-7);
  std::vector<Literal> elements;
  elements.push_back(R1<float>({3, 4}));
  elements.push_back(R0<int32_t>(-7));
  EXPECT_LITERAL(HloEvaluator().Evaluate(module, {&a, &c}), Literal::MakeTuple(std::move(elements)));
}

}  // namespace
}  // namespace xla
