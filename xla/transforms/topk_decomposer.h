// TopkDecomposer ("topk-decomposer"): topk(x), k, largest becomes what
// XLA's TopkDecomposer makes of it, for backends without a topk emitter:
//   sort(x, iota(s32, last dimension)), dimensions={last}, is_stable=true,
//        comparator: compare(lhs_x, rhs_x, GT (LT when not largest)), of
//        type TOTALORDER for floats
//   tuple(slice(values, [..., 0:k]), slice(indices, [..., 0:k]))
// The stable sort keeps equal values in position order, so this is the
// evaluator's topk exactly.
#ifndef XLA_TRANSFORMS_TOPK_DECOMPOSER_H_
#define XLA_TRANSFORMS_TOPK_DECOMPOSER_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {

class TopkDecomposer : public HloPass {
 public:
  absl::string_view name() const override { return "topk-decomposer"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_TOPK_DECOMPOSER_H_
