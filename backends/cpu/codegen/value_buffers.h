// ValueBuffers: where the per-op emitters (dot_emitter.h, scatter_emitter.h,
// reduction_emitter.h) find the buffers of values while a computation is
// emitted. The IrEmitter implements it from its BufferAssignment; fused
// parameters resolve to the fusion's operands.
#ifndef BACKENDS_CPU_CODEGEN_VALUE_BUFFERS_H_
#define BACKENDS_CPU_CODEGEN_VALUE_BUFFERS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "llvm/IR/Value.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

class ValueBuffers {
 public:
  virtual ~ValueBuffers() = default;
  // The buffer holding `hlo`'s value, or null when its elements are
  // generated inline (fused instructions, one-element constants).
  virtual llvm::Value* BufferOf(const HloInstruction* hlo) = 0;
  // The buffer of a value that has one, such as the output of the
  // instruction being emitted (an Internal error otherwise).
  virtual absl::StatusOr<llvm::Value*> AddressOf(const HloInstruction* hlo) = 0;
  // The array leaves of a tuple-shaped value, depth-first.
  virtual absl::StatusOr<std::vector<llvm::Value*>> LeafAddressesOf(const HloInstruction* hlo) = 0;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_VALUE_BUFFERS_H_
