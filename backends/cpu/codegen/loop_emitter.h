// Loop-nest emission helpers for the CPU backend's IR emitter: counted loops
// in a shape that LLVM's loop passes (rotate, LICM, vectorize) handle well.
#ifndef BACKENDS_CPU_CODEGEN_LOOP_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_LOOP_EMITTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "backends/cpu/codegen/emit_context.h"
#include "llvm/IR/IRBuilder.h"
#include "xla/shape.h"

namespace xla {
namespace cpu {

// One i64 value per dimension of a shape, in dimension-number order.
using IrIndex = std::vector<llvm::Value*>;

// Value-computing instructions per iteration from which an innermost loop is
// latency-bound enough to get an llvm.loop.interleave.count hint of 4;
// cheaper loops get no hint.
constexpr int64_t kLongLoopBodyCost = 16;
// Innermost loops of fewer iterations (a constant count) whose body is that
// long are not loop-vectorized (LLVM's threshold for tiny trip counts).
constexpr int64_t kMinVectorizedTripCount = 16;

// Emits `for (i = 0; i < trip_count; ++i) body(i)` at the builder's insertion
// point (i is i64); afterwards the builder is positioned after the loop.
// Innermost loops whose body is long (kLongLoopBodyCost) carry an interleave
// hint, and are not unrolled.
absl::Status EmitForLoop(EmitContext& context, int64_t trip_count, const std::string& name,
                         const std::function<absl::Status(llvm::Value*)>& body);
// The same for `for (i = begin; i < end; ++i)` with i64 bounds.
absl::Status EmitForLoop(EmitContext& context, llvm::Value* begin, llvm::Value* end, const std::string& name,
                         const std::function<absl::Status(llvm::Value*)>& body);

// Emits a loop nest over every index of `dims` (0 <= index[d] < dims[d]).
// The outermost loop runs over minor_to_major.back(), the innermost over
// minor_to_major[0], so stores in that layout are consecutive in the
// innermost loop. Dimensions are numbered as in `dims`; `minor_to_major`
// must be a permutation of them.
absl::Status EmitLoopNest(EmitContext& context, const std::vector<int64_t>& dims,
                          const std::vector<int64_t>& minor_to_major, const std::string& name,
                          const std::function<absl::Status(const IrIndex&)>& body);

// A dimension whose loop is emitted as consecutive loops, one per piece:
// piece p covers [starts[p], starts[p + 1]) of it. For a concatenate along
// the dimension, each loop's body then reads one operand, with no choice
// per element (which keeps the loop from vectorizing). dim < 0: no split.
struct LoopPieces {
  int64_t dim = -1;
  std::vector<int64_t> starts;
};

// EmitLoopNest with `pieces.dim`'s loop split into its pieces; the body is
// told the piece its index is in, or -1 when the dimension is not split
// (pieces.dim < 0, or not one of the nest's loops).
absl::Status EmitLoopNest(EmitContext& context, const std::vector<int64_t>& dims,
                          const std::vector<int64_t>& minor_to_major, const std::string& name,
                          const LoopPieces& pieces,
                          const std::function<absl::Status(const IrIndex&, int64_t piece)>& body);

// Same over an array shape, in its layout order.
absl::Status EmitLoopNestForShape(EmitContext& context, const Shape& shape, const std::string& name,
                                  const std::function<absl::Status(const IrIndex&)>& body);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_LOOP_EMITTER_H_
