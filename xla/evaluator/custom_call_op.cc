// CustomCall: calls the handler registered for the instruction's target
// (xla/custom_call) with row-major copies of the operands' array leaves and
// a zeroed result of the declared shape, whose leaves it fills. The
// handler's error is the evaluation's error.
#include <vector>

#include "xla/custom_call/custom_call_invocation.h"
#include "xla/evaluator/evaluator_internal.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {
namespace {

template <typename L, typename P>
void LeafData(L& literal, std::vector<P>* out) {
  if (literal.shape().IsTuple()) {
    for (auto& e : literal.tuple_elements()) LeafData(e, out);
  } else if (literal.shape().IsArray()) {
    out->push_back(literal.untyped_data());
  }
}

}  // namespace

absl::StatusOr<Literal> EvaluateCustomCall(const HloInstruction& instruction,
                                           absl::Span<const Literal* const> operands) {
  ASSIGN_OR_RETURN(std::unique_ptr<CustomCallInvocation> call, CustomCallInvocation::Bind(instruction));
  std::vector<Literal> row_major;
  row_major.reserve(operands.size());
  for (const Literal* o : operands) row_major.push_back(o->RelayoutTo(ShapeUtil::WithDefaultLayout(o->shape())));
  std::vector<const void*> in;
  for (const Literal& l : row_major) LeafData(l, &in);
  Literal result(ShapeUtil::WithDefaultLayout(instruction.shape()));
  std::vector<void*> out;
  LeafData(result, &out);
  if (in.size() != call->operand_leaves().size() || out.size() != call->result_leaves().size()) {
    return Internal("custom-call %s: operand or result leaves do not match the instruction", instruction.name());
  }
  RETURN_IF_ERROR(call->Invoke(in.data(), out.data()));
  return result;
}

}  // namespace evaluator_internal
}  // namespace xla
