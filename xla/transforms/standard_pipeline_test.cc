// The standard pipeline end to end: whole modules in, simplified modules
// out, values unchanged, and a second run finds nothing left to do.
#include "gtest/gtest.h"
#include "xla/transforms/pass_registry.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::CountOpcode;
using testing::RootExpr;

std::unique_ptr<HloModule> Optimize(absl::string_view text) {
  auto pipeline = CreateStandardHloPipeline();
  pipeline->set_verify_after_each_pass(true);
  testing::PassRun run = testing::RunPass(*pipeline, text);
  if (run.module == nullptr) return nullptr;
  // A fixed point: nothing changes the second time.
  absl::StatusOr<bool> again = pipeline->Run(run.module.get());
  EXPECT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again.value_or(true)) << run.module->ToString();
  return std::move(run.module);
}

TEST(StandardPipelineTest, CallsConstantsAndIdentitiesDisappear) {
  auto module = Optimize(R"(
HloModule m
scale {
  x = f32[4] parameter(0)
  k = f32[] parameter(1)
  bk = f32[4] broadcast(k), dimensions={}
  ROOT m = f32[4] multiply(x, bk)
}
ENTRY main {
  p = f32[4] parameter(0)
  a = f32[] constant(0.5)
  b = f32[] constant(2)
  k = f32[] multiply(a, b)
  s = f32[4] call(p, k), to_apply=scale
  r = f32[2,2] reshape(s)
  t = f32[2,2] transpose(r), dimensions={1,0}
  t2 = f32[2,2] transpose(t), dimensions={1,0}
  ROOT out = f32[4] reshape(t2)
})");
  ASSERT_NE(module, nullptr);
  // k folds to 1, x * 1 goes, the shape ops cancel, scale is removed.
  EXPECT_EQ(RootExpr(*module), "parameter(0)");
  EXPECT_EQ(module->computations().size(), 1u);
}

TEST(StandardPipelineTest, Softmax) {
  auto module = Optimize(R"(
HloModule softmax
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[2,5] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[2] reduce(x, ninf), dimensions={1}, to_apply=max
  bm = f32[2,5] broadcast(m), dimensions={0}
  d = f32[2,5] subtract(x, bm)
  e = f32[2,5] exponential(d)
  zero = f32[] constant(0)
  s = f32[2] reduce(e, zero), dimensions={1}, to_apply=add
  bs = f32[2,5] broadcast(s), dimensions={0}
  e2 = f32[2,5] exponential(d)
  ROOT r = f32[2,5] divide(e2, bs)
})");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kExp), 1);  // CSE
}

TEST(StandardPipelineTest, SingleTripLoopWithConstantsFoldsCompletely) {
  auto module = Optimize(R"(
HloModule m
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(1)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  y = f32[2] add(x, x)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[2]) tuple(i1, y)
}
ENTRY main {
  zero = s32[] constant(0)
  c = f32[2] constant({1.5, -2})
  init = (s32[], f32[2]) tuple(zero, c)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  ROOT x = f32[2] get-tuple-element(w), index=1
})");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(RootExpr(*module), "constant({3, -4})");
  EXPECT_EQ(module->computations().size(), 1u);
}

TEST(StandardPipelineTest, LoopWithInvariantWork) {
  auto module = Optimize(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  s = (s32[], f32[4,4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(6)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4,4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  w = f32[4,4] get-tuple-element(s), index=1
  v = f32[4] get-tuple-element(s), index=2
  wt = f32[4,4] transpose(w), dimensions={1,0}
  z = f32[] constant(0)
  norms = f32[4] reduce(wt, z), dimensions={1}, to_apply=add
  d = f32[4] dot(w, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  v1 = f32[4] add(d, norms)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[4,4], f32[4]) tuple(i1, w, v1)
}
ENTRY main {
  w = f32[4,4] parameter(0)
  v = f32[4] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4,4], f32[4]) tuple(zero, w, v)
  loop = (s32[], f32[4,4], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(loop), index=2
})");
  ASSERT_NE(module, nullptr);
  const HloComputation* body = nullptr;
  for (const HloComputation* c : module->computations()) {
    if (CountOpcode(*c, HloOpcode::kDot) == 1) body = c;
  }
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(CountOpcode(*body, HloOpcode::kReduce), 0);
  EXPECT_EQ(CountOpcode(*body, HloOpcode::kTranspose), 0);
  EXPECT_EQ(CountOpcode(*module->entry_computation(), HloOpcode::kReduce), 1);
}

TEST(StandardPipelineTest, TextInTextOut) {
  auto module = Optimize(R"(
HloModule gelu_ish
ENTRY main {
  x = f32[8] parameter(0)
  half = f32[] constant(0.5)
  bhalf = f32[8] broadcast(half), dimensions={}
  one = f32[] constant(1)
  bone = f32[8] broadcast(one), dimensions={}
  xs = f32[8] multiply(x, bone)
  t = f32[8] tanh(xs)
  t2 = f32[8] tanh(x)
  u = f32[8] add(t, bone)
  r1 = f32[2,4] reshape(u)
  r2 = f32[8] reshape(r1)
  h = f32[8] multiply(bhalf, x)
  dead = f32[8] exponential(x)
  ROOT out = f32[8] multiply(h, r2)
})");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->ToString(), testing::Canonical(R"(
HloModule gelu_ish
ENTRY main {
  x = f32[8] parameter(0)
  half = f32[] constant(0.5)
  bhalf = f32[8] broadcast(half), dimensions={}
  one = f32[] constant(1)
  bone = f32[8] broadcast(one), dimensions={}
  t = f32[8] tanh(x)
  u = f32[8] add(t, bone)
  h = f32[8] multiply(bhalf, x)
  ROOT out = f32[8] multiply(h, u)
})"));
}

TEST(StandardPipelineTest, NothingToDo) {
  auto pipeline = CreateStandardHloPipeline();
  testing::PassRun run = testing::RunPass(*pipeline, R"(
HloModule m
ENTRY main {
  p0 = f32[3] parameter(0)
  p1 = f32[3] parameter(1)
  ROOT r = f32[3] add(p0, p1)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

}  // namespace
}  // namespace xla
