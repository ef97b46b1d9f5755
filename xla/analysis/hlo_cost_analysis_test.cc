#include "xla/analysis/hlo_cost_analysis.h"

#include <map>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace {

HloCost Analyze(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  return AnalyzeHloCost(**module);
}

TEST(HloCostAnalysisTest, DotIsTwoMNKPerBatch) {
  // [2,3] x [3,4]: 2 * 2*4 * 3.
  EXPECT_EQ(Analyze(R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  ROOT d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})").flops, 48);
  // 5 batches of [2,3] x [3,4].
  EXPECT_EQ(Analyze(R"(
HloModule m
ENTRY e {
  a = f32[5,2,3] parameter(0)
  b = f32[5,3,4] parameter(1)
  ROOT d = f32[5,2,4] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
})").flops, 240);
  // Two contracting dimensions: [2,3,5] x [3,5,4] contracts 15.
  EXPECT_EQ(Analyze(R"(
HloModule m
ENTRY e {
  a = f32[2,3,5] parameter(0)
  b = f32[3,5,4] parameter(1)
  ROOT d = f32[2,4] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}
})").flops, 2 * 8 * 15);
}

TEST(HloCostAnalysisTest, ConvolutionCountsEveryWindowTapPerGroup) {
  // 3x3 over 2 input features into 4: output 1x3x3x4, 9*2 taps each.
  EXPECT_EQ(Analyze(R"(
HloModule m
ENTRY e {
  x = f32[1,5,5,2] parameter(0)
  k = f32[3,3,2,4] parameter(1)
  ROOT c = f32[1,3,3,4] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f
})").flops, 2 * 36 * 18);
  // Padding keeps the output 5x5; padded taps count too.
  EXPECT_EQ(Analyze(R"(
HloModule m
ENTRY e {
  x = f32[1,5,5,2] parameter(0)
  k = f32[3,3,2,4] parameter(1)
  ROOT c = f32[1,5,5,4] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})").flops, 2 * 100 * 18);
  // Two groups of 2 input features (4 in all) into 6 outputs: each output
  // sums 9 taps of its group's 2 features.
  EXPECT_EQ(Analyze(R"(
HloModule m
ENTRY e {
  x = f32[1,5,5,4] parameter(0)
  k = f32[3,3,2,6] parameter(1)
  ROOT c = f32[1,3,3,6] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, feature_group_count=2
})").flops, 2 * 54 * 18);
  // Depthwise (one feature per group), NCHW with an OIHW kernel.
  EXPECT_EQ(Analyze(R"(
HloModule m
ENTRY e {
  x = bf16[2,8,6,6] parameter(0)
  k = bf16[8,1,3,3] parameter(1)
  ROOT c = bf16[2,8,4,4] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01, feature_group_count=8
})").flops, 2 * 256 * 9);
}

TEST(HloCostAnalysisTest, ElementwiseCountsOnePerElementAndDataMovementNothing) {
  // add, exponential, compare, select, convert, clamp: 6 ops of 12
  // elements; broadcast, transpose, reshape, slice, concatenate, copy and
  // the tuple count nothing.
  HloCost cost = Analyze(R"(
HloModule m
ENTRY e {
  x = f32[3,4] parameter(0)
  z = f32[] constant(0)
  zb = f32[3,4] broadcast(z), dimensions={}
  a = f32[3,4] add(x, zb)
  ex = f32[3,4] exponential(a)
  gt = pred[3,4] compare(ex, zb), direction=GT
  s = f32[3,4] select(gt, ex, zb)
  h = bf16[3,4] convert(s)
  one = bf16[] constant(1)
  c = bf16[3,4] clamp(one, h, one)
  t = bf16[4,3] transpose(c), dimensions={1,0}
  r = bf16[12] reshape(t)
  sl = bf16[6] slice(r), slice={[0:6]}
  cc = bf16[18] concatenate(r, sl), dimensions={0}
  cp = bf16[18] copy(cc)
  ROOT tuple = (bf16[18], f32[3,4]) tuple(cp, x)
})");
  EXPECT_EQ(cost.flops, 6 * 12);
  EXPECT_TRUE(cost.not_counted.empty());
}

TEST(HloCostAnalysisTest, ReductionsApplyTheirComputationPerElement) {
  const std::string computations = R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
argmax {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  v = f32[] select(gt, a, b)
  i = s32[] select(gt, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
square_plus_one {
  x = f32[] parameter(0)
  sq = f32[] multiply(x, x)
  one = f32[] constant(1)
  ROOT r = f32[] add(sq, one)
}
)";
  // 12 input elements, one add each.
  EXPECT_EQ(Analyze(computations + R"(
ENTRY e {
  x = f32[3,4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3] reduce(x, z), dimensions={1}, to_apply=add
})").flops, 12);
  // Variadic: compare + 2 selects per input element.
  EXPECT_EQ(Analyze(computations + R"(
ENTRY e {
  x = f32[3,4] parameter(0)
  i = s32[3,4] parameter(1)
  z = f32[] constant(0)
  zi = s32[] constant(0)
  ROOT r = (f32[3], s32[3]) reduce(x, i, z, zi), dimensions={1}, to_apply=argmax
})").flops, 36);
  // 2x2 windows with stride 2 over 4x4: 4 outputs, 4 taps each.
  EXPECT_EQ(Analyze(computations + R"(
ENTRY e {
  x = f32[4,4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2,2] reduce-window(x, z), window={size=2x2 stride=2x2}, to_apply=add
})").flops, 16);
  // map: 2 per element.
  EXPECT_EQ(Analyze(computations + R"(
ENTRY e {
  x = f32[6] parameter(0)
  ROOT r = f32[6] map(x), dimensions={0}, to_apply=square_plus_one
})").flops, 12);
  // scatter: one add per update element.
  EXPECT_EQ(Analyze(computations + R"(
ENTRY e {
  x = f32[6,3] parameter(0)
  ids = s32[2] parameter(1)
  u = f32[2,3] parameter(2)
  ROOT s = f32[6,3] scatter(x, ids, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})").flops, 6);
}

TEST(HloCostAnalysisTest, CalledComputationsCountWhereTheyRun) {
  // The call's dot (48) and add (8), plus the entry's add (8).
  EXPECT_EQ(Analyze(R"(
HloModule m
f {
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[2,4] add(d, d)
}
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  c = f32[2,4] call(a, b), to_apply=f
  ROOT s = f32[2,4] add(c, c)
})").flops, 64);
}

TEST(HloCostAnalysisTest, ControlFlowAndUnmodelledOpsAreListed) {
  // The while's body (4 adds and the counter's add) and condition (1
  // compare) count once; the conditional counts its costlier branch (8);
  // the sort counts nothing.
  HloCost cost = Analyze(R"(
HloModule m
cond {
  t = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  t = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  v = f32[4] get-tuple-element(t), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  v2 = f32[4] add(v, v)
  ROOT r = (s32[], f32[4]) tuple(i2, v2)
}
small {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
large {
  x = f32[4] parameter(0)
  m = f32[4] multiply(x, x)
  ROOT a = f32[4] add(m, x)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[4] parameter(0)
  p = pred[] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[4]) tuple(z, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  v = f32[4] get-tuple-element(w), index=1
  c = f32[4] conditional(p, v, v), true_computation=small, false_computation=large
  ROOT s = f32[4] sort(c), dimensions={0}, to_apply=less
})");
  EXPECT_EQ(cost.flops, 6 + 8);
  const std::map<std::string, int64_t> want = {{"conditional", 1}, {"sort", 1}, {"while", 1}};
  EXPECT_EQ(cost.not_counted, want);
}

}  // namespace
}  // namespace xla
