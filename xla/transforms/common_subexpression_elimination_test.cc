#include "xla/transforms/common_subexpression_elimination.h"

#include "gtest/gtest.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::CountOpcode;
using testing::RootExpr;
using testing::RunPass;

TEST(CseTest, MergesIdenticalChains) {
  testing::PassRun run = RunPass<CommonSubexpressionElimination>(R"(
HloModule m
ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  a = f32[4] add(p0, p1)
  b = f32[4] add(p0, p1)
  ea = f32[4] exponential(a)
  eb = f32[4] exponential(b)
  ROOT r = f32[4] multiply(ea, eb)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module),
            "multiply(exponential(add(parameter(0), parameter(1))), exponential(add(parameter(0), parameter(1))))");
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kAdd), 1);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kExp), 1);
}

TEST(CseTest, CommutativeOperandsInEitherOrder) {
  testing::PassRun run = RunPass<CommonSubexpressionElimination>(R"(
HloModule m
ENTRY main {
  p0 = s32[4] parameter(0)
  p1 = s32[4] parameter(1)
  a = s32[4] multiply(p0, p1)
  b = s32[4] multiply(p1, p0)
  c = s32[4] subtract(p0, p1)
  d = s32[4] subtract(p1, p0)
  ROOT t = (s32[4], s32[4], s32[4], s32[4]) tuple(a, b, c, d)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kMultiply), 1);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kSubtract), 2);
}

TEST(CseTest, ConstantsByValueBitForBit) {
  testing::PassRun run = RunPass<CommonSubexpressionElimination>(R"(
HloModule m
ENTRY main {
  a = f32[2] constant({1, 2})
  b = f32[2] constant({1, 2})
  c = f32[2] constant({1, 3})
  z = f32[] constant(0)
  nz = f32[] constant(-0)
  z2 = f32[] constant(0)
  i = s32[] constant(0)
  ROOT t = (f32[2], f32[2], f32[2], f32[], f32[], f32[], s32[]) tuple(a, b, c, z, nz, z2, i)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  // {1,2} once, {1,3}, 0, -0 (kept apart from +0), s32 0.
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kConstant), 5);
}

TEST(CseTest, AttributesAndShapesMustMatch) {
  testing::PassRun run = RunPass<CommonSubexpressionElimination>(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  a = f32[3,2] transpose(p), dimensions={1,0}
  b = f32[3,2] transpose(p), dimensions={1,0}
  c = f32[3,2] reshape(p)
  s1 = f32[2,2] slice(p), slice={[0:2], [0:2]}
  s2 = f32[2,2] slice(p), slice={[0:2], [1:3]}
  ROOT t = (f32[3,2], f32[3,2], f32[3,2], f32[2,2], f32[2,2]) tuple(a, b, c, s1, s2)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kTranspose), 1);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kReshape), 1);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kSlice), 2);
}

TEST(CseTest, LayoutsKeepInstructionsApart) {
  testing::PassRun run = RunPass<CommonSubexpressionElimination>(R"(
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  a = f32[2,3]{1,0} copy(p)
  b = f32[2,3]{0,1} copy(p)
  ROOT t = (f32[2,3]{1,0}, f32[2,3]{0,1}) tuple(a, b)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(CseTest, CalledComputationsMustMatch) {
  testing::PassRun run = RunPass<CommonSubexpressionElimination>(R"(
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
ENTRY main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  a = f32[] reduce(p, z), dimensions={0}, to_apply=add
  b = f32[] reduce(p, z), dimensions={0}, to_apply=add
  c = f32[] reduce(p, z), dimensions={0}, to_apply=max
  ROOT t = (f32[], f32[], f32[]) tuple(a, b, c)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kReduce), 2);
}

TEST(CseTest, ElidedConstantsAndParametersAreNeverMerged) {
  testing::PassRun run = RunPass<CommonSubexpressionElimination>(R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  p1 = f32[2] parameter(1)
  a = f32[2] constant({...})
  b = f32[2] constant({...})
  ROOT t = (f32[2], f32[2], f32[2], f32[2]) tuple(p0, p1, a, b)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(CseTest, MetadataDoesNotMatter) {
  testing::PassRun run = RunPass<CommonSubexpressionElimination>(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] negate(p), metadata={op_name="first"}
  b = f32[2] negate(p), metadata={op_name="second"}
  ROOT t = (f32[2], f32[2]) tuple(a, b)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kNegate), 1);
}

TEST(CseTest, MergesTheRoot) {
  testing::PassRun run = RunPass<CommonSubexpressionElimination>(R"(
HloModule m
body {
  p = f32[2] parameter(0)
  a = f32[2] sine(p)
  ROOT b = f32[2] sine(p)
}
ENTRY main {
  p = f32[2] parameter(0)
  ROOT c = f32[2] call(p), to_apply=body
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(run.module->GetComputationByName("body")->instruction_count(), 2);
}

}  // namespace
}  // namespace xla
