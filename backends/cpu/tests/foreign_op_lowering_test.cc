// ForeignOpLowering: HLO from other compilers' optimized dumps (fusions,
// opt-barriers, bitcasts between layouts and element types) compiles on the
// CPU backend and computes what the evaluator does.
#include <string>

#include "backends/cpu/tests/cpu_test_util.h"
#include "backends/cpu/transforms/foreign_op_lowering.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"

namespace xla {
namespace {

constexpr char kForeignHlo[] = R"(
fused_computation {
  p0 = f32[4,6] parameter(0)
  p1 = f32[4,6] parameter(1)
  ROOT m = f32[4,6] multiply(p0, p1)
}
ENTRY main {
  a = f32[4,6] parameter(0)
  b = f32[4,6]{0,1} parameter(1)
  bc = f32[4,6] copy(b)
  f = f32[4,6] fusion(a, bc), kind=kLoop, calls=fused_computation
  t = (f32[4,6]) tuple(f)
  o = (f32[4,6]) opt-barrier(t)
  g = f32[4,6] get-tuple-element(o), index=0
  c1 = f32[24] bitcast(g)
  c2 = s32[6,4] bitcast(g)
  c3 = f32[6,4]{0,1} bitcast(g)
  c4 = f32[2,12]{0,1} bitcast(b)
  c5 = f32[3,8]{1,0} bitcast(b)
  ROOT r = (f32[24], s32[6,4], f32[6,4]{0,1}, f32[2,12]{0,1}, f32[3,8]{1,0}) tuple(c1, c2, c3, c4, c5)
})";

int CountOpcode(const HloModule& module, HloOpcode opcode) {
  int n = 0;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) n += i->opcode() == opcode;
  }
  return n;
}

TEST(ForeignOpLoweringTest, BarriersAndBitcastsBecomeOrdinaryInstructions) {
  auto module = ParseHloModule(kForeignHlo);
  ASSERT_TRUE(module.ok()) << module.status();
  cpu::ForeignOpLowering pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_TRUE(VerifyHloModule(**module).ok());
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kOptimizationBarrier), 0);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kBitcast), 0);
  // s32 from f32: one bitcast-convert; every layout change is a transpose.
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kBitcastConvert), 1);
  EXPECT_GE(CountOpcode(**module, HloOpcode::kTranspose), 2);
}

TEST(ForeignOpLoweringTest, ForeignModulesMatchTheEvaluator) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    cpu_test::CompareWithEvaluator(kForeignHlo, cpu_test::RandomArguments(kForeignHlo, 3), ErrorSpec{0, 0},
                                   cpu_test::WithThreads(threads));
  }
}

// A bitcast between element types of different widths has no lowering: an
// Unimplemented error, never a wrong answer.
TEST(ForeignOpLoweringTest, BitcastsBetweenWidthsAreUnimplemented) {
  const std::string text = "HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  ROOT b = s16[8] bitcast(a)\n}\n";
  auto run = cpu_test::RunOnCpu(text, cpu_test::RandomArguments(text, 1));
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kUnimplemented) << run.status();
  EXPECT_NE(run.status().message().find("bitcast"), std::string::npos) << run.status();
}

}  // namespace
}  // namespace xla
