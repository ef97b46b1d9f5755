// DotEmitter: dots through the runtime's matmul kernels (matmul_plan.h):
// the call per batch, and the elementwise epilogue of a kOutput fusion that
// the kernel applies to each block of the product as it is finished. Dots
// the runtime does not take are emitted as element loops (the elemental
// emitter's dot).
#ifndef BACKENDS_CPU_CODEGEN_DOT_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_DOT_EMITTER_H_

#include "absl/status/status.h"
#include "backends/cpu/codegen/emit_context.h"
#include "backends/cpu/codegen/value_buffers.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

class DotEmitter : public OpEmitter {
 public:
  using OpEmitter::OpEmitter;

  // Whether the runtime computes `hlo` (an f32/f64 dot it reads in place).
  static bool UsesRuntime(const HloInstruction& hlo);

  // `dot` through the runtime into its own buffer, or, with `epilogue` (the
  // root of the dot's kOutput fusion), into the epilogue's buffer with the
  // epilogue applied block by block.
  absl::Status EmitRuntimeMatMul(const HloInstruction& dot, const HloInstruction* epilogue = nullptr);
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_DOT_EMITTER_H_
