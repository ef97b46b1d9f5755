// rng (RngUniform, RngNormal): the evaluator evaluates the same HLO the
// rng-expander pass puts in its place (xla/transforms/rng_expansion.h), so
// the CPU backend's values equal these bit for bit.
#include <memory>

#include "xla/evaluator/evaluator_internal.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/shape_inference.h"
#include "xla/status_macros.h"
#include "xla/transforms/rng_expansion.h"

namespace xla {
namespace evaluator_internal {

absl::StatusOr<Literal> EvaluateRng(const HloInstruction& rng, const Literal& a, const Literal& b) {
  RETURN_IF_ERROR(
      ShapeInference::InferRngShape(a.shape(), b.shape(), rng.attributes().distribution(), rng.shape()).status());
  RETURN_IF_ERROR(CheckRngRunsOnce(rng));
  ASSIGN_OR_RETURN(uint64_t seed, ModuleRngSeed(*rng.parent()->parent()));
  HloComputation expansion("rng_expansion");
  HloInstruction* pa = expansion.AddInstruction(HloInstruction::CreateParameter(0, a.shape(), "a"));
  HloInstruction* pb = expansion.AddInstruction(HloInstruction::CreateParameter(1, b.shape(), "b"));
  AddHloFn add = [&](std::unique_ptr<HloInstruction> instruction) {
    return expansion.AddInstruction(std::move(instruction));
  };
  ASSIGN_OR_RETURN(HloInstruction * value, BuildRngExpansion(add, pa, pb, rng.attributes().distribution(),
                                                             RowMajorShape(rng.shape()), RngKey(seed, rng.name())));
  expansion.set_root_instruction(value);
  HloEvaluator evaluator;
  const Literal* args[] = {&a, &b};
  return evaluator.Evaluate(expansion, args);
}

}  // namespace evaluator_internal
}  // namespace xla
