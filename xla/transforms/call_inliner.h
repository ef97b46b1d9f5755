// CallInliner ("call-inliner"): replaces every `call` by the body of the
// computation it calls, with the parameters bound to the call's operands.
// Calls inside inlined bodies are inlined too. The called computations are
// left in the module (DeadCodeElimination removes the ones no longer
// called). A call that is a computation's root and whose callee returns its
// value in another layout becomes a `copy` to the call's layout.
// A `fusion` (as another compiler's optimized dump has them) is a call of
// its fused computation and is inlined the same way: the backend that
// compiles the module makes its own fusion decisions.
#ifndef XLA_TRANSFORMS_CALL_INLINER_H_
#define XLA_TRANSFORMS_CALL_INLINER_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {

class CallInliner : public HloPass {
 public:
  absl::string_view name() const override { return "call-inliner"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_CALL_INLINER_H_
