#include "backends/cpu/codegen/small_float_ir.h"

#include <string>
#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Intrinsics.h"

namespace xla {
namespace cpu {

llvm::Value* EmitSmallFloatToFloat(llvm::IRBuilder<>* b, llvm::Module* module, const SmallFloatFormat& format,
                                   llvm::Value* bits) {
  const std::string name = std::string("__xla_small_float_table_") + format.name;
  llvm::Type* table_type = llvm::ArrayType::get(b->getFloatTy(), 256);
  llvm::GlobalVariable* table = module->getGlobalVariable(name, /*AllowInternal=*/true);
  if (table == nullptr) {
    std::vector<llvm::Constant*> values;
    for (int i = 0; i < 256; ++i) {
      values.push_back(llvm::ConstantFP::get(b->getFloatTy(),
                                             static_cast<float>(SmallFloatToDouble(format, static_cast<uint8_t>(i)))));
    }
    table = new llvm::GlobalVariable(*module, table_type, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                     llvm::ConstantArray::get(llvm::cast<llvm::ArrayType>(table_type), values), name);
    table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  }
  llvm::Value* index = b->CreateZExt(bits, b->getInt64Ty());
  llvm::Value* ptr = b->CreateInBoundsGEP(table_type, table, {b->getInt64(0), index});
  return b->CreateLoad(b->getFloatTy(), ptr);
}

llvm::Value* EmitFloatToSmallFloat(llvm::IRBuilder<>* b, const SmallFloatFormat& f, llvm::Value* value) {
  // The source format: float or double.
  const bool is_double = value->getType()->isDoubleTy();
  const unsigned width = is_double ? 64 : 32;
  const int from_mantissa = is_double ? 52 : 23;
  const int from_bias = is_double ? 1023 : 127;
  llvm::IntegerType* it = b->getIntNTy(width);
  auto c = [&](int64_t v) { return llvm::ConstantInt::getSigned(it, v); };
  llvm::Type* i8 = b->getInt8Ty();
  auto c8 = [&](unsigned v) { return llvm::ConstantInt::get(i8, v & 0xFF); };

  llvm::Value* bits = b->CreateBitCast(value, it);
  llvm::Value* negative = b->CreateICmpSLT(bits, c(0));
  llvm::Value* abs_bits = b->CreateAnd(bits, llvm::ConstantInt::get(it, llvm::APInt::getSignedMaxValue(width)));
  llvm::Value* exp_ones = c(((int64_t{1} << (width - 1 - from_mantissa)) - 1) << from_mantissa);
  llvm::Value* is_nan = b->CreateICmpUGT(abs_bits, exp_ones);
  llvm::Value* is_inf = b->CreateICmpEQ(abs_bits, exp_ones);
  llvm::Value* is_zero = b->CreateICmpEQ(abs_bits, c(0));

  // Exponent and significand (leading one at bit from_mantissa); subnormal
  // sources are normalized with a count of leading zeros.
  llvm::Value* from_exp = b->CreateLShr(abs_bits, from_mantissa);
  llvm::Value* fraction = b->CreateAnd(abs_bits, c((int64_t{1} << from_mantissa) - 1));
  llvm::Value* is_subnormal = b->CreateICmpEQ(from_exp, c(0));
  llvm::Value* lz = b->CreateIntrinsic(llvm::Intrinsic::ctlz, {it}, {fraction, b->getFalse()});
  llvm::Value* norm_shift = b->CreateSub(lz, c(width - 1 - from_mantissa));  // to move the top bit to from_mantissa
  llvm::Value* significand = b->CreateSelect(
      is_subnormal, b->CreateShl(fraction, b->CreateSelect(is_zero, c(0), norm_shift)),
      b->CreateOr(fraction, c(int64_t{1} << from_mantissa)));
  llvm::Value* exponent = b->CreateSelect(is_subnormal, b->CreateSub(c(1 - from_bias), norm_shift),
                                          b->CreateSub(from_exp, c(from_bias)));

  // As SmallFloatFromDouble: the biased exponent minus one, the shift that
  // keeps the target's mantissa bits (more below the normal range), round
  // to nearest even, and the leading one carries into the exponent field.
  llvm::Value* exp_base = b->CreateAdd(exponent, c(f.bias - 1));
  llvm::Value* denormal = b->CreateSelect(b->CreateICmpSLT(exp_base, c(0)), b->CreateNeg(exp_base), c(0));
  llvm::Value* shift = b->CreateAdd(c(from_mantissa - f.mantissa_bits), denormal);
  shift = b->CreateSelect(b->CreateICmpSGT(shift, c(from_mantissa + 2)), c(from_mantissa + 2), shift);
  llvm::Value* kept_lsb = b->CreateAnd(b->CreateLShr(significand, shift), c(1));
  llvm::Value* half_minus_one = b->CreateSub(b->CreateShl(c(1), b->CreateSub(shift, c(1))), c(1));
  llvm::Value* rounded = b->CreateAdd(significand, b->CreateAdd(kept_lsb, half_minus_one));
  llvm::Value* aligned = b->CreateLShr(rounded, shift);
  llvm::Value* exp_bits = b->CreateSelect(b->CreateICmpSLT(exp_base, c(0)), c(0), exp_base);
  llvm::Value* result = b->CreateAdd(aligned, b->CreateShl(exp_bits, f.mantissa_bits));
  // exp_base may be large for big doubles: compare before narrowing.
  llvm::Value* overflow = b->CreateICmpSGT(result, c(f.max_finite_bits()));
  llvm::Value* magnitude =
      b->CreateSelect(overflow, c8(f.overflow_bits()), b->CreateTrunc(result, i8));

  magnitude = b->CreateSelect(is_inf, c8(f.overflow_bits()), magnitude);
  magnitude = b->CreateSelect(is_nan, c8(f.nan_bits()), magnitude);
  magnitude = b->CreateSelect(is_zero, f.has_zero ? c8(0) : c8(f.nan_bits()), magnitude);

  if (!f.is_signed) {
    // No sign: negative values (not zero, already NaN) and -NaN are NaN.
    return b->CreateSelect(negative, c8(f.nan_bits()), magnitude);
  }
  // Negation as SmallFloatFormat::Negate: flip the sign bit, except that the
  // FNUZ formats keep 0 and their NaN (0x80) as they are.
  llvm::Value* flipped = b->CreateXor(magnitude, c8(f.sign_bit()));
  if (f.nan == SmallFloatNan::kNegativeZero) {
    llvm::Value* no_magnitude = b->CreateICmpEQ(b->CreateAnd(magnitude, c8(f.magnitude_mask())), c8(0));
    flipped = b->CreateSelect(no_magnitude, magnitude, flipped);
  }
  return b->CreateSelect(negative, flipped, magnitude);
}

}  // namespace cpu
}  // namespace xla
