// CommonSubexpressionElimination ("cse"): within each computation, replaces
// an instruction by an earlier identical one. Identical means: same opcode,
// same shape (layout included), the same operands (for commutative ops,
// add/multiply/maximum/minimum/and/or/xor, in either order), the same called
// computations and the same attributes (compared on their deterministic
// serialization; metadata such as op names and source lines is ignored).
// Constants are identical when their values are bit for bit equal, so -0.0
// and +0.0 stay apart. Never merged: parameters, side-effecting
// instructions, elided constants (`constant({...})`, value unknown) and
// anything producing a token.
#ifndef XLA_TRANSFORMS_COMMON_SUBEXPRESSION_ELIMINATION_H_
#define XLA_TRANSFORMS_COMMON_SUBEXPRESSION_ELIMINATION_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {

class CommonSubexpressionElimination : public HloPass {
 public:
  absl::string_view name() const override { return "cse"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_COMMON_SUBEXPRESSION_ELIMINATION_H_
