// BufferAssignment (buffer_assignment.h) on fused modules, alone: which
// slot every value gets, which arena bytes values share by live range, and
// the printed form the dumps show.
#include <string>

#include "backends/cpu/codegen/buffer_assignment.h"
#include "backends/cpu/transforms/cpu_fusion.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

const HloInstruction* Find(const HloModule& module, const std::string& name) {
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* h : c->instructions()) {
      if (h->name() == name) return h;
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

TEST(BufferAssignmentTest, ChainSharesArenaBytesAndResultsAliasTheirProducers) {
  auto module = ParseHloModule(R"(HloModule chain
ENTRY e {
  x = f32[1024] parameter(0)
  a = f32[1024] exponential(x)
  b = f32[1024] negate(a)
  c = f32[1024] abs(b)
  d = f32[1024] sine(c)
  ROOT t = (f32[1024], f32[1024]) tuple(d, x)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  auto assignment = BufferAssignment::Run(**module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  const ComputationBuffers* buffers = (*assignment)->ForComputation(*(*module)->entry_computation());
  ASSERT_NE(buffers, nullptr);
  auto slot = [&](const char* name) { return buffers->ValueOf(Find(**module, name)).slot; };
  EXPECT_EQ(slot("x").kind, BufferSlot::kParam);
  EXPECT_EQ(slot("x").index, 0);
  // d is computed straight into result leaf 0; x is copied into leaf 1.
  EXPECT_EQ(slot("d").kind, BufferSlot::kResult);
  EXPECT_EQ(slot("d").index, 0);
  ASSERT_EQ(buffers->result_copies.size(), 1u);
  EXPECT_EQ(buffers->result_copies[0].leaf, 1);
  EXPECT_EQ(buffers->result_copies[0].source->producer->name(), "x");
  // a (read by b) and c (defined after b) never live together: they share
  // bytes; b overlaps both.
  for (const char* name : {"a", "b", "c"}) EXPECT_EQ(slot(name).kind, BufferSlot::kArena) << name;
  EXPECT_EQ(slot("a").index, slot("c").index);
  EXPECT_NE(slot("a").index, slot("b").index);
  EXPECT_EQ((*assignment)->arena_bytes(), 2 * 4096);
  const std::string text = (*assignment)->ToString();
  EXPECT_NE(text.find("%d f32[1024]{0}: result leaf 0"), std::string::npos) << text;
  EXPECT_NE(text.find("%b f32[1024]{0}: arena [4096, 8192) live [2, 3]"), std::string::npos) << text;
  EXPECT_NE(text.find("result leaf 1: copied from %x"), std::string::npos) << text;
  EXPECT_NE(text.find("%t (f32[1024]{0}, f32[1024]{0}): (%d's result leaf 0, %x's parameter leaf 0)"), std::string::npos)
      << text;
}

TEST(BufferAssignmentTest, RowGroupMembersReadOnlyInsideLiveOneRowAtATime) {
  auto module = ParseHloModule(R"(HloModule softmax
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
})");
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(CpuFusion().Run(module->get()).ok());
  auto assignment = BufferAssignment::Run(**module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  const ComputationBuffers* buffers = (*assignment)->ForComputation(*(*module)->entry_computation());
  ASSERT_NE(buffers, nullptr);
  const HloInstruction* group = (*module)->entry_computation()->root_instruction()->operand(0);
  ASSERT_TRUE(IsFusionOfKind(*group, kRowGroupFusion)) << (*module)->ToString();
  int scratch = 0;
  for (const HloInstruction* member : RowGroupMembers(*group)) {
    const BufferSlot& slot = buffers->ValueOf(member).slot;
    if (member->name() == "m" || member->name() == "s") {
      EXPECT_EQ(slot.kind, BufferSlot::kRowScratch) << member->name();
    }
    scratch += slot.kind == BufferSlot::kRowScratch;
  }
  // The max, exp(x - max) and the sum live one row at a time; the division
  // writes the result: the run needs no arena.
  EXPECT_EQ(scratch, 3);
  EXPECT_EQ(buffers->ValueOf((*module)->entry_computation()->root_instruction()).slot.kind, BufferSlot::kResult);
  EXPECT_EQ((*assignment)->arena_bytes(), 0) << (*assignment)->ToString();
}

TEST(BufferAssignmentTest, WhileTemporariesAndBodiesGetArenaAboveTheirCaller) {
  auto module = ParseHloModule(R"(HloModule loop
cond {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[256] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  e = f32[256] exponential(v)
  n = f32[256] negate(e)
  a = f32[256] add(e, n)
  ROOT t = (s32[], f32[256]) tuple(i1, a)
}
ENTRY e {
  x = f32[256] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[256]) tuple(zero, x)
  w = (s32[], f32[256]) while(init), condition=cond, body=body
  ROOT r = f32[256] get-tuple-element(w), index=1
})");
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(CpuFusion().Run(module->get()).ok());
  auto assignment = BufferAssignment::Run(**module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  const HloComputation* entry = (*module)->entry_computation();
  const ComputationBuffers* outer = (*assignment)->ForComputation(*entry);
  const ComputationBuffers* body = (*assignment)->ForComputation(*(*module)->GetComputationByName("body"));
  const ComputationBuffers* cond = (*assignment)->ForComputation(*(*module)->GetComputationByName("cond"));
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(body, nullptr);
  ASSERT_NE(cond, nullptr);
  // The while's state is its own arena leaves; its next state and
  // predicate are its temporaries, live while it runs.
  const HloInstruction* w = Find(**module, "w");
  ASSERT_TRUE(outer->control_flow_scratch.contains(w));
  EXPECT_EQ(outer->control_flow_scratch.at(w).bytes, 64 + 1024 + 64);
  for (const auto& e : outer->ValueOf(w).elements) EXPECT_EQ(e->slot.kind, BufferSlot::kArena);
  // Called computations lie above their caller, without overlap.
  EXPECT_GE(cond->arena_begin, outer->arena_end);
  EXPECT_GE(body->arena_begin, outer->arena_end);
  EXPECT_TRUE(body->arena_begin >= cond->arena_end || cond->arena_begin >= body->arena_end);
  EXPECT_EQ((*assignment)->arena_bytes(), std::max(cond->arena_end, body->arena_end));
  EXPECT_NE((*assignment)->ToString().find("%w temporaries: arena ["), std::string::npos)
      << (*assignment)->ToString();
}

}  // namespace
}  // namespace cpu
}  // namespace xla
