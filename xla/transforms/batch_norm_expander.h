// BatchNormExpander ("batch-norm-expander"): batch-norm-training,
// -inference and -grad become plain HLO, as XLA's BatchNormExpander does:
// reduces (add) over every dimension but the feature dimension, broadcasts
// of per-feature vectors along it, rsqrt(variance + epsilon). f16/bf16
// compute in f32 and round once per result; f32/f64 in their own type.
// Unlike XLA (E[x^2] - E[x]^2), the training variance is the mean squared
// deviation from the batch mean, the document's formula, which does not
// cancel catastrophically.
//   training:  mean = sum(x) / N, var = sum((x - mean)^2) / N,
//              y = (x - mean) * (scale * rsqrt(var + eps)) + offset
//   inference: y = (x - mean) * (scale * rsqrt(var + eps)) + offset
//   grad:      grad_offset = sum(dy), s = sum(dy * (x - mean)),
//              grad_scale = s * rsqrt(var + eps),
//              dx = scale * rsqrt(var + eps) * (dy - grad_offset / N
//                   - (s / N / (var + eps)) * (x - mean))
#ifndef XLA_TRANSFORMS_BATCH_NORM_EXPANDER_H_
#define XLA_TRANSFORMS_BATCH_NORM_EXPANDER_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {

class BatchNormExpander : public HloPass {
 public:
  absl::string_view name() const override { return "batch-norm-expander"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_BATCH_NORM_EXPANDER_H_
