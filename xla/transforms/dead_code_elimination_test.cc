#include "xla/transforms/dead_code_elimination.h"

#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::RunPass;

TEST(DeadCodeEliminationTest, RemovesUnusedInstructionsButNotParameters) {
  testing::PassRun run = RunPass<DeadCodeElimination>(R"(
HloModule m
ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  unused = f32[4] multiply(p0, p0)
  unused2 = f32[4] negate(unused)
  ROOT r = f32[4] add(p0, p0)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(run.module->entry_computation()->ToString(),
            "%main (p0: f32[4], p1: f32[4]) -> f32[4] {\n"
            "  %p0 = f32[4]{0} parameter(0)\n"
            "  %p1 = f32[4]{0} parameter(1)\n"
            "  ROOT %r = f32[4]{0} add(%p0, %p0)\n"
            "}");
}

TEST(DeadCodeEliminationTest, NoChangeOnCleanModule) {
  testing::PassRun run = RunPass<DeadCodeElimination>(R"(
HloModule m
ENTRY main {
  p0 = f32[4] parameter(0)
  ROOT r = f32[4] negate(p0)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(DeadCodeEliminationTest, KeepsSideEffects) {
  // rng is side-effecting, and so is a call of a computation that uses it.
  // rng is outside the verifier's slice: parse only.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
noisy {
  a = f32[] parameter(0)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[3] rng(lo, hi), distribution=rng_uniform
  ROOT x = f32[] negate(a)
}
ENTRY main {
  p0 = f32[] parameter(0)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[3] rng(lo, hi), distribution=rng_uniform
  c = f32[] call(p0), to_apply=noisy
  ROOT n = f32[] negate(p0)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  DeadCodeElimination dce;
  ASSERT_TRUE(dce.Run(module->get()).ok());
  const HloModule& m = **module;
  EXPECT_EQ(testing::CountOpcode(*m.entry_computation(), HloOpcode::kRng), 1);
  EXPECT_EQ(testing::CountOpcode(*m.entry_computation(), HloOpcode::kCall), 1);
  ASSERT_NE(m.GetComputationByName("noisy"), nullptr);
  // Inside the kept call, the rng stays too; its dead constants' users are the rng.
  EXPECT_EQ(testing::CountOpcode(*m.GetComputationByName("noisy"), HloOpcode::kRng), 1);
}

TEST(DeadCodeEliminationTest, RemovesUnreachableComputations) {
  testing::PassRun run = RunPass<DeadCodeElimination>(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] maximum(x, y)
}
helper {
  x = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=max
}
ENTRY main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  dead = f32[] call(p), to_apply=helper
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  // helper died with its only call, and max with helper.
  EXPECT_EQ(run.module->computations().size(), 2u);
  EXPECT_NE(run.module->GetComputationByName("add"), nullptr);
  EXPECT_EQ(run.module->GetComputationByName("helper"), nullptr);
  EXPECT_EQ(run.module->GetComputationByName("max"), nullptr);
  // The module is usable after the rebuild: run again, nothing to do.
  DeadCodeElimination dce;
  EXPECT_FALSE(dce.Run(run.module.get()).value());
}

TEST(DeadCodeEliminationTest, CleansWhileBodiesButKeepsTheirParameters) {
  testing::PassRun run = RunPass<DeadCodeElimination>(R"(
HloModule m
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  wasted = f32[2] multiply(x, x)
  x1 = f32[2] add(x, x)
  ROOT t = (s32[], f32[2]) tuple(i1, x1)
}
ENTRY main {
  p = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, p)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  ROOT x = f32[2] get-tuple-element(w), index=1
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(testing::CountOpcode(*run.module->GetComputationByName("body"), HloOpcode::kMultiply), 0);
  EXPECT_EQ(run.module->computations().size(), 3u);
}

}  // namespace
}  // namespace xla
