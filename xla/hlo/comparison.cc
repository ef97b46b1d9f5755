#include "xla/hlo/comparison.h"

#include "xla/primitive_util.h"
#include "xla/status_macros.h"

namespace xla {

absl::string_view ComparisonDirectionString(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kEq: return "EQ";
    case ComparisonDirection::kNe: return "NE";
    case ComparisonDirection::kGe: return "GE";
    case ComparisonDirection::kGt: return "GT";
    case ComparisonDirection::kLe: return "LE";
    case ComparisonDirection::kLt: return "LT";
  }
  return "EQ";
}

absl::StatusOr<ComparisonDirection> StringToComparisonDirection(absl::string_view text) {
  for (auto d : {ComparisonDirection::kEq, ComparisonDirection::kNe, ComparisonDirection::kGe,
                 ComparisonDirection::kGt, ComparisonDirection::kLe, ComparisonDirection::kLt}) {
    if (ComparisonDirectionString(d) == text) return d;
  }
  return InvalidArgument("unknown comparison direction '%s' (expected EQ, NE, GE, GT, LE or LT)", text);
}

absl::string_view ComparisonTypeString(ComparisonType t) {
  switch (t) {
    case ComparisonType::kFloat: return "FLOAT";
    case ComparisonType::kTotalOrder: return "TOTALORDER";
    case ComparisonType::kSigned: return "SIGNED";
    case ComparisonType::kUnsigned: return "UNSIGNED";
  }
  return "FLOAT";
}

absl::StatusOr<ComparisonType> StringToComparisonType(absl::string_view text) {
  for (auto t : {ComparisonType::kFloat, ComparisonType::kTotalOrder, ComparisonType::kSigned,
                 ComparisonType::kUnsigned}) {
    if (ComparisonTypeString(t) == text) return t;
  }
  return InvalidArgument("unknown comparison type '%s'", text);
}

ComparisonType DefaultComparisonType(PrimitiveType type) {
  if (primitive_util::IsFloatingPointType(type) || primitive_util::IsComplexType(type)) {
    return ComparisonType::kFloat;
  }
  if (primitive_util::IsSignedIntegralType(type)) return ComparisonType::kSigned;
  return ComparisonType::kUnsigned;
}

}  // namespace xla
