// ElementalIrEmitter, elementwise scalar ops (elemental_ir_emitter.h):
// unary and binary arithmetic on pred, integers, floats (transcendentals as
// polynomial IR or libm calls) and complex values, compare, convert,
// complex(re, im), clamp, and bitcast-convert with the bit views of register
// values it reads and writes.
#include "backends/cpu/codegen/elemental_ir_emitter.h"

#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "backends/cpu/codegen/complex_ir_emitter.h"
#include "backends/cpu/codegen/elemental_ir_emitter_internal.h"
#include "backends/cpu/codegen/polynomial_math.h"
#include "backends/cpu/codegen/small_float_ir.h"
#include "backends/cpu/transforms/cpu_fusion.h"
#include "llvm/ADT/APInt.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Intrinsics.h"
#include "xla/primitive_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

using namespace elemental_internal;  // NOLINT: the elemental emitter's own helpers

namespace {

// x - broadcast(reduce(x, max) over some dimensions), broadcast back along
// them: every element is x minus a maximum that includes it, so <= 0 (or
// NaN). Softmax and log-softmax shift by the row max this way.
bool IsShiftedByItsMax(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kSubtract) return false;
  // Values are compared through fused parameters (cpu_fusion.h): x and the
  // max may be computed in other fusions.
  const HloInstruction* x = FusionOperandOf(hlo.operand(0));
  const HloInstruction* broadcast = FusionOperandOf(hlo.operand(1));
  if (broadcast->opcode() != HloOpcode::kBroadcast) return false;
  const HloInstruction* reduce = FusionOperandOf(broadcast->operand(0));
  if (reduce->opcode() != HloOpcode::kReduce || reduce->operand_count() != 2 ||
      FusionOperandOf(reduce->operand(0)) != x) {
    return false;
  }
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

// Float minimum/maximum as the evaluator's FloatMin/FloatMax: a NaN operand
// (the first one if both are) is the result, and -0 < +0. f32 and f64 use
// llvm.minimum/maximum. f16 values (computed in float, rounded through half)
// get compares and selects instead: InstCombine narrows
// fptrunc(llvm.minimum(fpext x, fpext y)) to llvm.minimum.f16, and LLVM 19's
// x86 lowering of a vector of those (the loop vectorizer makes them from
// f16 reduce-window and reduce loops; every target, v8f16 even without F16C)
// promotes the lanes to f32 and fixes signed zeros with an "== 0" test that
// also holds for NaN: minimum(NaN, -0) and maximum(NaN, +0) come out as the
// zero, in either operand order.
llvm::Value* EmitFloatMinMax(llvm::IRBuilderBase* b, PrimitiveType type, bool is_min, llvm::Value* x,
                             llvm::Value* y) {
  if (type != F16) {
    return b->CreateIntrinsic(is_min ? llvm::Intrinsic::minimum : llvm::Intrinsic::maximum, {x->getType()}, {x, y});
  }
  llvm::Value* r = b->CreateSelect(is_min ? b->CreateFCmpOLT(x, y) : b->CreateFCmpOGT(x, y), x, y);
  // Equal: the same bits, or zeros of either sign (-0 is the minimum).
  llvm::Type* bits_type = b->getIntNTy(x->getType()->getPrimitiveSizeInBits());
  llvm::Value* xb = b->CreateBitCast(x, bits_type);
  llvm::Value* yb = b->CreateBitCast(y, bits_type);
  llvm::Value* equal = b->CreateBitCast(is_min ? b->CreateOr(xb, yb) : b->CreateAnd(xb, yb), x->getType());
  r = b->CreateSelect(b->CreateFCmpOEQ(x, y), equal, r);
  r = b->CreateSelect(b->CreateFCmpUNO(y, y), y, r);
  return b->CreateSelect(b->CreateFCmpUNO(x, x), x, r);
}

}  // namespace

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
        if (IsNarrowInt(type)) {
          // Zeros above the top set bit within the value's width.
          const int width = primitive_util::BitWidth(type);
          llvm::Value* low = b_->CreateAnd(x, b_->getInt8((1u << width) - 1));
          llvm::Value* n = b_->CreateIntrinsic(llvm::Intrinsic::ctlz, {x->getType()}, {low, b_->getFalse()});
          return b_->CreateSub(n, b_->getInt8(8 - width));
        }
        return b_->CreateIntrinsic(llvm::Intrinsic::ctlz, {x->getType()}, {x, b_->getFalse()});
      case HloOpcode::kPopulationCount:
        if (IsNarrowInt(type)) {
          return Intrinsic1(llvm::Intrinsic::ctpop,
                            b_->CreateAnd(x, b_->getInt8((1u << primitive_util::BitWidth(type)) - 1)));
        }
        return Intrinsic1(llvm::Intrinsic::ctpop, x);
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
        // Narrow integers shift their i8 (wrapped afterwards, as in the
        // evaluator): a logical right shift sees only the value's bits, an
        // arithmetic one the value sign-extended from its top bit.
        if (IsNarrowInt(type) && op != HloOpcode::kShiftLeft) {
          llvm::Value* amount8 = b_->getInt8(8 - primitive_util::BitWidth(type));
          llvm::Value* high = b_->CreateShl(a, amount8);
          a = op == HloOpcode::kShiftRightLogical ? b_->CreateLShr(high, amount8) : b_->CreateAShr(high, amount8);
        }
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
    case HloOpcode::kMaximum: return EmitFloatMinMax(b_, type, /*is_min=*/false, a, b);
    case HloOpcode::kMinimum: return EmitFloatMinMax(b_, type, /*is_min=*/true, a, b);
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
  // the instruction's type (GenerateElement does). Values wider than a float
  // reach f16/bf16 through a float rounded to odd, so that rounding is the
  // only one, as in the evaluator (Literal::Convert): a plain float would
  // round twice (f64 0.39179...: 0.392 instead of f16 0.3918).
  // The f8/f6/f4 formats take integers through a float, as ml_dtypes (and
  // so the evaluator) does.
  const bool to_small_float = IsSmallFloat(to);
  const bool to_f16_or_bf16 = to == F16 || to == BF16;
  if (IsNarrowInt(to) && IsFloat(from)) {
    // Saturating to the narrow range (NaN -> 0): saturate to 8 bits, clamp.
    llvm::Value* v = EmitConvert(from, IsSigned(to) ? S8 : U8, x);
    const int width = primitive_util::BitWidth(to);
    if (IsSigned(to)) {
      v = b_->CreateIntrinsic(llvm::Intrinsic::smax, {v->getType()}, {v, b_->getInt8(-(1 << (width - 1)))});
      return b_->CreateIntrinsic(llvm::Intrinsic::smin, {v->getType()}, {v, b_->getInt8((1 << (width - 1)) - 1)});
    }
    return b_->CreateIntrinsic(llvm::Intrinsic::umin, {v->getType()}, {v, b_->getInt8((1 << width) - 1)});
  }
  from = RegisterType(from);
  to = RegisterType(to);
  if (to_small_float && from == F64) return RoundToOddFloat(x);
  if (to_f16_or_bf16 && IsInt(from) && primitive_util::BitWidth(from) == 32) {
    // Exact in a double, then one rounding as above.
    llvm::Value* d = IsSigned(from) ? b_->CreateSIToFP(x, b_->getDoubleTy())
                                    : b_->CreateSIToFP(b_->CreateZExt(x, b_->getInt64Ty()), b_->getDoubleTy());
    return RoundToOddFloat(d);
  }
  if (from == to) return x;
  llvm::Type* to_type = IrValueType(to, b_->getContext());
  if (to == PRED) {
    if (IsFloat(from)) return b_->CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));  // NaN -> true
    return b_->CreateICmpNE(x, Zero(from));
  }
  if (from == PRED) return IsFloat(to) ? b_->CreateUIToFP(x, to_type) : b_->CreateZExt(x, to_type);
  if (IsInt(from) && IsInt(to)) return b_->CreateIntCast(x, to_type, IsSigned(from));
  if (IsInt(from)) {
    if (IsSigned(from)) return b_->CreateSIToFP(x, to_type);
    // Unsigned of up to 32 bits: zero-extended to 64 and converted as
    // signed (the same value). LLVM 19's optimizer turned
    // uitofp(sext i8 to i32) into uitofp i8 (s8 -90 -> u32 -> f32 gave 166,
    // not 4294967206; found by hlo_fuzz, seed 2032703).
    if (primitive_util::BitWidth(from) <= 32) {
      return b_->CreateSIToFP(b_->CreateZExt(x, b_->getInt64Ty()), to_type);
    }
    return b_->CreateUIToFP(x, to_type);
  }
  if (IsInt(to)) {
    // Saturating, NaN -> 0, as the evaluator's ConvertElementType.
    auto id = IsSigned(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b_->CreateIntrinsic(id, {to_type, x->getType()}, {x});
  }
  return b_->CreateFPCast(x, to_type);
}

llvm::Value* ElementalIrEmitter::RoundToOddFloat(llvm::Value* d) {
  llvm::Value* t = b_->CreateFPTrunc(d, b_->getFloatTy());  // to nearest
  llvm::Value* back = b_->CreateFPExt(t, b_->getDoubleTy());
  llvm::Value* inexact = b_->CreateFCmpONE(back, d);  // NaN: exact (kept)
  llvm::Value* fabs_back = b_->CreateIntrinsic(llvm::Intrinsic::fabs, {back->getType()}, {back});
  llvm::Value* fabs_d = b_->CreateIntrinsic(llvm::Intrinsic::fabs, {d->getType()}, {d});
  // Toward zero first (one step down in magnitude where rounding went
  // away from zero, inf included), then the last bit set.
  llvm::Value* bits = b_->CreateBitCast(t, b_->getInt32Ty());
  llvm::Value* away = b_->CreateAnd(inexact, b_->CreateFCmpOGT(fabs_back, fabs_d));
  bits = b_->CreateSelect(away, b_->CreateSub(bits, b_->getInt32(1)), bits);
  bits = b_->CreateSelect(inexact, b_->CreateOr(bits, b_->getInt32(1)), bits);
  return b_->CreateBitCast(bits, b_->getFloatTy());
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitClampElement(const HloInstruction* hlo, const IrIndex& index) {
  const PrimitiveType type = hlo->shape().element_type();
  const HloInstruction* lo_hlo = hlo->operand(0);
  const HloInstruction* hi_hlo = hlo->operand(2);
  ASSIGN_OR_RETURN(llvm::Value * lo, EmitElement(lo_hlo, lo_hlo->shape().rank() == 0 ? IrIndex{} : index));
  ASSIGN_OR_RETURN(llvm::Value * x, EmitElement(hlo->operand(1), index));
  ASSIGN_OR_RETURN(llvm::Value * hi, EmitElement(hi_hlo, hi_hlo->shape().rank() == 0 ? IrIndex{} : index));
  if (IsComplex(type)) {
    return InvalidArgument("CPU backend: %s: clamp is not defined for complex types", hlo->name());
  }
  if (IsFloat(type)) {
    llvm::Value* m = EmitFloatMinMax(b_, type, /*is_min=*/false, x, lo);
    return EmitFloatMinMax(b_, type, /*is_min=*/true, m, hi);
  }
  const bool s = IsSigned(type);
  llvm::Value* v = b_->CreateSelect(s ? b_->CreateICmpSGT(x, lo) : b_->CreateICmpUGT(x, lo), x, lo);
  return b_->CreateSelect(s ? b_->CreateICmpSLT(v, hi) : b_->CreateICmpULT(v, hi), v, hi);
}

// The evaluator's ReducePrecisionBits (xla/evaluator/reduce_precision.h) on
// the element's storage bits, branch-free so loops over it vectorize.
absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitReducePrecisionElement(const HloInstruction* hlo,
                                                                            const IrIndex& index) {
  const PrimitiveType type = hlo->shape().element_type();
  const int exponent_bits = hlo->attributes().exponent_bits();
  const int mantissa_bits = hlo->attributes().mantissa_bits();
  if (!primitive_util::IsFloatingPointType(type) || hlo->operand(0)->shape().element_type() != type ||
      exponent_bits < 1 || mantissa_bits < 0) {
    return NotImplemented(*hlo, "reduce-precision of this type or with these bit counts");
  }
  ASSIGN_OR_RETURN(llvm::Value * x, EmitElement(hlo->operand(0), index));
  const int width = primitive_util::BitWidth(type);
  const int src_mantissa = type == F16 ? 10 : type == BF16 ? 7 : type == F32 ? 23 : 52;
  const int src_exponent = width - 1 - src_mantissa;
  llvm::Value* v = ToBits(type, x);
  llvm::Type* int_type = v->getType();
  auto c = [&](uint64_t value) { return llvm::ConstantInt::get(int_type, value); };
  if (mantissa_bits < src_mantissa) {
    const int dropped = src_mantissa - mantissa_bits;
    const uint64_t last_kept_bit = uint64_t{1} << dropped;
    llvm::Value* odd = b_->CreateAnd(b_->CreateLShr(v, c(dropped)), c(1));
    llvm::Value* bias = b_->CreateAdd(c((last_kept_bit >> 1) - 1), odd);
    v = b_->CreateAnd(b_->CreateAdd(v, bias), c(~(last_kept_bit - 1)));
  }
  if (exponent_bits < src_exponent) {
    const uint64_t exponent_mask = ((uint64_t{1} << src_exponent) - 1) << src_mantissa;
    const uint64_t src_bias = (uint64_t{1} << (src_exponent - 1)) - 1;
    const uint64_t reduced_bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
    llvm::Value* exponent = b_->CreateAnd(v, c(exponent_mask));
    llvm::Value* sign = b_->CreateAnd(v, c(uint64_t{1} << (width - 1)));
    llvm::Value* overflows = b_->CreateICmpUGT(exponent, c((src_bias + reduced_bias) << src_mantissa));
    llvm::Value* underflows = b_->CreateICmpULE(exponent, c((src_bias - reduced_bias) << src_mantissa));
    v = b_->CreateSelect(overflows, b_->CreateOr(sign, c(exponent_mask)), v);
    v = b_->CreateSelect(underflows, sign, v);
  }
  llvm::Value* result = FromBits(type, v);
  // NaN keeps its value; with no mantissa bits left it reads as +infinity.
  llvm::Value* nan_result =
      mantissa_bits > 0 ? x : llvm::ConstantFP::getInfinity(x->getType(), /*Negative=*/false);
  return b_->CreateSelect(b_->CreateFCmpUNO(x, x), nan_result, result);
}

llvm::Value* ElementalIrEmitter::ToBits(PrimitiveType type, llvm::Value* v) {
  if (IsComplex(type)) return ComplexIrEmitter(b_, module_).ToBits(v);
  switch (type) {
    case PRED: return b_->CreateZExt(v, b_->getInt8Ty());
    case F32: return b_->CreateBitCast(v, b_->getInt32Ty());
    case F64: return b_->CreateBitCast(v, b_->getInt64Ty());
    case F16: return b_->CreateBitCast(b_->CreateFPTrunc(v, b_->getHalfTy()), b_->getInt16Ty());
    case BF16: return b_->CreateTrunc(b_->CreateLShr(b_->CreateBitCast(v, b_->getInt32Ty()), 16), b_->getInt16Ty());
    default: break;
  }
  // Types narrower than a byte give exactly their width's bits.
  const int width = primitive_util::BitWidth(type);
  if (const SmallFloatFormat* f = primitive_util::SmallFloatFormatOf(type)) v = EmitFloatToSmallFloat(b_, *f, v);
  if (width < 8) v = b_->CreateTrunc(v, b_->getIntNTy(width));
  return v;
}

llvm::Value* ElementalIrEmitter::FromBits(PrimitiveType type, llvm::Value* bits) {
  if (IsComplex(type)) return ComplexIrEmitter(b_, module_).FromBits(type, bits);
  switch (type) {
    case PRED: return b_->CreateICmpNE(bits, b_->getInt8(0));
    case F32: return b_->CreateBitCast(bits, b_->getFloatTy());
    case F64: return b_->CreateBitCast(bits, b_->getDoubleTy());
    case F16: return b_->CreateFPExt(b_->CreateBitCast(bits, b_->getHalfTy()), b_->getFloatTy());
    case BF16: return b_->CreateBitCast(b_->CreateShl(b_->CreateZExt(bits, b_->getInt32Ty()), 16), b_->getFloatTy());
    default: break;
  }
  if (primitive_util::BitWidth(type) < 8) {
    bits = IsSigned(type) ? b_->CreateSExt(bits, b_->getInt8Ty()) : b_->CreateZExt(bits, b_->getInt8Ty());
  }
  if (const SmallFloatFormat* f = primitive_util::SmallFloatFormatOf(type)) {
    return EmitSmallFloatToFloat(b_, module_, *f, bits);
  }
  return bits;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitBitcastConvertElement(const HloInstruction* hlo,
                                                                           const IrIndex& index) {
  const HloInstruction* operand = hlo->operand(0);
  const PrimitiveType from = operand->shape().element_type(), to = hlo->shape().element_type();
  // Widths in bits: pred is one bit (StableHLO's i1), element i of a pred
  // side being bit i, least significant first, as in the evaluator.
  const int wi = primitive_util::BitWidth(from), wo = primitive_util::BitWidth(to);
  // The bits of the operand at `in`: straight from its buffer when it has
  // one (exact even for NaN payloads), else from the generated value.
  auto bits_at = [&](const IrIndex& in) -> absl::StatusOr<llvm::Value*> {
    if (llvm::Value* buffer = buffers_(operand)) {
      llvm::Type* storage = IrStorageType(from, b_->getContext());
      llvm::Value* ptr = b_->CreateInBoundsGEP(storage, buffer, {LinearIndex(operand->shape(), in)});
      llvm::Value* stored = b_->CreateLoad(b_->getIntNTy(8 * primitive_util::ByteWidth(from)), ptr);
      if (from == PRED) return b_->CreateICmpNE(stored, b_->getInt8(0));
      return wi < 8 ? b_->CreateTrunc(stored, b_->getIntNTy(wi)) : stored;
    }
    ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(operand, in));
    return from == PRED ? v : ToBits(from, v);
  };
  // The result from its wo bits (an i1 is the pred itself).
  auto from_bits = [&](llvm::Value* bits) { return to == PRED ? bits : FromBits(to, bits); };
  llvm::Type* out_int = b_->getIntNTy(wo);
  if (wi == wo) {
    ASSIGN_OR_RETURN(llvm::Value * bits, bits_at(index));
    return from_bits(bits);
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
      llvm::Value* part = b_->CreateShl(b_->CreateZExt(bits, out_int), wi * j);
      acc = b_->CreateOr(acc, part);
    }
    return from_bits(acc);
  }
  // Narrower: the result's minor dimension picks a piece, little-endian.
  if (hlo->shape().rank() != operand->shape().rank() + 1) {
    return InvalidArgument("CPU backend: %s: bad bitcast-convert shapes", hlo->name());
  }
  IrIndex in(index.begin(), index.end() - 1);
  ASSIGN_OR_RETURN(llvm::Value * bits, bits_at(in));
  llvm::Value* shift = b_->CreateMul(index.back(), b_->getInt64(wo));
  llvm::Value* piece = b_->CreateLShr(bits, b_->CreateZExtOrTrunc(shift, bits->getType()));
  return from_bits(b_->CreateTrunc(piece, out_int));
}

}  // namespace cpu
}  // namespace xla
