// Facts about primitive (element) types and the mapping between them and
// C++ types, including a switch that runs a generic lambda at the C++ type.
#ifndef XLA_PRIMITIVE_UTIL_H_
#define XLA_PRIMITIVE_UTIL_H_

#include <string>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/xla_data.pb.h"
#include "xla/types.h"

namespace xla {
namespace primitive_util {

// Size in bytes of one element; 0 for TUPLE, TOKEN and invalid types.
// Size in bytes of one element in memory and in literals; the narrow types
// (S2 S4 U2 U4, F4/F6) take one byte.
int ByteWidth(PrimitiveType type);
// Width of the value in bits: 1 for PRED, 2/4 for S2/U2/S4/U4, 4/6 for F4/F6.
int BitWidth(PrimitiveType type);

bool IsArrayType(PrimitiveType type);  // any element type, not TUPLE/TOKEN
bool IsFloatingPointType(PrimitiveType type);  // F16 BF16 F32 F64 and the small floats
// The f8/f6/f4 formats: storage types whose arithmetic is done in f32.
bool IsSmallFloatType(PrimitiveType type);
// S2 S4 U2 U4: integers narrower than a byte, stored one per byte.
bool IsNarrowIntegralType(PrimitiveType type);
// The format table entry of a small float type; nullptr for other types.
const SmallFloatFormat* SmallFloatFormatOf(PrimitiveType type);
bool IsComplexType(PrimitiveType type);
bool IsSignedIntegralType(PrimitiveType type);
bool IsUnsignedIntegralType(PrimitiveType type);
bool IsIntegralType(PrimitiveType type);  // signed or unsigned, not PRED

// For C64/C128 the type of each component (F32/F64).
PrimitiveType ComplexComponentType(PrimitiveType type);

// Lower-case HLO spelling: "f32", "pred", "c64", "token", "tuple".
absl::string_view LowercaseName(PrimitiveType type);
absl::StatusOr<PrimitiveType> TypeFromLowercaseName(absl::string_view name);

template <PrimitiveType> struct PrimitiveTypeToNative;
#define XLA_MAP_TYPE(ENUM, NATIVE) \
  template <> struct PrimitiveTypeToNative<ENUM> { using type = NATIVE; };
XLA_MAP_TYPE(PRED, bool)
XLA_MAP_TYPE(S2, s2)
XLA_MAP_TYPE(S4, s4)
XLA_MAP_TYPE(U2, u2)
XLA_MAP_TYPE(U4, u4)
XLA_MAP_TYPE(F8E5M2, f8e5m2)
XLA_MAP_TYPE(F8E4M3, f8e4m3)
XLA_MAP_TYPE(F8E4M3FN, f8e4m3fn)
XLA_MAP_TYPE(F8E4M3B11FNUZ, f8e4m3b11fnuz)
XLA_MAP_TYPE(F8E3M4, f8e3m4)
XLA_MAP_TYPE(F8E5M2FNUZ, f8e5m2fnuz)
XLA_MAP_TYPE(F8E4M3FNUZ, f8e4m3fnuz)
XLA_MAP_TYPE(F8E8M0FNU, f8e8m0fnu)
XLA_MAP_TYPE(F6E2M3FN, f6e2m3fn)
XLA_MAP_TYPE(F6E3M2FN, f6e3m2fn)
XLA_MAP_TYPE(F4E2M1FN, f4e2m1fn)
XLA_MAP_TYPE(S8, int8_t)
XLA_MAP_TYPE(S16, int16_t)
XLA_MAP_TYPE(S32, int32_t)
XLA_MAP_TYPE(S64, int64_t)
XLA_MAP_TYPE(U8, uint8_t)
XLA_MAP_TYPE(U16, uint16_t)
XLA_MAP_TYPE(U32, uint32_t)
XLA_MAP_TYPE(U64, uint64_t)
XLA_MAP_TYPE(F16, half)
XLA_MAP_TYPE(BF16, bfloat16)
XLA_MAP_TYPE(F32, float)
XLA_MAP_TYPE(F64, double)
XLA_MAP_TYPE(C64, complex64)
XLA_MAP_TYPE(C128, complex128)
#undef XLA_MAP_TYPE

template <typename T> constexpr PrimitiveType NativeToPrimitiveType();
#define XLA_MAP_NATIVE(ENUM, NATIVE) \
  template <> constexpr PrimitiveType NativeToPrimitiveType<NATIVE>() { return ENUM; }
XLA_MAP_NATIVE(PRED, bool)
XLA_MAP_NATIVE(S2, s2)
XLA_MAP_NATIVE(S4, s4)
XLA_MAP_NATIVE(U2, u2)
XLA_MAP_NATIVE(U4, u4)
XLA_MAP_NATIVE(F8E5M2, f8e5m2)
XLA_MAP_NATIVE(F8E4M3, f8e4m3)
XLA_MAP_NATIVE(F8E4M3FN, f8e4m3fn)
XLA_MAP_NATIVE(F8E4M3B11FNUZ, f8e4m3b11fnuz)
XLA_MAP_NATIVE(F8E3M4, f8e3m4)
XLA_MAP_NATIVE(F8E5M2FNUZ, f8e5m2fnuz)
XLA_MAP_NATIVE(F8E4M3FNUZ, f8e4m3fnuz)
XLA_MAP_NATIVE(F8E8M0FNU, f8e8m0fnu)
XLA_MAP_NATIVE(F6E2M3FN, f6e2m3fn)
XLA_MAP_NATIVE(F6E3M2FN, f6e3m2fn)
XLA_MAP_NATIVE(F4E2M1FN, f4e2m1fn)
XLA_MAP_NATIVE(S8, int8_t)
XLA_MAP_NATIVE(S16, int16_t)
XLA_MAP_NATIVE(S32, int32_t)
XLA_MAP_NATIVE(S64, int64_t)
XLA_MAP_NATIVE(U8, uint8_t)
XLA_MAP_NATIVE(U16, uint16_t)
XLA_MAP_NATIVE(U32, uint32_t)
XLA_MAP_NATIVE(U64, uint64_t)
XLA_MAP_NATIVE(F16, half)
XLA_MAP_NATIVE(BF16, bfloat16)
XLA_MAP_NATIVE(F32, float)
XLA_MAP_NATIVE(F64, double)
XLA_MAP_NATIVE(C64, complex64)
XLA_MAP_NATIVE(C128, complex128)
#undef XLA_MAP_NATIVE

// Calls `f(T{})` where T is the C++ type of `type` (an array element type)
// and returns its result. `type` must satisfy IsArrayType.
template <typename F>
decltype(auto) ArrayTypeSwitch(PrimitiveType type, F&& f) {
  switch (type) {
    case PRED: return f(bool{});
    case S2: return f(s2{});
    case S4: return f(s4{});
    case U2: return f(u2{});
    case U4: return f(u4{});
    case F8E5M2: return f(f8e5m2{});
    case F8E4M3: return f(f8e4m3{});
    case F8E4M3FN: return f(f8e4m3fn{});
    case F8E4M3B11FNUZ: return f(f8e4m3b11fnuz{});
    case F8E3M4: return f(f8e3m4{});
    case F8E5M2FNUZ: return f(f8e5m2fnuz{});
    case F8E4M3FNUZ: return f(f8e4m3fnuz{});
    case F8E8M0FNU: return f(f8e8m0fnu{});
    case F6E2M3FN: return f(f6e2m3fn{});
    case F6E3M2FN: return f(f6e3m2fn{});
    case F4E2M1FN: return f(f4e2m1fn{});
    case S8: return f(int8_t{});
    case S16: return f(int16_t{});
    case S32: return f(int32_t{});
    case S64: return f(int64_t{});
    case U8: return f(uint8_t{});
    case U16: return f(uint16_t{});
    case U32: return f(uint32_t{});
    case U64: return f(uint64_t{});
    case F16: return f(half{});
    case BF16: return f(bfloat16{});
    case F32: return f(float{});
    case F64: return f(double{});
    case C64: return f(complex64{});
    case C128: return f(complex128{});
    default: break;
  }
  // Callers validate types first; reaching here is an internal bug.
  std::abort();
}

template <typename T> struct is_complex : std::false_type {};
template <typename T> struct is_complex<std::complex<T>> : std::true_type {};
template <typename T> inline constexpr bool is_complex_v = is_complex<T>::value;

template <typename T>
inline constexpr bool is_float_v = std::is_floating_point_v<T> || std::is_same_v<T, half> ||
                                   std::is_same_v<T, bfloat16> || is_small_float_class_v<T>;

}  // namespace primitive_util
}  // namespace xla

#endif  // XLA_PRIMITIVE_UTIL_H_
