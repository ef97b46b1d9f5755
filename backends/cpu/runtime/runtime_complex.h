// Complex runtime helpers called from JIT code for the complex operations
// that are not emitted inline: division, the transcendentals, abs, sign,
// power, and the NaN-recovery path of multiplication. Each is the
// reference evaluator's std::complex expression (xla/evaluator/
// elementwise_ops.cc, elementwise_kernels.h), compiled by the same compiler
// into the same binary, so results are bit-identical to the evaluator's
// (libstdc++/glibc cexp, clog, csqrt, __divsc3, __mulsc3, ...).
//
// ABI: parts are passed as separate scalars; complex results are written to
// `out` (re, im).
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_COMPLEX_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_COMPLEX_H_

#include <vector>

namespace xla {
namespace cpu {

struct RuntimeSymbol {
  const char* name;
  void* address;
};

// Every complex runtime function, for registration with the JIT:
//   void __xla_cpu_runtime_<Op>C64(float re, float im, float* out)     (C128: double)
//     <Op> = Sign Expm1 Log1p Logistic Rsqrt Exp Log Sqrt Sin Cos Tan Tanh Cbrt
//   void __xla_cpu_runtime_<Op>C64(float a_re, float a_im, float b_re, float b_im, float* out)
//     <Op> = Multiply Divide Power
//   float __xla_cpu_runtime_AbsC64(float re, float im)                 (C128: double)
const std::vector<RuntimeSymbol>& ComplexRuntimeSymbols();

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_COMPLEX_H_
