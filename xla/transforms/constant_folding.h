// ConstantFolding ("constant-folding"): replaces an instruction whose
// operands are all (known) constants by a constant holding its value,
// computed by the reference evaluator (so folding has exactly the semantics
// every backend is tested against).
//
// Not folded: parameters, constants, instructions without operands (iota,
// rng, ids), broadcasts (a broadcast of a constant is cheaper to keep than
// the constant it would become), tuples, while loops (could run for ever),
// side-effecting instructions, tokens, instructions with an elided operand
// (`constant({...})`: value unknown), results of more than
// `max_result_elements` elements, and dots/convolutions/reduce-windows over
// more than `max_multiply_adds` multiply-adds, sorts whose comparisons
// (n log2 of the sorted dimension, 64 multiply-adds each) exceed it (the
// evaluator is slow on purpose).
// Instructions the evaluator cannot evaluate are left alone.
#ifndef XLA_TRANSFORMS_CONSTANT_FOLDING_H_
#define XLA_TRANSFORMS_CONSTANT_FOLDING_H_

#include <cstdint>

#include "xla/transforms/hlo_pass.h"

namespace xla {

struct ConstantFoldingOptions {
  int64_t max_result_elements = 1 << 20;
  int64_t max_multiply_adds = int64_t{1} << 26;
};

class ConstantFolding : public HloPass {
 public:
  explicit ConstantFolding(ConstantFoldingOptions options = {}) : options_(options) {}

  absl::string_view name() const override { return "constant-folding"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  ConstantFoldingOptions options_;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_CONSTANT_FOLDING_H_
