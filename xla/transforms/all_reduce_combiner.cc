#include "xla/transforms/all_reduce_combiner.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/scalar_reducer.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

// The array leaves an all-reduce's result has (one per operand).
std::vector<Shape> ResultLeaves(const HloInstruction& all_reduce) {
  if (all_reduce.shape().IsTuple()) return all_reduce.shape().tuple_shapes();
  return {all_reduce.shape()};
}

// What all-reduces combined with this one must share, or "" when it is
// not combined: operands that are row-major arrays of one element type.
std::string CombineKey(const HloInstruction& all_reduce) {
  if (all_reduce.opcode() != HloOpcode::kAllReduce || all_reduce.operand_count() == 0 ||
      all_reduce.to_apply() == nullptr) {
    return "";
  }
  const PrimitiveType type = all_reduce.operand(0)->shape().element_type();
  for (const HloInstruction* operand : all_reduce.operands()) {
    const Shape& s = operand->shape();
    if (!s.IsArray() || s.element_type() != type || !ShapeUtil::HasDefaultLayout(s)) return "";
  }
  for (const Shape& leaf : ResultLeaves(all_reduce)) {
    if (!leaf.IsArray() || !ShapeUtil::HasDefaultLayout(leaf)) return "";
  }
  // Builders make one reducer computation per all-reduce: equal ones are
  // told apart by what they compute, not by identity.
  const std::optional<ScalarBinaryReducer> reducer = MatchScalarBinaryReducer(*all_reduce.to_apply(), type);
  const bool commutative = reducer.has_value() &&
                           (reducer->opcode == HloOpcode::kAdd || reducer->opcode == HloOpcode::kMultiply ||
                            reducer->opcode == HloOpcode::kMinimum || reducer->opcode == HloOpcode::kMaximum);
  const std::string reduction = commutative ? std::string(HloOpcodeString(reducer->opcode))
                                            : absl::StrCat("computation ", all_reduce.to_apply()->unique_id());
  // The attributes, less what is each instruction's own.
  HloInstructionProto attributes = all_reduce.attributes();
  attributes.clear_name();
  attributes.clear_id();
  attributes.clear_shape();
  attributes.clear_operand_ids();
  attributes.clear_called_computation_ids();
  attributes.clear_metadata();
  attributes.clear_operand_shapes_with_layout();
  const bool has_channel = attributes.channel_id() != 0;
  attributes.clear_channel_id();
  std::string serialized;
  attributes.SerializeToString(&serialized);
  return absl::StrCat(reduction, "|", PrimitiveType_Name(type), "|", has_channel, "|", serialized);
}

int64_t ResultBytes(const HloInstruction& all_reduce) {
  int64_t bytes = 0;
  for (const Shape& leaf : ResultLeaves(all_reduce)) bytes += ShapeUtil::ByteSizeOfElements(leaf);
  return bytes;
}

struct Group {
  std::vector<HloInstruction*> members;
  int64_t bytes = 0;
  int64_t operands = 0;
  bool open = true;  // later all-reduces may still join
};

// The combined all-reduce of a group's members, which then read their
// results out of it.
absl::Status Combine(HloComputation* computation, NameUniquer* names, const Group& group) {
  const HloInstruction& first = *group.members.front();
  std::vector<HloInstruction*> operands;
  std::vector<Shape> leaves;
  for (HloInstruction* member : group.members) {
    operands.insert(operands.end(), member->operands().begin(), member->operands().end());
    for (const Shape& leaf : ResultLeaves(*member)) leaves.push_back(leaf);
  }
  ASSIGN_OR_RETURN(HloInstruction * combined,
                   MakeInstruction(computation, names, HloOpcode::kAllReduce, ShapeUtil::MakeTupleShape(leaves),
                                   operands, first.attributes(), {first.to_apply()}));
  int64_t leaf = 0;
  for (HloInstruction* member : group.members) {
    std::vector<HloInstruction*> parts;
    for (const Shape& s : ResultLeaves(*member)) {
      parts.push_back(AddInstructionWithUniqueName(
          computation, HloInstruction::CreateGetTupleElement(s, combined, leaf++), names));
    }
    HloInstruction* replacement =
        member->shape().IsTuple()
            ? AddInstructionWithUniqueName(computation, HloInstruction::CreateTuple(parts), names)
            : parts.front();
    member->ReplaceAllUsesWith(replacement);
    RETURN_IF_ERROR(computation->RemoveInstruction(member));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> AllReduceCombiner::Run(HloModule* module) {
  NameUniquer names(*module);
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    if (computation->fusion_instruction() != nullptr) continue;
    std::vector<Group> groups;
    absl::flat_hash_map<std::string, int> open;  // key -> its open group
    absl::flat_hash_map<const HloInstruction*, int> group_of;
    // The groups each instruction depends on directly (through a member's
    // result); a group's combined all-reduce depends on what its members
    // depend on, so "depends on" goes through groups too.
    absl::flat_hash_map<const HloInstruction*, std::vector<int>> depends_on;
    std::vector<std::vector<int>> group_depends_on;
    auto reaches = [&](const std::vector<int>& from, int target) {
      std::vector<int> stack = from;
      std::vector<bool> seen(groups.size(), false);
      while (!stack.empty()) {
        const int g = stack.back();
        stack.pop_back();
        if (g == target) return true;
        if (seen[g]) continue;
        seen[g] = true;
        stack.insert(stack.end(), group_depends_on[g].begin(), group_depends_on[g].end());
      }
      return false;
    };
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      std::vector<int> deps;
      for (const HloInstruction* operand : instruction->operands()) {
        auto it = depends_on.find(operand);
        if (it != depends_on.end()) deps.insert(deps.end(), it->second.begin(), it->second.end());
        auto member = group_of.find(operand);
        if (member != group_of.end()) deps.push_back(member->second);
      }
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());

      const std::string key = CombineKey(*instruction);
      if (!key.empty()) {
        const int64_t bytes = ResultBytes(*instruction);
        auto it = open.find(key);
        int g = it == open.end() ? -1 : it->second;
        if (g >= 0 && (reaches(deps, g) || groups[g].bytes + bytes > options_.max_bytes ||
                       groups[g].operands + instruction->operand_count() > options_.max_operands)) {
          groups[g].open = false;  // what comes later cannot join it
          g = -1;
        }
        if (g < 0) {
          g = static_cast<int>(groups.size());
          groups.emplace_back();
          group_depends_on.emplace_back();
          open[key] = g;
        }
        groups[g].members.push_back(instruction);
        groups[g].bytes += bytes;
        groups[g].operands += instruction->operand_count();
        std::vector<int>& joined = group_depends_on[g];
        joined.insert(joined.end(), deps.begin(), deps.end());
        std::sort(joined.begin(), joined.end());
        joined.erase(std::unique(joined.begin(), joined.end()), joined.end());
        group_of[instruction] = g;
      } else if (HasSideEffect(instruction)) {
        // Nothing moves across another side effect.
        for (Group& group : groups) group.open = false;
        open.clear();
      }
      if (!deps.empty()) depends_on[instruction] = std::move(deps);
    }
    bool changed_here = false;
    for (const Group& group : groups) {
      if (group.members.size() < 2) continue;
      RETURN_IF_ERROR(Combine(computation, &names, group));
      changed_here = true;
    }
    // The combined all-reduces were appended after their members' users.
    if (changed_here) computation->RestoreTopologicalOrder();
    changed |= changed_here;
  }
  return changed;
}

}  // namespace xla
