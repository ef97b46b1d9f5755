// WhileLoopSimplifier ("while-simplifier"): removes while loops whose trip
// count is known to be 0 (the loop becomes its initial value) or 1 (the
// loop becomes one inlined copy of its body applied to the initial value).
//
// The trip count is known for the counted-loop pattern builders emit:
//  - the state is a tuple whose element i is a signed integer induction
//    variable, initialized by a constant (an element of a tuple instruction
//    or of a tuple constant);
//  - the condition's root is compare(get-tuple-element(param, i), constant N)
//    with direction LT or LE (or the mirrored constant-first GT/GE form);
//  - the body's root is a tuple whose element i is
//    add(get-tuple-element(param, i), constant 1) (either operand order).
// Loops whose condition has side effects are left alone (their condition
// runs a fixed number of times that the rewrite would change).
//
// It also drops loop-state elements nothing reads: element k goes when the
// condition does not read it, the body reads it at most to pass it through
// to element k, and outside the loop only get-tuple-elements of other
// elements use the loop. Needs a tuple body root, parameters used only by
// get-tuple-element, and a body and condition called by this loop alone.
#ifndef XLA_TRANSFORMS_WHILE_LOOP_SIMPLIFIER_H_
#define XLA_TRANSFORMS_WHILE_LOOP_SIMPLIFIER_H_

#include <cstdint>
#include <optional>

#include "xla/hlo/hlo_instruction.h"
#include "xla/transforms/hlo_pass.h"

namespace xla {

class WhileLoopSimplifier : public HloPass {
 public:
  absl::string_view name() const override { return "while-simplifier"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// The number of times `loop`'s body runs, when it matches the pattern above.
std::optional<int64_t> ComputeWhileTripCount(const HloInstruction& loop);

}  // namespace xla

#endif  // XLA_TRANSFORMS_WHILE_LOOP_SIMPLIFIER_H_
