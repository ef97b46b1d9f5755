// ElementalIrEmitter, core (elemental_ir_emitter.h): element types in
// registers and in memory, loads and stores at a multi-index, literal
// elements, and the generator dispatch (GenerateUnrounded), one handler per
// opcode; an opcode with none is an Unimplemented error naming it. The
// handlers live by concept in elemental_ir_emitter_arithmetic.cc
// (elementwise ops, compare, convert), elemental_ir_emitter_data_movement.cc
// (index-mapping ops, concatenate, pad, gather) and
// elemental_ir_emitter_reduction.cc (reduce, reduce-window, dot,
// convolution, scalar computations).
#include "backends/cpu/codegen/elemental_ir_emitter.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/alias_analysis.h"
#include "backends/cpu/codegen/complex_ir_emitter.h"
#include "backends/cpu/codegen/elemental_ir_emitter_internal.h"
#include "backends/cpu/codegen/small_float_ir.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "xla/primitive_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

using namespace elemental_internal;  // NOLINT: the elemental emitter's own helpers

bool IsSupportedElementType(PrimitiveType type) {
  switch (type) {
    case PRED: case S8: case S16: case S32: case S64:
    case U8: case U16: case U32: case U64: case F32: case F64: case F16: case BF16:
    case C64: case C128:
      return true;
    default:
      return primitive_util::IsNarrowIntegralType(type) || primitive_util::IsSmallFloatType(type);
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
    case S8: case U8: case S2: case S4: case U2: case U4: return llvm::Type::getInt8Ty(ctx);
    case S16: case U16: return llvm::Type::getInt16Ty(ctx);
    case S32: case U32: return llvm::Type::getInt32Ty(ctx);
    case S64: case U64: return llvm::Type::getInt64Ty(ctx);
    case F32: case F16: case BF16: return llvm::Type::getFloatTy(ctx);
    case F64: return llvm::Type::getDoubleTy(ctx);
    case C64: case C128: return ComplexIrType(type, ctx);
    default: return primitive_util::IsSmallFloatType(type) ? llvm::Type::getFloatTy(ctx) : nullptr;
  }
}

llvm::Type* IrStorageType(PrimitiveType type, llvm::LLVMContext& ctx) {
  switch (type) {
    case PRED: return llvm::Type::getInt8Ty(ctx);
    case F16: return llvm::Type::getHalfTy(ctx);
    case BF16: return llvm::Type::getInt16Ty(ctx);
    default:
      if (primitive_util::IsSmallFloatType(type)) return llvm::Type::getInt8Ty(ctx);
      return IrValueType(type, ctx);
  }
}

llvm::Value* ElementalIrEmitter::RoundToType(PrimitiveType type, llvm::Value* v) {
  if (type == F16) return b_->CreateFPExt(b_->CreateFPTrunc(v, b_->getHalfTy()), b_->getFloatTy());
  if (const SmallFloatFormat* f = primitive_util::SmallFloatFormatOf(type)) {
    return EmitSmallFloatToFloat(b_, module_, *f, EmitFloatToSmallFloat(b_, *f, v));
  }
  if (IsNarrowInt(type)) {
    // Back into range: the low bits, sign- or zero-extended.
    llvm::Value* amount = b_->getInt8(8 - primitive_util::BitWidth(type));
    llvm::Value* high = b_->CreateShl(v, amount);
    return IsSigned(type) ? b_->CreateAShr(high, amount) : b_->CreateLShr(high, amount);
  }
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
    default:
      if (const SmallFloatFormat* f = primitive_util::SmallFloatFormatOf(shape.element_type())) {
        return EmitSmallFloatToFloat(b_, module_, *f, v);
      }
      return v;
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
  if (const SmallFloatFormat* f = primitive_util::SmallFloatFormatOf(shape.element_type())) {
    value = EmitFloatToSmallFloat(b_, *f, value);
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
  if (const SmallFloatFormat* f = primitive_util::SmallFloatFormatOf(type)) {
    return llvm::ConstantFP::get(b_->getFloatTy(), SmallFloatToDouble(*f, static_cast<uint8_t>(raw)));
  }
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
    case HloOpcode::kClamp: return EmitClampElement(hlo, index);
    case HloOpcode::kBroadcast: return EmitBroadcastElement(hlo, index);
    case HloOpcode::kTranspose: return EmitTransposeElement(hlo, index);
    case HloOpcode::kSlice: return EmitSliceElement(hlo, index);
    case HloOpcode::kReverse: return EmitReverseElement(hlo, index);
    case HloOpcode::kIota: return EmitIotaElement(hlo, index);
    case HloOpcode::kReshape: return EmitReshapeElement(hlo, index);
    case HloOpcode::kConcatenate: return EmitConcatenateElement(hlo, index);
    case HloOpcode::kPad: return EmitPadElement(hlo, index);
    case HloOpcode::kReduce: return EmitReduceElement(hlo, index);
    case HloOpcode::kReduceWindow: return EmitReduceWindowElement(hlo, index);
    case HloOpcode::kDot: return EmitDotElement(hlo, index);
    case HloOpcode::kConvolution: return EmitConvolutionElement(hlo, index);
    case HloOpcode::kGather: return EmitGatherElement(hlo, index);
    case HloOpcode::kDynamicSlice: return EmitDynamicSliceElement(hlo, index);
    case HloOpcode::kBitcastConvert: return EmitBitcastConvertElement(hlo, index);
    case HloOpcode::kReducePrecision: return EmitReducePrecisionElement(hlo, index);
    case HloOpcode::kMap: return EmitMapElement(hlo, index);
    default: break;  // elementwise unary and binary ops below
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
  // Any other opcode has no element generator.
  return NotImplemented(*hlo, HloOpcodeString(op));
}

}  // namespace cpu
}  // namespace xla
