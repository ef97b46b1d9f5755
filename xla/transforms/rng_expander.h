// RngExpander ("rng-expander"): each rng (RngUniform/RngNormal) becomes the
// rng-bit-generator based HLO of xla/transforms/rng_expansion.h, as XLA's
// RngExpander does for its CPU backend, keyed by the module's rng_seed and
// the instruction's name. The reference evaluator evaluates the same
// expansion, so the CPU backend's values equal the interpreter's.
#ifndef XLA_TRANSFORMS_RNG_EXPANDER_H_
#define XLA_TRANSFORMS_RNG_EXPANDER_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {

class RngExpander : public HloPass {
 public:
  absl::string_view name() const override { return "rng-expander"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_RNG_EXPANDER_H_
