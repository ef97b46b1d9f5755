// DotCanonicalization ("dot-canonicalization", CPU pipeline): a real float
// dot the matmul runtime cannot take as it is (matmul_plan.h: f16/bf16
// values, batch dimensions not leading, a contracting dimension between
// free ones, contracting pairs in different orders, a result that is not
// row-major) is rewritten to one it can: each operand converted to f32
// (f64 for an f64 result) and transposed into row-major [batch..., free...,
// contracting...] (lhs) or [batch..., contracting..., free...] (rhs), and
// the result converted or copied into the type and layout asked for. The
// copies cost one pass over each operand; the loops a dot falls back to
// otherwise cost m*n*k scalar steps (attention's batch dimensions
// 'bqhd,bkhd->bhqk' are not leading, for example).
#ifndef BACKENDS_CPU_TRANSFORMS_DOT_CANONICALIZATION_H_
#define BACKENDS_CPU_TRANSFORMS_DOT_CANONICALIZATION_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {
namespace cpu {

class DotCanonicalization : public HloPass {
 public:
  absl::string_view name() const override { return "dot-canonicalization"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TRANSFORMS_DOT_CANONICALIZATION_H_
