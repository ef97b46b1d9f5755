// CollectiveEmitter: replica-id/partition-id, infeed, outfeed and the
// collectives as calls into the runtime (runtime/runtime_collectives.h),
// which meets the run's other processes through their ReplicaContext.
// The instruction's description travels as its serialized proto in a
// constant; all-reduce's and reduce-scatter's reducer is emitted as a
// function the runtime calls to fold each member's contribution, in group
// order. Send, recv and recv-done are runtime calls on the run's channel
// table; send-done has no code. A failing call
// returns from the entry function; the executable reports the status the
// runtime recorded.
#ifndef BACKENDS_CPU_CODEGEN_COLLECTIVE_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_COLLECTIVE_EMITTER_H_

#include <functional>

#include "absl/status/status.h"
#include "backends/cpu/codegen/value_buffers.h"
#include "llvm/IR/BasicBlock.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

class CollectiveEmitter : public OpEmitter {
 public:
  // `control`: the entry's ExecutionControl argument; `abort_block`: where a
  // failed call goes (the function returns).
  CollectiveEmitter(EmitContext& ctx, ValueBuffers& buffers, llvm::Value* control,
                    std::function<llvm::BasicBlock*()> abort_block)
      : OpEmitter(ctx, buffers), control_(control), abort_block_(std::move(abort_block)) {}

  static bool Handles(HloOpcode opcode);
  absl::Status Emit(const HloInstruction& hlo);

 private:
  absl::Status EmitProcessId(const HloInstruction& hlo);
  absl::Status EmitInfeed(const HloInstruction& hlo);
  absl::Status EmitOutfeed(const HloInstruction& hlo);
  absl::Status EmitCollective(const HloInstruction& hlo);
  absl::Status EmitTransfer(const HloInstruction& hlo);
  // The array leaves' addresses of `hlo`'s value (tuples flattened, tokens
  // left out).
  absl::StatusOr<std::vector<llvm::Value*>> ArrayLeaves(const HloInstruction* hlo);
  // The serialized description of `hlo` as a constant: (pointer, size).
  std::pair<llvm::Value*, llvm::Value*> Description(const HloInstruction& hlo);
  std::pair<llvm::Value*, llvm::Value*> Description(const HloInstruction& hlo, const HloInstructionProto& proto);
  // An array of pointers in the function's entry block, filled here.
  llvm::Value* PointerArray(const std::vector<llvm::Value*>& pointers, const std::string& name);
  // Branches to the abort block when `ok` (i1) is false.
  void CheckCall(llvm::Value* ok, const HloInstruction& hlo);
  // void(i64 operand, ptr acc, ptr other, i64 count): acc[i] = f(acc[i], other[i])
  // (all-reduce and reduce-scatter).
  absl::StatusOr<llvm::Function*> EmitCombiner(const HloInstruction& hlo);

  llvm::Value* control_;
  std::function<llvm::BasicBlock*()> abort_block_;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_COLLECTIVE_EMITTER_H_
