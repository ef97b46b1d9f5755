#include "xla/transforms/while_loop_simplifier.h"

#include <string>

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
