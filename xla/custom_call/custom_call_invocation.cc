#include "xla/custom_call/custom_call_invocation.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {

void CustomCallArrayLeaves(const Shape& shape, std::vector<Shape>* out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) CustomCallArrayLeaves(s, out);
  } else if (shape.IsArray()) {
    out->push_back(shape);
  }
}

absl::StatusOr<std::unique_ptr<CustomCallInvocation>> CustomCallInvocation::Bind(const HloInstruction& hlo,
                                                                                 const CustomCallRegistry& registry) {
  if (hlo.opcode() != HloOpcode::kCustomCall) {
    return InvalidArgument("%s is a %s, not a custom-call", hlo.name(), HloOpcodeString(hlo.opcode()));
  }
  const HloInstructionProto& attrs = hlo.attributes();
  std::unique_ptr<CustomCallInvocation> call(new CustomCallInvocation());
  call->target_ = attrs.custom_call_target();
  call->instruction_ = hlo.name();
  call->handler_ = registry.Find(call->target_);
  if (call->handler_ == nullptr) {
    std::vector<std::string> names = registry.Names();
    return absl::NotFoundError(absl::StrCat("custom-call ", hlo.name(), ": target '", call->target_,
                                            "' is not registered (registered targets: ",
                                            names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
  }
  absl::StatusOr<CustomCallAttributes> parsed =
      CustomCallAttributes::Parse(attrs.backend_config(), attrs.custom_call_api_version());
  if (!parsed.ok()) {
    return absl::Status(parsed.status().code(), absl::StrCat("custom-call ", hlo.name(), " (target '",
                                                             call->target_, "'): ", parsed.status().message()));
  }
  call->attributes_ = *std::move(parsed);
  for (const HloInstruction* o : hlo.operands()) CustomCallArrayLeaves(o->shape(), &call->operand_leaves_);
  CustomCallArrayLeaves(hlo.shape(), &call->result_leaves_);
  // Handlers see row-major buffers; a layout that asks for another is not
  // something they could honor.
  std::vector<Shape> constrained = call->result_leaves_;
  for (const ShapeProto& p : attrs.operand_shapes_with_layout()) {
    ASSIGN_OR_RETURN(Shape s, ShapeUtil::FromProto(p));
    CustomCallArrayLeaves(s, &constrained);
  }
  for (const Shape& s : constrained) {
    if (s.has_layout() && !ShapeUtil::HasDefaultLayout(s)) {
      return Unimplemented("custom-call %s (target '%s'): layout %s is not row-major; handlers see row-major buffers",
                           hlo.name(), call->target_, s.ToString(true));
    }
  }
  return call;
}

absl::Status CustomCallInvocation::Invoke(const void* const* operands, void* const* results) const {
  std::vector<CustomCallOperand> ins(operand_leaves_.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    const PrimitiveType type = operand_leaves_[i].element_type();
    ins[i] = {type, operand_leaves_[i].dimensions(), operands[i], primitive_util::LowercaseName(type)};
  }
  std::vector<CustomCallResult> outs(result_leaves_.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    const PrimitiveType type = result_leaves_[i].element_type();
    outs[i] = {type, result_leaves_[i].dimensions(), results[i], primitive_util::LowercaseName(type)};
  }
  absl::Status status = (*handler_)(ins, outs, attributes_);
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat("custom call '", target_, "' (instruction ", instruction_, "): ", status.message()));
}

absl::Status CheckCustomCallTargets(const HloModule& module, const CustomCallRegistry& registry) {
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      if (i->opcode() != HloOpcode::kCustomCall) continue;
      RETURN_IF_ERROR(CustomCallInvocation::Bind(*i, registry).status());
    }
  }
  return absl::OkStatus();
}

}  // namespace xla
