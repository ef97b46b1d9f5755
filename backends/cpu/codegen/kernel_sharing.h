// Identical kernels compiled once. A module often runs the same fused
// computation on different buffers (the layers of a model, the repeated
// blocks of a long chain); each fusion would otherwise become an outlined
// function of its own, and LLVM would optimize and generate code for every
// copy. Here, fusions whose HLO has the same structure (FusionStructureKey)
// are emitted with every buffer address passed in the captured array
// instead of recomputed from constants (parallel_loop_emitter.cc), so that
// their functions can be the same; a function is then shared only when
// LLVM's FunctionComparator finds it equal to an earlier one and its
// metadata (alignment, loop hints, buffer regions up to renaming, with the
// same overlaps) matches too (SameKernel). The HLO key only picks the
// candidates: the comparison of the emitted IR decides, so a key that is
// too loose costs a comparison, never a wrong kernel.
#ifndef BACKENDS_CPU_CODEGEN_KERNEL_SHARING_H_
#define BACKENDS_CPU_CODEGEN_KERNEL_SHARING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "llvm/IR/Function.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_module.h"

namespace xla {
namespace cpu {

// The structure of `fusion`: its shape, operand shapes and fused
// computation (with the computations it calls), every name replaced by its
// order of appearance and op metadata left out. Equal for fusions that
// differ only in names.
std::string FusionStructureKey(const HloInstruction& fusion);

// Whether `a` and `b` compute the same thing from the same captured array
// and arguments: equal IR (FunctionComparator) and equal metadata, buffer
// region marks compared by their overlaps rather than their offsets.
// Both are left as they were (their region marks are set aside while
// LLVM compares them).
bool SameKernel(llvm::Function& a, llvm::Function& b);

// The sharing state of one module's emission.
class KernelSharing {
 public:
  // Counts the fusions of `module`'s emitted computations by structure:
  // only structures that occur twice or more are candidates.
  void CountFusions(const HloModule& module);
  // The key `fusion` is emitted under ("" when it has no twin).
  std::string CandidateKey(const HloInstruction& fusion) const;
  // An earlier function emitted under `key` that is the same kernel as
  // `function` (which is then erased, with the functions only it called),
  // or `function` itself, remembered under `key`.
  llvm::Function* Share(const std::string& key, llvm::Function* function);
  // Functions erased because an earlier one was the same.
  int64_t shared() const { return shared_; }

 private:
  // The structure of every fusion that has a twin.
  absl::flat_hash_map<const HloInstruction*, std::string> keys_;
  absl::flat_hash_map<std::string, std::vector<llvm::Function*>> emitted_;
  int64_t shared_ = 0;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_KERNEL_SHARING_H_
