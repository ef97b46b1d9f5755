// DimensionSizeLowering ("dimension-size-lowering"): with static shapes,
// get-dimension-size is the dimension's size (an s32 constant) and
// set-dimension-size to exactly that size is its operand. Any other size
// would need dynamic shapes: a constant size below the dimension is
// Unimplemented, one outside [0, dimension] an error, and a size computed
// at run time (not a constant after simplification) is Unimplemented, so the
// CPU backend never runs a set-dimension-size it cannot check. The
// evaluator applies the same rule to the run-time value.
#ifndef XLA_TRANSFORMS_DIMENSION_SIZE_LOWERING_H_
#define XLA_TRANSFORMS_DIMENSION_SIZE_LOWERING_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {

class DimensionSizeLowering : public HloPass {
 public:
  absl::string_view name() const override { return "dimension-size-lowering"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_DIMENSION_SIZE_LOWERING_H_
