// WhileLoopInvariantCodeMotion ("while-licm"): moves computations whose
// value is the same in every iteration out of while bodies, so they run once.
//
// In a body whose root is a tuple, element k is invariant when the root
// passes get-tuple-element(parameter, k) through unchanged. A body
// instruction is invariant when it is such a get-tuple-element, a constant,
// or a side-effect-free op (not a while: it might not terminate) whose
// operands are all invariant. Invariant instructions that do real work are
// hoisted: cloned in front of the loop (reading the loop's initial value
// instead of the parameter) and passed into the loop as new tuple elements
// that the body passes through. Cheap or size-inflating ops (broadcast,
// reshape, iota, constants, tuples, get-tuple-element) are not hoisted on
// their own, only as operands of hoisted work.
//
// Skipped: loops whose state is not a tuple, bodies whose root is not a
// tuple, parameters used other than by get-tuple-element, and bodies or
// conditions shared with another instruction (their signature changes).
// The hoisted code also runs when the loop runs zero times; it is side
// effect free, so only time is spent.
#ifndef XLA_TRANSFORMS_WHILE_LOOP_INVARIANT_CODE_MOTION_H_
#define XLA_TRANSFORMS_WHILE_LOOP_INVARIANT_CODE_MOTION_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {

class WhileLoopInvariantCodeMotion : public HloPass {
 public:
  absl::string_view name() const override { return "while-licm"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_WHILE_LOOP_INVARIANT_CODE_MOTION_H_
