#include "xla/primitive_util.h"

#include "xla/status_macros.h"

namespace xla {
namespace primitive_util {

int ByteWidth(PrimitiveType type) {
  switch (type) {
    case PRED: case S8: case U8: return 1;
    case S2: case S4: case U2: case U4: return 1;
    case F8E5M2: case F8E4M3: case F8E4M3FN: case F8E4M3B11FNUZ: case F8E3M4:
    case F8E5M2FNUZ: case F8E4M3FNUZ: case F8E8M0FNU: case F6E2M3FN: case F6E3M2FN:
    case F4E2M1FN:
      return 1;
    case S16: case U16: case F16: case BF16: return 2;
    case S32: case U32: case F32: return 4;
    case S64: case U64: case F64: case C64: return 8;
    case C128: return 16;
    default: return 0;
  }
}

int BitWidth(PrimitiveType type) {
  switch (type) {
    case PRED: return 1;
    case S2: case U2: return 2;
    case S4: case U4: return 4;
    default: break;
  }
  if (const SmallFloatFormat* f = SmallFloatFormatOf(type)) return f->bit_width();
  return 8 * ByteWidth(type);
}

const SmallFloatFormat* SmallFloatFormatOf(PrimitiveType type) {
  SmallFloatKind kind;
  switch (type) {
    case F8E5M2: kind = SmallFloatKind::kF8E5M2; break;
    case F8E4M3: kind = SmallFloatKind::kF8E4M3; break;
    case F8E4M3FN: kind = SmallFloatKind::kF8E4M3FN; break;
    case F8E4M3B11FNUZ: kind = SmallFloatKind::kF8E4M3B11FNUZ; break;
    case F8E3M4: kind = SmallFloatKind::kF8E3M4; break;
    case F8E5M2FNUZ: kind = SmallFloatKind::kF8E5M2FNUZ; break;
    case F8E4M3FNUZ: kind = SmallFloatKind::kF8E4M3FNUZ; break;
    case F8E8M0FNU: kind = SmallFloatKind::kF8E8M0FNU; break;
    case F6E2M3FN: kind = SmallFloatKind::kF6E2M3FN; break;
    case F6E3M2FN: kind = SmallFloatKind::kF6E3M2FN; break;
    case F4E2M1FN: kind = SmallFloatKind::kF4E2M1FN; break;
    default: return nullptr;
  }
  return &GetSmallFloatFormat(kind);
}

bool IsSmallFloatType(PrimitiveType type) { return SmallFloatFormatOf(type) != nullptr; }

bool IsNarrowIntegralType(PrimitiveType type) {
  return type == S2 || type == S4 || type == U2 || type == U4;
}

bool IsArrayType(PrimitiveType type) { return ByteWidth(type) > 0; }

bool IsFloatingPointType(PrimitiveType type) {
  return type == F16 || type == BF16 || type == F32 || type == F64 || IsSmallFloatType(type);
}
bool IsComplexType(PrimitiveType type) { return type == C64 || type == C128; }
bool IsSignedIntegralType(PrimitiveType type) {
  return type == S2 || type == S4 || type == S8 || type == S16 || type == S32 || type == S64;
}
bool IsUnsignedIntegralType(PrimitiveType type) {
  return type == U2 || type == U4 || type == U8 || type == U16 || type == U32 || type == U64;
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
    case S2: return "s2";
    case S4: return "s4";
    case U2: return "u2";
    case U4: return "u4";
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
    case F8E5M2: case F8E4M3: case F8E4M3FN: case F8E4M3B11FNUZ: case F8E3M4:
    case F8E5M2FNUZ: case F8E4M3FNUZ: case F8E8M0FNU: case F6E2M3FN: case F6E3M2FN:
    case F4E2M1FN:
      return SmallFloatFormatOf(type)->name;
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
                                         TUPLE, OPAQUE_TYPE, S2, S4, U2, U4, F8E5M2, F8E4M3,
                                         F8E4M3FN, F8E4M3B11FNUZ, F8E3M4, F8E5M2FNUZ,
                                         F8E4M3FNUZ, F8E8M0FNU, F6E2M3FN, F6E3M2FN, F4E2M1FN};
  for (PrimitiveType t : kTypes) {
    if (LowercaseName(t) == name) return t;
  }
  return InvalidArgument("unknown element type '%s'", name);
}

}  // namespace primitive_util
}  // namespace xla
