#include "tools/hlo_fuzz/output_comparison.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/hlo_fuzz/precision_analysis.h"

namespace xla {
namespace hlo_fuzz {
namespace {

void CollectLeaves(const Literal& literal, std::vector<const Literal*>* out) {
  if (literal.shape().IsTuple()) {
    for (const Literal& e : literal.tuple_elements()) CollectLeaves(e, out);
  } else if (literal.shape().IsArray()) {
    out->push_back(&literal);
  }
}

bool FloatsMatch(double e, double a, const Precision& p) {
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
  if (std::isinf(e) || std::isinf(a)) return e == a;
  if (p.exact()) return e == a;
  return std::fabs(a - e) <= p.abs + p.rel * std::fabs(e);
}

std::string IndexText(const Shape& shape, int64_t linear) {
  std::vector<int64_t> index(shape.rank());
  ShapeUtil::MultiIndex(shape, linear, absl::MakeSpan(index));
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

std::string ValueText(const Literal& leaf, int64_t linear) {
  Literal one(ShapeUtil::MakeScalarShape(leaf.element_type()));
  one.CopyElementFrom(leaf, linear, 0);
  std::string text = one.ToStringWithoutShape();
  if (leaf.element_type() == PRED) {
    // A pred byte other than 0 or 1 prints as "true" but is not one.
    const uint8_t byte = static_cast<const uint8_t*>(leaf.untyped_data())[linear];
    if (byte > 1) absl::StrAppend(&text, " (byte ", byte, ")");
  }
  return text;
}

absl::Status CompareLeaf(int leaf_index, const Literal& expected, const Literal& actual_any_layout,
                         const Precision& p) {
  const Literal actual = actual_any_layout.Relayout(expected.shape().layout());
  const PrimitiveType type = expected.element_type();
  const int width = primitive_util::ByteWidth(type);
  const auto* e_bytes = static_cast<const uint8_t*>(expected.untyped_data());
  const auto* a_bytes = static_cast<const uint8_t*>(actual.untyped_data());
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    bool ok;
    if (IsFloat(type)) {
      ok = FloatsMatch(expected.GetAsDouble(i), actual.GetAsDouble(i), p);
    } else {
      ok = std::memcmp(e_bytes + i * width, a_bytes + i * width, width) == 0;
    }
    if (!ok) {
      return absl::InternalError(absl::StrCat(
          "output leaf ", leaf_index, " (", expected.shape().ToString(true), ") at index ",
          IndexText(expected.shape(), i), ": interpreter ", ValueText(expected, i), ", cpu ", ValueText(actual, i),
          p.exact() ? " (exact expected)" : absl::StrCat(" (allowed |diff| <= ", p.abs, " + ", p.rel, " * |ref|)")));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CompareOutputs(const Literal& expected, const Literal& actual, absl::Span<const Precision> leaves,
                            ComparisonCounts* counts) {
  if (!expected.shape().Compatible(actual.shape())) {
    return absl::InternalError(absl::StrCat("result shape: interpreter ", expected.shape().ToString(true), ", cpu ",
                                            actual.shape().ToString(true)));
  }
  if (!(expected.shape() == actual.shape())) {
    return absl::InternalError(absl::StrCat("result layout: interpreter ", expected.shape().ToString(true),
                                            ", cpu ", actual.shape().ToString(true)));
  }
  std::vector<const Literal*> e_leaves, a_leaves;
  CollectLeaves(expected, &e_leaves);
  CollectLeaves(actual, &a_leaves);
  if (e_leaves.size() != leaves.size() || a_leaves.size() != leaves.size()) {
    return absl::InternalError(absl::StrCat("precision analysis gave ", leaves.size(), " leaves for a result of ",
                                            e_leaves.size()));
  }
  for (size_t k = 0; k < leaves.size(); ++k) {
    if (leaves[k].unusable) {
      ++counts->skipped;
      continue;
    }
    ++counts->compared;
    absl::Status s = CompareLeaf(static_cast<int>(k), *e_leaves[k], *a_leaves[k], leaves[k]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace hlo_fuzz
}  // namespace xla
