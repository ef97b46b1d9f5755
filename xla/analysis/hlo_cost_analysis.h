// HLO cost analysis: how many floating-point operations a module's
// arithmetic takes, counted from the HLO before any backend rewrites it, so
// that a benchmark can turn a run time into achieved FLOP/s. The rules
// (as XLA's HloCostAnalysis counts, except where noted):
//   dot            2 * output elements * contracted elements (2*M*N*K per batch)
//   convolution    2 * output elements * kernel window * input features per
//                  group (every window tap counts, padding and dilation holes
//                  included: the op's definition, not what a backend skips)
//   elementwise    1 per output element, transcendentals, compare, select,
//                  clamp and convert included (a complex op counts as 1)
//   reduce         its computation's count per input element (1 for an add)
//   reduce-window  its computation's count per output element per window tap
//   map, scatter   their computation's count per output / update element
//   select-and-scatter  select per source element per window tap, plus
//                  scatter per source element
//   call, fusion   the called computation; conditional: its costliest branch;
//                  while: body and condition once (the trip count is unknown)
//   data movement  0 (parameter, constant, broadcast, reshape, transpose,
//                  slice, concatenate, pad, gather, copy, tuple, ...)
// Ops whose work these rules do not capture (sort, fft, custom-call,
// cholesky, triangular-solve, rng, batch-norm, top-k, reducing collectives)
// count 0 and are listed in `not_counted`, as are while and conditional,
// whose counts are partial or an upper bound.
#ifndef XLA_ANALYSIS_HLO_COST_ANALYSIS_H_
#define XLA_ANALYSIS_HLO_COST_ANALYSIS_H_

#include <cstdint>
#include <map>
#include <string>

#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_module.h"

namespace xla {

struct HloCost {
  int64_t flops = 0;
  // Opcode name -> number of instructions whose work is left out of `flops`
  // or counted only in part (see above).
  std::map<std::string, int64_t> not_counted;
};

// The entry computation and every computation it calls.
HloCost AnalyzeHloCost(const HloModule& module);
HloCost AnalyzeHloCost(const HloComputation& computation);

}  // namespace xla

#endif  // XLA_ANALYSIS_HLO_COST_ANALYSIS_H_
