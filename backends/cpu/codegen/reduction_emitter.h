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
#include "backends/cpu/codegen/emit_context.h"
#include "backends/cpu/codegen/value_buffers.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

class ReductionEmitter : public OpEmitter {
 public:
  using OpEmitter::OpEmitter;

  // A reduce keeping its operand's minor dimension (KeepsMinorDimension),
  // into its buffer as above. Large outputs are split into one contiguous
  // share per worker.
  absl::Status EmitMinorKeepingReduce(const HloInstruction& hlo);
  // A reduce or reduce-window with a tuple result (variadic): one loop nest
  // over the result index (parallel over its outermost dimension when large)
  // writing one value into each element's buffer.
  absl::Status EmitVariadicReduce(const HloInstruction& hlo);
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_REDUCTION_EMITTER_H_
