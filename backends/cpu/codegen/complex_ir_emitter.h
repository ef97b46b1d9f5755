// Complex (C64/C128) element arithmetic for the CPU backend's elemental IR
// emitter. In registers a complex value is the literal struct {re, im} of
// float (C64) or double (C128); in memory it is the same struct, i.e. the
// interleaved (re, im) layout of std::complex.
//
// Results equal the reference evaluator's bit for bit:
//  - add, subtract, negate, real, imag, complex, compare, maximum/minimum
//    (lexicographic, NaN first) and conversions are emitted inline;
//  - multiply is emitted inline as (ac - bd, ad + bc), which is what the
//    compiler emits for std::complex too; only when both parts are NaN does
//    it call the runtime (the C99 Annex G infinity recovery of __mulsc3);
//  - divide, abs, sign, power and the transcendentals call the runtime
//    (runtime_complex.h), which evaluates the evaluator's std::complex
//    expression itself.
#ifndef BACKENDS_CPU_CODEGEN_COMPLEX_IR_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_COMPLEX_IR_EMITTER_H_

#include "absl/status/statusor.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

// {float, float} for C64, {double, double} for C128.
llvm::StructType* ComplexIrType(PrimitiveType type, llvm::LLVMContext& ctx);

class ComplexIrEmitter {
 public:
  ComplexIrEmitter(llvm::IRBuilder<>* b, llvm::Module* module) : b_(b), module_(module) {}

  llvm::Value* Make(llvm::Value* re, llvm::Value* im);
  llvm::Value* Real(llvm::Value* z) { return b_->CreateExtractValue(z, 0); }
  llvm::Value* Imag(llvm::Value* z) { return b_->CreateExtractValue(z, 1); }

  // A constant from the interleaved bytes of one element.
  llvm::Value* Constant(PrimitiveType type, const void* data);

  // Unary op on a complex operand of `type`; abs, real and imag give the
  // component type, the others `type`.
  absl::StatusOr<llvm::Value*> EmitUnaryOp(const HloInstruction& hlo, PrimitiveType type, llvm::Value* x);
  // Same-type binary op on complex operands.
  absl::StatusOr<llvm::Value*> EmitBinaryOp(const HloInstruction& hlo, PrimitiveType type, llvm::Value* a,
                                            llvm::Value* b);
  // Compare with a float comparison type: EQ/NE per part, the orderings
  // lexicographic on (re, im) with IEEE comparisons of the parts.
  absl::StatusOr<llvm::Value*> EmitCompare(const HloInstruction& hlo, llvm::Value* a, llvm::Value* b);

  llvm::Value* Add(llvm::Value* a, llvm::Value* b);
  llvm::Value* Multiply(PrimitiveType type, llvm::Value* a, llvm::Value* b);

  // The storage bits of a complex value as i64 (C64) / i128 (C128), real
  // part in the low half (little-endian memory order), and back.
  llvm::Value* ToBits(llvm::Value* z);
  llvm::Value* FromBits(PrimitiveType type, llvm::Value* bits);

 private:
  // Calls __xla_cpu_runtime_<op>C64/C128 (runtime_complex.h).
  llvm::Value* CallUnary(const char* op, PrimitiveType type, llvm::Value* z);
  llvm::Value* CallBinary(const char* op, PrimitiveType type, llvm::Value* a, llvm::Value* b);
  llvm::Value* CallAbs(PrimitiveType type, llvm::Value* z);
  llvm::Value* ReadOut(llvm::AllocaInst* out, PrimitiveType type);
  llvm::AllocaInst* OutSlot(PrimitiveType type);
  llvm::Type* PartType(PrimitiveType type);
  llvm::Value* HasNaN(llvm::Value* z);

  llvm::IRBuilder<>* b_;
  llvm::Module* module_;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_COMPLEX_IR_EMITTER_H_
