// Which dots the matmul runtime takes (matmul_plan.h): the plan for each
// operand arrangement, and the dots themselves against the evaluator, with
// the IR showing the runtime call.
#include <optional>
#include <string>

#include "absl/strings/match.h"

#include "absl/strings/str_cat.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "backends/cpu/transforms/matmul_plan.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::OptimizedIr;
using cpu_test::RandomArguments;
using cpu_test::WithThreads;

// A module whose root is `dot` of parameters `lhs` and `rhs`.
std::string DotModule(const std::string& lhs, const std::string& rhs, const std::string& result,
                      const std::string& numbers) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", lhs, " parameter(0)\n  b = ", rhs,
                      " parameter(1)\n  ROOT d = ", result, " dot(a, b)", numbers.empty() ? "" : ", ", numbers,
                      "\n}\n");
}

std::optional<MatMulPlan> Plan(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return std::nullopt;
  return PlanRuntimeMatMul(*(*module)->entry_computation()->root_instruction());
}

struct Case {
  std::string name, text;
  // The expected plan, or none (loops).
  std::optional<MatMulPlan> plan;
};

std::vector<Case> Cases() {
  return {
      {"matrix", DotModule("f32[7,9]", "f32[9,5]", "f32[7,5]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
       MatMulPlan{1, 7, 5, 9, false, false}},
      {"both_transposed",
       DotModule("f32[9,7]", "f32[5,9]", "f32[7,5]", "lhs_contracting_dims={0}, rhs_contracting_dims={1}"),
       MatMulPlan{1, 7, 5, 9, true, true}},
      // [batch, seq, hidden] x [hidden, out]: the leading free dimensions are
      // one m of 6 * 10.
      {"sequence_times_matrix",
       DotModule("f32[6,10,33]", "f32[33,12]", "f32[6,10,12]", "lhs_contracting_dims={2}, rhs_contracting_dims={0}"),
       MatMulPlan{1, 60, 12, 33, false, false}},
      // Two contracting dimensions, in the same pair order on both sides.
      {"two_contracting",
       DotModule("f64[8,3,11]", "f64[3,11,6]", "f64[8,6]",
                 "lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}"),
       MatMulPlan{1, 8, 6, 33, false, false}},
      // Contracting dimension major, free ones after it in order: [k, m].
      {"contracting_major_lhs",
       DotModule("f32[4,5,13]{1,0,2}", "f32[13,3]", "f32[4,5,3]",
                 "lhs_contracting_dims={2}, rhs_contracting_dims={0}"),
       MatMulPlan{1, 20, 3, 13, true, false}},
      {"batched_with_two_free_dims",
       DotModule("f32[3,4,5,8]", "f32[3,8,7]", "f32[3,4,5,7]",
                 "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={3}, rhs_contracting_dims={1}"),
       MatMulPlan{3, 20, 7, 8, false, false}},
      {"matrix_vector", DotModule("f32[9,17]", "f32[17]", "f32[9]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
       MatMulPlan{1, 9, 1, 17, false, false}},
      {"outer_product", DotModule("f32[6]", "f32[4]", "f32[6,4]", ""), MatMulPlan{1, 6, 4, 1, false, true}},
      // Not the runtime's: free dimensions physically reversed; the
      // contracting dimension between two free ones; contracting pairs in
      // different physical orders; an integer dot.
      {"free_dims_reversed",
       DotModule("f32[4,5,13]{0,1,2}", "f32[13,3]", "f32[4,5,3]",
                 "lhs_contracting_dims={2}, rhs_contracting_dims={0}"),
       std::nullopt},
      {"interleaved",
       DotModule("f32[4,9,5]", "f32[9,3]", "f32[4,5,3]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
       std::nullopt},
      {"contracting_orders_differ",
       DotModule("f32[8,3,11]", "f32[11,3,6]", "f32[8,6]",
                 "lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}"),
       std::nullopt},
      {"integer", DotModule("s32[7,9]", "s32[9,5]", "s32[7,5]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
       std::nullopt},
      // Dot products (m = n = 1) are parallel loops with vectorized sums.
      {"dot_product", DotModule("f32[300]", "f32[300]", "f32[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
       std::nullopt},
      {"f64_dot_product", DotModule("f64[17]", "f64[17]", "f64[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
       std::nullopt},
      {"batched_dot_products",
       DotModule("f32[6,1,300]", "f32[6,300,1]", "f32[6,1,1]",
                 "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}"),
       std::nullopt},
  };
}

bool IsLoops(const Case& c) { return c.name == "integer" || absl::StrContains(c.name, "dot_product"); }

TEST(MatMulPlanTest, PlansPerOperandArrangement) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    std::optional<MatMulPlan> plan = Plan(c.text);
    ASSERT_EQ(plan.has_value(), c.plan.has_value());
    if (!plan.has_value()) continue;
    EXPECT_EQ(plan->batch, c.plan->batch);
    EXPECT_EQ(plan->m, c.plan->m);
    EXPECT_EQ(plan->n, c.plan->n);
    EXPECT_EQ(plan->k, c.plan->k);
    EXPECT_EQ(plan->transpose_lhs, c.plan->transpose_lhs);
    EXPECT_EQ(plan->transpose_rhs, c.plan->transpose_rhs);
  }
}

TEST(MatMulPlanTest, EveryArrangementMatchesTheEvaluator) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    for (int threads : {1, 2}) {
      CompareWithEvaluator(c.text, RandomArguments(c.text, 21, /*range=*/1.0), ErrorSpec{1e-5, 1e-5},
                           WithThreads(threads));
    }
    // Float dots the runtime cannot read in place are rearranged for it
    // first (dot_canonicalization.h): every float dot but a dot product is a
    // runtime call; the dot products' sums are vectorized.
    const std::string ir = OptimizedIr(c.text, 1);
    EXPECT_EQ(ir.find("@__xla_cpu_runtime_MatMul") != std::string::npos, !IsLoops(c)) << ir.substr(0, 2000);
    if (absl::StrContains(c.name, "dot_product") && c.text.find("f32") != std::string::npos) {
      EXPECT_TRUE(ir.find("fadd reassoc <8 x float>") != std::string::npos ||
                  ir.find("fadd reassoc <16 x float>") != std::string::npos)
          << ir;
    }
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
