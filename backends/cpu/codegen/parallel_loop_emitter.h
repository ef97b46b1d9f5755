// Parallel loops: the work of a large range of items (e.g. the rows of an
// array's outermost dimension) is outlined into a function
// `void f(void** captured, i64 begin, i64 end)` that runs items [begin, end),
// and the enclosing function calls __xla_cpu_runtime_ParallelFor with it
// (see runtime_parallel.h). Values of the enclosing function that the body uses
// (buffer addresses) reach the outlined function through `captured`, an
// array of pointers the caller fills: the body asks for them through a
// ValueRemap, so only what it really reads is passed.
#ifndef BACKENDS_CPU_CODEGEN_PARALLEL_LOOP_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_PARALLEL_LOOP_EMITTER_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/cpu/codegen/loop_emitter.h"
#include "backends/cpu/transforms/row_fusion.h"
#include "llvm/IR/IRBuilder.h"
#include "xla/shape.h"

namespace xla {
namespace cpu {

// Turns a pointer value of the enclosing function into one usable where the
// loop body is emitted (the identity when the loop is not outlined).
using ValueRemap = std::function<llvm::Value*(llvm::Value*)>;

// Estimated cost of one element of the loop, for the runtime's block sizes.
struct ElementCost {
  double bytes_loaded = 4;
  double bytes_stored = 4;
  double cycles = 1;
};

// Loops with less total work than this (elements x inner work) stay inline:
// handing them to the pool costs more than it saves.
constexpr int64_t kMinParallelWork = 1 << 16;

// The body of a parallel range: emits the work of items [begin, end) (i64
// values) at the builder's insertion point, reading buffers through `remap`.
using RangeBody = std::function<absl::Status(llvm::Value* begin, llvm::Value* end, const ValueRemap& remap)>;

// While one is alive (on this thread), EmitParallelRange outlines every
// range, running those too small for the pool serially through the runtime
// (with a null device). Large computations use it so that no LLVM function
// holds all their loops: LLVM's loop passes take superlinear time in the
// loops of one function.
class ScopedOutlineAllRanges {
 public:
  ScopedOutlineAllRanges(EmitContext& context, bool enable);
  ~ScopedOutlineAllRanges();
  ScopedOutlineAllRanges(const ScopedOutlineAllRanges&) = delete;
  ScopedOutlineAllRanges& operator=(const ScopedOutlineAllRanges&) = delete;

 private:
  EmitContext& ctx_;
  bool previous_;
};

// A private function `name`(ptr captured, extra_params...) whose body reads
// values of the caller through `remap`; each value it asks for is passed
// in the `captured` array, whose pointer is the function's first argument.
struct OutlinedFunction {
  llvm::Function* function;
  llvm::Value* captured;  // the array, filled at the caller's insertion point
};
using OutlinedBody = std::function<absl::Status(llvm::Function* function, const ValueRemap& remap)>;

// Emits `body` into a new OutlinedFunction (the builder is back at the
// caller's insertion point afterwards, after the stores of the captured
// values).
absl::StatusOr<OutlinedFunction> EmitOutlinedFunction(EmitContext& context, const std::string& name,
                                                       llvm::ArrayRef<llvm::Type*> extra_params,
                                                       const OutlinedBody& body);

// Emits the work of items [0, n) at the builder's insertion point. When
// `device` (the run's thread-pool pointer, an i8* value) is non-null, n >= 2
// and `total_work` (elements touched by all items) is at least
// `kMinParallelWork`, the body is outlined into `name`.parallel and run in
// blocks on the pool, with `cost` per item; else it is emitted inline once
// for [0, n) (or, under ScopedOutlineAllRanges, outlined and run serially).
absl::Status EmitParallelRange(EmitContext& context, int64_t n, const std::string& name,
                               const ElementCost& cost, int64_t total_work, const RangeBody& body);

// Emits the loop nest over `shape` (in its layout order) at the builder's
// insertion point: a parallel range over the outermost (major) layout
// dimension of more than one row (merged with the next one when it has only
// a few rows), each item running the inner loops. `cost` is per element;
// `inner_work` is the work per element (e.g. the number of elements a
// reduction reads); the total work is elements x inner_work.
absl::Status EmitParallelLoopNest(EmitContext& context, const Shape& shape,
                                  const std::string& name, const ElementCost& cost, int64_t inner_work,
                                  const std::function<absl::Status(const IrIndex&, const ValueRemap&)>& body);
// The same with `pieces.dim`'s loop split (see EmitLoopNest); the body is
// told the piece, or -1 when that dimension is one of the range's (or a
// skipped major dimension of size 1).
absl::Status EmitParallelLoopNest(
    EmitContext& context, const Shape& shape, const std::string& name, const ElementCost& cost,
    int64_t inner_work, const LoopPieces& pieces,
    const std::function<absl::Status(const IrIndex&, int64_t piece, const ValueRemap&)>& body);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_PARALLEL_LOOP_EMITTER_H_
