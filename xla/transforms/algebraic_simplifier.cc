#include "xla/transforms/algebraic_simplifier.h"

#include <vector>

#include "xla/status_macros.h"
#include "xla/transforms/algsimp_rules.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

absl::StatusOr<bool> RunOnComputation(HloComputation* computation, NameUniquer* names,
                                      const AlgebraicSimplifierOptions& options) {
  const algsimp::RewriteContext context{computation, names, &options};
  bool changed = false;
  // Operands first, so a chain (reshape(reshape(reshape(x)))) collapses in
  // one sweep: each rewrite is visible to the users visited after it.
  // ReplaceInstruction only removes the visited instruction and operands
  // that die with it, all earlier in this order, so the snapshot stays valid.
  for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
    HloInstruction* replacement = nullptr;
    ASSIGN_OR_RETURN(replacement, algsimp::SimplifyArithmetic(instruction, context));
    if (replacement == nullptr) {
      ASSIGN_OR_RETURN(replacement, algsimp::SimplifyShapeOp(instruction, context));
    }
    if (replacement == nullptr) continue;
    ASSIGN_OR_RETURN(bool replaced, ReplaceInstruction(instruction, replacement));
    if (!replaced) {
      // A root whose layout the replacement would change: drop a new
      // instruction the rule built (an existing one still has users).
      RETURN_IF_ERROR(RemoveDeadRecursively(replacement));
      continue;
    }
    changed = true;
  }
  if (changed) computation->RestoreTopologicalOrder();
  return changed;
}

}  // namespace

absl::StatusOr<bool> AlgebraicSimplifier::Run(HloModule* module) {
  NameUniquer names(*module);
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    ASSIGN_OR_RETURN(bool c, RunOnComputation(computation, &names, options_));
    changed |= c;
  }
  return changed;
}

}  // namespace xla
