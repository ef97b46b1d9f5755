// Internal to AlgebraicSimplifier: the rule families, one file each. A rule
// returns the instruction that should replace `instruction` (an existing one
// or a single new one it added to the computation), or nullptr when no rule
// applies.
#ifndef XLA_TRANSFORMS_ALGSIMP_RULES_H_
#define XLA_TRANSFORMS_ALGSIMP_RULES_H_

#include "absl/status/statusor.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/transforms/algebraic_simplifier.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace algsimp {

struct RewriteContext {
  HloComputation* computation;
  NameUniquer* names;
  const AlgebraicSimplifierOptions* options;
};

// add, subtract, multiply, divide, negate, select, convert.
absl::StatusOr<HloInstruction*> SimplifyArithmetic(HloInstruction* instruction, const RewriteContext& context);
// reshape, transpose, broadcast, slice, pad, reverse, concatenate.
absl::StatusOr<HloInstruction*> SimplifyShapeOp(HloInstruction* instruction, const RewriteContext& context);

}  // namespace algsimp
}  // namespace xla

#endif  // XLA_TRANSFORMS_ALGSIMP_RULES_H_
