#include "xla/transforms/dimension_size_lowering.h"

#include <optional>

#include "xla/literal.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

bool HasOneDimension(const HloInstruction* i) {
  return i->attributes().dimensions_size() == 1 && i->operand(0)->shape().IsArray() &&
         i->attributes().dimensions(0) >= 0 && i->attributes().dimensions(0) < i->operand(0)->shape().rank();
}

absl::StatusOr<bool> LowerGet(HloComputation* computation, NameUniquer* names, HloInstruction* get) {
  if (!HasOneDimension(get)) return false;  // the verifier reports it
  const int64_t size = get->operand(0)->shape().dimensions(get->attributes().dimensions(0));
  HloInstruction* constant = MakeConstant(computation, names, Literal::CreateR0<int32_t>(static_cast<int32_t>(size)));
  return ReplaceInstruction(get, constant);
}

absl::StatusOr<bool> LowerSet(HloComputation*, NameUniquer*, HloInstruction* set) {
  if (!HasOneDimension(set) || set->operand_count() != 2) return false;
  const int64_t dimension = set->attributes().dimensions(0);
  const Shape& operand = set->operand(0)->shape();
  const int64_t bound = operand.dimensions(dimension);
  std::optional<Literal> size = GetSplatValue(set->operand(1));
  if (!size.has_value() || size->shape().element_type() != S32) {
    return Unimplemented(
        "set-dimension-size '%s': a size computed at run time (not a constant) needs dynamic shapes, which are not "
        "supported",
        set->name());
  }
  const int64_t value = size->data<int32_t>()[0];
  if (value < 0 || value > bound) {
    return InvalidArgument("set-dimension-size '%s': size %d is outside [0, %d], the bound of dimension %d of %s",
                           set->name(), value, bound, dimension, operand.ToString());
  }
  if (value < bound) {
    return Unimplemented(
        "set-dimension-size '%s': size %d below the static size %d of dimension %d makes it dynamic; dynamic shapes "
        "are not supported",
        set->name(), value, bound, dimension);
  }
  return ReplaceInstruction(set, set->mutable_operand(0));
}

}  // namespace

absl::StatusOr<bool> DimensionSizeLowering::Run(HloModule* module) {
  ASSIGN_OR_RETURN(bool got, RewriteEach(module, HloOpcode::kGetDimensionSize, LowerGet));
  ASSIGN_OR_RETURN(bool set, RewriteEach(module, HloOpcode::kSetDimensionSize, LowerSet));
  return got || set;
}

}  // namespace xla
