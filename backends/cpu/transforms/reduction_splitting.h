// ReductionSplitting ("reduction-splitting", CPU pipeline): a large reduce
// over its operand's most-major dimension (in layout order, and the lowest
// reduced dimension, so that it is the fold's outermost) into a small
// result (a sum of a
// whole array, a column sum) is split into P contiguous partitions of that
// dimension: reduce(x[R, ...]) becomes reduce(reduce(reshape(x)[P, R/P, ...])
// over the R/P part and the other reduced dimensions) over P. The inner
// reduce has P times the outputs, each partition a contiguous block of
// memory, so threads stream whole blocks instead of one thread summing the
// array (a result of one element has nothing to split the work by) or
// threads reading short runs of every row (a column sum split by columns).
//
// Variadic reduces (argmax: values and indices) are split the same way, all
// operands alike. The partitions are combined in order, so this
// reassociates the reduction without reordering it, as the operation
// semantics allow ("backends are allowed to reassociate the reduction
// computation"; init values are identities): integer, min/max and argmax
// results are the same, float sums round differently. P is the largest divisor of R up to 16, independent of the
// thread count, so results do not depend on it either.
#ifndef BACKENDS_CPU_TRANSFORMS_REDUCTION_SPLITTING_H_
#define BACKENDS_CPU_TRANSFORMS_REDUCTION_SPLITTING_H_

#include <cstdint>

#include "xla/transforms/hlo_pass.h"

namespace xla {
namespace cpu {

class ReductionSplitting : public HloPass {
 public:
  // Operands smaller than this stay as they are (one thread reads them fast).
  static constexpr int64_t kMinOperandElements = int64_t{1} << 20;
  // Results at least this large already give every thread long runs.
  static constexpr int64_t kMaxResultElements = int64_t{1} << 16;
  static constexpr int64_t kMaxPartitions = 16;

  absl::string_view name() const override { return "reduction-splitting"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TRANSFORMS_REDUCTION_SPLITTING_H_
