#include "backends/cpu/transforms/concatenate_splitting.h"

#include <algorithm>
#include <vector>

#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace cpu {
namespace {

absl::StatusOr<bool> Split(HloComputation* computation, NameUniquer* names, HloInstruction* concat) {
  constexpr int64_t kMax = ConcatenateSplitting::kMaxOperands;
  if (concat->operand_count() <= kMax || !concat->shape().IsArray()) return false;
  const int64_t dim = concat->dimensions(0);
  std::vector<HloInstruction*> level(concat->operands().begin(), concat->operands().end());
  // Group kMax consecutive operands at a time until one concatenate can
  // take the rest.
  while (static_cast<int64_t>(level.size()) > kMax) {
    std::vector<HloInstruction*> next;
    for (size_t begin = 0; begin < level.size(); begin += kMax) {
      const size_t end = std::min(level.size(), begin + static_cast<size_t>(kMax));
      if (end - begin == 1) {
        next.push_back(level[begin]);
        continue;
      }
      Shape part = concat->shape();  // the same layout, a shorter `dim`
      int64_t extent = 0;
      for (size_t i = begin; i < end; ++i) extent += level[i]->shape().dimensions(dim);
      (*part.mutable_dimensions())[dim] = extent;
      ASSIGN_OR_RETURN(HloInstruction * inner,
                       MakeInstruction(computation, names, HloOpcode::kConcatenate, part,
                                       absl::MakeConstSpan(level).subspan(begin, end - begin), concat->attributes()));
      next.push_back(inner);
    }
    level = std::move(next);
  }
  ASSIGN_OR_RETURN(HloInstruction * outer, MakeInstruction(computation, names, HloOpcode::kConcatenate,
                                                           concat->shape(), level, concat->attributes()));
  return ReplaceInstruction(concat, outer);
}

}  // namespace

absl::StatusOr<bool> ConcatenateSplitting::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kConcatenate, Split);
}

}  // namespace cpu
}  // namespace xla
