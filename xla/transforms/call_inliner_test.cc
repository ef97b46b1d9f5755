#include "xla/transforms/call_inliner.h"

#include "gtest/gtest.h"
#include "xla/transforms/dead_code_elimination.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::CountOpcode;
using testing::RootExpr;
using testing::RunPass;

TEST(CallInlinerTest, InlinesACall) {
  testing::PassRun run = RunPass<CallInliner>(R"(
HloModule m
square_plus {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  sq = f32[4] multiply(x, x)
  ROOT r = f32[4] add(sq, y)
}
ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  c = f32[4] call(p1, p0), to_apply=square_plus
  ROOT n = f32[4] negate(c)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "negate(add(multiply(parameter(1), parameter(1)), parameter(0)))");
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kCall), 0);
}

// An optimized dump of another compiler: its fusions are calls of their
// fused computations.
TEST(CallInlinerTest, InlinesFusions) {
  testing::PassRun run = RunPass<CallInliner>(R"(
HloModule m
fused_computation {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  m = f32[4] multiply(p0, p1)
  ROOT e = f32[4] exponential(m)
}
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  f = f32[4] fusion(a, b), kind=kLoop, calls=fused_computation
  ROOT n = f32[4] negate(f)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "negate(exponential(multiply(parameter(0), parameter(1))))");
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kFusion), 0);
}

TEST(CallInlinerTest, InlinesNestedCallsAndKeepsNamesUnique) {
  testing::PassRun run = RunPass<CallInliner>(R"(
HloModule m
inner {
  x = f32[] parameter(0)
  ROOT r = f32[] sine(x)
}
outer {
  x = f32[] parameter(0)
  a = f32[] call(x), to_apply=inner
  ROOT r = f32[] call(a), to_apply=inner
}
ENTRY main {
  p = f32[] parameter(0)
  a = f32[] call(p), to_apply=outer
  r = f32[] call(a), to_apply=outer
  ROOT x = f32[] add(r, p)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(RootExpr(*run.module), "add(sine(sine(sine(sine(parameter(0))))), parameter(0))");
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kCall), 0);
  // The callees stay until DCE.
  EXPECT_EQ(run.module->computations().size(), 3u);
  DeadCodeElimination dce;
  ASSERT_TRUE(dce.Run(run.module.get()).value());
  EXPECT_EQ(run.module->computations().size(), 1u);
}

TEST(CallInlinerTest, CalleeReturningAParameterAndIgnoringOthers) {
  testing::PassRun run = RunPass<CallInliner>(R"(
HloModule m
first {
  ROOT x = f32[2] parameter(0)
  y = f32[2] parameter(1)
}
ENTRY main {
  p = f32[2] parameter(0)
  e = f32[2] exponential(p)
  ROOT c = f32[2] call(p, e), to_apply=first
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(RootExpr(*run.module), "parameter(0)");
  // The argument the callee ignored is gone too.
  EXPECT_EQ(run.module->entry_computation()->instruction_count(), 1);
}

TEST(CallInlinerTest, RootCallWithAnotherLayoutBecomesACopy) {
  testing::PassRun run = RunPass<CallInliner>(R"(
HloModule m
id {
  x = f32[2,3]{1,0} parameter(0)
  ROOT n = f32[2,3]{1,0} negate(x)
}
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  ROOT c = f32[2,3]{0,1} call(p), to_apply=id
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(RootExpr(*run.module), "copy(negate(parameter(0)))");
  EXPECT_EQ(run.module->entry_computation()->root_instruction()->shape().ToString(true), "f32[2,3]{0,1}");
}

TEST(CallInlinerTest, InlinesCallsInsideLoopBodies) {
  testing::PassRun run = RunPass<CallInliner>(R"(
HloModule m
double {
  x = s32[] parameter(0)
  ROOT r = s32[] add(x, x)
}
cond {
  s = s32[] parameter(0)
  n = s32[] constant(100)
  ROOT lt = pred[] compare(s, n), direction=LT
}
body {
  s = s32[] parameter(0)
  ROOT c = s32[] call(s), to_apply=double
}
ENTRY main {
  one = s32[] constant(1)
  ROOT w = s32[] while(one), condition=cond, body=body
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(testing::Expr(run.module->GetComputationByName("body")->root_instruction()),
            "add(parameter(0), parameter(0))");
}

TEST(CallInlinerTest, NoCallsNoChange) {
  testing::PassRun run = RunPass<CallInliner>(R"(
HloModule m
ENTRY main {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

}  // namespace
}  // namespace xla
