// Loop versioning on invariant selects: an innermost loop that selects
// between values by conditions computed before it (a pad's "inside the
// operand" test for the current output row and column, while the loop runs
// over features) runs as two copies,
// one for when every such condition holds, in which those selects take
// their first operand, and the original loop for the rest. In the copy the
// clamped loads and the selects after them are gone: a 3x3 depthwise
// convolution with padding has eight selects per output vector, which made
// it 25% slower than the same convolution on a padded input. Runs before
// the loop vectorizer (both copies are then vectorized).
#ifndef BACKENDS_CPU_CODEGEN_INVARIANT_SELECT_VERSIONING_H_
#define BACKENDS_CPU_CODEGEN_INVARIANT_SELECT_VERSIONING_H_

#include <cstdint>

#include "llvm/IR/PassManager.h"

namespace xla {
namespace cpu {

// Loops with fewer selects on invariant conditions than this stay as they
// are (the copy doubles the loop's code for little), and so do loops of
// more instructions than kMaxVersionedLoopInstructions (compile time).
constexpr int64_t kMinInvariantSelects = 2;
constexpr int64_t kMaxVersionedLoopInstructions = 600;

class InvariantSelectVersioningPass : public llvm::PassInfoMixin<InvariantSelectVersioningPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_INVARIANT_SELECT_VERSIONING_H_
