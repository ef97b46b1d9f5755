// ConcatenateSplitting ("concatenate-splitting", CPU pipeline): a
// concatenate of more than kMaxOperands operands becomes a tree of
// concatenates of at most kMaxOperands operands each, along the same
// dimension and in the same order.
//
// Why: the emitter writes a concatenate as one loop per operand (no choice
// per element), and LLVM's loop passes take time quadratic in the number of
// such consecutive loops in one loop nest (a 2,000-operand concatenate took
// a minute to compile, 10,000 operands over ten). CPU fusion materializes
// each inner concatenate, so every loop nest has at most kMaxOperands
// pieces; the price is one extra copy of the data per tree level, a level
// per factor of kMaxOperands operands.
#ifndef BACKENDS_CPU_TRANSFORMS_CONCATENATE_SPLITTING_H_
#define BACKENDS_CPU_TRANSFORMS_CONCATENATE_SPLITTING_H_

#include <cstdint>

#include "xla/transforms/hlo_pass.h"

namespace xla {
namespace cpu {

class ConcatenateSplitting : public HloPass {
 public:
  static constexpr int64_t kMaxOperands = 32;

  absl::string_view name() const override { return "concatenate-splitting"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TRANSFORMS_CONCATENATE_SPLITTING_H_
