// TransposeFolding ("transpose-folding"): a dot reads a transposed operand
// in place instead of through a transposed copy:
//   dot(transpose(a, perm), b)  ->  dot(a, b)
// with a's contracting and batch dimensions renamed through perm (and the
// same for the rhs). Folded only when the dot's result stays the same
// array: the operand's remaining (free) dimensions keep their relative
// order, and batch dimensions stay where they were (a backend's batched
// matmul wants them leading). The transpose itself is left to its other
// users or to dead-code elimination.
#ifndef XLA_TRANSFORMS_TRANSPOSE_FOLDING_H_
#define XLA_TRANSFORMS_TRANSPOSE_FOLDING_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {

class TransposeFolding : public HloPass {
 public:
  absl::string_view name() const override { return "transpose-folding"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_TRANSPOSE_FOLDING_H_
