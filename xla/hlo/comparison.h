// Comparison directions and types of the compare op (HLO text "EQ", "FLOAT").
#ifndef XLA_HLO_COMPARISON_H_
#define XLA_HLO_COMPARISON_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/xla_data.pb.h"

namespace xla {

enum class ComparisonDirection { kEq, kNe, kGe, kGt, kLe, kLt };
// kFloat: IEEE comparison; kTotalOrder: -NaN < -Inf < ... < +Inf < +NaN.
enum class ComparisonType { kFloat, kTotalOrder, kSigned, kUnsigned };

absl::string_view ComparisonDirectionString(ComparisonDirection direction);
absl::StatusOr<ComparisonDirection> StringToComparisonDirection(absl::string_view text);
absl::string_view ComparisonTypeString(ComparisonType type);
absl::StatusOr<ComparisonType> StringToComparisonType(absl::string_view text);
// The type XLA uses when none is given: FLOAT for floats and complex,
// SIGNED/UNSIGNED for integers, UNSIGNED for PRED.
ComparisonType DefaultComparisonType(PrimitiveType type);

}  // namespace xla

#endif  // XLA_HLO_COMPARISON_H_
