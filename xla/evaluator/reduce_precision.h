// ReducePrecision on one value's bits: the value rounded to `mantissa_bits`
// (ties to even) and clamped to the range of `exponent_bits`, as XLA does it:
//  - the mantissa is rounded on the source bits, so a carry may bump the
//    exponent (1.11..1 rounds up to 10.0);
//  - exponents above the reduced format's maximum become infinity of the same
//    sign, and exponents at or below its minimum normal exponent become a zero
//    of the same sign: the reduced format has no subnormals;
//  - NaN stays the input NaN, except that with no mantissa bits left it
//    cannot be told from infinity and becomes +infinity (as XLA and the
//    StableHLO interpreter give: reduce_precision(NaN, e5m0) = inf).
// Widths at or above the source's are no-ops for that part.
#ifndef XLA_EVALUATOR_REDUCE_PRECISION_H_
#define XLA_EVALUATOR_REDUCE_PRECISION_H_

#include <cstdint>

namespace xla {

// `Uint` is the unsigned integer of the source type's width; the source has
// `src_exponent_bits` and `src_mantissa_bits`.
template <typename Uint>
Uint ReducePrecisionBits(Uint bits, int src_exponent_bits, int src_mantissa_bits, int exponent_bits,
                         int mantissa_bits) {
  constexpr int kWidth = sizeof(Uint) * 8;
  const Uint exponent_mask = static_cast<Uint>(((Uint{1} << src_exponent_bits) - 1) << src_mantissa_bits);
  const Uint mantissa_mask = static_cast<Uint>((Uint{1} << src_mantissa_bits) - 1);
  const Uint sign_mask = static_cast<Uint>(Uint{1} << (kWidth - 1));
  const bool is_nan = (bits & exponent_mask) == exponent_mask && (bits & mantissa_mask) != 0;
  if (is_nan) return mantissa_bits > 0 ? bits : exponent_mask;  // +inf
  Uint v = bits;
  if (mantissa_bits < src_mantissa_bits) {
    const int dropped = src_mantissa_bits - mantissa_bits;
    const Uint last_kept_bit = static_cast<Uint>(Uint{1} << dropped);
    // Half of the dropped range minus one, plus the last kept bit: adds just
    // enough that ties round to an even kept mantissa.
    const Uint bias = static_cast<Uint>((last_kept_bit >> 1) - 1 + ((v >> dropped) & 1));
    v = static_cast<Uint>((v + bias) & ~static_cast<Uint>(last_kept_bit - 1));
  }
  if (exponent_bits < src_exponent_bits) {
    const Uint src_bias = static_cast<Uint>((Uint{1} << (src_exponent_bits - 1)) - 1);
    const Uint reduced_bias = static_cast<Uint>((Uint{1} << (exponent_bits - 1)) - 1);
    const Uint max_exponent = static_cast<Uint>(src_bias + reduced_bias);
    const Uint min_exponent = static_cast<Uint>(src_bias - reduced_bias);
    const Uint exponent = static_cast<Uint>(v & exponent_mask);
    const Uint sign = static_cast<Uint>(v & sign_mask);
    if (exponent > static_cast<Uint>(max_exponent << src_mantissa_bits)) {
      v = static_cast<Uint>(sign | exponent_mask);
    } else if (exponent <= static_cast<Uint>(min_exponent << src_mantissa_bits)) {
      v = sign;
    }
  }
  return v;
}

}  // namespace xla

#endif  // XLA_EVALUATOR_REDUCE_PRECISION_H_
