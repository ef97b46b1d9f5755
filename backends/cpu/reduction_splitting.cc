#include "backends/cpu/reduction_splitting.h"

#include <algorithm>
#include <vector>

#include "absl/algorithm/container.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace cpu {
namespace {

// The largest divisor of `extent` in [2, kMaxPartitions], or 0 if none.
int64_t Partitions(int64_t extent) {
  for (int64_t p = ReductionSplitting::kMaxPartitions; p >= 2; --p) {
    if (extent % p == 0) return p;
  }
  return 0;
}

absl::StatusOr<bool> Split(HloComputation* computation, NameUniquer* names, HloInstruction* reduce) {
  if (reduce->operand_count() != 2 || !reduce->shape().IsArray()) return false;  // variadic: as it is
  HloInstruction* operand = reduce->mutable_operand(0);
  HloInstruction* init = reduce->mutable_operand(1);
  const Shape& in = operand->shape();
  if (!in.IsArray() || in.rank() == 0 || ShapeUtil::ElementsIn(in) < ReductionSplitting::kMinOperandElements ||
      ShapeUtil::ElementsIn(reduce->shape()) >= ReductionSplitting::kMaxResultElements) {
    return false;
  }
  const auto& in_order = in.layout().minor_to_major();
  const int64_t major = in_order.back();
  if (!absl::c_linear_search(reduce->dimensions(), major)) return false;
  const int64_t extent = in.dimensions(major);
  const int64_t partitions = Partitions(extent);
  if (partitions == 0) return false;

  // x[..., R, ...] as x[..., P, R/P, ...] in the same memory order: P most
  // major, then R/P where R was. Old dimension d becomes `moved(d)`.
  auto moved = [major](int64_t d) { return d >= major ? d + 1 : d; };
  std::vector<int64_t> split_dims;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (d == major) split_dims.push_back(partitions);
    split_dims.push_back(d == major ? extent / partitions : in.dimensions(d));
  }
  std::vector<int64_t> split_order;
  for (int64_t d : in_order) split_order.push_back(moved(d));
  split_order.push_back(major);
  ASSIGN_OR_RETURN(HloInstruction * split,
                   MakeInstruction(computation, names, HloOpcode::kReshape,
                                   ShapeUtil::MakeShapeWithLayout(in.element_type(), split_dims, split_order),
                                   {operand}));

  // Partial results: the result with a partition dimension, most major. It
  // sits where P does among the kept dimensions: after the `position` kept
  // dimensions in front of R.
  const Shape& result = reduce->shape();
  int64_t position = 0;
  for (int64_t d = 0; d < major; ++d) position += absl::c_linear_search(reduce->dimensions(), d) ? 0 : 1;
  std::vector<int64_t> partial_dims(result.dimensions().begin(), result.dimensions().end());
  partial_dims.insert(partial_dims.begin() + position, partitions);
  std::vector<int64_t> partial_order;
  for (int64_t r : result.layout().minor_to_major()) partial_order.push_back(r >= position ? r + 1 : r);
  partial_order.push_back(position);
  HloInstructionProto inner = reduce->attributes();
  inner.clear_dimensions();
  std::vector<int64_t> inner_dims;
  for (int64_t d : reduce->dimensions()) inner_dims.push_back(moved(d));
  absl::c_sort(inner_dims);
  for (int64_t d : inner_dims) inner.add_dimensions(d);
  ASSIGN_OR_RETURN(HloInstruction * partial,
                   MakeInstruction(computation, names, HloOpcode::kReduce,
                                   ShapeUtil::MakeShapeWithLayout(result.element_type(), partial_dims, partial_order),
                                   {split, init}, inner, {reduce->to_apply()}));

  // The partitions combined in order.
  HloInstructionProto outer = reduce->attributes();
  outer.clear_dimensions();
  outer.add_dimensions(position);
  ASSIGN_OR_RETURN(HloInstruction * combined, MakeInstruction(computation, names, HloOpcode::kReduce, result,
                                                              {partial, init}, outer, {reduce->to_apply()}));
  return ReplaceInstruction(reduce, combined);
}

}  // namespace

absl::StatusOr<bool> ReductionSplitting::Run(HloModule* module) {
  bool changed = false;
  NameUniquer names(*module);
  for (HloComputation* computation : module->computations()) {
    bool changed_here = false;
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kReduce) continue;
      ASSIGN_OR_RETURN(bool split, Split(computation, &names, instruction));
      changed_here |= split;
    }
    // The new instructions were appended after the reduces' users.
    if (changed_here) computation->RestoreTopologicalOrder();
    changed |= changed_here;
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
