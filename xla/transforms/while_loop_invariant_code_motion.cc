#include "xla/transforms/while_loop_invariant_code_motion.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

bool OnlyUsedByGetTupleElement(const HloInstruction* parameter) {
  for (const HloInstruction* user : parameter->users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return false;
  }
  return true;
}

// Invariant but not worth a loop-state slot by itself.
bool IsCheapOrInflating(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kConstant:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
      return true;
    default:
      return false;
  }
}

class Hoister {
 public:
  Hoister(HloInstruction* loop, NameUniquer* names) : loop_(loop), names_(names) {}

  absl::StatusOr<bool> Run() {
    HloComputation* body = loop_->while_body();
    HloComputation* condition = loop_->while_condition();
    const Shape& state_shape = loop_->shape();
    if (!state_shape.IsTuple() || body->num_parameters() != 1 || condition->num_parameters() != 1) return false;
    HloInstruction* parameter = body->parameter_instruction(0);
    HloInstruction* root = body->root_instruction();
    if (root->opcode() != HloOpcode::kTuple) return false;
    if (!OnlyUsedByGetTupleElement(parameter) ||
        !OnlyUsedByGetTupleElement(condition->parameter_instruction(0))) {
      return false;
    }
    const int64_t n = state_shape.tuple_shapes_size();
    std::vector<bool> invariant_index(n, false);
    for (int64_t k = 0; k < n && k < root->operand_count(); ++k) {
      const HloInstruction* element = root->operand(k);
      invariant_index[k] = element->opcode() == HloOpcode::kGetTupleElement && element->operand(0) == parameter &&
                           element->tuple_index() == k;
    }

    // Invariant instructions, in definition (topological) order.
    absl::flat_hash_set<const HloInstruction*> invariant;
    std::vector<HloInstruction*> worth_hoisting;
    for (HloInstruction* i : body->instructions()) {
      bool is_invariant = false;
      if (i->opcode() == HloOpcode::kParameter) {
        is_invariant = false;
      } else if (i->opcode() == HloOpcode::kGetTupleElement && i->operand(0) == parameter) {
        const int64_t k = i->tuple_index();
        is_invariant = k >= 0 && k < n && invariant_index[k];
      } else if (i->opcode() == HloOpcode::kConstant) {
        is_invariant = true;
      } else if (i->opcode() != HloOpcode::kWhile && i != root && !HasSideEffect(i)) {
        is_invariant = std::all_of(i->operands().begin(), i->operands().end(),
                                   [&](const HloInstruction* op) { return invariant.contains(op); });
      }
      if (!is_invariant) continue;
      invariant.insert(i);
      if (!IsCheapOrInflating(i->opcode())) worth_hoisting.push_back(i);
    }
    absl::flat_hash_set<const HloInstruction*> hoisted(worth_hoisting.begin(), worth_hoisting.end());
    // Hoisted values the loop still needs: those the code that stays (live
    // from the root or a side effect) reaches without passing through
    // another hoisted value. Invariant cheap ops between hoisted ones are
    // cloned outside with them, not given slots of their own.
    absl::flat_hash_set<const HloInstruction*> needed;
    {
      absl::flat_hash_set<const HloInstruction*> visited;
      std::vector<const HloInstruction*> stack = {root};
      for (const HloInstruction* i : body->instructions()) {
        if (HasSideEffect(i)) stack.push_back(i);
      }
      while (!stack.empty()) {
        const HloInstruction* i = stack.back();
        stack.pop_back();
        if (!visited.insert(i).second) continue;
        if (hoisted.contains(i)) {
          needed.insert(i);
          continue;
        }
        for (const HloInstruction* op : i->operands()) stack.push_back(op);
      }
    }
    std::vector<HloInstruction*> slots;
    for (HloInstruction* h : worth_hoisting) {
      if (needed.contains(h)) slots.push_back(h);
    }
    if (slots.empty()) return false;

    // Outside: the hoisted values, computed from the loop's initial value.
    HloComputation* outer = loop_->parent();
    HloInstruction* init = loop_->mutable_operand(0);
    std::vector<HloInstruction*> new_init_elements;
    for (int64_t k = 0; k < n; ++k) new_init_elements.push_back(InitElement(k));
    std::vector<Shape> new_shapes = state_shape.tuple_shapes();
    for (HloInstruction* h : slots) {
      ASSIGN_OR_RETURN(HloInstruction * outside, CloneOutside(h));
      new_init_elements.push_back(outside);
      new_shapes.push_back(h->shape());
    }
    const Shape new_state_shape = ShapeUtil::MakeTupleShape(new_shapes);
    HloInstruction* new_init =
        AddInstructionWithUniqueName(outer, HloInstruction::CreateTuple(new_init_elements), names_, "tuple");

    // Inside: read the hoisted values from the new slots, pass them through.
    *parameter->mutable_shape() = new_state_shape;
    *condition->parameter_instruction(0)->mutable_shape() = new_state_shape;
    absl::flat_hash_set<const HloInstruction*> maybe_dead = {root};
    std::vector<HloInstruction*> slot_reads;
    for (size_t j = 0; j < slots.size(); ++j) {
      HloInstruction* slot = AddInstructionWithUniqueName(
          body, HloInstruction::CreateGetTupleElement(slots[j]->shape(), parameter, n + static_cast<int64_t>(j)),
          names_, slots[j]->name());
      // Also the old root's elements: a hoisted value may be stored in the state.
      slots[j]->ReplaceAllUsesWith(slot);
      maybe_dead.insert(slots[j]);
      slot_reads.push_back(slot);
    }
    std::vector<HloInstruction*> new_root_elements(root->operands().begin(), root->operands().end());
    new_root_elements.insert(new_root_elements.end(), slot_reads.begin(), slot_reads.end());
    HloInstruction* new_root =
        AddInstructionWithUniqueName(body, HloInstruction::CreateTuple(new_root_elements), names_, root->name());
    body->set_root_instruction(new_root);
    body->RestoreTopologicalOrder();
    RETURN_IF_ERROR(RemoveDeadAmong(body, std::move(maybe_dead)).status());

    // The new loop; its users see the old state shape through a tuple of
    // its first n elements (TupleSimplifier folds that into the users).
    HloInstruction* new_loop = AddInstructionWithUniqueName(
        outer,
        HloInstruction::Create(HloOpcode::kWhile, new_state_shape, {new_init}, loop_->called_computations(),
                               loop_->attributes()),
        names_, loop_->name());
    std::vector<HloInstruction*> old_elements;
    for (int64_t k = 0; k < n; ++k) {
      old_elements.push_back(AddInstructionWithUniqueName(
          outer, HloInstruction::CreateGetTupleElement(state_shape.tuple_shapes(k), new_loop, k), names_,
          "get-tuple-element"));
    }
    HloInstruction* old_state =
        AddInstructionWithUniqueName(outer, HloInstruction::CreateTuple(old_elements), names_, "tuple");
    loop_->ReplaceAllUsesWith(old_state);
    RETURN_IF_ERROR(outer->RemoveInstruction(loop_));
    outer->RestoreTopologicalOrder();
    RETURN_IF_ERROR(RemoveDeadAmong(outer, {init}).status());
    return true;
  }

 private:
  // Element k of the loop's initial value, in the outer computation.
  HloInstruction* InitElement(int64_t k) {
    HloInstruction* init = loop_->mutable_operand(0);
    if (init->opcode() == HloOpcode::kTuple) return init->mutable_operand(k);
    auto it = init_elements_.find(k);
    if (it != init_elements_.end()) return it->second;
    HloInstruction* element = AddInstructionWithUniqueName(
        loop_->parent(), HloInstruction::CreateGetTupleElement(init->shape().tuple_shapes(k), init, k), names_,
        "get-tuple-element");
    init_elements_[k] = element;
    return element;
  }

  // A clone of invariant body instruction `i` in front of the loop.
  absl::StatusOr<HloInstruction*> CloneOutside(HloInstruction* i) {
    auto it = outside_.find(i);
    if (it != outside_.end()) return it->second;
    HloInstruction* clone = nullptr;
    if (i->opcode() == HloOpcode::kGetTupleElement && i->operand(0)->opcode() == HloOpcode::kParameter) {
      clone = InitElement(i->tuple_index());
    } else {
      std::vector<HloInstruction*> operands;
      for (HloInstruction* op : i->operands()) {
        ASSIGN_OR_RETURN(HloInstruction * mapped, CloneOutside(op));
        operands.push_back(mapped);
      }
      clone = AddInstructionWithUniqueName(loop_->parent(), CloneWithNewOperands(*i, operands), names_, i->name());
    }
    outside_[i] = clone;
    return clone;
  }

  HloInstruction* loop_;
  NameUniquer* names_;
  absl::flat_hash_map<int64_t, HloInstruction*> init_elements_;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> outside_;
};

}  // namespace

absl::StatusOr<bool> WhileLoopInvariantCodeMotion::Run(HloModule* module) {
  NameUniquer names(*module);
  const auto callers = ComputeCallers(*module);
  auto single_caller = [&](const HloComputation* c) {
    auto it = callers.find(c);
    return it != callers.end() && it->second.size() == 1;
  };
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    std::vector<HloInstruction*> loops;
    for (HloInstruction* i : computation->instructions()) {
      if (i->opcode() == HloOpcode::kWhile && i->called_computations().size() == 2 &&
          single_caller(i->while_body()) && single_caller(i->while_condition()) &&
          i->while_body() != i->while_condition()) {
        loops.push_back(i);
      }
    }
    // A rewrite removes only its own loop (and its dead initial tuple), never
    // another loop: loops are kept alive by their users or are roots.
    for (HloInstruction* loop : loops) {
      ASSIGN_OR_RETURN(bool hoisted, Hoister(loop, &names).Run());
      changed |= hoisted;
    }
  }
  return changed;
}

}  // namespace xla
