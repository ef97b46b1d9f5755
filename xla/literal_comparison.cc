#include "xla/literal_comparison.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/status_macros.h"

namespace xla {
namespace literal_comparison {
namespace {

absl::Status CheckShapes(const Literal& expected, const Literal& actual) {
  if (!expected.shape().Compatible(actual.shape())) {
    return InvalidArgument("shape mismatch: expected %s, actual %s", expected.shape().ToString(),
                           actual.shape().ToString());
  }
  return absl::OkStatus();
}

bool ValueNear(double e, double a, const ErrorSpec& spec) {
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
  if (std::isinf(e) || std::isinf(a)) return e == a;
  return std::fabs(a - e) <= spec.abs + spec.rel * std::fabs(e);
}

template <typename Pred>
absl::Status Compare(const Literal& expected, const Literal& actual, Pred&& near) {
  RETURN_IF_ERROR(CheckShapes(expected, actual));
  if (expected.shape().IsTuple()) {
    for (size_t i = 0; i < expected.tuple_elements().size(); ++i) {
      absl::Status s = Compare(expected.tuple_elements()[i], actual.tuple_elements()[i], near);
      if (!s.ok()) return AddErrorContext(s, absl::StrCat("tuple element ", i));
    }
    return absl::OkStatus();
  }
  if (!expected.shape().IsArray()) return absl::OkStatus();
  Literal a = actual.Relayout(expected.shape().layout());
  PrimitiveType type = expected.element_type();
  std::vector<int64_t> index(expected.shape().rank());
  return primitive_util::ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    auto ev = expected.data<T>();
    auto av = a.data<T>();
    for (size_t i = 0; i < ev.size(); ++i) {
      bool ok;
      if constexpr (primitive_util::is_complex_v<T>) {
        ok = near(ev[i].real(), av[i].real()) && near(ev[i].imag(), av[i].imag());
      } else {
        ok = near(static_cast<double>(ev[i]), static_cast<double>(av[i]));
      }
      if (!ok) {
        ShapeUtil::MultiIndex(expected.shape(), i, absl::MakeSpan(index));
        Literal e1(ShapeUtil::MakeScalarShape(type)), a1(ShapeUtil::MakeScalarShape(type));
        e1.data<T>()[0] = ev[i];
        a1.data<T>()[0] = av[i];
        return InvalidArgument("mismatch at index {%s}: expected %s, actual %s (expected %s, actual %s)",
                               absl::StrJoin(index, ","), e1.ToStringWithoutShape(),
                               a1.ToStringWithoutShape(), expected.ToString().substr(0, 400),
                               actual.ToString().substr(0, 400));
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace

absl::Status Equal(const Literal& expected, const Literal& actual) {
  // Integers compare exactly (through double, 64-bit values would round).
  if (expected.shape().IsArray() && actual.shape().IsArray() && expected.shape().Compatible(actual.shape()) &&
      !primitive_util::IsFloatingPointType(expected.element_type()) &&
      !primitive_util::IsComplexType(expected.element_type())) {
    Literal a = actual.Relayout(expected.shape().layout());
    const int w = primitive_util::ByteWidth(expected.element_type());
    const auto* e_bytes = static_cast<const uint8_t*>(expected.untyped_data());
    const auto* a_bytes = static_cast<const uint8_t*>(a.untyped_data());
    for (int64_t i = 0; i < expected.element_count(); ++i) {
      if (std::memcmp(e_bytes + i * w, a_bytes + i * w, w) != 0) {
        std::vector<int64_t> index(expected.shape().rank());
        ShapeUtil::MultiIndex(expected.shape(), i, absl::MakeSpan(index));
        return InvalidArgument("mismatch at index {%s}: expected %d, actual %d (expected %s, actual %s)",
                               absl::StrJoin(index, ","), expected.GetAsInt64(i), a.GetAsInt64(i),
                               expected.ToString().substr(0, 400), actual.ToString().substr(0, 400));
      }
    }
    return absl::OkStatus();
  }
  return Compare(expected, actual, [](double e, double a) {
    return e == a || (std::isnan(e) && std::isnan(a));
  });
}

absl::Status Near(const Literal& expected, const Literal& actual, const ErrorSpec& error) {
  return Compare(expected, actual, [&](double e, double a) { return ValueNear(e, a, error); });
}

absl::StatusOr<double> MaxAbsDifference(const Literal& a, const Literal& b) {
  RETURN_IF_ERROR(CheckShapes(a, b));
  if (a.shape().IsTuple()) {
    double m = 0;
    for (size_t i = 0; i < a.tuple_elements().size(); ++i) {
      ASSIGN_OR_RETURN(double d, MaxAbsDifference(a.tuple_elements()[i], b.tuple_elements()[i]));
      m = std::max(m, d);
    }
    return m;
  }
  if (!a.shape().IsArray()) return 0.0;
  Literal bb = b.Relayout(a.shape().layout());
  double m = 0;
  for (int64_t i = 0; i < a.element_count(); ++i) {
    double x = a.GetAsDouble(i), y = bb.GetAsDouble(i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (x == y) continue;
    // A NaN against a number is as far apart as values get (std::max would
    // drop the NaN difference and report the two equal).
    if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::infinity();
    m = std::max(m, std::fabs(x - y));
  }
  return m;
}

}  // namespace literal_comparison
}  // namespace xla
