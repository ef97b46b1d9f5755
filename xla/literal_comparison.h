// Exact and approximate comparison of literals, returning a status that
// describes the first mismatch (index, expected, actual) for test output.
#ifndef XLA_LITERAL_COMPARISON_H_
#define XLA_LITERAL_COMPARISON_H_

#include "absl/status/status.h"
#include "xla/literal.h"

namespace xla {

// |actual - expected| <= abs + rel * |expected| per element (complex: per
// component). NaN matches NaN; infinities must match exactly.
struct ErrorSpec {
  double abs = 0;
  double rel = 0;
};

namespace literal_comparison {

absl::Status Equal(const Literal& expected, const Literal& actual);
absl::Status Near(const Literal& expected, const Literal& actual, const ErrorSpec& error);
// Largest absolute element difference (arrays of the same shape; tuples take
// the maximum over elements). NaN against NaN is no difference, NaN against
// a number an infinite one.
absl::StatusOr<double> MaxAbsDifference(const Literal& a, const Literal& b);

}  // namespace literal_comparison
}  // namespace xla

#endif  // XLA_LITERAL_COMPARISON_H_
