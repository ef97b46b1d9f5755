// HloComputation: a function body; owns its instructions, kept in an order
// where every operand comes before its users.
#ifndef XLA_HLO_HLO_COMPUTATION_H_
#define XLA_HLO_HLO_COMPUTATION_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/shape.h"

namespace xla {

class HloModule;

class HloComputation {
 public:
  explicit HloComputation(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  int64_t unique_id() const { return unique_id_; }
  void set_unique_id(int64_t id) { unique_id_ = id; }
  HloModule* parent() const { return parent_; }
  void set_parent(HloModule* module) {
    parent_ = module;
    side_effect_cache_.store(-1, std::memory_order_relaxed);  // another module's versions mean nothing here
  }
  // For a fused computation: the fusion instruction calling it (set when
  // the fusion is created); null for any other computation.
  const HloInstruction* fusion_instruction() const { return fusion_instruction_; }
  void set_fusion_instruction(const HloInstruction* fusion) { fusion_instruction_ = fusion; }

  // Appends `instruction` (its operands must already be in this computation).
  // Parameters are also registered by number. An instruction without a name
  // is named "<opcode>.<id>". Returns the raw pointer.
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction);
  // Removes an instruction that has no users and is not the root.
  absl::Status RemoveInstruction(HloInstruction* instruction);
  // Whether an instruction of this computation has a side effect of its own
  // or through a computation it calls (HloInstruction::HasSideEffect). Cached
  // per module structure version, so a pass asking it for every instruction
  // of a deep nest of loops walks each computation once; walked without
  // recursion, so the nest's depth does not reach the stack.
  bool HasSideEffect() const;

  // Whether `instruction` is one of this computation's (live) instructions:
  // for a pass holding pointers across removals of dead operands.
  bool Contains(const HloInstruction* instruction) const { return position_.contains(instruction); }
  // Reorders the instructions so every operand precedes its users (stable
  // where possible). Passes that rewire operands call this when done.
  void RestoreTopologicalOrder();

  HloInstruction* root_instruction() const { return root_; }
  void set_root_instruction(HloInstruction* root) { root_ = root; }

  int64_t num_parameters() const { return static_cast<int64_t>(parameters_.size()); }
  HloInstruction* parameter_instruction(int64_t i) const { return parameters_[i]; }
  const std::vector<HloInstruction*>& parameter_instructions() const { return parameters_; }

  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()) - removed_; }
  // In definition order (operands before users).
  std::vector<HloInstruction*> instructions() const;
  // Reachable from the root, operands first; then unreachable ones.
  // Side-effecting instructions (HasSideEffect, also through a called
  // computation) keep their definition order.
  std::vector<HloInstruction*> MakeInstructionPostOrder() const;
  // The instructions a run executes: those the root depends on, and those a
  // side effect (HasSideEffect) depends on.
  absl::flat_hash_set<const HloInstruction*> LiveInstructions() const;

  ProgramShape ComputeProgramShape() const;

  HloComputationProto ToProto() const;
  std::string ToString() const;

 private:
  std::string name_;
  int64_t unique_id_ = -1;
  HloModule* parent_ = nullptr;
  const HloInstruction* fusion_instruction_ = nullptr;
  // Removed instructions leave a null slot (so removal is O(1)); the slots
  // are compacted when they become the majority. `position_` maps each live
  // instruction to its slot.
  void Compact();
  std::vector<std::unique_ptr<HloInstruction>> instructions_;
  absl::flat_hash_map<const HloInstruction*, size_t> position_;
  int64_t removed_ = 0;
  std::vector<HloInstruction*> parameters_;  // by parameter number
  HloInstruction* root_ = nullptr;
  // HasSideEffect's answer and the module's structure_version() it holds
  // for, as version * 2 + answer (-1: none), in one atomic: concurrent runs
  // of one module (the interpreter) may ask at the same time. Computations
  // outside a module are not cached.
  mutable std::atomic<int64_t> side_effect_cache_{-1};
  friend bool ComputeSideEffects(const HloComputation* root);
};

}  // namespace xla

#endif  // XLA_HLO_HLO_COMPUTATION_H_
