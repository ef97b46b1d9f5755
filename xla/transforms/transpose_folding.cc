#include "xla/transforms/transpose_folding.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

// Operand `side` (0: lhs, 1: rhs) of a dot with these dimension numbers,
// read through transpose `perm` (operand dim i is dim perm[i] of the
// transpose's input): the dimension numbers naming the input's dimensions
// instead, or nullopt when that would change the dot's result layout.
std::optional<DotDimensionNumbers> FoldedNumbers(const DotDimensionNumbers& numbers, int side,
                                                 absl::Span<const int64_t> perm) {
  const auto& contracting = side == 0 ? numbers.lhs_contracting_dimensions() : numbers.rhs_contracting_dimensions();
  const auto& batch = side == 0 ? numbers.lhs_batch_dimensions() : numbers.rhs_batch_dimensions();
  std::vector<bool> free(perm.size(), true);
  for (int64_t d : contracting) free[d] = false;
  for (int64_t d : batch) {
    if (perm[d] != d) return std::nullopt;
    free[d] = false;
  }
  // The result lists the operand's free dimensions in increasing order.
  int64_t previous = -1;
  for (size_t d = 0; d < perm.size(); ++d) {
    if (!free[d]) continue;
    if (perm[d] <= previous) return std::nullopt;
    previous = perm[d];
  }
  DotDimensionNumbers folded = numbers;
  auto* renamed = side == 0 ? folded.mutable_lhs_contracting_dimensions() : folded.mutable_rhs_contracting_dimensions();
  for (int64_t& d : *renamed) d = perm[d];
  return folded;
}

// Folds the transposes feeding `dot` (either side, then the other of the
// result); whether it replaced the dot.
absl::StatusOr<bool> FoldTransposes(HloComputation* computation, NameUniquer* names, HloInstruction* dot) {
  bool folded = false;
  HloInstruction* current = dot;
  for (int side = 0; side < 2; ++side) {
    const HloInstruction* transpose = current->operand(side);
    if (transpose->opcode() != HloOpcode::kTranspose) continue;
    std::optional<DotDimensionNumbers> numbers =
        FoldedNumbers(current->attributes().dot_dimension_numbers(), side, transpose->dimensions());
    if (!numbers.has_value()) continue;
    HloInstructionProto attributes = current->attributes();
    *attributes.mutable_dot_dimension_numbers() = *numbers;
    std::vector<HloInstruction*> operands = {current->mutable_operand(0), current->mutable_operand(1)};
    operands[side] = const_cast<HloInstruction*>(transpose)->mutable_operand(0);
    // Shape inference checks the result: a refusal leaves the dot as is.
    absl::StatusOr<HloInstruction*> replacement =
        MakeInstruction(computation, names, HloOpcode::kDot, current->shape(), operands, attributes);
    if (!replacement.ok()) continue;
    ASSIGN_OR_RETURN(bool replaced, ReplaceInstruction(current, *replacement));
    if (!replaced) {
      RETURN_IF_ERROR(RemoveDeadRecursively(*replacement));
      break;
    }
    folded = true;
    current = *replacement;
  }
  return folded;
}

}  // namespace

absl::StatusOr<bool> TransposeFolding::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kDot, FoldTransposes);
}

}  // namespace xla
