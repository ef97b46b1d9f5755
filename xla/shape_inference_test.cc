#include "xla/shape_inference.h"

#include <array>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

Shape S(absl::string_view text) {
  absl::StatusOr<Shape> s = ShapeUtil::ParseShape(text);
  if (!s.ok()) {
    ADD_FAILURE() << "bad shape text '" << text << "': " << s.status();
    return Shape();
  }
  return *s;
}

ProgramShape PS(std::vector<std::string> params, absl::string_view result) {
  ProgramShape ps;
  for (size_t i = 0; i < params.size(); ++i) {
    ps.parameters().push_back(S(params[i]));
    ps.parameter_names().push_back("p" + std::to_string(i));
  }
  ps.result() = S(result);
  return ps;
}

// The result is OK, compatible with `expected`, and carries no layout.
::testing::AssertionResult IsShape(const absl::StatusOr<Shape>& result, absl::string_view expected) {
  if (!result.ok()) return ::testing::AssertionFailure() << "error: " << result.status();
  if (!result->Compatible(S(expected))) {
    return ::testing::AssertionFailure() << "got " << result->ToString() << ", expected " << expected;
  }
  std::vector<const Shape*> stack = {&*result};
  while (!stack.empty()) {
    const Shape* s = stack.back();
    stack.pop_back();
    if (s->has_layout()) return ::testing::AssertionFailure() << "result has a layout: " << result->ToString(true);
    for (const Shape& t : s->tuple_shapes()) stack.push_back(&t);
  }
  return ::testing::AssertionSuccess();
}

// The result is an error whose message contains every one of `parts`.
::testing::AssertionResult IsError(const absl::StatusOr<Shape>& result, std::vector<std::string> parts,
                                   absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  if (result.ok()) return ::testing::AssertionFailure() << "expected an error, got " << result->ToString();
  if (result.status().code() != code) {
    return ::testing::AssertionFailure() << "wrong code: " << result.status();
  }
  for (const std::string& p : parts) {
    if (!absl::StrContains(result.status().message(), p)) {
      return ::testing::AssertionFailure() << "message '" << result.status().message() << "' lacks '" << p << "'";
    }
  }
  return ::testing::AssertionSuccess();
}

absl::StatusOr<Shape> Infer(HloOpcode opcode, std::vector<Shape> operands, const HloInstructionProto& attrs = {},
                            std::vector<ProgramShape> called = {}, const Shape& declared = Shape()) {
  std::vector<const Shape*> ops;
  for (const Shape& s : operands) ops.push_back(&s);
  std::vector<const ProgramShape*> calls;
  for (const ProgramShape& p : called) calls.push_back(&p);
  return ShapeInference::InferInstructionShape(opcode, attrs, ops, calls, declared);
}

HloInstructionProto Dims(std::vector<int64_t> dims) {
  HloInstructionProto attrs;
  for (int64_t d : dims) attrs.add_dimensions(d);
  return attrs;
}

DotDimensionNumbers DotDims(std::vector<int64_t> lc, std::vector<int64_t> rc, std::vector<int64_t> lb = {},
                            std::vector<int64_t> rb = {}) {
  DotDimensionNumbers d;
  for (int64_t x : lc) d.add_lhs_contracting_dimensions(x);
  for (int64_t x : rc) d.add_rhs_contracting_dimensions(x);
  for (int64_t x : lb) d.add_lhs_batch_dimensions(x);
  for (int64_t x : rb) d.add_rhs_batch_dimensions(x);
  return d;
}

using SI = ShapeInference;

// --- Unary ----------------------------------------------------------------------

TEST(UnaryTest, FloatOpsKeepShape) {
  for (HloOpcode op : {HloOpcode::kAbs, HloOpcode::kCbrt, HloOpcode::kCeil, HloOpcode::kCos, HloOpcode::kErf,
                       HloOpcode::kExp, HloOpcode::kExpm1, HloOpcode::kFloor, HloOpcode::kImag, HloOpcode::kLog,
                       HloOpcode::kLog1p, HloOpcode::kLogistic, HloOpcode::kNegate, HloOpcode::kReal,
                       HloOpcode::kRoundNearestAfz, HloOpcode::kRoundNearestEven, HloOpcode::kRsqrt,
                       HloOpcode::kSign, HloOpcode::kSin, HloOpcode::kSqrt, HloOpcode::kTan, HloOpcode::kTanh}) {
    EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(op, S("f32[2,3]")), "f32[2,3]")) << HloOpcodeString(op);
    EXPECT_TRUE(IsShape(Infer(op, {S("f64[]")}), "f64[]")) << HloOpcodeString(op);
  }
}

TEST(UnaryTest, IsFiniteGivesPred) {
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kIsFinite, S("f16[4]")), "pred[4]"));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kIsFinite, S("s32[4]")), {"IsFinite", "floating-point", "s32[4]"}));
}

TEST(UnaryTest, ComplexComponents) {
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kReal, S("c64[3]")), "f32[3]"));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kImag, S("c128[3]")), "f64[3]"));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kAbs, S("c64[]")), "f32[]"));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kExp, S("c64[2]")), "c64[2]"));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kNegate, S("c128[2]")), "c128[2]"));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kReal, S("s32[3]")), {"Real", "s32[3]"}));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kFloor, S("c64[3]")), {"Floor", "c64[3]"}));
}

TEST(UnaryTest, IntegerAndPredRules) {
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kNot, S("pred[2]")), "pred[2]"));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kNot, S("u8[2]")), "u8[2]"));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kNot, S("f32[2]")), {"Not", "pred or integral", "f32[2]"}));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kPopulationCount, S("u32[2]")), "u32[2]"));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kClz, S("s64[]")), "s64[]"));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kPopulationCount, S("f32[2]")), {"Popcnt", "integral"}));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kClz, S("pred[2]")), {"CountLeadingZeros", "integral"}));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kAbs, S("s32[2]")), "s32[2]"));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kNegate, S("s8[2]")), "s8[2]"));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kSign, S("s16[2]")), "s16[2]"));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kAbs, S("u32[2]")), {"Abs", "u32[2]"}));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kSign, S("u32[2]")), {"Sign", "u32[2]"}));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kSqrt, S("s32[2]")), {"Sqrt", "floating-point or complex"}));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kNegate, S("pred[2]")), {"Negate", "pred[2]"}));
}

TEST(UnaryTest, RejectsNonArraysAndNonUnaryOps) {
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kAbs, S("(f32[], s32[])")), {"Abs", "must be an array"}));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kAdd, S("f32[]")), {"Add", "not an element-wise unary"}));
}

TEST(UnaryTest, ResultHasNoLayout) {
  Shape with_layout = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kExp, with_layout), "f32[2,3]"));
}

// --- Binary (client-level broadcasting) --------------------------------------------

TEST(BinaryTest, EqualShapes) {
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,3]"), S("f32[2,3]"), {}), "f32[2,3]"));
  for (HloOpcode op : {HloOpcode::kSubtract, HloOpcode::kMultiply, HloOpcode::kDivide, HloOpcode::kPower,
                       HloOpcode::kRemainder, HloOpcode::kMaximum, HloOpcode::kMinimum, HloOpcode::kAtan2}) {
    EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(op, S("f64[4]"), S("f64[4]"), {}), "f64[4]")) << HloOpcodeString(op);
  }
}

TEST(BinaryTest, ElementTypesMustMatch) {
  auto r = SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[2]"), S("s32[2]"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Add: element types differ: lhs f32[2], rhs s32[2]");
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kShiftLeft, S("s32[2]"), S("u32[2]"), {}),
                      {"ShiftLeft", "element types differ"}));
}

TEST(BinaryTest, ScalarBroadcast) {
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,3]"), S("f32[]"), {}), "f32[2,3]"));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kMultiply, S("f32[]"), S("f32[4]"), {}), "f32[4]"));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[]"), S("f32[]"), {}), "f32[]"));
}

TEST(BinaryTest, DifferentRanksNeedBroadcastDimensions) {
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,3]"), S("f32[3]"), {}),
                      {"Add", "broadcast_dimensions", "f32[2,3]", "f32[3]"}));
}

TEST(BinaryTest, InDimBroadcast) {
  // Matrix + vector along dimension 1 (the document's example).
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,3]"), S("f32[3]"), {1}), "f32[2,3]"));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[3]"), S("f32[3,3]"), {0}), "f32[3,3]"));
  // 2x3x4 cuboid with a 3x4 matrix on (1,2).
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,3,4]"), S("f32[3,4]"), {1, 2}), "f32[2,3,4]"));
  // A 2x3 matrix with a 3-vector on dimension 0 is invalid.
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,3]"), S("f32[3]"), {0}),
                      {"Add", "size 3", "size 2", "f32[2,3]"}));
}

TEST(BinaryTest, BadBroadcastDimensions) {
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[4,4,4]"), S("f32[4,4]"), {2, 1}),
                      {"Add", "strictly increasing", "{2,1}"}));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[4,4]"), S("f32[4]"), {5}),
                      {"Add", "out of range", "5"}));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[4,4]"), S("f32[4]"), {-1}),
                      {"Add", "out of range"}));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[4,4]"), S("f32[4]"), {0, 1}),
                      {"Add", "one entry per dimension", "{0,1}"}));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[4,4]"), S("f32[]"), {0}),
                      {"Add", "one entry per dimension"}));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[4,4]"), S("f32[4,4]"), {1, 0}),
                      {"Add", "identity"}));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[4,4]"), S("f32[4,4]"), {0, 1}), "f32[4,4]"));
}

TEST(BinaryTest, DegenerateDimensions) {
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,1]"), S("f32[2,3]"), {}), "f32[2,3]"));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[1,2,5]"), S("f32[7,2,5]"), {}), "f32[7,2,5]"));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[7,2,5]"), S("f32[7,1,5]"), {}), "f32[7,2,5]"));
  // Outer operation.
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,1]"), S("f32[1,3]"), {}), "f32[2,3]"));
  // A size-1 dimension against a size-0 one gives 0.
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[1]"), S("f32[0]"), {}), "f32[0]"));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[7,2,5]"), S("f32[7,2,6]"), {}),
                      {"Add", "dimension 2", "size 5", "size 6"}));
}

TEST(BinaryTest, BroadcastComposition) {
  // A 4-vector and a 1x2 matrix with broadcast dimensions (0) give 4x2.
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[4]"), S("f32[1,2]"), {0}), "f32[4,2]"));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAdd, S("f32[1,2]"), S("f32[4]"), {0}), "f32[4,2]"));
}

TEST(BinaryTest, ResultTypes) {
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kCompare, S("f32[2]"), S("f32[2]"), {}), "pred[2]"));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kCompare, S("s32[2,3]"), S("s32[3]"), {1}), "pred[2,3]"));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kComplex, S("f32[2]"), S("f32[2]"), {}), "c64[2]"));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kComplex, S("f64[]"), S("f64[3]"), {}), "c128[3]"));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kComplex, S("s32[2]"), S("s32[2]"), {}),
                      {"Complex", "f32 or f64"}));
}

TEST(BinaryTest, TypeRules) {
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kAnd, S("pred[2]"), S("pred[2]"), {}), "pred[2]"));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kXor, S("u16[2]"), S("u16[2]"), {}), "u16[2]"));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kOr, S("f32[2]"), S("f32[2]"), {}), {"Or", "pred or integral"}));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kShiftRightLogical, S("u32[2]"), S("u32[2]"), {}), "u32[2]"));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kShiftRightArithmetic, S("f32[2]"), S("f32[2]"), {}),
                      {"ShiftRightArithmetic", "integral"}));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kShiftLeft, S("pred[2]"), S("pred[2]"), {}),
                      {"ShiftLeft", "integral"}));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAtan2, S("s32[2]"), S("s32[2]"), {}),
                      {"Atan2", "floating-point element type"}));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAtan2, S("c64[2]"), S("c64[2]"), {}), {"Atan2"}));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kRemainder, S("c64[2]"), S("c64[2]"), {}), {"Remainder"}));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kCbrt, S("c128[2]")), "c128[2]"));  // principal root
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kCbrt, S("s32[2]")), {"Cbrt", "floating-point or complex"}));
  EXPECT_TRUE(IsError(SI::InferTernaryOpShape(HloOpcode::kClamp, S("c64[]"), S("c64[2]"), S("c64[]")), {"Clamp", "complex"}));
  // add/multiply on pred are or/and (StableHLO); subtract and divide are not defined.
  EXPECT_TRUE(SI::InferBinaryOpShape(HloOpcode::kAdd, S("pred[2]"), S("pred[2]"), {}).ok());
  EXPECT_TRUE(SI::InferBinaryOpShape(HloOpcode::kMultiply, S("pred[2]"), S("pred[2]"), {}).ok());
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kSubtract, S("pred[2]"), S("pred[2]"), {}), {"Subtract", "pred"}));
  EXPECT_TRUE(IsShape(SI::InferBinaryOpShape(HloOpcode::kMaximum, S("pred[2]"), S("pred[2]"), {}), "pred[2]"));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kAdd, S("(f32[])"), S("f32[]"), {}), {"Add", "lhs must be an array"}));
  EXPECT_TRUE(IsError(SI::InferBinaryOpShape(HloOpcode::kNegate, S("f32[]"), S("f32[]"), {}),
                      {"Negate", "not an element-wise binary"}));
}

// --- HLO-level element-wise ops --------------------------------------------------

TEST(HloElementwiseTest, BinaryNeedsEqualDimensions) {
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kAdd, {S("f32[2]"), S("f32[2]")}), "f32[2]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAdd, {S("f32[2]"), S("f32[]")}), {"Add", "same dimensions", "f32[2]", "f32[]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kMultiply, {S("f32[2,1]"), S("f32[2,3]")}), {"Multiply", "same dimensions"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAdd, {S("f32[2]")}), {"Add", "expects 2 operands, got 1"}));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kComplex, {S("f32[2]"), S("f32[2]")}), "c64[2]"));
}

TEST(HloElementwiseTest, CompareDirection) {
  HloInstructionProto attrs;
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCompare, {S("f32[2]"), S("f32[2]")}, attrs),
                      {"Compare", "comparison_direction is required"}));
  attrs.set_comparison_direction("XX");
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCompare, {S("f32[2]"), S("f32[2]")}, attrs), {"Compare", "'XX'"}));
  attrs.set_comparison_direction("LT");
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kCompare, {S("f32[2]"), S("f32[2]")}, attrs), "pred[2]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCompare, {S("f32[2]"), S("s32[2]")}, attrs), {"Compare", "element types differ"}));
}

TEST(HloElementwiseTest, CompareType) {
  HloInstructionProto attrs;
  attrs.set_comparison_direction("EQ");
  attrs.set_comparison_type("TOTALORDER");
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kCompare, {S("f32[2]"), S("f32[2]")}, attrs), "pred[2]"));
  attrs.set_comparison_type("SIGNED");
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCompare, {S("f32[2]"), S("f32[2]")}, attrs), {"Compare", "SIGNED", "f32"}));
  attrs.set_comparison_type("UNSIGNED");
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kCompare, {S("pred[]"), S("pred[]")}, attrs), "pred[]"));
  attrs.set_comparison_type("BOGUS");
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCompare, {S("s32[]"), S("s32[]")}, attrs), {"Compare", "BOGUS"}));
}

TEST(TernaryTest, Select) {
  EXPECT_TRUE(IsShape(SI::InferTernaryOpShape(HloOpcode::kSelect, S("pred[4]"), S("s32[4]"), S("s32[4]")), "s32[4]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kSelect, {S("pred[]"), S("s32[4]"), S("s32[4]")}), "s32[4]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kSelect, {S("pred[]"), S("(f32[], s32[2])"), S("(f32[], s32[2])")}),
                      "(f32[], s32[2])"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSelect, {S("pred[2]"), S("(f32[2])"), S("(f32[2])")}),
                      {"Select", "scalar", "tuples"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSelect, {S("pred[3]"), S("s32[4]"), S("s32[4]")}),
                      {"Select", "pred[3]", "s32[4]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSelect, {S("s32[4]"), S("s32[4]"), S("s32[4]")}), {"Select", "pred array"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSelect, {S("pred[4]"), S("s32[4]"), S("f32[4]")}),
                      {"Select", "on_true s32[4], on_false f32[4]"}));
}

TEST(TernaryTest, Clamp) {
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kClamp, {S("s32[]"), S("s32[3]"), S("s32[]")}), "s32[3]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kClamp, {S("f32[3]"), S("f32[3]"), S("f32[3]")}), "f32[3]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kClamp, {S("f32[3]"), S("f32[3]"), S("f32[]")}), "f32[3]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kClamp, {S("f32[2]"), S("f32[3]"), S("f32[]")}), {"Clamp", "min f32[2]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kClamp, {S("f32[]"), S("f32[3]"), S("s32[]")}),
                      {"Clamp", "element types differ", "max s32[]"}));
  EXPECT_TRUE(IsError(SI::InferTernaryOpShape(HloOpcode::kAdd, S("f32[]"), S("f32[]"), S("f32[]")), {"Add"}));
}

// --- Conversions ---------------------------------------------------------------------

TEST(ConvertTest, Convert) {
  EXPECT_TRUE(IsShape(SI::InferConvertShape(S("s32[3]"), F32), "f32[3]"));
  EXPECT_TRUE(IsShape(SI::InferConvertShape(S("f32[3]"), C64), "c64[3]"));
  EXPECT_TRUE(IsShape(SI::InferConvertShape(S("f32[3]"), PRED), "pred[3]"));
  // Complex to real takes the real part (StableHLO's convert).
  EXPECT_TRUE(IsShape(SI::InferConvertShape(S("c64[3]"), F32), "f32[3]"));
  EXPECT_TRUE(IsShape(SI::InferConvertShape(S("c128[3]"), S32), "s32[3]"));
  EXPECT_TRUE(IsError(SI::InferConvertShape(S("f32[3]"), TUPLE), {"Convert", "tuple"}));
  EXPECT_TRUE(IsError(SI::InferConvertShape(S("(f32[3])"), F32), {"Convert", "must be an array"}));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kConvert, {S("u8[2,2]")}, {}, {}, S("f64[2,2]")), "f64[2,2]"));
}

TEST(ConvertTest, BitcastConvert) {
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("s32[4]"), F32), "f32[4]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("f32[10]"), F16), "f16[10,2]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("f32[]"), F16), "f16[2]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("s32[3]"), U8), "u8[3,4]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("f16[10,2]"), F32), "f32[10]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("u8[8]"), F64), "f64[]"));
  EXPECT_TRUE(IsError(SI::InferBitcastConvertShape(S("f16[10,3]"), F32), {"BitcastConvert", "size 2", "f16[10,3]"}));
  EXPECT_TRUE(IsError(SI::InferBitcastConvertShape(S("f16[]"), F32), {"BitcastConvert", "minor-most"}));
  // pred is one bit (StableHLO's i1).
  EXPECT_TRUE(IsError(SI::InferBitcastConvertShape(S("pred[2]"), S8), {"BitcastConvert", "size 8", "pred[2]"}));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("pred[3,8]"), S8), "s8[3]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("pred[64]"), S64), "s64[]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("f64[]"), PRED), "pred[64]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("bf16[2]"), PRED), "pred[2,16]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("pred[2,3]"), PRED), "pred[2,3]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kBitcastConvert, {S("f64[3]")}, {}, {}, S("s32[3,2]")), "s32[3,2]"));
  // The narrow types use their bit widths: s4 is 4 bits, f6 is 6.
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("s8[3]"), S4), "s4[3,2]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("u2[4]"), U8), "u8[]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("f4e2m1fn[2]"), U4), "u4[2]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastConvertShape(S("f8e4m3fn[2]"), S8), "s8[2]"));
  EXPECT_TRUE(IsError(SI::InferBitcastConvertShape(S("f6e2m3fn[4]"), S8), {"BitcastConvert", "do not divide"}));
}

TEST(ConvertTest, NarrowAndSmallFloatTypes) {
  // Integer ops on s2/s4/u2/u4, float ops on the small floats.
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kPopulationCount, S("s4[2]")), "s4[2]"));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kNot, S("u2[2]")), "u2[2]"));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kAbs, S("s2[]")), "s2[]"));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kAbs, S("u4[2]")), {"Abs", "u4[2]"}));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kExp, S("f8e5m2[3]")), "f8e5m2[3]"));
  EXPECT_TRUE(IsShape(SI::InferUnaryOpShape(HloOpcode::kIsFinite, S("f4e2m1fn[3]")), "pred[3]"));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kPopulationCount, S("f8e4m3fn[2]")), {"Popcnt", "integral"}));
  EXPECT_TRUE(IsError(SI::InferUnaryOpShape(HloOpcode::kSqrt, S("s4[2]")), {"Sqrt", "floating-point or complex"}));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kConvert, {S("s4[3]")}, {}, {}, S("f8e8m0fnu[3]")), "f8e8m0fnu[3]"));
}

// --- Broadcast, reshape, transpose, reverse ----------------------------------------

TEST(BroadcastTest, PrependsSizes) {
  EXPECT_TRUE(IsShape(SI::InferBroadcastShape(S("f32[]"), {2, 3}), "f32[2,3]"));
  EXPECT_TRUE(IsShape(SI::InferBroadcastShape(S("s32[2]"), {3, 4}), "s32[3,4,2]"));
  EXPECT_TRUE(IsError(SI::InferBroadcastShape(S("s32[2]"), {-1}), {"Broadcast", "non-negative"}));
  EXPECT_TRUE(IsError(SI::InferBroadcastShape(S("f32[]"), {int64_t{1} << 40, int64_t{1} << 40}),
                      {"Broadcast", "too large"}));
}

TEST(BroadcastTest, InDim) {
  EXPECT_TRUE(IsShape(SI::InferBroadcastInDimShape(S("f32[3]"), {2, 3}, {1}), "f32[2,3]"));
  EXPECT_TRUE(IsShape(SI::InferBroadcastInDimShape(S("f32[1]"), {2, 3}, {1}), "f32[2,3]"));
  EXPECT_TRUE(IsShape(SI::InferBroadcastInDimShape(S("f32[]"), {2, 3}, {}), "f32[2,3]"));
  EXPECT_TRUE(IsShape(SI::InferBroadcastInDimShape(S("f32[2,3]"), {3, 5, 2}, {2, 0}), "f32[3,5,2]"));
  EXPECT_TRUE(IsError(SI::InferBroadcastInDimShape(S("f32[3]"), {2, 3}, {0}),
                      {"Broadcast", "operand dimension 0 (size 3)", "output dimension 0 (size 2)"}));
  EXPECT_TRUE(IsError(SI::InferBroadcastInDimShape(S("f32[3]"), {2, 3}, {}), {"Broadcast", "one entry per operand dimension"}));
  EXPECT_TRUE(IsError(SI::InferBroadcastInDimShape(S("f32[3]"), {2, 3}, {2}), {"Broadcast", "out of range"}));
  EXPECT_TRUE(IsError(SI::InferBroadcastInDimShape(S("f32[3,3]"), {3, 3}, {1, 1}), {"Broadcast", "more than once"}));
}

TEST(BroadcastTest, HloUsesDeclaredShape) {
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kBroadcast, {S("f32[3]")}, Dims({1}), {}, S("f32[2,3]")), "f32[2,3]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kBroadcast, {S("f32[3]")}, Dims({0}), {}, S("f32[2,3]")), {"Broadcast"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kBroadcast, {S("f32[3]")}, Dims({0}), {}, S("(f32[3])")),
                      {"Broadcast", "declared shape must be an array"}));
}

TEST(ReshapeTest, ElementCountsMustMatch) {
  EXPECT_TRUE(IsShape(SI::InferReshapeShape(S("f32[4,2,3]"), {8, 3}), "f32[8,3]"));
  EXPECT_TRUE(IsShape(SI::InferReshapeShape(S("f32[1,1]"), {}), "f32[]"));
  EXPECT_TRUE(IsShape(SI::InferReshapeShape(S("f32[]"), {1, 1}), "f32[1,1]"));
  EXPECT_TRUE(IsShape(SI::InferReshapeShape(S("f32[0,3]"), {3, 0}), "f32[3,0]"));
  EXPECT_TRUE(IsError(SI::InferReshapeShape(S("f32[2,3]"), {4}), {"Reshape", "f32[2,3] (6 elements)", "f32[4] (4 elements)"}));
  EXPECT_TRUE(IsError(SI::InferReshapeShape(S("f32[2,3]"), {-2, -3}), {"Reshape", "non-negative"}));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kReshape, {S("s32[6]")}, {}, {}, S("s32[3,2]")), "s32[3,2]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReshape, {S("s32[6]")}, {}, {}, S("s32[3,3]")), {"Reshape"}));
}

TEST(TransposeTest, Permutes) {
  EXPECT_TRUE(IsShape(SI::InferTransposeShape(S("f32[2,3,4]"), {2, 0, 1}), "f32[4,2,3]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kTranspose, {S("f32[2,3]")}, Dims({1, 0})), "f32[3,2]"));
  EXPECT_TRUE(IsError(SI::InferTransposeShape(S("f32[2,3,4]"), {0, 0, 1}), {"Transpose", "more than once"}));
  EXPECT_TRUE(IsError(SI::InferTransposeShape(S("f32[2,3,4]"), {0, 1}), {"Transpose", "3 entries"}));
  EXPECT_TRUE(IsError(SI::InferTransposeShape(S("f32[2,3]"), {0, 2}), {"Transpose", "out of range"}));
}

TEST(ReverseTest, Dimensions) {
  EXPECT_TRUE(IsShape(SI::InferReverseShape(S("f32[2,3]"), {0, 1}), "f32[2,3]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kReverse, {S("f32[2,3]")}, Dims({1})), "f32[2,3]"));
  EXPECT_TRUE(IsError(SI::InferReverseShape(S("f32[2,3]"), {2}), {"Reverse", "dimension 2 is out of range", "f32[2,3]"}));
  EXPECT_TRUE(IsError(SI::InferReverseShape(S("f32[2,3]"), {1, 1}), {"Reverse", "more than once"}));
}

// --- Slices -------------------------------------------------------------------------

TEST(SliceTest, Static) {
  EXPECT_TRUE(IsShape(SI::InferSliceShape(S("f32[5]"), {2}, {4}, {1}), "f32[2]"));
  EXPECT_TRUE(IsShape(SI::InferSliceShape(S("f32[10,5]"), {2, 0}, {8, 5}, {2, 1}), "f32[3,5]"));
  EXPECT_TRUE(IsShape(SI::InferSliceShape(S("f32[10]"), {3}, {3}, {4}), "f32[0]"));
  EXPECT_TRUE(IsShape(SI::InferSliceShape(S("f32[10]"), {0}, {10}, {3}), "f32[4]"));
  EXPECT_TRUE(IsError(SI::InferSliceShape(S("f32[5]"), {2}, {6}, {1}), {"Slice", "limit 6", "size 5"}));
  EXPECT_TRUE(IsError(SI::InferSliceShape(S("f32[5]"), {3}, {2}, {1}), {"Slice", "start 3", "limit 2"}));
  EXPECT_TRUE(IsError(SI::InferSliceShape(S("f32[5]"), {-1}, {2}, {1}), {"Slice", "start -1"}));
  EXPECT_TRUE(IsError(SI::InferSliceShape(S("f32[5]"), {0}, {2}, {0}), {"Slice", "stride 0"}));
  EXPECT_TRUE(IsError(SI::InferSliceShape(S("f32[5,5]"), {0}, {2}, {1}), {"Slice", "rank 2"}));
}

TEST(SliceTest, HloAttributes) {
  HloInstructionProto attrs;
  auto* d0 = attrs.add_slice_dimensions();
  d0->set_start(1);
  d0->set_limit(3);
  d0->set_stride(1);
  auto* d1 = attrs.add_slice_dimensions();
  d1->set_start(0);
  d1->set_limit(4);
  d1->set_stride(2);
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kSlice, {S("f32[4,4]")}, attrs), "f32[2,2]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSlice, {S("f32[4,4,4]")}, attrs), {"Slice"}));
}

TEST(DynamicSliceTest, Shapes) {
  EXPECT_TRUE(IsShape(SI::InferDynamicSliceShape(S("f32[4,3]"), {S("s32[]"), S("s32[]")}, {2, 2}), "f32[2,2]"));
  EXPECT_TRUE(IsError(SI::InferDynamicSliceShape(S("f32[4,3]"), {S("s32[]"), S("s32[]")}, {2, 4}),
                      {"DynamicSlice", "slice size 4", "dimension 1"}));
  EXPECT_TRUE(IsError(SI::InferDynamicSliceShape(S("f32[4,3]"), {S("s32[]")}, {2, 2}),
                      {"DynamicSlice", "expected 2 start indices", "got 1"}));
  EXPECT_TRUE(IsError(SI::InferDynamicSliceShape(S("f32[4,3]"), {S("s32[2]"), S("s32[]")}, {2, 2}),
                      {"DynamicSlice", "integral scalar", "s32[2]"}));
  EXPECT_TRUE(IsError(SI::InferDynamicSliceShape(S("f32[4,3]"), {S("f32[]"), S("f32[]")}, {2, 2}),
                      {"DynamicSlice", "integral scalar", "f32[]"}));
  EXPECT_TRUE(IsError(SI::InferDynamicSliceShape(S("f32[4,3]"), {S("s32[]"), S("s64[]")}, {2, 2}),
                      {"DynamicSlice", "same type"}));
  EXPECT_TRUE(IsError(SI::InferDynamicSliceShape(S("f32[4,3]"), {S("s32[]"), S("s32[]")}, {2}),
                      {"DynamicSlice", "slice sizes {2}"}));
  HloInstructionProto attrs;
  attrs.add_dynamic_slice_sizes(1);
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kDynamicSlice, {S("u8[5]"), S("u32[]")}, attrs), "u8[1]"));
}

TEST(DynamicUpdateSliceTest, Shapes) {
  EXPECT_TRUE(IsShape(SI::InferDynamicUpdateSliceShape(S("f32[4,3]"), S("f32[3,2]"), {S("s32[]"), S("s32[]")}),
                      "f32[4,3]"));
  EXPECT_TRUE(IsError(SI::InferDynamicUpdateSliceShape(S("f32[4,3]"), S("f32[5,2]"), {S("s32[]"), S("s32[]")}),
                      {"DynamicUpdateSlice", "dimension 0", "size 5"}));
  EXPECT_TRUE(IsError(SI::InferDynamicUpdateSliceShape(S("f32[4,3]"), S("s32[2,2]"), {S("s32[]"), S("s32[]")}),
                      {"DynamicUpdateSlice", "element types differ"}));
  EXPECT_TRUE(IsError(SI::InferDynamicUpdateSliceShape(S("f32[4,3]"), S("f32[2]"), {S("s32[]"), S("s32[]")}),
                      {"DynamicUpdateSlice", "rank"}));
  EXPECT_TRUE(IsError(SI::InferDynamicUpdateSliceShape(S("f32[4,3]"), S("f32[2,2]"), {S("s32[]")}),
                      {"DynamicUpdateSlice", "start indices"}));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kDynamicUpdateSlice, {S("f32[5]"), S("f32[2]"), S("s64[]")}), "f32[5]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kDynamicUpdateSlice, {S("f32[5]")}), {"DynamicUpdateSlice", "at least 2"}));
}

// --- Concatenate, pad -------------------------------------------------------------------

TEST(ConcatenateTest, Shapes) {
  Shape a = S("f32[3,2]"), b = S("f32[1,2]"), c = S("f32[3,5]");
  EXPECT_TRUE(IsShape(SI::InferConcatOpShape({&a, &b}, 0), "f32[4,2]"));
  EXPECT_TRUE(IsShape(SI::InferConcatOpShape({&a, &c}, 1), "f32[3,7]"));
  EXPECT_TRUE(IsShape(SI::InferConcatOpShape({&a}, 1), "f32[3,2]"));
  EXPECT_TRUE(IsError(SI::InferConcatOpShape({&a, &b}, 1), {"Concatenate", "dimension 0", "f32[1,2]"}));
  EXPECT_TRUE(IsError(SI::InferConcatOpShape({&a, &b}, 2), {"Concatenate", "dimension 2 is out of range"}));
  Shape s = S("f32[]"), t = S("s32[1,2]"), r = S("f32[2]");
  EXPECT_TRUE(IsError(SI::InferConcatOpShape({&s, &s}, 0), {"Concatenate", "scalars"}));
  EXPECT_TRUE(IsError(SI::InferConcatOpShape({&a, &t}, 0), {"Concatenate", "element types differ"}));
  EXPECT_TRUE(IsError(SI::InferConcatOpShape({&a, &r}, 0), {"Concatenate", "ranks differ"}));
  EXPECT_TRUE(IsError(SI::InferConcatOpShape({}, 0), {"Concatenate", "at least one"}));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kConcatenate, {a, b, a}, Dims({0})), "f32[7,2]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kConcatenate, {a, b}), {"Concatenate", "exactly one dimension"}));
}

PaddingConfig Padding(std::vector<std::array<int64_t, 3>> dims) {
  PaddingConfig config;
  for (const auto& d : dims) {
    auto* p = config.add_dimensions();
    p->set_edge_padding_low(d[0]);
    p->set_edge_padding_high(d[1]);
    p->set_interior_padding(d[2]);
  }
  return config;
}

TEST(PadTest, Shapes) {
  EXPECT_TRUE(IsShape(SI::InferPadShape(S("f32[2,3]"), S("f32[]"), Padding({{1, 2, 0}, {0, 0, 1}})), "f32[5,5]"));
  EXPECT_TRUE(IsShape(SI::InferPadShape(S("f32[4]"), S("f32[]"), Padding({{-1, -1, 0}})), "f32[2]"));
  // Interior padding happens before negative edge padding.
  EXPECT_TRUE(IsShape(SI::InferPadShape(S("f32[3]"), S("f32[]"), Padding({{-2, 0, 2}})), "f32[5]"));
  EXPECT_TRUE(IsShape(SI::InferPadShape(S("f32[0]"), S("f32[]"), Padding({{1, 1, 5}})), "f32[2]"));
  EXPECT_TRUE(IsShape(SI::InferPadShape(S("f32[2]"), S("f32[]"), Padding({{-1, -1, 0}})), "f32[0]"));
  EXPECT_TRUE(IsError(SI::InferPadShape(S("f32[2]"), S("f32[]"), Padding({{-2, -1, 0}})),
                      {"Pad", "dimension 0", "negative size -1"}));
  EXPECT_TRUE(IsError(SI::InferPadShape(S("f32[2]"), S("f32[]"), Padding({{0, 0, -1}})), {"Pad", "interior padding -1"}));
  EXPECT_TRUE(IsError(SI::InferPadShape(S("f32[2]"), S("f32[]"), Padding({})), {"Pad", "0 dimensions", "rank 1"}));
  EXPECT_TRUE(IsError(SI::InferPadShape(S("f32[2]"), S("f32[1]"), Padding({{0, 0, 0}})), {"Pad", "padding value"}));
  EXPECT_TRUE(IsError(SI::InferPadShape(S("f32[2]"), S("s32[]"), Padding({{0, 0, 0}})), {"Pad", "padding value s32[]"}));
  EXPECT_TRUE(IsError(SI::InferPadShape(S("f32[3]"), S("f32[]"), Padding({{0, 0, int64_t{1} << 62}})),
                      {"Pad", "overflows"}));
  HloInstructionProto attrs;
  *attrs.mutable_padding_config() = Padding({{1, 1, 0}});
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kPad, {S("s32[2]"), S("s32[]")}, attrs), "s32[4]"));
}

// --- Tuples, iota -----------------------------------------------------------------------

TEST(TupleTest, TupleAndGetTupleElement) {
  Shape a = S("f32[10]"), b = S("s32[]"), t = S("(f32[], token[])");
  EXPECT_TRUE(IsShape(SI::InferTupleShape({&a, &b}), "(f32[10], s32[])"));
  EXPECT_TRUE(IsShape(SI::InferTupleShape({}), "()"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kTuple, {a, t}), "(f32[10], (f32[], token[]))"));
  EXPECT_TRUE(IsShape(SI::InferGetTupleElementShape(S("(f32[10], s32[])"), 1), "s32[]"));
  EXPECT_TRUE(IsError(SI::InferGetTupleElementShape(S("(f32[10], s32[])"), 2),
                      {"GetTupleElement", "tuple index 2", "2 elements"}));
  EXPECT_TRUE(IsError(SI::InferGetTupleElementShape(S("(f32[10], s32[])"), -1), {"GetTupleElement", "-1"}));
  EXPECT_TRUE(IsError(SI::InferGetTupleElementShape(S("f32[10]"), 0), {"GetTupleElement", "must be a tuple"}));
  HloInstructionProto attrs;
  attrs.set_tuple_index(0);
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kGetTupleElement, {S("((f32[2]), s32[])")}, attrs), "(f32[2])"));
}

TEST(IotaTest, Shapes) {
  EXPECT_TRUE(IsShape(SI::InferIotaShape(S("s32[4,8]"), 1), "s32[4,8]"));
  EXPECT_TRUE(IsShape(SI::InferIotaShape(S("f32[4]"), 0), "f32[4]"));
  EXPECT_TRUE(IsError(SI::InferIotaShape(S("s32[4,8]"), 2), {"Iota", "iota dimension 2", "rank 2"}));
  EXPECT_TRUE(IsError(SI::InferIotaShape(S("s32[]"), 0), {"Iota", "rank >= 1"}));
  EXPECT_TRUE(IsError(SI::InferIotaShape(S("pred[2]"), 0), {"Iota", "numeric"}));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kIota, {}, Dims({0}), {}, S("u32[3]")), "u32[3]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kIota, {}, {}, {}, S("u32[3]")), {"Iota", "exactly one"}));
}

// --- Dot ----------------------------------------------------------------------------------

TEST(DotTest, Classic) {
  EXPECT_TRUE(IsShape(SI::InferDotOpShape(S("f32[2,3]"), S("f32[3,4]"), DotDims({1}, {0})), "f32[2,4]"));
  EXPECT_TRUE(IsShape(SI::InferDotOpShape(S("f32[3]"), S("f32[3]"), DotDims({0}, {0})), "f32[]"));
  EXPECT_TRUE(IsShape(SI::InferDotOpShape(S("f32[2,3]"), S("f32[3]"), DotDims({1}, {0})), "f32[2]"));
  // No contraction: an outer product.
  EXPECT_TRUE(IsShape(SI::InferDotOpShape(S("f32[2]"), S("f32[3]"), DotDims({}, {})), "f32[2,3]"));
}

TEST(DotTest, General) {
  EXPECT_TRUE(IsShape(SI::InferDotOpShape(S("f32[2,3]"), S("f32[2,3]"), DotDims({1}, {1})), "f32[2,2]"));
  EXPECT_TRUE(IsShape(SI::InferDotOpShape(S("f32[5,2,3]"), S("f32[5,3,4]"), DotDims({2}, {1}, {0}, {0})),
                      "f32[5,2,4]"));
  EXPECT_TRUE(IsShape(SI::InferDotOpShape(S("f32[7,5,2,3]"), S("f32[3,5,4,7]"), DotDims({3}, {0}, {0, 1}, {3, 1})),
                      "f32[7,5,2,4]"));
  EXPECT_TRUE(IsShape(SI::InferDotOpShape(S("s32[2,3,4]"), S("s32[4,3]"), DotDims({1, 2}, {1, 0})), "s32[2]"));
  HloInstructionProto attrs;
  *attrs.mutable_dot_dimension_numbers() = DotDims({1}, {0});
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kDot, {S("f64[2,3]"), S("f64[3,1]")}, attrs), "f64[2,1]"));
}

TEST(DotTest, Errors) {
  auto r = SI::InferDotOpShape(S("f32[2,3]"), S("f32[4,5]"), DotDims({1}, {0}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Dot: lhs contracting dimension 1 has size 3 but rhs contracting dimension 0 has size 4 "
            "(lhs f32[2,3], rhs f32[4,5])");
  EXPECT_TRUE(IsError(SI::InferDotOpShape(S("f32[2,3]"), S("f32[3,4]"), DotDims({1}, {})),
                      {"Dot", "1 contracting dimensions but rhs has 0"}));
  EXPECT_TRUE(IsError(SI::InferDotOpShape(S("f32[2,3]"), S("f32[3,4]"), DotDims({2}, {0})),
                      {"Dot", "lhs contracting dimension 2 is out of range", "f32[2,3]"}));
  EXPECT_TRUE(IsError(SI::InferDotOpShape(S("f32[2,3]"), S("f32[3,4]"), DotDims({1}, {-1})),
                      {"Dot", "rhs contracting dimension -1 is out of range"}));
  EXPECT_TRUE(IsError(SI::InferDotOpShape(S("f32[3,3]"), S("f32[3,3]"), DotDims({0}, {0}, {0}, {1})),
                      {"Dot", "lhs dimension 0 is used more than once"}));
  EXPECT_TRUE(IsError(SI::InferDotOpShape(S("f32[5,2,3]"), S("f32[6,3,4]"), DotDims({2}, {1}, {0}, {0})),
                      {"Dot", "lhs batch dimension 0 has size 5 but rhs batch dimension 0 has size 6"}));
  EXPECT_TRUE(IsError(SI::InferDotOpShape(S("f32[5,2,3]"), S("f32[5,3,4]"), DotDims({2}, {1}, {0}, {})),
                      {"Dot", "batch dimensions"}));
  EXPECT_TRUE(IsError(SI::InferDotOpShape(S("f32[2,3]"), S("s32[3,4]"), DotDims({1}, {0})),
                      {"Dot", "element types differ"}));
}

// --- Called computations -------------------------------------------------------------------

TEST(ReduceTest, Single) {
  Shape in = S("f32[2,3]"), init = S("f32[]");
  ProgramShape add = PS({"f32[]", "f32[]"}, "f32[]");
  EXPECT_TRUE(IsShape(SI::InferReduceShape({&in, &init}, {1}, add), "f32[2]"));
  EXPECT_TRUE(IsShape(SI::InferReduceShape({&in, &init}, {0, 1}, add), "f32[]"));
  EXPECT_TRUE(IsShape(SI::InferReduceShape({&in, &init}, {}, add), "f32[2,3]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kReduce, {in, init}, Dims({0}), {add}), "f32[3]"));
}

TEST(ReduceTest, Variadic) {
  Shape v = S("f32[5]"), k = S("s32[5]"), iv = S("f32[]"), ik = S("s32[]");
  ProgramShape argmax = PS({"f32[]", "s32[]", "f32[]", "s32[]"}, "(f32[], s32[])");
  EXPECT_TRUE(IsShape(SI::InferReduceShape({&v, &k, &iv, &ik}, {0}, argmax), "(f32[], s32[])"));
  ProgramShape wrong_result = PS({"f32[]", "s32[]", "f32[]", "s32[]"}, "f32[]");
  EXPECT_TRUE(IsError(SI::InferReduceShape({&v, &k, &iv, &ik}, {0}, wrong_result),
                      {"Reduce", "must return (f32[], s32[])", "returns f32[]"}));
  Shape k2 = S("s32[4]");
  EXPECT_TRUE(IsError(SI::InferReduceShape({&v, &k2, &iv, &ik}, {0}, argmax), {"Reduce", "same dimensions", "s32[4]"}));
}

TEST(ReduceTest, Errors) {
  Shape in = S("f32[2,3]"), init = S("f32[]"), bad_init = S("f32[2]"), s_init = S("s32[]");
  ProgramShape add = PS({"f32[]", "f32[]"}, "f32[]");
  EXPECT_TRUE(IsError(SI::InferReduceShape({&in, &init}, {2}, add), {"Reduce", "dimension 2 is out of range"}));
  EXPECT_TRUE(IsError(SI::InferReduceShape({&in, &init}, {1, 1}, add), {"Reduce", "more than once"}));
  EXPECT_TRUE(IsError(SI::InferReduceShape({&in, &bad_init}, {1}, add), {"Reduce", "init value 0", "f32[2]"}));
  EXPECT_TRUE(IsError(SI::InferReduceShape({&in, &s_init}, {1}, add), {"Reduce", "init value 0", "s32[]"}));
  EXPECT_TRUE(IsError(SI::InferReduceShape({&in}, {1}, add), {"Reduce", "N operands followed by N init values"}));
  EXPECT_TRUE(IsError(SI::InferReduceShape({&in, &init}, {1}, PS({"f32[]", "f32[]", "f32[]"}, "f32[]")),
                      {"Reduce", "2 parameters", "takes 3"}));
  EXPECT_TRUE(IsError(SI::InferReduceShape({&in, &init}, {1}, PS({"f32[]", "s32[]"}, "f32[]")),
                      {"Reduce", "reducer parameter 1 has shape s32[] but must be f32[]"}));
  EXPECT_TRUE(IsError(SI::InferReduceShape({&in, &init}, {1}, PS({"f32[]", "f32[]"}, "f32[2]")),
                      {"Reduce", "must return f32[]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReduce, {in, init}, Dims({0})), {"Reduce", "expects 1 called computations, got 0"}));
}

TEST(MapTest, Shapes) {
  Shape a = S("f32[3]"), b = S("f32[3]"), c = S("f32[4]"), i = S("s32[3]");
  EXPECT_TRUE(IsShape(SI::InferMapShape({&a, &b}, PS({"f32[]", "f32[]"}, "f32[]"), {0}), "f32[3]"));
  EXPECT_TRUE(IsShape(SI::InferMapShape({&a, &i}, PS({"f32[]", "s32[]"}, "pred[]"), {}), "pred[3]"));
  EXPECT_TRUE(IsError(SI::InferMapShape({&a, &c}, PS({"f32[]", "f32[]"}, "f32[]"), {0}), {"Map", "same dimensions"}));
  EXPECT_TRUE(IsError(SI::InferMapShape({&a, &b}, PS({"f32[]"}, "f32[]"), {0}), {"Map", "2 parameters", "takes 1"}));
  EXPECT_TRUE(IsError(SI::InferMapShape({&a, &i}, PS({"f32[]", "f32[]"}, "f32[]"), {0}),
                      {"Map", "parameter 1 has shape f32[] but must be s32[]"}));
  EXPECT_TRUE(IsError(SI::InferMapShape({&a}, PS({"f32[]"}, "f32[2]"), {0}), {"Map", "scalar", "f32[2]"}));
  EXPECT_TRUE(IsError(SI::InferMapShape({&a}, PS({"f32[]"}, "f32[]"), {1}), {"Map", "dimensions {1}"}));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kMap, {a}, Dims({0}), {PS({"f32[]"}, "f32[]")}), "f32[3]"));
}

TEST(CallTest, Shapes) {
  Shape a = S("f32[3]"), b = S("s32[]");
  EXPECT_TRUE(IsShape(SI::InferCallShape({&a, &b}, PS({"f32[3]", "s32[]"}, "(f32[3], s32[])")), "(f32[3], s32[])"));
  EXPECT_TRUE(IsShape(SI::InferCallShape({}, PS({}, "f32[]")), "f32[]"));
  EXPECT_TRUE(IsError(SI::InferCallShape({&a}, PS({"f32[3]", "s32[]"}, "f32[]")), {"Call", "2 parameters", "1 arguments"}));
  EXPECT_TRUE(IsError(SI::InferCallShape({&a, &a}, PS({"f32[3]", "s32[]"}, "f32[]")),
                      {"Call", "argument 1 has shape f32[3]", "s32[]"}));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kCall, {a}, {}, {PS({"f32[3]"}, "pred[]")}), "pred[]"));
}

TEST(WhileTest, Shapes) {
  const char* state = "(s32[], f32[10])";
  ProgramShape cond = PS({state}, "pred[]"), body = PS({state}, state);
  EXPECT_TRUE(IsShape(SI::InferWhileShape(cond, body, S(state)), state));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kWhile, {S(state)}, {}, {cond, body}), state));
  EXPECT_TRUE(IsError(SI::InferWhileShape(PS({state}, "s32[]"), body, S(state)), {"While", "condition must return pred[]", "s32[]"}));
  EXPECT_TRUE(IsError(SI::InferWhileShape(cond, PS({state}, "(s32[], f32[9])"), S(state)), {"While", "body returns"}));
  EXPECT_TRUE(IsError(SI::InferWhileShape(cond, body, S("(s32[], f32[9])")), {"While", "condition parameter"}));
  EXPECT_TRUE(IsError(SI::InferWhileShape(PS({state, state}, "pred[]"), body, S(state)), {"While", "1 parameter"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kWhile, {S(state)}, {}, {cond}), {"While", "expects 2 called computations"}));
}

TEST(ConditionalTest, Shapes) {
  std::vector<ProgramShape> two = {PS({"f32[2]"}, "s32[]"), PS({"u8[]"}, "s32[]")};
  EXPECT_TRUE(IsShape(SI::InferConditionalShape(S("pred[]"), two, {S("f32[2]"), S("u8[]")}), "s32[]"));
  EXPECT_TRUE(IsShape(SI::InferConditionalShape(S("s32[]"), two, {S("f32[2]"), S("u8[]")}), "s32[]"));
  std::vector<ProgramShape> three = {PS({"f32[]"}, "f32[]"), PS({"f32[]"}, "f32[]"), PS({"f32[]"}, "f32[]")};
  EXPECT_TRUE(IsShape(SI::InferConditionalShape(S("s32[]"), three, {S("f32[]"), S("f32[]"), S("f32[]")}), "f32[]"));
  EXPECT_TRUE(IsError(SI::InferConditionalShape(S("pred[]"), three, {S("f32[]"), S("f32[]"), S("f32[]")}),
                      {"Conditional", "exactly 2 branches"}));
  EXPECT_TRUE(IsError(SI::InferConditionalShape(S("f32[]"), two, {S("f32[2]"), S("u8[]")}), {"Conditional", "f32[]"}));
  EXPECT_TRUE(IsError(SI::InferConditionalShape(S("s32[2]"), two, {S("f32[2]"), S("u8[]")}), {"Conditional", "s32[2]"}));
  EXPECT_TRUE(IsError(SI::InferConditionalShape(S("pred[]"), two, {S("f32[2]"), S("s8[]")}),
                      {"Conditional", "branch 1 takes u8[] but its operand is s8[]"}));
  std::vector<ProgramShape> mismatched = {PS({"f32[]"}, "f32[]"), PS({"f32[]"}, "f64[]")};
  EXPECT_TRUE(IsError(SI::InferConditionalShape(S("pred[]"), mismatched, {S("f32[]"), S("f32[]")}),
                      {"Conditional", "branch 1 returns f64[] but branch 0 returns f32[]"}));
  EXPECT_TRUE(IsError(SI::InferConditionalShape(S("s32[]"), three, {S("f32[]")}), {"Conditional", "3 branch computations but 1"}));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kConditional, {S("pred[]"), S("f32[2]"), S("u8[]")}, {}, two), "s32[]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kConditional, {S("pred[]"), S("f32[2]")}, {}, two), {"Conditional"}));
}

// --- Bitcast, fusion, opt-barrier -----------------------------------------------------------

TEST(BitcastTest, DeclaredShapeOfTheSameByteSize) {
  // Same element type, other dimensions and layout.
  Shape declared = ShapeUtil::MakeShapeWithLayout(F32, {3, 2}, {0, 1});
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kBitcast, {S("f32[2,3]")}, {}, {}, declared), "f32[3,2]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastShape(S("f32[6]"), S("f32[1,6,1]")), "f32[1,6,1]"));
  // Other element types of the same total byte size (as XLA's CPU/GPU allow).
  EXPECT_TRUE(IsShape(SI::InferBitcastShape(S("f32[4]"), S("s32[2,2]")), "s32[2,2]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastShape(S("f32[4]"), S("f16[8]")), "f16[8]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastShape(S("c64[3]"), S("f64[3]")), "f64[3]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastShape(S("u8[8]"), S("s64[]")), "s64[]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastShape(S("pred[2]"), S("pred[2,1]")), "pred[2,1]"));
  EXPECT_TRUE(IsShape(SI::InferBitcastShape(S("f32[0,3]"), S("s8[0]")), "s8[0]"));
}

TEST(BitcastTest, Errors) {
  EXPECT_TRUE(IsError(SI::InferBitcastShape(S("f32[4]"), S("f32[5]")),
                      {"Bitcast: operand f32[4] has 16 bytes but the result f32[5] has 20", "byte size"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kBitcast, {S("f32[2,3]")}, {}, {}, S("f64[2,3]")),
                      {"Bitcast", "24 bytes", "f64[2,3] has 48"}));
  EXPECT_TRUE(IsError(SI::InferBitcastShape(S("(f32[2])"), S("f32[2]")), {"Bitcast", "operand must be an array"}));
  EXPECT_TRUE(IsError(SI::InferBitcastShape(S("f32[2]"), S("(f32[2])")), {"Bitcast", "result must be an array"}));
  EXPECT_TRUE(IsError(SI::InferBitcastShape(S("u8[4]"), S("pred[4]")), {"Bitcast", "pred"}));
  EXPECT_TRUE(IsError(SI::InferBitcastShape(S("f32[2]"), Shape(F32, {-8})), {"Bitcast", "negative"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kBitcast, {S("f32[2]"), S("f32[2]")}, {}, {}, S("f32[2]")),
                      {"Bitcast", "expects 1 operands, got 2"}));
}

TEST(FusionTest, ResultIsTheFusedRoot) {
  ProgramShape fused = PS({"f32[2,3]", "s32[]"}, "(f32[3], s32[])");
  HloInstructionProto attrs;
  for (const char* kind : {"kLoop", "kInput", "kOutput", "kCustom", "kSomethingElse"}) {
    attrs.set_fusion_kind(kind);
    EXPECT_TRUE(IsShape(Infer(HloOpcode::kFusion, {S("f32[2,3]"), S("s32[]")}, attrs, {fused}), "(f32[3], s32[])"))
        << kind;
  }
  // Operand layouts may differ from the parameters'.
  Shape col_major = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  Shape scalar = S("s32[]");
  EXPECT_TRUE(IsShape(SI::InferFusionShape({&col_major, &scalar}, fused), "(f32[3], s32[])"));
  EXPECT_TRUE(IsShape(SI::InferFusionShape({}, PS({}, "f32[4]")), "f32[4]"));
}

TEST(FusionTest, Errors) {
  ProgramShape fused = PS({"f32[2,3]", "s32[]"}, "f32[3]");
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFusion, {S("f32[2,3]")}, {}, {fused}),
                      {"Fusion: the fused computation takes 2 parameters but the fusion has 1 operands",
                       "(p0: f32[2,3], p1: s32[]) -> f32[3]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFusion, {S("f32[2,3]"), S("s32[]"), S("s32[]")}, {}, {fused}),
                      {"Fusion", "2 parameters but the fusion has 3 operands"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFusion, {S("f32[3,2]"), S("s32[]")}, {}, {fused}),
                      {"Fusion: operand 0 has shape f32[3,2] but the fused computation's parameter 0 is f32[2,3]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFusion, {S("f32[2,3]"), S("u32[]")}, {}, {fused}),
                      {"Fusion", "operand 1 has shape u32[]", "s32[]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFusion, {S("f32[2,3]"), S("s32[]")}, {}, {}),
                      {"Fusion", "expects 1 called computations, got 0"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFusion, {S("f32[2,3]"), S("s32[]")}, {}, {fused, fused}),
                      {"Fusion", "expects 1 called computations, got 2"}));
}

TEST(OptimizationBarrierTest, PassesAnyShapeThrough) {
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kOptimizationBarrier, {S("f32[2,3]")}), "f32[2,3]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kOptimizationBarrier, {S("(f32[2], (s32[], pred[3]), token[])")}),
                      "(f32[2], (s32[], pred[3]), token[])"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kOptimizationBarrier, {ShapeUtil::MakeShapeWithLayout(F32, {2, 2}, {0, 1})}),
                      "f32[2,2]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kOptimizationBarrier, {S("f32[]"), S("f32[]")}),
                      {"OptBarrier", "expects 1 operands, got 2"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kOptimizationBarrier, {S("f32[]")}, {}, {PS({}, "f32[]")}),
                      {"OptBarrier", "expects 0 called computations, got 1"}));
}

// --- Dispatch -------------------------------------------------------------------------------

TEST(InstructionTest, ParameterAndConstantUseDeclaredShape) {
  Shape declared = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kParameter, {}, {}, {}, declared), "f32[2,3]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kConstant, {}, {}, {}, S("(f32[], s32[2])")), "(f32[], s32[2])"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kParameter, {S("f32[]")}, {}, {}, declared), {"Parameter", "expects 0 operands"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kParameter, {}, {}, {}, Shape(F32, {-1})), {"Parameter", "negative"}));
}

TEST(InstructionTest, UnimplementedOpsSaySo) {
  for (HloOpcode op : {HloOpcode::kAddDependency}) {
    auto r = Infer(op, {S("f32[2]"), S("f32[2]")});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_EQ(r.status().message(), absl::StrCat(HloOpcodeString(op), ": shape inference is not implemented yet"));
  }
}

TEST(InstructionTest, CustomCallResultIsTheDeclaredShape) {
  HloInstructionProto attrs;
  attrs.set_custom_call_target("t");
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kCustomCall, {S("f32[2]"), S("s32[]")}, attrs, {}, S("(f32[3], s8[2,2])")),
                      "(f32[3], s8[2,2])"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kCustomCall, {}, attrs, {}, S("f32[]")), "f32[]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCustomCall, {}, attrs), {"CustomCall 't'", "must be declared"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCustomCall, {}, attrs, {}, Shape(F32, {-1})),
                      {"CustomCall 't'", "invalid declared result shape"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCustomCall, {}, HloInstructionProto(), {}, S("f32[]")),
                      {"custom_call_target is empty"}));
  HloInstructionProto version = attrs;
  version.set_custom_call_api_version(static_cast<CustomCallApiVersion>(9));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCustomCall, {}, version, {}, S("f32[]")), {"unknown api_version 9"}));
  HloInstructionProto layouts = attrs;
  *layouts.add_operand_shapes_with_layout() = S("f32[2]{0}").ToProto();
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kCustomCall, {S("f32[2]")}, layouts, {}, S("f32[]")), "f32[]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCustomCall, {S("f32[3]")}, layouts, {}, S("f32[]")),
                      {"operand layout constraint 0 is f32[2] but operand 0 is f32[3]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCustomCall, {S("f32[2]"), S("f32[2]")}, layouts, {}, S("f32[]")),
                      {"1 operand layout constraints for 2 operands"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCustomCall, {S("f32[2]")}, attrs, {ProgramShape()}, S("f32[]")),
                      {"expects 0 called computations"}));
}

TEST(InstructionTest, ReducePrecision) {
  HloInstructionProto attrs;
  attrs.set_exponent_bits(5);
  attrs.set_mantissa_bits(10);
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kReducePrecision, {S("f32[2,3]")}, attrs), "f32[2,3]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kReducePrecision, {S("bf16[4]")}, attrs), "bf16[4]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReducePrecision, {S("s32[4]")}, attrs),
                      {"ReducePrecision", "floating-point", "s32[4]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReducePrecision, {S("c64[4]")}, attrs), {"ReducePrecision", "floating-point"}));
  attrs.set_exponent_bits(0);
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReducePrecision, {S("f32[4]")}, attrs),
                      {"ReducePrecision", "exponent_bits must be at least 1, got 0"}));
  attrs.set_exponent_bits(8);
  attrs.set_mantissa_bits(-1);
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReducePrecision, {S("f32[4]")}, attrs),
                      {"ReducePrecision", "mantissa_bits must be non-negative, got -1"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReducePrecision, {S("f32[4]"), S("f32[4]")}, attrs), {"expects 1 operands"}));
}

TEST(InstructionTest, RngBitGenerator) {
  HloInstructionProto attrs;
  attrs.set_rng_algorithm(RNG_THREE_FRY);
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kRngBitGenerator, {S("u64[2]")}, attrs, {}, S("(u64[2], u32[3,4])")),
                      "(u64[2], u32[3,4])"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kRngBitGenerator, {S("u64[3]")}, attrs, {}, S("(u64[3], u32[4])")),
                      {"RngBitGenerator", "THREE_FRY needs a u64[2] state, got 3"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kRngBitGenerator, {S("s64[2]")}, attrs, {}, S("(s64[2], u32[4])")),
                      {"RngBitGenerator", "must be a u64 vector"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kRngBitGenerator, {S("u64[2]")}, attrs, {}, S("(u64[2], pred[4])")),
                      {"RngBitGenerator", "integer or floating-point"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kRngBitGenerator, {S("u64[2]")}, attrs, {}, S("u32[4]")),
                      {"RngBitGenerator", "(state, output) tuple"}));
  attrs.set_rng_algorithm(RNG_PHILOX);
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kRngBitGenerator, {S("u64[3]")}, attrs, {}, S("(u64[3], f64[5])")),
                      "(u64[3], f64[5])"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kRngBitGenerator, {S("u64[4]")}, attrs, {}, S("(u64[4], u8[5])")),
                      {"RngBitGenerator", "PHILOX needs a u64[2] or u64[3] state, got 4"}));
}

TEST(InstructionTest, CalledComputationCounts) {
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAdd, {S("f32[]"), S("f32[]")}, {}, {PS({}, "f32[]")}),
                      {"Add", "expects 0 called computations, got 1"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCall, {}, {}, {}), {"Call", "expects 1 called computations, got 0"}));
}

TEST(InstructionTest, NullOperandsAreErrors) {
  std::vector<const Shape*> ops = {nullptr};
  auto r = SI::InferInstructionShape(HloOpcode::kAbs, {}, ops, {}, Shape());
  EXPECT_TRUE(IsError(r, {"Abs", "null"}));
}

// --- Gather and convolution -------------------------------------------------------

GatherDimensionNumbers GatherDnums(std::vector<int64_t> offset, std::vector<int64_t> collapsed,
                                   std::vector<int64_t> start_map, int64_t index_vector_dim) {
  GatherDimensionNumbers g;
  for (int64_t d : offset) g.add_offset_dims(d);
  for (int64_t d : collapsed) g.add_collapsed_slice_dims(d);
  for (int64_t d : start_map) g.add_start_index_map(d);
  g.set_index_vector_dim(index_vector_dim);
  return g;
}

TEST(GatherTest, ResultInterleavesBatchAndOffsetDimensions) {
  // Batch dims of [5,7,2] (index vectors in
  // dimension 2) around offset dims {1,2} of slices [8,6] of a [9,10,11].
  EXPECT_TRUE(IsShape(ShapeInference::InferGatherShape(S("f32[9,10,11]"), S("s32[5,7,2]"),
                                                       GatherDnums({1, 2}, {0}, {0, 1}, 2), {1, 8, 6}),
                      "f32[5,8,6,7]"));
  // Implicit index vector (index_vector_dim = rank) and a scalar index.
  EXPECT_TRUE(IsShape(ShapeInference::InferGatherShape(S("f32[9,4]"), S("s64[3]"), GatherDnums({1}, {0}, {0}, 1),
                                                       {1, 4}),
                      "f32[3,4]"));
  EXPECT_TRUE(IsShape(ShapeInference::InferGatherShape(S("u8[9,4]"), S("u32[]"), GatherDnums({0}, {0}, {0}, 0),
                                                       {1, 4}),
                      "u8[4]"));
}

TEST(GatherTest, Errors) {
  const Shape operand = S("f32[9,4]");
  EXPECT_TRUE(IsError(ShapeInference::InferGatherShape(operand, S("f32[3]"), GatherDnums({1}, {0}, {0}, 1), {1, 4}),
                      {"start_indices must have an integral element type"}));
  EXPECT_TRUE(IsError(ShapeInference::InferGatherShape(operand, S("s32[3]"), GatherDnums({1}, {0}, {0}, 2), {1, 4}),
                      {"index_vector_dim 2 is out of range"}));
  EXPECT_TRUE(IsError(ShapeInference::InferGatherShape(operand, S("s32[3,2]"), GatherDnums({1}, {0}, {0}, 1), {1, 4}),
                      {"start_index_map {0} has 1 entries but the index vector", "has 2"}));
  EXPECT_TRUE(IsError(ShapeInference::InferGatherShape(operand, S("s32[3]"), GatherDnums({1}, {0}, {0}, 1), {1, 5}),
                      {"slice size 5 of dimension 1 is out of range"}));
  EXPECT_TRUE(IsError(ShapeInference::InferGatherShape(operand, S("s32[3]"), GatherDnums({1}, {0}, {0}, 1), {2, 4}),
                      {"slice size must be 1, got 2"}));
  EXPECT_TRUE(IsError(ShapeInference::InferGatherShape(operand, S("s32[3]"), GatherDnums({1}, {}, {0}, 1), {1, 4}),
                      {"offset_dims {1} must have 2 entries"}));
  EXPECT_TRUE(IsError(ShapeInference::InferGatherShape(operand, S("s32[3]"), GatherDnums({2}, {0}, {0}, 1), {1, 4}),
                      {"offset dimension 2 is out of range"}));
  EXPECT_TRUE(IsError(ShapeInference::InferGatherShape(S("f32[9,4,3]"), S("s32[3]"), GatherDnums({2, 1}, {0}, {0}, 1),
                                                       {1, 4, 3}),
                      {"offset_dims {2,1} must be sorted"}));
  EXPECT_TRUE(IsError(ShapeInference::InferGatherShape(operand, S("s32[3]"), GatherDnums({1}, {0}, {5}, 1), {1, 4}),
                      {"start_index_map", "dimension 5 is out of range"}));
}

ConvolutionDimensionNumbers Nhwc() {
  ConvolutionDimensionNumbers d;
  d.set_input_batch_dimension(0);
  d.set_input_feature_dimension(3);
  d.add_input_spatial_dimensions(1);
  d.add_input_spatial_dimensions(2);
  d.add_kernel_spatial_dimensions(0);
  d.add_kernel_spatial_dimensions(1);
  d.set_kernel_input_feature_dimension(2);
  d.set_kernel_output_feature_dimension(3);
  d.set_output_batch_dimension(0);
  d.set_output_feature_dimension(3);
  d.add_output_spatial_dimensions(1);
  d.add_output_spatial_dimensions(2);
  return d;
}

Window Window2d(int64_t size, int64_t stride, int64_t pad_low, int64_t pad_high, int64_t lhs_dilation = 1,
                int64_t rhs_dilation = 1) {
  Window w;
  for (int i = 0; i < 2; ++i) {
    WindowDimension* d = w.add_dimensions();
    d->set_size(size);
    d->set_stride(stride);
    d->set_padding_low(pad_low);
    d->set_padding_high(pad_high);
    d->set_base_dilation(lhs_dilation);
    d->set_window_dilation(rhs_dilation);
  }
  return w;
}

TEST(ConvolutionTest, OutputSizes) {
  // MobileNet's first layer: 300x300, 3x3 stride 2, pad 0_1 -> 150x150.
  EXPECT_TRUE(IsShape(ShapeInference::InferConvolveShape(S("f32[1,300,300,3]"), S("f32[3,3,3,32]"),
                                                         Window2d(3, 2, 0, 1), Nhwc(), 1, 1),
                      "f32[1,150,150,32]"));
  // Dilations: base (10-1)*2+1 = 19, window (3-1)*3+1 = 7 -> 13.
  EXPECT_TRUE(IsShape(ShapeInference::InferConvolveShape(S("f32[2,10,10,4]"), S("f32[3,3,4,5]"),
                                                         Window2d(3, 1, 0, 0, 2, 3), Nhwc(), 1, 1),
                      "f32[2,13,13,5]"));
  // Depthwise with multiplier 2, batch groups, a window larger than the base.
  EXPECT_TRUE(IsShape(ShapeInference::InferConvolveShape(S("bf16[1,8,8,6]"), S("bf16[3,3,1,12]"),
                                                         Window2d(3, 1, 1, 1), Nhwc(), 6, 1),
                      "bf16[1,8,8,12]"));
  EXPECT_TRUE(IsShape(ShapeInference::InferConvolveShape(S("f32[4,5,5,3]"), S("f32[2,2,3,6]"), Window2d(2, 1, 0, 0),
                                                         Nhwc(), 1, 2),
                      "f32[2,4,4,6]"));
  EXPECT_TRUE(IsShape(ShapeInference::InferConvolveShape(S("s32[1,2,2,1]"), S("s32[3,3,1,1]"), Window2d(3, 1, 0, 0),
                                                         Nhwc(), 1, 1),
                      "s32[1,0,0,1]"));
}

TEST(ConvolutionTest, MixedPrecisionTakesTheDeclaredTypeOfTheOperandsKind) {
  // StableHLO's convolution constrains only the result type, as dot_general.
  HloInstructionProto attrs;
  *attrs.mutable_window() = Window2d(3, 1, 1, 1);
  *attrs.mutable_convolution_dimension_numbers() = Nhwc();
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kConvolution, {S("s8[1,4,4,2]"), S("s8[3,3,2,5]")}, attrs, {},
                            S("s32[1,4,4,5]")),
                      "s32[1,4,4,5]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kConvolution, {S("bf16[1,4,4,2]"), S("bf16[3,3,2,5]")}, attrs, {},
                            S("f32[1,4,4,5]")),
                      "f32[1,4,4,5]"));
  // Another kind (integer operands, float result) is not mixed precision:
  // the operands' type is inferred, and the verifier reports the mismatch.
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kConvolution, {S("s8[1,4,4,2]"), S("s8[3,3,2,5]")}, attrs, {},
                            S("f32[1,4,4,5]")),
                      "s8[1,4,4,5]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kConvolution, {S("f32[1,4,4,2]"), S("f32[3,3,2,5]")}, attrs),
                      "f32[1,4,4,5]"));
}

TEST(ConvolutionTest, Errors) {
  const Shape lhs = S("f32[1,8,8,4]");
  EXPECT_TRUE(IsError(ShapeInference::InferConvolveShape(lhs, S("f64[3,3,4,2]"), Window2d(3, 1, 0, 0), Nhwc(), 1, 1),
                      {"element types differ"}));
  EXPECT_TRUE(IsError(ShapeInference::InferConvolveShape(lhs, S("f32[3,3,3,2]"), Window2d(3, 1, 0, 0), Nhwc(), 1, 1),
                      {"input features 4 divided by feature_group_count 1 must equal the kernel's input features 3"}));
  EXPECT_TRUE(IsError(ShapeInference::InferConvolveShape(lhs, S("f32[3,3,2,3]"), Window2d(3, 1, 0, 0), Nhwc(), 2, 1),
                      {"kernel output features 3 must be a multiple of feature_group_count 2"}));
  EXPECT_TRUE(IsError(ShapeInference::InferConvolveShape(lhs, S("f32[3,3,4,2]"), Window2d(2, 1, 0, 0), Nhwc(), 1, 1),
                      {"window size 2 of spatial dimension 0 does not match the kernel's size 3"}));
  EXPECT_TRUE(IsError(ShapeInference::InferConvolveShape(lhs, S("f32[3,3,4,2]"), Window2d(3, 0, 0, 0), Nhwc(), 1, 1),
                      {"needs stride and dilations of at least 1"}));
  EXPECT_TRUE(IsError(ShapeInference::InferConvolveShape(lhs, S("f32[3,3,4,2]"), Window2d(3, 1, -5, -5), Nhwc(), 1, 1),
                      {"negative size -2 after padding"}));
  EXPECT_TRUE(IsError(ShapeInference::InferConvolveShape(lhs, S("f32[3,3,4,2]"), Window2d(3, 1, 0, 0), Nhwc(), 0, 1),
                      {"must be at least 1"}));
  ConvolutionDimensionNumbers repeated = Nhwc();
  repeated.set_input_feature_dimension(0);
  EXPECT_TRUE(IsError(ShapeInference::InferConvolveShape(lhs, S("f32[3,3,4,2]"), Window2d(3, 1, 0, 0), repeated, 1, 1),
                      {"input dimension numbers", "appears more than once"}));
  EXPECT_TRUE(IsError(ShapeInference::InferConvolveShape(S("pred[1,8,8,4]"), S("pred[3,3,4,2]"),
                                                         Window2d(3, 1, 0, 0), Nhwc(), 1, 1),
                      {"operands must be numbers"}));
}


TEST(ReduceWindowTest, ShapesAndErrors) {
  const ProgramShape max = PS({"f32[]", "f32[]"}, "f32[]");
  const Shape x = S("f32[4,6]"), init = S("f32[]");
  auto infer = [&](const Window& w, const Shape& operand = S("f32[4,6]")) {
    return ShapeInference::InferReduceWindowShape({&operand, &init}, w, max);
  };
  Window w;
  for (int64_t size : {2, 3}) {
    WindowDimension* d = w.add_dimensions();
    d->set_size(size);
    d->set_stride(size);
    d->set_base_dilation(1);
    d->set_window_dilation(1);
  }
  EXPECT_TRUE(IsShape(infer(w), "f32[2,2]"));
  Window padded = w;
  padded.mutable_dimensions(1)->set_padding_low(1);
  padded.mutable_dimensions(1)->set_padding_high(2);
  EXPECT_TRUE(IsShape(infer(padded), "f32[2,3]"));
  Window one = w;
  one.mutable_dimensions()->RemoveLast();
  EXPECT_TRUE(IsError(infer(one), {"the window has 1 dimensions but the operands have rank 2"}));
  Window zero = w;
  zero.mutable_dimensions(0)->set_size(0);
  EXPECT_TRUE(IsError(infer(zero), {"window dimension 0 has size 0"}));
  Window no_stride = w;
  no_stride.mutable_dimensions(1)->set_stride(0);
  EXPECT_TRUE(IsError(infer(no_stride), {"needs stride and dilations of at least 1"}));
  const Shape s32 = S("s32[]");
  EXPECT_TRUE(IsError(ShapeInference::InferReduceWindowShape({&x, &s32}, w, max),
                      {"init value 0 must be a scalar of operand 0's element type"}));
}

TEST(ScatterTest, ShapesAndErrors) {
  const ProgramShape add = PS({"f32[]", "f32[]"}, "f32[]");
  const Shape operand = S("f32[5,3]"), ids = S("s32[4]"), updates = S("f32[4,3]");
  ScatterDimensionNumbers d;
  d.add_update_window_dims(1);
  d.add_inserted_window_dims(0);
  d.add_scatter_dims_to_operand_dims(0);
  d.set_index_vector_dim(1);
  EXPECT_TRUE(IsShape(ShapeInference::InferScatterShape({&operand, &ids, &updates}, d, add), "f32[5,3]"));
  const Shape wide = S("f32[4,4]");
  EXPECT_TRUE(IsError(ShapeInference::InferScatterShape({&operand, &ids, &wide}, d, add),
                      {"update window dimension 1 has size 4, larger than operand dimension 1 (3)"}));
  const Shape short_updates = S("f32[3,3]");
  EXPECT_TRUE(IsError(ShapeInference::InferScatterShape({&operand, &ids, &short_updates}, d, add),
                      {"update scatter dimension 0 has size 3 but scatter_indices has 4"}));
  const Shape float_ids = S("f32[4]");
  EXPECT_TRUE(IsError(ShapeInference::InferScatterShape({&operand, &float_ids, &updates}, d, add),
                      {"scatter_indices must have an integral element type"}));
  ScatterDimensionNumbers bad = d;
  bad.clear_inserted_window_dims();
  EXPECT_TRUE(IsError(ShapeInference::InferScatterShape({&operand, &ids, &updates}, bad, add),
                      {"operand rank 2 must equal the update window dimensions (1) plus the inserted (0)"}));
  EXPECT_TRUE(IsError(ShapeInference::InferScatterShape({&operand, &ids, &updates}, d, PS({"f32[]"}, "f32[]")),
                      {"update computation must take 2 parameters"}));
}

TEST(SortTest, ShapesAndErrors) {
  const ProgramShape less = PS({"f32[]", "f32[]"}, "pred[]");
  const ProgramShape less2 = PS({"f32[]", "f32[]", "s32[]", "s32[]"}, "pred[]");
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kSort, {S("f32[3,4]")}, Dims({1}), {less}), "f32[3,4]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kSort, {S("f32[3,4]")}, Dims({0}), {less}), "f32[3,4]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kSort, {S("f32[3,4]"), S("s32[3,4]")}, Dims({0}), {less2}),
                      "(f32[3,4], s32[3,4])"));
  const Shape pred5 = S("pred[5]");
  const std::vector<const Shape*> pred_operands = {&pred5};
  EXPECT_TRUE(IsShape(SI::InferSortShape(pred_operands, 0, PS({"pred[]", "pred[]"}, "pred[]")), "pred[5]"));
  // Dimension out of range, missing, or several.
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3,4]")}, Dims({2}), {less}),
                      {"Sort", "dimension 2 is out of range", "rank 2"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3,4]")}, Dims({-1}), {less}), {"dimension -1"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[]")}, Dims({0}), {less}), {"out of range"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3]")}, Dims({}), {less}), {"exactly one sort dimension"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3]")}, Dims({0, 0}), {less}), {"exactly one sort dimension"}));
  // Operands of different dimensions; no operand; a tuple operand.
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3,4]"), S("s32[4,3]")}, Dims({0}), {less2}),
                      {"same dimensions", "f32[3,4]", "s32[4,3]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {}, Dims({0}), {less}), {"at least one operand"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("(f32[3])")}, Dims({0}), {less}), {"operand 0"}));
  // Comparator arity, parameter types, result.
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3]"), S("s32[3]")}, Dims({0}), {less}),
                      {"comparator must take 4 parameters", "takes 2"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3]")}, Dims({0}), {PS({"f32[]"}, "pred[]")}),
                      {"must take 2 parameters"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3]"), S("s32[3]")}, Dims({0}),
                            {PS({"f32[]", "f32[]", "f32[]", "s32[]"}, "pred[]")}),
                      {"comparator parameter 2 has shape f32[] but must be s32[]", "lhs of operand 1"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3]")}, Dims({0}), {PS({"f32[]", "f32[3]"}, "pred[]")}),
                      {"parameter 1", "rhs of operand 0"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3]")}, Dims({0}), {PS({"f32[]", "f32[]"}, "f32[]")}),
                      {"comparator must return pred[] but returns f32[]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3]")}, Dims({0}), {PS({"f32[]", "f32[]"}, "pred[1]")}),
                      {"must return pred[]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSort, {S("f32[3]")}, Dims({0}), {}), {"expects 1 called computations"}));
}

TEST(TopKTest, ShapesAndErrors) {
  HloInstructionProto k2;
  k2.set_k(2);
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kTopK, {S("f32[5,3]")}, k2), "(f32[5,2], s32[5,2])"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kTopK, {S("u8[2]")}, k2), "(u8[2], s32[2])"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kTopK, {S("pred[2,3,4]")}, k2), "(pred[2,3,2], s32[2,3,2])"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kTopK, {S("bf16[4]")}, {}), "(bf16[0], s32[0])"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kTopK, {S("f32[5,1]")}, k2), {"TopK", "k = 2 must be in [0, 1]"}));
  HloInstructionProto negative;
  negative.set_k(-1);
  EXPECT_TRUE(IsError(Infer(HloOpcode::kTopK, {S("f32[5]")}, negative), {"k = -1"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kTopK, {S("f32[]")}, {}), {"rank at least 1"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kTopK, {S("c64[3]")}, k2), {"complex elements have no order"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kTopK, {S("f32[3]"), S("f32[3]")}, k2), {"expects 1 operands"}));
}

TEST(WindowTest, SizesThatWouldOverflowAreRejected) {
  const ProgramShape add = PS({"f32[]", "f32[]"}, "f32[]");
  const Shape x = S("f32[65537]"), init = S("f32[]");
  auto window = [](int64_t size, int64_t lhs_dilation, int64_t rhs_dilation, int64_t pad) {
    Window w;
    WindowDimension* d = w.add_dimensions();
    d->set_size(size);
    d->set_stride(1);
    d->set_base_dilation(lhs_dilation);
    d->set_window_dilation(rhs_dilation);
    d->set_padding_low(pad);
    d->set_padding_high(pad);
    return w;
  };
  // (65537 - 1) * 2^48 wraps to 0 in 64 bits.
  EXPECT_TRUE(IsError(ShapeInference::InferReduceWindowShape({&x, &init}, window(1, int64_t{1} << 48, 1, 0), add),
                      {"sizes that overflow"}));
  EXPECT_TRUE(IsError(ShapeInference::InferReduceWindowShape({&x, &init}, window(65537, 1, int64_t{1} << 48, 0), add),
                      {"sizes that overflow"}));
  EXPECT_TRUE(IsError(
      ShapeInference::InferReduceWindowShape({&x, &init}, window(1, 1, 1, std::numeric_limits<int64_t>::min()), add),
      {"sizes that overflow"}));
  // A window of 2^48 positions over a padded scalar: one result element,
  // 2^48 reductions.
  const Shape one = S("f32[1]");
  EXPECT_TRUE(IsError(ShapeInference::InferReduceWindowShape(
                          {&one, &init}, window(int64_t{1} << 48, 1, 1, int64_t{1} << 47), add),
                      {"the window has more than"}));
}

// --- Fft, TriangularSolve, Cholesky -------------------------------------------

HloInstructionProto FftAttrs(FftType type, std::vector<int64_t> lengths) {
  HloInstructionProto attrs;
  attrs.set_fft_type(type);
  for (int64_t l : lengths) attrs.add_fft_length(l);
  return attrs;
}

TEST(FftTest, ResultShapes) {
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kFft, {S("c64[3,8]")}, FftAttrs(FFT, {8})), "c64[3,8]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kFft, {S("c128[2,4,5]")}, FftAttrs(IFFT, {2, 4, 5})), "c128[2,4,5]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kFft, {S("f32[14,15,16,17]")}, FftAttrs(RFFT, {17})), "c64[14,15,16,9]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kFft, {S("f64[4,16]")}, FftAttrs(RFFT, {4, 16})), "c128[4,9]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kFft, {S("c64[14,15,16,17]")}, FftAttrs(IRFFT, {15, 16, 32})),
                      "f32[14,15,16,32]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kFft, {S("c128[3]")}, FftAttrs(IRFFT, {5})), "f64[5]"));
  // Zero lengths keep zero sizes.
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kFft, {S("f32[2,0]")}, FftAttrs(RFFT, {0})), "c64[2,0]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kFft, {S("c64[2,0]")}, FftAttrs(IRFFT, {0})), "f32[2,0]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kFft, {S("c64[14,15,0,17]")}, FftAttrs(IRFFT, {33})), "f32[14,15,0,33]"));
}

TEST(FftTest, EveryConstraintHasItsError) {
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("c64[8]")}, FftAttrs(FFT, {})), {"Fft", "1 to 3", "0 entries"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("c64[2,2,2,2]")}, FftAttrs(FFT, {2, 2, 2, 2})), {"1 to 3"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("c64[8]")}, FftAttrs(FFT, {4, 2})), {"rank at least 2", "c64[8]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("c64[8]")}, FftAttrs(FFT, {-8})), {"negative"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("f32[8]")}, FftAttrs(FFT, {8})), {"FFT needs a complex", "f32[8]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("f32[8]")}, FftAttrs(IFFT, {8})), {"IFFT needs a complex"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("c64[8]")}, FftAttrs(FFT, {4})),
                      {"FFT", "equal fft_length {4}", "dimension 0 of c64[8] is 8"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("c64[8]")}, FftAttrs(RFFT, {8})), {"RFFT needs an f32 or f64"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("f16[8]")}, FftAttrs(RFFT, {8})), {"RFFT needs an f32 or f64"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("f32[3,8]")}, FftAttrs(RFFT, {4, 8})),
                      {"RFFT", "dimension 0 of f32[3,8] is 3"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("f32[9]")}, FftAttrs(IRFFT, {16})), {"IRFFT needs a complex"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("c64[8]")}, FftAttrs(IRFFT, {8})),
                      {"IRFFT", "fft_length/2+1 = 5", "c64[8]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("c64[3,5]")}, FftAttrs(IRFFT, {4, 8})),
                      {"IRFFT", "dimension 0 of c64[3,5] is 3"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("(c64[8])")}, FftAttrs(FFT, {8})), {"must be an array"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("c64[8]")}, FftAttrs(static_cast<FftType>(7), {8})),
                      {"fft_type 7 is not"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kFft, {S("c64[8]"), S("c64[8]")}, FftAttrs(FFT, {8})), {"expects 1 operands"}));
}

HloInstructionProto SolveAttrs(bool left_side, TriangularSolveOptions::Transpose transpose =
                                                   TriangularSolveOptions::NO_TRANSPOSE) {
  HloInstructionProto attrs;
  attrs.mutable_triangular_solve_options()->set_left_side(left_side);
  attrs.mutable_triangular_solve_options()->set_transpose_a(transpose);
  return attrs;
}

TEST(TriangularSolveTest, ResultIsB) {
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kTriangularSolve, {S("f32[3,3]"), S("f32[3,1]")}, SolveAttrs(true)),
                      "f32[3,1]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kTriangularSolve, {S("c64[2,4,4]"), S("c64[2,5,4]")},
                            SolveAttrs(false, TriangularSolveOptions::ADJOINT)),
                      "c64[2,5,4]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kTriangularSolve, {S("bf16[4,4]"), S("bf16[4,1]")}, SolveAttrs(true)),
                      "bf16[4,1]"));
}

TEST(TriangularSolveTest, EveryConstraintHasItsError) {
  auto solve = [](const char* a, const char* b, HloInstructionProto attrs = SolveAttrs(true)) {
    return Infer(HloOpcode::kTriangularSolve, {S(a), S(b)}, attrs);
  };
  EXPECT_TRUE(IsError(solve("s32[2,2]", "s32[2,2]"), {"TriangularSolve", "floating-point or complex", "s32[2,2]"}));
  EXPECT_TRUE(IsError(solve("f32[2,2]", "f64[2,2]"), {"same element type", "f64[2,2]"}));
  EXPECT_TRUE(IsError(solve("f32[2]", "f32[2]"), {"same rank, at least 2"}));
  EXPECT_TRUE(IsError(solve("f32[2,2]", "f32[1,2,2]"), {"same rank, at least 2"}));
  EXPECT_TRUE(IsError(solve("f32[2,3]", "f32[2,2]"), {"square matrices", "f32[2,3]"}));
  EXPECT_TRUE(IsError(solve("f32[2,3,3]", "f32[4,3,1]"), {"same batch dimensions", "dimension 0 differs"}));
  EXPECT_TRUE(IsError(solve("f32[3,3]", "f32[1,3]"), {"left_side=true", "[..., M, K]", "dimension 0 of b f32[1,3] is 1"}));
  EXPECT_TRUE(IsError(solve("f32[3,3]", "f32[3,1]", SolveAttrs(false)),
                      {"left_side=false", "[..., K, M]", "dimension 1 of b f32[3,1] is 1"}));
  EXPECT_TRUE(IsError(solve("f32[3,3]", "f32[3,1]", SolveAttrs(true, TriangularSolveOptions::TRANSPOSE_INVALID)),
                      {"transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kTriangularSolve, {S("f32[3,3]")}, SolveAttrs(true)), {"expects 2 operands"}));
}

TEST(CholeskyTest, ShapesAndErrors) {
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kCholesky, {S("f32[3,3]")}), "f32[3,3]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kCholesky, {S("c128[2,5,4,4]")}), "c128[2,5,4,4]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCholesky, {S("s32[2,2]")}), {"Cholesky", "floating-point or complex"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCholesky, {S("f32[4]")}), {"rank at least 2", "f32[4]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCholesky, {S("f32[2,3,4]")}), {"square matrices", "f32[2,3,4]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kCholesky, {S("(f32[2,2])")}), {"must be an array"}));
}

HloInstructionProto RngAttrs(RandomDistribution d) {
  HloInstructionProto attrs;
  attrs.set_distribution(d);
  return attrs;
}

TEST(RngTest, ShapesAndErrors) {
  auto rng = [](const char* a, const char* b, RandomDistribution d, const char* out) {
    return Infer(HloOpcode::kRng, {S(a), S(b)}, RngAttrs(d), {}, S(out));
  };
  EXPECT_TRUE(IsShape(rng("f32[]", "f32[]", RNG_UNIFORM, "f32[3,4]"), "f32[3,4]"));
  EXPECT_TRUE(IsShape(rng("s64[]", "s64[]", RNG_UNIFORM, "s64[7]"), "s64[7]"));
  EXPECT_TRUE(IsShape(rng("pred[]", "pred[]", RNG_UNIFORM, "pred[2]"), "pred[2]"));
  EXPECT_TRUE(IsShape(rng("bf16[]", "bf16[]", RNG_NORMAL, "bf16[2]"), "bf16[2]"));
  EXPECT_TRUE(IsError(rng("f32[2]", "f32[]", RNG_UNIFORM, "f32[2]"), {"RngUniform", "a and b must be scalars"}));
  EXPECT_TRUE(IsError(rng("f32[]", "f32[1]", RNG_NORMAL, "f32[2]"), {"RngNormal", "mu and sigma must be scalars"}));
  EXPECT_TRUE(IsError(rng("f32[]", "f64[]", RNG_UNIFORM, "f32[2]"), {"one element type", "f64[]"}));
  EXPECT_TRUE(IsError(rng("f32[]", "f32[]", RNG_UNIFORM, "f64[2]"), {"one element type", "f64[2]"}));
  EXPECT_TRUE(IsError(rng("s32[]", "s32[]", RNG_NORMAL, "s32[2]"), {"RngNormal", "floating-point", "s32[2]"}));
  EXPECT_TRUE(IsError(rng("c64[]", "c64[]", RNG_UNIFORM, "c64[2]"), {"boolean, integer or floating-point"}));
  EXPECT_TRUE(IsError(rng("f32[]", "f32[]", RNG_INVALID, "f32[2]"), {"rng_uniform or rng_normal"}));
  EXPECT_TRUE(IsError(rng("s4[]", "s4[]", RNG_UNIFORM, "s4[2]"), {"RngUniform", "s4"}, absl::StatusCode::kUnimplemented));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kRng, {S("f32[]")}, RngAttrs(RNG_UNIFORM), {}, S("f32[2]")),
                      {"expects 2 operands"}));
}

HloInstructionProto BatchNormAttrs(int64_t feature_index) {
  HloInstructionProto attrs;
  attrs.set_epsilon(0.001f);
  attrs.set_feature_index(feature_index);
  return attrs;
}

TEST(BatchNormTest, ShapesAndEveryConstraint) {
  auto training = [](const char* x, const char* scale, const char* offset, int64_t fi) {
    return Infer(HloOpcode::kBatchNormTraining, {S(x), S(scale), S(offset)}, BatchNormAttrs(fi));
  };
  EXPECT_TRUE(IsShape(training("f32[2,3,4]", "f32[3]", "f32[3]", 1), "(f32[2,3,4], f32[3], f32[3])"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kBatchNormInference,
                            {S("f16[5,2]"), S("f16[2]"), S("f16[2]"), S("f16[2]"), S("f16[2]")}, BatchNormAttrs(1)),
                      "f16[5,2]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kBatchNormGrad,
                            {S("f64[4,3]"), S("f64[4]"), S("f64[4]"), S("f64[4]"), S("f64[4,3]")}, BatchNormAttrs(0)),
                      "(f64[4,3], f64[4], f64[4])"));
  EXPECT_TRUE(IsError(training("f32[2,3]", "f32[3]", "f32[3]", 2), {"BatchNormTraining", "feature_index 2 is out of range"}));
  EXPECT_TRUE(IsError(training("f32[2,3]", "f32[3]", "f32[3]", -1), {"feature_index -1 is out of range"}));
  EXPECT_TRUE(IsError(training("f32[2,3]", "f32[2]", "f32[3]", 1), {"scale must be a rank-1 array", "size 3", "f32[2]"}));
  EXPECT_TRUE(IsError(training("f32[2,3]", "f32[3]", "f32[1,3]", 1), {"offset must be a rank-1 array"}));
  EXPECT_TRUE(IsError(training("f32[2,3]", "f64[3]", "f32[3]", 1), {"scale must have the operand's element type f32"}));
  EXPECT_TRUE(IsError(training("s32[2,3]", "s32[3]", "s32[3]", 1), {"floating-point element type", "s32[2,3]"}));
  EXPECT_TRUE(IsError(training("f32[]", "f32[3]", "f32[3]", 0), {"rank at least 1"}));
  EXPECT_TRUE(IsError(training("f8e5m2[2,3]", "f8e5m2[3]", "f8e5m2[3]", 1), {"BatchNormTraining", "f8e5m2"},
                      absl::StatusCode::kUnimplemented));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kBatchNormInference,
                            {S("f32[5,2]"), S("f32[2]"), S("f32[2]"), S("f32[2]"), S("f32[3]")}, BatchNormAttrs(1)),
                      {"BatchNormInference", "variance must be a rank-1 array"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kBatchNormGrad,
                            {S("f32[4,3]"), S("f32[4]"), S("f32[4]"), S("f32[4]"), S("f32[3,4]")}, BatchNormAttrs(0)),
                      {"BatchNormGrad", "grad_output must have the operand's shape f32[4,3]", "f32[3,4]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kBatchNormGrad, {S("f32[4,3]"), S("f32[4]")}, BatchNormAttrs(0)),
                      {"expects 5 operands"}));
}

TEST(DimensionSizeTest, ShapesAndErrors) {
  HloInstructionProto dim1;
  dim1.add_dimensions(1);
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kGetDimensionSize, {S("f32[2,3]")}, dim1), "s32[]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kSetDimensionSize, {S("f32[2,3]"), S("s32[]")}, dim1), "f32[2,3]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kGetDimensionSize, {S("f32[2]")}, dim1), {"GetDimensionSize", "dimension 1 is out of range"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSetDimensionSize, {S("f32[2,3]"), S("s64[]")}, dim1), {"size must be an s32 scalar"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSetDimensionSize, {S("f32[2,3]"), S("s32[1]")}, dim1), {"size must be an s32 scalar"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kGetDimensionSize, {S("(f32[2])")}, dim1), {"must be an array"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kGetDimensionSize, {S("f32[2,3]")}), {"exactly one dimension"}));
}

}  // namespace
}  // namespace xla

// --- all-to-all, reduce-scatter, send/recv (shape_inference_distributed.cc) ---

namespace xla {
namespace {

HloInstructionProto Groups(std::vector<std::vector<int64_t>> groups, std::vector<int64_t> dims = {}) {
  HloInstructionProto attrs;
  for (const auto& g : groups) {
    ReplicaGroup* group = attrs.add_replica_groups();
    for (int64_t id : g) group->add_replica_ids(id);
  }
  for (int64_t d : dims) attrs.add_dimensions(d);
  return attrs;
}

TEST(CollectivesTest, AllToAll) {
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kAllToAll, {S("f32[4,6]")}, Groups({{0, 1}, {2, 3}}, {1})), "f32[4,6]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kAllToAll, {S("f32[3]")}, Groups({}, {0})), "f32[3]"));  // group size unknown
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kAllToAll, {S("s8[2]"), S("s8[2]")}, Groups({{1, 0}})), "(s8[2], s8[2])"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kAllToAll, {S("s8[2]")}, Groups({})), "(s8[2])"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAllToAll, {S("f32[4,6]")}, Groups({{0, 1, 2, 3}}, {1})),
                      {"all-to-all", "dimension 1", "not divisible by the group size 4"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAllToAll, {S("f32[4]")}, Groups({}, {1})), {"split dimension 1 is out of range"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAllToAll, {S("f32[4]")}, Groups({}, {0, 0})), {"at most one split dimension"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAllToAll, {S("f32[4]"), S("f32[4]")}, Groups({}, {0})), {"expects 1 operands"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAllToAll, {S("f32[4]")}, Groups({{0, 1}, {2}}, {0})),
                      {"all replica groups must have the same size"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAllToAll, {S("f32[4]")}, Groups({{0, 1}, {1, 2}}, {0})),
                      {"id 1 appears in more than one replica group"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAllToAll, {S("f32[2]"), S("f32[3]")}, Groups({})),
                      {"tuple form's operands must have one shape", "f32[3]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAllToAll, {S("f32[2]")}, Groups({{0, 1}})),
                      {"one operand per group member (2), got 1"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kAllToAll, {S("(f32[2])")}, Groups({}, {0})), {"must be an array"}));
}

TEST(CollectivesTest, ReduceScatter) {
  const ProgramShape sum = PS({"f32[]", "f32[]"}, "f32[]");
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kReduceScatter, {S("f32[2,8]")}, Groups({{0, 1, 2, 3}}, {1}), {sum},
                            S("f32[2,2]")),
                      "f32[2,2]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kReduceScatter, {S("f32[6]"), S("f32[3,2]")}, Groups({{0, 1, 2}}, {0}),
                            {sum}, S("(f32[2], f32[1,2])")),
                      "(f32[2], f32[1,2])"));
  // Groups of the run (empty) or multiplied by partitions (channel): the
  // declared part must divide the operand.
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kReduceScatter, {S("f32[8]")}, Groups({}, {0}), {sum}, S("f32[2]")), "f32[2]"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReduceScatter, {S("f32[8]")}, Groups({}, {0}), {sum}, S("f32[3]")),
                      {"reduce-scatter", "does not scatter operand f32[8] along dimension 0"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReduceScatter, {S("f32[8]")}, Groups({{0, 1}}, {0}), {sum}, S("f32[2]")),
                      {"does not scatter", "over groups of 2"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReduceScatter, {S("f32[9]")}, Groups({{0, 1}}, {0}), {sum}, S("f32[4]")),
                      {"not divisible by the group size 2"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReduceScatter, {S("f32[8]")}, Groups({{0, 1}}, {1}), {sum}, S("f32[4]")),
                      {"scatter dimension 1 is out of range"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReduceScatter, {S("f32[8]")}, Groups({{0, 1}}), {sum}, S("f32[4]")),
                      {"exactly one scatter dimension"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReduceScatter, {S("s32[8]")}, Groups({{0, 1}}, {0}), {sum}, S("s32[4]")),
                      {"the reducer must be (s32[], s32[]) -> s32[]"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReduceScatter, {S("f32[8]")}, Groups({{0, 1}}, {0}), {}, S("f32[4]")),
                      {"expects 1 called computations"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReduceScatter, {S("f32[8]")}, Groups({{0, 1}}, {0}), {sum}, S("s32[4]")),
                      {"declared result s32[4] does not fit operand f32[8]"}));
  HloInstructionProto global = Groups({{0, 1}}, {0});
  global.set_use_global_device_ids(true);
  EXPECT_TRUE(IsError(Infer(HloOpcode::kReduceScatter, {S("f32[8]")}, global, {sum}, S("f32[4]")),
                      {"use_global_device_ids needs a channel_id > 0"}));
}

TEST(CollectivesTest, SendRecvAndTheirDones) {
  HloInstructionProto channel;
  channel.set_channel_id(3);
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kSend, {S("f32[2,3]"), S("token[]")}, channel), "(f32[2,3], u32[], token[])"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kSend, {S("(f32[2], s8[])"), S("token[]")}, channel),
                      "((f32[2], s8[]), u32[], token[])"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kSendDone, {S("(f32[2,3], u32[], token[])")}, channel), "token[]"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kRecv, {S("token[]")}, channel, {}, S("(s32[4], u32[], token[])")),
                      "(s32[4], u32[], token[])"));
  EXPECT_TRUE(IsShape(Infer(HloOpcode::kRecvDone, {S("(s32[4], u32[], token[])")}, channel), "(s32[4], token[])"));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSend, {S("f32[2]"), S("f32[2]")}, channel), {"send", "operand 1 must be a token"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSend, {S("f32[2]")}, channel), {"expects 2 operands"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSend, {S("token[]"), S("token[]")}, channel), {"array or a tuple of arrays"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kRecv, {S("token[]")}, channel, {}, S("(s32[4], token[])")),
                      {"recv", "declared as (value, u32[], token)"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kRecv, {S("s32[]")}, channel, {}, S("(s32[4], u32[], token[])")),
                      {"must be a token"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSendDone, {S("token[]")}, channel), {"send-done", "send's (value, u32[], token)"}));
  EXPECT_TRUE(IsError(Infer(HloOpcode::kRecvDone, {S("(s32[4], s32[], token[])")}, channel),
                      {"recv-done", "recv's (value, u32[], token)"}));
  HloInstructionProto negative;
  negative.set_channel_id(-1);
  EXPECT_TRUE(IsError(Infer(HloOpcode::kSend, {S("f32[2]"), S("token[]")}, negative), {"channel_id -1 is negative"}));
}

}  // namespace
}  // namespace xla
