#include "xla/transforms/while_loop_simplifier.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::CountOpcode;
using testing::RootExpr;
using testing::RunPass;

// A counted loop: i from START while `i DIR BOUND` (or the mirrored form),
// x = x * 2 + 1 each iteration.
std::string CountedLoop(const std::string& start, const std::string& compare, const std::string& bound,
                        const std::string& type = "s32") {
  std::string text = R"(
HloModule m
cond {
  s = (T[], f32[3]) parameter(0)
  i = T[] get-tuple-element(s), index=0
  n = T[] constant(BOUND)
  ROOT c = pred[] COMPARE
}
body {
  s = (T[], f32[3]) parameter(0)
  i = T[] get-tuple-element(s), index=0
  x = f32[3] get-tuple-element(s), index=1
  two = f32[] constant(2)
  b2 = f32[3] broadcast(two), dimensions={}
  x2 = f32[3] multiply(x, b2)
  one = f32[] constant(1)
  b1 = f32[3] broadcast(one), dimensions={}
  x3 = f32[3] add(x2, b1)
  step = T[] constant(1)
  i1 = T[] add(step, i)
  ROOT r = (T[], f32[3]) tuple(i1, x3)
}
ENTRY main {
  x = f32[3] parameter(0)
  start = T[] constant(START)
  init = (T[], f32[3]) tuple(start, x)
  ROOT loop = (T[], f32[3]) while(init), condition=cond, body=body
}
)";
  return absl::StrReplaceAll(text, {{"T[", type + "["}, {"START", start}, {"BOUND", bound}, {"COMPARE", compare}});
}

std::optional<int64_t> TripCount(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) {
    ADD_FAILURE() << module.status();
    return std::nullopt;
  }
  return ComputeWhileTripCount(*(*module)->entry_computation()->root_instruction());
}

TEST(WhileLoopSimplifierTest, TripCounts) {
  EXPECT_EQ(TripCount(CountedLoop("0", "compare(i, n), direction=LT", "10")), 10);
  EXPECT_EQ(TripCount(CountedLoop("3", "compare(i, n), direction=LT", "10")), 7);
  EXPECT_EQ(TripCount(CountedLoop("3", "compare(i, n), direction=LE", "10")), 8);
  EXPECT_EQ(TripCount(CountedLoop("12", "compare(i, n), direction=LT", "10")), 0);
  EXPECT_EQ(TripCount(CountedLoop("-5", "compare(n, i), direction=GT", "-3")), 2);
  EXPECT_EQ(TripCount(CountedLoop("-5", "compare(n, i), direction=GE", "-3")), 3);
  EXPECT_EQ(TripCount(CountedLoop("0", "compare(i, n), direction=LT", "100000", "s64")), 100000);
  // Not the pattern: NE, wrong side, i <= INT_MAX (never false), unsigned.
  EXPECT_EQ(TripCount(CountedLoop("0", "compare(i, n), direction=NE", "10")), std::nullopt);
  EXPECT_EQ(TripCount(CountedLoop("0", "compare(i, n), direction=GT", "10")), std::nullopt);
  EXPECT_EQ(TripCount(CountedLoop("0", "compare(i, n), direction=LE", "2147483647")), std::nullopt);
  EXPECT_EQ(TripCount(CountedLoop("0", "compare(i, n), direction=LT", "10", "u32")), std::nullopt);
}

TEST(WhileLoopSimplifierTest, ZeroTripLoopBecomesItsInitialValue) {
  testing::PassRun run = RunPass<WhileLoopSimplifier>(CountedLoop("10", "compare(i, n), direction=LT", "10"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "tuple(constant(10), parameter(0))");
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kWhile), 0);
}

TEST(WhileLoopSimplifierTest, OneTripLoopIsInlined) {
  testing::PassRun run = RunPass<WhileLoopSimplifier>(CountedLoop("9", "compare(i, n), direction=LT", "10"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kWhile), 0);
  EXPECT_EQ(RootExpr(*run.module),
            "tuple(add(constant(1), get-tuple-element[0](tuple(constant(9), parameter(0)))), "
            "add(multiply(get-tuple-element[1](tuple(constant(9), parameter(0))), broadcast{}(constant(2))), "
            "broadcast{}(constant(1))))");
}

// A nest of one-trip loops (each body runs the next loop) unrolls in one
// run of the pass, with one clone of each body: the pass inlines callers
// before callees, so no level is cloned with the levels below it already
// unrolled (which grew the module quadratically).
TEST(WhileLoopSimplifierTest, ANestOfOneTripLoopsUnrollsInOnePassLinearly) {
  constexpr int kDepth = 60;
  std::string text = "HloModule nest\n";
  for (int k = 0; k < kDepth; ++k) {
    absl::StrAppend(&text, "cond", k, " {\n  p = (s32[], f32[4]) parameter(0)\n",
                    "  i = s32[] get-tuple-element(p), index=0\n  one = s32[] constant(1)\n",
                    "  ROOT c = pred[] compare(i, one), direction=LT\n}\n");
    absl::StrAppend(&text, "body", k, " {\n  p = (s32[], f32[4]) parameter(0)\n",
                    "  i = s32[] get-tuple-element(p), index=0\n  v = f32[4] get-tuple-element(p), index=1\n",
                    "  zero = s32[] constant(0)\n  t0 = (s32[], f32[4]) tuple(zero, v)\n");
    if (k > 0) {
      absl::StrAppend(&text, "  w = (s32[], f32[4]) while(t0), condition=cond", k - 1, ", body=body", k - 1,
                      "\n  inner = f32[4] get-tuple-element(w), index=1\n");
    } else {
      absl::StrAppend(&text, "  inner = f32[4] negate(v)\n");
    }
    absl::StrAppend(&text, "  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n  n = f32[4] negate(inner)\n",
                    "  ROOT r = (s32[], f32[4]) tuple(i1, n)\n}\n");
  }
  absl::StrAppend(&text, "ENTRY e {\n  x = f32[4] parameter(0)\n  zero = s32[] constant(0)\n",
                  "  t = (s32[], f32[4]) tuple(zero, x)\n  w = (s32[], f32[4]) while(t), condition=cond", kDepth - 1,
                  ", body=body", kDepth - 1, "\n  ROOT r = f32[4] get-tuple-element(w), index=1\n}\n");
  testing::PassRun run = RunPass<WhileLoopSimplifier>(text);
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kWhile), 0);
  // kDepth + 1 negates: the innermost one and one per level.
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kNegate), kDepth + 1);
  // The dead bodies keep their size (about 11 instructions each, left to
  // DCE); unrolling them too would add about kDepth^2 / 2 clones.
  int64_t instructions = 0;
  for (const HloComputation* c : run.module->computations()) instructions += c->instruction_count();
  EXPECT_LT(instructions, 30 * kDepth);
}

TEST(WhileLoopSimplifierTest, LongerLoopsStay) {
  testing::PassRun run = RunPass<WhileLoopSimplifier>(CountedLoop("0", "compare(i, n), direction=LT", "4"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(WhileLoopSimplifierTest, ConstantTupleInitialValue) {
  testing::PassRun run = RunPass<WhileLoopSimplifier>(R"(
HloModule m
cond {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(1)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[] get-tuple-element(s), index=1
  e = f32[] exponential(x)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[]) tuple(i1, e)
}
ENTRY main {
  init = (s32[], f32[]) constant((0, 0.5))
  w = (s32[], f32[]) while(init), condition=cond, body=body
  ROOT x = f32[] get-tuple-element(w), index=1
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "get-tuple-element[1](tuple(add(get-tuple-element[0](constant(...)), "
                                   "constant(1)), exponential(get-tuple-element[1](constant(...)))))");
}

TEST(WhileLoopSimplifierTest, InductionVariableMustStepByOne) {
  std::string text = CountedLoop("8", "compare(i, n), direction=LT", "10");
  text = absl::StrReplaceAll(text, {{"step = s32[] constant(1)", "step = s32[] constant(2)"}});
  EXPECT_EQ(TripCount(text), std::nullopt);
  testing::PassRun run = RunPass<WhileLoopSimplifier>(text);
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

}  // namespace
}  // namespace xla

namespace xla {
namespace {

TEST(WhileLoopSimplifierTest, DropsStateElementsNothingReads) {
  testing::PassRun run = RunPass<WhileLoopSimplifier>(R"(
HloModule m
cond {
  s = (s32[], f32[3], f32[3], s32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3], f32[3], s32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  w = f32[3] get-tuple-element(s), index=1
  acc = f32[3] get-tuple-element(s), index=2
  unused = s32[3] get-tuple-element(s), index=3
  acc1 = f32[3] add(acc, acc)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[3], f32[3], s32[3]) tuple(i1, w, acc1, unused)
}
ENTRY main {
  p0 = f32[3] parameter(0)
  p1 = f32[3] parameter(1)
  p2 = s32[3] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[3], f32[3], s32[3]) tuple(zero, p0, p1, p2)
  loop = (s32[], f32[3], f32[3], s32[3]) while(init), condition=cond, body=body
  ROOT out = f32[3] get-tuple-element(loop), index=2
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "get-tuple-element[1](while(tuple(constant(0), parameter(1))))");
  EXPECT_EQ(testing::Expr(run.module->GetComputationByName("body")->root_instruction()),
            "tuple(add(get-tuple-element[0](parameter(0)), constant(1)), "
            "add(get-tuple-element[1](parameter(0)), get-tuple-element[1](parameter(0))))");
  WhileLoopSimplifier again;
  EXPECT_FALSE(again.Run(run.module.get()).value());
}

TEST(WhileLoopSimplifierTest, KeepsElementsReadAnywhere) {
  // w feeds acc, the condition reads n, the result reads k: nothing to drop.
  testing::PassRun run = RunPass<WhileLoopSimplifier>(R"(
HloModule m
cond {
  s = (s32[], f32[3], f32[3], s32[], s32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=3
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3], f32[3], s32[], s32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  w = f32[3] get-tuple-element(s), index=1
  acc = f32[3] get-tuple-element(s), index=2
  n = s32[] get-tuple-element(s), index=3
  k = s32[3] get-tuple-element(s), index=4
  acc1 = f32[3] add(acc, w)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[3], f32[3], s32[], s32[3]) tuple(i1, w, acc1, n, k)
}
ENTRY main {
  p0 = f32[3] parameter(0)
  p1 = f32[3] parameter(1)
  p2 = s32[3] parameter(2)
  zero = s32[] constant(0)
  three = s32[] constant(3)
  init = (s32[], f32[3], f32[3], s32[], s32[3]) tuple(zero, p0, p1, three, p2)
  loop = (s32[], f32[3], f32[3], s32[], s32[3]) while(init), condition=cond, body=body
  a = f32[3] get-tuple-element(loop), index=2
  k = s32[3] get-tuple-element(loop), index=4
  ROOT t = (f32[3], s32[3]) tuple(a, k)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(WhileLoopSimplifierTest, SwappedElementsAreRead) {
  // Element 1 becomes element 2 and back: each is read.
  testing::PassRun run = RunPass<WhileLoopSimplifier>(R"(
HloModule m
cond {
  s = (s32[], f32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = f32[] get-tuple-element(s), index=1
  b = f32[] get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[], f32[]) tuple(i1, b, a)
}
ENTRY main {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[], f32[]) tuple(zero, p0, p1)
  loop = (s32[], f32[], f32[]) while(init), condition=cond, body=body
  ROOT out = f32[] get-tuple-element(loop), index=1
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

}  // namespace
}  // namespace xla
