// Applies the error model of precision.h to a whole HLO module: the
// precision of every array leaf of the entry's result, given the arguments
// (their largest finite magnitudes bound the parameters). The runner compares
// each output with the tolerance this gives; the shrinker reuses it, so a
// shrunk module is judged by the same rules as the generated one.
//
// Called computations are analyzed with their operands' precisions: reducers
// are folded once per reduced element (sequentially, as the evaluator and
// the CPU backend's documented orders do), except a plain float add/multiply
// reducer, which the CPU may reassociate; a while body is applied
// kAssumedMaxTrips times (the generator's loops run at most 4 times) and its
// condition must stay exact; a conditional joins its branches.
#ifndef TOOLS_HLO_FUZZ_PRECISION_ANALYSIS_H_
#define TOOLS_HLO_FUZZ_PRECISION_ANALYSIS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tools/hlo_fuzz/precision.h"
#include "xla/hlo/hlo_module.h"
#include "xla/literal.h"

namespace xla {
namespace hlo_fuzz {

inline constexpr int kAssumedMaxTrips = 8;

// Array leaves of `shape` in order (an array is one leaf).
int64_t LeafCount(const Shape& shape);

// Largest |finite value| of each array leaf of `literal` (pred: 1).
std::vector<double> LeafMagnitudes(const Literal& literal);

// An exact value for each array leaf of `literal`: its largest finite
// magnitude, and whether it holds an infinity.
std::vector<Precision> LeafPrecisions(const Literal& literal);

// Precision of each array leaf of the entry's result.
absl::StatusOr<std::vector<Precision>> AnalyzeOutputPrecision(const HloModule& module,
                                                              absl::Span<const Literal> arguments);

}  // namespace hlo_fuzz
}  // namespace xla

#endif  // TOOLS_HLO_FUZZ_PRECISION_ANALYSIS_H_
