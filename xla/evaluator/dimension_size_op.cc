// get-dimension-size and set-dimension-size on static shapes. A set size
// equal to the static dimension leaves the operand as it is; a smaller one
// would make the dimension dynamic (later reductions skipping the padding),
// which this system does not model: Unimplemented. A larger one (or a
// negative one) exceeds the dimension's bound: an error.
#include "xla/evaluator/evaluator_internal.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

absl::Status CheckSetDimensionSize(const HloInstruction& instruction, const Shape& operand, int64_t size) {
  const int64_t dimension = instruction.attributes().dimensions(0);
  const int64_t bound = operand.dimensions(dimension);
  if (size == bound) return absl::OkStatus();
  if (size < 0 || size > bound) {
    return InvalidArgument("%s: size %d is outside [0, %d], the bound of dimension %d of %s", InstrLabel(instruction),
                           size, bound, dimension, operand.ToString());
  }
  return Unimplemented(
      "%s: set-dimension-size to %d below the static size %d of dimension %d makes it dynamic; dynamic shapes are "
      "not supported",
      InstrLabel(instruction), size, bound, dimension);
}

absl::StatusOr<Literal> EvaluateDimensionSize(const HloInstruction& instruction,
                                              absl::Span<const Literal* const> operands) {
  std::vector<const Shape*> shapes;
  for (const Literal* l : operands) shapes.push_back(&l->shape());
  RETURN_IF_ERROR(ShapeInference::InferInstructionShape(instruction.opcode(), instruction.attributes(), shapes, {},
                                                        instruction.shape())
                      .status());
  const Shape& operand = operands[0]->shape();
  const int64_t dimension = instruction.attributes().dimensions(0);
  if (instruction.opcode() == HloOpcode::kGetDimensionSize) {
    return Literal::CreateR0<int32_t>(static_cast<int32_t>(operand.dimensions(dimension)));
  }
  RETURN_IF_ERROR(CheckSetDimensionSize(instruction, operand, operands[1]->data<int32_t>()[0]));
  return *operands[0];
}

}  // namespace evaluator_internal
}  // namespace xla
