// LinalgEmitter: fft, triangular-solve and cholesky as one call each into
// the runtime (runtime_fft.h, runtime_linalg.h), which loops over the batch
// (on the run's thread pool). The CPU pipeline has made their operands and
// results row-major f32/f64/c64/c128 (linalg_canonicalization.h); anything
// else is an Internal error here, never a wrong answer.
#ifndef BACKENDS_CPU_CODEGEN_LINALG_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_LINALG_EMITTER_H_

#include "absl/status/status.h"
#include "backends/cpu/codegen/value_buffers.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

class LinalgEmitter : public OpEmitter {
 public:
  using OpEmitter::OpEmitter;

  absl::Status EmitFft(const HloInstruction& fft);
  absl::Status EmitTriangularSolve(const HloInstruction& solve);
  absl::Status EmitCholesky(const HloInstruction& cholesky);
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_LINALG_EMITTER_H_
