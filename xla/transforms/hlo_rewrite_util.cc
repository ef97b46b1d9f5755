#include "xla/transforms/hlo_rewrite_util.h"

#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/primitive_util.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {

// --- Facts -------------------------------------------------------------------

bool HasSideEffect(const HloInstruction* instruction) { return instruction->HasSideEffect(); }

bool ComputationHasSideEffect(const HloComputation* computation) { return computation->HasSideEffect(); }

bool IsKnownConstant(const HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kConstant || !instruction->has_literal()) return false;
  const auto& unknown = instruction->attributes().unknown_attributes();
  auto it = unknown.find("elided");
  return it == unknown.end() || it->second != "true";
}

std::optional<Literal> GetSplatValue(const HloInstruction* instruction) {
  if (instruction->opcode() == HloOpcode::kBroadcast) return GetSplatValue(instruction->operand(0));
  if (!IsKnownConstant(instruction)) return std::nullopt;
  const Literal& literal = instruction->literal();
  if (!literal.shape().IsArray() || literal.element_count() == 0) return std::nullopt;
  const int width = primitive_util::ByteWidth(literal.element_type());
  const auto* bytes = static_cast<const uint8_t*>(literal.untyped_data());
  for (int64_t i = 1; i < literal.element_count(); ++i) {
    if (std::memcmp(bytes, bytes + i * width, width) != 0) return std::nullopt;
  }
  Literal scalar(ShapeUtil::MakeScalarShape(literal.element_type()));
  std::memcpy(scalar.untyped_data(), bytes, width);
  return scalar;
}

bool IsSplatValue(const HloInstruction* instruction, double value) {
  if (!instruction->shape().IsArray()) return false;
  std::optional<Literal> splat = GetSplatValue(instruction);
  if (!splat.has_value()) return false;
  Literal expected(ShapeUtil::MakeScalarShape(splat->element_type()));
  expected.SetFromDouble(0, value);
  return std::memcmp(expected.untyped_data(), splat->untyped_data(),
                     primitive_util::ByteWidth(splat->element_type())) == 0;
}

int64_t TotalElementCount(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t total = 0;
    for (const Shape& s : shape.tuple_shapes()) total += TotalElementCount(s);
    return total;
  }
  if (!shape.IsArray()) return 0;
  return ShapeUtil::ElementsIn(shape);
}

absl::flat_hash_map<const HloComputation*, std::vector<HloInstruction*>> ComputeCallers(const HloModule& module) {
  absl::flat_hash_map<const HloComputation*, std::vector<HloInstruction*>> callers;
  for (const HloComputation* c : module.computations()) {
    for (HloInstruction* i : c->instructions()) {
      for (const HloComputation* callee : i->called_computations()) callers[callee].push_back(i);
    }
  }
  return callers;
}

// --- Names -----------------------------------------------------------------

NameUniquer::NameUniquer(const HloModule& module) {
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) used_.insert(i->name());
  }
}

std::string NameUniquer::GetUniqueName(absl::string_view base) {
  std::string stem(base.empty() ? "instruction" : base);
  // "add.12" and "add" share the stem "add", so clones do not grow suffixes.
  size_t dot = stem.rfind('.');
  int64_t ignored;
  if (dot != std::string::npos && dot > 0 && absl::SimpleAtoi(stem.substr(dot + 1), &ignored)) {
    stem = stem.substr(0, dot);
  }
  if (!base.empty() && used_.insert(std::string(base)).second) return std::string(base);
  int64_t& next = next_suffix_[stem];
  while (true) {
    std::string candidate = absl::StrCat(stem, ".", ++next);
    if (used_.insert(candidate).second) return candidate;
  }
}

HloInstruction* AddInstructionWithUniqueName(HloComputation* computation,
                                             std::unique_ptr<HloInstruction> instruction,
                                             NameUniquer* names, absl::string_view base) {
  std::string name = names->GetUniqueName(base.empty() ? HloOpcodeString(instruction->opcode()) : base);
  instruction->set_name(std::move(name));
  return computation->AddInstruction(std::move(instruction));
}

// --- Building --------------------------------------------------------------

absl::StatusOr<HloInstruction*> MakeInstruction(HloComputation* computation, NameUniquer* names,
                                                HloOpcode opcode, const Shape& shape,
                                                absl::Span<HloInstruction* const> operands,
                                                HloInstructionProto attributes,
                                                absl::Span<HloComputation* const> called) {
  std::vector<const Shape*> operand_shapes;
  for (const HloInstruction* op : operands) operand_shapes.push_back(&op->shape());
  std::vector<ProgramShape> program_shapes;
  for (const HloComputation* c : called) program_shapes.push_back(c->ComputeProgramShape());
  std::vector<const ProgramShape*> called_shapes;
  for (const ProgramShape& ps : program_shapes) called_shapes.push_back(&ps);
  ASSIGN_OR_RETURN(Shape inferred,
                   ShapeInference::InferInstructionShape(opcode, attributes, operand_shapes, called_shapes, shape));
  if (!inferred.Compatible(shape)) {
    return InvalidArgument("%s would have shape %s, not %s", HloOpcodeString(opcode), inferred.ToString(),
                           shape.ToString());
  }
  return AddInstructionWithUniqueName(
      computation, HloInstruction::Create(opcode, shape, operands, called, std::move(attributes)), names);
}

HloInstruction* MakeConstant(HloComputation* computation, NameUniquer* names, Literal literal) {
  return AddInstructionWithUniqueName(computation, HloInstruction::CreateConstant(std::move(literal)), names,
                                      "constant");
}

std::unique_ptr<HloInstruction> CloneWithNewOperands(const HloInstruction& instruction,
                                                     absl::Span<HloInstruction* const> operands) {
  std::unique_ptr<HloInstruction> clone = HloInstruction::Create(
      instruction.opcode(), instruction.shape(), operands, instruction.called_computations(), instruction.attributes());
  if (instruction.has_literal()) clone->set_literal(instruction.literal());
  return clone;
}

// --- Replacing and removing ------------------------------------------------

bool CanReplace(const HloInstruction* old, const HloInstruction* replacement) {
  if (old == replacement) return false;
  if (!old->shape().Compatible(replacement->shape())) return false;
  const HloComputation* parent = old->parent();
  if (parent != nullptr && parent->root_instruction() == old && !(old->shape() == replacement->shape())) {
    return false;
  }
  return true;
}

bool IsDead(const HloInstruction* instruction) {
  if (!instruction->users().empty()) return false;
  if (instruction->opcode() == HloOpcode::kParameter) return false;
  const HloComputation* parent = instruction->parent();
  if (parent != nullptr && parent->root_instruction() == instruction) return false;
  return !HasSideEffect(instruction);
}

absl::Status RemoveDeadRecursively(HloInstruction* instruction) {
  std::vector<HloInstruction*> worklist = {instruction};
  // An operand can be queued once per removed user: never look at it again
  // after it is gone.
  absl::flat_hash_set<HloInstruction*> removed;
  while (!worklist.empty()) {
    HloInstruction* i = worklist.back();
    worklist.pop_back();
    if (removed.contains(i) || !IsDead(i)) continue;
    removed.insert(i);
    // Distinct operands: an operand used twice is pushed once.
    absl::flat_hash_set<HloInstruction*> operands(i->operands().begin(), i->operands().end());
    RETURN_IF_ERROR(i->parent()->RemoveInstruction(i));
    for (HloInstruction* op : operands) worklist.push_back(op);
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> ReplaceInstruction(HloInstruction* old, HloInstruction* replacement) {
  if (!CanReplace(old, replacement)) return false;
  old->ReplaceAllUsesWith(replacement);
  RETURN_IF_ERROR(RemoveDeadRecursively(old));
  return true;
}

absl::StatusOr<bool> RemoveDeadInstructions(HloComputation* computation) {
  bool changed = false;
  // Users come after their operands, so one backward sweep sees every user
  // removed before it looks at the operand.
  std::vector<HloInstruction*> order = computation->instructions();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (IsDead(*it)) {
      RETURN_IF_ERROR(computation->RemoveInstruction(*it));
      changed = true;
    }
  }
  return changed;
}

absl::StatusOr<bool> RewriteEach(HloModule* module, HloOpcode opcode, const InstructionRewrite& rewrite) {
  bool changed = false;
  NameUniquer names(*module);
  for (HloComputation* computation : module->computations()) {
    bool changed_here = false;
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != opcode) continue;
      ASSIGN_OR_RETURN(bool rewritten, rewrite(computation, &names, instruction));
      changed_here |= rewritten;
    }
    // New instructions were appended after the users of what they replace.
    if (changed_here) computation->RestoreTopologicalOrder();
    changed |= changed_here;
  }
  return changed;
}

absl::StatusOr<bool> RemoveDeadAmong(HloComputation* computation,
                                     absl::flat_hash_set<const HloInstruction*> candidates) {
  bool changed = false;
  std::vector<HloInstruction*> order = computation->instructions();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* i = *it;
    if (!candidates.contains(i) || !IsDead(i)) continue;
    for (const HloInstruction* op : i->operands()) candidates.insert(op);
    RETURN_IF_ERROR(computation->RemoveInstruction(i));
    changed = true;
  }
  return changed;
}

absl::Status RemoveComputations(HloModule* module, const absl::flat_hash_set<const HloComputation*>& remove) {
  if (remove.empty()) return absl::OkStatus();
  absl::flat_hash_set<int64_t> remove_ids;
  for (const HloComputation* c : remove) {
    if (c == module->entry_computation()) {
      return Internal("RemoveComputations: cannot remove the entry computation '%s'", c->name());
    }
    remove_ids.insert(c->unique_id());
  }
  HloModuleProto proto = module->ToProto();
  HloModuleProto kept = proto;
  kept.clear_computations();
  for (const HloComputationProto& c : proto.computations()) {
    if (!remove_ids.contains(c.id())) *kept.add_computations() = c;
  }
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> rebuilt, HloModule::CreateFromProto(kept));
  *module = std::move(*rebuilt);
  for (HloComputation* c : module->computations()) c->set_parent(module);
  return absl::OkStatus();
}

// --- Inlining --------------------------------------------------------------

absl::StatusOr<HloInstruction*> InlineComputation(const HloComputation& callee,
                                                  absl::Span<HloInstruction* const> arguments,
                                                  HloComputation* into, NameUniquer* names,
                                                  std::vector<HloInstruction*>* clones) {
  if (static_cast<int64_t>(arguments.size()) != callee.num_parameters()) {
    return InvalidArgument("inlining '%s': it takes %d parameters but %d arguments were given", callee.name(),
                           callee.num_parameters(), arguments.size());
  }
  // Live: reachable from the root or from a side-effecting instruction.
  absl::flat_hash_set<const HloInstruction*> live;
  std::vector<const HloInstruction*> stack = {callee.root_instruction()};
  const std::vector<HloInstruction*> instructions = callee.instructions();
  for (const HloInstruction* i : instructions) {
    if (HasSideEffect(i)) stack.push_back(i);
  }
  while (!stack.empty()) {
    const HloInstruction* i = stack.back();
    stack.pop_back();
    if (!live.insert(i).second) continue;
    for (const HloInstruction* op : i->operands()) stack.push_back(op);
  }
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (const HloInstruction* i : instructions) {
    if (i->opcode() == HloOpcode::kParameter) {
      map[i] = arguments[i->parameter_number()];
      continue;
    }
    if (!live.contains(i)) continue;
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* op : i->operands()) operands.push_back(map.at(op));
    map[i] = AddInstructionWithUniqueName(into, CloneWithNewOperands(*i, operands), names, i->name());
    if (clones != nullptr) clones->push_back(map[i]);
  }
  return map.at(callee.root_instruction());
}

}  // namespace xla
