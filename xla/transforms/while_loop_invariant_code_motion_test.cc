#include "xla/transforms/while_loop_invariant_code_motion.h"

#include "gtest/gtest.h"
#include "xla/transforms/pass_registry.h"
#include "xla/transforms/transforms_test_util.h"
#include "xla/transforms/tuple_simplifier.h"

namespace xla {
namespace {

using testing::CountOpcode;
using testing::Expr;
using testing::RunPass;

// acc += exp(w) * 2 + i for 5 iterations; exp(w) * 2 is invariant.
constexpr char kLoop[] = R"(
HloModule m
cond {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  w = f32[4] get-tuple-element(s), index=1
  acc = f32[4] get-tuple-element(s), index=2
  e = f32[4] exponential(w)
  two = f32[] constant(2)
  b2 = f32[4] broadcast(two), dimensions={}
  e2 = f32[4] multiply(e, b2)
  fi = f32[] convert(i)
  bi = f32[4] broadcast(fi), dimensions={}
  t = f32[4] add(e2, bi)
  acc1 = f32[4] add(acc, t)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[4], f32[4]) tuple(i1, w, acc1)
}
ENTRY main {
  w = f32[4] parameter(0)
  zero = s32[] constant(0)
  z = f32[] constant(0)
  acc = f32[4] broadcast(z), dimensions={}
  init = (s32[], f32[4], f32[4]) tuple(zero, w, acc)
  loop = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(loop), index=2
}
)";

TEST(WhileLicmTest, HoistsInvariantWork) {
  testing::PassRun run = RunPass<WhileLoopInvariantCodeMotion>(kLoop);
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  const HloComputation* body = run.module->GetComputationByName("body");
  EXPECT_EQ(CountOpcode(*body, HloOpcode::kExp), 0);
  EXPECT_EQ(CountOpcode(*body, HloOpcode::kMultiply), 0);
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kExp), 1);
  // The hoisted value rides along as a new, passed-through element 3.
  EXPECT_EQ(Expr(body->root_instruction(), 3),
            "tuple(add(get-tuple-element[0](parameter(0)), constant(1)), get-tuple-element[1](parameter(0)), "
            "add(get-tuple-element[2](parameter(0)), add(get-tuple-element[3](...), broadcast{}(...))), "
            "get-tuple-element[3](parameter(0)))");
  EXPECT_EQ(Expr(run.module->entry_computation()->root_instruction(), 7),
            "get-tuple-element[2](tuple(get-tuple-element[0](while(tuple(constant(0), parameter(0), "
            "broadcast{}(constant(0)), multiply(exponential(parameter(0)), broadcast{}(constant(2)))))), "
            "get-tuple-element[1](while(tuple(constant(0), parameter(0), broadcast{}(constant(0)), "
            "multiply(exponential(parameter(0)), broadcast{}(constant(2)))))), "
            "get-tuple-element[2](while(tuple(constant(0), parameter(0), broadcast{}(constant(0)), "
            "multiply(exponential(parameter(0)), broadcast{}(constant(2))))))))");
  // Running again finds nothing new.
  WhileLoopInvariantCodeMotion licm;
  EXPECT_FALSE(licm.Run(run.module.get()).value());
}

TEST(WhileLicmTest, TupleSimplifierCleansUpTheStateRepack) {
  auto module = testing::ParseAndVerify(kLoop);
  ASSERT_NE(module, nullptr);
  auto before = module->Clone().value();
  WhileLoopInvariantCodeMotion licm;
  TupleSimplifier tuples;
  ASSERT_TRUE(licm.Run(module.get()).value());
  ASSERT_TRUE(tuples.Run(module.get()).value());
  EXPECT_EQ(Expr(module->entry_computation()->root_instruction(), 1), "get-tuple-element[2](while(...))");
  testing::ExpectSameResults(*before, *module);
}

TEST(WhileLicmTest, NothingInvariantNoChange) {
  testing::PassRun run = RunPass<WhileLoopInvariantCodeMotion>(R"(
HloModule m
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  e = f32[4] exponential(x)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[4]) tuple(i1, e)
}
ENTRY main {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  ROOT loop = (s32[], f32[4]) while(init), condition=cond, body=body
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(WhileLicmTest, StateFromAParameterTuple) {
  // The initial value is not a tuple instruction: elements are read with gte.
  testing::PassRun run = RunPass<WhileLoopInvariantCodeMotion>(R"(
HloModule m
cond {
  s = (s32[], f32[3], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = f32[3] get-tuple-element(s), index=1
  x = f32[3] get-tuple-element(s), index=2
  t = f32[3] tanh(a)
  x1 = f32[3] multiply(x, t)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[3], f32[3]) tuple(i1, a, x1)
}
ENTRY main {
  p = (s32[], f32[3], f32[3]) parameter(0)
  ROOT loop = (s32[], f32[3], f32[3]) while(p), condition=cond, body=body
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kTanh), 1);
  EXPECT_EQ(CountOpcode(*run.module->GetComputationByName("body"), HloOpcode::kTanh), 0);
}

TEST(WhileLicmTest, SideEffectsAndSharedBodiesStay) {
  testing::PassRun run = RunPass<WhileLoopInvariantCodeMotion>(R"(
HloModule m
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  e = f32[2] exponential(x)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[2]) tuple(i1, x)
}
ENTRY main {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  a = (s32[], f32[2]) while(init), condition=cond, body=body
  b = (s32[], f32[2]) while(init), condition=cond, body=body
  ROOT t = ((s32[], f32[2]), (s32[], f32[2])) tuple(a, b)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);  // body and cond are shared by two loops
}

TEST(WhileLicmTest, InvariantValueStoredInTheState) {
  // Element 1 is recomputed every iteration from invariant inputs: the
  // body stores the hoisted value.
  testing::PassRun run = RunPass<WhileLoopInvariantCodeMotion>(R"(
HloModule m
cond {
  s = (s32[], f32[2], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  y = f32[2] get-tuple-element(s), index=2
  sq = f32[2] multiply(y, y)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[2], f32[2]) tuple(i1, sq, y)
}
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[2], f32[2]) tuple(zero, x, y)
  ROOT loop = (s32[], f32[2], f32[2]) while(init), condition=cond, body=body
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module->GetComputationByName("body"), HloOpcode::kMultiply), 0);
}

}  // namespace
}  // namespace xla
