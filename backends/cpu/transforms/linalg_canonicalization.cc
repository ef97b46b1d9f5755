#include "backends/cpu/transforms/linalg_canonicalization.h"

#include <vector>

#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace cpu {
namespace {

// The type the runtime computes `type` in.
PrimitiveType RuntimeType(PrimitiveType type) { return type == F16 || type == BF16 ? F32 : type; }

// `operand` row-major in `type`: itself, a convert or a copy.
absl::StatusOr<HloInstruction*> Prepared(HloComputation* computation, NameUniquer* names, HloInstruction* operand,
                                         PrimitiveType type) {
  const Shape wanted = ShapeUtil::WithDefaultLayout(ShapeUtil::ChangeElementType(operand->shape(), type));
  if (operand->shape() == wanted) return operand;
  const HloOpcode opcode = operand->shape().element_type() == type ? HloOpcode::kCopy : HloOpcode::kConvert;
  return MakeInstruction(computation, names, opcode, wanted, {operand});
}

absl::StatusOr<bool> Canonicalize(HloComputation* computation, NameUniquer* names, HloInstruction* hlo) {
  const PrimitiveType result_type = RuntimeType(hlo->shape().element_type());
  const Shape row_major = ShapeUtil::WithDefaultLayout(ShapeUtil::ChangeElementType(hlo->shape(), result_type));
  bool ready = row_major == hlo->shape();
  for (const HloInstruction* o : hlo->operands()) {
    ready &= o->shape() == ShapeUtil::WithDefaultLayout(
                               ShapeUtil::ChangeElementType(o->shape(), RuntimeType(o->shape().element_type())));
  }
  if (ready) return false;
  std::vector<HloInstruction*> operands;
  for (HloInstruction* o : hlo->operands()) {
    ASSIGN_OR_RETURN(HloInstruction * prepared,
                     Prepared(computation, names, o, RuntimeType(o->shape().element_type())));
    operands.push_back(prepared);
  }
  ASSIGN_OR_RETURN(HloInstruction * computed, MakeInstruction(computation, names, hlo->opcode(), row_major, operands,
                                                              hlo->attributes()));
  HloInstruction* result = computed;
  if (row_major != hlo->shape()) {
    const HloOpcode opcode = result_type == hlo->shape().element_type() ? HloOpcode::kCopy : HloOpcode::kConvert;
    ASSIGN_OR_RETURN(result, MakeInstruction(computation, names, opcode, hlo->shape(), {computed}));
  }
  return ReplaceInstruction(hlo, result);
}

}  // namespace

absl::StatusOr<bool> LinalgCanonicalization::Run(HloModule* module) {
  bool changed = false;
  for (HloOpcode opcode : {HloOpcode::kFft, HloOpcode::kTriangularSolve, HloOpcode::kCholesky}) {
    ASSIGN_OR_RETURN(bool c, RewriteEach(module, opcode, Canonicalize));
    changed |= c;
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
