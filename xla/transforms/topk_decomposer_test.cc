#include "xla/transforms/topk_decomposer.h"

#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::CountOpcode;
using testing::RootExpr;
using testing::RunPass;

TEST(TopkDecomposerTest, LargestFloatsBecomeAStableTotalOrderSort) {
  // RunPass also evaluates before and after (NaNs, infinities, -0 among the
  // inputs) and expects the same bits.
  testing::PassRun run = RunPass<TopkDecomposer>(R"(
HloModule m
ENTRY main {
  x = f32[3,7] parameter(0)
  ROOT t = (f32[3,2], s32[3,2]) topk(x), k=2
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module),
            "tuple(slice[0:3:1,0:2:1](get-tuple-element[0](sort(parameter(0), iota()))), "
            "slice[0:3:1,0:2:1](get-tuple-element[1](sort(parameter(0), iota()))))");
  const HloInstruction* sort = run.module->entry_computation()->root_instruction()->operand(0)->operand(0)->operand(0);
  ASSERT_EQ(sort->opcode(), HloOpcode::kSort);
  EXPECT_TRUE(sort->attributes().is_stable());
  EXPECT_EQ(sort->dimensions(0), 1);
  EXPECT_EQ(sort->operand(1)->shape().element_type(), S32);
  EXPECT_EQ(sort->operand(1)->dimensions(0), 1);  // iota along the last dimension
  const HloInstruction* compare = sort->to_apply()->root_instruction();
  EXPECT_EQ(compare->ToString(), "%compare = pred[] compare(%p0, %p1), direction=GT, type=TOTALORDER");
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kTopK), 0);
}

TEST(TopkDecomposerTest, SmallestIntegersSeveralTopksAndTextRoundTrip) {
  testing::PassRun run = RunPass<TopkDecomposer>(R"(
HloModule m
ENTRY main {
  x = s32[9] parameter(0)
  a = (s32[3], s32[3]) topk(x), k=3, largest=false
  b = (s32[9], s32[9]) topk(x), k=9
  i = s32[3] get-tuple-element(a), index=1
  j = s32[9] get-tuple-element(b), index=1
  ROOT t = (s32[3], s32[9]) tuple(i, j)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kSort), 2);
  EXPECT_EQ(run.module->computations().size(), 3u);  // two comparators, named apart
  for (const HloComputation* c : run.module->computations()) {
    if (c == run.module->entry_computation()) continue;
    const std::string compare = c->root_instruction()->ToString();
    EXPECT_EQ(compare.find("type="), std::string::npos) << compare;  // integers: their own order
  }
  // The printed module (variadic sorts with comparators) parses and verifies.
  EXPECT_NE(testing::ParseAndVerify(run.module->ToString()), nullptr) << run.module->ToString();
}

}  // namespace
}  // namespace xla
