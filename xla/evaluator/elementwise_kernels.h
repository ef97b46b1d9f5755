// Scalar kernels of the same-type binary elementwise ops (add, subtract,
// multiply, divide, remainder, power, maximum, minimum, and, or, xor, shifts,
// atan2), shared by the elementwise evaluator and the reduce fast path.
//
// Semantics chosen (XLA's where the spec leaves it open):
//  - integer add/subtract/multiply/negate wrap (two's complement);
//  - integer x / 0 = -1 (signed) or all ones (unsigned); INT_MIN / -1 = INT_MIN;
//  - integer x % 0 = x; INT_MIN % -1 = 0; the remainder has the dividend's sign;
//  - integer power by squaring (wrapping); a negative exponent gives 0, except
//    base 1 (gives 1) and base -1 (gives +-1 by the exponent's parity);
//  - shift amounts are read as unsigned; an amount >= the bit width gives 0
//    for shift-left/shift-right-logical and the sign fill for arithmetic;
//  - float maximum/minimum propagate NaN and order -0 < +0;
//  - complex maximum/minimum are lexicographic on (real, imag);
//  - f16/bf16 and the small floats (f8/f6/f4) are computed in float and
//    rounded back;
//  - s2/s4/u2/u4 are computed in their 8-bit byte type and wrapped back to
//    their width; a logical right shift sees only the value's bits (s4 -8 >>
//    1 = 4) and an arithmetic one sign-extends from the value's top bit (u4 8
//    >> 1 = 12).
#ifndef XLA_EVALUATOR_ELEMENTWISE_KERNELS_H_
#define XLA_EVALUATOR_ELEMENTWISE_KERNELS_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/hlo_opcode.h"
#include "xla/primitive_util.h"
#include "xla/types.h"

namespace xla {
namespace evaluator_internal {

// Maps a float's bits to a signed integer whose order is the IEEE total order:
// -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN (compare TOTALORDER, TopK).
template <typename T> auto TotalOrderKey(T v) {
  if constexpr (is_small_float_class_v<T>) {
    // The key of the exact float value (what the CPU backend holds).
    return TotalOrderKey(static_cast<float>(v));
  } else {
    using S = std::conditional_t<sizeof(T) == 2, int16_t, std::conditional_t<sizeof(T) == 4, int32_t, int64_t>>;
    S bits;
    std::memcpy(&bits, &v, sizeof(T));
    if (bits < 0) bits = static_cast<S>(bits ^ std::numeric_limits<S>::max());
    return bits;
  }
}

template <typename T>
inline constexpr bool is_small_float_v =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || is_small_float_class_v<T>;

// The type arithmetic on T is carried out in: float for f16/bf16, else T.
template <typename T>
using ComputeT = std::conditional_t<is_small_float_v<T>, float, T>;

template <typename T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Unsigned type at least as wide as unsigned int, so wrapping arithmetic on
// T never promotes to (overflowing) signed int.
template <typename T>
using WrapT = std::conditional_t<(sizeof(T) < sizeof(unsigned int)), unsigned int, std::make_unsigned_t<T>>;

template <typename T> inline T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<WrapT<T>>(a) + static_cast<WrapT<T>>(b));
}
template <typename T> inline T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<WrapT<T>>(a) - static_cast<WrapT<T>>(b));
}
template <typename T> inline T WrapMul(T a, T b) {
  return static_cast<T>(static_cast<WrapT<T>>(a) * static_cast<WrapT<T>>(b));
}

template <typename T> inline T IntDiv(T a, T b) {
  if (b == 0) return static_cast<T>(-1);  // all ones for unsigned
  if constexpr (std::is_signed_v<T>) {
    if (a == std::numeric_limits<T>::min() && b == -1) return a;
  }
  return static_cast<T>(a / b);
}

template <typename T> inline T IntRem(T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

template <typename T> inline T IntPow(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent & 1) ? static_cast<T>(-1) : static_cast<T>(1);
      return 0;
    }
  }
  WrapT<T> result = 1, b = static_cast<WrapT<T>>(base);
  std::make_unsigned_t<T> e = static_cast<std::make_unsigned_t<T>>(exponent);
  while (e != 0) {
    if (e & 1) result = static_cast<WrapT<T>>(result * b);
    b = static_cast<WrapT<T>>(b * b);
    e >>= 1;
  }
  return static_cast<T>(result);
}

template <typename T> inline T ShiftLeft(T a, T amount) {
  using U = std::make_unsigned_t<T>;
  U n = static_cast<U>(amount);
  if (n >= static_cast<U>(sizeof(T) * 8)) return 0;
  return static_cast<T>(static_cast<U>(static_cast<uint64_t>(static_cast<U>(a)) << n));
}
template <typename T> inline T ShiftRightLogical(T a, T amount) {
  using U = std::make_unsigned_t<T>;
  U n = static_cast<U>(amount);
  if (n >= static_cast<U>(sizeof(T) * 8)) return 0;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) >> n));
}
template <typename T> inline T ShiftRightArithmetic(T a, T amount) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  U n = static_cast<U>(amount);
  S s = static_cast<S>(a);
  if (n >= static_cast<U>(sizeof(T) * 8)) return static_cast<T>(s < 0 ? S(-1) : S(0));
  return static_cast<T>(static_cast<S>(s >> n));  // arithmetic on GCC/Clang
}

// NaN-propagating maximum/minimum with -0 < +0.
template <typename C> inline C FloatMax(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <typename C> inline C FloatMin(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

template <typename C> inline bool ComplexHasNaN(const std::complex<C>& v) {
  return std::isnan(v.real()) || std::isnan(v.imag());
}
template <typename C> inline std::complex<C> ComplexMax(std::complex<C> a, std::complex<C> b) {
  if (ComplexHasNaN(a)) return a;
  if (ComplexHasNaN(b)) return b;
  bool a_ge = a.real() > b.real() || (a.real() == b.real() && a.imag() >= b.imag());
  return a_ge ? a : b;
}
template <typename C> inline std::complex<C> ComplexMin(std::complex<C> a, std::complex<C> b) {
  if (ComplexHasNaN(a)) return a;
  if (ComplexHasNaN(b)) return b;
  bool a_le = a.real() < b.real() || (a.real() == b.real() && a.imag() <= b.imag());
  return a_le ? a : b;
}

template <typename C> inline std::complex<C> ComplexPow(std::complex<C> a, std::complex<C> b) {
  // 1^x = 1 and x^0 = 1 for every x (Kahan), as XLA does.
  if (a == std::complex<C>(1) || b == std::complex<C>(0)) return std::complex<C>(1);
  if (a == std::complex<C>(0) && b.imag() == 0 && b.real() > 0) return std::complex<C>(0);
  return std::pow(a, b);
}

// The byte value the 8-bit kernel of a narrow integer's shift sees as its
// shifted operand: a logical right shift of a signed value shifts only the
// value's bits (zero-extended), an arithmetic right shift of an unsigned one
// shifts in copies of the value's top bit (sign-extended).
template <typename T>
inline typename T::Storage NarrowIntShiftOperand(HloOpcode opcode, T a) {
  using S = typename T::Storage;
  constexpr int kBits = T::kBitWidth;
  const uint8_t low = static_cast<uint8_t>(static_cast<S>(a)) & ((1u << kBits) - 1);
  if (opcode == HloOpcode::kShiftRightLogical) return static_cast<S>(low);
  if (opcode == HloOpcode::kShiftRightArithmetic) {
    return static_cast<S>(IntN<kBits, true>(static_cast<int>(low)));  // sign-extended byte
  }
  return static_cast<S>(a);
}

// Converts a compute-type value back to the storage type.
template <typename T, typename C> inline T Narrow(C v) { return static_cast<T>(v); }

// WithBinaryKernel for every type but the narrow integers (which it leaves
// unsupported).
template <typename Fn>
absl::Status WithPlainBinaryKernel(HloOpcode opcode, PrimitiveType type, Fn&& fn) {
  if (!primitive_util::IsArrayType(type)) {
    return absl::InvalidArgumentError(absl::StrCat("HloEvaluator: ", HloOpcodeString(opcode),
                                                   " on non-array element type"));
  }
  absl::Status unsupported = absl::InvalidArgumentError(
      absl::StrCat("HloEvaluator: ", HloOpcodeString(opcode), " is not defined for element type ",
                   primitive_util::LowercaseName(type)));
  return primitive_util::ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    constexpr bool kPred = std::is_same_v<T, bool>;
    constexpr bool kInt = is_int_v<T>;
    constexpr bool kFloat = primitive_util::is_float_v<T>;
    constexpr bool kComplex = primitive_util::is_complex_v<T>;
    using C = ComputeT<T>;
    switch (opcode) {
      case HloOpcode::kAdd:
        if constexpr (kPred) return fn(tag, [](T a, T b) -> T { return a || b; });
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return WrapAdd(a, b); });
        if constexpr (kFloat || kComplex) {
          return fn(tag, [](T a, T b) -> T { return Narrow<T>(C(a) + C(b)); });
        }
        break;
      case HloOpcode::kSubtract:
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return WrapSub(a, b); });
        if constexpr (kFloat || kComplex) {
          return fn(tag, [](T a, T b) -> T { return Narrow<T>(C(a) - C(b)); });
        }
        break;
      case HloOpcode::kMultiply:
        if constexpr (kPred) return fn(tag, [](T a, T b) -> T { return a && b; });
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return WrapMul(a, b); });
        if constexpr (kFloat || kComplex) {
          return fn(tag, [](T a, T b) -> T { return Narrow<T>(C(a) * C(b)); });
        }
        break;
      case HloOpcode::kDivide:
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return IntDiv(a, b); });
        if constexpr (kFloat || kComplex) {
          return fn(tag, [](T a, T b) -> T { return Narrow<T>(C(a) / C(b)); });
        }
        break;
      case HloOpcode::kRemainder:
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return IntRem(a, b); });
        if constexpr (kFloat) {
          return fn(tag, [](T a, T b) -> T { return Narrow<T>(std::fmod(C(a), C(b))); });
        }
        break;
      case HloOpcode::kPower:
        if constexpr (kPred) return fn(tag, [](T a, T b) -> T { return a || !b; });
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return IntPow(a, b); });
        if constexpr (kFloat) {
          return fn(tag, [](T a, T b) -> T { return Narrow<T>(std::pow(C(a), C(b))); });
        }
        if constexpr (kComplex) return fn(tag, [](T a, T b) -> T { return ComplexPow(a, b); });
        break;
      case HloOpcode::kMaximum:
        if constexpr (kPred) return fn(tag, [](T a, T b) -> T { return a || b; });
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return a > b ? a : b; });
        if constexpr (kFloat) {
          return fn(tag, [](T a, T b) -> T { return Narrow<T>(FloatMax(C(a), C(b))); });
        }
        if constexpr (kComplex) return fn(tag, [](T a, T b) -> T { return ComplexMax(a, b); });
        break;
      case HloOpcode::kMinimum:
        if constexpr (kPred) return fn(tag, [](T a, T b) -> T { return a && b; });
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return a < b ? a : b; });
        if constexpr (kFloat) {
          return fn(tag, [](T a, T b) -> T { return Narrow<T>(FloatMin(C(a), C(b))); });
        }
        if constexpr (kComplex) return fn(tag, [](T a, T b) -> T { return ComplexMin(a, b); });
        break;
      case HloOpcode::kAnd:
        if constexpr (kPred) return fn(tag, [](T a, T b) -> T { return a && b; });
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return static_cast<T>(a & b); });
        break;
      case HloOpcode::kOr:
        if constexpr (kPred) return fn(tag, [](T a, T b) -> T { return a || b; });
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return static_cast<T>(a | b); });
        break;
      case HloOpcode::kXor:
        if constexpr (kPred) return fn(tag, [](T a, T b) -> T { return a != b; });
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return static_cast<T>(a ^ b); });
        break;
      case HloOpcode::kShiftLeft:
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return ShiftLeft(a, b); });
        break;
      case HloOpcode::kShiftRightLogical:
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return ShiftRightLogical(a, b); });
        break;
      case HloOpcode::kShiftRightArithmetic:
        if constexpr (kInt) return fn(tag, [](T a, T b) -> T { return ShiftRightArithmetic(a, b); });
        break;
      case HloOpcode::kAtan2:
        if constexpr (kFloat) {
          return fn(tag, [](T a, T b) -> T { return Narrow<T>(std::atan2(C(a), C(b))); });
        }
        break;
      default:
        return absl::InternalError(absl::StrCat("HloEvaluator: ", HloOpcodeString(opcode),
                                                " is not a same-type binary op"));
    }
    return unsupported;
  });
}

// Calls fn(T{}, kernel) where `kernel` is a callable T(T, T) implementing
// `opcode` on element type `type`, and returns fn's status. Unsupported
// (opcode, type) pairs give InvalidArgument; opcodes that are not same-type
// binary ops give Internal. The narrow integers use their byte type's kernel
// on the byte values and wrap the result back to their width.
template <typename Fn>
absl::Status WithBinaryKernel(HloOpcode opcode, PrimitiveType type, Fn&& fn) {
  if (!primitive_util::IsNarrowIntegralType(type)) return WithPlainBinaryKernel(opcode, type, fn);
  return primitive_util::ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    if constexpr (is_int_n_v<T>) {
      using S = typename T::Storage;
      return WithPlainBinaryKernel(opcode, primitive_util::NativeToPrimitiveType<S>(),
                                   [&](auto wide_tag, auto wide) -> absl::Status {
                                     if constexpr (std::is_same_v<decltype(wide_tag), S>) {
                                       return fn(tag, [opcode, wide](T a, T b) -> T {
                                         return T(wide(NarrowIntShiftOperand(opcode, a), static_cast<S>(b)));
                                       });
                                     } else {
                                       return absl::InternalError("narrow integer kernel: unexpected byte type");
                                     }
                                   });
    } else {
      return absl::InternalError("narrow integer kernel: unexpected type");
    }
  });
}

// True for the opcodes WithBinaryKernel handles.
inline bool IsSameTypeBinary(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd: case HloOpcode::kSubtract: case HloOpcode::kMultiply:
    case HloOpcode::kDivide: case HloOpcode::kRemainder: case HloOpcode::kPower:
    case HloOpcode::kMaximum: case HloOpcode::kMinimum: case HloOpcode::kAnd:
    case HloOpcode::kOr: case HloOpcode::kXor: case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightLogical: case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kAtan2:
      return true;
    default:
      return false;
  }
}

}  // namespace evaluator_internal
}  // namespace xla

#endif  // XLA_EVALUATOR_ELEMENTWISE_KERNELS_H_
