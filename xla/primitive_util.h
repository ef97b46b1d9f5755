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
int ByteWidth(PrimitiveType type);
int BitWidth(PrimitiveType type);

bool IsArrayType(PrimitiveType type);  // any element type, not TUPLE/TOKEN
bool IsFloatingPointType(PrimitiveType type);  // F16 BF16 F32 F64
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
inline constexpr bool is_float_v = std::is_floating_point_v<T> ||
                                   std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

}  // namespace primitive_util
}  // namespace xla

#endif  // XLA_PRIMITIVE_UTIL_H_
