// DotCanonicalization: real float dots the matmul runtime cannot take as
// they are get f32/f64 row-major [batch, free, contracting] operands (and a
// convert or copy into the result type and layout asked for); after the
// pass every real float dot is a runtime matmul, with the evaluator's
// results.
#include <string>

#include "backends/cpu/transforms/cpu_pipeline.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "backends/cpu/transforms/dot_canonicalization.h"
#include "backends/cpu/transforms/matmul_plan.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu {
namespace {

struct Case {
  std::string name, text;
  bool rewritten;
  ErrorSpec tolerance{1e-5, 1e-5};
};

std::vector<Case> Cases() {
  return {
      // Attention scores 'bqhd,bkhd->bhqk': batch dimensions b and h, the
      // latter not leading.
      {"attention_scores", R"(HloModule m
ENTRY e {
  q = f32[2,16,3,8] parameter(0)
  k = f32[2,20,3,8] parameter(1)
  ROOT s = f32[2,3,16,20] dot(q, k), lhs_batch_dims={0,2}, rhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_contracting_dims={3}
})",
       true},
      // The contracting dimension between two free ones.
      {"interleaved", R"(HloModule m
ENTRY e {
  a = f64[4,9,5] parameter(0)
  b = f64[9,3] parameter(1)
  ROOT d = f64[4,5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
       true},
      // A column-major result.
      {"column_major_result", R"(HloModule m
ENTRY e {
  a = f32[7,9] parameter(0)
  b = f32[9,5] parameter(1)
  ROOT d = f32[7,5]{0,1} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
       true},
      // Contracting pairs in different physical orders.
      {"contracting_orders_differ", R"(HloModule m
ENTRY e {
  a = f32[8,3,11] parameter(0)
  b = f32[11,3,6] parameter(1)
  ROOT d = f32[8,6] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}
})",
       true},
      // 16-bit floats: products accumulated in f32, rounded once, as the
      // loops do (only the summation order differs: a rounding may flip).
      {"bf16", R"(HloModule m
ENTRY e {
  a = bf16[12,40] parameter(0)
  b = bf16[40,9] parameter(1)
  ROOT d = bf16[12,9] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
       true, ErrorSpec{2e-2, 1e-2}},
      {"f16_operands_f32_result", R"(HloModule m
ENTRY e {
  a = f16[12,40] parameter(0)
  b = f16[9,40] parameter(1)
  ROOT d = f32[12,9] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
       true, ErrorSpec{1e-5, 1e-5}},
      // Contracting nothing (zeros: the loops, untouched).
      {"empty_contraction", R"(HloModule m
ENTRY e {
  a = f16[4,0] parameter(0)
  b = f16[0,5] parameter(1)
  ROOT d = f32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
       false},
      // Already the runtime's; an integer dot (loops).
      {"plain", R"(HloModule m
ENTRY e {
  a = f32[7,9] parameter(0)
  b = f32[9,5] parameter(1)
  ROOT d = f32[7,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
       false},
      {"integer", R"(HloModule m
ENTRY e {
  a = s32[4,9,5] parameter(0)
  b = s32[9,3] parameter(1)
  ROOT d = s32[4,5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
       false},
  };
}

TEST(DotCanonicalizationTest, FloatDotsBecomeRuntimeMatMuls) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    auto module = ParseHloModule(c.text);
    ASSERT_TRUE(module.ok()) << module.status();
    DotCanonicalization pass;
    auto changed = pass.Run(module->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_EQ(*changed, c.rewritten) << (*module)->ToString();
    if (!c.rewritten) {  // untouched: nothing added either
      EXPECT_EQ((*module)->ToString(), (*ParseHloModule(c.text))->ToString());
    }
    // Every float dot left is one the runtime reads in place.
    for (const HloInstruction* i : (*module)->entry_computation()->MakeInstructionPostOrder()) {
      if (i->opcode() != HloOpcode::kDot) continue;
      const bool is_float = i->shape().element_type() != S32 && !ShapeUtil::HasZeroElements(i->operand(0)->shape());
      EXPECT_EQ(PlanRuntimeMatMul(*i).has_value(), is_float) << i->ToString();
    }
    // The whole pipeline, against the evaluator, one and two threads.
    for (int threads : {1, 2}) {
      cpu_test::CompareWithEvaluator(c.text, cpu_test::RandomArguments(c.text, 31, /*range=*/1.0), c.tolerance,
                                     cpu_test::WithThreads(threads));
    }
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
