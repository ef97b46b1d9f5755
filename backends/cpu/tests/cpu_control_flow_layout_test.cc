// Control flow whose computations return other layouts than the
// instruction's shape (as in XLA's optimized dumps): conditional branches
// and call targets, while bodies, and copies of whole tuples. The CPU
// backend must match the evaluator on each.
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/literal.h"

namespace xla {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::RandomArguments;
using cpu_test::WithThreads;

TEST(CpuControlFlowLayoutTest, ConditionalBranchesReturningOtherLayouts) {
  const std::string text = R"(HloModule cond_layout
b0 {
  p = f32[5,7] parameter(0)
  ROOT c = f32[5,7]{0,1} copy(p)
}
b1 {
  p = f32[5,7] parameter(0)
  ROOT n = f32[5,7]{1,0} negate(p)
}
b2 {
  p = f32[5,7] parameter(0)
  e = f32[5,7]{0,1} exponential(p)
  ROOT t = (f32[5,7]{0,1}) tuple(e)
}
ENTRY e {
  i = s32[] parameter(0)
  x = f32[5,7] parameter(1)
  c = f32[5,7]{1,0} conditional(i, x, x), branch_computations={b0, b1}
  k = (f32[5,7]{1,0}) conditional(i, x, x, x), branch_computations={b2, b2, b2}
  ke = f32[5,7]{1,0} get-tuple-element(k), index=0
  ROOT r = f32[5,7]{1,0} add(c, ke)
})";
  std::vector<Literal> args = RandomArguments(text, 3);
  for (int32_t branch : {0, 1, 2, -4}) {
    SCOPED_TRACE(branch);
    args[0] = Literal::CreateR0<int32_t>(branch);
    for (int threads : {1, 2}) CompareWithEvaluator(text, args, ErrorSpec{1e-6, 1e-6}, WithThreads(threads));
  }
}

TEST(CpuControlFlowLayoutTest, CallReturningAnotherLayout) {
  const std::string text = R"(HloModule call_layout
f {
  p = f32[6,4] parameter(0)
  ROOT t = f32[6,4]{0,1} multiply(p, p)
}
ENTRY e {
  x = f32[6,4] parameter(0)
  c = f32[6,4]{1,0} call(x), to_apply=f
  ROOT r = f32[6,4]{1,0} subtract(c, x)
})";
  CompareWithEvaluator(text, RandomArguments(text, 5), ErrorSpec{1e-6, 1e-6});
}

// The body ends in a copy of a tuple that changes the state's layout back
// (XLA's layout assignment writes while bodies this way).
TEST(CpuControlFlowLayoutTest, WhileBodiesEndingInATupleCopy) {
  const std::string text = R"(HloModule while_copy
cond {
  s = (s32[], f32[3,5]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3,5]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[3,5]{1,0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  y = f32[3,5]{0,1} add(x, x)
  t = (s32[], f32[3,5]{0,1}) tuple(i1, y)
  ROOT c = (s32[], f32[3,5]{1,0}) copy(t)
}
body2 {
  s = (s32[], f32[3,5]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[3,5]{1,0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  y = f32[3,5]{0,1} negate(x)
  ROOT t = (s32[], f32[3,5]{0,1}) tuple(i1, y)
}
ENTRY e {
  x = f32[3,5] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[3,5]{1,0}) tuple(z, x)
  w = (s32[], f32[3,5]{1,0}) while(t), condition=cond, body=body
  w2 = (s32[], f32[3,5]{1,0}) while(t), condition=cond, body=body2
  a = f32[3,5] get-tuple-element(w), index=1
  b = f32[3,5] get-tuple-element(w2), index=1
  cw = (s32[], f32[3,5]{0,1}) copy(w2)
  ROOT r = (f32[3,5], f32[3,5], (s32[], f32[3,5]{0,1})) tuple(a, b, cw)
})";
  for (int threads : {1, 2}) CompareWithEvaluator(text, RandomArguments(text, 9), ErrorSpec{0, 0}, WithThreads(threads));
}

// Computations whose parameters have other layouts than the operands they
// get (the simplifier drops layout-changing reshapes and copies as logical
// no-ops): conditional branches, call targets and while conditions and
// bodies read their parameters in their own layouts.
TEST(CpuControlFlowLayoutTest, ParametersInOtherLayoutsThanTheirOperands) {
  const std::string text = R"(HloModule parameter_layouts
id {
  ROOT p = f32[2,3]{1,0} parameter(0)
}
twice {
  p = f32[2,3]{1,0} parameter(0)
  ROOT a = f32[2,3]{1,0} add(p, p)
}
cond {
  s = (s32[], f32[2,3]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2,3]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2,3]{1,0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  y = f32[2,3]{1,0} multiply(x, x)
  ROOT t = (s32[], f32[2,3]{0,1}) tuple(i1, y)
}
ENTRY e {
  v0 = f32[2,3]{0,1} parameter(0)
  i = s32[] constant(0)
  c = f32[2,3]{1,0} conditional(i, v0), branch_computations={id}
  k = f32[2,3]{1,0} call(v0), to_apply=twice
  z = s32[] constant(0)
  t = (s32[], f32[2,3]{0,1}) tuple(z, v0)
  w = (s32[], f32[2,3]{0,1}) while(t), condition=cond, body=body
  wx = f32[2,3]{0,1} get-tuple-element(w), index=1
  ROOT r = (f32[2,3]{1,0}, f32[2,3]{1,0}, f32[2,3]{0,1}) tuple(c, k, wx)
})";
  for (int threads : {1, 2}) CompareWithEvaluator(text, RandomArguments(text, 4), ErrorSpec{0, 0}, WithThreads(threads));
}

}  // namespace
}  // namespace xla
