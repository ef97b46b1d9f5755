// Shape-manipulating ops through the client API: broadcast, broadcast-in-dim,
// iota, reshape and collapse, transpose, rev, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, tuples and DeconstructTuple. The
// operation-semantics document's examples are the cases wherever it gives
// concrete values.
#include <array>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client_test_base.h"

namespace xla {
namespace {

using test::AddParam;
using test::ClientTest;
using test::L;

class ShapeOpsTest : public ClientTest {
 protected:
  // f32[4x2x3] `v` of the Reshape and Collapse examples.
  static Literal DocV() {
    return Literal::CreateR3<float>({{{10, 11, 12}, {15, 16, 17}},
                                     {{20, 21, 22}, {25, 26, 27}},
                                     {{30, 31, 32}, {35, 36, 37}},
                                     {{40, 41, 42}, {45, 46, 47}}});
  }
  // The f32[4x3] `b` of the Slice/DynamicSlice examples.
  static Literal DocB() {
    return Literal::CreateR2<float>({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}});
  }
  static Literal DocA() { return Literal::CreateR1<float>({0, 1, 2, 3, 4}); }

  static Literal Vector(std::vector<float> v) { return Literal::CreateR1<float>(v); }

  // f32 array of `dims` holding 0, 1, 2, ... in row-major order.
  static Literal Counting(std::vector<int64_t> dims) {
    Literal lit(ShapeUtil::MakeShape(F32, dims));
    auto data = lit.data<float>();
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
    return lit;
  }
};

// --- Broadcast / BroadcastInDim -------------------------------------------------

TEST_P(ShapeOpsTest, BroadcastDocExample) {
  XlaBuilder b(TestName());
  Broadcast(ConstantR0<float>(&b, 2.0f), {2, 3});
  ComputeAndCompareR2<float>(&b, {{2, 2, 2}, {2, 2, 2}});
}

TEST_P(ShapeOpsTest, BroadcastAddsMajorDimensions) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Broadcast(AddParam(&b, Vector({1, 2, 3}), &args), {2});
  ComputeAndCompareR2<float>(&b, {{1, 2, 3}, {1, 2, 3}}, args);

  XlaBuilder b2(TestName() + "_rank3");
  std::vector<Literal> args2;
  Broadcast(AddParam(&b2, Literal::CreateR2<int32_t>({{1, 2}, {3, 4}}), &args2), {2});
  ComputeAndCompareR3<int32_t>(&b2, {{{1, 2}, {3, 4}}, {{1, 2}, {3, 4}}}, args2);

  XlaBuilder b3(TestName() + "_empty");
  Broadcast(ConstantR1<float>(&b3, {1, 2}), {0});
  ComputeAndCompare(&b3, Literal(ShapeUtil::MakeShape(F32, {0, 2})));
}

TEST_P(ShapeOpsTest, BroadcastInDim) {
  // Vector mapped to dimension 0: each row repeats one element.
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  BroadcastInDim(AddParam(&b, Vector({1, 2}), &args), {2, 3}, {0});
  ComputeAndCompareR2<float>(&b, {{1, 1, 1}, {2, 2, 2}}, args);

  // Mapped to dimension 1: each row is the vector.
  XlaBuilder b2(TestName() + "_dim1");
  std::vector<Literal> args2;
  BroadcastInDim(AddParam(&b2, Vector({1, 2, 3}), &args2), {2, 3}, {1});
  ComputeAndCompareR2<float>(&b2, {{1, 2, 3}, {1, 2, 3}}, args2);

  // Size-1 dimensions expand (degenerate-dimension broadcasting).
  XlaBuilder b3(TestName() + "_degenerate");
  std::vector<Literal> args3;
  BroadcastInDim(AddParam(&b3, Literal::CreateR2<float>({{7, 8, 9}}), &args3), {2, 3}, {0, 1});
  ComputeAndCompareR2<float>(&b3, {{7, 8, 9}, {7, 8, 9}}, args3);

  // f32[2,1] into f32[2,3,2] along dims {0, 2}: dim 1 of the operand (size 1)
  // expands to 2, and a new dimension 1 is added.
  XlaBuilder b4(TestName() + "_rank3");
  std::vector<Literal> args4;
  BroadcastInDim(AddParam(&b4, Literal::CreateR2<float>({{1}, {2}}), &args4), {2, 3, 2}, {0, 2});
  ComputeAndCompareR3<float>(&b4, {{{1, 1}, {1, 1}, {1, 1}}, {{2, 2}, {2, 2}, {2, 2}}}, args4);

  // Matrix onto dims {0, 2}: out[i][j][k] = m[i][k].
  XlaBuilder b5(TestName() + "_matrix");
  std::vector<Literal> args5;
  BroadcastInDim(AddParam(&b5, Literal::CreateR2<int32_t>({{1, 2}, {3, 4}}), &args5), {2, 2, 2}, {0, 2});
  ComputeAndCompareR3<int32_t>(&b5, {{{1, 2}, {1, 2}}, {{3, 4}, {3, 4}}}, args5);

  // Scalar.
  XlaBuilder b6(TestName() + "_scalar");
  BroadcastInDim(ConstantR0<int32_t>(&b6, 5), {2, 2}, {});
  ComputeAndCompareR2<int32_t>(&b6, {{5, 5}, {5, 5}});
}

TEST_P(ShapeOpsTest, BroadcastInDimWithUnsortedDimensions) {
  // broadcast_dimensions {1, 0} maps operand dimension 0 to output dimension
  // 1: out[i][j] = x[j][i]. XLA rejects unsorted broadcast dimensions; either
  // that or the transposed values is acceptable, but not x unchanged.
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  BroadcastInDim(AddParam(&b, Literal::CreateR2<float>({{1, 2}, {3, 4}}), &args), {2, 2}, {1, 0});
  absl::StatusOr<XlaComputation> c = b.Build();
  if (!c.ok()) {
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << c.status();
    return;
  }
  ASSERT_OK_AND_ASSIGN(Literal result, ExecuteComputation(*c, args));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR2<float>({{1, 3}, {2, 4}}), result));

  XlaBuilder b2(TestName() + "_2x3");
  std::vector<Literal> args2;
  BroadcastInDim(AddParam(&b2, Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}), &args2), {3, 2}, {1, 0});
  absl::StatusOr<XlaComputation> c2 = b2.Build();
  if (!c2.ok()) return;
  ASSERT_OK_AND_ASSIGN(Literal result2, ExecuteComputation(*c2, args2));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR2<float>({{1, 4}, {2, 5}, {3, 6}}), result2));
}

// --- Iota ---------------------------------------------------------------------------

TEST_P(ShapeOpsTest, IotaDocExamples) {
  XlaBuilder b(TestName());
  Iota(&b, ShapeUtil::MakeShape(S32, {4, 8}), 0);
  ComputeAndCompareR2<int32_t>(&b, {{0, 0, 0, 0, 0, 0, 0, 0},
                                    {1, 1, 1, 1, 1, 1, 1, 1},
                                    {2, 2, 2, 2, 2, 2, 2, 2},
                                    {3, 3, 3, 3, 3, 3, 3, 3}});
  XlaBuilder b2(TestName() + "_dim1");
  Iota(&b2, ShapeUtil::MakeShape(S32, {4, 8}), 1);
  ComputeAndCompareR2<int32_t>(&b2, {{0, 1, 2, 3, 4, 5, 6, 7},
                                     {0, 1, 2, 3, 4, 5, 6, 7},
                                     {0, 1, 2, 3, 4, 5, 6, 7},
                                     {0, 1, 2, 3, 4, 5, 6, 7}});
}

TEST_P(ShapeOpsTest, IotaTypes) {
  XlaBuilder b(TestName());
  Iota(&b, F32, 5);
  ComputeAndCompareR1<float>(&b, {0, 1, 2, 3, 4});
  XlaBuilder b2(TestName() + "_u8");
  Iota(&b2, U8, 3);
  ComputeAndCompareR1<uint8_t>(&b2, {0, 1, 2});
  XlaBuilder b3(TestName() + "_f16");
  Iota(&b3, ShapeUtil::MakeShape(F16, {2, 3}), 1);
  ComputeAndCompareR2<half>(&b3, {{half(0.0f), half(1.0f), half(2.0f)}, {half(0.0f), half(1.0f), half(2.0f)}});
  XlaBuilder b4(TestName() + "_rank3");
  Iota(&b4, ShapeUtil::MakeShape(S64, {2, 2, 3}), 2);
  ComputeAndCompareR3<int64_t>(&b4, {{{0, 1, 2}, {0, 1, 2}}, {{0, 1, 2}, {0, 1, 2}}});
  // Large f32 iotas are exact integers converted to float.
  XlaBuilder b5(TestName() + "_large");
  Slice(Iota(&b5, F32, 16777220), {16777215}, {16777220}, {1});
  ComputeAndCompareR1<float>(&b5, {16777215.0f, 16777216.0f, 16777216.0f, 16777218.0f, 16777220.0f});
}

// --- Reshape and Collapse -------------------------------------------------------------

TEST_P(ShapeOpsTest, ReshapeInOrderDocExamples) {
  {
    XlaBuilder b(TestName() + "_24");
    std::vector<Literal> args;
    Reshape(AddParam(&b, DocV(), &args), {0, 1, 2}, {24});
    ComputeAndCompareR1<float>(&b, {10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27,
                                    30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47},
                               args);
  }
  {
    XlaBuilder b(TestName() + "_8x3");
    std::vector<Literal> args;
    Reshape(AddParam(&b, DocV(), &args), {0, 1, 2}, {8, 3});
    ComputeAndCompareR2<float>(&b, {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, {25, 26, 27},
                                    {30, 31, 32}, {35, 36, 37}, {40, 41, 42}, {45, 46, 47}},
                               args);
  }
  {
    // The single-argument form is the in-order collapse.
    XlaBuilder b(TestName() + "_plain");
    std::vector<Literal> args;
    Reshape(AddParam(&b, DocV(), &args), {2, 12});
    ComputeAndCompareR2<float>(&b, {{10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27},
                                    {30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47}},
                               args);
  }
}

TEST_P(ShapeOpsTest, ReshapeOutOfOrderDocExamples) {
  {
    XlaBuilder b(TestName() + "_24");
    std::vector<Literal> args;
    Reshape(AddParam(&b, DocV(), &args), {1, 2, 0}, {24});
    ComputeAndCompareR1<float>(&b, {10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42,
                                    15, 25, 35, 45, 16, 26, 36, 46, 17, 27, 37, 47},
                               args);
  }
  {
    XlaBuilder b(TestName() + "_8x3");
    std::vector<Literal> args;
    Reshape(AddParam(&b, DocV(), &args), {1, 2, 0}, {8, 3});
    ComputeAndCompareR2<float>(&b, {{10, 20, 30}, {40, 11, 21}, {31, 41, 12}, {22, 32, 42},
                                    {15, 25, 35}, {45, 16, 26}, {36, 46, 17}, {27, 37, 47}},
                               args);
  }
  {
    XlaBuilder b(TestName() + "_2x6x2");
    std::vector<Literal> args;
    Reshape(AddParam(&b, DocV(), &args), {1, 2, 0}, {2, 6, 2});
    ComputeAndCompareR3<float>(&b, {{{10, 20}, {30, 40}, {11, 21}, {31, 41}, {12, 22}, {32, 42}},
                                    {{15, 25}, {35, 45}, {16, 26}, {36, 46}, {17, 27}, {37, 47}}},
                               args);
  }
}

TEST_P(ShapeOpsTest, ReshapeScalarSpecialCases) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Reshape(AddParam(&b, Literal::CreateR2<float>({{5}}), &args), {0, 1}, {});
  ComputeAndCompareR0<float>(&b, 5, args);

  XlaBuilder b2(TestName() + "_up");
  std::vector<Literal> args2;
  Reshape(AddParam(&b2, Literal::CreateR0<float>(5), &args2), {}, {1, 1});
  ComputeAndCompareR2<float>(&b2, {{5}}, args2);

  XlaBuilder b3(TestName() + "_empty");
  std::vector<Literal> args3;
  Reshape(AddParam(&b3, Literal(ShapeUtil::MakeShape(S32, {0, 3})), &args3), {3, 0});
  ComputeAndCompare(&b3, args3, Literal(ShapeUtil::MakeShape(S32, {3, 0})));
}

TEST_P(ShapeOpsTest, CollapseDocExamples) {
  {
    XlaBuilder b(TestName() + "_012");
    std::vector<Literal> args;
    Collapse(AddParam(&b, DocV(), &args), {0, 1, 2});
    ComputeAndCompareR1<float>(&b, {10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27,
                                    30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47},
                               args);
  }
  {
    XlaBuilder b(TestName() + "_01");
    std::vector<Literal> args;
    Collapse(AddParam(&b, DocV(), &args), {0, 1});
    // Collapsing dimensions {0,1} of f32[4x2x3] gives f32[8x3] by the
    // definition above the example. (The document's example lists the
    // results of {0,1} and {1,2} the other way round: its "v01" value is
    // what Collapse(v, {1,2}) gives and vice versa.)
    ComputeAndCompareR2<float>(&b, {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, {25, 26, 27},
                                    {30, 31, 32}, {35, 36, 37}, {40, 41, 42}, {45, 46, 47}},
                               args);
  }
  {
    XlaBuilder b(TestName() + "_12");
    std::vector<Literal> args;
    Collapse(AddParam(&b, DocV(), &args), {1, 2});
    ComputeAndCompareR2<float>(&b, {{10, 11, 12, 15, 16, 17},
                                    {20, 21, 22, 25, 26, 27},
                                    {30, 31, 32, 35, 36, 37},
                                    {40, 41, 42, 45, 46, 47}},
                               args);
  }
}

// --- Transpose and Rev -------------------------------------------------------------------

TEST_P(ShapeOpsTest, TransposeMatrix) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Transpose(AddParam(&b, Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}), &args), {1, 0});
  ComputeAndCompareR2<float>(&b, {{1, 4}, {2, 5}, {3, 6}}, args);

  XlaBuilder b2(TestName() + "_identity");
  std::vector<Literal> args2;
  Transpose(AddParam(&b2, Literal::CreateR2<int32_t>({{1, 2}, {3, 4}}), &args2), {0, 1});
  ComputeAndCompareR2<int32_t>(&b2, {{1, 2}, {3, 4}}, args2);
}

TEST_P(ShapeOpsTest, TransposeRank3) {
  // input_dimensions[permutation[i]] = output_dimensions[i], so with
  // permutation {2, 0, 1} out[a][b][c] = in[b][c][a].
  Literal in = Counting({2, 3, 4});
  Literal expected(ShapeUtil::MakeShape(F32, {4, 2, 3}));
  for (int64_t a = 0; a < 4; ++a) {
    for (int64_t bb = 0; bb < 2; ++bb) {
      for (int64_t c = 0; c < 3; ++c) expected.Set<float>({a, bb, c}, in.Get<float>({bb, c, a}));
    }
  }
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Transpose(AddParam(&b, in, &args), {2, 0, 1});
  ComputeAndCompare(&b, args, expected);
  // Transpose is the Reshape-with-dimensions of the document.
  XlaBuilder b2(TestName() + "_as_reshape");
  std::vector<Literal> args2;
  Reshape(AddParam(&b2, in, &args2), {2, 0, 1}, {4, 2, 3});
  ComputeAndCompare(&b2, args2, expected);
}

TEST_P(ShapeOpsTest, Rev) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Rev(AddParam(&b, Vector({1, 2, 3}), &args), {0});
  ComputeAndCompareR1<float>(&b, {3, 2, 1}, args);

  Literal m = Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}});
  XlaBuilder b0(TestName() + "_dim0");
  std::vector<Literal> a0;
  Rev(AddParam(&b0, m, &a0), {0});
  ComputeAndCompareR2<int32_t>(&b0, {{4, 5, 6}, {1, 2, 3}}, a0);
  XlaBuilder b1(TestName() + "_dim1");
  std::vector<Literal> a1;
  Rev(AddParam(&b1, m, &a1), {1});
  ComputeAndCompareR2<int32_t>(&b1, {{3, 2, 1}, {6, 5, 4}}, a1);
  XlaBuilder b01(TestName() + "_both");
  std::vector<Literal> a01;
  Rev(AddParam(&b01, m, &a01), {0, 1});
  ComputeAndCompareR2<int32_t>(&b01, {{6, 5, 4}, {3, 2, 1}}, a01);
  XlaBuilder b3(TestName() + "_rank3");
  std::vector<Literal> a3;
  Rev(AddParam(&b3, Literal::CreateR3<int32_t>({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}), &a3), {0, 2});
  ComputeAndCompareR3<int32_t>(&b3, {{{6, 5}, {8, 7}}, {{2, 1}, {4, 3}}}, a3);
}

// --- Slice ------------------------------------------------------------------------------------

TEST_P(ShapeOpsTest, SliceDocExamples) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Slice(AddParam(&b, DocA(), &args), {2}, {4}, {1});
  ComputeAndCompareR1<float>(&b, {2, 3}, args);

  XlaBuilder b2(TestName() + "_2d");
  std::vector<Literal> args2;
  Slice(AddParam(&b2, DocB(), &args2), {2, 1}, {4, 3}, {1, 1});
  ComputeAndCompareR2<float>(&b2, {{7, 8}, {10, 11}}, args2);
}

TEST_P(ShapeOpsTest, SliceWithStridesAndInDim) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Slice(AddParam(&b, Counting({10}), &args), {1}, {9}, {3});
  ComputeAndCompareR1<float>(&b, {1, 4, 7}, args);

  XlaBuilder b2(TestName() + "_2d");
  std::vector<Literal> args2;
  Slice(AddParam(&b2, DocB(), &args2), {0, 0}, {4, 3}, {2, 2});
  ComputeAndCompareR2<float>(&b2, {{0, 2}, {6, 8}}, args2);

  XlaBuilder b3(TestName() + "_in_dim");
  std::vector<Literal> args3;
  SliceInDim(AddParam(&b3, DocB(), &args3), 0, 3, 2, 1);
  ComputeAndCompareR2<float>(&b3, {{0, 2}, {3, 5}, {6, 8}, {9, 11}}, args3);

  XlaBuilder b4(TestName() + "_empty");
  std::vector<Literal> args4;
  Slice(AddParam(&b4, DocA(), &args4), {3}, {3}, {1});
  ComputeAndCompare(&b4, args4, Literal(ShapeUtil::MakeShape(F32, {0})));
}

// --- DynamicSlice --------------------------------------------------------------------------------

TEST_P(ShapeOpsTest, DynamicSliceDocExamples) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp a = AddParam(&b, DocA(), &args);
  XlaOp s = AddParam(&b, Literal::CreateR0<int32_t>(2), &args);
  DynamicSlice(a, {s}, {2});
  ComputeAndCompareR1<float>(&b, {2, 3}, args);

  XlaBuilder b2(TestName() + "_2d");
  std::vector<Literal> args2;
  XlaOp bb = AddParam(&b2, DocB(), &args2);
  XlaOp s0 = AddParam(&b2, Literal::CreateR0<int32_t>(2), &args2);
  XlaOp s1 = AddParam(&b2, Literal::CreateR0<int32_t>(1), &args2);
  DynamicSlice(bb, {s0, s1}, {2, 2});
  ComputeAndCompareR2<float>(&b2, {{7, 8}, {10, 11}}, args2);
}

TEST_P(ShapeOpsTest, DynamicSliceClampsStartIndices) {
  // start = clamp(start, 0, dim_size - slice_size), in every dimension.
  struct Case {
    int32_t start;
    std::vector<float> expected;
  };
  for (const Case& c : {Case{4, {3, 4}}, Case{-1, {0, 1}}, Case{100, {3, 4}}, Case{3, {3, 4}},
                        Case{std::numeric_limits<int32_t>::min(), {0, 1}}}) {
    SCOPED_TRACE(c.start);
    XlaBuilder b(absl::StrCat(TestName(), "_", c.start));
    std::vector<Literal> args;
    XlaOp a = AddParam(&b, DocA(), &args);
    DynamicSlice(a, {AddParam(&b, Literal::CreateR0<int32_t>(c.start), &args)}, {2});
    ComputeAndCompare(&b, args, Vector(c.expected));
  }
  // 2D: {3, 2} clamps to {2, 1}; {-5, 5} clamps to {0, 1}.
  XlaBuilder b2(TestName() + "_2d");
  std::vector<Literal> args2;
  XlaOp bb = AddParam(&b2, DocB(), &args2);
  XlaOp s0 = AddParam(&b2, Literal::CreateR0<int32_t>(3), &args2);
  XlaOp s1 = AddParam(&b2, Literal::CreateR0<int32_t>(2), &args2);
  XlaOp t0 = AddParam(&b2, Literal::CreateR0<int32_t>(-5), &args2);
  XlaOp t1 = AddParam(&b2, Literal::CreateR0<int32_t>(5), &args2);
  Tuple(&b2, {DynamicSlice(bb, {s0, s1}, {2, 2}), DynamicSlice(bb, {t0, t1}, {2, 2})});
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR2<float>({{7, 8}, {10, 11}}));
  expected.push_back(Literal::CreateR2<float>({{1, 2}, {4, 5}}));
  ComputeAndCompare(&b2, args2, Literal::MakeTuple(std::move(expected)));
}

TEST_P(ShapeOpsTest, DynamicSliceIndexTypes) {
  // s64, u32 (0xFFFFFFFF is a large positive index: clamps to the end) and u8.
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp a = AddParam(&b, DocA(), &args);
  XlaOp i64 = AddParam(&b, Literal::CreateR0<int64_t>(1), &args);
  XlaOp u32 = AddParam(&b, Literal::CreateR0<uint32_t>(0xFFFFFFFFu), &args);
  XlaOp u8 = AddParam(&b, Literal::CreateR0<uint8_t>(2), &args);
  Tuple(&b, {DynamicSlice(a, {i64}, {3}), DynamicSlice(a, {u32}, {3}), DynamicSlice(a, {u8}, {1})});
  std::vector<Literal> expected;
  expected.push_back(Vector({1, 2, 3}));
  expected.push_back(Vector({2, 3, 4}));
  expected.push_back(Vector({2}));
  ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)));

  // A slice as large as the operand ignores the start.
  XlaBuilder b2(TestName() + "_full");
  std::vector<Literal> args2;
  XlaOp a2 = AddParam(&b2, DocA(), &args2);
  DynamicSlice(a2, {ConstantR0<int32_t>(&b2, 3)}, {5});
  ComputeAndCompareR1<float>(&b2, {0, 1, 2, 3, 4}, args2);
}

// --- DynamicUpdateSlice ---------------------------------------------------------------------------

TEST_P(ShapeOpsTest, DynamicUpdateSliceDocExamples) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp a = AddParam(&b, DocA(), &args);
  XlaOp u = AddParam(&b, Vector({5, 6}), &args);
  XlaOp s = AddParam(&b, Literal::CreateR0<int32_t>(2), &args);
  DynamicUpdateSlice(a, u, {s});
  ComputeAndCompareR1<float>(&b, {0, 1, 5, 6, 4}, args);

  XlaBuilder b2(TestName() + "_2d");
  std::vector<Literal> args2;
  XlaOp bb = AddParam(&b2, DocB(), &args2);
  XlaOp u2 = AddParam(&b2, Literal::CreateR2<float>({{12, 13}, {14, 15}, {16, 17}}), &args2);
  XlaOp s0 = AddParam(&b2, Literal::CreateR0<int32_t>(1), &args2);
  XlaOp s1 = AddParam(&b2, Literal::CreateR0<int32_t>(1), &args2);
  DynamicUpdateSlice(bb, u2, {s0, s1});
  ComputeAndCompareR2<float>(&b2, {{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, {9, 16, 17}}, args2);
}

TEST_P(ShapeOpsTest, DynamicUpdateSliceClampsStartIndices) {
  for (auto [start, expected] : std::vector<std::pair<int32_t, std::vector<float>>>{
           {4, {0, 1, 2, 5, 6}}, {-3, {5, 6, 2, 3, 4}}, {1000, {0, 1, 2, 5, 6}}}) {
    SCOPED_TRACE(start);
    XlaBuilder b(absl::StrCat(TestName(), "_", start));
    std::vector<Literal> args;
    XlaOp a = AddParam(&b, DocA(), &args);
    XlaOp u = AddParam(&b, Vector({5, 6}), &args);
    DynamicUpdateSlice(a, u, {AddParam(&b, Literal::CreateR0<int32_t>(start), &args)});
    ComputeAndCompare(&b, args, Vector(expected));
  }
  // 2D: {5, -1} clamps to {1, 0}.
  XlaBuilder b2(TestName() + "_2d");
  std::vector<Literal> args2;
  XlaOp bb = AddParam(&b2, DocB(), &args2);
  XlaOp u2 = AddParam(&b2, Literal::CreateR2<float>({{12, 13}, {14, 15}, {16, 17}}), &args2);
  XlaOp s0 = AddParam(&b2, Literal::CreateR0<int64_t>(5), &args2);
  XlaOp s1 = AddParam(&b2, Literal::CreateR0<int64_t>(-1), &args2);
  DynamicUpdateSlice(bb, u2, {s0, s1});
  ComputeAndCompareR2<float>(&b2, {{0, 1, 2}, {12, 13, 5}, {14, 15, 8}, {16, 17, 11}}, args2);
}

// --- Concatenate ------------------------------------------------------------------------------------

TEST_P(ShapeOpsTest, ConcatenateDocExamples) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Vector({2, 3}), &args);
  XlaOp y = AddParam(&b, Vector({4, 5}), &args);
  XlaOp z = AddParam(&b, Vector({6, 7}), &args);
  ConcatInDim(&b, {x, y, z}, 0);
  ComputeAndCompareR1<float>(&b, {2, 3, 4, 5, 6, 7}, args);

  XlaBuilder b2(TestName() + "_2d");
  std::vector<Literal> args2;
  XlaOp a = AddParam(&b2, Literal::CreateR2<float>({{1, 2}, {3, 4}, {5, 6}}), &args2);
  XlaOp bb = AddParam(&b2, Literal::CreateR2<float>({{7, 8}}), &args2);
  ConcatInDim(&b2, {a, bb}, 0);
  ComputeAndCompareR2<float>(&b2, {{1, 2}, {3, 4}, {5, 6}, {7, 8}}, args2);
}

TEST_P(ShapeOpsTest, ConcatenateOtherForms) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp a = AddParam(&b, Literal::CreateR2<int32_t>({{1, 2}, {3, 4}}), &args);
  XlaOp c = AddParam(&b, Literal::CreateR2<int32_t>({{5}, {6}}), &args);
  XlaOp empty = AddParam(&b, Literal(ShapeUtil::MakeShape(S32, {2, 0})), &args);
  ConcatInDim(&b, {a, empty, c, a}, 1);
  ComputeAndCompareR2<int32_t>(&b, {{1, 2, 5, 1, 2}, {3, 4, 6, 3, 4}}, args);

  XlaBuilder b2(TestName() + "_single");
  ConcatInDim(&b2, {ConstantR1<float>(&b2, {1, 2})}, 0);
  ComputeAndCompareR1<float>(&b2, {1, 2});
}

// --- Pad ----------------------------------------------------------------------------------------------

PaddingConfig Config(std::vector<std::array<int64_t, 3>> dims) {
  PaddingConfig config;
  for (const auto& d : dims) {
    auto* dim = config.add_dimensions();
    dim->set_edge_padding_low(d[0]);
    dim->set_edge_padding_high(d[1]);
    dim->set_interior_padding(d[2]);
  }
  return config;
}

TEST_P(ShapeOpsTest, PadEdgesAndInterior) {
  struct Case {
    const char* name;
    std::array<int64_t, 3> config;  // low, high, interior
    std::vector<float> operand;
    std::vector<float> expected;
  };
  const float p = 9;
  std::vector<Case> cases = {
      {"edges", {2, 1, 0}, {1, 2, 3}, {p, p, 1, 2, 3, p}},
      {"interior", {0, 0, 1}, {1, 2, 3}, {1, p, 2, p, 3}},
      {"interior_and_edges", {1, 1, 2}, {1, 2, 3}, {p, 1, p, p, 2, p, p, 3, p}},
      {"negative_edges", {-1, -2, 0}, {1, 2, 3, 4, 5}, {2, 3}},
      // Interior padding comes first; negative edges then cut the padded array.
      {"negative_edges_of_interior", {-1, -1, 1}, {1, 2, 3}, {p, 2, p}},
      {"negative_low_positive_high", {-2, 2, 0}, {1, 2, 3}, {3, p, p}},
      {"remove_everything", {-1, -1, 0}, {1, 2}, {}},
      {"noop", {0, 0, 0}, {1, 2}, {1, 2}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    XlaBuilder b(absl::StrCat(TestName(), "_", c.name));
    std::vector<Literal> args;
    XlaOp x = AddParam(&b, Vector(c.operand), &args);
    XlaOp pv = AddParam(&b, Literal::CreateR0<float>(p), &args);
    Pad(x, pv, Config({c.config}));
    ComputeAndCompare(&b, args, Vector(c.expected));
  }
}

TEST_P(ShapeOpsTest, Pad2D) {
  // dim 0: low 1, interior 1; dim 1: high 1.
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR2<int32_t>({{1, 2}, {3, 4}}), &args);
  Pad(x, ConstantR0<int32_t>(&b, 0), Config({{1, 0, 1}, {0, 1, 0}}));
  ComputeAndCompareR2<int32_t>(&b, {{0, 0, 0}, {1, 2, 0}, {0, 0, 0}, {3, 4, 0}}, args);

  // Interior in both dimensions plus a negative edge.
  XlaBuilder b2(TestName() + "_interior_negative");
  std::vector<Literal> args2;
  XlaOp x2 = AddParam(&b2, Literal::CreateR2<float>({{1, 2}, {3, 4}}), &args2);
  Pad(x2, ConstantR0<float>(&b2, -1), Config({{0, -1, 1}, {1, 0, 1}}));
  ComputeAndCompareR2<float>(&b2, {{-1, 1, -1, 2}, {-1, -1, -1, -1}}, args2);

  XlaBuilder b3(TestName() + "_in_dim");
  std::vector<Literal> args3;
  PadInDim(AddParam(&b3, Literal::CreateR2<float>({{1, 2}, {3, 4}}), &args3), ConstantR0<float>(&b3, 0), 1, 1, 2);
  ComputeAndCompareR2<float>(&b3, {{0, 1, 2, 0, 0}, {0, 3, 4, 0, 0}}, args3);
}

// --- Tuple and GetTupleElement ------------------------------------------------------------------------------

TEST_P(ShapeOpsTest, TupleDocExample) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp v = AddParam(&b, Counting({10}), &args);
  XlaOp s = AddParam(&b, Literal::CreateR0<int32_t>(5), &args);
  XlaOp t = Tuple(&b, {v, s});
  XlaOp element_1 = GetTupleElement(t, 1);
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(element_1));
  EXPECT_EQ(shape.ToString(), "s32[]");
  Tuple(&b, {element_1, GetTupleElement(t, 0), t});
  std::vector<Literal> inner;
  inner.push_back(Counting({10}));
  inner.push_back(Literal::CreateR0<int32_t>(5));
  std::vector<Literal> outer;
  outer.push_back(Literal::CreateR0<int32_t>(5));
  outer.push_back(Counting({10}));
  outer.push_back(Literal::MakeTuple(std::move(inner)));
  ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(outer)));
}

TEST_P(ShapeOpsTest, NestedTupleParameterAndEmptyTuple) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  std::vector<Literal> inner;
  inner.push_back(Literal::CreateR0<float>(1.5f));
  inner.push_back(Literal::CreateR1<int32_t>({7, 8}));
  std::vector<Literal> outer;
  outer.push_back(Literal::MakeTuple(std::move(inner)));
  outer.push_back(Literal::CreateR0<bool>(true));
  XlaOp t = AddParam(&b, Literal::MakeTuple(std::move(outer)), &args);
  XlaOp seven_eight = GetTupleElement(GetTupleElement(t, 0), 1);
  Tuple(&b, {seven_eight, Tuple(&b, {}), GetTupleElement(t, 1)});
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR1<int32_t>({7, 8}));
  expected.push_back(Literal::MakeTuple({}));
  expected.push_back(Literal::CreateR0<bool>(true));
  ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)));
}

TEST_P(ShapeOpsTest, DeconstructTupleResult) {
  XlaBuilder b(TestName());
  XlaOp v = ConstantR1<float>(&b, {1, 2, 3});
  XlaOp s = ConstantR0<int32_t>(&b, 5);
  Tuple(&b, {v, s, Tuple(&b, {s, v})});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> result, client()->Execute(computation, {}));
  ASSERT_OK_AND_ASSIGN(Shape tuple_shape, client()->GetShape(*result));
  EXPECT_EQ(tuple_shape.ToString(), "(f32[3], s32[], (s32[], f32[3]))");

  ASSERT_OK_AND_ASSIGN(std::vector<std::unique_ptr<GlobalData>> elements, client()->DeconstructTuple(*result));
  ASSERT_EQ(elements.size(), 3u);
  // Elements outlive the tuple's handle.
  ASSERT_OK(client()->Unregister(*result));
  result->Release();
  ASSERT_OK_AND_ASSIGN(Literal e0, client()->TransferToClient(*elements[0]));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({1, 2, 3}), e0));
  ASSERT_OK_AND_ASSIGN(Literal e1, client()->TransferToClient(*elements[1]));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR0<int32_t>(5), e1));
  ASSERT_OK_AND_ASSIGN(Shape s1, client()->GetShape(*elements[1]));
  EXPECT_EQ(s1.ToString(), "s32[]");

  // Nested tuples deconstruct one level at a time.
  ASSERT_OK_AND_ASSIGN(std::vector<std::unique_ptr<GlobalData>> inner, client()->DeconstructTuple(*elements[2]));
  ASSERT_EQ(inner.size(), 2u);
  ASSERT_OK_AND_ASSIGN(Literal i1, client()->TransferToClient(*inner[1]));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({1, 2, 3}), i1));

  // An element handle can be an argument of another execution.
  XlaBuilder b2(TestName() + "_reuse");
  Add(Parameter(&b2, 0, ShapeUtil::MakeShape(F32, {3}), "x"), ConstantR1<float>(&b2, {10, 20, 30}));
  ASSERT_OK_AND_ASSIGN(XlaComputation add, b2.Build());
  ASSERT_OK_AND_ASSIGN(Literal sum, client()->ExecuteAndTransfer(add, {elements[0].get()}));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({11, 22, 33}), sum));

  // Deconstructing a non-tuple is an error.
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> not_tuple = client()->DeconstructTuple(*elements[0]);
  EXPECT_FALSE(not_tuple.ok());
}

TEST_P(ShapeOpsTest, TransferRoundTripsEveryType) {
  std::vector<Literal> values;
  values.push_back(Literal::CreateR1<bool>({true, false}));
  values.push_back(Literal::CreateR1<int8_t>({-128, 127}));
  values.push_back(Literal::CreateR1<uint16_t>({0, 65535}));
  values.push_back(Literal::CreateR1<int64_t>({std::numeric_limits<int64_t>::min(), -1}));
  values.push_back(Literal::CreateR1<uint64_t>({~uint64_t{0}}));
  values.push_back(Literal::CreateR1<half>({half(-0.0f), half(65504.0f)}));
  values.push_back(Literal::CreateR1<bfloat16>({bfloat16(1.5f)}));
  values.push_back(Literal::CreateR2<float>({{-0.0f, std::numeric_limits<float>::quiet_NaN()}}));
  values.push_back(Literal::CreateR1<double>({1e-310}));
  values.push_back(Literal::CreateR1<complex64>({{1, -2}}));
  values.push_back(Literal::CreateR1<complex128>({{3, 4}}));
  values.push_back(Literal(ShapeUtil::MakeShape(F32, {0, 4})));
  for (const Literal& v : values) {
    SCOPED_TRACE(v.ToString());
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> data, client()->TransferToServer(v));
    ASSERT_OK_AND_ASSIGN(Literal back, client()->TransferToClient(*data));
    EXPECT_OK(test::ExactlyEqual(v, back));
    ASSERT_OK_AND_ASSIGN(Shape shape, client()->GetShape(*data));
    EXPECT_TRUE(shape.Compatible(v.shape())) << shape.ToString();
    // Identity computation through the backend.
    XlaBuilder b(TestName());
    Parameter(&b, 0, v.shape(), "x");
    ComputeAndCompare(&b, {v}, v);
  }
}

TEST_P(ShapeOpsTest, TransferToClientWithColumnMajorLayout) {
  Literal m = Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}});
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> data, client()->TransferToServer(m));
  Shape col_major = ShapeUtil::MakeShapeWithLayout(S32, {2, 3}, {0, 1});
  ASSERT_OK_AND_ASSIGN(Literal back, client()->TransferToClient(*data, &col_major));
  EXPECT_EQ(back.shape().layout(), Layout({0, 1}));
  // Column-major storage: 1, 4, 2, 5, 3, 6.
  std::vector<int32_t> raw(back.data<int32_t>().begin(), back.data<int32_t>().end());
  EXPECT_EQ(raw, (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_OK(test::ExactlyEqual(m, back));
  // A column-major argument gives the same values.
  XlaBuilder b(TestName());
  Transpose(Parameter(&b, 0, ShapeUtil::MakeShape(S32, {2, 3}), "m"), {1, 0});
  ComputeAndCompareR2<int32_t>(&b, {{1, 4}, {2, 5}, {3, 6}}, {back});
}

// The 2017 overview's padding example: [2 x 3] {a b c; d e f}, column-major
// ({0, 1}), padded to [3, 5] with zeros, is `a d 0 b e 0 c f 0 0 0 0 0 0 0`
// in linear memory.
TEST_P(ShapeOpsTest, PaddedLayoutOfTheOverview) {
  Literal m = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});  // a..f = 1..6
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> data, client()->TransferToServer(m));
  Shape padded = ShapeUtil::MakeShape(F32, {2, 3});
  padded.set_layout(Layout({0, 1}, {3, 5}, ZERO_PAD));
  ASSERT_OK_AND_ASSIGN(Literal back, client()->TransferToClient(*data, &padded));
  EXPECT_EQ(back.shape().layout(), padded.layout());
  std::vector<float> raw(back.data<float>().begin(), back.data<float>().end());
  EXPECT_EQ(raw, (std::vector<float>{1, 4, 0, 2, 5, 0, 3, 6, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(back.Get<float>({1, 2}), 6);
  EXPECT_OK(test::ExactlyEqual(m, back));

  // The other padding values fill the same positions.
  padded.set_layout(Layout({0, 1}, {3, 5}, LOWEST_PAD));
  ASSERT_OK_AND_ASSIGN(Literal lowest, client()->TransferToClient(*data, &padded));
  const float inf = std::numeric_limits<float>::infinity();
  raw.assign(lowest.data<float>().begin(), lowest.data<float>().end());
  EXPECT_EQ(raw, (std::vector<float>{1, 4, -inf, 2, 5, -inf, 3, 6, -inf, -inf, -inf, -inf, -inf, -inf, -inf}));
  Shape padded_rows = ShapeUtil::MakeShape(F32, {2, 3});
  padded_rows.set_layout(Layout({1, 0}, {2, 4}, HIGHEST_PAD));
  ASSERT_OK_AND_ASSIGN(Literal highest, client()->TransferToClient(*data, &padded_rows));
  raw.assign(highest.data<float>().begin(), highest.data<float>().end());
  EXPECT_EQ(raw, (std::vector<float>{1, 2, 3, inf, 4, 5, 6, inf}));
}

// A padded host literal goes to the service (and into an execution) as its
// values; results come back padded when the output layout asks for it.
TEST_P(ShapeOpsTest, PaddedLiteralsTransferAndExecute) {
  Shape padded = ShapeUtil::MakeShape(S32, {2, 3});
  padded.set_layout(Layout({1, 0}, {3, 4}, ONE_PAD));
  Literal m(padded);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) m.Set<int32_t>({i, j}, static_cast<int32_t>(10 * i + j));
  }
  std::vector<int32_t> raw(m.data<int32_t>().begin(), m.data<int32_t>().end());
  EXPECT_EQ(raw, (std::vector<int32_t>{0, 1, 2, 1, 10, 11, 12, 1, 1, 1, 1, 1}));
  EXPECT_EQ(m.ToString(), "s32[2,3]{1,0:P[3,4]one} {{0, 1, 2}, {10, 11, 12}}");

  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(S32, {2, 3}), "x");
  Add(x, x);
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> arg, client()->TransferToServer(m));
  ASSERT_OK_AND_ASSIGN(Shape stored, client()->GetShape(*arg));
  EXPECT_FALSE(ShapeUtil::HasPadding(stored)) << stored.ToString(true);
  ExecutionOptions options;
  Shape out = ShapeUtil::MakeShape(S32, {2, 3});
  out.set_layout(Layout({0, 1}, {2, 4}, ZERO_PAD));
  *options.mutable_shape_with_output_layout() = out.ToProto();
  ASSERT_OK_AND_ASSIGN(Literal result, client()->ExecuteAndTransfer(c, {arg.get()}, &options));
  EXPECT_EQ(result.shape().layout(), out.layout());
  raw.assign(result.data<int32_t>().begin(), result.data<int32_t>().end());
  EXPECT_EQ(raw, (std::vector<int32_t>{0, 20, 2, 22, 4, 24, 0, 0}));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR2<int32_t>({{0, 2, 4}, {20, 22, 24}}), result));
}

// The overview's TransferInProcess: an in-process service takes an aligned,
// unpadded host array without copying (it reads the caller's memory and
// keeps the owner alive as long as the handle), and copies once otherwise.
TEST_P(ShapeOpsTest, TransferInProcessAliasesAlignedArrays) {
  auto released = std::make_shared<bool>(false);
  std::shared_ptr<float> block(static_cast<float*>(std::aligned_alloc(64, 64 * sizeof(float))),
                               [released](float* p) {
                                 *released = true;
                                 std::free(p);
                               });
  for (int i = 0; i < 64; ++i) block.get()[i] = static_cast<float>(i);
  const Shape shape = ShapeUtil::MakeShape(F32, {2, 3});
  bool aliased = false;
  absl::StatusOr<std::unique_ptr<GlobalData>> data = client()->TransferInProcess(shape, block.get(), block, &aliased);
  if (absl::StartsWith(backend(), "grpc:")) {
    EXPECT_EQ(data.status().code(), absl::StatusCode::kFailedPrecondition) << data.status();
    EXPECT_THAT(std::string(data.status().message()), ::testing::HasSubstr("not in this process"));
    return;
  }
  ASSERT_OK(data.status());
  EXPECT_TRUE(aliased);
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, shape, "x");
  Add(x, x);
  ASSERT_OK_AND_ASSIGN(XlaComputation doubled, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal sum, client()->ExecuteAndTransfer(doubled, {data->get()}));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR2<float>({{0, 2, 4}, {6, 8, 10}}), sum));
  // The service holds the caller's block until the handle goes.
  block.reset();
  EXPECT_FALSE(*released);
  ASSERT_OK_AND_ASSIGN(Literal back, client()->TransferToClient(**data));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR2<float>({{0, 1, 2}, {3, 4, 5}}), back));
  data->reset();
  EXPECT_TRUE(*released);

  // Misaligned (4 bytes into an aligned block): one copy.
  std::shared_ptr<float> second(static_cast<float*>(std::aligned_alloc(64, 64 * sizeof(float))), std::free);
  for (int i = 0; i < 64; ++i) second.get()[i] = static_cast<float>(i);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> copied,
                       client()->TransferInProcess(shape, second.get() + 1, second, &aliased));
  EXPECT_FALSE(aliased);
  second.get()[1] = 100;  // the copy does not see later writes
  ASSERT_OK_AND_ASSIGN(back, client()->TransferToClient(*copied));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}), back));

  // A padded layout (the overview's [2 x 3] column-major padded to [3, 5]):
  // one copy that drops the padding.
  Shape padded = shape;
  padded.set_layout(Layout({0, 1}, {3, 5}, ZERO_PAD));
  const float image[15] = {1, 4, 0, 2, 5, 0, 3, 6, 0, 0, 0, 0, 0, 0, 0};
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> from_padded,
                       client()->TransferInProcess(padded, image, nullptr, &aliased));
  EXPECT_FALSE(aliased);
  ASSERT_OK_AND_ASSIGN(sum, client()->ExecuteAndTransfer(doubled, {from_padded.get()}));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR2<float>({{2, 4, 6}, {8, 10, 12}}), sum));

  // A shared literal; bad input.
  auto literal = std::make_shared<const Literal>(Literal::CreateR2<float>({{7, 8, 9}, {10, 11, 12}}));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> from_literal, client()->TransferInProcess(literal, &aliased));
  ASSERT_OK_AND_ASSIGN(back, client()->TransferToClient(*from_literal));
  EXPECT_OK(test::ExactlyEqual(*literal, back));
  EXPECT_EQ(client()->TransferInProcess(shape, nullptr, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(client()->TransferInProcess(ShapeUtil::MakeShape(F32, {-1}), image, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(ShapeOpsTest, ArgumentAndResultLayouts) {
  XlaBuilder b(TestName());
  XlaOp m = Parameter(&b, 0, ShapeUtil::MakeShape(S32, {2, 3}), "m");
  Tuple(&b, {Transpose(m, {1, 0}), Add(m, m)});
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  Literal row_major = Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}});
  Literal expected_t = Literal::CreateR2<int32_t>({{1, 4}, {2, 5}, {3, 6}});
  Literal expected_sum = Literal::CreateR2<int32_t>({{2, 4, 6}, {8, 10, 12}});

  // Compiled for a column-major argument, run on a row-major one.
  Shape col_major = ShapeUtil::MakeShapeWithLayout(S32, {2, 3}, {0, 1});
  ASSERT_OK_AND_ASSIGN(ExecutionHandle h, client()->Compile(c, {col_major}));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> arg, client()->TransferToServer(row_major));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> r, client()->Execute(h, {arg.get()}));
  ASSERT_OK_AND_ASSIGN(Literal rv, client()->TransferToClient(*r));
  std::vector<Literal> expected;
  expected.push_back(expected_t);
  expected.push_back(expected_sum);
  Literal expected_tuple = Literal::MakeTuple(std::move(expected));
  EXPECT_OK(test::ExactlyEqual(expected_tuple, rv));
  EXPECT_OK(client()->UnregisterExecutable(h));

  // Requested output layouts: both results column-major.
  ExecutionOptions options;
  *options.mutable_shape_with_output_layout() =
      ShapeUtil::MakeTupleShape({ShapeUtil::MakeShapeWithLayout(S32, {3, 2}, {0, 1}), col_major}).ToProto();
  ASSERT_OK_AND_ASSIGN(Literal lv, client()->ExecuteAndTransfer(c, {arg.get()}, &options));
  EXPECT_OK(test::ExactlyEqual(expected_tuple, lv));
  ASSERT_EQ(lv.tuple_elements().size(), 2u);
  EXPECT_EQ(lv.tuple_elements()[1].shape().layout(), Layout({0, 1}));
  std::vector<int32_t> raw(lv.tuple_elements()[1].data<int32_t>().begin(),
                           lv.tuple_elements()[1].data<int32_t>().end());
  EXPECT_EQ(raw, (std::vector<int32_t>{2, 8, 4, 10, 6, 12}));
}

TEST_P(ShapeOpsTest, TransferredTupleDeconstructsAndFeedsExecution) {
  std::vector<Literal> elements;
  elements.push_back(Literal::CreateR1<float>({1, 2}));
  elements.push_back(Literal::CreateR0<int32_t>(3));
  Literal tuple = Literal::MakeTuple(std::move(elements));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> t, client()->TransferToServer(tuple));
  // The tuple handle is an argument of a computation taking a tuple.
  XlaBuilder b(TestName());
  XlaOp p = Parameter(&b, 0, tuple.shape(), "t");
  Mul(GetTupleElement(p, 0), ConvertElementType(GetTupleElement(p, 1), F32));
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  ASSERT_OK_AND_ASSIGN(Literal product, client()->ExecuteAndTransfer(c, {t.get()}));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({3, 6}), product));
  ASSERT_OK_AND_ASSIGN(std::vector<std::unique_ptr<GlobalData>> parts, client()->DeconstructTuple(*t));
  ASSERT_EQ(parts.size(), 2u);
  ASSERT_OK_AND_ASSIGN(Literal second, client()->TransferToClient(*parts[1]));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR0<int32_t>(3), second));
}

// --- Differential: compositions of shape ops on random inputs ------------------------------------

TEST_P(ShapeOpsTest, RandomShapeOpCompositionsMatchReference) {
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4, 6, 5}), "x");
  XlaOp i = Parameter(&b, 1, ShapeUtil::MakeShape(S32, {}), "i");
  XlaOp t = Transpose(x, {2, 0, 1});                              // [5,4,6]
  XlaOp s = Slice(t, {1, 0, 1}, {5, 4, 6}, {2, 1, 2});             // [2,4,3]
  XlaOp r = Rev(Reshape(s, {8, 3}), {0});                          // [8,3]
  XlaOp p = Pad(r, ConstantR0<float>(&b, -1), Config({{1, -2, 1}, {0, 2, 0}}));  // [14,5]
  XlaOp d = DynamicSlice(p, {i, ConstantR0<int32_t>(&b, 1)}, {4, 3});            // [4,3]
  XlaOp row = Reshape(Slice(x, {0, 0, 0}, {1, 1, 3}, {1, 1, 1}), {1, 3});                 // [1,3]
  XlaOp c = ConcatInDim(&b, {d, Reshape(Slice(x, {0, 0, 0}, {2, 1, 3}, {1, 1, 1}), {2, 3}),
                             BroadcastInDim(row, {2, 3}, {0, 1})},
                        0);  // [8,3]
  XlaOp u = DynamicUpdateSlice(d, Broadcast(ConstantR0<float>(&b, 7), {2, 2}), {i, i});
  Tuple(&b, {u, c, Collapse(t, {1, 2}), Iota(&b, ShapeUtil::MakeShape(F32, {3, 2}), 0)});
  RandomSpec spec;
  spec.lo = -3;
  spec.hi = 12;
  spec.trials = 6;
  CompareWithReferenceOnRandomInputs(&b, ErrorSpec{0, 0}, spec);
}

XLA_CLIENT_TEST_P(ShapeOpsTest);

}  // namespace
}  // namespace xla
