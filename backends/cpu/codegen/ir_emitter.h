// IrEmitter: emits the entry computation of an HloModule as ONE LLVM
// function, deciding which instructions get a buffer (materialized) and
// which are generated inline in their consumers' loops (fused).
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
//   arena   - ArenaBytes() of 64-byte aligned scratch for the materialized
//             intermediate values (one arena per run); values whose live
//             ranges do not overlap share bytes (buffer_assignment.h).
//   device  - the run's Eigen::ThreadPoolDevice (null: run on this thread),
//             passed to parallel loops and the matmul runtime.
//   control - the run's ExecutionControl (may be null), asked by While loops
//             whether to stop; stopping returns early (results undefined).
//
// An instruction is materialized when it has more than one use, is not
// fusible (reduce, dot), feeds a tuple, or is a result leaf (then its buffer
// is the result buffer itself). Everything else is generated at each index
// by the ElementalIrEmitter inside the loop of its consumer. A dot with no
// batch dimensions and one rhs free dimension (a matrix product, or a
// projection [batch, seq, hidden] x [hidden, out]) whose only use is an
// elementwise chain ending at a materialized value of its shape (bias add,
// activation, an SGD update) is not materialized: the
// matmul runtime writes it into that value's buffer and applies the chain
// there, block by block, as each block of sums is finished (its epilogue).
// Loop nests run
// over each materialized output in its layout order (innermost = minor
// dimension), so LLVM's loop vectorizer sees consecutive stores.
#ifndef BACKENDS_CPU_CODEGEN_IR_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_IR_EMITTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "backends/cpu/codegen/elemental_ir_emitter.h"
#include "backends/cpu/codegen/row_fusion.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "xla/hlo/hlo_computation.h"

namespace xla {
namespace cpu {

class IrEmitter {
 public:
  // `threads`: the workers a run has; with more than one, large loops are
  // emitted as parallel loops (parallel_loop_emitter.h).
  IrEmitter(llvm::Module* module, int threads) : module_(module), b_(module->getContext()), threads_(threads) {}

  // Emits `computation` as function `name` with the ABI above.
  absl::Status EmitEntryFunction(const HloComputation& computation, const std::string& name);

  int64_t ArenaBytes() const { return arena_bytes_; }
  // Where each intermediate buffer lives and when (for --xla_dump_to).
  const std::string& BufferAssignmentText() const { return buffer_assignment_; }

 private:
  // Where an array value lives.
  struct Slot {
    enum Kind { kNone, kParam, kResult, kArena, kGlobal };
    Kind kind = kNone;
    int64_t index = 0;  // param/result leaf number or arena offset
    int64_t bytes = 0;  // arena: bytes the slot spans (0: unknown)
  };
  // The slots of a value: one for an array, a tree for a tuple.
  struct ValueTree {
    Slot slot;
    Shape shape;
    const HloInstruction* producer = nullptr;  // the array instruction (for arrays)
    std::vector<std::shared_ptr<ValueTree>> elements;
    bool is_tuple = false;
  };

  // Result leaves held elsewhere, copied at the end of a computation.
  struct ResultCopies {
    std::vector<std::pair<int64_t, std::shared_ptr<ValueTree>>> copies;
    std::vector<Shape> shapes;  // destination shape of each copy
  };

  absl::Status CheckInstruction(const HloInstruction& hlo);
  absl::Status AssignSlots(const HloComputation& computation, ResultCopies* result_copies);
  // Gives `arena_leaves` (values of `computation`, in `order`) arena offsets:
  // buffers whose live ranges do not overlap share space
  // (buffer_assignment.h). Placed above everything assigned so far.
  void PlaceArenaLeaves(const HloComputation& computation, const std::vector<HloInstruction*>& order,
                        std::vector<ValueTree*> arena_leaves, size_t first_group);
  // Group members only their own group reads, with rows of at most
  // kMaxRowScratchBytes: they get one row of stack instead of a buffer.
  void FindRowScratchMembers(const std::vector<const HloInstruction*>& emitted, size_t first_group);
  static constexpr int64_t kMaxRowScratchBytes = 64 * 1024;
  // Computations with more materialized instructions than this get each
  // loop nest in a function of its own (ScopedOutlineAllRanges).
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
  // A fresh 64-byte aligned arena slot of `bytes`.
  Slot NewArenaSlot(int64_t bytes);
  // Addresses of the array leaves of `tree`, depth-first.
  absl::StatusOr<std::vector<llvm::Value*>> LeafAddresses(const ValueTree& tree);
  // Copies an array between buffers (layouts may differ).
  absl::Status EmitCopy(llvm::Value* src, const Shape& src_shape, llvm::Value* dst, const Shape& dst_shape,
                        const std::string& name);
  absl::Status EmitInstruction(const HloInstruction& hlo, ElementalIrEmitter& elemental);
  // Whether EmitInstruction emits `hlo` as a plain loop nest over its shape.
  bool IsLoopEmitted(const HloInstruction& hlo) const;
  // Row groups (row_fusion.h) of a computation's instructions, in `order`.
  // Returns the index of its first group in row_groups_ (the groups of
  // enclosing computations come before).
  size_t FindComputationRowGroups(const std::vector<HloInstruction*>& order);
  // One loop over the group's rows computing every member's row in turn.
  absl::Status EmitRowGroup(const RowGroup& group);
  // Whether the dot goes through the Eigen runtime (matmul_plan.h).
  bool CanUseRuntimeMatMul(const HloInstruction& hlo) const;
  // Finds the dots computed with an epilogue (see above) among `order`'s
  // `reachable` instructions, after materialize_ is decided.
  void FindMatMulEpilogues(const std::vector<HloInstruction*>& order,
                           const absl::flat_hash_set<const HloInstruction*>& reachable);
  // `dot` through the runtime, into its own buffer, or with `epilogue` (the
  // materialized end of its elementwise chain) into that one's.
  absl::Status EmitRuntimeMatMul(const HloInstruction& dot, const HloInstruction* epilogue = nullptr);
  // Materialized: the operand copied, then the update window written.
  // Reduce with a tuple result (variadic): one loop nest over the result
  // index (parallel over its outermost dimension when large) writing one
  // value into each element's buffer.
  absl::Status EmitVariadicReduce(const HloInstruction& hlo);
  absl::Status EmitDynamicUpdateSlice(const HloInstruction& hlo, ElementalIrEmitter& elemental);
  // Scatter (single or variadic): the operands copied, then each update
  // combined into its target in row-major order of the updates (the
  // evaluator's order); updates mapping outside are skipped. Large ones run
  // in bands of the operand's major dimension, one worker per band.
  absl::Status EmitScatter(const HloInstruction& hlo);
  // Select-and-scatter: the output filled with the init value, then for each
  // source element in row-major order its window's selection (as the
  // evaluator makes it) combined with it through scatter. Indices of a
  // dimension whose windows are single unpadded positions (a pooling's batch
  // or features) run in parallel: their updates never meet.
  absl::Status EmitSelectAndScatter(const HloInstruction& hlo);
  llvm::Value* SlotAddress(const Slot& slot, const HloInstruction* hlo);
  llvm::Value* BufferOf(const HloInstruction* hlo);

  llvm::Module* module_;
  llvm::IRBuilder<> b_;
  llvm::Value* params_ = nullptr;
  llvm::Value* results_ = nullptr;
  llvm::Value* arena_ = nullptr;
  // The thread-pool argument, or null when compiled for one thread.
  llvm::Value* device_ = nullptr;
  llvm::Value* control_ = nullptr;  // the ExecutionControl argument
  llvm::BasicBlock* abort_block_ = nullptr;
  int threads_;
  int64_t arena_bytes_ = 0;
  std::string buffer_assignment_;
  // Leaf addresses of the computation being emitted.
  std::vector<llvm::Value*> param_leaves_, result_leaves_;
  absl::flat_hash_map<const ValueTree*, llvm::Value*> leaf_addresses_;
  absl::flat_hash_map<const HloInstruction*, std::shared_ptr<ValueTree>> trees_;
  absl::flat_hash_map<const HloInstruction*, bool> materialize_;
  // Epilogue (the materialized end of a dot's elementwise chain) -> the dot.
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> epilogue_dot_;
  // Row groups found so far and the group of each member.
  std::vector<RowGroup> row_groups_;
  absl::flat_hash_map<const HloInstruction*, size_t> row_group_of_;
  absl::flat_hash_set<const HloInstruction*> row_scratch_;
  // Base pointers computed in the entry block, per array instruction.
  absl::flat_hash_map<const HloInstruction*, llvm::Value*> addresses_;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_IR_EMITTER_H_
