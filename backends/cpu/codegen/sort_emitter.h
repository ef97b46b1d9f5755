// SortEmitter: sort through the runtime (runtime_sort.h), as XLA's CPU
// backend does. The operands are copied into the result buffers; the
// comparator becomes a function of its own, `void(bool* result, const void**
// values)` reading the 2N scalars it is pointed at; each 1-D slice along the
// sort dimension (slices run in parallel on the pool when there is enough
// work) is one call of __xla_cpu_runtime_SortSlice on the results' slices,
// which sorts them in place, stably (the evaluator's order, also for an
// unstable sort).
#ifndef BACKENDS_CPU_CODEGEN_SORT_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_SORT_EMITTER_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/cpu/codegen/value_buffers.h"
#include "llvm/IR/Function.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

class SortEmitter : public OpEmitter {
 public:
  using OpEmitter::OpEmitter;

  absl::Status EmitSort(const HloInstruction& hlo);

 private:
  // The comparator of `hlo` as a private function (see above).
  absl::StatusOr<llvm::Function*> EmitComparator(const HloInstruction& hlo);
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_SORT_EMITTER_H_
