// RandomBitsEmitter: rng-bit-generator as one call of the runtime's
// generator (backends/cpu/runtime/runtime_random.h), which writes both
// leaves of the (new state, bits) result.
#ifndef BACKENDS_CPU_CODEGEN_RANDOM_BITS_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_RANDOM_BITS_EMITTER_H_

#include "absl/status/status.h"
#include "backends/cpu/codegen/value_buffers.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

class RandomBitsEmitter : public OpEmitter {
 public:
  using OpEmitter::OpEmitter;

  absl::Status EmitRngBitGenerator(const HloInstruction& hlo);
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_RANDOM_BITS_EMITTER_H_
