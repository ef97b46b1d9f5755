// rng-expander, batch-norm-expander and dimension-size-lowering: what they
// leave behind, and their values against the evaluator on the original
// (bit for bit for rng and dimension sizes, which the evaluator computes
// through the same HLO; within rounding for batch norm, which the
// evaluator computes directly in double).
#include <cmath>

#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal_comparison.h"
#include "xla/transforms/batch_norm_expander.h"
#include "xla/transforms/dimension_size_lowering.h"
#include "xla/transforms/rng_expander.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::CountOpcode;
using testing::RunPass;

TEST(RngExpanderTest, EveryRngBecomesRngBitGeneratorHlo) {
  // RunPass evaluates before (the evaluator's rng) and after (the
  // expansion) and expects the same bits.
  testing::PassRun run = RunPass<RngExpander>(R"(
HloModule m, rng_seed=3
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  lo = s64[] constant(-9)
  hi = s64[] constant(9)
  u = f32[4,5] rng(a, b), distribution=rng_uniform
  n = f32[4,5] rng(a, b), distribution=rng_normal
  i = s64[7] rng(lo, hi), distribution=rng_uniform
  ROOT t = (f32[4,5], f32[4,5], s64[7]) tuple(u, n, i)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kRng), 0);
  // One generator for uniform floats and integers, two for a normal's u1, u2.
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kRngBitGenerator), 4);
  // Only elementary arithmetic: no transcendental op whose last bits differ
  // between backends.
  for (HloOpcode op : {HloOpcode::kLog, HloOpcode::kCos, HloOpcode::kSin, HloOpcode::kExp}) {
    EXPECT_EQ(CountOpcode(*run.module, op), 0) << HloOpcodeString(op);
  }
}

TEST(RngExpanderTest, BadSeedAndLoopBodiesAreErrors) {
  auto module = ParseHloModule(R"(
HloModule m, rng_seed=minus-one
ENTRY main {
  a = f32[] constant(0)
  ROOT u = f32[2] rng(a, a), distribution=rng_uniform
})");
  ASSERT_TRUE(module.ok()) << module.status();
  RngExpander pass;
  EXPECT_EQ(pass.Run(module->get()).status().code(), absl::StatusCode::kInvalidArgument);
  auto looped = ParseHloModule(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  a = f32[] constant(0)
  r = f32[] rng(a, y), distribution=rng_uniform
  ROOT s = f32[] add(x, r)
}
ENTRY main {
  p = f32[3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
})");
  ASSERT_TRUE(looped.ok()) << looped.status();
  absl::StatusOr<bool> result = pass.Run(looped->get());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
}

TEST(BatchNormExpanderTest, ExpandsEveryBatchNormOp) {
  const char* text = R"(
HloModule m
ENTRY main {
  x = f32[3,4,5] parameter(0)
  scale = f32[4] parameter(1)
  offset = f32[4] parameter(2)
  mean = f32[4] parameter(3)
  v = f32[4] parameter(4)
  var = f32[4] abs(v)
  dy = f32[3,4,5] parameter(5)
  t = (f32[3,4,5], f32[4], f32[4]) batch-norm-training(x, scale, offset), epsilon=0.001, feature_index=1
  i = f32[3,4,5] batch-norm-inference(x, scale, offset, mean, var), epsilon=0.01, feature_index=1
  g = (f32[3,4,5], f32[4], f32[4]) batch-norm-grad(x, scale, mean, var, dy), epsilon=0.1, feature_index=1
  ROOT r = ((f32[3,4,5], f32[4], f32[4]), f32[3,4,5], (f32[3,4,5], f32[4], f32[4])) tuple(t, i, g)
})";
  auto before = ParseHloModule(text);
  auto after = ParseHloModule(text);
  ASSERT_TRUE(before.ok() && after.ok());
  BatchNormExpander pass;
  absl::StatusOr<bool> changed = pass.Run(after->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  for (HloOpcode op : {HloOpcode::kBatchNormTraining, HloOpcode::kBatchNormInference, HloOpcode::kBatchNormGrad}) {
    EXPECT_EQ(CountOpcode(**after, op), 0);
  }
  EXPECT_EQ(CountOpcode(**after, HloOpcode::kReduce), 4);  // training: mean and variance; grad: two sums
  EXPECT_NE(testing::ParseAndVerify((*after)->ToString()), nullptr);
  for (int set = 0; set < 1; ++set) {
    std::vector<Literal> args = testing::MakeArguments(*(*before)->entry_computation(), set);
    std::vector<const Literal*> ptrs;
    for (const Literal& a : args) ptrs.push_back(&a);
    HloEvaluator e1, e2;
    auto expected = e1.Evaluate(**before, ptrs);
    auto actual = e2.Evaluate(**after, ptrs);
    ASSERT_TRUE(expected.ok() && actual.ok()) << expected.status() << actual.status();
    absl::Status near = literal_comparison::Near(*expected, *actual, ErrorSpec{1e-4, 1e-4});
    EXPECT_TRUE(near.ok()) << near;
  }
}

TEST(DimensionSizeLoweringTest, ConstantsAndOperands) {
  testing::PassRun run = RunPass<DimensionSizeLowering>(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  g = s32[] get-dimension-size(x), dimensions={1}
  s = f32[2,3] set-dimension-size(x, g), dimensions={1}
  ROOT t = (s32[], f32[2,3]) tuple(g, s)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(testing::RootExpr(*run.module), "tuple(constant(3), parameter(0))");
  auto dynamic = ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  n = s32[] parameter(1)
  ROOT s = f32[2,3] set-dimension-size(x, n), dimensions={1}
})");
  ASSERT_TRUE(dynamic.ok());
  DimensionSizeLowering pass;
  EXPECT_EQ(pass.Run(dynamic->get()).status().code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace xla
