// Side-effecting instructions (collectives, I/O, custom calls) survive the passes: never
// removed when unused, merged with an identical one, or folded; and a
// computation's post order keeps them in definition order.
#include <algorithm>
#include <memory>

#include "gtest/gtest.h"
#include "xla/custom_call/custom_call_registry.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/transforms/common_subexpression_elimination.h"
#include "xla/transforms/constant_folding.h"
#include "xla/transforms/dead_code_elimination.h"
#include "xla/transforms/hlo_pass_pipeline.h"
#include "xla/transforms/pass_registry.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::CountOpcode;
using testing::RunPass;

constexpr char kTwoAllReduces[] = R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  c = f32[2] constant({1, 2})
  p = f32[2] parameter(0)
  unused = f32[2] all-reduce(p), replica_groups={}, to_apply=sum
  x = f32[2] all-reduce(c), replica_groups={}, to_apply=sum
  y = f32[2] all-reduce(c), replica_groups={}, to_apply=sum
  ROOT r = f32[2] add(x, y)
})";

TEST(SideEffectsTest, DeadCodeEliminationKeepsUnusedCollectives) {
  testing::PassRun run = RunPass<DeadCodeElimination>(kTwoAllReduces);
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kAllReduce), 3);
}

TEST(SideEffectsTest, CseDoesNotMergeIdenticalCollectives) {
  testing::PassRun run = RunPass<CommonSubexpressionElimination>(kTwoAllReduces);
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kAllReduce), 3);
}

TEST(SideEffectsTest, ConstantFoldingLeavesCollectivesOfConstants) {
  testing::PassRun run = RunPass<ConstantFolding>(kTwoAllReduces);
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kAllReduce), 3);
}

TEST(SideEffectsTest, StandardPipelineKeepsEveryCollective) {
  HloPassPipeline pipeline("standard");
  AddStandardHloPasses(&pipeline);
  testing::PassRun run = RunPass(pipeline, kTwoAllReduces);
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kAllReduce), 3);
}

TEST(SideEffectsTest, DeadCodeEliminationKeepsAnOutfeedNoOneUses) {
  std::unique_ptr<HloModule> module = testing::ParseAndVerify(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  t = token[] after-all()
  out = token[] outfeed(p, t)
  unused_token = token[] after-all()
  ROOT r = f32[2] negate(p)
})");
  ASSERT_NE(module, nullptr);
  DeadCodeElimination dce;
  ASSERT_TRUE(dce.Run(module.get()).ok());
  EXPECT_EQ(CountOpcode(*module->entry_computation(), HloOpcode::kOutfeed), 1);
  // The outfeed's token stays; the token nothing uses goes.
  EXPECT_EQ(CountOpcode(*module->entry_computation(), HloOpcode::kAfterAll), 1);
}

// Two infeeds on one token read the queue in the order the program states,
// whatever order the root lists them in.
TEST(SideEffectsTest, PostOrderKeepsSideEffectsInDefinitionOrder) {
  std::unique_ptr<HloModule> module = testing::ParseAndVerify(R"(
HloModule m
ENTRY main {
  t = token[] after-all()
  first = (s32[2], token[]) infeed(t)
  second = (s32[2], token[]) infeed(t)
  b = s32[2] get-tuple-element(second), index=0
  a = s32[2] get-tuple-element(first), index=0
  ROOT r = (s32[2], s32[2]) tuple(b, a)
})");
  ASSERT_NE(module, nullptr);
  std::vector<HloInstruction*> order = module->entry_computation()->MakeInstructionPostOrder();
  auto position = [&](const std::string& name) {
    return std::find_if(order.begin(), order.end(), [&](const HloInstruction* i) { return i->name() == name; }) -
           order.begin();
  };
  EXPECT_LT(position("first"), position("second"));
  EXPECT_LT(position("second"), position("r"));
}

// Send/recv and the new collectives: an unused send and its send-done, a
// second identical send, and an all-to-all / reduce-scatter no one uses all
// survive the standard pipeline, and the two sends stay in program order.
TEST(SideEffectsTest, StandardPipelineKeepsSendRecvAndTheirOrder) {
  std::unique_ptr<HloModule> module = testing::ParseAndVerify(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[2] parameter(0)
  t = token[] after-all()
  first = (f32[2], u32[], token[]) send(p, t), channel_id=1
  first_done = token[] send-done(first), channel_id=1
  second = (f32[2], u32[], token[]) send(p, t), channel_id=1
  second_done = token[] send-done(second), channel_id=1
  r = (f32[2], u32[], token[]) recv(t), channel_id=2
  r_done = (f32[2], token[]) recv-done(r), channel_id=2
  a2a = f32[2] all-to-all(p), replica_groups={}, dimensions={0}
  rs = f32[1] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=sum
  ROOT n = f32[2] negate(p)
})");
  ASSERT_NE(module, nullptr);
  HloPassPipeline pipeline("standard");
  AddStandardHloPasses(&pipeline);
  ASSERT_TRUE(pipeline.Run(module.get()).ok());
  const HloComputation& entry = *module->entry_computation();
  EXPECT_EQ(CountOpcode(entry, HloOpcode::kSend), 2);
  EXPECT_EQ(CountOpcode(entry, HloOpcode::kSendDone), 2);
  EXPECT_EQ(CountOpcode(entry, HloOpcode::kRecv), 1);
  EXPECT_EQ(CountOpcode(entry, HloOpcode::kRecvDone), 1);
  EXPECT_EQ(CountOpcode(entry, HloOpcode::kAllToAll), 1);
  EXPECT_EQ(CountOpcode(entry, HloOpcode::kReduceScatter), 1);
  std::vector<HloInstruction*> order = module->entry_computation()->MakeInstructionPostOrder();
  auto position = [&](const std::string& name) {
    return std::find_if(order.begin(), order.end(), [&](const HloInstruction* i) { return i->name() == name; }) -
           order.begin();
  };
  EXPECT_LT(position("first"), position("second"));
  EXPECT_LT(position("first_done"), position("second_done"));
}

}  // namespace
}  // namespace xla

namespace xla {
namespace {

// out = 2 * in over f32 (the module's "f" and "log" targets).
absl::Status Twice(absl::Span<const CustomCallOperand> operands, absl::Span<const CustomCallResult> results,
                   const CustomCallAttributes&) {
  ASSIGN_OR_RETURN(auto in, operands[0].typed<float>());
  ASSIGN_OR_RETURN(auto out, results[0].typed<float>());
  for (size_t i = 0; i < in.size(); ++i) out[i] = 2 * in[i];
  return absl::OkStatus();
}
XLA_REGISTER_CUSTOM_CALL("f", Twice);
XLA_REGISTER_CUSTOM_CALL("log", Twice);

// Custom calls are kept whether or not they declare a side effect: a host
// function may do I/O the passes cannot see.
TEST(SideEffectsTest, StandardPipelineKeepsEveryCustomCall) {
  constexpr char kCustomCalls[] = R"(
HloModule m
ENTRY main {
  c = f32[2] constant({1, 2})
  p = f32[2] parameter(0)
  unused = f32[2] custom-call(p), custom_call_target="log"
  x = f32[2] custom-call(c), custom_call_target="f"
  y = f32[2] custom-call(c), custom_call_target="f"
  z = f32[2] custom-call(c), custom_call_target="f", custom_call_has_side_effect=true
  ROOT r = f32[2] add(x, y)
})";
  HloPassPipeline pipeline("standard");
  AddStandardHloPasses(&pipeline);
  testing::PassRun run = RunPass(pipeline, kCustomCalls);
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module->entry_computation(), HloOpcode::kCustomCall), 4);
}

}  // namespace
}  // namespace xla
