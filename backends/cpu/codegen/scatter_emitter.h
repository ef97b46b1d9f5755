// ScatterEmitter: instructions that update a copy of an operand in place:
// dynamic-update-slice, scatter (single or variadic, in the evaluator's
// order; large ones in bands of the operand's major dimension, one worker
// per band) and select-and-scatter (parallel along dimensions its windows
// do not span).
#ifndef BACKENDS_CPU_CODEGEN_SCATTER_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_SCATTER_EMITTER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/cpu/codegen/elemental_ir_emitter.h"
#include "backends/cpu/codegen/emit_context.h"
#include "backends/cpu/codegen/value_buffers.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

class ScatterEmitter : public OpEmitter {
 public:
  using OpEmitter::OpEmitter;

  // The operand copied, then the update window written.
  absl::Status EmitDynamicUpdateSlice(const HloInstruction& hlo, ElementalIrEmitter& elemental);
  // The operands copied, then each update combined into its target in
  // row-major order of the updates (the evaluator's order); updates mapping
  // outside are skipped.
  absl::Status EmitScatter(const HloInstruction& hlo);
  // Copies operand i into result leaf i (i < n; a single result when the
  // result is an array) and returns the leaves' addresses: what scatter and
  // sort then update in place.
  absl::StatusOr<std::vector<llvm::Value*>> CopyOperandsIntoResults(const HloInstruction& hlo, int64_t n);
  // The output filled with the init value, then for each source element in
  // row-major order its window's selection (as the evaluator makes it)
  // combined with it through scatter. Indices of a dimension whose windows
  // are single unpadded positions (a pooling's batch or features) run in
  // parallel: their updates never meet.
  absl::Status EmitSelectAndScatter(const HloInstruction& hlo);
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_SCATTER_EMITTER_H_
