// CustomCallEmitter: a custom-call as one call into the runtime
// (runtime/runtime_custom_call.h) with the invocation bound to its
// registered handler at compile time (xla/custom_call; an unregistered
// target fails here), whose address the code holds as a constant, and
// arrays of the operands' and result's leaf buffers. The handler sees
// row-major buffers, so other layouts are Unimplemented. A failing call
// returns from the entry function; the executable reports the status.
#ifndef BACKENDS_CPU_CODEGEN_CUSTOM_CALL_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_CUSTOM_CALL_EMITTER_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "backends/cpu/codegen/value_buffers.h"
#include "llvm/IR/BasicBlock.h"
#include "xla/custom_call/custom_call_invocation.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

class CustomCallEmitter : public OpEmitter {
 public:
  // `control`: the entry's ExecutionControl argument; `abort_block`: where a
  // failed call goes; `invocations`: where the bound calls are kept (the
  // executable owns them for as long as the code exists).
  CustomCallEmitter(EmitContext& ctx, ValueBuffers& buffers, llvm::Value* control,
                    std::function<llvm::BasicBlock*()> abort_block,
                    std::vector<std::unique_ptr<CustomCallInvocation>>* invocations)
      : OpEmitter(ctx, buffers),
        control_(control),
        abort_block_(std::move(abort_block)),
        invocations_(invocations) {}

  absl::Status Emit(const HloInstruction& hlo);

 private:
  // The array leaves' buffers of `hlo`'s value.
  absl::Status AppendLeaves(const HloInstruction* hlo, std::vector<llvm::Value*>* out);
  // An array of `pointers` allocated in the function's entry block.
  llvm::Value* PointerArray(const std::vector<llvm::Value*>& pointers, const std::string& name);

  llvm::Value* control_;
  std::function<llvm::BasicBlock*()> abort_block_;
  std::vector<std::unique_ptr<CustomCallInvocation>>* invocations_;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_CUSTOM_CALL_EMITTER_H_
