// ValueBuffers: where the per-op emitters (OpEmitter below: (dot_emitter.h, scatter_emitter.h,
// reduction_emitter.h)) find the buffers of values while a computation is
// emitted. The IrEmitter implements it from its BufferAssignment; fused
// parameters resolve to the fusion's operands.
#ifndef BACKENDS_CPU_CODEGEN_VALUE_BUFFERS_H_
#define BACKENDS_CPU_CODEGEN_VALUE_BUFFERS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "backends/cpu/codegen/emit_context.h"
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

// What each per-op emitter holds: the function's context, its builder and
// module, and where values are.
class OpEmitter {
 public:
  OpEmitter(EmitContext& ctx, ValueBuffers& buffers)
      : ctx_(ctx), b_(*ctx.b), module_(ctx.module), buffers_(buffers) {}

 protected:
  EmitContext& ctx_;
  llvm::IRBuilder<>& b_;
  llvm::Module* module_;
  ValueBuffers& buffers_;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_VALUE_BUFFERS_H_
