// LLVM IR for the small float formats (xla/small_float.h): a float register
// value from a format's byte and back, with the same rounding and special
// values as the evaluator's SmallFloatFromDouble (ml_dtypes' conversion).
#ifndef BACKENDS_CPU_CODEGEN_SMALL_FLOAT_IR_H_
#define BACKENDS_CPU_CODEGEN_SMALL_FLOAT_IR_H_

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "xla/small_float.h"

namespace xla {
namespace cpu {

// The exact float of an i8 encoding: a load from a 256-entry constant table
// (one per format, built on the host by SmallFloatToDouble).
llvm::Value* EmitSmallFloatToFloat(llvm::IRBuilder<>* b, llvm::Module* module, const SmallFloatFormat& format,
                                   llvm::Value* bits);

// The i8 encoding of a float or double, rounded once to nearest even, in
// integer operations on the value's bits (no branches, so it vectorizes).
llvm::Value* EmitFloatToSmallFloat(llvm::IRBuilder<>* b, const SmallFloatFormat& format, llvm::Value* value);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_SMALL_FLOAT_IR_H_
