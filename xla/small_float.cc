#include "xla/small_float.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace xla {

namespace {

// Parameters from ml_dtypes (float8.h, mxfloat.h) and MLIR's builtin types.
constexpr SmallFloatFormat kFormats[kNumSmallFloatKinds] = {
    {"f8e5m2", 5, 2, 15, SmallFloatNan::kIeee, true, true},
    {"f8e4m3", 4, 3, 7, SmallFloatNan::kIeee, true, true},
    {"f8e4m3fn", 4, 3, 7, SmallFloatNan::kAllOnes, true, true},
    {"f8e4m3b11fnuz", 4, 3, 11, SmallFloatNan::kNegativeZero, true, true},
    {"f8e3m4", 3, 4, 3, SmallFloatNan::kIeee, true, true},
    {"f8e5m2fnuz", 5, 2, 16, SmallFloatNan::kNegativeZero, true, true},
    {"f8e4m3fnuz", 4, 3, 8, SmallFloatNan::kNegativeZero, true, true},
    {"f8e8m0fnu", 8, 0, 127, SmallFloatNan::kAllOnes, false, false},
    {"f6e2m3fn", 2, 3, 1, SmallFloatNan::kNone, true, true},
    {"f6e3m2fn", 3, 2, 3, SmallFloatNan::kNone, true, true},
    {"f4e2m1fn", 2, 1, 1, SmallFloatNan::kNone, true, true},
};

// Adds the bias that makes a right shift by `shift` round to nearest even:
// a carry happens when the dropped bits exceed half, or equal half and the
// kept lowest bit is odd.
uint64_t RoundBitsToNearestEven(uint64_t bits, int shift) {
  uint64_t bias = ((bits >> shift) & 1) + (uint64_t{1} << (shift - 1)) - 1;
  return bits + bias;
}

}  // namespace

const SmallFloatFormat& GetSmallFloatFormat(SmallFloatKind kind) {
  return kFormats[static_cast<int>(kind)];
}

uint8_t SmallFloatFormat::max_finite_bits() const {
  const unsigned exp_ones = (1u << exponent_bits) - 1;
  switch (nan) {
    case SmallFloatNan::kIeee:  // the top exponent is inf/NaN
      return static_cast<uint8_t>(((exp_ones - 1) << mantissa_bits) | ((1u << mantissa_bits) - 1));
    case SmallFloatNan::kAllOnes:  // all ones is NaN
      return static_cast<uint8_t>(magnitude_mask() - 1);
    case SmallFloatNan::kNegativeZero:
    case SmallFloatNan::kNone:
      return magnitude_mask();
  }
  return 0;
}

uint8_t SmallFloatFormat::overflow_bits() const {
  switch (nan) {
    case SmallFloatNan::kIeee:
      return static_cast<uint8_t>(((1u << exponent_bits) - 1) << mantissa_bits);
    case SmallFloatNan::kAllOnes:
    case SmallFloatNan::kNegativeZero:
      return nan_bits();
    case SmallFloatNan::kNone:
      return max_finite_bits();
  }
  return 0;
}

uint8_t SmallFloatFormat::nan_bits() const {
  switch (nan) {
    case SmallFloatNan::kIeee:  // quiet: the top mantissa bit set
      return static_cast<uint8_t>((((1u << exponent_bits) - 1) << mantissa_bits) |
                                  (1u << (mantissa_bits - 1)));
    case SmallFloatNan::kAllOnes:
      return magnitude_mask();
    case SmallFloatNan::kNegativeZero:
    case SmallFloatNan::kNone:  // ml_dtypes' quiet_NaN() of the MX types is -0
      return sign_bit();
  }
  return 0;
}

uint8_t SmallFloatFormat::Negate(uint8_t bits) const {
  if (!is_signed) return nan_bits();  // no negative values
  if (nan == SmallFloatNan::kNegativeZero && (bits & magnitude_mask()) == 0) return bits;  // 0 and NaN
  return static_cast<uint8_t>(bits ^ sign_bit());
}

bool SmallFloatFormat::IsNan(uint8_t bits) const {
  const uint8_t mag = bits & magnitude_mask();
  switch (nan) {
    case SmallFloatNan::kIeee:
      return (mag >> mantissa_bits) == (1u << exponent_bits) - 1 &&
             (mag & ((1u << mantissa_bits) - 1)) != 0;
    case SmallFloatNan::kAllOnes:
      return mag == magnitude_mask();
    case SmallFloatNan::kNegativeZero:
      return bits == sign_bit();
    case SmallFloatNan::kNone:
      return false;
  }
  return false;
}

double SmallFloatToDouble(const SmallFloatFormat& f, uint8_t bits) {
  const bool negative = (bits & f.sign_bit()) != 0;
  const unsigned mag = bits & f.magnitude_mask();
  const unsigned exp = mag >> f.mantissa_bits;
  const unsigned mant = mag & ((1u << f.mantissa_bits) - 1);
  const double sign = negative ? -1.0 : 1.0;
  if (f.IsNan(bits)) return std::copysign(std::numeric_limits<double>::quiet_NaN(), sign);
  if (f.has_inf() && exp == (1u << f.exponent_bits) - 1) {
    return sign * std::numeric_limits<double>::infinity();
  }
  double value;
  if (exp == 0 && f.has_zero) {  // zero and subnormals
    value = std::ldexp(static_cast<double>(mant), 1 - f.bias - f.mantissa_bits);
  } else {
    value = std::ldexp(static_cast<double>((1u << f.mantissa_bits) | mant),
                       static_cast<int>(exp) - f.bias - f.mantissa_bits);
  }
  return sign * value;
}

uint8_t SmallFloatFromDouble(const SmallFloatFormat& f, double value) {
  const bool negative = std::signbit(value);
  auto with_sign = [&](uint8_t bits) { return negative ? f.Negate(bits) : bits; };
  if (std::isnan(value)) return with_sign(f.nan_bits());
  if (std::isinf(value)) return with_sign(f.overflow_bits());
  if (value == 0) {
    if (!f.has_zero) return f.nan_bits();
    return f.is_signed ? with_sign(0) : 0;
  }
  if (negative && !f.is_signed) return f.nan_bits();

  // Unpack |value| into an exponent and a 53-bit significand whose leading
  // one is bit 52.
  constexpr int kFromMantissa = 52;
  const double abs_value = std::fabs(value);
  uint64_t from_bits;
  std::memcpy(&from_bits, &abs_value, sizeof from_bits);
  const int from_exp = static_cast<int>(from_bits >> kFromMantissa);
  uint64_t significand = from_bits & ((uint64_t{1} << kFromMantissa) - 1);
  int exponent;
  if (from_exp != 0) {
    significand |= uint64_t{1} << kFromMantissa;
    exponent = from_exp - 1023;
  } else {  // double subnormal: normalize
    int shift = 0;
    while ((significand & (uint64_t{1} << kFromMantissa)) == 0) {
      significand <<= 1;
      ++shift;
    }
    exponent = -1022 - shift;
  }

  // The target's biased exponent minus one: the significand's leading one
  // adds the one back when the two are summed below, and a rounding carry
  // moves into the exponent by itself. Below the normal range the
  // significand is shifted further (subnormals; E8M0's exponent 0).
  const int exp_base = exponent + f.bias - 1;
  const int denormal_shift = std::max(0, -exp_base);
  const int shift = std::min(kFromMantissa - f.mantissa_bits + denormal_shift, kFromMantissa + 2);
  const uint64_t aligned = RoundBitsToNearestEven(significand, shift) >> shift;
  const uint64_t exp_bits = static_cast<uint64_t>(std::max(0, exp_base));
  const uint64_t result = aligned + (exp_bits << f.mantissa_bits);
  if (result > f.max_finite_bits()) return with_sign(f.overflow_bits());
  return with_sign(static_cast<uint8_t>(result));
}

}  // namespace xla
