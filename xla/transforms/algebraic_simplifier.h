// AlgebraicSimplifier ("algsimp"): local rewrites that keep every value bit
// for bit the same. The rules live in files by op family:
//   algsimp_arithmetic.cc  add/subtract/multiply/divide identities, select
//                          with a constant predicate, no-op converts;
//   algsimp_shape_ops.cc   reshape, transpose, broadcast, slice, pad,
//                          reverse, concatenate: identities, compositions and
//                          ops on splat constants.
//
// Floating point is handled exactly (IEEE semantics, NaN and signed zeros):
//   x - (+0) -> x, x * 1 -> x, x / 1 -> x      all types (complex excluded);
//   x + (-0) -> x                             floats (x + (+0) turns -0 into
//                                             +0, so it is not an identity);
//   x + 0 -> x, 0 + x -> x, x * 0 -> 0        integers only (for floats NaN*0,
//                                             inf*0 and -1*0 differ from +0);
// `allow_signed_zero_changes` also folds float x + (+0) -> x, which differs
// only when x is -0 (the result stays -0 where IEEE gives +0).
//
// Every rule either returns an existing instruction or builds one new
// instruction whose shape is checked by shape inference; a rule whose result
// would change a computation root's layout is not applied.
#ifndef XLA_TRANSFORMS_ALGEBRAIC_SIMPLIFIER_H_
#define XLA_TRANSFORMS_ALGEBRAIC_SIMPLIFIER_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {

struct AlgebraicSimplifierOptions {
  // Fold float x + (+0) -> x even though -0 + (+0) is +0.
  bool allow_signed_zero_changes = false;
};

class AlgebraicSimplifier : public HloPass {
 public:
  explicit AlgebraicSimplifier(AlgebraicSimplifierOptions options = {}) : options_(options) {}

  absl::string_view name() const override { return "algsimp"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  AlgebraicSimplifierOptions options_;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_ALGEBRAIC_SIMPLIFIER_H_
