#include "xla/transforms/call_inliner.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

bool IsInlined(const HloInstruction& hlo) {
  return hlo.opcode() == HloOpcode::kCall || hlo.opcode() == HloOpcode::kFusion;
}

}  // namespace

absl::StatusOr<bool> CallInliner::Run(HloModule* module) {
  NameUniquer names(*module);
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    std::vector<HloInstruction*> worklist;
    for (HloInstruction* i : computation->instructions()) {
      if (IsInlined(*i)) worklist.push_back(i);
    }
    if (worklist.empty()) continue;
    // Only calls are removed while inlining (so the worklist stays valid);
    // arguments a callee ignored are removed at the end.
    absl::flat_hash_set<const HloInstruction*> maybe_dead;
    while (!worklist.empty()) {
      HloInstruction* call = worklist.back();
      worklist.pop_back();
      if (call->called_computations().size() != 1) {
        return InvalidArgument("%s '%s' must call one computation", HloOpcodeString(call->opcode()), call->name());
      }
      const HloComputation* callee = call->called_computations()[0];
      std::vector<HloInstruction*> clones;
      ASSIGN_OR_RETURN(HloInstruction * result,
                       InlineComputation(*callee, call->operands(), computation, &names, &clones));
      // Calls inside the callee are inlined in turn (no recursion in a valid
      // module, so this ends).
      for (HloInstruction* clone : clones) {
        if (IsInlined(*clone)) worklist.push_back(clone);
      }
      if (!CanReplace(call, result)) {
        // Same values, another layout at a root: keep the call's layout.
        result = AddInstructionWithUniqueName(
            computation, HloInstruction::CreateUnary(HloOpcode::kCopy, call->shape(), result), &names, "copy");
      }
      call->ReplaceAllUsesWith(result);
      maybe_dead.insert(call->operands().begin(), call->operands().end());
      RETURN_IF_ERROR(computation->RemoveInstruction(call));
      changed = true;
    }
    computation->RestoreTopologicalOrder();
    RETURN_IF_ERROR(RemoveDeadAmong(computation, std::move(maybe_dead)).status());
  }
  return changed;
}

}  // namespace xla
