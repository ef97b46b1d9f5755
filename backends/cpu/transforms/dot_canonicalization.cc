#include "backends/cpu/transforms/dot_canonicalization.h"

#include <vector>

#include "backends/cpu/transforms/matmul_plan.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace cpu {
namespace {

// `operand` with its dimensions in `order` (row-major): a transpose, or a
// layout-changing copy when the order is already the logical one.
absl::StatusOr<HloInstruction*> Arranged(HloComputation* computation, NameUniquer* names, HloInstruction* operand,
                                         const std::vector<int64_t>& order) {
  const Shape& shape = operand->shape();
  std::vector<int64_t> dims;
  for (int64_t d : order) dims.push_back(shape.dimensions(d));
  const Shape arranged = ShapeUtil::MakeShape(shape.element_type(), dims);
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) identity &= order[i] == static_cast<int64_t>(i);
  if (identity) {
    if (ShapeUtil::HasDefaultLayout(shape)) return operand;
    return MakeInstruction(computation, names, HloOpcode::kCopy, arranged, {operand});
  }
  HloInstructionProto attributes;
  for (int64_t d : order) attributes.add_dimensions(d);
  return MakeInstruction(computation, names, HloOpcode::kTranspose, arranged, {operand}, attributes);
}

bool IsRealFloat(PrimitiveType type) { return type == F16 || type == BF16 || type == F32 || type == F64; }

// `operand` converted to `type` (itself when it has that type).
absl::StatusOr<HloInstruction*> Converted(HloComputation* computation, NameUniquer* names, HloInstruction* operand,
                                          PrimitiveType type) {
  if (operand->shape().element_type() == type) return operand;
  return MakeInstruction(computation, names, HloOpcode::kConvert,
                         ShapeUtil::ChangeElementType(operand->shape(), type), {operand});
}

absl::StatusOr<bool> Canonicalize(HloComputation* computation, NameUniquer* names, HloInstruction* dot) {
  const PrimitiveType type = dot->shape().element_type();
  if (!IsRealFloat(type) || !IsRealFloat(dot->operand(0)->shape().element_type()) ||
      !IsRealFloat(dot->operand(1)->shape().element_type()) || PlanRuntimeMatMul(*dot).has_value()) {
    return false;
  }
  const DotDimensionNumbers& numbers = dot->attributes().dot_dimension_numbers();
  const auto& lb = numbers.lhs_batch_dimensions();
  const auto& rb = numbers.rhs_batch_dimensions();
  const auto& lc = numbers.lhs_contracting_dimensions();
  const auto& rc = numbers.rhs_contracting_dimensions();
  for (int64_t d : lc) {
    if (dot->operand(0)->shape().dimensions(d) == 0) return false;  // zeros: the loops
  }
  // The loops accumulate f16/bf16 products in f32 and round once: the
  // runtime's f32 product, converted, does the same.
  const PrimitiveType runtime_type = type == F64 ? F64 : F32;
  ASSIGN_OR_RETURN(HloInstruction * lhs, Converted(computation, names, dot->mutable_operand(0), runtime_type));
  ASSIGN_OR_RETURN(HloInstruction * rhs, Converted(computation, names, dot->mutable_operand(1), runtime_type));
  const std::vector<int64_t> lf = DotFreeDimensions(lhs->shape().rank(), lb, lc);
  const std::vector<int64_t> rf = DotFreeDimensions(rhs->shape().rank(), rb, rc);
  std::vector<int64_t> lhs_order(lb.begin(), lb.end()), rhs_order(rb.begin(), rb.end());
  lhs_order.insert(lhs_order.end(), lf.begin(), lf.end());
  lhs_order.insert(lhs_order.end(), lc.begin(), lc.end());
  rhs_order.insert(rhs_order.end(), rc.begin(), rc.end());
  rhs_order.insert(rhs_order.end(), rf.begin(), rf.end());
  ASSIGN_OR_RETURN(HloInstruction * new_lhs, Arranged(computation, names, lhs, lhs_order));
  ASSIGN_OR_RETURN(HloInstruction * new_rhs, Arranged(computation, names, rhs, rhs_order));
  const int64_t nb = lb.size();
  HloInstructionProto attributes = dot->attributes();
  DotDimensionNumbers* canonical = attributes.mutable_dot_dimension_numbers();
  canonical->Clear();
  for (int64_t i = 0; i < nb; ++i) {
    canonical->add_lhs_batch_dimensions(i);
    canonical->add_rhs_batch_dimensions(i);
  }
  for (int64_t j = 0; j < lc.size(); ++j) {
    canonical->add_lhs_contracting_dimensions(nb + static_cast<int64_t>(lf.size()) + j);
    canonical->add_rhs_contracting_dimensions(nb + j);
  }
  const Shape row_major = ShapeUtil::WithDefaultLayout(ShapeUtil::ChangeElementType(dot->shape(), runtime_type));
  ASSIGN_OR_RETURN(HloInstruction * new_dot, MakeInstruction(computation, names, HloOpcode::kDot, row_major,
                                                             {new_lhs, new_rhs}, attributes));
  if (!PlanRuntimeMatMul(*new_dot).has_value()) {  // not expected: keep the loops
    RETURN_IF_ERROR(RemoveDeadRecursively(new_dot));
    return false;
  }
  HloInstruction* result = new_dot;
  if (row_major != dot->shape()) {  // another element type or layout
    const HloOpcode opcode = runtime_type == type ? HloOpcode::kCopy : HloOpcode::kConvert;
    ASSIGN_OR_RETURN(result, MakeInstruction(computation, names, opcode, dot->shape(), {new_dot}));
  }
  return ReplaceInstruction(dot, result);
}

}  // namespace

absl::StatusOr<bool> DotCanonicalization::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kDot, Canonicalize);
}

}  // namespace cpu
}  // namespace xla
