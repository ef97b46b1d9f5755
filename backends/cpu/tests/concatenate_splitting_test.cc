// ConcatenateSplitting: a concatenate of more than kMaxOperands operands
// becomes a tree of concatenates of at most kMaxOperands operands each, in
// order; the CPU backend's result is the evaluator's, bit for bit.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "backends/cpu/transforms/concatenate_splitting.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::RandomArguments;

// concatenate along dimension 1 of `n` operands f32[2,k] (k = 1, 2, 3, ...
// cycling) taken from three parameters and their negations.
std::string WideConcatenateHlo(int n) {
  std::vector<std::string> operands;
  int64_t width = 0;
  for (int i = 0; i < n; ++i) {
    operands.push_back(absl::StrCat(i % 2 == 0 ? "p" : "n", i % 3));
    width += i % 3 + 1;
  }
  return absl::StrCat(R"(HloModule wide
ENTRY e {
  p0 = f32[2,1] parameter(0)
  p1 = f32[2,2] parameter(1)
  p2 = f32[2,3] parameter(2)
  n0 = f32[2,1] negate(p0)
  n1 = f32[2,2] negate(p1)
  n2 = f32[2,3] negate(p2)
  ROOT c = f32[2,)",
                      width, "] concatenate(", absl::StrJoin(operands, ", "), R"(), dimensions={1}
}
)");
}

TEST(ConcatenateSplittingTest, WideConcatenatesBecomeTrees) {
  constexpr int64_t kMax = ConcatenateSplitting::kMaxOperands;
  auto module = ParseHloModule(WideConcatenateHlo(1000));
  ASSERT_TRUE(module.ok()) << module.status();
  ConcatenateSplitting pass;
  auto changed = pass.Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  // 1000 operands: 32 concatenates of 32 (the last of 8), then one of 32.
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kConcatenate);
  EXPECT_EQ(root->operand_count(), 32);
  int64_t leaves = 0;
  for (const HloInstruction* inner : root->operands()) {
    ASSERT_EQ(inner->opcode(), HloOpcode::kConcatenate);
    EXPECT_LE(inner->operand_count(), kMax);
    leaves += inner->operand_count();
  }
  EXPECT_EQ(leaves, 1000);
  // Small ones stay.
  auto small = ParseHloModule(WideConcatenateHlo(kMax));
  ASSERT_TRUE(small.ok());
  auto unchanged = pass.Run(small->get());
  ASSERT_TRUE(unchanged.ok());
  EXPECT_FALSE(*unchanged);
}

TEST(ConcatenateSplittingTest, MatchesTheEvaluator) {
  for (int n : {33, 1025, 5000}) {
    SCOPED_TRACE(n);
    const std::string text = WideConcatenateHlo(n);
    CompareWithEvaluator(text, RandomArguments(text, n), ErrorSpec{0, 0});
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
