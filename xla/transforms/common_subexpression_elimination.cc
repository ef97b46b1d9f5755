#include "xla/transforms/common_subexpression_elimination.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/program_digest.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

bool IsCommutative(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

bool ContainsToken(const Shape& shape) {
  if (shape.IsToken()) return true;
  for (const Shape& s : shape.tuple_shapes()) {
    if (ContainsToken(s)) return true;
  }
  return false;
}

void AppendLiteralBytes(const Literal& literal, std::string* key) {
  absl::StrAppend(key, literal.shape().ToString(/*print_layout=*/true), ":");
  if (literal.shape().IsTuple()) {
    for (const Literal& e : literal.tuple_elements()) AppendLiteralBytes(e, key);
    return;
  }
  key->append(static_cast<const char*>(literal.untyped_data()), literal.size_bytes());
}

bool CanBeMerged(const HloInstruction* i) {
  if (i->opcode() == HloOpcode::kParameter) return false;
  if (i->opcode() == HloOpcode::kConstant && !IsKnownConstant(i)) return false;
  if (ContainsToken(i->shape())) return false;
  return !HasSideEffect(i);
}

// Everything that makes two instructions identical, as one string. Operands
// are named by their (unique) ids after earlier merges were applied.
std::string Key(const HloInstruction* i) {
  std::string key = absl::StrCat(HloOpcodeString(i->opcode()), "|", i->shape().ToString(/*print_layout=*/true), "|");
  std::vector<int64_t> operand_ids;
  for (const HloInstruction* op : i->operands()) operand_ids.push_back(op->unique_id());
  if (IsCommutative(i->opcode())) std::sort(operand_ids.begin(), operand_ids.end());
  for (int64_t id : operand_ids) absl::StrAppend(&key, id, ",");
  absl::StrAppend(&key, "|");
  for (const HloComputation* c : i->called_computations()) absl::StrAppend(&key, c->unique_id(), ",");
  absl::StrAppend(&key, "|");
  HloInstructionProto attributes = i->attributes();
  attributes.clear_metadata();
  // Deterministic bytes (map fields sorted), so equal attributes give equal keys.
  key += DeterministicBytes(attributes);
  if (i->has_literal()) {
    absl::StrAppend(&key, "|");
    AppendLiteralBytes(i->literal(), &key);
  }
  return key;
}

absl::StatusOr<bool> RunOnComputation(HloComputation* computation) {
  bool changed = false;
  absl::flat_hash_map<std::string, HloInstruction*> seen;
  // Definition order: operands are visited (and merged) before their users.
  for (HloInstruction* i : computation->instructions()) {
    if (!CanBeMerged(i)) continue;
    std::string key = Key(i);
    auto [it, inserted] = seen.try_emplace(std::move(key), i);
    if (inserted) continue;
    ASSIGN_OR_RETURN(bool replaced, ReplaceInstruction(i, it->second));
    // Not replaced only when `i` is the root and the earlier one has another
    // layout (impossible: the layout is part of the key); keep both then.
    changed |= replaced;
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> CommonSubexpressionElimination::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* c : module->computations()) {
    ASSIGN_OR_RETURN(bool c_changed, RunOnComputation(c));
    changed |= c_changed;
  }
  return changed;
}

}  // namespace xla
