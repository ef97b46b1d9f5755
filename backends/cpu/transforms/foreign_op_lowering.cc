#include "backends/cpu/transforms/foreign_op_lowering.h"

#include <vector>

#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace cpu {
namespace {

// The shape's dimensions from major to minor in its layout.
std::vector<int64_t> MajorToMinor(const Shape& shape) {
  const std::vector<int64_t>& minor_to_major = shape.layout().minor_to_major();
  return std::vector<int64_t>(minor_to_major.rbegin(), minor_to_major.rend());
}

// `shape`'s elements in memory order as a row-major array: dimension i is
// the shape's i-th most major one.
Shape MemoryOrderShape(const Shape& shape, PrimitiveType type) {
  std::vector<int64_t> dims;
  for (int64_t d : MajorToMinor(shape)) dims.push_back(shape.dimensions(d));
  return ShapeUtil::WithDefaultLayout(ShapeUtil::MakeShape(type, dims));
}

bool IsIdentity(const std::vector<int64_t>& permutation) {
  for (size_t i = 0; i < permutation.size(); ++i) {
    if (permutation[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

absl::StatusOr<HloInstruction*> Transpose(HloComputation* computation, NameUniquer* names, HloInstruction* operand,
                                          const Shape& shape, const std::vector<int64_t>& permutation) {
  HloInstructionProto attributes;
  for (int64_t d : permutation) attributes.add_dimensions(d);
  return MakeInstruction(computation, names, HloOpcode::kTranspose, shape, {operand}, attributes);
}

// bitcast(x) as memory order of x -> reshape -> (bitcast-convert) -> the
// result's logical dimensions in its layout.
absl::StatusOr<bool> LowerBitcast(HloComputation* computation, NameUniquer* names, HloInstruction* bitcast) {
  HloInstruction* operand = bitcast->mutable_operand(0);
  const Shape& in = operand->shape();
  const Shape& out = bitcast->shape();
  if (!in.IsArray() || !out.IsArray() ||
      primitive_util::ByteWidth(in.element_type()) != primitive_util::ByteWidth(out.element_type()) ||
      ShapeUtil::ElementsIn(in) != ShapeUtil::ElementsIn(out)) {
    return false;
  }
  HloInstruction* value = operand;
  const std::vector<int64_t> in_order = MajorToMinor(in);
  const Shape in_memory = MemoryOrderShape(in, in.element_type());
  if (!IsIdentity(in_order) || !ShapeUtil::HasDefaultLayout(in)) {
    ASSIGN_OR_RETURN(value, Transpose(computation, names, value, in_memory, in_order));
  }
  const Shape out_memory_in_type = MemoryOrderShape(out, in.element_type());
  if (!ShapeUtil::SameDimensions(value->shape(), out_memory_in_type)) {
    ASSIGN_OR_RETURN(value, MakeInstruction(computation, names, HloOpcode::kReshape, out_memory_in_type, {value}));
  }
  if (in.element_type() != out.element_type()) {
    ASSIGN_OR_RETURN(value, MakeInstruction(computation, names, HloOpcode::kBitcastConvert,
                                            MemoryOrderShape(out, out.element_type()), {value}));
  }
  // Memory-order dimension j is the result's dimension MajorToMinor(out)[j].
  const std::vector<int64_t> out_order = MajorToMinor(out);
  std::vector<int64_t> back(out_order.size());
  for (size_t j = 0; j < out_order.size(); ++j) back[out_order[j]] = static_cast<int64_t>(j);
  if (!IsIdentity(back) || !(value->shape() == out)) {
    ASSIGN_OR_RETURN(value, Transpose(computation, names, value, out, back));
  }
  return ReplaceInstruction(bitcast, value);
}

// g = T{L1} get-tuple-element(t) of an element in layout L0 != L1 becomes
// copy(T{L0} get-tuple-element(t)).
absl::StatusOr<bool> CopyRelaidElement(HloComputation* computation, NameUniquer* names, HloInstruction* gte) {
  const Shape& element = gte->operand(0)->shape().tuple_shapes(gte->tuple_index());
  if (!element.IsArray() || element == gte->shape()) return false;
  HloInstructionProto attributes;
  attributes.set_tuple_index(gte->tuple_index());
  ASSIGN_OR_RETURN(HloInstruction * same, MakeInstruction(computation, names, HloOpcode::kGetTupleElement, element,
                                                          {gte->mutable_operand(0)}, attributes));
  ASSIGN_OR_RETURN(HloInstruction * copy, MakeInstruction(computation, names, HloOpcode::kCopy, gte->shape(), {same}));
  return ReplaceInstruction(gte, copy);
}

// tuple(..., x{L0}, ...) declaring element layout L1 gets copy(x) to L1.
absl::StatusOr<bool> CopyRelaidOperands(HloComputation* computation, NameUniquer* names, HloInstruction* tuple) {
  bool changed = false;
  for (int64_t i = 0; i < tuple->operand_count(); ++i) {
    const Shape& declared = tuple->shape().tuple_shapes(i);
    HloInstruction* operand = tuple->mutable_operand(i);
    if (!declared.IsArray() || operand->shape() == declared) continue;
    ASSIGN_OR_RETURN(HloInstruction * copy, MakeInstruction(computation, names, HloOpcode::kCopy, declared, {operand}));
    tuple->ReplaceOperandWith(i, copy);
    changed = true;
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> ForeignOpLowering::Run(HloModule* module) {
  ASSIGN_OR_RETURN(bool barriers, RewriteEach(module, HloOpcode::kOptimizationBarrier,
                                              [](HloComputation*, NameUniquer*, HloInstruction* barrier) {
                                                return ReplaceInstruction(barrier, barrier->mutable_operand(0));
                                              }));
  ASSIGN_OR_RETURN(bool bitcasts, RewriteEach(module, HloOpcode::kBitcast, LowerBitcast));
  ASSIGN_OR_RETURN(bool elements, RewriteEach(module, HloOpcode::kGetTupleElement, CopyRelaidElement));
  ASSIGN_OR_RETURN(bool tuples, RewriteEach(module, HloOpcode::kTuple, CopyRelaidOperands));
  return barriers || bitcasts || elements || tuples;
}

}  // namespace cpu
}  // namespace xla
