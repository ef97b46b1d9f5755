// ForeignOpLowering ("foreign-op-lowering", CPU pipeline): instructions that
// other compilers' optimized HLO carries and this backend has no emitter
// for, rewritten into ones it has:
//   opt-barrier  its operand (the barrier has done its job once the
//                simplification passes before this one have run);
//   bitcast      between array shapes of one element type whose elements
//                lie in the same order in memory (default layouts, or any
//                layouts where the result is the operand's elements in its
//                layout order): a reshape of the operand in row-major
//                order, with copies to and from that order where a layout
//                is not the default.
//   get-tuple-element and tuple declaring another layout than their
//                element's (the verifier compares shapes without layouts):
//                the layout change as an explicit copy, since the emitter
//                shares the element's buffer.
// Other bitcasts (element types of different widths) are left for the
// emitter, which reports them Unimplemented.
#ifndef BACKENDS_CPU_TRANSFORMS_FOREIGN_OP_LOWERING_H_
#define BACKENDS_CPU_TRANSFORMS_FOREIGN_OP_LOWERING_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {
namespace cpu {

class ForeignOpLowering : public HloPass {
 public:
  absl::string_view name() const override { return "foreign-op-lowering"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TRANSFORMS_FOREIGN_OP_LOWERING_H_
