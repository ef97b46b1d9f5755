// CpuFusion (cpu_fusion.h), HLO text in -> fused HLO text out: what is
// generated inline, what gets a buffer, matmul epilogues and row groups, as
// fusion instructions; and the fused text parses back to the same module.
#include <string>

#include "backends/cpu/transforms/cpu_fusion.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"

namespace xla {
namespace cpu {
namespace {

// `text` after the pass, printed ("" and a test failure if it fails).
std::string Fused(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "";
  auto changed = CpuFusion().Run(module->get());
  EXPECT_TRUE(changed.ok()) << changed.status();
  absl::Status verified = VerifyHloModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
  std::string printed = (*module)->ToString();
  // The printed module parses back and prints the same.
  auto reparsed = ParseHloModule(printed);
  EXPECT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << printed;
  if (reparsed.ok()) EXPECT_EQ((*reparsed)->ToString(), printed);
  return printed;
}

// An elementwise chain is one kLoop fusion; d, used twice by one multiply,
// is one value; the one-element constant is copied in.
TEST(CpuFusionTest, ElementwiseChainWithARepeatedOperandIsOneLoopFusion) {
  EXPECT_EQ(Fused(R"(HloModule chain
ENTRY e {
  x = f32[8,16] parameter(0)
  y = f32[8,16] parameter(1)
  one = f32[] constant(1)
  ones = f32[8,16] broadcast(one), dimensions={}
  a = f32[8,16] add(x, ones)
  d = f32[8,16] subtract(a, y)
  ROOT m = f32[8,16] multiply(d, d)
})"), R"(HloModule chain

%fused_computation.17 (parameter.12: f32[8,16], parameter.14: f32[8,16]) -> f32[8,16] {
  %one = f32[] constant(1)
  %ones = f32[8,16]{1,0} broadcast(%one), dimensions={}
  %parameter.12 = f32[8,16]{1,0} parameter(0)
  %a = f32[8,16]{1,0} add(%parameter.12, %ones)
  %parameter.14 = f32[8,16]{1,0} parameter(1)
  %d = f32[8,16]{1,0} subtract(%a, %parameter.14)
  ROOT %m = f32[8,16]{1,0} multiply(%d, %d)
}

ENTRY %e (x: f32[8,16], y: f32[8,16]) -> f32[8,16] {
  %x = f32[8,16]{1,0} parameter(0)
  %y = f32[8,16]{1,0} parameter(1)
  ROOT %fusion.17 = f32[8,16]{1,0} fusion(%x, %y), kind=kLoop, calls=%fused_computation.17
}
)");
}

// e has two users (a buffer); e and n share their rows: one kRowGroup fusion
// whose outputs are both (the tuple reads them).
TEST(CpuFusionTest, ValuesReadOutsideAreRowGroupOutputs) {
  EXPECT_EQ(Fused(R"(HloModule shared
ENTRY e {
  x = f32[8,16] parameter(0)
  e = f32[8,16] exponential(x)
  n = f32[8,16] negate(e)
  ROOT t = (f32[8,16], f32[8,16]) tuple(e, n)
})"), R"(HloModule shared

%fused_computation.11 (parameter.7: f32[8,16]) -> (f32[8,16], f32[8,16]) {
  %parameter.7 = f32[8,16]{1,0} parameter(0)
  %e = f32[8,16]{1,0} exponential(%parameter.7)
  %n = f32[8,16]{1,0} negate(%e)
  ROOT %tuple.10 = (f32[8,16]{1,0}, f32[8,16]{1,0}) tuple(%e, %n)
}

ENTRY %e (x: f32[8,16]) -> (f32[8,16], f32[8,16]) {
  %x = f32[8,16]{1,0} parameter(0)
  %fusion.11 = (f32[8,16]{1,0}, f32[8,16]{1,0}) fusion(%x), kind=kRowGroup, calls=%fused_computation.11
  %get-tuple-element.12 = f32[8,16]{1,0} get-tuple-element(%fusion.11), index=0
  %get-tuple-element.13 = f32[8,16]{1,0} get-tuple-element(%fusion.11), index=1
  ROOT %t = (f32[8,16]{1,0}, f32[8,16]{1,0}) tuple(%get-tuple-element.12, %get-tuple-element.13)
}
)");
}

// The square is generated inside the reduce's loop: a kInput fusion.
TEST(CpuFusionTest, AReduceWithItsFusedOperandIsAnInputFusion) {
  EXPECT_EQ(Fused(R"(HloModule reduce
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[64,32] parameter(0)
  sq = f32[64,32] multiply(x, x)
  z = f32[] constant(0)
  ROOT s = f32[64] reduce(sq, z), dimensions={1}, to_apply=add
})"), R"(HloModule reduce

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(%a, %b)
}

%fused_computation.15 (parameter.11: f32[64,32]) -> f32[64] {
  %parameter.11 = f32[64,32]{1,0} parameter(0)
  %sq = f32[64,32]{1,0} multiply(%parameter.11, %parameter.11)
  %z = f32[] constant(0)
  ROOT %s = f32[64]{0} reduce(%sq, %z), dimensions={1}, to_apply=%add
}

ENTRY %e (x: f32[64,32]) -> f32[64] {
  %x = f32[64,32]{1,0} parameter(0)
  ROOT %fusion.15 = f32[64]{0} fusion(%x), kind=kInput, calls=%fused_computation.15
}
)");
}

// Bias add and ReLU are the dot's epilogue: a kOutput fusion.
TEST(CpuFusionTest, ADotWithBiasAndReluIsAnOutputFusion) {
  EXPECT_EQ(Fused(R"(HloModule dense
ENTRY e {
  x = f32[32,64] parameter(0)
  w = f32[64,128] parameter(1)
  b = f32[128] parameter(2)
  d = f32[32,128] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[32,128] broadcast(b), dimensions={1}
  s = f32[32,128] add(d, bb)
  z = f32[] constant(0)
  zb = f32[32,128] broadcast(z), dimensions={}
  ROOT r = f32[32,128] maximum(s, zb)
})"), R"(HloModule dense

%fused_computation.21 (parameter.12: f32[32,64], parameter.13: f32[64,128], parameter.15: f32[128]) -> f32[32,128] {
  %parameter.12 = f32[32,64]{1,0} parameter(0)
  %parameter.13 = f32[64,128]{1,0} parameter(1)
  %d = f32[32,128]{1,0} dot(%parameter.12, %parameter.13), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %parameter.15 = f32[128]{0} parameter(2)
  %bb = f32[32,128]{1,0} broadcast(%parameter.15), dimensions={1}
  %s = f32[32,128]{1,0} add(%d, %bb)
  %z = f32[] constant(0)
  %zb = f32[32,128]{1,0} broadcast(%z), dimensions={}
  ROOT %r = f32[32,128]{1,0} maximum(%s, %zb)
}

ENTRY %e (x: f32[32,64], w: f32[64,128], b: f32[128]) -> f32[32,128] {
  %x = f32[32,64]{1,0} parameter(0)
  %w = f32[64,128]{1,0} parameter(1)
  %b = f32[128]{0} parameter(2)
  ROOT %fusion.21 = f32[32,128]{1,0} fusion(%x, %w, %b), kind=kOutput, calls=%fused_computation.21
}
)");
}

// Softmax: max, exp(x - max), sum and divide run in one loop over rows; only
// the last member is read outside (the others live one row at a time).
TEST(CpuFusionTest, SoftmaxIsOneRowGroupOfItsFourLoops) {
  EXPECT_EQ(Fused(R"(HloModule softmax
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[64,256] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[64] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[64,256] broadcast(m), dimensions={0}
  d = f32[64,256] subtract(x, mb)
  ex = f32[64,256] exponential(d)
  z = f32[] constant(0)
  s = f32[64] reduce(ex, z), dimensions={1}, to_apply=add
  sb = f32[64,256] broadcast(s), dimensions={0}
  ROOT r = f32[64,256] divide(ex, sb)
})"), R"(HloModule softmax

%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] maximum(%a, %b)
}

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(%a, %b)
}

%fused_computation.26 (parameter.21: f32[64], parameter.23: f32[64,256]) -> f32[64,256] {
  %parameter.21 = f32[64]{0} parameter(0)
  %mb = f32[64,256]{1,0} broadcast(%parameter.21), dimensions={0}
  %parameter.23 = f32[64,256]{1,0} parameter(1)
  %d = f32[64,256]{1,0} subtract(%parameter.23, %mb)
  ROOT %ex = f32[64,256]{1,0} exponential(%d)
}

%fused_computation.32 (parameter.28: f32[64], parameter.30: f32[64,256]) -> f32[64,256] {
  %parameter.28 = f32[64]{0} parameter(0)
  %sb = f32[64,256]{1,0} broadcast(%parameter.28), dimensions={0}
  %parameter.30 = f32[64,256]{1,0} parameter(1)
  ROOT %r = f32[64,256]{1,0} divide(%parameter.30, %sb)
}

%fused_computation.42 (parameter.34: f32[64,256]) -> (f32[64,256]) {
  %parameter.34 = f32[64,256]{1,0} parameter(0)
  %ninf = f32[] constant(-inf)
  %m = f32[64]{0} reduce(%parameter.34, %ninf), dimensions={1}, to_apply=%max
  %fusion.26 = f32[64,256]{1,0} fusion(%m, %parameter.34), kind=kLoop, calls=%fused_computation.26
  %z = f32[] constant(0)
  %s = f32[64]{0} reduce(%fusion.26, %z), dimensions={1}, to_apply=%add
  %fusion.32 = f32[64,256]{1,0} fusion(%s, %fusion.26), kind=kLoop, calls=%fused_computation.32
  ROOT %tuple.41 = (f32[64,256]{1,0}) tuple(%fusion.32)
}

ENTRY %e (x: f32[64,256]) -> f32[64,256] {
  %x = f32[64,256]{1,0} parameter(0)
  %fusion.42 = (f32[64,256]{1,0}) fusion(%x), kind=kRowGroup, calls=%fused_computation.42
  ROOT %get-tuple-element.43 = f32[64,256]{1,0} get-tuple-element(%fusion.42), index=0
}
)");
}

// The matmul runtime reads a dot's operands from buffers: a one-element
// constant operand of a kOutput fusion's dot stays outside as a parameter
// (other users get it copied in as an immediate).
TEST(CpuFusionTest, AnOutputFusionsDotReadsConstantsFromTheirBuffers) {
  auto module = ParseHloModule(Fused(R"(HloModule dot_constant
ENTRY e {
  v0 = f64[2] parameter(0)
  v2 = f64[1] constant({1})
  v3 = f64[2,1] dot(v0, v2)
  ROOT v9 = f64[2,1] logistic(v3)
})"));
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* fusion = (*module)->entry_computation()->root_instruction();
  ASSERT_TRUE(IsFusionOfKind(*fusion, kOutputFusion)) << (*module)->ToString();
  ASSERT_EQ(fusion->operand_count(), 2);
  EXPECT_EQ(fusion->operand(1)->opcode(), HloOpcode::kConstant);
  const HloInstruction* dot = fusion->called_computations().front()->root_instruction()->operand(0);
  ASSERT_EQ(dot->opcode(), HloOpcode::kDot);
  EXPECT_EQ(dot->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(dot->operand(1)->opcode(), HloOpcode::kParameter);
}

// A collective is a runtime call writing its whole buffer: it never joins a
// row group, even when it and an elementwise user share their rows (here
// the all-reduce has two users, the outfeed and the add).
TEST(CpuFusionTest, ACollectiveNeverJoinsARowGroup) {
  auto module = ParseHloModule(Fused(R"(HloModule collective
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  t = token[] after-all()
  in = (f32[2], token[]) infeed(t)
  v = f32[2] get-tuple-element(in), index=0
  t2 = token[] get-tuple-element(in), index=1
  s = f32[2] all-reduce(v), replica_groups={}, to_apply=sum
  o = token[] outfeed(s, t2)
  ROOT r = f32[2] add(s, s)
})"));
  ASSERT_TRUE(module.ok()) << module.status();
  int all_reduces = 0;
  for (const HloInstruction* h : (*module)->entry_computation()->instructions()) {
    all_reduces += h->opcode() == HloOpcode::kAllReduce;
    EXPECT_FALSE(IsFusionOfKind(*h, kRowGroupFusion)) << (*module)->ToString();
  }
  EXPECT_EQ(all_reduces, 1) << (*module)->ToString();
}

// A second run changes nothing: fusions are not fused again.
TEST(CpuFusionTest, FusedModulesAreLeftAsTheyAre) {
  auto module = ParseHloModule(Fused(R"(HloModule again
ENTRY e {
  x = f32[8] parameter(0)
  n = f32[8] negate(x)
  ROOT a = f32[8] abs(n)
})"));
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string before = (*module)->ToString();
  auto changed = CpuFusion().Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ((*module)->ToString(), before);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
