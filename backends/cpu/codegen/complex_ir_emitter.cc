#include "backends/cpu/codegen/complex_ir_emitter.h"

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "xla/primitive_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

namespace {

absl::Status OpNotImplemented(const HloInstruction& hlo, PrimitiveType type) {
  return absl::UnimplementedError(absl::StrCat("CPU backend: ", HloOpcodeString(hlo.opcode()), " on ",
                                               primitive_util::LowercaseName(type), " is not implemented yet (in ",
                                               hlo.ToString(), ")"));
}

const char* Suffix(PrimitiveType type) { return type == C64 ? "C64" : "C128"; }

}  // namespace

llvm::StructType* ComplexIrType(PrimitiveType type, llvm::LLVMContext& ctx) {
  llvm::Type* part = type == C64 ? llvm::Type::getFloatTy(ctx) : llvm::Type::getDoubleTy(ctx);
  return llvm::StructType::get(ctx, {part, part});
}

llvm::Type* ComplexIrEmitter::PartType(PrimitiveType type) {
  return type == C64 ? b_->getFloatTy() : b_->getDoubleTy();
}

llvm::Value* ComplexIrEmitter::Make(llvm::Value* re, llvm::Value* im) {
  llvm::Type* t = llvm::StructType::get(b_->getContext(), {re->getType(), re->getType()});
  llvm::Value* z = b_->CreateInsertValue(llvm::PoisonValue::get(t), re, 0);
  return b_->CreateInsertValue(z, im, 1);
}

llvm::Value* ComplexIrEmitter::Constant(PrimitiveType type, const void* data) {
  llvm::LLVMContext& ctx = b_->getContext();
  llvm::Constant* parts[2];
  for (int i = 0; i < 2; ++i) {
    if (type == C64) {
      uint32_t bits;
      std::memcpy(&bits, static_cast<const char*>(data) + 4 * i, 4);
      parts[i] = llvm::ConstantFP::get(ctx, llvm::APFloat(llvm::APFloat::IEEEsingle(), llvm::APInt(32, bits)));
    } else {
      uint64_t bits;
      std::memcpy(&bits, static_cast<const char*>(data) + 8 * i, 8);
      parts[i] = llvm::ConstantFP::get(ctx, llvm::APFloat(llvm::APFloat::IEEEdouble(), llvm::APInt(64, bits)));
    }
  }
  return llvm::ConstantStruct::get(ComplexIrType(type, ctx), {parts[0], parts[1]});
}

llvm::AllocaInst* ComplexIrEmitter::OutSlot(PrimitiveType type) {
  llvm::Function* fn = b_->GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  return entry.CreateAlloca(llvm::ArrayType::get(PartType(type), 2), nullptr, "complex.out");
}

llvm::Value* ComplexIrEmitter::ReadOut(llvm::AllocaInst* out, PrimitiveType type) {
  llvm::Type* part = PartType(type);
  llvm::Value* re = b_->CreateLoad(part, b_->CreateConstInBoundsGEP1_64(part, out, 0));
  llvm::Value* im = b_->CreateLoad(part, b_->CreateConstInBoundsGEP1_64(part, out, 1));
  return Make(re, im);
}

namespace {

void MarkRuntime(llvm::FunctionCallee callee, bool writes_arg) {
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    f->setWillReturn();
    if (writes_arg) {
      f->setOnlyAccessesArgMemory();
      f->setOnlyWritesMemory();
    } else {
      f->setDoesNotAccessMemory();  // errno is not observed
    }
  }
}

}  // namespace

llvm::Value* ComplexIrEmitter::CallUnary(const char* op, PrimitiveType type, llvm::Value* z) {
  llvm::Type* part = PartType(type);
  llvm::FunctionCallee f = module_->getOrInsertFunction(
      absl::StrCat("__xla_cpu_runtime_", op, Suffix(type)),
      llvm::FunctionType::get(b_->getVoidTy(), {part, part, b_->getPtrTy()}, false));
  MarkRuntime(f, true);
  llvm::AllocaInst* out = OutSlot(type);
  b_->CreateCall(f, {Real(z), Imag(z), out});
  return ReadOut(out, type);
}

llvm::Value* ComplexIrEmitter::CallBinary(const char* op, PrimitiveType type, llvm::Value* a, llvm::Value* b) {
  llvm::Type* part = PartType(type);
  llvm::FunctionCallee f = module_->getOrInsertFunction(
      absl::StrCat("__xla_cpu_runtime_", op, Suffix(type)),
      llvm::FunctionType::get(b_->getVoidTy(), {part, part, part, part, b_->getPtrTy()}, false));
  MarkRuntime(f, true);
  llvm::AllocaInst* out = OutSlot(type);
  b_->CreateCall(f, {Real(a), Imag(a), Real(b), Imag(b), out});
  return ReadOut(out, type);
}

llvm::Value* ComplexIrEmitter::CallAbs(PrimitiveType type, llvm::Value* z) {
  llvm::Type* part = PartType(type);
  llvm::FunctionCallee f = module_->getOrInsertFunction(absl::StrCat("__xla_cpu_runtime_Abs", Suffix(type)),
                                                        llvm::FunctionType::get(part, {part, part}, false));
  MarkRuntime(f, false);
  return b_->CreateCall(f, {Real(z), Imag(z)});
}

llvm::Value* ComplexIrEmitter::HasNaN(llvm::Value* z) {
  return b_->CreateOr(b_->CreateFCmpUNO(Real(z), Real(z)), b_->CreateFCmpUNO(Imag(z), Imag(z)));
}

llvm::Value* ComplexIrEmitter::Add(llvm::Value* a, llvm::Value* b) {
  return Make(b_->CreateFAdd(Real(a), Real(b)), b_->CreateFAdd(Imag(a), Imag(b)));
}

llvm::Value* ComplexIrEmitter::Multiply(PrimitiveType type, llvm::Value* a, llvm::Value* b) {
  llvm::Value *ar = Real(a), *ai = Imag(a), *br = Real(b), *bi = Imag(b);
  llvm::Value* re = b_->CreateFSub(b_->CreateFMul(ar, br), b_->CreateFMul(ai, bi));
  llvm::Value* im = b_->CreateFAdd(b_->CreateFMul(ar, bi), b_->CreateFMul(ai, br));
  llvm::Value* fast = Make(re, im);
  // NaN + iNaN may hide an infinite product: the runtime recovers it.
  llvm::Value* both_nan = b_->CreateAnd(b_->CreateFCmpUNO(re, re), b_->CreateFCmpUNO(im, im));
  llvm::Function* fn = b_->GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b_->getContext();
  llvm::BasicBlock* before = b_->GetInsertBlock();
  llvm::BasicBlock* slow = llvm::BasicBlock::Create(ctx, "cmul.nan", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "cmul.done", fn);
  b_->CreateCondBr(both_nan, slow, done);
  b_->SetInsertPoint(slow);
  llvm::Value* recovered = CallBinary("Multiply", type, a, b);
  llvm::BasicBlock* slow_end = b_->GetInsertBlock();
  b_->CreateBr(done);
  b_->SetInsertPoint(done);
  llvm::PHINode* phi = b_->CreatePHI(fast->getType(), 2);
  phi->addIncoming(fast, before);
  phi->addIncoming(recovered, slow_end);
  return phi;
}

absl::StatusOr<llvm::Value*> ComplexIrEmitter::EmitUnaryOp(const HloInstruction& hlo, PrimitiveType type,
                                                           llvm::Value* x) {
  switch (hlo.opcode()) {
    case HloOpcode::kCopy: return x;
    case HloOpcode::kReal: return Real(x);
    case HloOpcode::kImag: return Imag(x);
    case HloOpcode::kNegate: return Make(b_->CreateFNeg(Real(x)), b_->CreateFNeg(Imag(x)));
    case HloOpcode::kAbs: return CallAbs(type, x);
    case HloOpcode::kSign: return CallUnary("Sign", type, x);
    case HloOpcode::kExp: return CallUnary("Exp", type, x);
    case HloOpcode::kExpm1: return CallUnary("Expm1", type, x);
    case HloOpcode::kLog: return CallUnary("Log", type, x);
    case HloOpcode::kLog1p: return CallUnary("Log1p", type, x);
    case HloOpcode::kLogistic: return CallUnary("Logistic", type, x);
    case HloOpcode::kSqrt: return CallUnary("Sqrt", type, x);
    case HloOpcode::kRsqrt: return CallUnary("Rsqrt", type, x);
    case HloOpcode::kSin: return CallUnary("Sin", type, x);
    case HloOpcode::kCos: return CallUnary("Cos", type, x);
    case HloOpcode::kTan: return CallUnary("Tan", type, x);
    case HloOpcode::kTanh: return CallUnary("Tanh", type, x);
    case HloOpcode::kCbrt: return CallUnary("Cbrt", type, x);
    default: return OpNotImplemented(hlo, type);
  }
}

absl::StatusOr<llvm::Value*> ComplexIrEmitter::EmitBinaryOp(const HloInstruction& hlo, PrimitiveType type,
                                                            llvm::Value* a, llvm::Value* b) {
  switch (hlo.opcode()) {
    case HloOpcode::kAdd: return Add(a, b);
    case HloOpcode::kSubtract:
      return Make(b_->CreateFSub(Real(a), Real(b)), b_->CreateFSub(Imag(a), Imag(b)));
    case HloOpcode::kMultiply: return Multiply(type, a, b);
    case HloOpcode::kDivide: return CallBinary("Divide", type, a, b);
    case HloOpcode::kPower: return CallBinary("Power", type, a, b);
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum: {
      // Lexicographic on (re, im); a NaN in a (then in b) wins.
      const bool max = hlo.opcode() == HloOpcode::kMaximum;
      llvm::Value *ar = Real(a), *ai = Imag(a), *br = Real(b), *bi = Imag(b);
      llvm::Value* re_wins = max ? b_->CreateFCmpOGT(ar, br) : b_->CreateFCmpOLT(ar, br);
      llvm::Value* im_wins = max ? b_->CreateFCmpOGE(ai, bi) : b_->CreateFCmpOLE(ai, bi);
      llvm::Value* a_wins = b_->CreateOr(re_wins, b_->CreateAnd(b_->CreateFCmpOEQ(ar, br), im_wins));
      a_wins = b_->CreateOr(b_->CreateAnd(b_->CreateNot(HasNaN(b)), a_wins), HasNaN(a));
      return b_->CreateSelect(a_wins, a, b);
    }
    default: return OpNotImplemented(hlo, type);
  }
}

absl::StatusOr<llvm::Value*> ComplexIrEmitter::EmitCompare(const HloInstruction& hlo, llvm::Value* a,
                                                           llvm::Value* b) {
  ASSIGN_OR_RETURN(ComparisonDirection dir, StringToComparisonDirection(hlo.attributes().comparison_direction()));
  llvm::Value *ar = Real(a), *ai = Imag(a), *br = Real(b), *bi = Imag(b);
  llvm::Value* re_eq = b_->CreateFCmpOEQ(ar, br);
  switch (dir) {
    case ComparisonDirection::kEq: return b_->CreateAnd(re_eq, b_->CreateFCmpOEQ(ai, bi));
    case ComparisonDirection::kNe: return b_->CreateOr(b_->CreateFCmpUNE(ar, br), b_->CreateFCmpUNE(ai, bi));
    case ComparisonDirection::kLt:
      return b_->CreateOr(b_->CreateFCmpOLT(ar, br), b_->CreateAnd(re_eq, b_->CreateFCmpOLT(ai, bi)));
    case ComparisonDirection::kLe:
      return b_->CreateOr(b_->CreateFCmpOLT(ar, br), b_->CreateAnd(re_eq, b_->CreateFCmpOLE(ai, bi)));
    case ComparisonDirection::kGt:
      return b_->CreateOr(b_->CreateFCmpOGT(ar, br), b_->CreateAnd(re_eq, b_->CreateFCmpOGT(ai, bi)));
    case ComparisonDirection::kGe:
      return b_->CreateOr(b_->CreateFCmpOGT(ar, br), b_->CreateAnd(re_eq, b_->CreateFCmpOGE(ai, bi)));
  }
  return Internal("CPU backend: %s: bad comparison direction", hlo.name());
}

llvm::Value* ComplexIrEmitter::ToBits(llvm::Value* z) {
  const unsigned part_bits = Real(z)->getType()->getPrimitiveSizeInBits();
  llvm::Type* part_int = b_->getIntNTy(part_bits);
  llvm::Type* whole = b_->getIntNTy(2 * part_bits);
  llvm::Value* lo = b_->CreateZExt(b_->CreateBitCast(Real(z), part_int), whole);
  llvm::Value* hi = b_->CreateZExt(b_->CreateBitCast(Imag(z), part_int), whole);
  return b_->CreateOr(lo, b_->CreateShl(hi, part_bits));
}

llvm::Value* ComplexIrEmitter::FromBits(PrimitiveType type, llvm::Value* bits) {
  llvm::Type* part = PartType(type);
  const unsigned part_bits = part->getPrimitiveSizeInBits();
  llvm::Type* part_int = b_->getIntNTy(part_bits);
  llvm::Value* re = b_->CreateBitCast(b_->CreateTrunc(bits, part_int), part);
  llvm::Value* im = b_->CreateBitCast(b_->CreateTrunc(b_->CreateLShr(bits, part_bits), part_int), part);
  return Make(re, im);
}

}  // namespace cpu
}  // namespace xla
