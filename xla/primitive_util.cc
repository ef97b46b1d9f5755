#include "xla/primitive_util.h"

#include "xla/status_macros.h"

namespace xla {
namespace primitive_util {

int ByteWidth(PrimitiveType type) {
  switch (type) {
    case PRED: case S8: case U8: return 1;
    case S16: case U16: case F16: case BF16: return 2;
    case S32: case U32: case F32: return 4;
    case S64: case U64: case F64: case C64: return 8;
    case C128: return 16;
    default: return 0;
  }
}

int BitWidth(PrimitiveType type) { return type == PRED ? 1 : 8 * ByteWidth(type); }

bool IsArrayType(PrimitiveType type) { return ByteWidth(type) > 0; }

bool IsFloatingPointType(PrimitiveType type) {
  return type == F16 || type == BF16 || type == F32 || type == F64;
}
bool IsComplexType(PrimitiveType type) { return type == C64 || type == C128; }
bool IsSignedIntegralType(PrimitiveType type) {
  return type == S8 || type == S16 || type == S32 || type == S64;
}
bool IsUnsignedIntegralType(PrimitiveType type) {
  return type == U8 || type == U16 || type == U32 || type == U64;
}
bool IsIntegralType(PrimitiveType type) {
  return IsSignedIntegralType(type) || IsUnsignedIntegralType(type);
}

PrimitiveType ComplexComponentType(PrimitiveType type) {
  return type == C64 ? F32 : type == C128 ? F64 : PRIMITIVE_TYPE_INVALID;
}

absl::string_view LowercaseName(PrimitiveType type) {
  switch (type) {
    case PRED: return "pred";
    case S8: return "s8";
    case S16: return "s16";
    case S32: return "s32";
    case S64: return "s64";
    case U8: return "u8";
    case U16: return "u16";
    case U32: return "u32";
    case U64: return "u64";
    case F16: return "f16";
    case BF16: return "bf16";
    case F32: return "f32";
    case F64: return "f64";
    case C64: return "c64";
    case C128: return "c128";
    case TUPLE: return "tuple";
    case TOKEN: return "token";
    case OPAQUE_TYPE: return "opaque";
    default: return "invalid";
  }
}

absl::StatusOr<PrimitiveType> TypeFromLowercaseName(absl::string_view name) {
  static const PrimitiveType kTypes[] = {PRED, S8,  S16,  S32, S64,  U8,    U16,   U32,
                                         U64,  F16, BF16, F32, F64,  C64,   C128,  TOKEN,
                                         TUPLE, OPAQUE_TYPE};
  for (PrimitiveType t : kTypes) {
    if (LowercaseName(t) == name) return t;
  }
  return InvalidArgument("unknown element type '%s'", name);
}

}  // namespace primitive_util
}  // namespace xla
