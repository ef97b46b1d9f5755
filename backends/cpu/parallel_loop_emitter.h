// Parallel loop nests: a loop nest over a large array shape is outlined into
// a function `void f(void** captured, i64 begin, i64 end)` that runs the
// indices whose outermost (major) dimension is in [begin, end), and the
// enclosing function calls __xla_cpu_runtime_ParallelFor with it (see
// runtime_parallel.h). Values of the enclosing function that the body uses
// (buffer addresses) reach the outlined function through `captured`, an
// array of pointers the caller fills: the body asks for them through a
// ValueRemap, so only what it really reads is passed.
#ifndef BACKENDS_CPU_PARALLEL_LOOP_EMITTER_H_
#define BACKENDS_CPU_PARALLEL_LOOP_EMITTER_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "backends/cpu/loop_emitter.h"
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

// Emits the loop nest over `shape` (in its layout order) at the builder's
// insertion point. When `device` (the run's thread-pool pointer, an i8* value)
// is non-null and `shape` has at least `kMinParallelWork` / `inner_work`
// elements and an outermost dimension of 2 or more, the nest is outlined and
// run in parallel; else it is emitted inline. `inner_work` is the work per
// element (e.g. the number of elements a reduction reads).
absl::Status EmitParallelLoopNest(llvm::IRBuilder<>* b, llvm::Value* device, const Shape& shape,
                                  const std::string& name, const ElementCost& cost, int64_t inner_work,
                                  const std::function<absl::Status(const IrIndex&, const ValueRemap&)>& body);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_PARALLEL_LOOP_EMITTER_H_
