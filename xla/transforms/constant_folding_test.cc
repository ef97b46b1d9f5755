#include "xla/transforms/constant_folding.h"

#include "gtest/gtest.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::CountOpcode;
using testing::RootExpr;
using testing::RunPass;

TEST(ConstantFoldingTest, FoldsChainsInOneRun) {
  testing::PassRun run = RunPass<ConstantFolding>(R"(
HloModule m
ENTRY main {
  a = s32[] constant(2)
  b = s32[] constant(3)
  c = s32[] multiply(a, b)
  d = s32[] add(c, a)
  ROOT n = s32[] negate(d)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "constant(-8)");
  EXPECT_EQ(run.module->entry_computation()->instruction_count(), 1);
}

TEST(ConstantFoldingTest, FoldsShapeOpsReducesAndDots) {
  testing::PassRun run = RunPass<ConstantFolding>(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  p = f32[2] parameter(0)
  m = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  t = f32[3,2] transpose(m), dimensions={1,0}
  v = f32[3] constant({1, 0, -1})
  d = f32[2] dot(m, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  r = f32[3] reduce(t, z), dimensions={1}, to_apply=add
  s = f32[2] slice(r), slice={[0:2]}
  sum = f32[2] add(s, d)
  ROOT out = f32[2] add(sum, p)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  // r = {5, 7, 9}; d = {-2, -2}; sum = {3, 5}.
  EXPECT_EQ(RootExpr(*run.module), "add(constant({3, 5}), parameter(0))");
}

TEST(ConstantFoldingTest, KeepsBroadcastsAndIota) {
  testing::PassRun run = RunPass<ConstantFolding>(R"(
HloModule m
ENTRY main {
  c = f32[] constant(2)
  b = f32[1000] broadcast(c), dimensions={}
  i = s32[1000] iota(), iota_dimension=0
  ROOT t = (f32[1000], s32[1000]) tuple(b, i)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(ConstantFoldingTest, FoldsOpsOnBroadcastedConstantsOnlyAfterTheyAreConstants) {
  // negate(broadcast(c)) has a non-constant operand: left alone.
  testing::PassRun run = RunPass<ConstantFolding>(R"(
HloModule m
ENTRY main {
  c = f32[] constant(2)
  b = f32[4] broadcast(c), dimensions={}
  ROOT n = f32[4] negate(b)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(ConstantFoldingTest, RespectsTheSizeLimit) {
  ConstantFoldingOptions options;
  options.max_result_elements = 3;
  ConstantFolding pass(options);
  testing::PassRun run = RunPass(pass, R"(
HloModule m
ENTRY main {
  a = f32[4] constant({1, 2, 3, 4})
  big = f32[4] negate(a)
  b = f32[3] constant({1, 2, 3})
  small = f32[3] negate(b)
  ROOT t = (f32[4], f32[3]) tuple(big, small)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "tuple(negate(constant({1, 2, 3, 4})), constant({-1, -2, -3}))");
}

TEST(ConstantFoldingTest, RespectsTheDotCostLimit) {
  ConstantFoldingOptions options;
  options.max_multiply_adds = 7;
  ConstantFolding pass(options);
  testing::PassRun run = RunPass(pass, R"(
HloModule m
ENTRY main {
  a = f32[2,2] constant({{1, 2}, {3, 4}})
  ROOT d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);  // 2*2 results times 2 = 8 multiply-adds
}

TEST(ConstantFoldingTest, FoldsSmallSortsAndRespectsTheSortCostLimit) {
  const char* text = R"(
HloModule m
less {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY main {
  c = s32[4] constant({3, 1, 4, 2})
  ROOT s = s32[4] sort(c), dimensions={0}, to_apply=less
})";
  testing::PassRun run = RunPass<ConstantFolding>(text);
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "constant({1, 2, 3, 4})");
  ConstantFoldingOptions options;
  options.max_multiply_adds = 4 * 2 * 64 - 1;  // 4 elements x log2(4) comparisons
  ConstantFolding limited(options);
  run = RunPass(limited, text);
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(ConstantFoldingTest, ElidedConstantsAreNotFolded) {
  testing::PassRun run = RunPass<ConstantFolding>(R"(
HloModule m
ENTRY main {
  a = f32[2] constant({...})
  ROOT n = f32[2] negate(a)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(ConstantFoldingTest, FoldsTupleElementsAndCompares) {
  testing::PassRun run = RunPass<ConstantFolding>(R"(
HloModule m
ENTRY main {
  p = f32[] parameter(0)
  t = (f32[], s32[]) constant((1.5, 7))
  x = f32[] get-tuple-element(t), index=0
  i = s32[] get-tuple-element(t), index=1
  k = s32[] constant(5)
  lt = pred[] compare(i, k), direction=LT
  ROOT s = f32[] select(lt, x, p)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(RootExpr(*run.module), "select(constant(false), constant(1.5), parameter(0))");
}

TEST(ConstantFoldingTest, KeepsLayouts) {
  testing::PassRun run = RunPass<ConstantFolding>(R"(
HloModule m
ENTRY main {
  a = f32[2,3]{1,0} constant({{1, 2, 3}, {4, 5, 6}})
  ROOT t = f32[3,2]{0,1} transpose(a), dimensions={1,0}
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  const HloInstruction* root = run.module->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(root->shape().ToString(/*print_layout=*/true), "f32[3,2]{0,1}");
}

TEST(ConstantFoldingTest, WhileLoopsAreNotFolded) {
  testing::PassRun run = RunPass<ConstantFolding>(R"(
HloModule m
cond {
  s = s32[] parameter(0)
  n = s32[] constant(10)
  ROOT lt = pred[] compare(s, n), direction=LT
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT a = s32[] add(s, one)
}
ENTRY main {
  zero = s32[] constant(0)
  ROOT w = s32[] while(zero), condition=cond, body=body
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kWhile), 1);
}

}  // namespace
}  // namespace xla
