// IrEmitter: emits the entry computation of a fused HloModule
// (cpu_fusion.h) as ONE LLVM function, every value where its
// BufferAssignment puts it (buffer_assignment.h). It takes no decision of its
// own on what fuses or where a value lives.
//
// ABI of the emitted function:
//
//   void <name>(void** params, void** results, char* arena, const void* device,
//               const void* control)
//
//   params  - the array leaves of the entry parameters, parameter by
//             parameter, each tuple parameter flattened depth-first; each a
//             64-byte aligned buffer in its parameter shape's layout.
//   results - the array leaves of the result shape, depth-first, each a
//             distinct buffer in the root's layout (row-major if none),
//             written by the function.
//   arena   - BufferAssignment::arena_bytes() of 64-byte aligned scratch for
//             the intermediate values (one arena per run).
//   device  - the run's Eigen::ThreadPoolDevice (null: run on this thread),
//             passed to parallel loops and the matmul runtime.
//   control - the run's ExecutionControl (may be null), asked by While loops
//             whether to stop; stopping returns early (results undefined).
//
// Each instruction of an emitted computation fills its buffer: a loop nest
// over its shape in its layout order (innermost = minor dimension, so
// LLVM's loop vectorizer sees consecutive stores), generating each element
// with the ElementalIrEmitter; a fusion generates its fused computation's
// root that way, reading its parameters from the fusion operands' buffers.
// A kOutput fusion's dot goes to the matmul runtime, which applies the rest
// of the fused computation to each finished block (its epilogue); a
// kRowGroup fusion runs its members in one loop over their rows.
#ifndef BACKENDS_CPU_CODEGEN_IR_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_IR_EMITTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "backends/cpu/codegen/buffer_assignment.h"
#include "backends/cpu/codegen/elemental_ir_emitter.h"
#include "backends/cpu/codegen/kernel_sharing.h"
#include "backends/cpu/codegen/value_buffers.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "xla/custom_call/custom_call_invocation.h"
#include "xla/hlo/hlo_computation.h"

namespace xla {
namespace cpu {

class IrEmitter : public ValueBuffers {
 public:
  // `threads`: the workers a run has; with more than one, large loops are
  // emitted as parallel loops (parallel_loop_emitter.h).
  IrEmitter(llvm::Module* module, int threads, const BufferAssignment& assignment)
      : module_(module), b_(module->getContext()), ctx_(&b_, module), assignment_(assignment) {
    ctx_.threads = threads;
  }

  // Emits `computation` as function `name` with the ABI above.
  absl::Status EmitEntryFunction(const HloComputation& computation, const std::string& name);
  // The custom calls the code calls (custom_call_emitter.h): whoever runs
  // the code must keep them alive.
  std::vector<std::unique_ptr<CustomCallInvocation>> TakeCustomCalls() { return std::move(custom_calls_); }
  // Runs before every instruction is emitted; an error ends the emission
  // with it (a compile past its deadline).
  void set_stop_check(std::function<absl::Status()> check) { stop_check_ = std::move(check); }
  // Array constants of at least `min_bytes` (0: none) are left out of the
  // code: it refers to each as an external symbol (external_constants.h).
  void set_external_constant_min_bytes(int64_t min_bytes) { external_constant_min_bytes_ = min_bytes; }
  // The constants left out, by the symbols the code refers to.
  struct ExternalConstant {
    std::string symbol;
    const Literal* literal;
  };
  std::vector<ExternalConstant> TakeExternalConstants() { return std::move(external_constants_); }
  // Outlined kernels not emitted because an equal one was (kernel_sharing.h).
  int64_t shared_kernels() const { return sharing_.shared(); }


 private:
  using Slot = BufferSlot;

  absl::Status CheckInstruction(const HloInstruction& hlo);
  // Computations with more loops than this get each loop nest in a
  // function of its own (ScopedOutlineAllRanges).
  static constexpr int64_t kMaxInlineLoops = 32;
  // Rows of a group's streamed buffers that are prefetched one row ahead:
  // long enough to matter, short enough that the hardware prefetcher has no
  // time to ramp up within the row.
  static constexpr int64_t kMinPrefetchRowBytes = 256;
  static constexpr int64_t kMaxPrefetchRowBytes = 16 * 1024;
  // Emits `computation` at the insertion point, its parameter leaves (depth-
  // first) read from `params` and its result leaves written to `results`
  // (control_flow_emitter.cc uses this for while/conditional/call bodies;
  // a computation may be emitted several times).
  absl::Status EmitComputation(const HloComputation& computation, std::vector<llvm::Value*> params,
                               std::vector<llvm::Value*> results);
  // While, conditional and call (control_flow_emitter.cc).
  absl::Status EmitControlFlow(const HloInstruction& hlo);
  // A block of the entry function that returns at once (a stopped run).
  llvm::BasicBlock* AbortBlock();
  // Between kernels: returns from the entry function (AbortBlock) when the
  // run's stop flag is set; `after` names the blocks.
  void EmitStopCheck(const std::string& after);
  // The next 64-byte aligned slot of `bytes` of the control-flow
  // instruction's temporaries (BufferAssignment::control_flow_scratch).
  absl::StatusOr<llvm::Value*> NextScratchSlot(int64_t bytes);
  // Addresses of the array leaves of `tree`, depth-first.
  absl::StatusOr<std::vector<llvm::Value*>> LeafAddresses(const ValueTree& tree);
  // Copies an array between buffers (layouts may differ).
  absl::Status EmitCopy(llvm::Value* src, const Shape& src_shape, llvm::Value* dst, const Shape& dst_shape,
                        const std::string& name);
  // The emitter's visitor: one handler per opcode emits `hlo` (of an
  // emitted computation, or a fusion's root) into its buffer; opcodes no
  // handler emits are Unimplemented, by name.
  absl::Status Visit(const HloInstruction& hlo, ElementalIrEmitter& elemental);
  // Opcodes with a handler of their own beyond fusible, plumbing, storage
  // and control flow.
  static bool HasEmitter(HloOpcode opcode);
  // A loop nest over `hlo`'s shape generating each element.
  absl::Status EmitElementLoop(const HloInstruction& hlo, ElementalIrEmitter& elemental);
  // A kLoop, kInput or kOutput fusion: its fused root emitted into the
  // fusion's buffer.
  absl::Status EmitFusion(const HloInstruction& fusion, ElementalIrEmitter& elemental);
  // A kRowGroup fusion: one loop over the members' rows computing every
  // member's row in turn (row_group_emitter.cc).
  absl::Status EmitRowGroup(const HloInstruction& fusion);
  llvm::Value* SlotAddress(const Slot& slot, const HloInstruction* hlo);
  // The value a fused computation's parameter stands for (the fusion's
  // operand, through nested fusions); any other instruction itself.
  const HloInstruction* Resolve(const HloInstruction* hlo) const;
  // The buffer holding `hlo`'s value, or null when its elements are
  // generated inline (fused instructions, one-element constants).
  llvm::Value* BufferOf(const HloInstruction* hlo) override;
  // The buffer of a value that has one (Internal error otherwise).
  absl::StatusOr<llvm::Value*> AddressOf(const HloInstruction* hlo) override;
  absl::StatusOr<std::vector<llvm::Value*>> LeafAddressesOf(const HloInstruction* hlo) override;

  llvm::Module* module_;
  llvm::IRBuilder<> b_;
  llvm::Value* params_ = nullptr;
  llvm::Value* results_ = nullptr;
  llvm::Value* arena_ = nullptr;
  llvm::Value* control_ = nullptr;  // the ExecutionControl argument
  std::function<absl::Status()> stop_check_;
  llvm::BasicBlock* abort_block_ = nullptr;
  // The builder, module, thread-pool argument (null when compiled for one
  // thread), thread count and loop state every emitter shares.
  EmitContext ctx_;
  const BufferAssignment& assignment_;
  // The temporaries of the control-flow instruction being emitted: the next
  // free offset and the end of its slot.
  int64_t scratch_next_ = 0, scratch_end_ = 0;
  // Leaf addresses of the computation being emitted.
  std::vector<llvm::Value*> param_leaves_, result_leaves_;
  absl::flat_hash_map<const ValueTree*, llvm::Value*> leaf_addresses_;
  // The values of the computations being emitted (from the assignment).
  absl::flat_hash_map<const HloInstruction*, std::shared_ptr<const ValueTree>> trees_;
  // Base pointers computed in the entry block, per array instruction.
  absl::flat_hash_map<const HloInstruction*, llvm::Value*> addresses_;
  std::vector<std::unique_ptr<CustomCallInvocation>> custom_calls_;
  int64_t external_constant_min_bytes_ = 0;
  std::vector<ExternalConstant> external_constants_;
  // Each constant's global, made once however many computations read it.
  absl::flat_hash_map<const HloInstruction*, llvm::GlobalVariable*> constant_globals_;
  // Fusions with structural twins, and the kernels emitted for them.
  KernelSharing sharing_;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_IR_EMITTER_H_
