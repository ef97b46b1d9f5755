// HloComputation::HasSideEffect (and HloInstruction's, which asks its
// callees): the cached answers follow the module's changes, and a nest of
// computations far deeper than the native stack could recurse is answered.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

std::unique_ptr<HloInstruction> AnEffect() {
  return HloInstruction::Create(HloOpcode::kCustomCall, ShapeUtil::MakeShape(F32, {}), {});
}

TEST(SideEffectTest, CachedAnswersFollowChangesBelow) {
  auto module = ParseHloModule(R"(HloModule m
inner {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
middle {
  q = f32[] parameter(0)
  ROOT c = f32[] call(q), to_apply=inner
}
ENTRY e {
  x = f32[] parameter(0)
  ROOT c = f32[] call(x), to_apply=middle
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  HloComputation* inner = (*module)->GetComputationByName("inner");
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_FALSE(root->HasSideEffect());
  EXPECT_FALSE((*module)->entry_computation()->HasSideEffect());

  // An effect two calls down makes every caller effectful, and removing it
  // makes them pure again.
  HloInstruction* effect = inner->AddInstruction(AnEffect());
  EXPECT_TRUE(root->HasSideEffect());
  EXPECT_TRUE((*module)->entry_computation()->HasSideEffect());
  ASSERT_TRUE(inner->RemoveInstruction(effect).ok());
  EXPECT_FALSE(root->HasSideEffect());

  // So does pointing a call at another computation.
  auto effectful = std::make_unique<HloComputation>("effectful");
  effectful->AddInstruction(HloInstruction::CreateParameter(0, ShapeUtil::MakeShape(F32, {}), "p"));
  effectful->set_root_instruction(effectful->AddInstruction(AnEffect()));
  HloComputation* added = (*module)->AddEmbeddedComputation(std::move(effectful));
  HloInstruction* middle_call = (*module)->GetComputationByName("middle")->root_instruction();
  middle_call->set_called_computation(0, added);
  EXPECT_TRUE(root->HasSideEffect());
  middle_call->set_called_computation(0, inner);
  EXPECT_FALSE(root->HasSideEffect());
}

// 100,000 computations, each calling the one before: a recursive walk would
// need 100,000 native frames.
TEST(SideEffectTest, ADeepNestOfCallsIsAnsweredWithoutRecursion) {
  constexpr int kDepth = 100000;
  const Shape scalar = ShapeUtil::MakeShape(F32, {});
  HloModule module("deep");
  HloComputation* previous = nullptr;
  HloComputation* innermost = nullptr;
  for (int k = 0; k < kDepth; ++k) {
    auto computation = std::make_unique<HloComputation>(absl::StrCat("c", k));
    HloInstruction* p = computation->AddInstruction(HloInstruction::CreateParameter(0, scalar, "p"));
    HloInstruction* root =
        previous == nullptr
            ? computation->AddInstruction(HloInstruction::CreateUnary(HloOpcode::kNegate, scalar, p))
            : computation->AddInstruction(HloInstruction::Create(HloOpcode::kCall, scalar, {p}, {previous}));
    computation->set_root_instruction(root);
    previous = k + 1 == kDepth ? module.AddEntryComputation(std::move(computation))
                               : module.AddEmbeddedComputation(std::move(computation));
    if (k == 0) innermost = previous;
  }
  EXPECT_FALSE(module.entry_computation()->HasSideEffect());
  innermost->AddInstruction(AnEffect());
  EXPECT_TRUE(module.entry_computation()->HasSideEffect());
}

}  // namespace
}  // namespace xla
