#include "xla/transforms/dead_code_elimination.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {

absl::StatusOr<bool> DeadCodeElimination::Run(HloModule* module) {
  bool changed = false;
  // Callers come after callees: sweeping callers first means a computation
  // whose last caller was just removed is found unreachable below.
  std::vector<HloComputation*> computations = module->computations();
  for (auto it = computations.rbegin(); it != computations.rend(); ++it) {
    ASSIGN_OR_RETURN(bool removed, RemoveDeadInstructions(*it));
    changed |= removed;
  }
  if (!remove_dead_computations_) return changed;

  absl::flat_hash_set<const HloComputation*> reachable;
  std::vector<const HloComputation*> stack = {module->entry_computation()};
  while (!stack.empty()) {
    const HloComputation* c = stack.back();
    stack.pop_back();
    if (!reachable.insert(c).second) continue;
    for (const HloInstruction* i : c->instructions()) {
      for (const HloComputation* callee : i->called_computations()) stack.push_back(callee);
    }
  }
  absl::flat_hash_set<const HloComputation*> unreachable;
  for (const HloComputation* c : computations) {
    if (!reachable.contains(c)) unreachable.insert(c);
  }
  if (unreachable.empty()) return changed;
  RETURN_IF_ERROR(RemoveComputations(module, unreachable));
  return true;
}

}  // namespace xla
