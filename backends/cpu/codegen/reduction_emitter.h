// Materialized reductions that keep the operand's minor-most (layout)
// dimension, e.g. column sums of a row-major matrix. Folding each output
// element over its reduced elements would walk the operand with a large
// stride in scalar code; instead the output is filled with the init value
// and then, for each reduced index in row-major order (outer loops), every
// output element is updated in the output's layout order (inner loops):
//
//   out[j] = init;  for r: for j: out[j] = reducer(out[j], operand[j, r])
//
// The inner loops read the operand and update the output contiguously, so
// LLVM vectorizes them across output elements. Each output element still
// folds its elements in the evaluator's order (row-major over the reduced
// dimensions), and values are stored in their type after every step, as the
// register path holds them (F16/BF16 rounded after each op), so results are
// bit-identical to the evaluator. Large outputs are split along their
// outermost layout dimension across the thread pool; each part runs all the
// reduced indices for its own output elements, in tiles that stay in cache.
#ifndef BACKENDS_CPU_CODEGEN_REDUCTION_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_REDUCTION_EMITTER_H_

#include "absl/status/status.h"
#include "backends/cpu/codegen/elemental_ir_emitter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

// Emits `hlo` (KeepsMinorDimension) into its buffer `out` as above, at the
// builder's insertion point. `buffers` gives the address of materialized
// values (as ElementalIrEmitter's lookup); `device` is the run's thread
// pool, or null for one thread.
// `threads`: the workers of a run; each gets one contiguous share of the output.
absl::Status EmitMinorKeepingReduce(EmitContext& context, const HloInstruction& hlo, llvm::Value* out,
                                    const ElementalIrEmitter::BufferLookup& buffers);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_REDUCTION_EMITTER_H_
