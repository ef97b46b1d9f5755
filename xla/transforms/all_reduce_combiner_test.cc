#include "xla/transforms/all_reduce_combiner.h"

#include "gtest/gtest.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::CountOpcode;
using testing::RunPass;

// Two reducers, as builders make them: one computation per all-reduce.
constexpr char kReducers[] = R"(
HloModule m
sum0 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
sum1 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(b, a)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
isum {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
)";

std::string Module(const std::string& entry) { return std::string(kReducers) + entry; }

const HloInstruction* OnlyAllReduce(const HloModule& module) {
  for (const HloInstruction* i : module.entry_computation()->instructions()) {
    if (i->opcode() == HloOpcode::kAllReduce) return i;
  }
  return nullptr;
}

TEST(AllReduceCombinerTest, IndependentGradientsBecomeOneAllReduce) {
  testing::PassRun run = RunPass<AllReduceCombiner>(Module(R"(
ENTRY main {
  w = f32[4,3] parameter(0)
  b = f32[3] parameter(1)
  x = f32[2] parameter(2)
  gw = f32[4,3] all-reduce(w), replica_groups={}, to_apply=sum0
  nb = f32[3] negate(b)
  gb = f32[3] all-reduce(nb), replica_groups={}, to_apply=sum1
  gx = f32[2] all-reduce(x), replica_groups={}, to_apply=sum0
  ROOT t = (f32[4,3], f32[3], f32[2]) tuple(gw, gb, gx)
})"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kAllReduce), 1);
  const HloInstruction* combined = OnlyAllReduce(*run.module);
  ASSERT_NE(combined, nullptr);
  EXPECT_EQ(combined->operand_count(), 3);
  EXPECT_EQ(combined->shape().ToString(), "(f32[4,3], f32[3], f32[2])");
}

TEST(AllReduceCombinerTest, AnAllReduceOfAnotherOnesResultStaysApart) {
  testing::PassRun run = RunPass<AllReduceCombiner>(Module(R"(
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  a = f32[2] all-reduce(x), replica_groups={}, to_apply=sum0
  e = f32[2] exponential(a)
  s = f32[2] add(e, y)
  b = f32[2] all-reduce(s), replica_groups={}, to_apply=sum0
  ROOT t = (f32[2], f32[2]) tuple(a, b)
})"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kAllReduce), 2);
}

TEST(AllReduceCombinerTest, GroupsThatWouldWaitForEachOtherStayApart) {
  // c reads a's result and b reads d's: combining {a, b} and {c, d} would
  // make each combined all-reduce wait for the other. {c, d} combine; b,
  // which depends on that group (and through it on a), does not join a.
  testing::PassRun run = RunPass<AllReduceCombiner>(Module(R"(
ENTRY main {
  x = f32[2] parameter(0)
  i = s32[2] parameter(1)
  a = f32[2] all-reduce(x), replica_groups={}, to_apply=sum0
  ca = s32[2] convert(a)
  c = s32[2] all-reduce(ca), replica_groups={}, to_apply=isum
  d = s32[2] all-reduce(i), replica_groups={}, to_apply=isum
  cd = f32[2] convert(d)
  b = f32[2] all-reduce(cd), replica_groups={}, to_apply=sum0
  ROOT t = (f32[2], s32[2], s32[2], f32[2]) tuple(a, c, d, b)
})"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kAllReduce), 3);
}

TEST(AllReduceCombinerTest, OnlyAllReducesThatAgreeAreCombined) {
  testing::PassRun run = RunPass<AllReduceCombiner>(Module(R"(
ENTRY main {
  x = f32[2] parameter(0)
  i = s32[2] parameter(1)
  sum = f32[2] all-reduce(x), replica_groups={}, to_apply=sum0
  maximum = f32[2] all-reduce(x), replica_groups={}, to_apply=max
  int = s32[2] all-reduce(i), replica_groups={}, to_apply=isum
  grouped = f32[2] all-reduce(x), replica_groups={{0}}, to_apply=sum1
  ROOT t = (f32[2], f32[2], s32[2], f32[2]) tuple(sum, maximum, int, grouped)
})"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kAllReduce), 4);
}

TEST(AllReduceCombinerTest, NothingMovesAcrossAnotherSideEffect) {
  // An outfeed of the first result between them: combined, the outfeed
  // would wait for the second, whose input the host may send only after
  // reading the outfeed. (Run without the evaluator, which has no feeds.)
  std::unique_ptr<HloModule> module = testing::ParseAndVerify(Module(R"(
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  a = f32[2] all-reduce(x), replica_groups={}, to_apply=sum0
  token = token[] after-all()
  o = token[] outfeed(a, token)
  b = f32[2] all-reduce(y), replica_groups={}, to_apply=sum0
  ROOT t = (f32[2], f32[2]) tuple(a, b)
})"));
  ASSERT_NE(module, nullptr);
  AllReduceCombiner pass;
  absl::StatusOr<bool> changed = pass.Run(module.get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  // Another collective is a side effect too.
  testing::PassRun run = RunPass<AllReduceCombiner>(Module(R"(
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  a = f32[2] all-reduce(x), replica_groups={}, to_apply=sum0
  g = f32[2] all-gather(y), dimensions={0}, replica_groups={}
  b = f32[2] all-reduce(y), replica_groups={}, to_apply=sum0
  ROOT t = (f32[2], f32[2], f32[2]) tuple(a, g, b)
})"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(AllReduceCombinerTest, TheByteBoundStartsAnotherGroup) {
  AllReduceCombiner::Options options;
  options.max_bytes = 16;  // two f32[2] results
  AllReduceCombiner pass(options);
  testing::PassRun run = testing::RunPass(pass, Module(R"(
ENTRY main {
  x = f32[2] parameter(0)
  a = f32[2] all-reduce(x), replica_groups={}, to_apply=sum0
  b = f32[2] all-reduce(x), replica_groups={}, to_apply=sum0
  c = f32[2] all-reduce(x), replica_groups={}, to_apply=sum0
  d = f32[2] all-reduce(x), replica_groups={}, to_apply=sum0
  e = f32[2] all-reduce(x), replica_groups={}, to_apply=sum0
  ROOT t = (f32[2], f32[2], f32[2], f32[2], f32[2]) tuple(a, b, c, d, e)
})"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kAllReduce), 3);  // {a, b}, {c, d}, {e}
}

TEST(AllReduceCombinerTest, VariadicAllReducesAndARootMember) {
  testing::PassRun run = RunPass<AllReduceCombiner>(Module(R"(
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[3] parameter(1)
  pair = (f32[2], f32[3]) all-reduce(x, y), replica_groups={}, to_apply=sum0
  first = f32[2] get-tuple-element(pair), index=0
  n = f32[2] negate(first)
  ROOT last = f32[3] all-reduce(y), replica_groups={}, to_apply=sum1
})"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  const HloInstruction* combined = OnlyAllReduce(*run.module);
  ASSERT_NE(combined, nullptr);
  EXPECT_EQ(combined->operand_count(), 3);
  EXPECT_EQ(run.module->entry_computation()->root_instruction()->opcode(), HloOpcode::kGetTupleElement);
}

}  // namespace
}  // namespace xla
