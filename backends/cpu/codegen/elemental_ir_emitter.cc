#include "backends/cpu/codegen/elemental_ir_emitter.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/alias_analysis.h"
#include "backends/cpu/codegen/complex_ir_emitter.h"
#include "backends/cpu/transforms/matmul_plan.h"
#include "backends/cpu/codegen/polynomial_math.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Intrinsics.h"
#include "xla/primitive_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

namespace {

bool IsFloat(PrimitiveType t) { return t == F32 || t == F64 || t == F16 || t == BF16; }

// x - broadcast(reduce(x, max) over some dimensions), broadcast back along
// them: every element is x minus a maximum that includes it, so <= 0 (or
// NaN). Softmax and log-softmax shift by the row max this way.
bool IsShiftedByItsMax(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kSubtract) return false;
  const HloInstruction* x = hlo.operand(0);
  const HloInstruction* broadcast = hlo.operand(1);
  if (broadcast->opcode() != HloOpcode::kBroadcast) return false;
  const HloInstruction* reduce = broadcast->operand(0);
  if (reduce->opcode() != HloOpcode::kReduce || reduce->operand_count() != 2 || reduce->operand(0) != x) return false;
  const HloInstruction* root = reduce->to_apply()->root_instruction();
  if (root->opcode() != HloOpcode::kMaximum || root->operand(0)->opcode() != HloOpcode::kParameter ||
      root->operand(1)->opcode() != HloOpcode::kParameter || root->operand(0) == root->operand(1)) {
    return false;
  }
  // The broadcast puts the reduce's result back on the dimensions it kept.
  std::vector<int64_t> kept;
  const absl::Span<const int64_t> reduced = reduce->dimensions();
  for (int64_t d = 0; d < x->shape().rank(); ++d) {
    if (!absl::c_linear_search(reduced, d)) kept.push_back(d);
  }
  return broadcast->dimensions() == absl::Span<const int64_t>(kept);
}
// F16/BF16 values are held as float in registers (the evaluator computes
// in float and rounds back after every op).
bool IsSmallFloat(PrimitiveType t) { return t == F16 || t == BF16; }
PrimitiveType RegisterType(PrimitiveType t) { return IsSmallFloat(t) ? F32 : t; }
bool IsSigned(PrimitiveType t) { return primitive_util::IsSignedIntegralType(t); }
bool IsInt(PrimitiveType t) { return primitive_util::IsIntegralType(t); }
bool IsComplex(PrimitiveType t) { return t == C64 || t == C128; }
// Unary ops whose result is the component type of a complex operand.
bool IsComplexToReal(HloOpcode op, PrimitiveType in_type) {
  return IsComplex(in_type) && (op == HloOpcode::kAbs || op == HloOpcode::kReal || op == HloOpcode::kImag);
}

absl::Status NotImplemented(const HloInstruction& hlo, absl::string_view what) {
  return absl::UnimplementedError(
      absl::StrCat("CPU backend: ", what, " is not implemented yet (in ", hlo.ToString(), ")"));
}

absl::Status OpNotImplemented(const HloInstruction& hlo, PrimitiveType type) {
  return NotImplemented(hlo, absl::StrCat(HloOpcodeString(hlo.opcode()), " on ", primitive_util::LowercaseName(type)));
}

}  // namespace

bool IsSupportedElementType(PrimitiveType type) {
  switch (type) {
    case PRED: case S8: case S16: case S32: case S64:
    case U8: case U16: case U32: case U64: case F32: case F64: case F16: case BF16:
    case C64: case C128:
      return true;
    default:
      return false;
  }
}

absl::Status CheckSupportedElementType(PrimitiveType type, const HloInstruction& context) {
  if (IsSupportedElementType(type)) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("CPU backend: element type ", primitive_util::LowercaseName(type),
                                               " is not implemented yet (in ", context.ToString(), ")"));
}

llvm::Type* IrValueType(PrimitiveType type, llvm::LLVMContext& ctx) {
  switch (type) {
    case PRED: return llvm::Type::getInt1Ty(ctx);
    case S8: case U8: return llvm::Type::getInt8Ty(ctx);
    case S16: case U16: return llvm::Type::getInt16Ty(ctx);
    case S32: case U32: return llvm::Type::getInt32Ty(ctx);
    case S64: case U64: return llvm::Type::getInt64Ty(ctx);
    case F32: case F16: case BF16: return llvm::Type::getFloatTy(ctx);
    case F64: return llvm::Type::getDoubleTy(ctx);
    case C64: case C128: return ComplexIrType(type, ctx);
    default: return nullptr;
  }
}

llvm::Type* IrStorageType(PrimitiveType type, llvm::LLVMContext& ctx) {
  switch (type) {
    case PRED: return llvm::Type::getInt8Ty(ctx);
    case F16: return llvm::Type::getHalfTy(ctx);
    case BF16: return llvm::Type::getInt16Ty(ctx);
    default: return IrValueType(type, ctx);
  }
}

llvm::Value* ElementalIrEmitter::RoundToType(PrimitiveType type, llvm::Value* v) {
  if (type == F16) return b_->CreateFPExt(b_->CreateFPTrunc(v, b_->getHalfTy()), b_->getFloatTy());
  if (type != BF16) return v;
  // Round to nearest even on the float bits, as Eigen's bfloat16(float);
  // NaN becomes the quiet NaN with its sign.
  llvm::Value* bits = b_->CreateBitCast(v, b_->getInt32Ty());
  llvm::Value* lsb = b_->CreateAnd(b_->CreateLShr(bits, 16), b_->getInt32(1));
  llvm::Value* rounded = b_->CreateAnd(b_->CreateAdd(b_->CreateAdd(bits, b_->getInt32(0x7fff)), lsb),
                                       b_->getInt32(0xffff0000u));
  llvm::Value* nan = b_->CreateOr(b_->CreateAnd(bits, b_->getInt32(0x80000000u)), b_->getInt32(0x7fc00000));
  llvm::Value* r = b_->CreateSelect(b_->CreateFCmpUNO(v, v), nan, rounded);
  return b_->CreateBitCast(r, b_->getFloatTy());
}

bool IsFusibleOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kBroadcast: case HloOpcode::kReshape: case HloOpcode::kTranspose:
    case HloOpcode::kSlice: case HloOpcode::kReverse: case HloOpcode::kIota:
    case HloOpcode::kConcatenate: case HloOpcode::kPad: case HloOpcode::kConstant:
    case HloOpcode::kConvert: case HloOpcode::kCopy: case HloOpcode::kSelect:
    case HloOpcode::kClamp: case HloOpcode::kCompare:
    case HloOpcode::kDynamicSlice: case HloOpcode::kBitcastConvert: case HloOpcode::kMap:
    case HloOpcode::kGather:
      return true;
    default:
      return IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode);
  }
}

llvm::Value* ElementalIrEmitter::LinearIndex(const Shape& shape, const IrIndex& index) {
  llvm::Value* linear = b_->getInt64(0);
  int64_t stride = 1;
  for (int64_t d : shape.layout().minor_to_major()) {
    if (shape.dimensions(d) != 1) {
      llvm::Value* term = stride == 1 ? index[d] : b_->CreateMul(index[d], b_->getInt64(stride), "", true, true);
      linear = b_->CreateAdd(linear, term, "", true, true);
    }
    stride *= shape.dimensions(d);
  }
  return linear;
}

llvm::Value* ElementalIrEmitter::LoadElement(llvm::Value* base, const Shape& shape, const IrIndex& index) {
  llvm::Type* storage = IrStorageType(shape.element_type(), b_->getContext());
  llvm::Value* ptr = b_->CreateInBoundsGEP(storage, base, {LinearIndex(shape, index)});
  llvm::LoadInst* v = b_->CreateLoad(storage, ptr);
  TagBufferAccess(v, base);
  switch (shape.element_type()) {
    case PRED: return b_->CreateICmpNE(v, b_->getInt8(0));
    case F16: return b_->CreateFPExt(v, b_->getFloatTy());
    case BF16: return b_->CreateBitCast(b_->CreateShl(b_->CreateZExt(v, b_->getInt32Ty()), 16), b_->getFloatTy());
    default: return v;
  }
}

void ElementalIrEmitter::StoreElement(llvm::Value* value, llvm::Value* base, const Shape& shape,
                                      const IrIndex& index) {
  llvm::Type* storage = IrStorageType(shape.element_type(), b_->getContext());
  if (shape.element_type() == PRED) value = b_->CreateZExt(value, storage);
  // Small floats are already rounded, so these are exact.
  if (shape.element_type() == F16) value = b_->CreateFPTrunc(value, storage);
  if (shape.element_type() == BF16) {
    value = b_->CreateTrunc(b_->CreateLShr(b_->CreateBitCast(value, b_->getInt32Ty()), 16), storage);
  }
  llvm::Value* ptr = b_->CreateInBoundsGEP(storage, base, {LinearIndex(shape, index)});
  TagBufferAccess(b_->CreateStore(value, ptr), base);
}

llvm::Value* ElementalIrEmitter::EmitLiteralElement(const Literal& literal, int64_t linear) {
  const PrimitiveType type = literal.element_type();
  const int width = primitive_util::ByteWidth(type);
  if (IsComplex(type)) {
    return ComplexIrEmitter(b_, module_).Constant(type, static_cast<const char*>(literal.untyped_data()) + linear * width);
  }
  uint64_t raw = 0;
  std::memcpy(&raw, static_cast<const char*>(literal.untyped_data()) + linear * width, width);
  llvm::LLVMContext& ctx = b_->getContext();
  if (type == PRED) return b_->getInt1(raw != 0);
  if (type == F32) return llvm::ConstantFP::get(ctx, llvm::APFloat(llvm::APFloat::IEEEsingle(), llvm::APInt(32, raw)));
  if (type == F64) return llvm::ConstantFP::get(ctx, llvm::APFloat(llvm::APFloat::IEEEdouble(), llvm::APInt(64, raw)));
  if (type == F16 || type == BF16) {
    llvm::APFloat f(type == F16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat(), llvm::APInt(16, raw));
    bool lost;
    f.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);  // exact
    return llvm::ConstantFP::get(ctx, f);
  }
  return llvm::ConstantInt::get(IrValueType(type, ctx), raw);
}

llvm::Value* ElementalIrEmitter::Zero(PrimitiveType type) {
  return llvm::Constant::getNullValue(IrValueType(type, b_->getContext()));
}

llvm::AllocaInst* ElementalIrEmitter::EntryAlloca(llvm::Type* type, const std::string& name) {
  llvm::Function* fn = b_->GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  return entry.CreateAlloca(type, nullptr, name);
}

llvm::FunctionCallee ElementalIrEmitter::LibmFunction(const std::string& name, llvm::Type* type, int arity) {
  std::vector<llvm::Type*> params(arity, type);
  llvm::FunctionCallee callee = module_->getOrInsertFunction(name, llvm::FunctionType::get(type, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    f->setWillReturn();
    f->setDoesNotAccessMemory();  // errno is not observed
  }
  return callee;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::CallLibm(const HloInstruction& hlo, const char* f32_name,
                                                          const char* f64_name, PrimitiveType type,
                                                          std::vector<llvm::Value*> args) {
  if (!IsFloat(type)) return OpNotImplemented(hlo, type);
  llvm::FunctionCallee f = LibmFunction(type == F64 ? f64_name : f32_name, args[0]->getType(), args.size());
  return b_->CreateCall(f, args);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::Intrinsic1(llvm::Intrinsic::ID id, llvm::Value* x) {
  return b_->CreateIntrinsic(id, {x->getType()}, {x});
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitUnaryOp(const HloInstruction& hlo, PrimitiveType type,
                                                             llvm::Value* x) {
  const HloOpcode op = hlo.opcode();
  if (op == HloOpcode::kCopy) return x;
  if (IsComplex(type)) return ComplexIrEmitter(b_, module_).EmitUnaryOp(hlo, type, x);
  if (type == PRED) {
    if (op == HloOpcode::kNot) return b_->CreateNot(x);
    return OpNotImplemented(hlo, type);
  }
  if (IsInt(type)) {
    llvm::Value* zero = Zero(type);
    switch (op) {
      case HloOpcode::kNot: return b_->CreateNot(x);
      case HloOpcode::kNegate: return b_->CreateSub(zero, x);
      case HloOpcode::kAbs:
        if (!IsSigned(type)) return x;
        return b_->CreateSelect(b_->CreateICmpSLT(x, zero), b_->CreateSub(zero, x), x);
      case HloOpcode::kSign: {
        llvm::Value* one = llvm::ConstantInt::get(x->getType(), 1);
        llvm::Value* pos = b_->CreateSelect(IsSigned(type) ? b_->CreateICmpSGT(x, zero) : b_->CreateICmpUGT(x, zero),
                                            one, zero);
        if (!IsSigned(type)) return pos;
        return b_->CreateSelect(b_->CreateICmpSLT(x, zero), llvm::ConstantInt::getSigned(x->getType(), -1), pos);
      }
      case HloOpcode::kClz:
        return b_->CreateIntrinsic(llvm::Intrinsic::ctlz, {x->getType()}, {x, b_->getFalse()});
      case HloOpcode::kPopulationCount: return Intrinsic1(llvm::Intrinsic::ctpop, x);
      default: return OpNotImplemented(hlo, type);
    }
  }
  if (!IsFloat(type)) return OpNotImplemented(hlo, type);
  llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
  llvm::Value* zero = llvm::ConstantFP::get(x->getType(), 0.0);
  switch (op) {
    case HloOpcode::kAbs: return Intrinsic1(llvm::Intrinsic::fabs, x);
    case HloOpcode::kNegate: return b_->CreateFNeg(x);
    case HloOpcode::kSign: {
      // NaN and +-0 give themselves.
      llvm::Value* r = b_->CreateSelect(b_->CreateFCmpOGT(x, zero), one, x);
      return b_->CreateSelect(b_->CreateFCmpOLT(x, zero), llvm::ConstantFP::get(x->getType(), -1.0), r);
    }
    case HloOpcode::kCeil: return Intrinsic1(llvm::Intrinsic::ceil, x);
    case HloOpcode::kFloor: return Intrinsic1(llvm::Intrinsic::floor, x);
    case HloOpcode::kRoundNearestAfz: return Intrinsic1(llvm::Intrinsic::round, x);
    case HloOpcode::kRoundNearestEven: return Intrinsic1(llvm::Intrinsic::roundeven, x);
    case HloOpcode::kSqrt: return Intrinsic1(llvm::Intrinsic::sqrt, x);
    case HloOpcode::kRsqrt: {
      ASSIGN_OR_RETURN(llvm::Value * s, Intrinsic1(llvm::Intrinsic::sqrt, x));
      return b_->CreateFDiv(one, s);
    }
    // Transcendentals: exp, log, tanh, logistic (and erf for f32/f16/bf16)
    // as vectorizable polynomial IR (polynomial_math.h, accuracy documented
    // there); the others are libm calls that the JIT maps to libmvec's
    // vector variants in vectorized loops (vector_math_library.h).
    case HloOpcode::kExp: return EmitFastExp(b_, x, IsShiftedByItsMax(*hlo.operand(0)));
    case HloOpcode::kLog: return EmitFastLog(b_, x);
    case HloOpcode::kSin: return CallLibm(hlo, "sinf", "sin", type, {x});
    case HloOpcode::kCos: return CallLibm(hlo, "cosf", "cos", type, {x});
    case HloOpcode::kTan: return CallLibm(hlo, "tanf", "tan", type, {x});
    case HloOpcode::kTanh: return EmitFastTanh(b_, x);
    case HloOpcode::kErf:
      if (type == F64) return CallLibm(hlo, "erff", "erf", type, {x});  // no f64 polynomial yet
      return EmitFastErfF32(b_, x);
    case HloOpcode::kCbrt: return CallLibm(hlo, "cbrtf", "cbrt", type, {x});
    case HloOpcode::kExpm1: return CallLibm(hlo, "expm1f", "expm1", type, {x});
    case HloOpcode::kLog1p: return CallLibm(hlo, "log1pf", "log1p", type, {x});
    case HloOpcode::kLogistic: return EmitFastLogistic(b_, x);
    case HloOpcode::kIsFinite: {
      ASSIGN_OR_RETURN(llvm::Value * a, Intrinsic1(llvm::Intrinsic::fabs, x));
      return b_->CreateFCmpOLT(a, llvm::ConstantFP::getInfinity(x->getType()));
    }
    case HloOpcode::kReal: return x;
    case HloOpcode::kImag: return zero;
    default: return OpNotImplemented(hlo, type);
  }
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitBinaryOp(const HloInstruction& hlo, PrimitiveType type,
                                                              llvm::Value* a, llvm::Value* b, bool reassociate) {
  const HloOpcode op = hlo.opcode();
  if (IsComplex(type)) return ComplexIrEmitter(b_, module_).EmitBinaryOp(hlo, type, a, b);
  if (type == PRED) {
    switch (op) {
      case HloOpcode::kAdd: case HloOpcode::kMaximum: case HloOpcode::kOr: return b_->CreateOr(a, b);
      case HloOpcode::kMultiply: case HloOpcode::kMinimum: case HloOpcode::kAnd: return b_->CreateAnd(a, b);
      case HloOpcode::kXor: return b_->CreateXor(a, b);
      case HloOpcode::kPower: return b_->CreateOr(a, b_->CreateNot(b));
      default: return OpNotImplemented(hlo, type);
    }
  }
  if (IsInt(type)) {
    const bool is_signed = IsSigned(type);
    llvm::Type* t = a->getType();
    const unsigned bits = t->getIntegerBitWidth();
    llvm::Value* zero = Zero(type);
    llvm::Value* one = llvm::ConstantInt::get(t, 1);
    llvm::Value* minus_one = llvm::ConstantInt::getSigned(t, -1);
    switch (op) {
      case HloOpcode::kAdd: return b_->CreateAdd(a, b);
      case HloOpcode::kSubtract: return b_->CreateSub(a, b);
      case HloOpcode::kMultiply: return b_->CreateMul(a, b);
      case HloOpcode::kAnd: return b_->CreateAnd(a, b);
      case HloOpcode::kOr: return b_->CreateOr(a, b);
      case HloOpcode::kXor: return b_->CreateXor(a, b);
      case HloOpcode::kMaximum:
        return b_->CreateSelect(is_signed ? b_->CreateICmpSGT(a, b) : b_->CreateICmpUGT(a, b), a, b);
      case HloOpcode::kMinimum:
        return b_->CreateSelect(is_signed ? b_->CreateICmpSLT(a, b) : b_->CreateICmpULT(a, b), a, b);
      case HloOpcode::kDivide: {
        // x / 0 = -1 (all ones); INT_MIN / -1 = INT_MIN. The divisor is made
        // safe first: LLVM's division by zero or overflow is undefined.
        llvm::Value* b_zero = b_->CreateICmpEQ(b, zero);
        llvm::Value* unsafe = b_zero;
        if (is_signed) {
          llvm::Value* overflow = b_->CreateAnd(b_->CreateICmpEQ(a, llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(bits))),
                                                b_->CreateICmpEQ(b, minus_one));
          unsafe = b_->CreateOr(unsafe, overflow);
        }
        llvm::Value* safe_b = b_->CreateSelect(unsafe, one, b);
        llvm::Value* q = is_signed ? b_->CreateSDiv(a, safe_b) : b_->CreateUDiv(a, safe_b);
        return b_->CreateSelect(b_zero, minus_one, q);
      }
      case HloOpcode::kRemainder: {
        // x % 0 = x; x % -1 = 0 (signed).
        llvm::Value* b_zero = b_->CreateICmpEQ(b, zero);
        llvm::Value* unsafe = is_signed ? b_->CreateOr(b_zero, b_->CreateICmpEQ(b, minus_one)) : b_zero;
        llvm::Value* safe_b = b_->CreateSelect(unsafe, one, b);
        llvm::Value* r = is_signed ? b_->CreateSRem(a, safe_b) : b_->CreateURem(a, safe_b);
        return b_->CreateSelect(b_zero, a, r);
      }
      case HloOpcode::kShiftLeft:
      case HloOpcode::kShiftRightLogical:
      case HloOpcode::kShiftRightArithmetic: {
        // Amounts are unsigned; >= the bit width gives 0 or the sign fill.
        llvm::Value* too_big = b_->CreateICmpUGE(b, llvm::ConstantInt::get(t, bits));
        llvm::Value* max_amount = llvm::ConstantInt::get(t, bits - 1);
        if (op == HloOpcode::kShiftRightArithmetic) {
          return b_->CreateAShr(a, b_->CreateSelect(too_big, max_amount, b));
        }
        llvm::Value* amount = b_->CreateSelect(too_big, zero, b);
        llvm::Value* r = op == HloOpcode::kShiftLeft ? b_->CreateShl(a, amount) : b_->CreateLShr(a, amount);
        return b_->CreateSelect(too_big, zero, r);
      }
      case HloOpcode::kPower: {
        // Runtime helper computing in 64 bits; the low bits of a wrapping
        // product do not depend on the width it is computed in.
        llvm::Type* i64 = b_->getInt64Ty();
        llvm::FunctionCallee f = module_->getOrInsertFunction(
            is_signed ? "__xla_cpu_runtime_PowS64" : "__xla_cpu_runtime_PowU64",
            llvm::FunctionType::get(i64, {i64, i64}, false));
        if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
          fn->setDoesNotThrow();
          fn->setDoesNotAccessMemory();
          fn->setWillReturn();
        }
        llvm::Value* a64 = is_signed ? b_->CreateSExt(a, i64) : b_->CreateZExt(a, i64);
        llvm::Value* b64 = is_signed ? b_->CreateSExt(b, i64) : b_->CreateZExt(b, i64);
        return b_->CreateTrunc(b_->CreateCall(f, {a64, b64}), t);
      }
      default: return OpNotImplemented(hlo, type);
    }
  }
  if (!IsFloat(type)) return OpNotImplemented(hlo, type);
  auto reassoc = [&](llvm::Value* v) {
    if (reassociate) {
      if (auto* inst = llvm::dyn_cast<llvm::Instruction>(v)) inst->setHasAllowReassoc(true);
    }
    return v;
  };
  switch (op) {
    case HloOpcode::kAdd: return reassoc(b_->CreateFAdd(a, b));
    case HloOpcode::kSubtract: return b_->CreateFSub(a, b);
    case HloOpcode::kMultiply: return reassoc(b_->CreateFMul(a, b));
    case HloOpcode::kDivide: return b_->CreateFDiv(a, b);
    case HloOpcode::kRemainder: return b_->CreateFRem(a, b);
    case HloOpcode::kPower: return CallLibm(hlo, "powf", "pow", type, {a, b});
    case HloOpcode::kMaximum: return b_->CreateIntrinsic(llvm::Intrinsic::maximum, {a->getType()}, {a, b});
    case HloOpcode::kMinimum: return b_->CreateIntrinsic(llvm::Intrinsic::minimum, {a->getType()}, {a, b});
    case HloOpcode::kAtan2: return CallLibm(hlo, "atan2f", "atan2", type, {a, b});
    default: return OpNotImplemented(hlo, type);
  }
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitComplexFromParts(const HloInstruction& hlo, llvm::Value* re,
                                                                      llvm::Value* im) {
  const PrimitiveType part = hlo.operand(0)->shape().element_type();
  const PrimitiveType type = hlo.shape().element_type();
  if (!(part == F32 && type == C64) && !(part == F64 && type == C128)) {
    return InvalidArgument("CPU backend: %s: complex needs f32->c64 or f64->c128", hlo.name());
  }
  return ComplexIrEmitter(b_, module_).Make(re, im);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitCompare(const HloInstruction& hlo, PrimitiveType type,
                                                             llvm::Value* a, llvm::Value* b) {
  ASSIGN_OR_RETURN(ComparisonDirection dir, StringToComparisonDirection(hlo.attributes().comparison_direction()));
  const ComparisonType ctype = hlo.comparison_type();
  using P = llvm::CmpInst::Predicate;
  if (IsComplex(type)) {
    if (ctype != ComparisonType::kFloat) {
      return InvalidArgument("CPU backend: %s: comparison type %s is not valid for %s", hlo.name(),
                             ComparisonTypeString(ctype), primitive_util::LowercaseName(type));
    }
    return ComplexIrEmitter(b_, module_).EmitCompare(hlo, a, b);
  }
  if (IsFloat(type) && ctype == ComparisonType::kFloat) {
    P p;
    switch (dir) {
      case ComparisonDirection::kEq: p = P::FCMP_OEQ; break;
      case ComparisonDirection::kNe: p = P::FCMP_UNE; break;
      case ComparisonDirection::kLt: p = P::FCMP_OLT; break;
      case ComparisonDirection::kLe: p = P::FCMP_OLE; break;
      case ComparisonDirection::kGt: p = P::FCMP_OGT; break;
      case ComparisonDirection::kGe: p = P::FCMP_OGE; break;
    }
    return b_->CreateFCmp(p, a, b);
  }
  bool is_signed;
  if (IsFloat(type) && ctype == ComparisonType::kTotalOrder) {
    // Signed-integer key whose order is the IEEE total order.
    const unsigned bits = a->getType()->getPrimitiveSizeInBits();
    llvm::Type* it = b_->getIntNTy(bits);
    auto key = [&](llvm::Value* v) {
      llvm::Value* i = b_->CreateBitCast(v, it);
      llvm::Value* flipped = b_->CreateXor(i, llvm::ConstantInt::get(it, llvm::APInt::getSignedMaxValue(bits)));
      return b_->CreateSelect(b_->CreateICmpSLT(i, llvm::ConstantInt::get(it, 0)), flipped, i);
    };
    a = key(a);
    b = key(b);
    is_signed = true;
  } else if (type == PRED || IsInt(type)) {
    if (ctype == ComparisonType::kFloat || ctype == ComparisonType::kTotalOrder) {
      return InvalidArgument("CPU backend: %s: comparison type %s is not valid for %s", hlo.name(),
                             ComparisonTypeString(ctype), primitive_util::LowercaseName(type));
    }
    is_signed = ctype == ComparisonType::kSigned;
  } else {
    return OpNotImplemented(hlo, type);
  }
  P p;
  switch (dir) {
    case ComparisonDirection::kEq: p = P::ICMP_EQ; break;
    case ComparisonDirection::kNe: p = P::ICMP_NE; break;
    case ComparisonDirection::kLt: p = is_signed ? P::ICMP_SLT : P::ICMP_ULT; break;
    case ComparisonDirection::kLe: p = is_signed ? P::ICMP_SLE : P::ICMP_ULE; break;
    case ComparisonDirection::kGt: p = is_signed ? P::ICMP_SGT : P::ICMP_UGT; break;
    case ComparisonDirection::kGe: p = is_signed ? P::ICMP_SGE : P::ICMP_UGE; break;
  }
  return b_->CreateICmp(p, a, b);
}

llvm::Value* ElementalIrEmitter::EmitConvert(PrimitiveType from, PrimitiveType to, llvm::Value* x) {
  if (IsComplex(from) || IsComplex(to)) {
    // As the evaluator's ConvertValue: complex -> real takes the real part;
    // real -> complex has imaginary part 0.
    ComplexIrEmitter complex(b_, module_);
    if (from == to) return x;
    if (IsComplex(from) && IsComplex(to)) {
      llvm::Type* part = IrValueType(primitive_util::ComplexComponentType(to), b_->getContext());
      return complex.Make(b_->CreateFPCast(complex.Real(x), part), b_->CreateFPCast(complex.Imag(x), part));
    }
    if (IsComplex(from)) return EmitConvert(primitive_util::ComplexComponentType(from), to, complex.Real(x));
    const PrimitiveType part = primitive_util::ComplexComponentType(to);
    return complex.Make(EmitConvert(from, part, x), Zero(part));
  }
  // Small floats are floats in registers; the caller rounds the result to
  // the instruction's type (GenerateElement does).
  from = RegisterType(from);
  to = RegisterType(to);
  if (from == to) return x;
  llvm::Type* to_type = IrValueType(to, b_->getContext());
  if (to == PRED) {
    if (IsFloat(from)) return b_->CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));  // NaN -> true
    return b_->CreateICmpNE(x, Zero(from));
  }
  if (from == PRED) return IsFloat(to) ? b_->CreateUIToFP(x, to_type) : b_->CreateZExt(x, to_type);
  if (IsInt(from) && IsInt(to)) return b_->CreateIntCast(x, to_type, IsSigned(from));
  if (IsInt(from)) return IsSigned(from) ? b_->CreateSIToFP(x, to_type) : b_->CreateUIToFP(x, to_type);
  if (IsInt(to)) {
    // Saturating, NaN -> 0, as the evaluator's ConvertElementType.
    auto id = IsSigned(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b_->CreateIntrinsic(id, {to_type, x->getType()}, {x});
  }
  return b_->CreateFPCast(x, to_type);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitElement(const HloInstruction* hlo, const IrIndex& index) {
  if (llvm::Value* buffer = buffers_(hlo)) {
    auto row = row_buffer_shapes_.find(hlo);
    return LoadElement(buffer, row != row_buffer_shapes_.end() ? row->second : hlo->shape(), index);
  }
  return GenerateElement(hlo, index);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::GenerateElement(const HloInstruction* hlo, const IrIndex& index) {
  ASSIGN_OR_RETURN(llvm::Value * v, GenerateUnrounded(hlo, index));
  if (hlo->shape().IsArray()) v = RoundToType(hlo->shape().element_type(), v);
  return v;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::GenerateUnrounded(const HloInstruction* hlo, const IrIndex& index) {
  const Shape& shape = hlo->shape();
  if (!shape.IsArray()) return NotImplemented(*hlo, absl::StrCat("element of non-array ", shape.ToString()));
  const PrimitiveType type = shape.element_type();
  RETURN_IF_ERROR(CheckSupportedElementType(type, *hlo));
  for (const HloInstruction* operand : hlo->operands()) {
    if (operand->shape().IsArray()) RETURN_IF_ERROR(CheckSupportedElementType(operand->shape().element_type(), *hlo));
  }
  const HloOpcode op = hlo->opcode();
  switch (op) {
    case HloOpcode::kConstant:
      if (ShapeUtil::ElementsIn(shape) != 1) return Internal("CPU backend: constant %s has no buffer", hlo->name());
      return EmitLiteralElement(hlo->literal(), 0);
    case HloOpcode::kConvert: {
      ASSIGN_OR_RETURN(llvm::Value * x, EmitElement(hlo->operand(0), index));
      return EmitConvert(hlo->operand(0)->shape().element_type(), type, x);
    }
    case HloOpcode::kCompare: {
      ASSIGN_OR_RETURN(llvm::Value * a, EmitElement(hlo->operand(0), index));
      ASSIGN_OR_RETURN(llvm::Value * b, EmitElement(hlo->operand(1), index));
      return EmitCompare(*hlo, hlo->operand(0)->shape().element_type(), a, b);
    }
    case HloOpcode::kSelect: {
      const HloInstruction* pred = hlo->operand(0);
      ASSIGN_OR_RETURN(llvm::Value * p, EmitElement(pred, pred->shape().rank() == 0 ? IrIndex{} : index));
      ASSIGN_OR_RETURN(llvm::Value * t, EmitElement(hlo->operand(1), index));
      ASSIGN_OR_RETURN(llvm::Value * f, EmitElement(hlo->operand(2), index));
      return b_->CreateSelect(p, t, f);
    }
    case HloOpcode::kClamp: {
      const HloInstruction* lo_hlo = hlo->operand(0);
      const HloInstruction* hi_hlo = hlo->operand(2);
      ASSIGN_OR_RETURN(llvm::Value * lo, EmitElement(lo_hlo, lo_hlo->shape().rank() == 0 ? IrIndex{} : index));
      ASSIGN_OR_RETURN(llvm::Value * x, EmitElement(hlo->operand(1), index));
      ASSIGN_OR_RETURN(llvm::Value * hi, EmitElement(hi_hlo, hi_hlo->shape().rank() == 0 ? IrIndex{} : index));
      if (IsComplex(type)) {
        return InvalidArgument("CPU backend: %s: clamp is not defined for complex types", hlo->name());
      }
      if (IsFloat(type)) {
        llvm::Value* m = b_->CreateIntrinsic(llvm::Intrinsic::maximum, {x->getType()}, {x, lo});
        return b_->CreateIntrinsic(llvm::Intrinsic::minimum, {x->getType()}, {m, hi});
      }
      const bool s = IsSigned(type);
      llvm::Value* v = b_->CreateSelect(s ? b_->CreateICmpSGT(x, lo) : b_->CreateICmpUGT(x, lo), x, lo);
      return b_->CreateSelect(s ? b_->CreateICmpSLT(v, hi) : b_->CreateICmpULT(v, hi), v, hi);
    }
    case HloOpcode::kBroadcast: {
      IrIndex in(hlo->operand(0)->shape().rank());
      for (size_t i = 0; i < in.size(); ++i) in[i] = index[hlo->dimensions(i)];
      return EmitElement(hlo->operand(0), in);
    }
    case HloOpcode::kTranspose: {
      IrIndex in(shape.rank());
      for (int i = 0; i < shape.rank(); ++i) in[hlo->dimensions(i)] = index[i];
      return EmitElement(hlo->operand(0), in);
    }
    case HloOpcode::kSlice: {
      IrIndex in(shape.rank());
      for (int d = 0; d < shape.rank(); ++d) {
        const auto& sd = hlo->attributes().slice_dimensions(d);
        llvm::Value* v = sd.stride() == 1 ? index[d] : b_->CreateMul(index[d], b_->getInt64(sd.stride()), "", true, true);
        in[d] = sd.start() == 0 ? v : b_->CreateAdd(v, b_->getInt64(sd.start()), "", true, true);
      }
      return EmitElement(hlo->operand(0), in);
    }
    case HloOpcode::kReverse: {
      IrIndex in = index;
      for (int64_t d : hlo->dimensions()) in[d] = b_->CreateSub(b_->getInt64(shape.dimensions(d) - 1), index[d]);
      return EmitElement(hlo->operand(0), in);
    }
    case HloOpcode::kIota: {
      if (type == PRED) return NotImplemented(*hlo, "iota on pred");
      return EmitConvert(S64, type, index[hlo->dimensions(0)]);
    }
    case HloOpcode::kReshape: return EmitReshapeElement(hlo, index);
    case HloOpcode::kConcatenate: return EmitConcatenateElement(hlo, index);
    case HloOpcode::kPad: return EmitPadElement(hlo, index);
    case HloOpcode::kReduce: return EmitReduceElement(hlo, index);
    case HloOpcode::kReduceWindow: return EmitReduceWindowElement(hlo, index);
    case HloOpcode::kDot: return EmitDotElement(hlo, index);
    case HloOpcode::kConvolution: return EmitConvolutionElement(hlo, index);
    case HloOpcode::kGather: return EmitGatherElement(hlo, index);
    case HloOpcode::kDynamicSlice: {
      const Shape& in = hlo->operand(0)->shape();
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts, EmitClampedStarts(*hlo, 1, in, shape.dimensions()));
      IrIndex in_index(shape.rank());
      for (int d = 0; d < shape.rank(); ++d) in_index[d] = b_->CreateAdd(index[d], starts[d], "", true, true);
      return EmitElement(hlo->operand(0), in_index);
    }
    case HloOpcode::kBitcastConvert: return EmitBitcastConvertElement(hlo, index);
    case HloOpcode::kMap: {
      const HloComputation* fn = hlo->to_apply();
      if (fn == nullptr || fn->num_parameters() != hlo->operand_count() || hlo->operand_count() == 0) {
        return InvalidArgument("CPU backend: %s: map needs one scalar parameter per operand", hlo->name());
      }
      std::vector<llvm::Value*> args;
      for (int i = 0; i < hlo->operand_count(); ++i) {
        const Shape& os = hlo->operand(i)->shape();
        const Shape& ps = fn->parameter_instruction(i)->shape();
        if (os.dimensions() != shape.dimensions() || !ShapeUtil::IsScalar(ps) || ps.element_type() != os.element_type()) {
          return InvalidArgument("CPU backend: %s: map operand %d does not match", hlo->name(), i);
        }
        ASSIGN_OR_RETURN(llvm::Value * x, EmitElement(hlo->operand(i), index));
        args.push_back(x);
      }
      if (!ShapeUtil::IsScalar(fn->root_instruction()->shape()) ||
          fn->root_instruction()->shape().element_type() != type) {
        return InvalidArgument("CPU backend: %s: map computation result does not match", hlo->name());
      }
      return EmitScalarComputation(*fn, args, /*reassociate=*/false);
    }
    default: break;
  }
  if (IsElementwiseUnary(op) || op == HloOpcode::kCopy) {
    const PrimitiveType in_type = hlo->operand(0)->shape().element_type();
    if (in_type != type && op != HloOpcode::kIsFinite && !IsComplexToReal(op, in_type)) {
      return OpNotImplemented(*hlo, in_type);
    }
    ASSIGN_OR_RETURN(llvm::Value * x, EmitElement(hlo->operand(0), index));
    return EmitUnaryOp(*hlo, in_type, x);
  }
  if (IsElementwiseBinary(op)) {
    ASSIGN_OR_RETURN(llvm::Value * a, EmitElement(hlo->operand(0), index));
    ASSIGN_OR_RETURN(llvm::Value * b, EmitElement(hlo->operand(1), index));
    if (op == HloOpcode::kComplex) return EmitComplexFromParts(*hlo, a, b);
    return EmitBinaryOp(*hlo, type, a, b);
  }
  return NotImplemented(*hlo, HloOpcodeString(op));
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalIrEmitter::EmitClampedStarts(const HloInstruction& hlo,
                                                                             int64_t first, const Shape& operand,
                                                                             absl::Span<const int64_t> sizes) {
  const int64_t rank = operand.rank();
  const int64_t n = hlo.operand_count() - first;
  // One start operand per dimension, or (as the evaluator also accepts) one
  // rank-1 vector of them.
  const bool vector = n == 1 && rank != 0 && hlo.operand(first)->shape().IsArray() &&
                      hlo.operand(first)->shape().rank() == 1;
  if (!vector && n != rank) return InvalidArgument("CPU backend: %s: expected %d start indices", hlo.name(), rank);
  std::vector<llvm::Value*> starts(rank);
  for (int64_t d = 0; d < rank; ++d) {
    const HloInstruction* s = hlo.operand(vector ? first : first + d);
    const PrimitiveType t = s->shape().element_type();
    if (!IsInt(t) || s->shape().rank() != (vector ? 1 : 0)) {
      return InvalidArgument("CPU backend: %s: start index %s is not an integral scalar", hlo.name(),
                             s->shape().ToString());
    }
    ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(s, vector ? IrIndex{b_->getInt64(d)} : IrIndex{}));
    starts[d] = EmitClampedIndex(v, t, operand.dimensions(d) - sizes[d]);
  }
  return starts;
}

llvm::Value* ElementalIrEmitter::EmitClampedIndex(llvm::Value* v, PrimitiveType type, int64_t hi) {
  if (type == U64) {
    // Values above INT64_MAX read as INT64_MAX (ReadIndexScalar).
    v = b_->CreateSelect(b_->CreateICmpSLT(v, b_->getInt64(0)), b_->getInt64(INT64_MAX), v);
  } else {
    v = b_->CreateIntCast(v, b_->getInt64Ty(), IsSigned(type));
  }
  v = b_->CreateSelect(b_->CreateICmpSLT(v, b_->getInt64(hi)), v, b_->getInt64(hi));
  return b_->CreateSelect(b_->CreateICmpSGT(v, b_->getInt64(0)), v, b_->getInt64(0));
}

llvm::Value* ElementalIrEmitter::ToBits(PrimitiveType type, llvm::Value* v) {
  if (IsComplex(type)) return ComplexIrEmitter(b_, module_).ToBits(v);
  switch (type) {
    case PRED: return b_->CreateZExt(v, b_->getInt8Ty());
    case F32: return b_->CreateBitCast(v, b_->getInt32Ty());
    case F64: return b_->CreateBitCast(v, b_->getInt64Ty());
    case F16: return b_->CreateBitCast(b_->CreateFPTrunc(v, b_->getHalfTy()), b_->getInt16Ty());
    case BF16: return b_->CreateTrunc(b_->CreateLShr(b_->CreateBitCast(v, b_->getInt32Ty()), 16), b_->getInt16Ty());
    default: return v;
  }
}

llvm::Value* ElementalIrEmitter::FromBits(PrimitiveType type, llvm::Value* bits) {
  if (IsComplex(type)) return ComplexIrEmitter(b_, module_).FromBits(type, bits);
  switch (type) {
    case PRED: return b_->CreateICmpNE(bits, b_->getInt8(0));
    case F32: return b_->CreateBitCast(bits, b_->getFloatTy());
    case F64: return b_->CreateBitCast(bits, b_->getDoubleTy());
    case F16: return b_->CreateFPExt(b_->CreateBitCast(bits, b_->getHalfTy()), b_->getFloatTy());
    case BF16: return b_->CreateBitCast(b_->CreateShl(b_->CreateZExt(bits, b_->getInt32Ty()), 16), b_->getFloatTy());
    default: return bits;
  }
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitBitcastConvertElement(const HloInstruction* hlo,
                                                                           const IrIndex& index) {
  const HloInstruction* operand = hlo->operand(0);
  const PrimitiveType from = operand->shape().element_type(), to = hlo->shape().element_type();
  const int wi = primitive_util::ByteWidth(from), wo = primitive_util::ByteWidth(to);
  // The bits of the operand at `in`: straight from its buffer when it has
  // one (exact even for NaN payloads), else from the generated value.
  auto bits_at = [&](const IrIndex& in) -> absl::StatusOr<llvm::Value*> {
    if (llvm::Value* buffer = buffers_(operand)) {
      llvm::Type* storage = IrStorageType(from, b_->getContext());
      llvm::Value* ptr = b_->CreateInBoundsGEP(storage, buffer, {LinearIndex(operand->shape(), in)});
      return b_->CreateLoad(b_->getIntNTy(8 * wi), ptr);
    }
    ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(operand, in));
    return ToBits(from, v);
  };
  llvm::Type* out_int = b_->getIntNTy(8 * wo);
  if (wi == wo) {
    ASSIGN_OR_RETURN(llvm::Value * bits, bits_at(index));
    return FromBits(to, bits);
  }
  if (wo > wi) {
    // The minor operand dimension (of size wo/wi) is gathered, little-endian.
    const int64_t k = wo / wi;
    if (operand->shape().rank() != hlo->shape().rank() + 1 || operand->shape().dimensions().back() != k) {
      return InvalidArgument("CPU backend: %s: bad bitcast-convert shapes", hlo->name());
    }
    llvm::Value* acc = llvm::ConstantInt::get(out_int, 0);
    IrIndex in = index;
    in.push_back(nullptr);
    for (int64_t j = 0; j < k; ++j) {
      in.back() = b_->getInt64(j);
      ASSIGN_OR_RETURN(llvm::Value * bits, bits_at(in));
      llvm::Value* part = b_->CreateShl(b_->CreateZExt(bits, out_int), 8 * wi * j);
      acc = b_->CreateOr(acc, part);
    }
    return FromBits(to, acc);
  }
  // Narrower: the result's minor dimension picks a piece, little-endian.
  if (hlo->shape().rank() != operand->shape().rank() + 1) {
    return InvalidArgument("CPU backend: %s: bad bitcast-convert shapes", hlo->name());
  }
  IrIndex in(index.begin(), index.end() - 1);
  ASSIGN_OR_RETURN(llvm::Value * bits, bits_at(in));
  llvm::Value* shift = b_->CreateMul(index.back(), b_->getInt64(8 * wo));
  llvm::Value* piece = b_->CreateLShr(bits, b_->CreateZExtOrTrunc(shift, bits->getType()));
  return FromBits(to, b_->CreateTrunc(piece, out_int));
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitReshapeElement(const HloInstruction* hlo, const IrIndex& index) {
  const Shape& out = hlo->shape();
  const Shape& in = hlo->operand(0)->shape();
  // Each input dimension a run of consecutive output dimensions (size-1
  // dimensions added or removed, a dimension split in several, as reduction
  // splitting does): its index from the run by multiply-adds, no division.
  IrIndex in_index(in.rank(), b_->getInt64(0));
  bool splits_only = true;
  int o = 0;
  for (int d = 0; splits_only && d < in.rank(); ++d) {
    const int64_t size = in.dimensions(d);
    int64_t covered = 1;
    llvm::Value* v = b_->getInt64(0);
    while (splits_only && o < out.rank() && (covered < size || out.dimensions(o) == 1)) {
      const int64_t next = out.dimensions(o);
      splits_only = next == 1 || covered * next <= size;
      if (next != 1) v = b_->CreateAdd(b_->CreateMul(v, b_->getInt64(next), "", true, true), index[o], "", true, true);
      covered *= next;
      ++o;
    }
    splits_only = splits_only && covered == size && size != 0;
    in_index[d] = v;
  }
  for (; splits_only && o < out.rank(); ++o) splits_only = out.dimensions(o) == 1;
  if (splits_only) return EmitElement(hlo->operand(0), in_index);
  // General case: through the row-major linear position.
  in_index.assign(in.rank(), b_->getInt64(0));
  llvm::Value* linear = b_->getInt64(0);
  for (int d = 0; d < out.rank(); ++d) {
    linear = b_->CreateAdd(b_->CreateMul(linear, b_->getInt64(out.dimensions(d)), "", true, true), index[d], "",
                           true, true);
  }
  for (int d = in.rank() - 1; d >= 0; --d) {
    llvm::Value* size = b_->getInt64(in.dimensions(d));
    in_index[d] = b_->CreateURem(linear, size);
    linear = b_->CreateUDiv(linear, size);
  }
  return EmitElement(hlo->operand(0), in_index);
}

LoopPieces ConcatenatePieces(const HloInstruction& hlo) {
  LoopPieces pieces;
  if (hlo.opcode() != HloOpcode::kConcatenate) return pieces;
  pieces.dim = hlo.dimensions(0);
  pieces.starts.push_back(0);
  for (const HloInstruction* operand : hlo.operands()) {
    pieces.starts.push_back(pieces.starts.back() + operand->shape().dimensions(pieces.dim));
  }
  return pieces;
}

const HloInstruction* ElementalIrEmitter::SplittingConcatenate(const HloInstruction* hlo) {
  if (hlo->opcode() == HloOpcode::kConcatenate) return hlo;
  if (!IsElementwise(hlo->opcode())) return nullptr;
  for (const HloInstruction* operand : hlo->operands()) {
    if (buffers_(operand) != nullptr || !ShapeUtil::SameDimensions(operand->shape(), hlo->shape())) continue;
    if (const HloInstruction* concat = SplittingConcatenate(operand)) return concat;
  }
  return nullptr;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitConcatenateElement(const HloInstruction* hlo,
                                                                        const IrIndex& index) {
  const int64_t dim = hlo->dimensions(0);
  if (hlo == piece_concat_ && index[dim] == piece_iv_) {
    const LoopPieces pieces = ConcatenatePieces(*hlo);
    IrIndex in = index;
    in[dim] = b_->CreateSub(index[dim], b_->getInt64(pieces.starts[piece_]), "", true, true);
    return EmitElement(hlo->operand(piece_), in);
  }
  llvm::Function* fn = b_->GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b_->getContext();
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx, "concat.merge", fn);
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> incoming;
  int64_t offset = 0;
  for (int64_t i = 0; i < hlo->operand_count(); ++i) {
    const HloInstruction* operand = hlo->operand(i);
    const int64_t size = operand->shape().dimensions(dim);
    const bool last = i + 1 == hlo->operand_count();
    llvm::BasicBlock* next = nullptr;
    if (!last) {
      llvm::BasicBlock* here = llvm::BasicBlock::Create(ctx, "concat.operand", fn);
      next = llvm::BasicBlock::Create(ctx, "concat.next", fn);
      b_->CreateCondBr(b_->CreateICmpSLT(index[dim], b_->getInt64(offset + size)), here, next);
      b_->SetInsertPoint(here);
    }
    IrIndex in = index;
    in[dim] = b_->CreateSub(index[dim], b_->getInt64(offset));
    ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(operand, in));
    incoming.push_back({v, b_->GetInsertBlock()});
    b_->CreateBr(merge);
    if (!last) b_->SetInsertPoint(next);
    offset += size;
  }
  b_->SetInsertPoint(merge);
  llvm::PHINode* phi = b_->CreatePHI(IrValueType(hlo->shape().element_type(), ctx), incoming.size());
  for (auto& [v, bb] : incoming) phi->addIncoming(v, bb);
  return phi;
}

bool ElementalIrEmitter::ReadsOnlyBuffers(const HloInstruction* hlo) {
  while (buffers_(hlo) == nullptr) {
    switch (hlo->opcode()) {
      case HloOpcode::kSlice: case HloOpcode::kTranspose: case HloOpcode::kReshape: case HloOpcode::kBroadcast:
      case HloOpcode::kConvert: case HloOpcode::kCopy: case HloOpcode::kReverse:
        hlo = hlo->operand(0);
        break;
      default:
        return false;
    }
  }
  return true;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitPadElement(const HloInstruction* hlo, const IrIndex& index) {
  const Shape& in_shape = hlo->operand(0)->shape();
  const auto& config = hlo->attributes().padding_config().dimensions();
  llvm::Value* inside = b_->getTrue();
  IrIndex in(in_shape.rank());
  for (int d = 0; d < in_shape.rank(); ++d) {
    const int64_t step = config[d].interior_padding() + 1;
    llvm::Value* t = b_->CreateSub(index[d], b_->getInt64(config[d].edge_padding_low()));
    inside = b_->CreateAnd(inside, b_->CreateICmpSGE(t, b_->getInt64(0)));
    if (step != 1) {
      inside = b_->CreateAnd(inside, b_->CreateICmpEQ(b_->CreateSRem(t, b_->getInt64(step)), b_->getInt64(0)));
      t = b_->CreateSDiv(t, b_->getInt64(step));
    }
    inside = b_->CreateAnd(inside, b_->CreateICmpSLT(t, b_->getInt64(in_shape.dimensions(d))));
    in[d] = t;
  }
  if (ReadsOnlyBuffers(hlo->operand(0)) && !ShapeUtil::HasZeroElements(in_shape)) {
    // Branch-free, so the loop around it vectorizes: the operand read at an
    // index clamped into range (loads from buffers cannot fault or cost
    // much), then the padding value selected outside.
    for (int d = 0; d < in_shape.rank(); ++d) {
      llvm::Value* low = b_->CreateSelect(b_->CreateICmpSGT(in[d], b_->getInt64(0)), in[d], b_->getInt64(0));
      const int64_t last = in_shape.dimensions(d) - 1;
      in[d] = b_->CreateSelect(b_->CreateICmpSLT(low, b_->getInt64(last)), low, b_->getInt64(last));
    }
    ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(hlo->operand(0), in));
    ASSIGN_OR_RETURN(llvm::Value * p, EmitElement(hlo->operand(1), {}));
    return b_->CreateSelect(inside, v, p);
  }
  llvm::Function* fn = b_->GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b_->getContext();
  llvm::BasicBlock* in_bb = llvm::BasicBlock::Create(ctx, "pad.operand", fn);
  llvm::BasicBlock* out_bb = llvm::BasicBlock::Create(ctx, "pad.value", fn);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx, "pad.merge", fn);
  b_->CreateCondBr(inside, in_bb, out_bb);
  b_->SetInsertPoint(in_bb);
  ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(hlo->operand(0), in));
  llvm::BasicBlock* v_end = b_->GetInsertBlock();
  b_->CreateBr(merge);
  b_->SetInsertPoint(out_bb);
  ASSIGN_OR_RETURN(llvm::Value * p, EmitElement(hlo->operand(1), {}));
  llvm::BasicBlock* p_end = b_->GetInsertBlock();
  b_->CreateBr(merge);
  b_->SetInsertPoint(merge);
  llvm::PHINode* phi = b_->CreatePHI(v->getType(), 2);
  phi->addIncoming(v, v_end);
  phi->addIncoming(p, p_end);
  return phi;
}

namespace {

// True when `computation` is a single float add/multiply of its two
// parameters: its reduction may then be reassociated (vector accumulators).
bool IsReassociableReducer(const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr || computation.num_parameters() != 2) return false;
  if (root->opcode() != HloOpcode::kAdd && root->opcode() != HloOpcode::kMultiply) return false;
  return root->operand(0)->opcode() == HloOpcode::kParameter && root->operand(1)->opcode() == HloOpcode::kParameter;
}

}  // namespace

absl::StatusOr<std::vector<llvm::Value*>> ElementalIrEmitter::EmitVariadicReduceElement(const HloInstruction* hlo,
                                                                                      const IrIndex& index) {
  const int64_t n = hlo->operand_count() / 2;
  if (n < 1 || hlo->operand_count() != 2 * n) return NotImplemented(*hlo, "reduce with an odd operand count");
  const Shape& in_shape = hlo->operand(0)->shape();
  std::vector<bool> reduced(in_shape.rank(), false);
  for (int64_t d : hlo->dimensions()) reduced[d] = true;
  std::vector<int64_t> red_sizes;
  for (int d = 0; d < in_shape.rank(); ++d) {
    if (reduced[d]) red_sizes.push_back(in_shape.dimensions(d));
  }
  std::vector<llvm::AllocaInst*> accs;
  for (int64_t i = 0; i < n; ++i) {
    const PrimitiveType type = hlo->operand(i)->shape().element_type();
    ASSIGN_OR_RETURN(llvm::Value * init, EmitElement(hlo->operand(n + i), {}));
    accs.push_back(EntryAlloca(IrValueType(type, b_->getContext()), absl::StrCat("reduce.acc", i)));
    b_->CreateStore(init, accs.back());
  }
  // Row-major order over the reduced dimensions, as the evaluator folds.
  std::vector<int64_t> order(red_sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;
  RETURN_IF_ERROR(EmitLoopNest(b_, red_sizes, order, "reduce.inner", [&](const IrIndex& red) -> absl::Status {
    IrIndex full(in_shape.rank());
    size_t kept = 0, r = 0;
    for (int d = 0; d < in_shape.rank(); ++d) full[d] = reduced[d] ? red[r++] : index[kept++];
    std::vector<llvm::Value*> args(2 * n);
    for (int64_t i = 0; i < n; ++i) {
      args[i] = b_->CreateLoad(accs[i]->getAllocatedType(), accs[i]);
      ASSIGN_OR_RETURN(args[n + i], EmitElement(hlo->operand(i), full));
    }
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> v, EmitScalarComputationValues(*hlo->to_apply(), args, false));
    if (static_cast<int64_t>(v.size()) != n) return NotImplemented(*hlo, "reducer not returning N values");
    for (int64_t i = 0; i < n; ++i) b_->CreateStore(v[i], accs[i]);
    return absl::OkStatus();
  }));
  std::vector<llvm::Value*> out;
  for (llvm::AllocaInst* acc : accs) out.push_back(b_->CreateLoad(acc->getAllocatedType(), acc));
  return out;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitReduceElement(const HloInstruction* hlo, const IrIndex& index) {
  if (hlo->operand_count() != 2) return NotImplemented(*hlo, "variadic reduce as a fused value");
  const HloInstruction* operand = hlo->operand(0);
  const Shape& in_shape = operand->shape();
  const PrimitiveType type = hlo->shape().element_type();
  std::vector<bool> reduced(in_shape.rank(), false);
  for (int64_t d : hlo->dimensions()) reduced[d] = true;
  std::vector<int64_t> red_dims, red_sizes;
  for (int d = 0; d < in_shape.rank(); ++d) {
    if (reduced[d]) {
      red_dims.push_back(d);
      red_sizes.push_back(in_shape.dimensions(d));
    }
  }
  ASSIGN_OR_RETURN(llvm::Value * init, EmitElement(hlo->operand(1), {}));
  llvm::AllocaInst* acc = EntryAlloca(IrValueType(type, b_->getContext()), "reduce.acc");
  b_->CreateStore(init, acc);
  // Row-major order over the reduced dimensions, as the evaluator folds.
  std::vector<int64_t> order(red_dims.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;
  const bool reassociate = IsFloat(type) && !IsSmallFloat(type) && IsReassociableReducer(*hlo->to_apply());
  RETURN_IF_ERROR(EmitLoopNest(b_, red_sizes, order, "reduce.inner", [&](const IrIndex& red) -> absl::Status {
    IrIndex full(in_shape.rank());
    size_t kept = 0, r = 0;
    for (int d = 0; d < in_shape.rank(); ++d) full[d] = reduced[d] ? red[r++] : index[kept++];
    ASSIGN_OR_RETURN(llvm::Value * x, EmitElement(operand, full));
    llvm::Value* a = b_->CreateLoad(acc->getAllocatedType(), acc);
    ASSIGN_OR_RETURN(llvm::Value * v, EmitScalarComputation(*hlo->to_apply(), {a, x}, reassociate));
    b_->CreateStore(v, acc);
    return absl::OkStatus();
  }));
  return b_->CreateLoad(acc->getAllocatedType(), acc);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitReduceWindowElement(const HloInstruction* hlo,
                                                                         const IrIndex& index) {
  if (hlo->operand_count() != 2) return NotImplemented(*hlo, "variadic reduce-window as a fused value");
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> v, EmitVariadicReduceWindowElement(hlo, index));
  return v.at(0);
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalIrEmitter::EmitVariadicReduceWindowElement(
    const HloInstruction* hlo, const IrIndex& index) {
  const int64_t n = hlo->operand_count() / 2;
  const Shape& in_shape = hlo->operand(0)->shape();
  const Window& window = hlo->attributes().window();
  const int64_t rank = in_shape.rank();
  std::vector<int64_t> sizes(rank), order(rank);
  for (int64_t d = 0; d < rank; ++d) {
    sizes[d] = window.dimensions(d).size();
    order[d] = rank - 1 - d;
  }
  std::vector<llvm::Value*> inits(n);
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(inits[i], EmitElement(hlo->operand(n + i), {}));
  }
  const bool empty = ShapeUtil::HasZeroElements(in_shape);
  // Folds the operands at window position `k` into `acc`. Row-major over
  // the window, as the evaluator folds; padding and base dilation holes hold
  // the init values. The operands are read at an index clamped into range
  // and replaced outside, so there are no branches.
  auto fold = [&](const IrIndex& k, std::vector<llvm::Value*>& acc) -> absl::Status {
    llvm::Value* inside = b_->getTrue();
    IrIndex in(rank);
    for (int64_t d = 0; d < rank; ++d) {
      const WindowDimension& w = window.dimensions(d);
      llvm::Value* pos = b_->CreateAdd(
          b_->CreateMul(index[d], b_->getInt64(w.stride())),
          b_->CreateSub(b_->CreateMul(k[d], b_->getInt64(w.window_dilation())), b_->getInt64(w.padding_low())));
      inside = b_->CreateAnd(inside, b_->CreateICmpSGE(pos, b_->getInt64(0)));
      if (w.base_dilation() > 1) {
        inside = b_->CreateAnd(inside, b_->CreateICmpEQ(b_->CreateSRem(pos, b_->getInt64(w.base_dilation())),
                                                        b_->getInt64(0)));
        pos = b_->CreateSDiv(pos, b_->getInt64(w.base_dilation()));
      }
      const int64_t last = in_shape.dimensions(d) - 1;
      inside = b_->CreateAnd(inside, b_->CreateICmpSLE(pos, b_->getInt64(last)));
      llvm::Value* low = b_->CreateSelect(b_->CreateICmpSGT(pos, b_->getInt64(0)), pos, b_->getInt64(0));
      in[d] = b_->CreateSelect(b_->CreateICmpSLT(low, b_->getInt64(last)), low, b_->getInt64(last));
    }
    std::vector<llvm::Value*> args(2 * n);
    for (int64_t i = 0; i < n; ++i) {
      args[i] = acc[i];
      args[n + i] = inits[i];
      if (!empty) {
        ASSIGN_OR_RETURN(llvm::Value * loaded, EmitElement(hlo->operand(i), in));
        args[n + i] = b_->CreateSelect(inside, loaded, inits[i]);
      }
    }
    ASSIGN_OR_RETURN(acc, EmitScalarComputationValues(*hlo->to_apply(), args, /*reassociate=*/false));
    if (static_cast<int64_t>(acc.size()) != n) return Internal("CPU backend: %s: reducer arity mismatch", hlo->name());
    return absl::OkStatus();
  };
  int64_t positions = 1;
  for (int64_t size : sizes) positions *= size;
  if (positions <= kMaxStraightLineWindowPositions) {
    // Small windows (pooling's 3x3) straight-line: the loop around the
    // element, over the features, is then innermost and vectorizes (a loop
    // over the window there kept it scalar: 3x3/2 max pooling of
    // [8,112,112,64] took 12 ms).
    std::vector<llvm::Value*> acc = inits;
    std::vector<int64_t> k(rank, 0);
    for (int64_t p = 0; p < positions; ++p) {
      IrIndex k_index(rank);
      for (int64_t d = 0; d < rank; ++d) k_index[d] = b_->getInt64(k[d]);
      RETURN_IF_ERROR(fold(k_index, acc));
      for (int64_t d = rank - 1; d >= 0 && ++k[d] == sizes[d]; --d) k[d] = 0;  // row-major successor
    }
    return acc;
  }
  std::vector<llvm::AllocaInst*> accs(n);
  for (int64_t i = 0; i < n; ++i) {
    accs[i] = EntryAlloca(inits[i]->getType(), "window.acc");
    b_->CreateStore(inits[i], accs[i]);
  }
  RETURN_IF_ERROR(EmitLoopNest(b_, sizes, order, "window", [&](const IrIndex& k) -> absl::Status {
    std::vector<llvm::Value*> acc(n);
    for (int64_t i = 0; i < n; ++i) acc[i] = b_->CreateLoad(accs[i]->getAllocatedType(), accs[i]);
    RETURN_IF_ERROR(fold(k, acc));
    for (int64_t i = 0; i < n; ++i) b_->CreateStore(acc[i], accs[i]);
    return absl::OkStatus();
  }));
  std::vector<llvm::Value*> out(n);
  for (int64_t i = 0; i < n; ++i) out[i] = b_->CreateLoad(accs[i]->getAllocatedType(), accs[i]);
  return out;
}

llvm::Value* ElementalIrEmitter::MultiplyAdd(PrimitiveType type, llvm::Value* acc, llvm::Value* l, llvm::Value* r) {
  if (type == PRED) return b_->CreateOr(acc, b_->CreateAnd(l, r));
  if (IsComplex(type)) {
    ComplexIrEmitter complex(b_, module_);
    return complex.Add(acc, complex.Multiply(type, l, r));
  }
  if (IsFloat(type)) return b_->CreateFAdd(acc, b_->CreateFMul(l, r));
  return b_->CreateAdd(acc, b_->CreateMul(l, r));
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitDotElement(const HloInstruction* hlo, const IrIndex& index) {
  const auto& dnums = hlo->attributes().dot_dimension_numbers();
  const HloInstruction* lhs = hlo->operand(0);
  const HloInstruction* rhs = hlo->operand(1);
  const PrimitiveType type = hlo->shape().element_type();
  const std::vector<int64_t> lhs_free =
      DotFreeDimensions(lhs->shape().rank(), dnums.lhs_batch_dimensions(), dnums.lhs_contracting_dimensions());
  const std::vector<int64_t> rhs_free =
      DotFreeDimensions(rhs->shape().rank(), dnums.rhs_batch_dimensions(), dnums.rhs_contracting_dimensions());
  const int nb = dnums.lhs_batch_dimensions_size();
  const int nc = dnums.lhs_contracting_dimensions_size();
  IrIndex li(lhs->shape().rank()), ri(rhs->shape().rank());
  for (int i = 0; i < nb; ++i) {
    li[dnums.lhs_batch_dimensions(i)] = index[i];
    ri[dnums.rhs_batch_dimensions(i)] = index[i];
  }
  for (size_t i = 0; i < lhs_free.size(); ++i) li[lhs_free[i]] = index[nb + i];
  for (size_t i = 0; i < rhs_free.size(); ++i) ri[rhs_free[i]] = index[nb + lhs_free.size() + i];
  std::vector<int64_t> sizes(nc), order(nc);
  for (int i = 0; i < nc; ++i) {
    sizes[i] = lhs->shape().dimensions(dnums.lhs_contracting_dimensions(i));
    order[i] = nc - 1 - i;
  }
  llvm::AllocaInst* acc = EntryAlloca(IrValueType(type, b_->getContext()), "dot.acc");
  b_->CreateStore(Zero(type), acc);
  RETURN_IF_ERROR(EmitLoopNest(b_, sizes, order, "dot.k", [&](const IrIndex& k) -> absl::Status {
    for (int i = 0; i < nc; ++i) {
      li[dnums.lhs_contracting_dimensions(i)] = k[i];
      ri[dnums.rhs_contracting_dimensions(i)] = k[i];
    }
    ASSIGN_OR_RETURN(llvm::Value * l, EmitElement(lhs, li));
    ASSIGN_OR_RETURN(llvm::Value * r, EmitElement(rhs, ri));
    l = EmitConvert(lhs->shape().element_type(), type, l);
    r = EmitConvert(rhs->shape().element_type(), type, r);
    // The sum (only) of real floats may be reassociated, so LLVM vectorizes
    // it (the runtime's products sum in their own order too); integer sums
    // are exact in any order anyway.
    llvm::IRBuilder<>::FastMathFlagGuard keep_flags(*b_);
    if (IsFloat(type)) {
      llvm::FastMathFlags reassociate;
      reassociate.setAllowReassoc();
      b_->setFastMathFlags(reassociate);
    }
    b_->CreateStore(MultiplyAdd(type, b_->CreateLoad(acc->getAllocatedType(), acc), l, r), acc);
    return absl::OkStatus();
  }));
  return b_->CreateLoad(acc->getAllocatedType(), acc);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitGatherElement(const HloInstruction* hlo, const IrIndex& index) {
  const HloInstruction* operand = hlo->operand(0);
  const HloInstruction* indices = hlo->operand(1);
  const Shape& in_shape = operand->shape();
  const Shape& idx_shape = indices->shape();
  const GatherDimensionNumbers& dnums = hlo->attributes().gather_dimension_numbers();
  const auto& slice_sizes = hlo->attributes().gather_slice_sizes();
  const PrimitiveType idx_type = idx_shape.element_type();
  const int64_t ivd = dnums.index_vector_dim();
  if (!IsInt(idx_type) || slice_sizes.size() != in_shape.rank() || ivd < 0 || ivd > idx_shape.rank()) {
    return InvalidArgument("CPU backend: %s: malformed gather", hlo->name());
  }
  // Result dimensions split into offsets within the slice (walking the
  // operand's dimensions that are neither collapsed nor batching, in order)
  // and batch coordinates into start_indices (all its dimensions but ivd).
  std::vector<bool> is_offset(hlo->shape().rank(), false);
  for (int64_t d : dnums.offset_dims()) is_offset[d] = true;
  IrIndex in(in_shape.rank(), b_->getInt64(0)), idx_index(idx_shape.rank());
  int64_t next_idx_dim = 0, next_operand_dim = 0;
  auto skipped = [&](int64_t d) {
    return absl::c_linear_search(dnums.collapsed_slice_dims(), d) ||
           absl::c_linear_search(dnums.operand_batching_dims(), d);
  };
  for (int64_t d = 0; d < hlo->shape().rank(); ++d) {
    if (is_offset[d]) {
      while (skipped(next_operand_dim)) ++next_operand_dim;
      in[next_operand_dim++] = index[d];
    } else {
      if (next_idx_dim == ivd) ++next_idx_dim;
      idx_index[next_idx_dim++] = index[d];
    }
  }
  const int64_t vector_size = ivd == idx_shape.rank() ? 1 : idx_shape.dimensions(ivd);
  for (int64_t k = 0; k < vector_size; ++k) {
    if (ivd < idx_shape.rank()) idx_index[ivd] = b_->getInt64(k);
    ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(indices, idx_index));
    const int64_t d = dnums.start_index_map(k);
    in[d] = b_->CreateAdd(in[d], EmitClampedIndex(v, idx_type, in_shape.dimensions(d) - slice_sizes[d]), "", true,
                          true);
  }
  for (int i = 0; i < dnums.operand_batching_dims_size(); ++i) {
    in[dnums.operand_batching_dims(i)] = idx_index[dnums.start_indices_batching_dims(i)];
  }
  return EmitElement(operand, in);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitConvolutionElement(const HloInstruction* hlo,
                                                                        const IrIndex& index) {
  const HloInstruction* lhs = hlo->operand(0);
  const HloInstruction* rhs = hlo->operand(1);
  const PrimitiveType type = hlo->shape().element_type();
  const HloInstructionProto& attrs = hlo->attributes();
  const ConvolutionDimensionNumbers& dnums = attrs.convolution_dimension_numbers();
  const int64_t spatial = dnums.input_spatial_dimensions_size();
  const int64_t fgc = std::max<int64_t>(attrs.feature_group_count(), 1);
  const int64_t bgc = std::max<int64_t>(attrs.batch_group_count(), 1);
  const int64_t kernel_in = rhs->shape().dimensions(dnums.kernel_input_feature_dimension());
  const int64_t kernel_out = rhs->shape().dimensions(dnums.kernel_output_feature_dimension());
  const int64_t batch_per_group = lhs->shape().dimensions(dnums.input_batch_dimension()) / bgc;

  // Output feature oz reads feature group oz / (kernel_out / fgc) and batch
  // group oz / (kernel_out / bgc), as the evaluator does.
  llvm::Value* oz = index[dnums.output_feature_dimension()];
  llvm::Value* feature_group = b_->CreateUDiv(oz, b_->getInt64(kernel_out / fgc));
  llvm::Value* batch_group = b_->CreateUDiv(oz, b_->getInt64(kernel_out / bgc));
  IrIndex li(lhs->shape().rank()), ri(rhs->shape().rank());
  li[dnums.input_batch_dimension()] = b_->CreateAdd(b_->CreateMul(batch_group, b_->getInt64(batch_per_group)),
                                                    index[dnums.output_batch_dimension()]);
  llvm::Value* feature_base = b_->CreateMul(feature_group, b_->getInt64(kernel_in));
  ri[dnums.kernel_output_feature_dimension()] = oz;

  std::vector<int64_t> sizes(spatial), order(spatial);
  for (int64_t i = 0; i < spatial; ++i) {
    sizes[i] = rhs->shape().dimensions(dnums.kernel_spatial_dimensions(i));
    order[i] = spatial - 1 - i;
  }
  // Padding and lhs-dilation holes read as zeros that still take part in
  // the products (0 x inf is NaN), as in the evaluator: the lhs index is
  // clamped into range and the loaded value replaced by zero outside.
  const bool empty_lhs = ShapeUtil::ElementsIn(lhs->shape()) == 0;
  llvm::AllocaInst* acc = EntryAlloca(IrValueType(type, b_->getContext()), "conv.acc");
  b_->CreateStore(Zero(type), acc);
  RETURN_IF_ERROR(EmitLoopNest(b_, sizes, order, "conv.k", [&](const IrIndex& k) -> absl::Status {
    llvm::Value* inside = b_->getTrue();
    for (int64_t i = 0; i < spatial; ++i) {
      const WindowDimension& w = attrs.window().dimensions(i);
      llvm::Value* pos = b_->CreateAdd(
          b_->CreateMul(index[dnums.output_spatial_dimensions(i)], b_->getInt64(w.stride())),
          b_->CreateSub(b_->CreateMul(k[i], b_->getInt64(w.window_dilation())), b_->getInt64(w.padding_low())));
      inside = b_->CreateAnd(inside, b_->CreateICmpSGE(pos, b_->getInt64(0)));
      if (w.base_dilation() > 1) {
        inside = b_->CreateAnd(inside, b_->CreateICmpEQ(b_->CreateSRem(pos, b_->getInt64(w.base_dilation())),
                                                        b_->getInt64(0)));
        pos = b_->CreateSDiv(pos, b_->getInt64(w.base_dilation()));
      }
      const int64_t in_size = lhs->shape().dimensions(dnums.input_spatial_dimensions(i));
      inside = b_->CreateAnd(inside, b_->CreateICmpSLT(pos, b_->getInt64(in_size)));
      llvm::Value* low = b_->CreateSelect(b_->CreateICmpSGT(pos, b_->getInt64(0)), pos, b_->getInt64(0));
      li[dnums.input_spatial_dimensions(i)] =
          b_->CreateSelect(b_->CreateICmpSLT(low, b_->getInt64(in_size - 1)), low, b_->getInt64(in_size - 1));
      ri[dnums.kernel_spatial_dimensions(i)] =
          w.window_reversal() ? b_->CreateSub(b_->getInt64(sizes[i] - 1), k[i]) : k[i];
    }
    return EmitForLoop(b_, kernel_in, "conv.iz", [&](llvm::Value* iz) -> absl::Status {
      li[dnums.input_feature_dimension()] = b_->CreateAdd(feature_base, iz);
      ri[dnums.kernel_input_feature_dimension()] = iz;
      llvm::Value* l = Zero(type);
      if (!empty_lhs) {
        ASSIGN_OR_RETURN(llvm::Value * loaded, EmitElement(lhs, li));
        l = b_->CreateSelect(inside, loaded, Zero(type));
      }
      ASSIGN_OR_RETURN(llvm::Value * r, EmitElement(rhs, ri));
      b_->CreateStore(MultiplyAdd(type, b_->CreateLoad(acc->getAllocatedType(), acc), l, r), acc);
      return absl::OkStatus();
    });
  }));
  return b_->CreateLoad(acc->getAllocatedType(), acc);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitScalarComputation(const HloComputation& computation,
                                                                      absl::Span<llvm::Value* const> args,
                                                                      bool reassociate) {
  if (computation.root_instruction()->shape().IsTuple()) {
    return NotImplemented(*computation.root_instruction(), "tuple root in a scalar computation");
  }
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> v, EmitScalarComputationValues(computation, args, reassociate));
  return v.at(0);
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalIrEmitter::EmitScalarComputationValues(
    const HloComputation& computation, absl::Span<llvm::Value* const> args, bool reassociate) {
  absl::flat_hash_map<const HloInstruction*, llvm::Value*> values;
  // Tuples inside the computation are plumbing: the tuple instruction each
  // tuple-shaped value stands for (get-tuple-element resolves through it).
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> tuple_of;
  const HloInstruction* root = computation.root_instruction();
  for (const HloInstruction* hlo : computation.instructions()) {
    const Shape& shape = hlo->shape();
    if (hlo == root && hlo->opcode() == HloOpcode::kTuple) continue;
    if (hlo->opcode() == HloOpcode::kTuple) {
      tuple_of[hlo] = hlo;
      continue;
    }
    if (hlo->opcode() == HloOpcode::kGetTupleElement) {
      auto it = tuple_of.find(hlo->operand(0));
      if (it == tuple_of.end() || hlo->tuple_index() < 0 || hlo->tuple_index() >= it->second->operand_count()) {
        return NotImplemented(*hlo, "get-tuple-element of this value in a reducer");
      }
      const HloInstruction* element = it->second->operand(hlo->tuple_index());
      if (element->shape().IsTuple()) {
        tuple_of[hlo] = tuple_of.at(element);
      } else {
        values[hlo] = values.at(element);
      }
      continue;
    }
    if (!ShapeUtil::IsScalar(shape)) return NotImplemented(*hlo, "non-scalar instruction in a reducer");
    RETURN_IF_ERROR(CheckSupportedElementType(shape.element_type(), *hlo));
    std::vector<llvm::Value*> ops;
    for (const HloInstruction* o : hlo->operands()) ops.push_back(values.at(o));
    const HloOpcode op = hlo->opcode();
    llvm::Value* v = nullptr;
    if (op == HloOpcode::kParameter) {
      v = args[hlo->parameter_number()];
    } else if (op == HloOpcode::kConstant) {
      v = EmitLiteralElement(hlo->literal(), 0);
    } else if (op == HloOpcode::kConvert) {
      v = EmitConvert(hlo->operand(0)->shape().element_type(), shape.element_type(), ops[0]);
    } else if (op == HloOpcode::kCompare) {
      ASSIGN_OR_RETURN(v, EmitCompare(*hlo, hlo->operand(0)->shape().element_type(), ops[0], ops[1]));
    } else if (op == HloOpcode::kSelect) {
      v = b_->CreateSelect(ops[0], ops[1], ops[2]);
    } else if (IsElementwiseUnary(op) || op == HloOpcode::kCopy) {
      if (hlo->operand(0)->shape().element_type() != shape.element_type() && op != HloOpcode::kIsFinite &&
          !IsComplexToReal(op, hlo->operand(0)->shape().element_type())) {
        return OpNotImplemented(*hlo, hlo->operand(0)->shape().element_type());
      }
      ASSIGN_OR_RETURN(v, EmitUnaryOp(*hlo, hlo->operand(0)->shape().element_type(), ops[0]));
    } else if (op == HloOpcode::kComplex) {
      ASSIGN_OR_RETURN(v, EmitComplexFromParts(*hlo, ops[0], ops[1]));
    } else if (IsElementwiseBinary(op)) {
      ASSIGN_OR_RETURN(v, EmitBinaryOp(*hlo, shape.element_type(), ops[0], ops[1], reassociate));
    } else {
      return NotImplemented(*hlo, absl::StrCat(HloOpcodeString(op), " in a reducer"));
    }
    values[hlo] = RoundToType(shape.element_type(), v);
  }
  std::vector<llvm::Value*> out;
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* o : root->operands()) {
      if (!o->shape().IsArray()) return NotImplemented(*root, "nested tuple root in a reducer");
      out.push_back(values.at(o));
    }
  } else {
    out.push_back(values.at(root));
  }
  return out;
}

}  // namespace cpu
}  // namespace xla
