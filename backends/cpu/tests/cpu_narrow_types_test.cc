// The CPU backend against the reference evaluator, bit for bit, on S2/S4/
// U2/U4 (i8 registers wrapped to the width after every op) and the f8/f6/f4
// formats (float registers; converts in emitted IR): exhaustive operand
// pairs for the integer ops, every encoding of each small float, and data
// movement.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

using cpu_test::RunOnCpu;

// Runs `text` on both and compares the result bytes exactly, except that
// any NaN matches any NaN (which operand's NaN, and so its sign and payload,
// a binary op passes on is not specified, as for f32).
void ExpectSameBits(const std::string& text, const std::vector<Literal>& args) {
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
  std::vector<const Literal*> ptrs;
  for (const Literal& a : args) ptrs.push_back(&a);
  auto expected = HloEvaluator().Evaluate(**module, ptrs);
  ASSERT_TRUE(expected.ok()) << expected.status() << "\n" << text;
  auto actual = RunOnCpu(text, args);
  ASSERT_TRUE(actual.ok()) << actual.status() << "\n" << text;
  ASSERT_EQ(actual->shape().element_type(), expected->shape().element_type()) << text;
  Literal a = actual->Relayout(expected->shape().layout());
  ASSERT_EQ(a.size_bytes(), expected->size_bytes()) << text;
  const auto* e_bytes = static_cast<const uint8_t*>(expected->untyped_data());
  const auto* a_bytes = static_cast<const uint8_t*>(a.untyped_data());
  const int w = primitive_util::ByteWidth(expected->element_type());
  for (int64_t i = 0; i < expected->element_count(); ++i) {
    if (std::memcmp(e_bytes + i * w, a_bytes + i * w, w) != 0 &&
        !(std::isnan(expected->GetAsDouble(i)) && std::isnan(a.GetAsDouble(i)))) {
      ADD_FAILURE() << "element " << i << ": evaluator " << expected->GetAsDouble(i) << " (byte "
                    << static_cast<int>(e_bytes[i * w]) << "), cpu " << a.GetAsDouble(i) << " (byte "
                    << static_cast<int>(a_bytes[i * w]) << ")\n"
                    << text << "\nargs: " << (args.empty() ? "" : args[0].ToString().substr(0, 300));
      return;
    }
  }
}

// Every (lhs, rhs) pair of a narrow integer type, lhs-major.
std::vector<Literal> AllPairs(PrimitiveType type) {
  const int n = 1 << primitive_util::BitWidth(type);
  Literal lhs(ShapeUtil::MakeShape(type, {n * n})), rhs(ShapeUtil::MakeShape(type, {n * n}));
  auto* l = static_cast<uint8_t*>(lhs.untyped_data());
  auto* r = static_cast<uint8_t*>(rhs.untyped_data());
  const bool is_signed = primitive_util::IsSignedIntegralType(type);
  const int bits = primitive_util::BitWidth(type);
  auto byte = [&](int v) {
    uint8_t b = static_cast<uint8_t>(v);
    if (is_signed && (v >> (bits - 1)) & 1) b |= static_cast<uint8_t>(0xFFu << bits);
    return b;
  };
  for (int i = 0; i < n * n; ++i) {
    l[i] = byte(i / n);
    r[i] = byte(i % n);
  }
  std::vector<Literal> args;
  args.push_back(std::move(lhs));
  args.push_back(std::move(rhs));
  return args;
}

class NarrowIntOps : public ::testing::TestWithParam<PrimitiveType> {};

TEST_P(NarrowIntOps, EveryPairMatchesTheEvaluator) {
  const PrimitiveType type = GetParam();
  const std::string t = std::string(primitive_util::LowercaseName(type));
  const int n = 1 << primitive_util::BitWidth(type);
  const std::string shape = absl::StrCat(t, "[", n * n, "]");
  std::vector<Literal> args = AllPairs(type);
  for (const char* op : {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or",
                         "xor", "shift-left", "shift-right-logical", "shift-right-arithmetic", "power"}) {
    SCOPED_TRACE(op);
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  b = ", shape,
                                " parameter(1)\n  ROOT r = ", shape, " ", op, "(a, b)\n}\n"),
                   args);
  }
  std::vector<Literal> unary_args;
  unary_args.push_back(Literal(args[0]));
  for (const char* op : {"not", "negate", "abs", "sign", "popcnt", "count-leading-zeros"}) {
    SCOPED_TRACE(op);
    const bool signed_only = std::string(op) == "abs" || std::string(op) == "sign";
    if (signed_only && !primitive_util::IsSignedIntegralType(type)) continue;
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  ROOT r = ", shape, " ",
                                op, "(a)\n}\n"),
                   unary_args);
  }
  for (const char* dir : {"LT", "GE", "EQ"}) {
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  b = ", shape,
                                " parameter(1)\n  ROOT r = pred[", n * n, "] compare(a, b), direction=", dir, "\n}\n"),
                   args);
  }
  // Fused chains: every op's result is wrapped before the next reads it.
  ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  b = ", shape,
                              " parameter(1)\n  s = ", shape, " add(a, b)\n  m = ", shape,
                              " multiply(s, s)\n  c = ", shape, " shift-right-logical(m, b)\n  ROOT r = ", shape,
                              " popcnt(c)\n}\n"),
                 args);
  // Converts to and from wider and narrower types.
  for (const char* to : {"s32", "u8", "f32", "f16", "s2", "u2", "s4", "u4", "f8e4m3fn"}) {
    SCOPED_TRACE(to);
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  ROOT r = ", to, "[", n * n,
                                "] convert(a)\n}\n"),
                   unary_args);
  }
}

INSTANTIATE_TEST_SUITE_P(Types, NarrowIntOps, ::testing::Values(S2, S4, U2, U4),
                         [](const auto& info) { return std::string(primitive_util::LowercaseName(info.param)); });

TEST(NarrowIntTest, ConvertsIntoTheNarrowTypes) {
  std::mt19937_64 rng(7);
  Literal f = cpu_test::RandomLiteral(ShapeUtil::MakeShape(F32, {300}), rng, 20.0);
  f.data<float>()[0] = std::numeric_limits<float>::quiet_NaN();
  f.data<float>()[1] = std::numeric_limits<float>::infinity();
  f.data<float>()[2] = -1e30f;
  Literal s = cpu_test::RandomLiteral(ShapeUtil::MakeShape(S32, {300}), rng, 0, 40);
  for (const char* to : {"s2", "u2", "s4", "u4"}) {
    SCOPED_TRACE(to);
    std::vector<Literal> fa;
    fa.push_back(Literal(f));
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = f32[300] parameter(0)\n  ROOT r = ", to,
                                "[300] convert(a)\n}\n"),
                   fa);
    std::vector<Literal> sa;
    sa.push_back(Literal(s));
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = s32[300] parameter(0)\n  ROOT r = ", to,
                                "[300] convert(a)\n}\n"),
                   sa);
  }
}

const PrimitiveType kSmallFloats[] = {F8E5M2,     F8E4M3,     F8E4M3FN,  F8E4M3B11FNUZ, F8E3M4,  F8E5M2FNUZ,
                                      F8E4M3FNUZ, F8E8M0FNU, F6E2M3FN, F6E3M2FN,      F4E2M1FN};

// Every encoding of `type`, once.
Literal AllEncodings(PrimitiveType type) {
  const int n = 1 << primitive_util::BitWidth(type);
  Literal lit(ShapeUtil::MakeShape(type, {n}));
  for (int i = 0; i < n; ++i) static_cast<uint8_t*>(lit.untyped_data())[i] = static_cast<uint8_t>(i);
  return lit;
}

class SmallFloatOps : public ::testing::TestWithParam<PrimitiveType> {};

TEST_P(SmallFloatOps, ConvertsMatchTheEvaluator) {
  const PrimitiveType type = GetParam();
  const std::string t = std::string(primitive_util::LowercaseName(type));
  const int n = 1 << primitive_util::BitWidth(type);
  // Every encoding to wider types and to every other small float.
  for (PrimitiveType to : {F32, F64, F16, BF16, S32, U8, S4}) {
    std::vector<Literal> args;
    args.push_back(AllEncodings(type));
    SCOPED_TRACE(primitive_util::LowercaseName(to));
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", t, "[", n, "] parameter(0)\n  ROOT r = ",
                                primitive_util::LowercaseName(to), "[", n, "] convert(a)\n}\n"),
                   args);
  }
  for (PrimitiveType to : kSmallFloats) {
    std::vector<Literal> args;
    args.push_back(AllEncodings(type));
    SCOPED_TRACE(primitive_util::LowercaseName(to));
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", t, "[", n, "] parameter(0)\n  ROOT r = ",
                                primitive_util::LowercaseName(to), "[", n, "] convert(a)\n}\n"),
                   args);
  }
  // Wide values (random over several binades, and the special values) in.
  std::mt19937_64 rng(11);
  const int m = 1000;
  Literal f(ShapeUtil::MakeShape(F32, {m}));
  Literal d(ShapeUtil::MakeShape(F64, {m}));
  Literal s(ShapeUtil::MakeShape(S32, {m}));
  for (int i = 0; i < m; ++i) {
    double v = std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng),
                          static_cast<int>(rng() % 60) - 30);
    f.data<float>()[i] = static_cast<float>(v);
    d.data<double>()[i] = v;
    // Clamped: a double outside int's range does not convert (UBSan).
    s.data<int32_t>()[i] = static_cast<int32_t>(std::clamp(v * 1e-3 * (1 << 20), -2147483648.0, 2147483647.0));
  }
  const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                            1e-40f, 448.0f, 464.0f, 465.0f, 57344.0f, 61440.0f, 6.0f, 7.0f, 0.25f, 0.75f};
  for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); ++i) {
    f.data<float>()[i] = specials[i];
    d.data<double>()[i] = specials[i];
  }
  for (const Literal* src : {&f, &d, &s}) {
    std::vector<Literal> args;
    args.push_back(Literal(*src));
    SCOPED_TRACE(primitive_util::LowercaseName(src->element_type()));
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", primitive_util::LowercaseName(src->element_type()),
                                "[", m, "] parameter(0)\n  ROOT r = ", t, "[", m, "] convert(a)\n}\n"),
                   args);
  }
}

TEST_P(SmallFloatOps, ArithmeticOnEveryPairMatchesTheEvaluator) {
  const PrimitiveType type = GetParam();
  const std::string t = std::string(primitive_util::LowercaseName(type));
  const int n = 1 << primitive_util::BitWidth(type);
  Literal lhs(ShapeUtil::MakeShape(type, {n * n})), rhs(ShapeUtil::MakeShape(type, {n * n}));
  for (int i = 0; i < n * n; ++i) {
    static_cast<uint8_t*>(lhs.untyped_data())[i] = static_cast<uint8_t>(i / n);
    static_cast<uint8_t*>(rhs.untyped_data())[i] = static_cast<uint8_t>(i % n);
  }
  const std::string shape = absl::StrCat(t, "[", n * n, "]");
  std::vector<Literal> args;
  args.push_back(std::move(lhs));
  args.push_back(std::move(rhs));
  for (const char* op : {"add", "subtract", "multiply", "divide", "maximum", "minimum"}) {
    SCOPED_TRACE(op);
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  b = ", shape,
                                " parameter(1)\n  ROOT r = ", shape, " ", op, "(a, b)\n}\n"),
                   args);
  }
  std::vector<Literal> unary_args;
  unary_args.push_back(Literal(args[0]));
  for (const char* op : {"negate", "abs", "sqrt", "exponential", "floor", "sign"}) {
    SCOPED_TRACE(op);
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  ROOT r = ", shape, " ", op,
                                "(a)\n}\n"),
                   unary_args);
  }
  ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  b = ", shape,
                              " parameter(1)\n  ROOT r = pred[", n * n, "] compare(a, b), direction=LT\n}\n"),
                 args);
  ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  b = ", shape,
                              " parameter(1)\n  ROOT r = pred[", n * n,
                              "] compare(a, b), direction=LT, type=TOTALORDER\n}\n"),
                 args);
}

INSTANTIATE_TEST_SUITE_P(Types, SmallFloatOps, ::testing::ValuesIn(kSmallFloats),
                         [](const auto& info) { return std::string(primitive_util::LowercaseName(info.param)); });

TEST(NarrowTypesTest, DataMovementAndConstants) {
  for (const char* t : {"s4", "u2", "f8e4m3fn", "f4e2m1fn", "f8e8m0fnu"}) {
    SCOPED_TRACE(t);
    std::mt19937_64 rng(3);
    std::vector<Literal> args;
    auto shape = ShapeUtil::ParseShape(absl::StrCat(t, "[6,10]"));
    ASSERT_TRUE(shape.ok());
    args.push_back(cpu_test::RandomLiteral(*shape, rng, 4.0));
    auto pred_shape = ShapeUtil::ParseShape("pred[10,6]");
    args.push_back(cpu_test::RandomLiteral(*pred_shape, rng, 1.0));
    const std::string m = absl::StrCat(t, "[6,10]"), tr = absl::StrCat(t, "[10,6]");
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", m, " parameter(0)\n  p = pred[10,6] parameter(1)\n",
                                "  t = ", tr, " transpose(a), dimensions={1,0}\n",
                                "  rv = ", tr, " reverse(t), dimensions={0}\n",
                                "  ROOT s = ", tr, " select(p, t, rv)\n}\n"),
                   args);
    args.pop_back();
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  a = ", m, " parameter(0)\n",
                                "  s = ", t, "[3,10] slice(a), slice={[1:4], [0:10]}\n",
                                "  c = ", t, "[9,10] concatenate(a, s), dimensions={0}\n",
                                "  ROOT r = ", t, "[90] reshape(c)\n}\n"),
                   args);
  }
  // Constants: the literal's bytes are the buffer's.
  ExpectSameBits("HloModule m\nENTRY e {\n  c = s4[5] constant({-8, -1, 0, 1, 7})\n"
                 "  d = s4[5] constant({1, 1, 1, 1, 1})\n  ROOT r = s4[5] add(c, d)\n}\n",
                 {});
  ExpectSameBits("HloModule m\nENTRY e {\n  c = f8e4m3fn[3] constant({448, -0.1015625, nan})\n"
                 "  ROOT r = f8e4m3fn[3] copy(c)\n}\n",
                 {});
  ExpectSameBits("HloModule m\nENTRY e {\n  c = f4e2m1fn[] constant(1.5)\n"
                 "  ROOT r = f4e2m1fn[4] broadcast(c), dimensions={}\n}\n",
                 {});
  // Bitcast-convert between widths and between same-width types.
  std::mt19937_64 rng(5);
  std::vector<Literal> bytes;
  bytes.push_back(cpu_test::RandomLiteral(ShapeUtil::MakeShape(S8, {16}), rng, 0));
  ExpectSameBits("HloModule m\nENTRY e {\n  a = s8[16] parameter(0)\n  ROOT r = s4[16,2] bitcast-convert(a)\n}\n",
                 bytes);
  ExpectSameBits("HloModule m\nENTRY e {\n  a = s8[16] parameter(0)\n  ROOT r = f8e5m2[16] bitcast-convert(a)\n}\n",
                 bytes);
  ExpectSameBits("HloModule m\nENTRY e {\n  a = s8[16] parameter(0)\n  ROOT r = u2[16,4] bitcast-convert(a)\n}\n",
                 bytes);
  std::vector<Literal> nibbles;
  nibbles.push_back(AllEncodings(F4E2M1FN));
  ExpectSameBits("HloModule m\nENTRY e {\n  a = f4e2m1fn[16] parameter(0)\n  ROOT r = s4[16] bitcast-convert(a)\n}\n",
                 nibbles);
  ExpectSameBits("HloModule m\nENTRY e {\n  a = f4e2m1fn[16] parameter(0)\n  r = f4e2m1fn[8,2] reshape(a)\n"
                 "  ROOT b = u8[8] bitcast-convert(r)\n}\n",
                 nibbles);
}

TEST(NarrowTypesTest, ReduceAndDot) {
  std::mt19937_64 rng(9);
  for (const char* t : {"s4", "u4", "f8e5m2"}) {
    SCOPED_TRACE(t);
    std::vector<Literal> args;
    args.push_back(cpu_test::RandomLiteral(*ShapeUtil::ParseShape(absl::StrCat(t, "[8,33]")), rng, 3.0));
    args.push_back(cpu_test::RandomLiteral(*ShapeUtil::ParseShape(absl::StrCat(t, "[33,5]")), rng, 3.0));
    ExpectSameBits(absl::StrCat("HloModule m\nadd {\n  a = ", t, "[] parameter(0)\n  b = ", t,
                                "[] parameter(1)\n  ROOT s = ", t, "[] add(a, b)\n}\nENTRY e {\n  x = ", t,
                                "[8,33] parameter(0)\n  y = ", t, "[33,5] parameter(1)\n  z = ", t,
                                "[] constant(0)\n  ROOT r = ", t, "[8] reduce(x, z), dimensions={1}, to_apply=add\n}\n"),
                   args);
    ExpectSameBits(absl::StrCat("HloModule m\nENTRY e {\n  x = ", t, "[8,33] parameter(0)\n  y = ", t,
                                "[33,5] parameter(1)\n  ROOT r = ", t,
                                "[8,5] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n"),
                   args);
  }
}

// f16 minimum/maximum of a NaN and a zero (-0 for minimum, +0 for maximum)
// in vectorized reduce-window loops, in every lane: LLVM 19's x86 lowering of
// <N x half> llvm.minimum/maximum returned the zero
// (fuzz_regressions/f16_vector_minimum_keeps_nan.hlo).
TEST(NarrowTypesTest, F16WindowMinimumAndMaximumKeepNaNNextToZeros) {
  const char* cycle[] = {"nan", "-0", "1", "0", "-nan", "-1", "-0", "2", "0", "nan", "-2", "-0", "0"};
  std::vector<std::string> rows;
  for (int r = 0; r < 3; ++r) {
    std::vector<std::string> row;
    for (int i = 0; i < 70; ++i) row.push_back(cycle[(i + 5 * r) % 13]);
    rows.push_back(absl::StrCat("{", absl::StrJoin(row, ", "), "}"));
  }
  auto arg = Literal::Parse(absl::StrCat("f16[3,70] {", absl::StrJoin(rows, ", "), "}"));
  ASSERT_TRUE(arg.ok()) << arg.status();
  std::vector<Literal> args;
  args.push_back(std::move(*arg));
  for (const auto& [op, init] : {std::pair{"minimum", "inf"}, std::pair{"maximum", "-inf"}}) {
    SCOPED_TRACE(op);
    ExpectSameBits(absl::StrCat("HloModule m\nr {\n  a = f16[] parameter(0)\n  b = f16[] parameter(1)\n  ROOT c = f16[] ",
                                op, "(a, b)\n}\nENTRY e {\n  x = f16[3,70] parameter(0)\n  i = f16[] constant(", init,
                                ")\n  ROOT w = f16[3,34] reduce-window(x, i), window={size=1x3 stride=1x2}, to_apply=r\n}\n"),
                   args);
  }
}

}  // namespace
}  // namespace xla
