#include "xla/transforms/while_loop_simplifier.h"

#include <limits>
#include <vector>

#include "xla/primitive_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

bool IsSignedScalar(const Shape& shape) {
  return shape.IsArray() && shape.rank() == 0 && primitive_util::IsSignedIntegralType(shape.element_type());
}

int64_t MaxValue(PrimitiveType type) {
  switch (type) {
    case S8: return std::numeric_limits<int8_t>::max();
    case S16: return std::numeric_limits<int16_t>::max();
    case S32: return std::numeric_limits<int32_t>::max();
    default: return std::numeric_limits<int64_t>::max();
  }
}

std::optional<int64_t> ScalarConstantValue(const HloInstruction* i) {
  if (!IsKnownConstant(i) || !IsSignedScalar(i->shape())) return std::nullopt;
  absl::StatusOr<int64_t> v = i->literal().GetIntegralScalar();
  if (!v.ok()) return std::nullopt;
  return *v;
}

// gte(parameter 0 of `computation`, index) -> index.
std::optional<int64_t> ParameterElementIndex(const HloInstruction* i, const HloComputation& computation) {
  if (i->opcode() != HloOpcode::kGetTupleElement) return std::nullopt;
  if (computation.num_parameters() != 1 || i->operand(0) != computation.parameter_instruction(0)) return std::nullopt;
  return i->tuple_index();
}

// Initial value of the state's element `index`.
std::optional<int64_t> InitialValue(const HloInstruction* init, int64_t index) {
  if (init->opcode() == HloOpcode::kTuple) {
    if (index >= init->operand_count()) return std::nullopt;
    return ScalarConstantValue(init->operand(index));
  }
  if (IsKnownConstant(init) && init->shape().IsTuple()) {
    const auto& elements = init->literal().tuple_elements();
    if (index >= static_cast<int64_t>(elements.size())) return std::nullopt;
    const Literal& element = elements[index];
    if (!IsSignedScalar(element.shape())) return std::nullopt;
    absl::StatusOr<int64_t> v = element.GetIntegralScalar();
    if (!v.ok()) return std::nullopt;
    return *v;
  }
  return std::nullopt;
}

// Whether the body's root sets element `index` to element `index` plus one.
bool IncrementsByOne(const HloComputation& body, int64_t index) {
  const HloInstruction* root = body.root_instruction();
  if (root->opcode() != HloOpcode::kTuple || index >= root->operand_count()) return false;
  const HloInstruction* next = root->operand(index);
  if (next->opcode() != HloOpcode::kAdd) return false;
  for (int side = 0; side < 2; ++side) {
    std::optional<int64_t> previous = ParameterElementIndex(next->operand(side), body);
    std::optional<int64_t> step = ScalarConstantValue(next->operand(1 - side));
    if (previous == index && step == 1) return true;
  }
  return false;
}

}  // namespace

std::optional<int64_t> ComputeWhileTripCount(const HloInstruction& loop) {
  if (loop.opcode() != HloOpcode::kWhile || loop.called_computations().size() != 2) return std::nullopt;
  const HloComputation& condition = *loop.while_condition();
  const HloComputation& body = *loop.while_body();
  const HloInstruction* compare = condition.root_instruction();
  if (compare->opcode() != HloOpcode::kCompare || compare->comparison_type() != ComparisonType::kSigned) {
    return std::nullopt;
  }
  // Normalize to `element(index) <direction> bound`.
  ComparisonDirection direction = compare->comparison_direction();
  std::optional<int64_t> index = ParameterElementIndex(compare->operand(0), condition);
  std::optional<int64_t> bound = ScalarConstantValue(compare->operand(1));
  if (!index.has_value()) {
    index = ParameterElementIndex(compare->operand(1), condition);
    bound = ScalarConstantValue(compare->operand(0));
    if (direction == ComparisonDirection::kGt) {
      direction = ComparisonDirection::kLt;
    } else if (direction == ComparisonDirection::kGe) {
      direction = ComparisonDirection::kLe;
    } else {
      return std::nullopt;
    }
  }
  if (!index.has_value() || !bound.has_value()) return std::nullopt;
  if (direction != ComparisonDirection::kLt && direction != ComparisonDirection::kLe) return std::nullopt;
  if (!IsSignedScalar(compare->operand(0)->shape())) return std::nullopt;
  std::optional<int64_t> start = InitialValue(loop.operand(0), *index);
  if (!start.has_value() || !IncrementsByOne(body, *index)) return std::nullopt;
  int64_t n = *bound;
  if (direction == ComparisonDirection::kLe) {
    // i <= max never fails (i wraps around); otherwise it is i < n + 1.
    if (n == MaxValue(compare->operand(0)->shape().element_type())) return std::nullopt;
    ++n;
  }
  if (n <= *start) return 0;
  // Both fit the induction variable's type, so the difference fits int64
  // except for s64 extremes.
  if (*start < 0 && n > std::numeric_limits<int64_t>::max() + *start) return std::nullopt;
  return n - *start;
}

absl::StatusOr<bool> WhileLoopSimplifier::Run(HloModule* module) {
  NameUniquer names(*module);
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    std::vector<HloInstruction*> loops;
    for (HloInstruction* i : computation->instructions()) {
      if (i->opcode() == HloOpcode::kWhile) loops.push_back(i);
    }
    bool computation_changed = false;
    // Replacing a loop removes only that loop and operands that die with it
    // (its initial value's pieces), never another loop (a loop is a root or
    // has users, and the pieces feed this loop only).
    for (HloInstruction* loop : loops) {
      std::optional<int64_t> trip_count = ComputeWhileTripCount(*loop);
      if (!trip_count.has_value() || *trip_count > 1) continue;
      if (ComputationHasSideEffect(loop->while_condition())) continue;
      HloInstruction* init = loop->mutable_operand(0);
      HloInstruction* result = init;
      if (*trip_count == 1) {
        ASSIGN_OR_RETURN(result, InlineComputation(*loop->while_body(), {init}, computation, &names));
        computation->RestoreTopologicalOrder();
      }
      if (!CanReplace(loop, result)) {
        // Same value, other layout at a root: keep the loop's layout.
        result = AddInstructionWithUniqueName(
            computation, HloInstruction::CreateUnary(HloOpcode::kCopy, loop->shape(), result), &names, "copy");
      }
      ASSIGN_OR_RETURN(bool replaced, ReplaceInstruction(loop, result));
      if (!replaced) return Internal("while-simplifier: could not replace '%s'", loop->name());
      computation_changed = true;
    }
    if (computation_changed) computation->RestoreTopologicalOrder();
    changed |= computation_changed;
  }
  return changed;
}

}  // namespace xla
