// AlgebraicSimplifier rules for arithmetic: additive and multiplicative
// identities (exact under IEEE semantics, see algebraic_simplifier.h),
// double negation, select with a constant predicate, no-op converts.
#include "xla/primitive_util.h"
#include "xla/transforms/algsimp_rules.h"

namespace xla {
namespace algsimp {
namespace {

bool IsInt(const HloInstruction* i) { return primitive_util::IsIntegralType(i->shape().element_type()); }
bool IsFloat(const HloInstruction* i) { return primitive_util::IsFloatingPointType(i->shape().element_type()); }

HloInstruction* SimplifyAdd(HloInstruction* add, const RewriteContext& context) {
  HloInstruction* lhs = add->mutable_operand(0);
  HloInstruction* rhs = add->mutable_operand(1);
  if (IsInt(add)) {
    if (IsSplatValue(rhs, 0)) return lhs;
    if (IsSplatValue(lhs, 0)) return rhs;
  } else if (IsFloat(add)) {
    // x + (-0) == x for every x, including -0 and NaN.
    if (IsSplatValue(rhs, -0.0)) return lhs;
    if (IsSplatValue(lhs, -0.0)) return rhs;
    if (context.options->allow_signed_zero_changes) {
      if (IsSplatValue(rhs, 0.0)) return lhs;
      if (IsSplatValue(lhs, 0.0)) return rhs;
    }
  }
  return nullptr;
}

HloInstruction* SimplifySubtract(HloInstruction* sub) {
  // x - (+0) == x for every x (-0 - +0 is -0).
  if ((IsInt(sub) || IsFloat(sub)) && IsSplatValue(sub->operand(1), 0.0)) return sub->mutable_operand(0);
  return nullptr;
}

HloInstruction* SimplifyMultiply(HloInstruction* mul) {
  HloInstruction* lhs = mul->mutable_operand(0);
  HloInstruction* rhs = mul->mutable_operand(1);
  if (!IsInt(mul) && !IsFloat(mul)) return nullptr;
  if (IsSplatValue(rhs, 1)) return lhs;
  if (IsSplatValue(lhs, 1)) return rhs;
  if (IsInt(mul)) {
    if (IsSplatValue(rhs, 0)) return rhs;
    if (IsSplatValue(lhs, 0)) return lhs;
  }
  return nullptr;
}

HloInstruction* SimplifyDivide(HloInstruction* div) {
  if ((IsInt(div) || IsFloat(div)) && IsSplatValue(div->operand(1), 1)) return div->mutable_operand(0);
  return nullptr;
}

HloInstruction* SimplifySelect(HloInstruction* select) {
  HloInstruction* on_true = select->mutable_operand(1);
  HloInstruction* on_false = select->mutable_operand(2);
  if (on_true == on_false) return on_true;
  std::optional<Literal> predicate = GetSplatValue(select->operand(0));
  if (!predicate.has_value() || predicate->element_type() != PRED) return nullptr;
  return predicate->GetAsInt64(0) != 0 ? on_true : on_false;
}

}  // namespace

absl::StatusOr<HloInstruction*> SimplifyArithmetic(HloInstruction* instruction, const RewriteContext& context) {
  switch (instruction->opcode()) {
    case HloOpcode::kAdd:
      return SimplifyAdd(instruction, context);
    case HloOpcode::kSubtract:
      return SimplifySubtract(instruction);
    case HloOpcode::kMultiply:
      return SimplifyMultiply(instruction);
    case HloOpcode::kDivide:
      return SimplifyDivide(instruction);
    case HloOpcode::kNegate:
      // -(-x) == x bit for bit (integers wrap symmetrically, floats flip the sign bit).
      if (instruction->operand(0)->opcode() == HloOpcode::kNegate) {
        return instruction->mutable_operand(0)->mutable_operand(0);
      }
      return nullptr;
    case HloOpcode::kSelect:
      return SimplifySelect(instruction);
    case HloOpcode::kConvert:
      if (instruction->operand(0)->shape().element_type() == instruction->shape().element_type()) {
        return instruction->mutable_operand(0);
      }
      return nullptr;
    default:
      return nullptr;
  }
}

}  // namespace algsimp
}  // namespace xla
