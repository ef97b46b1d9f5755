// Row fusion: consecutive materialized instructions that share their
// outermost (layout-major) dimension, and that read each other only within
// the same index of it, run in ONE loop over that dimension ("rows"), each
// member computing its row r before the next member needs it. Softmax is the
// example: the row max, exp(x - max), the row sum and the division then touch
// one row of x while it is in cache instead of streaming the whole array four
// times. CpuFusion (cpu_fusion.h) makes each group a kRowGroup fusion;
// buffer assignment treats it as one step (its members' rows interleave),
// and members no one outside reads live one row at a time.
#ifndef BACKENDS_CPU_TRANSFORMS_ROW_FUSION_H_
#define BACKENDS_CPU_TRANSFORMS_ROW_FUSION_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/types/span.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

// A group stops growing here: the group's row loop is one LLVM function,
// and LLVM's loop passes take superlinear time in the loops of a function
// (a chain of 250 members took seconds), while a row of a few members
// already gets the cache reuse.
constexpr int64_t kMaxRowGroupMembers = 16;

struct RowGroup {
  std::vector<const HloInstruction*> members;  // in emission order, 2 or more
  int64_t rows = 0;                            // extent of the shared dimension
};

// The position in `shape`'s minor_to_major of its most-major dimension
// with more than one row (0 when there is none): parallel ranges and row
// groups run over that dimension, the major ones of size 1 before it (a
// batch of one) being a single index.
int MajorRangeLevel(const Shape& shape);

// The dimension rows run over: the layout-major one with more than one row
// (MajorRangeLevel: a batch of one is skipped, as parallel loops skip it).
int64_t RowDimension(const Shape& shape);

// Groups among `emitted` (every instruction that is emitted, in order).
// `loop_emitted(h)`: h is emitted as a plain loop nest over its own shape
// (only those can join a group); `fused(h)`: h is generated inline inside
// its consumers' loops (so its operands are read where it is used).
std::vector<RowGroup> FindRowGroups(absl::Span<const HloInstruction* const> emitted,
                                    const std::function<bool(const HloInstruction*)>& loop_emitted,
                                    const std::function<bool(const HloInstruction*)>& fused);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TRANSFORMS_ROW_FUSION_H_
