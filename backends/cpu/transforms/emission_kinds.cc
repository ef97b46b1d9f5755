#include "backends/cpu/transforms/emission_kinds.h"

#include <algorithm>

namespace xla {
namespace cpu {

bool IsFusibleOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kBroadcast: case HloOpcode::kReshape: case HloOpcode::kTranspose:
    case HloOpcode::kSlice: case HloOpcode::kReverse: case HloOpcode::kIota:
    case HloOpcode::kConcatenate: case HloOpcode::kPad: case HloOpcode::kConstant:
    case HloOpcode::kConvert: case HloOpcode::kCopy: case HloOpcode::kSelect:
    case HloOpcode::kClamp: case HloOpcode::kCompare:
    case HloOpcode::kDynamicSlice: case HloOpcode::kBitcastConvert: case HloOpcode::kMap:
    case HloOpcode::kGather: case HloOpcode::kReducePrecision:
      return true;
    default:
      return IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode);
  }
}

bool KeepsMinorDimension(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kReduce || hlo.operand_count() != 2 || !hlo.shape().IsArray()) return false;
  const Shape& in = hlo.operand(0)->shape();
  if (!in.IsArray() || in.rank() == 0 || hlo.shape().rank() == 0) return false;
  const int64_t minor = in.layout().minor_to_major(0);
  return std::find(hlo.dimensions().begin(), hlo.dimensions().end(), minor) == hlo.dimensions().end();
}

}  // namespace cpu
}  // namespace xla
