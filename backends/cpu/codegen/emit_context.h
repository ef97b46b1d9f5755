// EmitContext: what every emitter writing one LLVM function shares: the
// builder, the module, the run's thread pool argument and thread count, and
// the loop-emission state (whether every parallel range is outlined, and
// how many loops have been emitted, which tells a loop whether it is
// innermost). One per IrEmitter; passed by reference to the loop emitters,
// the elemental emitter and the reduction emitter.
#ifndef BACKENDS_CPU_CODEGEN_EMIT_CONTEXT_H_
#define BACKENDS_CPU_CODEGEN_EMIT_CONTEXT_H_

#include <cstdint>
#include <string>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace xla {
namespace cpu {

class KernelSharing;

struct EmitContext {
  EmitContext(llvm::IRBuilder<>* builder, llvm::Module* llvm_module) : b(builder), module(llvm_module) {}

  llvm::IRBuilder<>* b;
  llvm::Module* module;
  // The run's Eigen::ThreadPoolDevice argument, or null when compiled for
  // one thread (parallel loops then run inline).
  llvm::Value* device = nullptr;
  // The workers a run has.
  int threads = 1;
  // Every range of EmitParallelRange in a function of its own, even when it
  // runs serially (ScopedOutlineAllRanges).
  bool outline_all_ranges = false;
  // Loops EmitForLoop has emitted so far: a loop whose body emitted none is
  // innermost.
  int64_t loops_emitted = 0;
  // The address of the run's stop flag (an i8, nonzero once the run should
  // stop: ExecutionControl::stop_flag()) as a value of the function being
  // emitted, or null for no checks. Outer loops leave early once it is set
  // (loop_emitter.cc); the entry function returns at its next check between
  // kernels.
  llvm::Value* stop_flag = nullptr;
  // CodeWeight (ir_emitter_internal.h) summed over what the computation
  // being emitted emits: a row group that outweighs its share of the
  // module's parts is emitted in chunks (row_group_emitter.cc).
  int64_t computation_code_weight = 0;
  // Row-scratch arrays given a buffer region so far (alias_analysis.h).
  int64_t row_scratch_regions = 0;

  // Identical kernels compiled once (kernel_sharing.h): while a fusion with
  // structural twins is emitted, `sharing_key` is its structure, and each
  // function EmitOutlinedFunction makes for it (the `sharing_ordinal`-th)
  // is offered to `sharing`, which may return an earlier equal one.
  KernelSharing* sharing = nullptr;
  std::string sharing_key;
  int sharing_ordinal = 0;

  // stop_flag, or a null pointer: the argument of the runtime calls that
  // check it (backends/cpu/runtime/runtime_stop.h).
  llvm::Value* StopFlagArgument() const {
    return stop_flag != nullptr ? stop_flag : llvm::ConstantPointerNull::get(b->getPtrTy());
  }
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_EMIT_CONTEXT_H_
