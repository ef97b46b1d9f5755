// rng-bit-generator: the bit streams of random_bits.h.
#include <vector>

#include "xla/evaluator/evaluator_internal.h"
#include "xla/random_bits.h"
#include "xla/primitive_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

absl::StatusOr<Literal> EvaluateRngBitGenerator(const HloInstruction& instruction, const Literal& state) {
  const Shape& shape = instruction.shape();
  if (!shape.IsTuple() || shape.tuple_shapes().size() != 2 || !shape.tuple_shapes()[1].IsArray()) {
    return InvalidArgument("HloEvaluator: %s: the result must be (state, bits), got %s", InstrLabel(instruction),
                           shape.ToString());
  }
  if (!state.shape().IsArray() || state.element_type() != U64 || state.shape().rank() != 1) {
    return InvalidArgument("HloEvaluator: %s: the state must be u64[n], got %s", InstrLabel(instruction),
                           state.shape().ToString());
  }
  const Shape& data_shape = shape.tuple_shapes()[1];
  const PrimitiveType type = data_shape.element_type();
  if (type == PRED || primitive_util::IsComplexType(type)) {
    return InvalidArgument("HloEvaluator: %s: cannot generate bits of %s", InstrLabel(instruction),
                           data_shape.ToString());
  }
  Literal bits(RowMajorShape(data_shape));
  Literal new_state(RowMajorShape(state.shape()));
  auto in = state.data<uint64_t>();
  auto out = new_state.data<uint64_t>();
  absl::Status status = GenerateRandomBits(instruction.attributes().rng_algorithm(), in, data_shape.dimensions(),
                                           primitive_util::BitWidth(type), bits.untyped_data(), out);
  if (!status.ok()) return InvalidArgument("HloEvaluator: %s: %s", InstrLabel(instruction), status.message());
  std::vector<Literal> elements;
  elements.push_back(std::move(new_state));
  elements.push_back(std::move(bits));
  return Literal::MakeTuple(std::move(elements));
}

}  // namespace evaluator_internal
}  // namespace xla
