// The small floating-point formats (f8, f6, f4 families of XLA/ml_dtypes and
// MLIR): one table of format parameters and one pair of conversions to and
// from double that every format shares. Values are stored one per byte, in
// the low 1 + exponent + mantissa bits (8 for E8M0FNU, which has no sign).
//
// Conversion from double follows ml_dtypes' ConvertImpl without saturation
// (what XLA's convert does): round to nearest even; a result above the
// largest finite value becomes the format's "infinity" (inf where the format
// has one; NaN for FN/FNUZ/E8M0 formats; the largest finite value for the MX
// formats F6/F4, which have neither); NaN becomes the format's NaN (the MX
// formats have none: -0 for a positive NaN and +0 for a negative one, as
// ml_dtypes does); zero becomes NaN in E8M0FNU (no zero) and negative values
// too (no sign).
#ifndef XLA_SMALL_FLOAT_H_
#define XLA_SMALL_FLOAT_H_

#include <cstdint>

namespace xla {

enum class SmallFloatNan : uint8_t {
  kIeee,        // exponent all ones and mantissa != 0 (inf: mantissa 0)
  kAllOnes,     // exponent and mantissa all ones (FN formats, E8M0FNU)
  kNegativeZero,  // sign bit alone, i.e. 0x80 (FNUZ formats: no -0)
  kNone,        // no NaN and no inf (MX F6/F4 formats)
};

struct SmallFloatFormat {
  const char* name;
  int exponent_bits;
  int mantissa_bits;
  int bias;
  SmallFloatNan nan;
  bool is_signed;  // false only for E8M0FNU
  bool has_zero;   // false only for E8M0FNU (exponent 0 is 2^-127)

  bool has_inf() const { return nan == SmallFloatNan::kIeee; }
  bool has_nan() const { return nan != SmallFloatNan::kNone; }
  bool has_negative_zero() const { return is_signed && nan != SmallFloatNan::kNegativeZero; }
  // Bits used: sign (if any), exponent and mantissa.
  int bit_width() const { return (is_signed ? 1 : 0) + exponent_bits + mantissa_bits; }
  uint8_t magnitude_mask() const {
    return static_cast<uint8_t>((1u << (exponent_bits + mantissa_bits)) - 1);
  }
  uint8_t sign_bit() const {
    return is_signed ? static_cast<uint8_t>(1u << (exponent_bits + mantissa_bits)) : 0;
  }
  // Bit patterns of the largest finite value, the value an overflow gives,
  // and the NaN a NaN converts to.
  uint8_t max_finite_bits() const;
  uint8_t overflow_bits() const;
  uint8_t nan_bits() const;
  // The encoding of -x given x's (ml_dtypes' operator-).
  uint8_t Negate(uint8_t bits) const;
  bool IsNan(uint8_t bits) const;
};

enum class SmallFloatKind : uint8_t {
  kF8E5M2,
  kF8E4M3,
  kF8E4M3FN,
  kF8E4M3B11FNUZ,
  kF8E3M4,
  kF8E5M2FNUZ,
  kF8E4M3FNUZ,
  kF8E8M0FNU,
  kF6E2M3FN,
  kF6E3M2FN,
  kF4E2M1FN,
};
inline constexpr int kNumSmallFloatKinds = 11;

const SmallFloatFormat& GetSmallFloatFormat(SmallFloatKind kind);

// Exact value of an encoding (NaN carries the sign ml_dtypes gives it).
double SmallFloatToDouble(const SmallFloatFormat& format, uint8_t bits);
// One rounding (to nearest even) from double, with the rules above.
uint8_t SmallFloatFromDouble(const SmallFloatFormat& format, double value);

}  // namespace xla

#endif  // XLA_SMALL_FLOAT_H_
