#include "xla/transforms/tuple_simplifier.h"

#include "gtest/gtest.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::RootExpr;
using testing::RunPass;

TEST(TupleSimplifierTest, ElementOfATuple) {
  testing::PassRun run = RunPass<TupleSimplifier>(R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  p1 = s32[] parameter(1)
  t = (f32[2], s32[]) tuple(p0, p1)
  a = f32[2] get-tuple-element(t), index=0
  ROOT n = f32[2] negate(a)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "negate(parameter(0))");
  EXPECT_EQ(run.module->entry_computation()->instruction_count(), 3);  // the tuple died
}

TEST(TupleSimplifierTest, RepackedTuple) {
  testing::PassRun run = RunPass<TupleSimplifier>(R"(
HloModule m
ENTRY main {
  p = (f32[2], s32[], pred[]) parameter(0)
  a = f32[2] get-tuple-element(p), index=0
  b = s32[] get-tuple-element(p), index=1
  c = pred[] get-tuple-element(p), index=2
  ROOT t = (f32[2], s32[], pred[]) tuple(a, b, c)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "parameter(0)");
}

TEST(TupleSimplifierTest, PartialOrReorderedRepackIsKept) {
  testing::PassRun run = RunPass<TupleSimplifier>(R"(
HloModule m
ENTRY main {
  p = (f32[], f32[], f32[]) parameter(0)
  a = f32[] get-tuple-element(p), index=0
  b = f32[] get-tuple-element(p), index=1
  c = f32[] get-tuple-element(p), index=2
  t1 = (f32[], f32[]) tuple(a, b)
  t2 = (f32[], f32[], f32[]) tuple(b, a, c)
  ROOT t = ((f32[], f32[]), (f32[], f32[], f32[])) tuple(t1, t2)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(TupleSimplifierTest, NestedTuplesCollapseInOneRun) {
  testing::PassRun run = RunPass<TupleSimplifier>(R"(
HloModule m
ENTRY main {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  inner = (f32[], f32[]) tuple(p0, p1)
  outer = ((f32[], f32[]), f32[]) tuple(inner, p0)
  g = (f32[], f32[]) get-tuple-element(outer), index=0
  x = f32[] get-tuple-element(g), index=1
  ROOT r = f32[] add(x, p0)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(RootExpr(*run.module), "add(parameter(1), parameter(0))");
}

TEST(TupleSimplifierTest, WhileBodyPassThrough) {
  // The body only repacks its state: it becomes its parameter.
  testing::PassRun run = RunPass<TupleSimplifier>(R"(
HloModule m
cond {
  s = (s32[], f32[]) parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  s = (s32[], f32[]) parameter(0)
  a = s32[] get-tuple-element(s), index=0
  b = f32[] get-tuple-element(s), index=1
  ROOT t = (s32[], f32[]) tuple(a, b)
}
ENTRY main {
  p = (s32[], f32[]) parameter(0)
  ROOT w = (s32[], f32[]) while(p), condition=cond, body=body
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(testing::Expr(run.module->GetComputationByName("body")->root_instruction()), "parameter(0)");
}

}  // namespace
}  // namespace xla
