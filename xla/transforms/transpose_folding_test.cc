#include "xla/transforms/transpose_folding.h"

#include "gtest/gtest.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::CountOpcode;
using testing::RootExpr;
using testing::RunPass;

TEST(TransposeFoldingTest, BothOperandsOfAMatrixProduct) {
  testing::PassRun run = RunPass<TransposeFolding>(R"(
HloModule m
ENTRY main {
  a = f32[3,2] parameter(0)
  b = f32[4,3] parameter(1)
  at = f32[2,3] transpose(a), dimensions={1,0}
  bt = f32[3,4] transpose(b), dimensions={1,0}
  ROOT d = f32[2,4] dot(at, bt), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "dot(parameter(0), parameter(1))");
  const HloInstruction* dot = run.module->entry_computation()->root_instruction();
  const DotDimensionNumbers& numbers = dot->attributes().dot_dimension_numbers();
  EXPECT_EQ(numbers.lhs_contracting_dimensions(0), 0);
  EXPECT_EQ(numbers.rhs_contracting_dimensions(0), 1);
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kTranspose), 0);
}

// Batch dimensions stay in place; a transpose with other users stays too.
TEST(TransposeFoldingTest, BatchedWithTheTransposeStillUsed) {
  testing::PassRun run = RunPass<TransposeFolding>(R"(
HloModule m
ENTRY main {
  a = f32[5,3,2] parameter(0)
  b = f32[5,3,4] parameter(1)
  at = f32[5,2,3] transpose(a), dimensions={0,2,1}
  d = f32[5,2,4] dot(at, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  n = f32[5,2,3] negate(at)
  ROOT t = (f32[5,2,4], f32[5,2,3]) tuple(d, n)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "tuple(dot(parameter(0), parameter(1)), negate(transpose{0,2,1}(parameter(0))))");
}

// Not folded: a batch dimension would move; free dimensions would swap
// (the result would be transposed).
TEST(TransposeFoldingTest, TransposesThatChangeTheResultStay) {
  for (const char* text : {R"(
HloModule m
ENTRY main {
  a = f32[3,5,2] parameter(0)
  b = f32[5,3,4] parameter(1)
  at = f32[5,3,2] transpose(a), dimensions={1,0,2}
  ROOT d = f32[5,2,4] dot(at, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
                           R"(
HloModule m
ENTRY main {
  a = f32[3,4,2] parameter(0)
  b = f32[2,6] parameter(1)
  at = f32[4,3,2] transpose(a), dimensions={1,0,2}
  ROOT d = f32[4,3,6] dot(at, b), lhs_contracting_dims={2}, rhs_contracting_dims={0}
})"}) {
    testing::PassRun run = RunPass<TransposeFolding>(text);
    ASSERT_NE(run.module, nullptr);
    EXPECT_FALSE(run.changed) << text;
    EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kTranspose), 1);
  }
}

}  // namespace
}  // namespace xla
