#include "xla/literal.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/literal_comparison.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

TEST(LiteralTest, PrintsTheDocumentFormat) {
  EXPECT_EQ(Literal::CreateR2<float>({{1, 2}, {3, 4}}).ToString(), "f32[2,2] {{1, 2}, {3, 4}}");
  EXPECT_EQ(Literal::CreateR0<int32_t>(-7).ToString(), "s32[] -7");
  EXPECT_EQ(Literal::CreateR1<bool>({true, false}).ToString(), "pred[2] {true, false}");
  EXPECT_EQ(Literal::CreateR1<float>({0.1f, 2.5f, -3}).ToString(), "f32[3] {0.1, 2.5, -3}");
  EXPECT_EQ(Literal::CreateR1<complex64>({{1, -2}}).ToString(), "c64[1] {(1, -2)}");
  EXPECT_EQ(Literal(ShapeUtil::MakeShape(F32, {2, 0})).ToString(), "f32[2,0] {{}, {}}");
  Literal t = Literal::MakeTuple({Literal::CreateR0<float>(1), Literal::CreateR1<int32_t>({1, 2})});
  EXPECT_EQ(t.ToString(), "(f32[] 1, s32[2] {1, 2})");
}

// Element values as doubles (NaN compares unequal, so tests use isnan).
std::vector<double> Values(const Literal& literal) {
  std::vector<double> out;
  for (int64_t i = 0; i < literal.element_count(); ++i) out.push_back(literal.GetAsDouble(i));
  return out;
}

TEST(LiteralTest, NarrowTypesRoundTripTextAndProto) {
  // One byte per element; integers sign-/zero-extended; small floats print
  // the shortest text that reads back to the same value of their type.
  const char* texts[] = {
      "s2[4] {-2, -1, 0, 1}", "u2[4] {0, 1, 2, 3}", "s4[5] {-8, -1, 0, 1, 7}", "u4[3] {0, 8, 15}",
      "f8e5m2[4] {0.09375, -57344, inf, nan}", "f8e4m3[3] {240, -0.001953125, -inf}",
      "f8e4m3fn[4] {448, -0, 0.1015625, nan}", "f8e4m3b11fnuz[2] {30, -0.0001220703125}",
      "f8e3m4[2] {15.5, 0.015625}", "f8e5m2fnuz[2] {57344, nan}", "f8e4m3fnuz[3] {240, -1, nan}",
      "f8e8m0fnu[3] {1, 4, 0.125}", "f6e2m3fn[3] {7.5, -0.125, -0}", "f6e3m2fn[2] {28, 0.0625}",
      "f4e2m1fn[4] {6, -0.5, 1.5, -0}",
  };
  for (const char* text : texts) {
    absl::StatusOr<Literal> parsed = Literal::Parse(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_EQ(parsed->size_bytes(), parsed->element_count());
    absl::StatusOr<Literal> reparsed = Literal::Parse(parsed->ToString());
    ASSERT_TRUE(reparsed.ok()) << parsed->ToString() << ": " << reparsed.status();
    EXPECT_EQ(std::memcmp(reparsed->untyped_data(), parsed->untyped_data(), parsed->size_bytes()), 0) << text;
    absl::StatusOr<Literal> from_proto = Literal::FromProto(parsed->ToProto());
    ASSERT_TRUE(from_proto.ok()) << text << ": " << from_proto.status();
    EXPECT_EQ(from_proto->shape(), parsed->shape());
    EXPECT_EQ(std::memcmp(from_proto->untyped_data(), parsed->untyped_data(), parsed->size_bytes()), 0) << text;
  }
  EXPECT_EQ(Literal::Parse("s4[5] {-8, -1, 0, 1, 7}")->ToString(), "s4[5] {-8, -1, 0, 1, 7}");
  EXPECT_EQ(Literal::Parse("f4e2m1fn[4] {6, -0.5, 1.5, -0}")->ToString(), "f4e2m1fn[4] {6, -0.5, 1.5, -0}");
  EXPECT_EQ(Literal::Parse("f8e4m3fn[2] {0.1015625, 500}")->ToString(), "f8e4m3fn[2] {0.1, nan}");
  // The stored bytes.
  Literal s4 = *Literal::Parse("s4[3] {-8, -1, 7}");
  const uint8_t* b = static_cast<const uint8_t*>(s4.untyped_data());
  EXPECT_EQ(b[0], 0xF8);
  EXPECT_EQ(b[1], 0xFF);
  EXPECT_EQ(b[2], 0x07);
  EXPECT_EQ(*static_cast<const uint8_t*>(Literal::Parse("f8e4m3fn[] 448")->untyped_data()), 0x7E);
  EXPECT_EQ(s4.ToProto().s4s(), std::string("\xF8\xFF\x07", 3));
  // Out of range values and bytes are errors.
  EXPECT_FALSE(Literal::Parse("s4[1] {8}").ok());
  EXPECT_FALSE(Literal::Parse("u2[1] {4}").ok());
  EXPECT_FALSE(Literal::Parse("u4[1] {-1}").ok());
  LiteralProto bad = Literal::Parse("u4[1] {1}")->ToProto();
  bad.set_u4s(std::string("\x10", 1));
  EXPECT_FALSE(Literal::FromProto(bad).ok());
  LiteralProto bad_f4 = Literal::Parse("f4e2m1fn[1] {1}")->ToProto();
  bad_f4.set_f4e2m1fns(std::string("\x12", 1));
  EXPECT_FALSE(Literal::FromProto(bad_f4).ok());
}

TEST(LiteralTest, NarrowTypesConvertAndLimits) {
  // float -> s4 saturates (NaN -> 0); integer -> s4/u4 wraps; f32 -> f8e4m3fn
  // overflows to NaN; f8 -> f32 is exact.
  Literal f = *Literal::Parse("f32[5] {-100, 100, 3.7, -3.7, nan}");
  EXPECT_EQ(f.Convert(S4)->ToString(), "s4[5] {-8, 7, 3, -3, 0}");
  EXPECT_EQ(f.Convert(U2)->ToString(), "u2[5] {0, 3, 3, 0, 0}");
  EXPECT_EQ(Literal::Parse("s32[3] {17, -9, 8}")->Convert(S4)->ToString(), "s4[3] {1, 7, -8}");
  EXPECT_EQ(Literal::Parse("s32[2] {17, -1}")->Convert(U4)->ToString(), "u4[2] {1, 15}");
  EXPECT_EQ(Literal::Parse("s4[2] {-1, 7}")->Convert(U4)->ToString(), "u4[2] {15, 7}");
  EXPECT_EQ(Literal::Parse("s4[2] {-1, 7}")->Convert(F32)->ToString(), "f32[2] {-1, 7}");
  std::vector<double> v = Values(*Literal::Parse("f32[3] {465, 464, -0.1}")->Convert(F8E4M3FN));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 448);
  EXPECT_EQ(v[2], -0.1015625);
  EXPECT_EQ(Values(*Literal::Parse("f64[1] {1e10}")->Convert(F8E5M2))[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(Values(*Literal::Parse("f8e4m3fn[1] {0.1015625}")->Convert(F8E5M2))[0], 0.09375);
  EXPECT_EQ(Literal::Parse("f8e5m2[2] {0.09375, -57344}")->Convert(S32)->ToString(), "s32[2] {0, -57344}");
  EXPECT_EQ(Literal::Parse("f4e2m1fn[1] {6}")->Convert(BF16)->ToString(), "bf16[1] {6}");
  EXPECT_EQ(Literal::MinValue(S4).ToString(), "s4[] -8");
  EXPECT_EQ(Literal::MaxValue(U2).ToString(), "u2[] 3");
  EXPECT_EQ(Literal::MinValue(F8E4M3FN).ToString(), "f8e4m3fn[] -448");
  EXPECT_EQ(Literal::MaxValue(F8E5M2).ToString(), "f8e5m2[] inf");
  EXPECT_EQ(Literal::MinValue(F8E8M0FNU).GetAsDouble(0), std::ldexp(1.0, -127));
  // Bitcast-convert between widths, element 0 in the low bits.
  EXPECT_EQ(Literal::Parse("s8[] 58")->BitcastConvert(ShapeUtil::MakeShape(S4, {2}))->ToString(),
            "s4[2] {-6, 3}");
  EXPECT_EQ(Literal::Parse("u4[2] {15, 1}")->BitcastConvert(ShapeUtil::MakeShape(U8, {}))->ToString(), "u8[] 31");
  EXPECT_EQ(Literal::Parse("s4[2] {-1, 1}")->BitcastConvert(ShapeUtil::MakeShape(U4, {2}))->ToString(),
            "u4[2] {15, 1}");
  EXPECT_EQ(Literal::Parse("u4[1] {15}")->BitcastConvert(ShapeUtil::MakeShape(F4E2M1FN, {1}))->ToString(),
            "f4e2m1fn[1] {-6}");
  EXPECT_EQ(Literal::Parse("f8e4m3fn[1] {1}")->BitcastConvert(ShapeUtil::MakeShape(U8, {1}))->ToString(),
            "u8[1] {56}");
}

TEST(LiteralTest, TextRoundTripsEveryType) {
  const char* texts[] = {
      "pred[3] {true, false, true}", "s8[2] {-128, 127}", "s16[2] {-32768, 32767}",
      "s32[2,2] {{1, -2}, {3, 4}}", "s64[1] {-9223372036854775808}", "u8[2] {0, 255}", "u16[1] {65535}",
      "u32[1] {4294967295}", "u64[1] {18446744073709551615}", "f16[2] {1.5, -0.25}", "bf16[2] {1, -2.5}",
      "f32[3] {0.1, inf, -inf}", "f64[2] {0.1, 1e+300}", "c64[2] {(1, 2), (-0.5, 0)}", "c128[1] {(1e-300, 3)}",
      "f32[2,1,2] {{{1, 2}}, {{3, 4}}}", "(f32[] 1, (s32[1] {2}, pred[] true))",
  };
  for (const char* text : texts) {
    absl::StatusOr<Literal> parsed = Literal::Parse(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_EQ(parsed->ToString(), text);
    absl::StatusOr<Literal> again = Literal::Parse(parsed->ToString());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *parsed);
  }
}

TEST(LiteralTest, NanPrintsAndParses) {
  Literal nan = Literal::CreateR1<float>({std::numeric_limits<float>::quiet_NaN()});
  EXPECT_EQ(nan.ToString(), "f32[1] {nan}");
  absl::StatusOr<Literal> parsed = Literal::Parse("f32[1] {nan}");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(std::isnan(parsed->data<float>()[0]));
  EXPECT_EQ(*parsed, nan);  // NaN equals NaN for literal comparison
}

TEST(LiteralTest, ParseErrorsNameTheProblem) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"f32[2] {1, 2, 3}", "too many elements"},
      {"f32[3] {1, 2}", "too few elements"},
      {"s8[1] {300}", "not a valid s8"},
      {"u32[1] {-1}", "not a valid u32"},
      {"f32[2] {1, x}", "bad number"},
      {"q32[2] {1, 2}", "unknown element type"},
      {"f32[2] {1, 2} extra", "trailing"},
      {"f32[-1] {}", "offset"},
      {"pred[1] {maybe}", "bad pred"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Literal> parsed = Literal::Parse(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(parsed.status().message()).find(c.message), std::string::npos)
        << c.text << " -> " << parsed.status();
  }
}

TEST(LiteralTest, ProtoRoundTripAndValidation) {
  const char* texts[] = {"pred[2] {true, false}", "s8[2] {-1, 2}", "u16[2] {1, 65535}", "f16[2] {0.5, 2}",
                         "bf16[1] {3}", "s32[2] {1, 2}", "u64[1] {7}", "f64[1] {0.25}", "c64[1] {(1, 2)}",
                         "c128[1] {(3, 4)}", "(f32[] 1, s64[2] {5, 6})"};
  for (const char* text : texts) {
    Literal lit = *Literal::Parse(text);
    absl::StatusOr<Literal> back = Literal::FromProto(lit.ToProto());
    ASSERT_TRUE(back.ok()) << text << ": " << back.status();
    EXPECT_EQ(*back, lit) << text;
  }
  LiteralProto bad = Literal::CreateR1<float>({1, 2}).ToProto();
  bad.add_f32s(3);
  absl::StatusOr<Literal> r = Literal::FromProto(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("needs 2 elements"), std::string::npos) << r.status();
  LiteralProto bytes = Literal::Parse("f16[2] {1, 2}")->ToProto();
  bytes.set_f16s("abc");
  EXPECT_FALSE(Literal::FromProto(bytes).ok());
  LiteralProto huge;
  huge.mutable_shape()->set_element_type(F32);
  huge.mutable_shape()->add_dimensions(int64_t{1} << 40);
  huge.mutable_shape()->add_dimensions(int64_t{1} << 40);
  EXPECT_FALSE(Literal::FromProto(huge).ok());
}

TEST(LiteralTest, ReshapeConvertAndRelayout) {
  Literal m = Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(m.Reshape({3, 2})->ToString(), "s32[3,2] {{1, 2}, {3, 4}, {5, 6}}");
  EXPECT_FALSE(m.Reshape({4}).ok());
  Literal col_major = m.Relayout(Layout({0, 1}));
  EXPECT_EQ(col_major.data<int32_t>()[1], 4);  // column-major storage
  EXPECT_EQ(col_major, m);                      // same values
  EXPECT_EQ(col_major.Reshape({6})->ToString(), "s32[6] {1, 2, 3, 4, 5, 6}");
  Literal f = Literal::CreateR1<float>({1.9f, -1.9f, 3e9f, -3e9f, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_EQ(f.Convert(S32)->ToString(), "s32[5] {1, -1, 2147483647, -2147483648, 0}");
  EXPECT_EQ(Literal::CreateR1<int32_t>({0, 3}).Convert(PRED)->ToString(), "pred[2] {false, true}");
  EXPECT_EQ(Literal::CreateR1<complex64>({{2, 3}}).Convert(F32)->ToString(), "f32[1] {2}");
  EXPECT_EQ(Literal::CreateR1<float>({1.0f}).BitcastConvert(ShapeUtil::MakeShape(U32, {1}))->ToString(),
            "u32[1] {1065353216}");
  EXPECT_EQ(Literal::CreateR1<float>({1.0f}).BitcastConvert(ShapeUtil::MakeShape(U8, {1, 4}))->ToString(),
            "u8[1,4] {{0, 0, 128, 63}}");
  // pred is one bit, least significant first: 0b00000110 = 6.
  EXPECT_EQ(Literal::CreateR1<bool>({false, true, true, false, false, false, false, false})
                .BitcastConvert(ShapeUtil::MakeShape(U8, {}))
                ->ToString(),
            "u8[] 6");
  EXPECT_EQ(Literal::CreateR1<int16_t>({-32767}).BitcastConvert(ShapeUtil::MakeShape(PRED, {1, 16}))->ToString(),
            "pred[1,16] {{true, false, false, false, false, false, false, false, false, false, false, false, false, "
            "false, false, true}}");
  EXPECT_FALSE(Literal::CreateR1<bool>({true}).BitcastConvert(ShapeUtil::MakeShape(U8, {})).ok());
}

TEST(LiteralTest, ApproximateComparisonReportsFirstMismatch) {
  Literal a = Literal::CreateR1<float>({1, 2, 3});
  Literal b = Literal::CreateR1<float>({1, 2.001f, 3});
  EXPECT_TRUE(literal_comparison::Near(a, b, ErrorSpec{0.01, 0}).ok());
  absl::Status s = literal_comparison::Near(a, b, ErrorSpec{1e-6, 1e-6});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("index {1}"), std::string::npos) << s;
  EXPECT_FALSE(literal_comparison::Equal(a, Literal::CreateR1<float>({1, 2})).ok());
  EXPECT_NEAR(*literal_comparison::MaxAbsDifference(a, b), 0.001, 1e-6);
  // NaN against NaN is no difference; NaN against a number an infinite one.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(*literal_comparison::MaxAbsDifference(Literal::CreateR1<float>({nan, 1}),
                                                  Literal::CreateR1<float>({nan, 1})),
            0);
  EXPECT_TRUE(std::isinf(*literal_comparison::MaxAbsDifference(Literal::CreateR1<float>({1, 5}),
                                                               Literal::CreateR1<float>({1, nan}))));
}

TEST(ShapeUtilTest, ParsesAndValidatesShapes) {
  EXPECT_EQ(ShapeUtil::ParseShape("f32[2,3]{0,1}")->ToString(true), "f32[2,3]{0,1}");
  EXPECT_EQ(ShapeUtil::ParseShape("(f32[], token[])")->ToString(), "(f32[], token[])");
  EXPECT_FALSE(ShapeUtil::ParseShape("f32[2,3]{0,0}").ok());
  EXPECT_FALSE(ShapeUtil::ParseShape("f32[2").ok());
  EXPECT_FALSE(ShapeUtil::ParseShape("f32[2] junk").ok());
  ShapeProto bad_layout = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 2}).ToProto();
  EXPECT_FALSE(ShapeUtil::FromProto(bad_layout).ok());
}

// Conversions to f16/bf16 round once, to nearest even, from every type.
TEST(LiteralTest, ConvertToHalfAndBfloat16RoundsOnce) {
  auto bf16 = [](const Literal& from) {
    absl::StatusOr<Literal> r = from.Convert(BF16);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? static_cast<double>(static_cast<float>(r->data<bfloat16>()[0])) : -1.0;
  };
  auto f16 = [](const Literal& from) {
    absl::StatusOr<Literal> r = from.Convert(F16);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? static_cast<double>(static_cast<float>(r->data<half>()[0])) : -1.0;
  };
  // Just above a tie of the target: rounds up (via float it was the tie, then even, down).
  EXPECT_EQ(bf16(Literal::CreateR0<int32_t>((1 << 24) + (1 << 16) + 1)), (1 << 24) + (1 << 17));
  EXPECT_EQ(bf16(Literal::CreateR0<int64_t>((int64_t{1} << 40) + (int64_t{1} << 32) + 1)),
            std::ldexp(1.0, 40) + std::ldexp(1.0, 33));
  EXPECT_EQ(bf16(Literal::CreateR0<uint64_t>(~uint64_t{0})), std::ldexp(1.0, 64));
  EXPECT_EQ(bf16(Literal::CreateR0<double>(1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40))), 1 + std::ldexp(1.0, -7));
  EXPECT_EQ(bf16(Literal::CreateR0<double>(-1 - std::ldexp(1.0, -8) - std::ldexp(1.0, -40))),
            -1 - std::ldexp(1.0, -7));
  EXPECT_EQ(f16(Literal::CreateR0<double>(1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))), 1 + std::ldexp(1.0, -10));
  // Exact ties still go to even; below a tie goes down.
  EXPECT_EQ(bf16(Literal::CreateR0<double>(1 + std::ldexp(1.0, -8))), 1.0);
  EXPECT_EQ(bf16(Literal::CreateR0<double>(1 + 3 * std::ldexp(1.0, -8))), 1 + std::ldexp(1.0, -6));
  EXPECT_EQ(bf16(Literal::CreateR0<double>(1 + std::ldexp(1.0, -8) - std::ldexp(1.0, -40))), 1.0);
  EXPECT_EQ(f16(Literal::CreateR0<int32_t>(2049)), 2048);
  EXPECT_EQ(f16(Literal::CreateR0<int32_t>(2051)), 2052);
  // Range ends: overflow to inf, f16's largest value, subnormals and signed zeros.
  EXPECT_EQ(f16(Literal::CreateR0<double>(65519.99)), 65504);
  EXPECT_TRUE(std::isinf(f16(Literal::CreateR0<double>(65520))));
  EXPECT_TRUE(std::isinf(f16(Literal::CreateR0<int32_t>(1 << 20))));
  EXPECT_TRUE(std::isinf(bf16(Literal::CreateR0<double>(1e39))));
  EXPECT_EQ(f16(Literal::CreateR0<double>(3e-8)), std::ldexp(1.0, -24));  // above half the smallest subnormal
  EXPECT_EQ(f16(Literal::CreateR0<double>(2.9e-8)), 0.0);
  const double neg_zero = bf16(Literal::CreateR0<double>(-1e-50));
  EXPECT_EQ(neg_zero, 0.0);
  EXPECT_TRUE(std::signbit(neg_zero));
  EXPECT_TRUE(std::isnan(bf16(Literal::CreateR0<double>(std::nan("")))));
  // Complex to f16 converts the real part the same way.
  EXPECT_EQ(f16(Literal::CreateR0<complex128>(complex128(1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 5))),
            1 + std::ldexp(1.0, -10));
  // Already single roundings: from f32, and integers exact in float.
  EXPECT_EQ(bf16(Literal::CreateR0<float>(1 + 0x1p-8f + 0x1p-20f)), 1 + std::ldexp(1.0, -7));
  EXPECT_EQ(f16(Literal::CreateR0<int16_t>(-2049)), -2048);
}

// Shapes are static: dynamic dimensions are refused in text and in protos,
// never read as their bound.
TEST(ShapeUtilTest, DynamicDimensionsInTextAreRefused) {
  auto bounded = ShapeUtil::ParseShape("f32[<=4]");
  ASSERT_FALSE(bounded.ok());
  EXPECT_EQ(bounded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bounded.status().message().find("bounded dynamic dimension '<=4' is not supported (dimension 0 of "
                                            "'f32[<=4]')"),
            std::string::npos)
      << bounded.status();
  auto second = ShapeUtil::ParseShape("f32[2,<=8]{1,0}");
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("bounded dynamic dimension '<=8' is not supported (dimension 1"),
            std::string::npos)
      << second.status();
  auto spaced = ShapeUtil::ParseShape("(s32[], f32[3, <= 5])");
  ASSERT_FALSE(spaced.ok());
  EXPECT_NE(spaced.status().message().find("'<= 5'"), std::string::npos) << spaced.status();
  auto unbounded = ShapeUtil::ParseShape("f32[?,2]");
  ASSERT_FALSE(unbounded.ok());
  EXPECT_NE(unbounded.status().message().find("unbounded dynamic dimension '?' is not supported (dimension 0"),
            std::string::npos)
      << unbounded.status();
  // Before, "<" and "=" were skipped: "f32[=4]" was f32[4].
  EXPECT_FALSE(ShapeUtil::ParseShape("f32[=4]").ok());
  // Literal text goes through the same parser.
  auto literal = Literal::Parse("f32[<=4] {1, 2}");
  ASSERT_FALSE(literal.ok());
  EXPECT_NE(literal.status().message().find("bounded dynamic dimension '<=4'"), std::string::npos)
      << literal.status();
  EXPECT_TRUE(ShapeUtil::ParseShape("f32[4]").ok());
}

TEST(ShapeUtilTest, DynamicDimensionsInProtosAreRefused) {
  ShapeProto proto = ShapeUtil::MakeShape(F32, {2, 8}).ToProto();
  proto.add_is_dynamic_dimension(false);
  proto.add_is_dynamic_dimension(false);
  // All-false flags (as XLA writes them) are a static shape.
  absl::StatusOr<Shape> fine = ShapeUtil::FromProto(proto);
  ASSERT_TRUE(fine.ok()) << fine.status();
  EXPECT_EQ(fine->ToString(), "f32[2,8]");
  proto.set_is_dynamic_dimension(1, true);
  absl::StatusOr<Shape> dynamic = ShapeUtil::FromProto(proto);
  ASSERT_FALSE(dynamic.ok());
  EXPECT_EQ(dynamic.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(dynamic.status().message(),
            "shape proto f32[2,8]: dimension 1 is dynamic (is_dynamic_dimension is true); dynamic shapes are not "
            "supported");
  EXPECT_FALSE(ShapeUtil::CheckStaticShapeProto(proto).ok());
  EXPECT_TRUE(ShapeUtil::CheckStaticShapeProto(ShapeUtil::MakeShape(F32, {2, 8}).ToProto()).ok());

  // Inside a tuple.
  ShapeProto tuple = ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(S32, {}), ShapeUtil::MakeShape(F32, {3})}).ToProto();
  tuple.mutable_tuple_shapes(1)->add_is_dynamic_dimension(true);
  auto in_tuple = ShapeUtil::FromProto(tuple);
  ASSERT_FALSE(in_tuple.ok());
  EXPECT_NE(in_tuple.status().message().find("shape proto f32[3]: dimension 0 is dynamic"), std::string::npos)
      << in_tuple.status();
  EXPECT_FALSE(ShapeUtil::CheckStaticShapeProto(tuple).ok());

  // Program shapes and literals coming from the wire.
  ProgramShapeProto ps;
  *ps.add_parameters() = ShapeUtil::MakeShape(F32, {4}).ToProto();
  *ps.mutable_result() = proto;
  EXPECT_FALSE(ShapeUtil::ProgramShapeFromProto(ps).ok());
  LiteralProto lit = Literal::CreateR1<float>({1, 2, 3, 4}).ToProto();
  ASSERT_TRUE(Literal::FromProto(lit).ok());
  lit.mutable_shape()->add_is_dynamic_dimension(true);
  auto lit_or = Literal::FromProto(lit);
  ASSERT_FALSE(lit_or.ok());
  EXPECT_NE(lit_or.status().message().find("dimension 0 is dynamic"), std::string::npos) << lit_or.status();
}

}  // namespace
}  // namespace xla

namespace xla {
namespace {

// Found by the literal_proto fuzzer: printing f32[14,16,4,26,3,114,1,2,17,0]
// wrote 2.7e8 nested empty braces (a 30 s timeout). Zero-element arrays with
// more than 4096 empty groups print as "{}"; both forms parse.
TEST(LiteralTest, ZeroElementArraysWithHugeDimensionsPrintAsEmptyBraces) {
  const Literal huge(ShapeUtil::MakeShape(F32, {1000000000, 1000, 0}));
  EXPECT_EQ(huge.ToString(), "f32[1000000000,1000,0] {}");
  const Literal small(ShapeUtil::MakeShape(S32, {2, 0}));
  EXPECT_EQ(small.ToString(), "s32[2,0] {{}, {}}");
  for (const char* text : {"s32[2,0] {}", "s32[2,0] { {}, {} }", "s32[0,3] {}"}) {
    absl::StatusOr<Literal> parsed = Literal::Parse(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_EQ(ShapeUtil::ElementsIn(parsed->shape()), 0) << text;
  }
  absl::StatusOr<Literal> round_trip = Literal::Parse(huge.ToString());
  ASSERT_TRUE(round_trip.ok()) << round_trip.status();
  EXPECT_EQ(round_trip->shape(), huge.shape());
  EXPECT_FALSE(Literal::Parse("s32[2,0] {1}").ok());
}

}  // namespace
}  // namespace xla
