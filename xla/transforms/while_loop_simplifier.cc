#include "xla/transforms/while_loop_simplifier.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
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

bool OnlyUsedByGetTupleElement(const HloInstruction* i) {
  for (const HloInstruction* user : i->users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return false;
  }
  return true;
}

// Removes the state elements of `loop` nothing reads (see the header);
// returns whether it did. `loop` is replaced by a new while instruction.
absl::StatusOr<bool> RemoveDeadStateElements(HloInstruction* loop, NameUniquer* names) {
  HloComputation* outer = loop->parent();
  HloComputation* body = loop->while_body();
  HloComputation* condition = loop->while_condition();
  const Shape& shape = loop->shape();
  if (!shape.IsTuple() || outer->root_instruction() == loop || !OnlyUsedByGetTupleElement(loop)) return false;
  if (body->num_parameters() != 1 || condition->num_parameters() != 1) return false;
  HloInstruction* parameter = body->parameter_instruction(0);
  HloInstruction* cond_parameter = condition->parameter_instruction(0);
  HloInstruction* root = body->root_instruction();
  if (root->opcode() != HloOpcode::kTuple || !root->users().empty() || !OnlyUsedByGetTupleElement(parameter) ||
      !OnlyUsedByGetTupleElement(cond_parameter)) {
    return false;
  }
  const int64_t n = shape.tuple_shapes_size();
  std::vector<bool> read(n, false);
  for (const HloInstruction* user : loop->users()) read[user->tuple_index()] = true;
  for (const HloInstruction* user : cond_parameter->users()) read[user->tuple_index()] = true;
  for (const HloInstruction* element : parameter->users()) {
    const int64_t k = element->tuple_index();
    for (const HloInstruction* user : element->users()) {
      if (user != root) {
        read[k] = true;
        continue;
      }
      for (int64_t j = 0; j < root->operand_count(); ++j) {
        if (root->operand(j) == element && j != k) read[k] = true;
      }
    }
  }
  std::vector<int64_t> new_index(n, -1);
  std::vector<int64_t> kept;
  for (int64_t k = 0; k < n; ++k) {
    if (!read[k]) continue;
    new_index[k] = static_cast<int64_t>(kept.size());
    kept.push_back(k);
  }
  if (kept.size() == static_cast<size_t>(n) || kept.empty()) return false;

  std::vector<Shape> kept_shapes;
  for (int64_t k : kept) kept_shapes.push_back(shape.tuple_shapes(k));
  const Shape new_shape = ShapeUtil::MakeTupleShape(kept_shapes);

  // Body and condition: the smaller parameter, renumbered reads, a root
  // without the dropped elements.
  // Reads of dropped elements feed at most the old root; they die with it.
  absl::flat_hash_set<const HloInstruction*> maybe_dead = {root};
  for (HloInstruction* p : {parameter, cond_parameter}) {
    *p->mutable_shape() = new_shape;
    for (HloInstruction* user : p->users()) {
      const int64_t k = user->tuple_index();
      if (new_index[k] < 0) maybe_dead.insert(user);
      user->mutable_attributes()->set_tuple_index(new_index[k] >= 0 ? new_index[k] : 0);
    }
  }
  std::vector<HloInstruction*> root_elements;
  for (int64_t k : kept) root_elements.push_back(root->mutable_operand(k));
  HloInstruction* new_root =
      AddInstructionWithUniqueName(body, HloInstruction::CreateTuple(root_elements), names, root->name());
  body->set_root_instruction(new_root);
  body->RestoreTopologicalOrder();
  RETURN_IF_ERROR(RemoveDeadAmong(body, std::move(maybe_dead)).status());
  for (HloInstruction* user : parameter->users()) {
    if (!user->shape().Compatible(new_shape.tuple_shapes(user->tuple_index()))) {
      return Internal("while-simplifier: read '%s' of a dropped element is still used", user->name());
    }
  }

  // Outside: the smaller initial value and loop; users renumbered.
  HloInstruction* init = loop->mutable_operand(0);
  std::vector<HloInstruction*> init_elements;
  for (int64_t k : kept) {
    if (init->opcode() == HloOpcode::kTuple) {
      init_elements.push_back(init->mutable_operand(k));
    } else {
      init_elements.push_back(AddInstructionWithUniqueName(
          outer, HloInstruction::CreateGetTupleElement(shape.tuple_shapes(k), init, k), names, "get-tuple-element"));
    }
  }
  HloInstruction* new_init =
      AddInstructionWithUniqueName(outer, HloInstruction::CreateTuple(init_elements), names, "tuple");
  HloInstruction* new_loop = AddInstructionWithUniqueName(
      outer,
      HloInstruction::Create(HloOpcode::kWhile, new_shape, {new_init}, loop->called_computations(),
                             loop->attributes()),
      names, loop->name());
  std::vector<HloInstruction*> users = loop->users();
  for (HloInstruction* user : users) {
    user->mutable_attributes()->set_tuple_index(new_index[user->tuple_index()]);
    user->ReplaceOperandWith(0, new_loop);
  }
  RETURN_IF_ERROR(outer->RemoveInstruction(loop));
  outer->RestoreTopologicalOrder();
  RETURN_IF_ERROR(RemoveDeadAmong(outer, {init}).status());
  return true;
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
  // How many instructions call each computation. Kept up to date for the
  // loops this pass removes and the clones it makes; instructions that die
  // with a replaced loop are not subtracted, so a count may be high, which
  // only makes the pass skip work (never unsafe).
  absl::flat_hash_map<const HloComputation*, int64_t> calls;
  for (const auto& [callee, callers] : ComputeCallers(*module)) calls[callee] = callers.size();
  auto count_calls = [&](const HloInstruction* i, int64_t delta) {
    for (const HloComputation* callee : i->called_computations()) calls[callee] += delta;
  };
  auto single_caller = [&](const HloComputation* c) { return calls[c] == 1; };
  // Callers before callees: a loop of trip count 1 is inlined while its body
  // still holds its own loops, and the loops the clone brings along join the
  // worklist of the same computation. So a nest of N such loops unrolls in
  // one pass with N small clones; callees first would clone the already
  // unrolled nest at every level (quadratic: 1,000 nested loops took
  // minutes).
  std::vector<HloComputation*> order = module->computations();
  std::reverse(order.begin(), order.end());
  bool changed = false;
  for (HloComputation* computation : order) {
    // Every caller was inlined away: dead, DCE removes it. Its own calls
    // stop counting (its callees come later in this order).
    if (computation != module->entry_computation() && calls[computation] <= 0) {
      for (const HloInstruction* i : computation->instructions()) count_calls(i, -1);
      continue;
    }
    std::vector<HloInstruction*> worklist;
    for (HloInstruction* i : computation->instructions()) {
      if (i->opcode() == HloOpcode::kWhile) worklist.push_back(i);
    }
    bool computation_changed = false;
    while (!worklist.empty()) {
      HloInstruction* loop = worklist.back();
      worklist.pop_back();
      // Replacing a loop also removes operands that die with it, which may
      // be another loop of the worklist.
      if (!computation->Contains(loop) || loop->opcode() != HloOpcode::kWhile) continue;
      std::optional<int64_t> trip_count = ComputeWhileTripCount(*loop);
      if (!trip_count.has_value() || *trip_count > 1 || ComputationHasSideEffect(loop->while_condition())) {
        if (loop->called_computations().size() == 2 && single_caller(loop->while_body()) &&
            single_caller(loop->while_condition()) && loop->while_body() != loop->while_condition()) {
          // A removal replaces the loop by a new one with the same callees.
          ASSIGN_OR_RETURN(bool removed, RemoveDeadStateElements(loop, &names));
          computation_changed |= removed;
        }
        continue;
      }
      HloInstruction* init = loop->mutable_operand(0);
      HloInstruction* result = init;
      if (*trip_count == 1) {
        std::vector<HloInstruction*> clones;
        ASSIGN_OR_RETURN(result, InlineComputation(*loop->while_body(), {init}, computation, &names, &clones));
        for (HloInstruction* clone : clones) {
          count_calls(clone, +1);
          if (clone->opcode() == HloOpcode::kWhile) worklist.push_back(clone);
        }
      }
      if (!CanReplace(loop, result)) {
        // Same value, other layout at a root: keep the loop's layout.
        result = AddInstructionWithUniqueName(
            computation, HloInstruction::CreateUnary(HloOpcode::kCopy, loop->shape(), result), &names, "copy");
      }
      count_calls(loop, -1);
      ASSIGN_OR_RETURN(bool replaced, ReplaceInstruction(loop, result));
      if (!replaced) return Internal("while-simplifier: could not replace '%s'", loop->name());
      computation_changed = true;
    }
    // Once per computation: clones are appended out of order.
    if (computation_changed) computation->RestoreTopologicalOrder();
    changed |= computation_changed;
  }
  return changed;
}

}  // namespace xla
