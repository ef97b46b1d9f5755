// Conv, ConvWithGeneralPadding, ConvGeneralDilated, Gather, Scatter,
// ReduceWindow and SelectAndScatter
// through the client API on every backend: the builder's padding short-hands
// and default dimension numbers, hand-worked values, and random differential
// cases against the reference evaluator (the CPU backend lowers float
// convolutions to dots and fused sums, so floats compare within a
// tolerance).
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "tests/client_test_base.h"

namespace xla {
namespace {

using test::AddParam;
using test::ClientTest;

class ConvolutionGatherTest : public ClientTest {};

// Sums in another order than the evaluator: see cpu_backend_test.cc.
constexpr ErrorSpec kConvTol{1e-4, 1e-5};

TEST_P(ConvolutionGatherTest, MakePaddingSameAndValid) {
  using Pads = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(MakePadding({300, 300}, {3, 3}, {2, 2}, Padding::kSame), (Pads{{0, 1}, {0, 1}}));
  EXPECT_EQ(MakePadding({10}, {3}, {1}, Padding::kSame), (Pads{{1, 1}}));
  EXPECT_EQ(MakePadding({10}, {4}, {1}, Padding::kSame), (Pads{{1, 2}}));
  EXPECT_EQ(MakePadding({2}, {5}, {1}, Padding::kSame), (Pads{{2, 2}}));
  EXPECT_EQ(MakePadding({10}, {3}, {2}, Padding::kValid), (Pads{{0, 0}}));
}

TEST_P(ConvolutionGatherTest, ConvSameKeepsTheSpatialSize) {
  // [batch, feature, x] = [1,1,5], kernel [1,1,3] of ones: a 3-wide moving
  // sum with one zero on each side.
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR3<float>({{{1, 2, 3, 4, 5}}}), &args);
  XlaOp k = AddParam(&b, Literal::CreateR3<float>({{{1, 1, 1}}}), &args);
  Conv(x, k, {1}, Padding::kSame);
  ComputeAndCompareR3<float>(&b, {{{3, 6, 9, 12, 9}}}, args);
}

TEST_P(ConvolutionGatherTest, ConvValidWithStride) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR3<float>({{{1, 2, 3, 4, 5}}}), &args);
  XlaOp k = AddParam(&b, Literal::CreateR3<float>({{{1, 0, -1}}}), &args);
  Conv(x, k, {2}, Padding::kValid);
  ComputeAndCompareR3<float>(&b, {{{-2, -2}}}, args);
}

TEST_P(ConvolutionGatherTest, ConvWithGeneralPaddingIn2d) {
  // 1x1x3x3 input 1..9, 2x2 kernel of ones, padding one zero row on top.
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Literal x(ShapeUtil::MakeShape(F32, {1, 1, 3, 3}));
  for (int i = 0; i < 9; ++i) x.data<float>()[i] = i + 1;
  Literal k(ShapeUtil::MakeShape(F32, {1, 1, 2, 2}));
  for (float& v : k.data<float>()) v = 1;
  ConvWithGeneralPadding(AddParam(&b, x, &args), AddParam(&b, k, &args), {1, 1}, {{1, 0}, {0, 0}});
  Literal expected(ShapeUtil::MakeShape(F32, {1, 1, 3, 2}));
  const float sums[] = {3, 5, 12, 16, 24, 28};
  for (int i = 0; i < 6; ++i) expected.data<float>()[i] = sums[i];
  ComputeAndCompare(&b, args, expected);
}

ConvolutionDimensionNumbers Nhwc() {
  ConvolutionDimensionNumbers d;
  d.set_input_batch_dimension(0);
  d.set_input_feature_dimension(3);
  d.set_kernel_input_feature_dimension(2);
  d.set_kernel_output_feature_dimension(3);
  d.set_output_batch_dimension(0);
  d.set_output_feature_dimension(3);
  for (int i = 0; i < 2; ++i) {
    d.add_input_spatial_dimensions(1 + i);
    d.add_kernel_spatial_dimensions(i);
    d.add_output_spatial_dimensions(1 + i);
  }
  return d;
}

TEST_P(ConvolutionGatherTest, MobileNetBlockOnRandomInputs) {
  // Strided conv, ReLU6, depthwise 3x3 with multiplier 2, pointwise 1x1:
  // the shapes of a MobileNet block, NHWC.
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 17, 17, 3}), "x");
  XlaOp w0 = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {3, 3, 3, 8}), "w0");
  XlaOp dw = Parameter(&b, 2, ShapeUtil::MakeShape(F32, {3, 3, 1, 16}), "dw");
  XlaOp pw = Parameter(&b, 3, ShapeUtil::MakeShape(F32, {1, 1, 16, 12}), "pw");
  XlaOp c0 = ConvGeneral(x, w0, {2, 2}, MakePadding({17, 17}, {3, 3}, {2, 2}, Padding::kSame), Nhwc());
  XlaOp r0 = Clamp(ConstantR0<float>(&b, 0), c0, ConstantR0<float>(&b, 6));
  XlaOp c1 = ConvGeneral(r0, dw, {1, 1}, {{1, 1}, {1, 1}}, Nhwc(), /*feature_group_count=*/8);
  ConvGeneralDilated(c1, pw, {1, 1}, {{0, 0}, {0, 0}}, {}, {}, Nhwc());
  RandomSpec spec;
  spec.lo = -1;
  spec.hi = 1;
  CompareWithReferenceOnRandomInputs(&b, ErrorSpec{1e-4, 1e-4}, spec);
}

TEST_P(ConvolutionGatherTest, DilatedConvolutionsOnRandomInputs) {
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F64, {1, 9, 7, 4}), "x");
  XlaOp w = Parameter(&b, 1, ShapeUtil::MakeShape(F64, {2, 3, 4, 5}), "w");
  XlaOp a = ConvGeneralDilated(x, w, {1, 2}, {{1, 1}, {0, 2}}, {2, 1}, {1, 2}, Nhwc());
  XlaOp i = Parameter(&b, 2, ShapeUtil::MakeShape(S32, {2, 3, 1, 4}), "i");
  XlaOp j = Parameter(&b, 3, ShapeUtil::MakeShape(S32, {2, 2, 4, 3}), "j");
  Tuple(&b, {a, ConvGeneralDilated(i, j, {1, 1}, {{1, 0}, {0, 1}}, {}, {}, Nhwc())});
  CompareWithReferenceOnRandomInputs(&b, kConvTol);
}

TEST_P(ConvolutionGatherTest, GatherEmbeddingLookup) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp table = AddParam(&b, Literal::CreateR2<float>({{0, 1}, {10, 11}, {20, 21}, {30, 31}}), &args);
  XlaOp ids = AddParam(&b, Literal::CreateR1<int32_t>({3, 0, 3, 9, -2}), &args);
  GatherDimensionNumbers d;
  d.add_offset_dims(1);
  d.add_collapsed_slice_dims(0);
  d.add_start_index_map(0);
  d.set_index_vector_dim(1);
  Gather(table, ids, d, {1, 2});
  // Out-of-range ids clamp to the last and first rows.
  ComputeAndCompareR2<float>(&b, {{30, 31}, {0, 1}, {30, 31}, {30, 31}, {0, 1}}, args);
}

TEST_P(ConvolutionGatherTest, GatherWindowsOnRandomInputs) {
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {6, 8, 5}), "x");
  XlaOp starts = Parameter(&b, 1, ShapeUtil::MakeShape(S64, {4, 2}), "starts");
  GatherDimensionNumbers d;
  d.add_offset_dims(1);
  d.add_offset_dims(2);
  d.add_collapsed_slice_dims(0);
  d.add_start_index_map(0);
  d.add_start_index_map(1);
  d.set_index_vector_dim(1);
  Gather(x, starts, d, {1, 3, 5});
  CompareWithReferenceOnRandomInputs(&b, ErrorSpec{0, 0});
}

TEST_P(ConvolutionGatherTest, ReduceWindowDocExamples) {
  XlaComputation min;
  {
    XlaBuilder mb("min");
    Min(Parameter(&mb, 0, ShapeUtil::MakeShape(F32, {}), "a"), Parameter(&mb, 1, ShapeUtil::MakeShape(F32, {}), "b"));
    min = mb.Build().value();
  }
  for (Padding padding : {Padding::kValid, Padding::kSame}) {
    XlaBuilder b(TestName());
    std::vector<Literal> args;
    XlaOp x = AddParam(&b, Literal::CreateR1<float>({10000, 1000, 100, 10, 1}), &args);
    ReduceWindow(x, ConstantR0<float>(&b, std::numeric_limits<float>::max()), min, {3}, {2}, padding);
    if (padding == Padding::kValid) {
      ComputeAndCompareR1<float>(&b, {100, 1}, args);
    } else {
      ComputeAndCompareR1<float>(&b, {1000, 10, 1}, args);
    }
  }
}

TEST_P(ConvolutionGatherTest, VariadicReduceWindowArgmaxPooling) {
  // Argmax pooling: (value, index) pairs reduced together.
  XlaComputation argmax;
  {
    XlaBuilder ab("argmax");
    const Shape f = ShapeUtil::MakeShape(F32, {}), i = ShapeUtil::MakeShape(S32, {});
    XlaOp av = Parameter(&ab, 0, f, "av"), ai = Parameter(&ab, 1, i, "ai");
    XlaOp bv = Parameter(&ab, 2, f, "bv"), bi = Parameter(&ab, 3, i, "bi");
    XlaOp take_b = Gt(bv, av);
    Tuple(&ab, {Select(take_b, bv, av), Select(take_b, bi, ai)});
    argmax = ab.Build().value();
  }
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp v = AddParam(&b, Literal::CreateR1<float>({3, 9, 2, 7, 8, 1}), &args);
  XlaOp idx = Iota(&b, S32, 6);
  ReduceWindowWithGeneralPadding({v, idx}, {ConstantR0<float>(&b, -1), ConstantR0<int32_t>(&b, -1)}, argmax, {2},
                                 {2}, {}, {}, {});
  auto computation = b.Build();
  ASSERT_TRUE(computation.ok()) << computation.status();
  auto reference = test::EvaluateWithReference(*computation, args);
  ASSERT_TRUE(reference.ok()) << reference.status();
  EXPECT_EQ(*reference, Literal::MakeTuple({Literal::CreateR1<float>({9, 7, 8}), Literal::CreateR1<int32_t>({1, 3, 4})}));
  auto result = ExecuteComputation(*computation, args);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, *reference);
}

TEST_P(ConvolutionGatherTest, ScatterAddIsGathersGradient) {
  // Embedding gradient: rows of `grads` added into a zero table at `ids`
  // (repeated ids accumulate; the out-of-range id 9 is skipped).
  XlaComputation add;
  {
    XlaBuilder ab("add");
    Add(Parameter(&ab, 0, ShapeUtil::MakeShape(F32, {}), "a"), Parameter(&ab, 1, ShapeUtil::MakeShape(F32, {}), "b"));
    add = ab.Build().value();
  }
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp ids = AddParam(&b, Literal::CreateR1<int32_t>({3, 0, 3, 9}), &args);
  XlaOp grads = AddParam(&b, Literal::CreateR2<float>({{1, 2}, {3, 4}, {5, 6}, {7, 8}}), &args);
  ScatterDimensionNumbers d;
  d.add_update_window_dims(1);
  d.add_inserted_window_dims(0);
  d.add_scatter_dims_to_operand_dims(0);
  d.set_index_vector_dim(1);
  Scatter(Broadcast(ConstantR0<float>(&b, 0), {4, 2}), ids, grads, add, d);
  ComputeAndCompareR2<float>(&b, {{3, 4}, {0, 0}, {0, 0}, {6, 8}}, args);
}

TEST_P(ConvolutionGatherTest, SelectAndScatterMaxPoolGradient) {
  XlaComputation ge, add;
  {
    XlaBuilder gb("ge");
    Ge(Parameter(&gb, 0, ShapeUtil::MakeShape(F32, {}), "a"), Parameter(&gb, 1, ShapeUtil::MakeShape(F32, {}), "b"));
    ge = gb.Build().value();
    XlaBuilder ab("add");
    Add(Parameter(&ab, 0, ShapeUtil::MakeShape(F32, {}), "a"), Parameter(&ab, 1, ShapeUtil::MakeShape(F32, {}), "b"));
    add = ab.Build().value();
  }
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR2<float>({{7, 2, 5, 3}, {3, 8, 9, 3}, {1, 5, 7, 5}, {0, 6, 2, 10}}), &args);
  XlaOp g = AddParam(&b, Literal::CreateR2<float>({{2, 6}, {3, 1}}), &args);
  SelectAndScatter(x, ge, {2, 2}, {2, 2}, Padding::kValid, g, ConstantR0<float>(&b, 0), add);
  ComputeAndCompareR2<float>(&b, {{0, 0, 0, 0}, {0, 2, 6, 0}, {0, 0, 0, 0}, {0, 3, 0, 1}}, args);
}

TEST_P(ConvolutionGatherTest, BuildErrors) {
  {
    XlaBuilder b(TestName());
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {1, 2, 5}), "x");
    XlaOp k = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {1, 3, 3}), "k");
    Conv(x, k, {1}, Padding::kValid);
    ExpectBuildError(&b, "input features 2 divided by feature_group_count 1 must equal the kernel's input features 3");
  }
  {
    XlaBuilder b(TestName());
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {1, 2, 5}), "x");
    XlaOp k = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {1, 2, 3}), "k");
    ConvGeneralDilated(x, k, {1, 1}, {{0, 0}}, {}, {}, XlaBuilder::CreateDefaultConvDimensionNumbers(1));
    ExpectBuildError(&b, "window_strides has 2 entries but there are 1 spatial dimensions");
  }
  {
    XlaBuilder b(TestName());
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4, 2}), "x");
    XlaOp i = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {3}), "i");
    GatherDimensionNumbers d;
    d.add_offset_dims(1);
    d.add_collapsed_slice_dims(0);
    d.add_start_index_map(0);
    d.set_index_vector_dim(1);
    Gather(x, i, d, {1, 2});
    ExpectBuildError(&b, "start_indices must have an integral element type");
  }
}

XLA_CLIENT_TEST_P(ConvolutionGatherTest);

}  // namespace
}  // namespace xla
