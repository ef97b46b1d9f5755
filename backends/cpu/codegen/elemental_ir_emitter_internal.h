// Predicates and error helpers the ElementalIrEmitter's files share
// (elemental_ir_emitter.cc, elemental_ir_emitter_arithmetic.cc,
// elemental_ir_emitter_data_movement.cc, elemental_ir_emitter_reduction.cc):
// element type classes as registers hold them, and the Unimplemented errors
// naming an op. Internal to the elemental emitter.
#ifndef BACKENDS_CPU_CODEGEN_ELEMENTAL_IR_EMITTER_INTERNAL_H_
#define BACKENDS_CPU_CODEGEN_ELEMENTAL_IR_EMITTER_INTERNAL_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/primitive_util.h"

namespace xla {
namespace cpu {
namespace elemental_internal {

inline bool IsFloat(PrimitiveType t) { return primitive_util::IsFloatingPointType(t); }

// F16/BF16 and the f8/f6/f4 formats are held as float in registers (the
// evaluator computes in float and rounds back after every op).
inline bool IsSmallFloat(PrimitiveType t) {
  return t == F16 || t == BF16 || primitive_util::IsSmallFloatType(t);
}
// S2/S4/U2/U4 are i8 in registers, sign-/zero-extended from their width
// after every op (RoundToType), so i8 arithmetic wraps them correctly.
inline bool IsNarrowInt(PrimitiveType t) { return primitive_util::IsNarrowIntegralType(t); }
inline PrimitiveType RegisterType(PrimitiveType t) { return IsSmallFloat(t) ? F32 : t; }
inline bool IsSigned(PrimitiveType t) { return primitive_util::IsSignedIntegralType(t); }
inline bool IsInt(PrimitiveType t) { return primitive_util::IsIntegralType(t); }
inline bool IsComplex(PrimitiveType t) { return t == C64 || t == C128; }
// Unary ops whose result is the component type of a complex operand.
inline bool IsComplexToReal(HloOpcode op, PrimitiveType in_type) {
  return IsComplex(in_type) && (op == HloOpcode::kAbs || op == HloOpcode::kReal || op == HloOpcode::kImag);
}

inline absl::Status NotImplemented(const HloInstruction& hlo, absl::string_view what) {
  return absl::UnimplementedError(
      absl::StrCat("CPU backend: ", what, " is not implemented yet (in ", hlo.ToString(), ")"));
}

inline absl::Status OpNotImplemented(const HloInstruction& hlo, PrimitiveType type) {
  return NotImplemented(hlo, absl::StrCat(HloOpcodeString(hlo.opcode()), " on ", primitive_util::LowercaseName(type)));
}

}  // namespace elemental_internal
}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_ELEMENTAL_IR_EMITTER_INTERNAL_H_
