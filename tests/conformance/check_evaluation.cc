#include "tests/conformance/check_evaluation.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace conformance {
namespace {

using stablehlo::CheckSpec;

// One real component of an element: its bit pattern and value.
struct Component {
  uint64_t bits = 0;
  double value = 0;
};

double BitsToDouble(uint64_t bits, PrimitiveType type) {
  switch (type) {
    case F64: {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    case F32: {
      float f;
      uint32_t b = static_cast<uint32_t>(bits);
      std::memcpy(&f, &b, 4);
      return f;
    }
    case F16: {
      uint16_t b = static_cast<uint16_t>(bits);
      return static_cast<double>(Eigen::numext::bit_cast<Eigen::half>(b));
    }
    case BF16: {
      uint16_t b = static_cast<uint16_t>(bits);
      return static_cast<double>(Eigen::numext::bit_cast<Eigen::bfloat16>(b));
    }
    default:
      if (const SmallFloatFormat* f = primitive_util::SmallFloatFormatOf(type)) {
        return SmallFloatToDouble(*f, static_cast<uint8_t>(bits));
      }
      return 0;
  }
}

// τ(T) of the custom_call expect_close fallback; 0: none for this type.
double FallbackTolerance(PrimitiveType type) {
  switch (type) {
    case F64: return 1e-12;
    case F32: return 1e-5;
    case F16: return 2e-3;
    case BF16: return 1.6e-2;
    default: return 0;
  }
}

}  // namespace

int64_t UlpDistance(uint64_t a_bits, uint64_t e_bits, int bit_width) {
  const uint64_t sign = uint64_t{1} << (bit_width - 1);
  auto key = [&](uint64_t b) -> __int128 {
    const __int128 magnitude = static_cast<__int128>(b & (sign - 1));
    return (b & sign) ? -magnitude : magnitude;
  };
  __int128 d = key(a_bits) - key(e_bits);
  if (d < 0) d = -d;
  return d > INT64_MAX ? INT64_MAX : static_cast<int64_t>(d);
}

CheckVerdict EvaluateCheck(const CheckSpec& check, const Literal& actual, const Literal& expected) {
  CheckVerdict v;
  if (!actual.shape().IsArray() || !actual.shape().Compatible(expected.shape())) {
    v.message = absl::StrCat("the operands differ in shape: actual ", actual.shape().ToString(), ", expected ",
                             expected.shape().ToString());
    return v;
  }
  const PrimitiveType type = actual.element_type();
  const bool complex = primitive_util::IsComplexType(type);
  const PrimitiveType component_type = complex ? primitive_util::ComplexComponentType(type) : type;
  const bool is_float = primitive_util::IsFloatingPointType(component_type);
  const int width = primitive_util::BitWidth(component_type) == 1 ? 8 : primitive_util::BitWidth(component_type);
  const int bytes = primitive_util::ByteWidth(component_type);
  const int64_t count = ShapeUtil::ElementsIn(actual.shape());
  const int parts = complex ? 2 : 1;
  const uint8_t* a_data = static_cast<const uint8_t*>(actual.untyped_data());
  const uint8_t* e_data = static_cast<const uint8_t*>(expected.untyped_data());
  const bool is_signed = primitive_util::IsSignedIntegralType(component_type);
  auto component = [&](const uint8_t* data, int64_t i) {
    Component c;
    std::memcpy(&c.bits, data + i * bytes, bytes);
    if (is_float) {
      c.value = BitsToDouble(c.bits, component_type);
    } else if (is_signed && width < 64 && (c.bits >> (width - 1)) & 1) {
      c.value = static_cast<double>(static_cast<int64_t>(c.bits | (~uint64_t{0} << width)));
    } else if (is_signed) {
      c.value = static_cast<double>(static_cast<int64_t>(c.bits));
    } else {
      c.value = static_cast<double>(c.bits);
    }
    return c;
  };
  v.pass = v.strict_pass = true;
  for (int64_t i = 0; i < count * parts; ++i) {
    const Component a = component(a_data, i), e = component(e_data, i);
    bool ok, strict;
    if (check.kind == CheckSpec::kEq || check.kind == CheckSpec::kSerializedEq) {
      ok = strict = a.bits == e.bits;
    } else if (is_float && (!std::isfinite(a.value) || !std::isfinite(e.value))) {
      ok = strict = (std::isnan(a.value) && std::isnan(e.value)) || (!std::isnan(a.value) && a.value == e.value);
    } else if (check.kind == CheckSpec::kAlmostEq) {
      ok = strict = std::fabs(a.value - e.value) <= check.tolerance * std::max(1.0, std::fabs(e.value));
    } else {
      const int64_t ulp = is_float ? UlpDistance(a.bits, e.bits, width)
                                   : static_cast<int64_t>(std::fabs(a.value - e.value));
      strict = ulp >= check.min_ulp && ulp <= check.max_ulp;
      ok = strict;
      // Complex values compare their parts separately, each as its own
      // real type (2-ulp differences in complex exp/sin/log1p are correct
      // roundings of a different formula, as for real types).
      const double tau = FallbackTolerance(component_type);
      if (!ok && check.custom_call_form && tau > 0) {
        ok = std::fabs(a.value - e.value) <= tau * std::max(1.0, std::fabs(e.value));
      }
    }
    v.strict_pass &= strict;
    if (!ok && v.pass) {
      v.pass = false;
      const int64_t element = i / parts;
      v.message = absl::StrCat("element ", element, complex ? (i % 2 ? " (imag)" : " (real)") : "", ": actual ",
                               a.value, " expected ", e.value, " (bits 0x", absl::Hex(a.bits), " vs 0x",
                               absl::Hex(e.bits), ")");
    }
  }
  return v;
}

}  // namespace conformance
}  // namespace xla
