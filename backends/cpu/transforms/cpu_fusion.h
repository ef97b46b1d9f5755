// CpuFusion ("cpu-fusion", the last pass of the CPU pipeline): decides which
// instructions get a buffer of their own (are materialized) and which are
// generated inline in their consumer's loop, and writes the decision into
// the module as `fusion` instructions, so that dumps show it and the emitter
// only follows it.
//
// Per computation the emitter emits as code (the entry, while conditions and
// bodies, conditional branches, call targets):
//
// * Materialized: instructions with more than one use, that are not fusible
//   (emission_kinds.h: reduce, dot, scatter, ...), that feed a tuple, dot,
//   convolution, reduce-window, scatter, select-and-scatter or control flow
//   (read many times each, or leaf by leaf), and the root. An operand used
//   twice by one elementwise user counts once when it is small straight-line
//   arithmetic (d in d*d: LLVM computes the one value once).
// * kLoop / kInput fusion: a materialized instruction with the fused
//   (non-materialized) producers it generates inline, as one fusion; kInput
//   when its root is a reduce or reduce-window (the loop runs over the
//   result, folding the operand), kLoop otherwise.
// * kOutput fusion: a dot the matmul runtime computes (matmul_plan.h) whose
//   only use is a chain of elementwise ops of its dimensions ending at a
//   materialized value of its shape (bias add, activation): the runtime
//   applies the chain to each block of the product as it is finished.
// * kRowGroup fusion: consecutive loop-emitted values that share their
//   outermost dimension and read each other only within a row
//   (row_fusion.h) run in one loop over rows. Its fused computation holds
//   the members in order (each a fusion or a plain instruction); its result
//   is a tuple of the members read outside the group. The others live one
//   row at a time.
//
// Values no fusion takes (single materialized instructions, parameters,
// constants, tuples, control flow) stay as they are. Constants with one
// element are copied into the fused computations that read them
// (immediates); other operands become the fusion's parameters.
#ifndef BACKENDS_CPU_TRANSFORMS_CPU_FUSION_H_
#define BACKENDS_CPU_TRANSFORMS_CPU_FUSION_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/transforms/hlo_pass.h"

namespace xla {
namespace cpu {

inline constexpr absl::string_view kLoopFusion = "kLoop";
inline constexpr absl::string_view kInputFusion = "kInput";
inline constexpr absl::string_view kOutputFusion = "kOutput";
inline constexpr absl::string_view kRowGroupFusion = "kRowGroup";

class CpuFusion : public HloPass {
 public:
  absl::string_view name() const override { return "cpu-fusion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// Whether `hlo` is a fusion of `kind`.
bool IsFusionOfKind(const HloInstruction& hlo, absl::string_view kind);

// The value a fused computation's parameter stands for: the fusion's
// operand, through nested fusions. Any other instruction is itself.
const HloInstruction* FusionOperandOf(const HloInstruction* hlo);

// A kRowGroup fusion's members: the instructions of its fused computation
// but the parameters, the copied constants and the root tuple, in order.
std::vector<const HloInstruction*> RowGroupMembers(const HloInstruction& fusion);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TRANSFORMS_CPU_FUSION_H_
