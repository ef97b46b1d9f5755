// AlgebraicSimplifier rules for data-movement ops: identity reshape,
// transpose, broadcast, slice, pad, reverse and single-operand concatenate
// are removed; reshape of reshape, transpose of transpose, broadcast of
// broadcast, transpose of broadcast and slice of slice are composed into one
// op; reshape/transpose/broadcast/slice of a splat (a constant whose elements
// are all equal, or a broadcast of a scalar) become a broadcast of a scalar;
// a slice of a broadcast that keeps the operand's dimensions whole is a
// smaller broadcast, a broadcast of a reshape that only inserts size-1
// dimensions reads the reshape's operand, and a slice that cuts exactly a
// pad's edges away is the padded operand.
#include <vector>

#include "absl/algorithm/container.h"
#include "xla/shape_util.h"
#include "xla/transforms/algsimp_rules.h"

namespace xla {
namespace algsimp {
namespace {

bool IsIdentityPermutation(absl::Span<const int64_t> permutation) {
  for (size_t i = 0; i < permutation.size(); ++i) {
    if (permutation[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

bool IsStrictlyIncreasing(absl::Span<const int64_t> values) {
  for (size_t i = 1; i < values.size(); ++i) {
    if (values[i] <= values[i - 1]) return false;
  }
  return true;
}

HloInstructionProto DimensionsAttribute(absl::Span<const int64_t> dimensions) {
  HloInstructionProto attributes;
  for (int64_t d : dimensions) attributes.add_dimensions(d);
  return attributes;
}

// A rule that builds a new instruction treats a shape-inference rejection as
// "does not apply".
HloInstruction* OrNull(absl::StatusOr<HloInstruction*> made) { return made.ok() ? *made : nullptr; }

// broadcast(scalar) with `instruction`'s shape, when `operand` is a splat
// other than a broadcast of a rank-0 value already shaped like `instruction`:
// splat constants of more than one element become a scalar constant
// broadcast; a broadcast of a scalar is re-broadcast to the new shape.
HloInstruction* SplatAsBroadcast(HloInstruction* instruction, HloInstruction* operand,
                                 const RewriteContext& context) {
  const Shape& shape = instruction->shape();
  if (!shape.IsArray()) return nullptr;
  if (operand->opcode() == HloOpcode::kBroadcast && ShapeUtil::IsScalar(operand->operand(0)->shape())) {
    return OrNull(MakeInstruction(context.computation, context.names, HloOpcode::kBroadcast, shape,
                                  {operand->mutable_operand(0)}, DimensionsAttribute({})));
  }
  if (operand->opcode() != HloOpcode::kConstant) return nullptr;
  std::optional<Literal> splat = GetSplatValue(operand);
  if (!splat.has_value()) return nullptr;
  if (ShapeUtil::ElementsIn(shape) == 1) {
    // One element: a constant of the new shape is as small as the old one.
    absl::StatusOr<Literal> reshaped = splat->Reshape(shape.dimensions());
    if (!reshaped.ok()) return nullptr;
    return MakeConstant(context.computation, context.names, reshaped->RelayoutTo(shape));
  }
  HloInstruction* scalar = MakeConstant(context.computation, context.names, std::move(*splat));
  HloInstruction* broadcast = OrNull(
      MakeInstruction(context.computation, context.names, HloOpcode::kBroadcast, shape, {scalar}, DimensionsAttribute({})));
  if (broadcast == nullptr) (void)context.computation->RemoveInstruction(scalar);
  return broadcast;
}

HloInstruction* SimplifyReshape(HloInstruction* reshape, const RewriteContext& context) {
  HloInstruction* operand = reshape->mutable_operand(0);
  if (operand->shape().Compatible(reshape->shape())) return operand;
  if (operand->opcode() == HloOpcode::kReshape) {
    HloInstruction* source = operand->mutable_operand(0);
    if (source->shape().Compatible(reshape->shape())) return source;
    return OrNull(MakeInstruction(context.computation, context.names, HloOpcode::kReshape, reshape->shape(),
                                  {operand->mutable_operand(0)}, reshape->attributes()));
  }
  return SplatAsBroadcast(reshape, operand, context);
}

HloInstruction* SimplifyTranspose(HloInstruction* transpose, const RewriteContext& context) {
  HloInstruction* operand = transpose->mutable_operand(0);
  absl::Span<const int64_t> perm = transpose->dimensions();
  if (IsIdentityPermutation(perm)) return operand;
  if (operand->opcode() == HloOpcode::kTranspose) {
    // Output dim k reads operand dim perm[k], which reads inner dim inner[perm[k]].
    absl::Span<const int64_t> inner = operand->dimensions();
    std::vector<int64_t> composed(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) composed[k] = inner[perm[k]];
    if (IsIdentityPermutation(composed)) return operand->mutable_operand(0);
    return OrNull(MakeInstruction(context.computation, context.names, HloOpcode::kTranspose, transpose->shape(),
                                  {operand->mutable_operand(0)}, DimensionsAttribute(composed)));
  }
  if (operand->opcode() == HloOpcode::kBroadcast && !ShapeUtil::IsScalar(operand->operand(0)->shape())) {
    // Broadcast operand dim i lands on dim d[i], which the transpose moves to inverse[d[i]].
    std::vector<int64_t> inverse(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) inverse[perm[k]] = static_cast<int64_t>(k);
    std::vector<int64_t> dims;
    for (int64_t d : operand->dimensions()) dims.push_back(inverse[d]);
    // Only when the operand's dimensions keep their order (an unsorted
    // broadcast would hide a transpose of the operand).
    if (!IsStrictlyIncreasing(dims)) return nullptr;
    return OrNull(MakeInstruction(context.computation, context.names, HloOpcode::kBroadcast, transpose->shape(),
                                  {operand->mutable_operand(0)}, DimensionsAttribute(dims)));
  }
  return SplatAsBroadcast(transpose, operand, context);
}

HloInstruction* SimplifyBroadcast(HloInstruction* broadcast, const RewriteContext& context) {
  HloInstruction* operand = broadcast->mutable_operand(0);
  if (operand->shape().Compatible(broadcast->shape()) && IsIdentityPermutation(broadcast->dimensions())) {
    return operand;
  }
  if (operand->opcode() == HloOpcode::kBroadcast) {
    // x dim i -> inner dim inner[i] -> outer dim outer[inner[i]].
    std::vector<int64_t> dims;
    for (int64_t d : operand->dimensions()) dims.push_back(broadcast->dimensions(static_cast<int>(d)));
    HloInstruction* source = operand->mutable_operand(0);
    if (source->shape().Compatible(broadcast->shape()) && IsIdentityPermutation(dims)) return source;
    return OrNull(MakeInstruction(context.computation, context.names, HloOpcode::kBroadcast, broadcast->shape(),
                                  {operand->mutable_operand(0)}, DimensionsAttribute(dims)));
  }
  if (operand->opcode() == HloOpcode::kReshape) {
    // A reshape that only inserts dimensions of size 1 (a "keepdims" reduce
    // result, [n] -> [n,1]): x's dimensions are the reshape's other ones, in
    // order, so the broadcast can read x itself.
    HloInstruction* source = operand->mutable_operand(0);
    const Shape& x = source->shape();
    const Shape& reshaped = operand->shape();
    std::vector<int64_t> dims;
    int64_t next = 0;  // the next x dimension to match
    for (int64_t j = 0; j < reshaped.rank(); ++j) {
      if (next < x.rank() && reshaped.dimensions(j) == x.dimensions(next)) {
        dims.push_back(broadcast->dimensions(static_cast<int>(j)));
        ++next;
      } else if (reshaped.dimensions(j) != 1) {
        return nullptr;
      }
    }
    if (next != x.rank() || absl::c_linear_search(x.dimensions(), 1)) return nullptr;
    return OrNull(MakeInstruction(context.computation, context.names, HloOpcode::kBroadcast, broadcast->shape(),
                                  {source}, DimensionsAttribute(dims)));
  }
  if (operand->opcode() == HloOpcode::kConstant && !ShapeUtil::IsScalar(operand->shape())) {
    return SplatAsBroadcast(broadcast, operand, context);
  }
  return nullptr;
}

HloInstruction* SimplifySlice(HloInstruction* slice, const RewriteContext& context) {
  HloInstruction* operand = slice->mutable_operand(0);
  const auto& dims = slice->attributes().slice_dimensions();
  bool identity = dims.size() == operand->shape().rank();
  for (int d = 0; identity && d < dims.size(); ++d) {
    identity = dims[d].start() == 0 && dims[d].limit() == operand->shape().dimensions(d) && dims[d].stride() == 1;
  }
  if (identity) return operand;
  if (operand->opcode() == HloOpcode::kSlice) {
    // out[j] = inner[s2 + j*t2] = x[s1 + (s2 + j*t2)*t1].
    const auto& inner = operand->attributes().slice_dimensions();
    if (inner.size() != dims.size()) return nullptr;
    HloInstructionProto attributes;
    for (int d = 0; d < dims.size(); ++d) {
      const int64_t start = inner[d].start() + dims[d].start() * inner[d].stride();
      const int64_t stride = inner[d].stride() * dims[d].stride();
      const int64_t count = slice->shape().dimensions(d);
      auto* sd = attributes.add_slice_dimensions();
      sd->set_start(start);
      sd->set_limit(count == 0 ? start : start + (count - 1) * stride + 1);
      sd->set_stride(stride);
    }
    return OrNull(MakeInstruction(context.computation, context.names, HloOpcode::kSlice, slice->shape(),
                                  {operand->mutable_operand(0)}, std::move(attributes)));
  }
  if (operand->opcode() == HloOpcode::kBroadcast) {
    // Slicing only dimensions the broadcast created (the operand's
    // dimensions are kept whole) is a smaller broadcast of the same operand.
    const HloInstruction* source = operand->operand(0);
    bool keeps_source = dims.size() == operand->shape().rank();
    for (int i = 0; keeps_source && i < source->shape().rank(); ++i) {
      const int d = static_cast<int>(operand->dimensions(i));
      keeps_source = dims[d].start() == 0 && dims[d].stride() == 1 &&
                     dims[d].limit() == operand->shape().dimensions(d) &&
                     source->shape().dimensions(i) == operand->shape().dimensions(d);
    }
    if (keeps_source) {
      return OrNull(MakeInstruction(context.computation, context.names, HloOpcode::kBroadcast, slice->shape(),
                                    {operand->mutable_operand(0)}, DimensionsAttribute(operand->dimensions())));
    }
  }
  if (operand->opcode() == HloOpcode::kPad) {
    // A slice that cuts exactly the edge padding away.
    const HloInstruction* source = operand->operand(0);
    const auto& padding = operand->attributes().padding_config().dimensions();
    bool strips = dims.size() == source->shape().rank() && padding.size() == dims.size();
    for (int d = 0; strips && d < dims.size(); ++d) {
      strips = padding[d].interior_padding() == 0 && dims[d].stride() == 1 &&
               dims[d].start() == padding[d].edge_padding_low() &&
               dims[d].limit() == padding[d].edge_padding_low() + source->shape().dimensions(d);
    }
    if (strips) return operand->mutable_operand(0);
  }
  return nullptr;
}

HloInstruction* SimplifyPad(HloInstruction* pad) {
  for (const auto& d : pad->attributes().padding_config().dimensions()) {
    if (d.edge_padding_low() != 0 || d.edge_padding_high() != 0 || d.interior_padding() != 0) return nullptr;
  }
  return pad->mutable_operand(0);
}

HloInstruction* SimplifyReverse(HloInstruction* reverse) {
  HloInstruction* operand = reverse->mutable_operand(0);
  // Reversing only dimensions of size <= 1, or a splat, moves nothing.
  bool moves = false;
  for (int64_t d : reverse->dimensions()) moves |= operand->shape().dimensions(static_cast<int>(d)) > 1;
  if (!moves) return operand;
  if (operand->opcode() == HloOpcode::kBroadcast && ShapeUtil::IsScalar(operand->operand(0)->shape())) {
    return operand;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<HloInstruction*> SimplifyShapeOp(HloInstruction* instruction, const RewriteContext& context) {
  switch (instruction->opcode()) {
    case HloOpcode::kReshape:
      return SimplifyReshape(instruction, context);
    case HloOpcode::kTranspose:
      return SimplifyTranspose(instruction, context);
    case HloOpcode::kBroadcast:
      return SimplifyBroadcast(instruction, context);
    case HloOpcode::kSlice:
      return SimplifySlice(instruction, context);
    case HloOpcode::kPad:
      return SimplifyPad(instruction);
    case HloOpcode::kReverse:
      return SimplifyReverse(instruction);
    case HloOpcode::kConcatenate:
      return instruction->operand_count() == 1 ? instruction->mutable_operand(0) : nullptr;
    default:
      return nullptr;
  }
}

}  // namespace algsimp
}  // namespace xla
