// The C++ element types of the primitive types that have no builtin spelling.
#ifndef XLA_TYPES_H_
#define XLA_TYPES_H_

#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "Eigen/Core"
#include "xla/small_float.h"

namespace xla {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// A kBits-wide two's complement (kSigned) or unsigned integer held in one
// byte, sign- or zero-extended, so its bytes read as the same s8/u8 value.
// Construction from a wider integer wraps to kBits, as C++'s narrowing casts
// do; reading gives the byte type, so comparisons and printing act on the
// value. Arithmetic is not defined here: the evaluator and the CPU backend
// compute in 8 bits and wrap the result (xla/evaluator/elementwise_kernels.h,
// backends/cpu/codegen/elemental_ir_emitter.cc's RoundToType).
template <int kBits, bool kSigned>
class IntN {
 public:
  using Storage = std::conditional_t<kSigned, int8_t, uint8_t>;
  static constexpr int kBitWidth = kBits;
  static constexpr Storage kMin = kSigned ? static_cast<Storage>(-(1 << (kBits - 1))) : 0;
  static constexpr Storage kMax =
      static_cast<Storage>(kSigned ? (1 << (kBits - 1)) - 1 : (1 << kBits) - 1);

  constexpr IntN() : value_(0) {}
  template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  constexpr explicit IntN(T v) : value_(Wrap(static_cast<uint64_t>(v))) {}
  template <int kOtherBits, bool kOtherSigned>
  constexpr explicit IntN(IntN<kOtherBits, kOtherSigned> v)
      : value_(Wrap(static_cast<uint64_t>(static_cast<int64_t>(v)))) {}
  // Truncates toward zero, then wraps (callers saturate first, as convert does).
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  explicit IntN(T v) : IntN(static_cast<int64_t>(v)) {}

  constexpr operator Storage() const { return value_; }

  // The low kBits of v, sign- or zero-extended to the byte.
  static constexpr Storage Wrap(uint64_t v) {
    uint64_t low = v & ((uint64_t{1} << kBits) - 1);
    if (kSigned && (low >> (kBits - 1)) != 0) low |= ~((uint64_t{1} << kBits) - 1);
    return static_cast<Storage>(low);
  }

 private:
  Storage value_;
};

using s2 = IntN<2, true>;
using s4 = IntN<4, true>;
using u2 = IntN<2, false>;
using u4 = IntN<4, false>;

template <typename T> struct is_int_n : std::false_type {};
template <int B, bool S> struct is_int_n<IntN<B, S>> : std::true_type {};
template <typename T> inline constexpr bool is_int_n_v = is_int_n<T>::value;

// A small float (xla/small_float.h) held in one byte. Construction rounds
// once from the value's double; integers go through float, as ml_dtypes'
// types do. Reading converts exactly.
template <SmallFloatKind kKind>
class SmallFloat {
 public:
  static const SmallFloatFormat& format() { return GetSmallFloatFormat(kKind); }

  constexpr SmallFloat() : bits_(0) {}
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  explicit SmallFloat(T v) : bits_(SmallFloatFromDouble(format(), static_cast<double>(v))) {}
  template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  explicit SmallFloat(T v) : SmallFloat(static_cast<float>(v)) {}
  template <int B, bool S>
  explicit SmallFloat(IntN<B, S> v) : SmallFloat(static_cast<float>(v)) {}
  explicit SmallFloat(half v) : SmallFloat(static_cast<float>(v)) {}
  explicit SmallFloat(bfloat16 v) : SmallFloat(static_cast<float>(v)) {}
  template <SmallFloatKind kOther>
  explicit SmallFloat(SmallFloat<kOther> v) : SmallFloat(static_cast<double>(v)) {}

  static SmallFloat FromBits(uint8_t bits) {
    SmallFloat f;
    f.bits_ = bits;
    return f;
  }
  uint8_t bits() const { return bits_; }

  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  explicit operator T() const {
    return static_cast<T>(SmallFloatToDouble(format(), bits_));
  }
  explicit operator half() const { return half(static_cast<float>(*this)); }
  explicit operator bfloat16() const { return bfloat16(static_cast<float>(*this)); }

  // IEEE comparisons of the values (NaN unordered, -0 == +0).
  friend bool operator==(SmallFloat a, SmallFloat b) { return double(a) == double(b); }
  friend bool operator!=(SmallFloat a, SmallFloat b) { return double(a) != double(b); }
  friend bool operator<(SmallFloat a, SmallFloat b) { return double(a) < double(b); }
  friend bool operator>(SmallFloat a, SmallFloat b) { return double(a) > double(b); }
  friend bool operator<=(SmallFloat a, SmallFloat b) { return double(a) <= double(b); }
  friend bool operator>=(SmallFloat a, SmallFloat b) { return double(a) >= double(b); }

 private:
  uint8_t bits_;
};

using f8e5m2 = SmallFloat<SmallFloatKind::kF8E5M2>;
using f8e4m3 = SmallFloat<SmallFloatKind::kF8E4M3>;
using f8e4m3fn = SmallFloat<SmallFloatKind::kF8E4M3FN>;
using f8e4m3b11fnuz = SmallFloat<SmallFloatKind::kF8E4M3B11FNUZ>;
using f8e3m4 = SmallFloat<SmallFloatKind::kF8E3M4>;
using f8e5m2fnuz = SmallFloat<SmallFloatKind::kF8E5M2FNUZ>;
using f8e4m3fnuz = SmallFloat<SmallFloatKind::kF8E4M3FNUZ>;
using f8e8m0fnu = SmallFloat<SmallFloatKind::kF8E8M0FNU>;
using f6e2m3fn = SmallFloat<SmallFloatKind::kF6E2M3FN>;
using f6e3m2fn = SmallFloat<SmallFloatKind::kF6E3M2FN>;
using f4e2m1fn = SmallFloat<SmallFloatKind::kF4E2M1FN>;

template <typename T> struct is_small_float_class : std::false_type {};
template <SmallFloatKind K> struct is_small_float_class<SmallFloat<K>> : std::true_type {};
template <typename T>
inline constexpr bool is_small_float_class_v = is_small_float_class<T>::value;

}  // namespace xla

namespace std {
template <int kBits, bool kSigned>
class numeric_limits<xla::IntN<kBits, kSigned>> {
  using T = xla::IntN<kBits, kSigned>;

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = kSigned;
  static constexpr bool is_integer = true;
  static constexpr bool is_exact = true;
  static constexpr int digits = kSigned ? kBits - 1 : kBits;
  static constexpr T min() { return T(T::kMin); }
  static constexpr T lowest() { return T(T::kMin); }
  static constexpr T max() { return T(T::kMax); }
};
}  // namespace std

#endif  // XLA_TYPES_H_
