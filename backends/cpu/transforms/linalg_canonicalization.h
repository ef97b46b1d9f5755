// LinalgCanonicalization ("linalg-canonicalization", CPU pipeline): fft,
// triangular-solve and cholesky run in the runtime (runtime_fft.h,
// runtime_linalg.h), which reads and writes row-major f32/f64/c64/c128
// buffers. Operands in another layout get a layout-changing copy, f16/bf16
// triangular-solve and cholesky are computed in f32 (their operands
// converted, the result converted back: the evaluator's rounding, once),
// and a result asked for in another layout or type is copied or converted
// from a row-major one.
#ifndef BACKENDS_CPU_TRANSFORMS_LINALG_CANONICALIZATION_H_
#define BACKENDS_CPU_TRANSFORMS_LINALG_CANONICALIZATION_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {
namespace cpu {

class LinalgCanonicalization : public HloPass {
 public:
  absl::string_view name() const override { return "linalg-canonicalization"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TRANSFORMS_LINALG_CANONICALIZATION_H_
