// Gather, convolution and reduce-window in the reference evaluator: the
// operation-semantics document's examples and each attribute (clamping,
// implicit index vectors, batching dimensions, padding, strides, dilations,
// reversal, groups) on values worked out by hand.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"

namespace xla {
namespace {

absl::StatusOr<Literal> EvalText(const std::string& text, std::vector<const Literal*> args) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return HloEvaluator().Evaluate(**module, args);
}

// A module `ROOT r = <result> <op>(p0, p1), <attrs>` over two parameters.
std::string TwoParamModule(const std::string& p0, const std::string& p1, const std::string& result,
                           const std::string& op, const std::string& attrs) {
  return "HloModule m\nENTRY e {\n  a = " + p0 + " parameter(0)\n  b = " + p1 + " parameter(1)\n  ROOT r = " +
         result + " " + op + "(a, b), " + attrs + "\n}\n";
}

#define EXPECT_LITERAL(expr, expected)                      \
  do {                                                      \
    absl::StatusOr<Literal> _r = (expr);                    \
    ASSERT_TRUE(_r.ok()) << _r.status();                    \
    EXPECT_EQ(*_r, (expected)) << "got " << _r->ToString(); \
  } while (0)

const Literal& Matrix3x3() {
  static const Literal* m = new Literal(Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}));
  return *m;
}

TEST(GatherTest, RowsByIndex) {
  Literal idx = Literal::CreateR1<int32_t>({0, 2});
  EXPECT_LITERAL(EvalText(TwoParamModule("s32[3,3]", "s32[2]", "s32[2,3]", "gather",
                                         "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
                                         "index_vector_dim=1, slice_sizes={1,3}"),
                          {&Matrix3x3(), &idx}),
                 Literal::CreateR2<int32_t>({{1, 2, 3}, {7, 8, 9}}));
}

TEST(GatherTest, ColumnsByIndexWithOffsetDimensionFirst) {
  Literal idx = Literal::CreateR1<int32_t>({0, 2});
  EXPECT_LITERAL(EvalText(TwoParamModule("s32[3,3]", "s32[2]", "s32[3,2]", "gather",
                                         "offset_dims={0}, collapsed_slice_dims={1}, start_index_map={1}, "
                                         "index_vector_dim=1, slice_sizes={3,1}"),
                          {&Matrix3x3(), &idx}),
                 Literal::CreateR2<int32_t>({{1, 3}, {4, 6}, {7, 9}}));
}

TEST(GatherTest, StartsAreClampedSoTheSliceFits) {
  // Starts (2,2) and (-1,5) become (1,1) and (0,1) for 2x2 slices.
  Literal idx = Literal::CreateR2<int64_t>({{2, 2}, {-1, 5}});
  EXPECT_LITERAL(EvalText(TwoParamModule("s32[3,3]", "s64[2,2]", "s32[2,2,2]", "gather",
                                         "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, "
                                         "index_vector_dim=1, slice_sizes={2,2}"),
                          {&Matrix3x3(), &idx}),
                 Literal::CreateR3<int32_t>({{{5, 6}, {8, 9}}, {{2, 3}, {5, 6}}}));
}

TEST(GatherTest, IndexVectorDimFirstAndStartIndexMapReversed) {
  // Index vectors run down dimension 0: (2, 0) and (1, 1), read through
  // start_index_map={1,0} as (col 2, row 0) and (col 1, row 1).
  Literal idx = Literal::CreateR2<uint32_t>({{2, 1}, {0, 1}});
  EXPECT_LITERAL(EvalText(TwoParamModule("s32[3,3]", "u32[2,2]", "s32[2]", "gather",
                                         "offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={1,0}, "
                                         "index_vector_dim=0, slice_sizes={1,1}"),
                          {&Matrix3x3(), &idx}),
                 Literal::CreateR1<int32_t>({3, 5}));
}

TEST(GatherTest, OperandBatchingDimensionsPairWithIndexBatches) {
  Literal operand = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  Literal idx = Literal::CreateR2<int32_t>({{2}, {0}});
  EXPECT_LITERAL(EvalText(TwoParamModule("f32[2,3]", "s32[2,1]", "f32[2]", "gather",
                                         "offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, "
                                         "operand_batching_dims={0}, start_indices_batching_dims={0}, "
                                         "index_vector_dim=1, slice_sizes={1,1}"),
                          {&operand, &idx}),
                 Literal::CreateR1<float>({3, 4}));
}

TEST(GatherTest, MismatchedSliceSizesAreAnError) {
  Literal idx = Literal::CreateR1<int32_t>({0});
  auto r = EvalText(TwoParamModule("s32[3,3]", "s32[1]", "s32[1,3]", "gather",
                                   "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
                                   "index_vector_dim=1, slice_sizes={2,3}"),
                    {&Matrix3x3(), &idx});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("slice size must be 1"), std::string::npos) << r.status();
}

// 1-d convolutions over [batch, feature, x] with a [out, in, x] kernel.
std::string Conv1d(const std::string& lhs, const std::string& rhs, const std::string& result,
                   const std::string& window, const std::string& extra = "") {
  return TwoParamModule(lhs, rhs, result, "convolution",
                        "window={" + window + "}, dim_labels=bf0_oi0->bf0" + extra);
}

TEST(ConvolutionTest, ValidStrideAndPadding) {
  Literal x = Literal::CreateR3<float>({{{1, 2, 3, 4, 5}}});
  Literal k = Literal::CreateR3<float>({{{1, 0, -1}}});
  EXPECT_LITERAL(EvalText(Conv1d("f32[1,1,5]", "f32[1,1,3]", "f32[1,1,3]", "size=3"), {&x, &k}),
                 Literal::CreateR3<float>({{{-2, -2, -2}}}));
  // Padded [0,1,2,3,4,5,0], windows at 0, 2, 4.
  EXPECT_LITERAL(EvalText(Conv1d("f32[1,1,5]", "f32[1,1,3]", "f32[1,1,3]", "size=3 stride=2 pad=1_1"), {&x, &k}),
                 Literal::CreateR3<float>({{{-2, -2, 4}}}));
  // Negative padding crops the base.
  Literal one = Literal::CreateR3<float>({{{1}}});
  EXPECT_LITERAL(EvalText(Conv1d("f32[1,1,5]", "f32[1,1,1]", "f32[1,1,4]", "size=1 pad=-1_0"), {&x, &one}),
                 Literal::CreateR3<float>({{{2, 3, 4, 5}}}));
}

TEST(ConvolutionTest, Dilations) {
  // lhs_dilate=2: [1,0,2,0,3] under a [1,1] window.
  Literal x = Literal::CreateR3<float>({{{1, 2, 3}}});
  Literal ones = Literal::CreateR3<float>({{{1, 1}}});
  EXPECT_LITERAL(EvalText(Conv1d("f32[1,1,3]", "f32[1,1,2]", "f32[1,1,4]", "size=2 lhs_dilate=2"), {&x, &ones}),
                 Literal::CreateR3<float>({{{1, 2, 2, 3}}}));
  // rhs_dilate=2: [1,-1] acts as [1,0,-1].
  Literal y = Literal::CreateR3<float>({{{1, 2, 3, 4, 5}}});
  Literal diff = Literal::CreateR3<float>({{{1, -1}}});
  EXPECT_LITERAL(EvalText(Conv1d("f32[1,1,5]", "f32[1,1,2]", "f32[1,1,3]", "size=2 rhs_dilate=2"), {&y, &diff}),
                 Literal::CreateR3<float>({{{-2, -2, -2}}}));
}

TEST(ConvolutionTest, WindowReversalFlipsTheKernel) {
  Literal x = Literal::CreateR3<float>({{{1, 2, 4}}});
  Literal k = Literal::CreateR3<float>({{{1, 10}}});
  EXPECT_LITERAL(EvalText(Conv1d("f32[1,1,3]", "f32[1,1,2]", "f32[1,1,2]", "size=2 rhs_reversal=1"), {&x, &k}),
                 Literal::CreateR3<float>({{{12, 24}}}));
}

TEST(ConvolutionTest, FeatureGroupsConvolveSeparately) {
  // Two groups of one input feature: output feature g reads input feature g.
  Literal x = Literal::CreateR3<float>({{{1, 2, 3}, {10, 20, 30}}});
  Literal k = Literal::CreateR3<float>({{{2}}, {{3}}});
  EXPECT_LITERAL(EvalText(Conv1d("f32[1,2,3]", "f32[2,1,1]", "f32[1,2,3]", "size=1", ", feature_group_count=2"),
                          {&x, &k}),
                 Literal::CreateR3<float>({{{2, 4, 6}, {30, 60, 90}}}));
}

TEST(ConvolutionTest, BatchGroupsPairBatchesWithOutputFeatures) {
  // Batch group 0 (batch 0) makes output feature 0, group 1 feature 1.
  Literal x = Literal::CreateR3<int32_t>({{{1, 2, 3}}, {{4, 5, 6}}});
  Literal k = Literal::CreateR3<int32_t>({{{1}}, {{10}}});
  EXPECT_LITERAL(EvalText(Conv1d("s32[2,1,3]", "s32[2,1,1]", "s32[1,2,3]", "size=1", ", batch_group_count=2"),
                          {&x, &k}),
                 Literal::CreateR3<int32_t>({{{1, 2, 3}, {40, 50, 60}}}));
}

TEST(ConvolutionTest, TwoDimensionalNhwcSumsFeaturesAndWindow) {
  // 1x3x3x2 input (feature 1 = 10 x feature 0), 2x2x2x1 kernel of ones on
  // feature 0 and twos on feature 1: each output is 21 x (window sum of f0).
  Literal x(ShapeUtil::MakeShape(F32, {1, 3, 3, 2}));
  Literal k(ShapeUtil::MakeShape(F32, {2, 2, 2, 1}));
  for (int i = 0; i < 9; ++i) {
    x.data<float>()[2 * i] = i + 1;
    x.data<float>()[2 * i + 1] = 10 * (i + 1);
  }
  for (int i = 0; i < 4; ++i) {
    k.data<float>()[2 * i] = 1;
    k.data<float>()[2 * i + 1] = 2;
  }
  auto r = EvalText(TwoParamModule("f32[1,3,3,2]", "f32[2,2,2,1]", "f32[1,2,2,1]", "convolution",
                                   "window={size=2x2}, dim_labels=b01f_01io->b01f"),
                    {&x, &k});
  ASSERT_TRUE(r.ok()) << r.status();
  // Window sums of [[1,2,3],[4,5,6],[7,8,9]]: 12 16 24 28.
  EXPECT_EQ(r->data<float>()[0], 21 * 12);
  EXPECT_EQ(r->data<float>()[1], 21 * 16);
  EXPECT_EQ(r->data<float>()[2], 21 * 24);
  EXPECT_EQ(r->data<float>()[3], 21 * 28);
}

TEST(ConvolutionTest, PaddingIsZerosThatTakePartInTheProducts) {
  // 0 x inf is NaN: padding is inserted zeros, not skipped positions.
  const float inf = std::numeric_limits<float>::infinity();
  Literal x = Literal::CreateR3<float>({{{1, 2}}});
  Literal k = Literal::CreateR3<float>({{{inf}}});
  auto r = EvalText(Conv1d("f32[1,1,2]", "f32[1,1,1]", "f32[1,1,3]", "size=1 pad=1_0"), {&x, &k});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(std::isnan(r->data<float>()[0]));
  EXPECT_EQ(r->data<float>()[1], inf);
  EXPECT_EQ(r->data<float>()[2], inf);
}

TEST(ConvolutionTest, MixedPrecisionAccumulatesInTheResultType) {
  // s8 x s8 -> s32: 100*100 + 100*100 + 27*1 would wrap in s8.
  Literal x = Literal::CreateR3<int8_t>({{{100, 100, 27}}});
  Literal k = Literal::CreateR3<int8_t>({{{100, 100, 1}}});
  EXPECT_LITERAL(EvalText(Conv1d("s8[1,1,3]", "s8[1,1,3]", "s32[1,1,1]", "size=3"), {&x, &k}),
                 Literal::CreateR3<int32_t>({{{20027}}}));
  // bf16 x bf16 -> f32: 256 + 1 + 1 = 258 in f32 (bf16 sums would stay 256).
  Literal y = Literal::CreateR3<bfloat16>({{{bfloat16(256.0f), bfloat16(1.0f), bfloat16(1.0f)}}});
  Literal ones = Literal::CreateR3<bfloat16>({{{bfloat16(1.0f), bfloat16(1.0f), bfloat16(1.0f)}}});
  EXPECT_LITERAL(EvalText(Conv1d("bf16[1,1,3]", "bf16[1,1,3]", "f32[1,1,1]", "size=3"), {&y, &ones}),
                 Literal::CreateR3<float>({{{258.0f}}}));
  // bf16 -> f16 also sums in f32, rounding once: 256 + 1 + 1 = 258 (exact in f16).
  EXPECT_LITERAL(EvalText(Conv1d("bf16[1,1,3]", "bf16[1,1,3]", "f16[1,1,1]", "size=3"), {&y, &ones}),
                 Literal::CreateR3<half>({{{half(258.0f)}}}));
  // A result of another kind is an error, not a conversion.
  auto r = EvalText(Conv1d("s8[1,1,3]", "s8[1,1,3]", "f32[1,1,1]", "size=3"), {&x, &k});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("s8[1,1,1]"), std::string::npos) << r.status();
}

TEST(ConvolutionTest, WrongWindowSizeIsAnError) {
  Literal x = Literal::CreateR3<float>({{{1, 2, 3}}});
  Literal k = Literal::CreateR3<float>({{{1, 1}}});
  auto r = EvalText(Conv1d("f32[1,1,3]", "f32[1,1,2]", "f32[1,1,1]", "size=3"), {&x, &k});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("does not match the kernel's size"), std::string::npos)
      << r.status();
}

// Scatter with combiner `op` (current value first) over a [3,3] operand.
std::string ScatterModule(const std::string& op, const std::string& indices, const std::string& updates,
                          const std::string& dims) {
  return "HloModule m\nc {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT r = s32[] " + op +
         "\n}\nENTRY e {\n  x = s32[3,3] parameter(0)\n  i = " + indices + " parameter(1)\n  u = " + updates +
         " parameter(2)\n  ROOT s = s32[3,3] scatter(x, i, u), " + dims + ", to_apply=c\n}\n";
}

const char kRowScatter[] =
    "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";

TEST(ScatterTest, RowsAddedAtTheirIndices) {
  Literal idx = Literal::CreateR1<int32_t>({0, 2});
  Literal up = Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}});
  EXPECT_LITERAL(EvalText(ScatterModule("add(a, b)", "s32[2]", "s32[2,3]", kRowScatter), {&Matrix3x3(), &idx, &up}),
                 Literal::CreateR2<int32_t>({{2, 4, 6}, {4, 5, 6}, {11, 13, 15}}));
}

TEST(ScatterTest, CollisionsCombineInUpdateOrderAndOutOfRangeIsSkipped) {
  // Row 1 twice with current - update: (4-1)-10 ...; rows 5 and -1 skipped.
  Literal idx = Literal::CreateR1<int64_t>({1, 5, 1, -1});
  Literal up = Literal::CreateR2<int32_t>({{1, 1, 1}, {7, 7, 7}, {10, 20, 30}, {9, 9, 9}});
  EXPECT_LITERAL(
      EvalText(ScatterModule("subtract(a, b)", "s64[4]", "s32[4,3]", kRowScatter), {&Matrix3x3(), &idx, &up}),
      Literal::CreateR2<int32_t>({{1, 2, 3}, {-7, -16, -25}, {7, 8, 9}}));
}

TEST(ScatterTest, WindowsPartlyOutOfBoundsAreSkippedWhole) {
  // 2x2 windows at 2-d starts, as XLA: (1,2) reaches column 3 and (-1,1)
  // row -1, so neither applies even its in-bounds elements (the operation-
  // semantics text would add 10 to (1,2) and (2,2), 100 to (0,1) and (0,2)).
  Literal idx = Literal::CreateR2<int32_t>({{0, 0}, {1, 2}, {-1, 1}, {1, 1}});
  Literal up(ShapeUtil::MakeShape(S32, {4, 2, 2}));
  const int32_t values[] = {1, 10, 100, 1000};
  for (int w = 0; w < 4; ++w) {
    for (int e = 0; e < 4; ++e) up.data<int32_t>()[4 * w + e] = values[w];
  }
  EXPECT_LITERAL(EvalText(ScatterModule("add(a, b)", "s32[4,2]", "s32[4,2,2]",
                                        "update_window_dims={1,2}, inserted_window_dims={}, "
                                        "scatter_dims_to_operand_dims={0,1}, index_vector_dim=1"),
                          {&Matrix3x3(), &idx, &up}),
                 Literal::CreateR2<int32_t>({{2, 3, 3}, {5, 1006, 1006}, {7, 1008, 1009}}));
  // Row windows of two columns: the column start is always 0, so only the
  // row decides; a window as wide as the operand fits at start 0 only.
  Literal rows = Literal::CreateR1<int32_t>({2, 3});
  Literal two = Literal::CreateR2<int32_t>({{5, 6}, {7, 8}});
  EXPECT_LITERAL(EvalText(ScatterModule("copy(b)", "s32[2]", "s32[2,2]", kRowScatter), {&Matrix3x3(), &rows, &two}),
                 Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}, {5, 6, 9}}));
}

TEST(ScatterTest, ElementsByTwoDimensionalIndices) {
  // Each update is one element at (row, col); the window is empty.
  Literal idx = Literal::CreateR2<int32_t>({{0, 1}, {2, 2}, {3, 0}});
  Literal up = Literal::CreateR1<int32_t>({100, 200, 300});
  EXPECT_LITERAL(EvalText(ScatterModule("copy(b)", "s32[3,2]", "s32[3]",
                                        "update_window_dims={}, inserted_window_dims={0,1}, "
                                        "scatter_dims_to_operand_dims={0,1}, index_vector_dim=1"),
                          {&Matrix3x3(), &idx, &up}),
                 Literal::CreateR2<int32_t>({{1, 100, 3}, {4, 5, 6}, {7, 8, 200}}));
}

// Reduce-window with a max or min reducer: the document's examples.
std::string ReduceWindowModule(const std::string& type, const std::string& operand, const std::string& result,
                               const std::string& op, const std::string& init, const std::string& window) {
  return "HloModule m\nr {\n  a = " + type + "[] parameter(0)\n  b = " + type + "[] parameter(1)\n  ROOT c = " + type +
         "[] " + op + "(a, b)\n}\nENTRY e {\n  x = " + type + operand + " parameter(0)\n  i = " + type +
         "[] constant(" + init + ")\n  ROOT w = " + type + result + " reduce-window(x, i), window={" + window +
         "}, to_apply=r\n}\n";
}

TEST(ReduceWindowTest, MaxOverTwoByThreeWindows) {
  Literal x = Literal::CreateR2<float>({{1, 5, 2, 9, 3, 4}, {6, 0, 7, 1, 8, 2}, {3, 3, 3, 4, 4, 4}, {5, 1, 0, 2, 2, 7}});
  EXPECT_LITERAL(EvalText(ReduceWindowModule("f32", "[4,6]", "[2,2]", "maximum", "-inf", "size=2x3 stride=2x3"), {&x}),
                 Literal::CreateR2<float>({{7, 9}, {5, 7}}));
}

TEST(ReduceWindowTest, ValidAndSamePaddingOfTheDocument) {
  // Minimum over [10000, 1000, 100, 10, 1], window 3, stride 2.
  Literal x = Literal::CreateR1<float>({10000, 1000, 100, 10, 1});
  EXPECT_LITERAL(EvalText(ReduceWindowModule("f32", "[5]", "[2]", "minimum", "inf", "size=3 stride=2"), {&x}),
                 Literal::CreateR1<float>({100, 1}));
  EXPECT_LITERAL(EvalText(ReduceWindowModule("f32", "[5]", "[3]", "minimum", "inf", "size=3 stride=2 pad=1_1"), {&x}),
                 Literal::CreateR1<float>({1000, 10, 1}));
}

TEST(ReduceWindowTest, PaddingAndHolesHoldTheInitValue) {
  // A sum with init 10 (not an identity): each padding position and each
  // base dilation hole adds 10, as if the input had been padded with it.
  Literal x = Literal::CreateR1<int32_t>({1, 2, 3});
  // Padded [10,1,2,3,10], window 2: 11 3 5 13 (plus the init 10 each).
  EXPECT_LITERAL(EvalText(ReduceWindowModule("s32", "[3]", "[4]", "add", "10", "size=2 pad=1_1"), {&x}),
                 Literal::CreateR1<int32_t>({21, 13, 15, 23}));
  // Dilated [1,h,2,h,3], window 3 stride 2: 1+h+2, 2+h+3 (plus 10).
  EXPECT_LITERAL(EvalText(ReduceWindowModule("s32", "[3]", "[2]", "add", "10", "size=3 stride=2 lhs_dilate=2"), {&x}),
                 Literal::CreateR1<int32_t>({23, 25}));
  // Window dilation 2 over [1,2,3]: 1+3 only.
  EXPECT_LITERAL(EvalText(ReduceWindowModule("s32", "[3]", "[1]", "add", "0", "size=2 rhs_dilate=2"), {&x}),
                 Literal::CreateR1<int32_t>({4}));
}

// Select-and-scatter with a >= select (the maximum, first on ties) and an
// add scatter over a rank-1 operand.
std::string SelectAndScatterModule(const std::string& operand, const std::string& source, const std::string& window) {
  return "HloModule m\nge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), "
         "direction=GE\n}\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n"
         "ENTRY e {\n  x = f32" + operand + " parameter(0)\n  s = f32" + source +
         " parameter(1)\n  z = f32[] constant(0)\n  ROOT r = f32" + operand +
         " select-and-scatter(x, s, z), window={" + window + "}, select=ge, scatter=add\n}\n";
}

TEST(SelectAndScatterTest, EachWindowsMaximumReceivesItsSource) {
  Literal x = Literal::CreateR1<float>({1, 9, 3, 7, 2, 8});
  Literal src = Literal::CreateR1<float>({10, 20, 30});
  EXPECT_LITERAL(EvalText(SelectAndScatterModule("[6]", "[3]", "size=2 stride=2"), {&x, &src}),
                 Literal::CreateR1<float>({0, 10, 0, 20, 0, 30}));
}

TEST(SelectAndScatterTest, OverlappingWindowsAccumulateAndTiesPickTheFirst) {
  // Windows [1,9,3] and [9,3,9]: 9 at index 1 both times (>= keeps the first).
  Literal x = Literal::CreateR1<float>({1, 9, 3, 9});
  Literal src = Literal::CreateR1<float>({2, 6});
  EXPECT_LITERAL(EvalText(SelectAndScatterModule("[4]", "[2]", "size=3"), {&x, &src}),
                 Literal::CreateR1<float>({0, 8, 0, 0}));
  // Padding is never selected: windows [p,1] [9,3] [9,p].
  Literal y = Literal::CreateR1<float>({-5, 9, 3, -1});
  Literal src3 = Literal::CreateR1<float>({1, 2, 3});
  EXPECT_LITERAL(EvalText(SelectAndScatterModule("[4]", "[3]", "size=2 stride=2 pad=1_1"), {&y, &src3}),
                 Literal::CreateR1<float>({1, 2, 0, 3}));
}

}  // namespace
}  // namespace xla
