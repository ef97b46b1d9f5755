// Compares the CPU backend's result with the interpreter's, leaf by leaf,
// with each leaf's tolerance from the error model (precision.h):
//  - integers and pred: bit-exact;
//  - exact floats: equal as numbers (-0 == +0);
//  - approximate floats: |actual - expected| <= abs + rel * |expected|;
//  - always: NaN matches only NaN, an infinity only the same infinity;
//  - unusable leaves are skipped (counted).
// The result's shape must match exactly, layouts included.
#ifndef TOOLS_HLO_FUZZ_OUTPUT_COMPARISON_H_
#define TOOLS_HLO_FUZZ_OUTPUT_COMPARISON_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "tools/hlo_fuzz/precision.h"
#include "xla/literal.h"

namespace xla {
namespace hlo_fuzz {

struct ComparisonCounts {
  int compared = 0;  // leaves compared
  int skipped = 0;   // unusable leaves
};

// OK, or an error naming the leaf, the element index, both values and the
// tolerance of the first difference.
absl::Status CompareOutputs(const Literal& expected, const Literal& actual, absl::Span<const Precision> leaves,
                            ComparisonCounts* counts);

}  // namespace hlo_fuzz
}  // namespace xla

#endif  // TOOLS_HLO_FUZZ_OUTPUT_COMPARISON_H_
