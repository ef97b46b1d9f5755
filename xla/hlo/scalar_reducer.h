// Whether a reducer computation (reduce's, all-reduce's to_apply) is one
// binary op of its two scalar parameters: the evaluator runs those as typed
// loops, and the collectives hand sums, products, minima and maxima to a
// transport that reduces natively.
#ifndef XLA_HLO_SCALAR_REDUCER_H_
#define XLA_HLO_SCALAR_REDUCER_H_

#include <optional>

#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_opcode.h"

namespace xla {

struct ScalarBinaryReducer {
  HloOpcode opcode;
  bool swapped;  // op(p1, p0) rather than op(p0, p1)
};

// The op when `computation` is op(p0, p1) or op(p1, p0) on scalars of
// `type`, its root of that type too; nullopt otherwise.
std::optional<ScalarBinaryReducer> MatchScalarBinaryReducer(const HloComputation& computation, PrimitiveType type);

}  // namespace xla

#endif  // XLA_HLO_SCALAR_REDUCER_H_
