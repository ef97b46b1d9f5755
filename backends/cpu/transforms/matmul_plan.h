// Which dots the matmul runtime (runtime_matmul.h) computes, and how: as
// `batch` row-major products [m, k] x [k, n], each operand read in place.
//
// An operand qualifies when, in its physical (layout) order, its batch
// dimensions come first (in order), then its free (non-contracting)
// dimensions and its contracting ones form two contiguous blocks, either
// block first: the free block in increasing dimension order (the order the
// result lists them in), the contracting block in the same pair order on
// both sides. Each block is then one matrix dimension (m or n, and k), so
// dots such as [batch, seq, hidden] x [hidden, out] or ones contracting
// several dimensions need no copy. The result must be row-major.
#ifndef BACKENDS_CPU_TRANSFORMS_MATMUL_PLAN_H_
#define BACKENDS_CPU_TRANSFORMS_MATMUL_PLAN_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"

#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

struct MatMulPlan {
  int64_t batch = 1;
  int64_t m = 1, n = 1, k = 1;
  // The lhs buffer holds [k, m]; the rhs buffer holds [n, k].
  bool transpose_lhs = false, transpose_rhs = false;
};

// The plan for an f32/f64 `dot` the runtime can compute, or nullopt (the dot
// is then emitted as loops). Dots contracting zero elements are left to the
// loops (their result is zeros), and so are dot products (m = n = 1).
std::optional<MatMulPlan> PlanRuntimeMatMul(const HloInstruction& dot);

// The dimensions of a dot operand of rank `rank` that are neither batch nor
// contracting, in increasing order (the order the result lists them in).
std::vector<int64_t> DotFreeDimensions(int64_t rank, absl::Span<const int64_t> batch,
                                       absl::Span<const int64_t> contracting);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TRANSFORMS_MATMUL_PLAN_H_
