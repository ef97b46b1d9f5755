#include "xla/hlo/scalar_reducer.h"

namespace xla {
namespace {

bool IsScalarOf(const Shape& s, PrimitiveType type) {
  return s.IsArray() && s.rank() == 0 && s.element_type() == type;
}

}  // namespace

std::optional<ScalarBinaryReducer> MatchScalarBinaryReducer(const HloComputation& computation, PrimitiveType type) {
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr || computation.num_parameters() != 2 || root->operand_count() != 2 ||
      !IsScalarOf(root->shape(), type)) {
    return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter || b->opcode() != HloOpcode::kParameter) return std::nullopt;
  if (!IsScalarOf(a->shape(), type) || !IsScalarOf(b->shape(), type)) return std::nullopt;
  if (a->parameter_number() == 0 && b->parameter_number() == 1) return ScalarBinaryReducer{root->opcode(), false};
  if (a->parameter_number() == 1 && b->parameter_number() == 0) return ScalarBinaryReducer{root->opcode(), true};
  return std::nullopt;
}

}  // namespace xla
