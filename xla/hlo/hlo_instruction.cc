#include "xla/hlo/hlo_instruction.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_printer.h"

namespace xla {

std::unique_ptr<HloInstruction> HloInstruction::Create(HloOpcode opcode, const Shape& shape,
                                                       absl::Span<HloInstruction* const> operands,
                                                       absl::Span<HloComputation* const> called,
                                                       HloInstructionProto attributes) {
  auto instr = absl::WrapUnique(new HloInstruction(opcode, shape));
  attributes.clear_name();
  attributes.clear_opcode();
  attributes.clear_shape();
  attributes.clear_id();
  attributes.clear_operand_ids();
  attributes.clear_called_computation_ids();
  attributes.clear_literal();
  instr->attributes_ = std::move(attributes);
  for (HloInstruction* op : operands) {
    instr->operands_.push_back(op);
    // Only this loop adds `instr` to users lists, so if `op` already lists
    // it, it is the last entry (an operand repeated 50,000 times must not
    // cost a scan of the operand's users each time).
    if (op->users_.empty() || op->users_.back() != instr.get()) op->users_.push_back(instr.get());
  }
  instr->called_computations_.assign(called.begin(), called.end());
  // A fused computation knows its fusion (each has exactly one).
  if (opcode == HloOpcode::kFusion) {
    for (HloComputation* c : called) {
      if (c != nullptr) c->set_fusion_instruction(instr.get());
    }
  }
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateParameter(int64_t number, const Shape& shape,
                                                                const std::string& name) {
  HloInstructionProto attrs;
  attrs.set_parameter_number(number);
  auto instr = Create(HloOpcode::kParameter, shape, {}, {}, std::move(attrs));
  instr->set_name(name);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateConstant(Literal literal) {
  auto instr = Create(HloOpcode::kConstant, literal.shape(), {});
  instr->literal_ = std::move(literal);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateUnary(HloOpcode opcode, const Shape& shape,
                                                            HloInstruction* operand) {
  return Create(opcode, shape, {operand});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateBinary(HloOpcode opcode, const Shape& shape,
                                                             HloInstruction* lhs, HloInstruction* rhs) {
  return Create(opcode, shape, {lhs, rhs});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateBroadcast(const Shape& shape,
                                                                HloInstruction* operand,
                                                                absl::Span<const int64_t> dimensions) {
  HloInstructionProto attrs;
  for (int64_t d : dimensions) attrs.add_dimensions(d);
  return Create(HloOpcode::kBroadcast, shape, {operand}, {}, std::move(attrs));
}

std::unique_ptr<HloInstruction> HloInstruction::CreateTuple(absl::Span<HloInstruction* const> elements) {
  std::vector<Shape> shapes;
  for (HloInstruction* e : elements) shapes.push_back(e->shape());
  return Create(HloOpcode::kTuple, ShapeUtil::MakeTupleShape(std::move(shapes)), elements);
}

std::unique_ptr<HloInstruction> HloInstruction::CreateGetTupleElement(const Shape& shape,
                                                                      HloInstruction* tuple,
                                                                      int64_t index) {
  HloInstructionProto attrs;
  attrs.set_tuple_index(index);
  return Create(HloOpcode::kGetTupleElement, shape, {tuple}, {}, std::move(attrs));
}

void HloInstruction::ReplaceOperandWith(int64_t i, HloInstruction* new_operand) {
  HloInstruction* old = operands_[i];
  operands_[i] = new_operand;
  if (std::find(operands_.begin(), operands_.end(), old) == operands_.end()) {
    old->users_.erase(std::remove(old->users_.begin(), old->users_.end(), this), old->users_.end());
  }
  if (std::find(new_operand->users_.begin(), new_operand->users_.end(), this) ==
      new_operand->users_.end()) {
    new_operand->users_.push_back(this);
  }
}

void HloInstruction::ReplaceAllUsesWith(HloInstruction* replacement) {
  if (replacement == this) return;
  // Linear in the operands of the users: wide users (a 50,000-operand
  // concatenate) and many users must not make it quadratic.
  absl::flat_hash_set<const HloInstruction*> listed(replacement->users_.begin(), replacement->users_.end());
  for (HloInstruction* user : users_) {
    for (HloInstruction*& operand : user->operands_) {
      if (operand == this) operand = replacement;
    }
    if (listed.insert(user).second) replacement->users_.push_back(user);
  }
  users_.clear();
  if (parent_ != nullptr && parent_->root_instruction() == this) {
    parent_->set_root_instruction(replacement);
  }
}

HloComputation* HloInstruction::to_apply() const {
  return called_computations_.empty() ? nullptr : called_computations_[0];
}
HloComputation* HloInstruction::while_condition() const {
  return called_computations_.size() > 0 ? called_computations_[0] : nullptr;
}
HloComputation* HloInstruction::while_body() const {
  return called_computations_.size() > 1 ? called_computations_[1] : nullptr;
}

ComparisonDirection HloInstruction::comparison_direction() const {
  auto d = StringToComparisonDirection(attributes_.comparison_direction());
  return d.ok() ? *d : ComparisonDirection::kEq;
}

ComparisonType HloInstruction::comparison_type() const {
  if (!attributes_.comparison_type().empty()) {
    auto t = StringToComparisonType(attributes_.comparison_type());
    if (t.ok()) return *t;
  }
  return DefaultComparisonType(operands_.empty() ? shape_.element_type()
                                                 : operands_[0]->shape().element_type());
}

HloInstructionProto HloInstruction::ToProto() const {
  HloInstructionProto proto = attributes_;
  proto.set_name(name_);
  proto.set_opcode(std::string(HloOpcodeString(opcode_)));
  *proto.mutable_shape() = shape_.ToProto();
  proto.set_id(unique_id_);
  for (const HloInstruction* op : operands_) proto.add_operand_ids(op->unique_id());
  for (const HloComputation* c : called_computations_) proto.add_called_computation_ids(c->unique_id());
  if (literal_.has_value()) *proto.mutable_literal() = literal_->ToProto();
  return proto;
}

std::string HloInstruction::ToString() const { return HloInstructionToString(*this); }

bool HloInstruction::HasSideEffect() const {
  if (xla::HasSideEffect(opcode_)) return true;
  for (const HloComputation* c : called_computations_) {
    if (c != nullptr && c->HasSideEffect()) return true;
  }
  return false;
}

void HloInstruction::set_called_computation(int64_t i, HloComputation* c) {
  called_computations_[i] = c;
  if (parent_ != nullptr && parent_->parent() != nullptr) parent_->parent()->NoteStructureChange();
}

}  // namespace xla
