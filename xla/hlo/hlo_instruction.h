// HloInstruction: one operation in an HloComputation. Operands, users and
// called computations are typed pointers; every other attribute of the op
// (dimensions, window, dimension numbers, slice bounds, ...) lives in an
// HloInstructionProto, so the proto, the text form and the IR share one
// schema and a new attribute needs no new member.
#ifndef XLA_HLO_HLO_INSTRUCTION_H_
#define XLA_HLO_HLO_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/hlo.pb.h"
#include "xla/hlo/comparison.h"
#include "xla/hlo/hlo_opcode.h"
#include "xla/literal.h"
#include "xla/shape.h"

namespace xla {

class HloComputation;

class HloInstruction {
 public:
  // `attributes` holds the op's typed attributes; its name/opcode/shape/id/
  // operand_ids/called_computation_ids/literal fields are ignored (the
  // arguments are the truth).
  static std::unique_ptr<HloInstruction> Create(HloOpcode opcode, const Shape& shape,
                                                absl::Span<HloInstruction* const> operands,
                                                absl::Span<HloComputation* const> called = {},
                                                HloInstructionProto attributes = {});
  static std::unique_ptr<HloInstruction> CreateParameter(int64_t number, const Shape& shape,
                                                         const std::string& name);
  static std::unique_ptr<HloInstruction> CreateConstant(Literal literal);
  static std::unique_ptr<HloInstruction> CreateUnary(HloOpcode opcode, const Shape& shape,
                                                     HloInstruction* operand);
  static std::unique_ptr<HloInstruction> CreateBinary(HloOpcode opcode, const Shape& shape,
                                                      HloInstruction* lhs, HloInstruction* rhs);
  static std::unique_ptr<HloInstruction> CreateBroadcast(const Shape& shape, HloInstruction* operand,
                                                         absl::Span<const int64_t> dimensions);
  static std::unique_ptr<HloInstruction> CreateTuple(absl::Span<HloInstruction* const> elements);
  static std::unique_ptr<HloInstruction> CreateGetTupleElement(const Shape& shape,
                                                               HloInstruction* tuple, int64_t index);

  HloOpcode opcode() const { return opcode_; }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  int64_t unique_id() const { return unique_id_; }
  void set_unique_id(int64_t id) { unique_id_ = id; }

  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  HloInstruction* mutable_operand(int64_t i) { return operands_[i]; }
  const HloInstruction* operand(int64_t i) const { return operands_[i]; }
  const std::vector<HloInstruction*>& operands() const { return operands_; }
  const std::vector<HloInstruction*>& users() const { return users_; }
  // Replaces operand i (keeps user lists consistent).
  void ReplaceOperandWith(int64_t i, HloInstruction* new_operand);
  // Makes every user of this instruction use `replacement` instead, and moves
  // the computation's root if this was it.
  void ReplaceAllUsesWith(HloInstruction* replacement);

  const std::vector<HloComputation*>& called_computations() const { return called_computations_; }
  // A side effect of its own (HasSideEffect(opcode)) or of an instruction
  // in a computation it calls, at any depth.
  bool HasSideEffect() const;
  void set_called_computation(int64_t i, HloComputation* c);
  // Conventional roles of called computations.
  HloComputation* to_apply() const;         // map, reduce, reduce-window, call, sort, scatter, all-reduce
  HloComputation* while_condition() const;  // while: [condition, body]
  HloComputation* while_body() const;
  // conditional: predicated form [true, false]; indexed form [branch 0..n-1].
  absl::Span<HloComputation* const> branch_computations() const { return called_computations_; }

  HloComputation* parent() const { return parent_; }
  void set_parent(HloComputation* parent) { parent_ = parent; }

  // Typed attributes of the op.
  const HloInstructionProto& attributes() const { return attributes_; }
  HloInstructionProto* mutable_attributes() { return &attributes_; }

  // Shortcuts into attributes().
  absl::Span<const int64_t> dimensions() const { return attributes_.dimensions(); }
  int64_t dimensions(int i) const { return attributes_.dimensions(i); }
  int64_t parameter_number() const { return attributes_.parameter_number(); }
  int64_t tuple_index() const { return attributes_.tuple_index(); }
  // compare: direction, and type (explicit or the element type's default).
  ComparisonDirection comparison_direction() const;
  ComparisonType comparison_type() const;

  // The constant's value (kConstant only).
  const Literal& literal() const { return *literal_; }
  bool has_literal() const { return literal_.has_value(); }
  void set_literal(Literal literal) { literal_ = std::move(literal); }

  HloInstructionProto ToProto() const;
  // One line of HLO text: "%name = f32[2]{0} add(%a, %b), attr=..." (see
  // hlo_printer.h for options).
  std::string ToString() const;

 private:
  HloInstruction(HloOpcode opcode, const Shape& shape) : opcode_(opcode), shape_(shape) {}

  HloOpcode opcode_;
  Shape shape_;
  std::string name_;
  int64_t unique_id_ = -1;
  std::vector<HloInstruction*> operands_;
  std::vector<HloInstruction*> users_;  // distinct users, in first-use order
  std::vector<HloComputation*> called_computations_;
  HloComputation* parent_ = nullptr;
  HloInstructionProto attributes_;
  std::optional<Literal> literal_;
};

}  // namespace xla

#endif  // XLA_HLO_HLO_INSTRUCTION_H_
