#include "backends/cpu/transforms/reduction_splitting.h"

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

// `shape` (a result array) with a partition dimension of `partitions` at
// `position`, most major.
Shape WithPartitions(const Shape& shape, int64_t position, int64_t partitions) {
  std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  dims.insert(dims.begin() + position, partitions);
  std::vector<int64_t> order;
  for (int64_t r : shape.layout().minor_to_major()) order.push_back(r >= position ? r + 1 : r);
  order.push_back(position);
  return ShapeUtil::MakeShapeWithLayout(shape.element_type(), dims, order);
}

absl::StatusOr<bool> Split(HloComputation* computation, NameUniquer* names, HloInstruction* reduce) {
  // Operands x_0..x_{n-1} (one dimensions and layout), then their inits.
  const int64_t n = reduce->operand_count() / 2;
  const Shape& in = reduce->operand(0)->shape();
  if (n < 1 || !in.IsArray() || in.rank() == 0 || ShapeUtil::ElementsIn(in) < ReductionSplitting::kMinOperandElements) {
    return false;
  }
  for (int64_t i = 1; i < n; ++i) {
    const Shape& other = reduce->operand(i)->shape();
    if (!other.IsArray() || other.dimensions() != in.dimensions() ||
        other.layout().minor_to_major() != in.layout().minor_to_major()) {
      return false;
    }
  }
  const Shape& result = reduce->shape();
  const Shape& result0 = result.IsTuple() ? result.tuple_shapes(0) : result;
  if (!result0.IsArray() || ShapeUtil::ElementsIn(result0) >= ReductionSplitting::kMaxResultElements) return false;
  // The most-major dimension must be the reduce's outermost one too: the
  // fold runs over the reduced dimensions in row-major order, so
  // partitions of any other dimension would interleave in that order.
  const auto& in_order = in.layout().minor_to_major();
  const int64_t major = in_order.back();
  const absl::Span<const int64_t> reduced = reduce->dimensions();
  if (reduced.empty() || major != *std::min_element(reduced.begin(), reduced.end())) return false;
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
  std::vector<HloInstruction*> partial_operands;
  for (int64_t i = 0; i < n; ++i) {
    HloInstruction* x = reduce->mutable_operand(i);
    ASSIGN_OR_RETURN(HloInstruction * split,
                     MakeInstruction(computation, names, HloOpcode::kReshape,
                                     ShapeUtil::MakeShapeWithLayout(x->shape().element_type(), split_dims, split_order),
                                     {x}));
    partial_operands.push_back(split);
  }
  for (int64_t i = n; i < 2 * n; ++i) partial_operands.push_back(reduce->mutable_operand(i));

  // Partial results: each result with a partition dimension, most major. It
  // sits where P does among the kept dimensions: after the `position` kept
  // dimensions in front of R.
  int64_t position = 0;
  for (int64_t d = 0; d < major; ++d) position += absl::c_linear_search(reduced, d) ? 0 : 1;
  Shape partial_shape;
  if (result.IsTuple()) {
    std::vector<Shape> leaves;
    for (const Shape& leaf : result.tuple_shapes()) leaves.push_back(WithPartitions(leaf, position, partitions));
    partial_shape = ShapeUtil::MakeTupleShape(std::move(leaves));
  } else {
    partial_shape = WithPartitions(result, position, partitions);
  }
  HloInstructionProto inner = reduce->attributes();
  inner.clear_dimensions();
  std::vector<int64_t> inner_dims;
  for (int64_t d : reduced) inner_dims.push_back(moved(d));
  absl::c_sort(inner_dims);
  for (int64_t d : inner_dims) inner.add_dimensions(d);
  ASSIGN_OR_RETURN(HloInstruction * partial, MakeInstruction(computation, names, HloOpcode::kReduce, partial_shape,
                                                             partial_operands, inner, {reduce->to_apply()}));

  // The partitions combined in order.
  std::vector<HloInstruction*> combine_operands;
  if (result.IsTuple()) {
    for (int64_t i = 0; i < n; ++i) {
      HloInstructionProto element;
      element.set_tuple_index(i);
      ASSIGN_OR_RETURN(HloInstruction * leaf,
                       MakeInstruction(computation, names, HloOpcode::kGetTupleElement,
                                       partial_shape.tuple_shapes(i), {partial}, element));
      combine_operands.push_back(leaf);
    }
  } else {
    combine_operands.push_back(partial);
  }
  for (int64_t i = n; i < 2 * n; ++i) combine_operands.push_back(reduce->mutable_operand(i));
  HloInstructionProto outer = reduce->attributes();
  outer.clear_dimensions();
  outer.add_dimensions(position);
  ASSIGN_OR_RETURN(HloInstruction * combined, MakeInstruction(computation, names, HloOpcode::kReduce, result,
                                                              combine_operands, outer, {reduce->to_apply()}));
  return ReplaceInstruction(reduce, combined);
}

}  // namespace

absl::StatusOr<bool> ReductionSplitting::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kReduce, Split);
}

}  // namespace cpu
}  // namespace xla
