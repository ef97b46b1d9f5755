#include "xla/hlo/hlo_computation.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_printer.h"
#include "xla/status_macros.h"

namespace xla {

HloInstruction* HloComputation::AddInstruction(std::unique_ptr<HloInstruction> instruction) {
  HloInstruction* raw = instruction.get();
  raw->set_parent(this);
  if (raw->unique_id() < 0 && parent_ != nullptr) raw->set_unique_id(parent_->NextUniqueId());
  if (raw->name().empty()) {
    raw->set_name(absl::StrCat(HloOpcodeString(raw->opcode()), ".",
                               raw->unique_id() >= 0 ? raw->unique_id() : static_cast<int64_t>(instructions_.size())));
  }
  if (raw->opcode() == HloOpcode::kParameter) {
    int64_t n = raw->parameter_number();
    if (n >= static_cast<int64_t>(parameters_.size())) parameters_.resize(n + 1, nullptr);
    parameters_[n] = raw;
  }
  position_[raw] = instructions_.size();
  instructions_.push_back(std::move(instruction));
  // Only an instruction with a side effect changes a computation's answer
  // (an OR over its instructions), and so its callers'.
  if (parent_ != nullptr && raw->HasSideEffect()) parent_->NoteStructureChange();
  return raw;
}

absl::Status HloComputation::RemoveInstruction(HloInstruction* instruction) {
  if (!instruction->users().empty() || instruction == root_) {
    return FailedPrecondition("cannot remove %s: it is used or is the root", instruction->name());
  }
  if (instruction->opcode() == HloOpcode::kParameter) {
    return FailedPrecondition("cannot remove parameter %s", instruction->name());
  }
  auto it = position_.find(instruction);
  if (it == position_.end()) return FailedPrecondition("%s is not in computation %s", instruction->name(), name_);
  const bool had_side_effect = parent_ != nullptr && instruction->HasSideEffect();
  for (HloComputation* called : instruction->called_computations()) {
    if (called != nullptr && called->fusion_instruction() == instruction) called->set_fusion_instruction(nullptr);
  }
  absl::flat_hash_set<const HloInstruction*> dropped_from;  // each operand once
  for (int64_t i = 0; i < instruction->operand_count(); ++i) {
    HloInstruction* op = instruction->mutable_operand(i);
    if (!dropped_from.insert(op).second) continue;
    // Drop `instruction` from the operand's users.
    auto& users = const_cast<std::vector<HloInstruction*>&>(op->users());
    users.erase(std::remove(users.begin(), users.end(), instruction), users.end());
  }
  instructions_[it->second].reset();
  position_.erase(it);
  if (had_side_effect) parent_->NoteStructureChange();
  if (++removed_ > 32 && removed_ * 2 > static_cast<int64_t>(instructions_.size())) Compact();
  return absl::OkStatus();
}

void HloComputation::Compact() {
  instructions_.erase(std::remove(instructions_.begin(), instructions_.end(), nullptr), instructions_.end());
  position_.clear();
  for (size_t i = 0; i < instructions_.size(); ++i) position_[instructions_[i].get()] = i;
  removed_ = 0;
}

// Depth-first over the call graph below `root` with an explicit stack (a
// nest of computations as deep as the program allows must not reach the
// native stack). A computation's answer is known once every instruction's
// callees have theirs; answers are cached in each computation of a module.
bool ComputeSideEffects(const HloComputation* root) {
  struct Frame {
    const HloComputation* computation;
    std::vector<HloInstruction*> instructions;
    size_t next_instruction = 0;
    size_t next_callee = 0;
    bool effect = false;
  };
  auto cached = [](const HloComputation* c) -> std::optional<bool> {
    if (c->parent_ == nullptr) return std::nullopt;
    const int64_t entry = c->side_effect_cache_.load(std::memory_order_relaxed);
    if (entry < 0 || entry / 2 != c->parent_->structure_version()) return std::nullopt;
    return entry % 2 == 1;
  };
  // Answers of this walk (also for computations outside a module); an entry
  // is made when a computation is entered, so a cycle (an invalid module)
  // ends there instead of looping.
  if (std::optional<bool> answer = cached(root)) return *answer;
  absl::flat_hash_map<const HloComputation*, bool> known;
  std::vector<Frame> stack;
  stack.push_back(Frame{root, root->instructions()});
  known[root] = false;
  while (true) {
    Frame& frame = stack.back();
    if (frame.effect || frame.next_instruction == frame.instructions.size()) {
      const HloComputation* c = frame.computation;
      const bool effect = frame.effect;
      known[c] = effect;
      if (c->parent_ != nullptr) {
        c->side_effect_cache_.store(c->parent_->structure_version() * 2 + (effect ? 1 : 0), std::memory_order_relaxed);
      }
      stack.pop_back();
      if (stack.empty()) return effect;
      stack.back().effect |= effect;
      continue;
    }
    const HloInstruction* instruction = frame.instructions[frame.next_instruction];
    if (xla::HasSideEffect(instruction->opcode())) {
      frame.effect = true;
      continue;
    }
    const std::vector<HloComputation*>& callees = instruction->called_computations();
    if (frame.next_callee == callees.size()) {
      ++frame.next_instruction;
      frame.next_callee = 0;
      continue;
    }
    const HloComputation* callee = callees[frame.next_callee++];
    if (callee == nullptr) continue;
    if (auto it = known.find(callee); it != known.end()) {
      frame.effect |= it->second;
      continue;
    }
    if (std::optional<bool> answer = cached(callee)) {
      frame.effect |= *answer;
      continue;
    }
    known[callee] = false;
    stack.push_back(Frame{callee, callee->instructions()});  // `frame` is not used after this
  }
}

bool HloComputation::HasSideEffect() const { return ComputeSideEffects(this); }

void HloComputation::RestoreTopologicalOrder() {
  // Depth-first over operands, visiting instructions in their current order,
  // so already-ordered computations keep their order.
  absl::flat_hash_map<const HloInstruction*, std::unique_ptr<HloInstruction>*> slot;
  for (auto& i : instructions_) {
    if (i != nullptr) slot[i.get()] = &i;
  }
  std::vector<std::unique_ptr<HloInstruction>> ordered;
  ordered.reserve(instructions_.size());
  absl::flat_hash_set<const HloInstruction*> done;
  for (auto& start : instructions_) {
    if (start == nullptr || done.contains(start.get())) continue;
    std::vector<std::pair<HloInstruction*, int64_t>> stack = {{start.get(), 0}};
    done.insert(start.get());
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->operand_count()) {
        HloInstruction* op = node->mutable_operand(next++);
        if (slot.contains(op) && done.insert(op).second) stack.push_back({op, 0});
      } else {
        ordered.push_back(std::move(*slot[node]));
        stack.pop_back();
      }
    }
  }
  instructions_ = std::move(ordered);
  position_.clear();
  for (size_t i = 0; i < instructions_.size(); ++i) position_[instructions_[i].get()] = i;
  removed_ = 0;
}

std::vector<HloInstruction*> HloComputation::instructions() const {
  std::vector<HloInstruction*> out;
  out.reserve(instruction_count());
  for (const auto& i : instructions_) {
    if (i != nullptr) out.push_back(i.get());
  }
  return out;
}

std::vector<HloInstruction*> HloComputation::MakeInstructionPostOrder() const {
  // Side-effecting instructions run in definition order: each one is
  // ordered after the previous one as if that were an extra operand (the
  // order the program states, e.g. two infeeds on the same token).
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> previous_effect;
  HloInstruction* last_effect = nullptr;
  for (const auto& i : instructions_) {
    if (i == nullptr || !i->HasSideEffect()) continue;
    if (last_effect != nullptr) previous_effect[i.get()] = last_effect;
    last_effect = i.get();
  }
  std::vector<HloInstruction*> order;
  absl::flat_hash_set<const HloInstruction*> visited;
  // Iterative DFS so deep graphs cannot overflow the stack. Position
  // operand_count() stands for the implicit predecessor.
  auto visit = [&](HloInstruction* start) {
    std::vector<std::pair<HloInstruction*, int64_t>> stack = {{start, 0}};
    if (!visited.insert(start).second) return;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->operand_count()) {
        HloInstruction* op = node->mutable_operand(next++);
        if (visited.insert(op).second) stack.push_back({op, 0});
      } else if (next == node->operand_count() && previous_effect.contains(node)) {
        ++next;
        HloInstruction* op = previous_effect.at(node);
        if (visited.insert(op).second) stack.push_back({op, 0});
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  };
  if (root_ != nullptr) visit(root_);
  for (const auto& i : instructions_) {
    if (i != nullptr) visit(i.get());
  }
  return order;
}

absl::flat_hash_set<const HloInstruction*> HloComputation::LiveInstructions() const {
  absl::flat_hash_set<const HloInstruction*> live;
  std::vector<const HloInstruction*> stack;  // iterative: chains may be long
  if (root_ != nullptr) stack.push_back(root_);
  for (const auto& i : instructions_) {
    if (i != nullptr && i->HasSideEffect()) stack.push_back(i.get());
  }
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    if (!live.insert(h).second) continue;
    for (const HloInstruction* o : h->operands()) stack.push_back(o);
  }
  return live;
}

ProgramShape HloComputation::ComputeProgramShape() const {
  ProgramShape ps;
  for (const HloInstruction* p : parameters_) {
    // A gap in parameter numbers (rejected by the verifier) yields an invalid shape.
    ps.parameters().push_back(p != nullptr ? p->shape() : Shape());
    ps.parameter_names().push_back(p != nullptr ? p->name() : "");
  }
  if (root_ != nullptr) ps.result() = root_->shape();
  return ps;
}

HloComputationProto HloComputation::ToProto() const {
  HloComputationProto proto;
  proto.set_name(name_);
  proto.set_id(unique_id_);
  for (const auto& i : instructions_) {
    if (i != nullptr) *proto.add_instructions() = i->ToProto();
  }
  if (root_ != nullptr) proto.set_root_id(root_->unique_id());
  *proto.mutable_program_shape() = ComputeProgramShape().ToProto();
  return proto;
}

std::string HloComputation::ToString() const { return HloComputationToString(*this); }

}  // namespace xla
