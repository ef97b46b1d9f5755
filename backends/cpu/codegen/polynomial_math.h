// Vectorizable transcendental functions emitted as LLVM IR: range reduction
// plus polynomial or rational approximations, with overflow, underflow, NaN
// and infinities handled by selects (no branches, no calls), so that the
// loop vectorizer turns a loop around them into <8 x float>/<16 x float>
// code at any width (see BUILD_NOTES "Vector math in JIT code").
//
// Each function takes and returns a scalar float or double register value.
// Measured accuracy (max error against the correctly rounded result, over
// wide input ranges incl. subnormals and special values; measured by
// cpu_backend_test's TranscendentalAccuracy test, which asserts these bounds):
//
//   f32 exp       0.96 ulp           f64 exp       1.64 ulp
//   f32 log       0.79 ulp           f64 log       1.91 ulp
//   f32 tanh      4.00 ulp           f64 tanh      1.13 ulp
// (A denser sweep of f32 inputs, every 37th float in exp's finite range and
// every 17th in [0, 12] for tanh, finds 1.004 ulp for exp and 5.49 for
// tanh, a rational approximation whose mean error is 0.08 ulp: the test's
// 200000 samples miss the worst cases.)
//   f32 logistic  2.61 ulp           f64 logistic  2.64 ulp
//   f32 erf       7.42 ulp near |x|=3.9 (abs err < 4.5e-7), |x|<4 clamped
//
// (Exact figures are in the comments next to each function in the .cc.)
// f64 erf, sin, cos, tan, cbrt, expm1, log1p, pow and atan2 are libm calls
// that vectorized loops make through glibc's libmvec vector variants
// (vector_math_library.h; <= 4 ulp, measured max 0.6-3.2 ulp per function
// there, e.g. f32 sin 1.61, f32 tan 3.00, f64 cos 3.22, f64 erf 1.83).
#ifndef BACKENDS_CPU_CODEGEN_POLYNOMIAL_MATH_H_
#define BACKENDS_CPU_CODEGEN_POLYNOMIAL_MATH_H_

#include "llvm/IR/IRBuilder.h"

namespace xla {
namespace cpu {

// `non_positive`: the caller knows x <= 0 or NaN (e.g. x - max(x) in a
// softmax); f32 then skips the overflow side of the range (same results,
// four fewer vector instructions).
llvm::Value* EmitFastExp(llvm::IRBuilder<>* b, llvm::Value* x, bool non_positive = false);
llvm::Value* EmitFastLog(llvm::IRBuilder<>* b, llvm::Value* x);
llvm::Value* EmitFastTanh(llvm::IRBuilder<>* b, llvm::Value* x);
llvm::Value* EmitFastLogistic(llvm::IRBuilder<>* b, llvm::Value* x);
// f32 only (callers keep libm for f64).
llvm::Value* EmitFastErfF32(llvm::IRBuilder<>* b, llvm::Value* x);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_POLYNOMIAL_MATH_H_
