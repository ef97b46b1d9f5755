#include "xla/transforms/rng_expander.h"

#include <memory>

#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"
#include "xla/transforms/rng_expansion.h"

namespace xla {

absl::StatusOr<bool> RngExpander::Run(HloModule* module) {
  ASSIGN_OR_RETURN(uint64_t seed, ModuleRngSeed(*module));
  return RewriteEach(module, HloOpcode::kRng,
                     [seed](HloComputation* computation, NameUniquer* names,
                            HloInstruction* rng) -> absl::StatusOr<bool> {
                       if (rng->operand_count() != 2) {
                         return InvalidArgument("rng-expander: %s needs two operands", rng->name());
                       }
                       RETURN_IF_ERROR(CheckRngRunsOnce(*rng));
                       AddHloFn add = [&](std::unique_ptr<HloInstruction> instruction) {
                         return AddInstructionWithUniqueName(computation, std::move(instruction), names, "rng");
                       };
                       ASSIGN_OR_RETURN(HloInstruction * value,
                                        BuildRngExpansion(add, rng->mutable_operand(0), rng->mutable_operand(1),
                                                          rng->attributes().distribution(), rng->shape(),
                                                          RngKey(seed, rng->name())));
                       *value->mutable_shape() = rng->shape();
                       ASSIGN_OR_RETURN(bool replaced, ReplaceInstruction(rng, value));
                       if (!replaced) return Internal("rng-expander: cannot replace %s", rng->name());
                       // rng counts as a side effect, so ReplaceInstruction kept it.
                       RETURN_IF_ERROR(computation->RemoveInstruction(rng));
                       return true;
                     });
}

}  // namespace xla
