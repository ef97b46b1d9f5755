// Vector variants of libm functions from glibc's vector math library
// (libmvec.so.1, the x86-64 vector function ABI: _ZGV<isa>N<lanes>v[v]_<fn>)
// for the transcendentals that have no polynomial IR (polynomial_math.h):
// sin, cos, tan, cbrt, expm1, log1p, pow, atan2 (f32 and f64; f16/bf16
// compute in float) and f64 erf.
//
// The elemental emitter emits plain scalar calls (sinf, pow, ...). Before the
// O3 pipeline the JIT marks each such call with the
// "vector-function-abi-variant" attribute naming the libmvec variants the
// target can run, one per vector width (SSE 'b' 4 floats/2 doubles, AVX 'c'
// or AVX2 'd' 8/4, AVX-512 'e' 16/8), and declares them; the loop
// vectorizer then calls a variant for a whole vector of elements. Scalar
// remainder iterations keep the scalar libm call. (LLVM's own LIBMVEC_X86
// table only knows sin/cos/tan/pow/exp/log and no AVX-512 widths.)
//
// The JIT resolves the variants explicitly from libmvec.so.1 (dlopen +
// dlsym); without that library CpuJit::Create fails with an error naming it.
//
// Accuracy: glibc documents libmvec at <= 4 ulp, which cpu_vector_math_test
// asserts for each function. Max error it measured against long double libm
// (~120k-180k inputs each: random over wide ranges, subnormals, huge values,
// near multiples of pi/2; AVX2 host, so the 'd' variants):
//
//   f32 sin    1.61 ulp        f64 sin    3.13 ulp
//   f32 cos    1.76 ulp        f64 cos    3.22 ulp
//   f32 tan    3.00 ulp        f64 tan    2.75 ulp
//   f32 cbrt   2.83 ulp        f64 cbrt   1.76 ulp
//   f32 expm1  1.63 ulp        f64 expm1  2.46 ulp
//   f32 log1p  1.74 ulp        f64 log1p  1.53 ulp
//   f32 pow    0.62 ulp        f64 pow    0.99 ulp
//   f32 atan2  2.98 ulp        f64 atan2  2.39 ulp
//                              f64 erf    1.83 ulp
//
// Where scalar libm gives NaN, +-inf or +-0 (special and overflowing
// inputs), the variants give exactly that too (checked by the same test).
#ifndef BACKENDS_CPU_CODEGEN_VECTOR_MATH_LIBRARY_H_
#define BACKENDS_CPU_CODEGEN_VECTOR_MATH_LIBRARY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/IR/Module.h"

namespace xla {
namespace cpu {

// The vector function ABI ISA levels the JIT's target can run (all false off
// x86-64: then no variants are used and libmvec is not needed).
struct VectorMathIsa {
  bool sse2 = false;     // 'b'
  bool avx = false;      // 'c'
  bool avx2 = false;     // 'd'
  bool avx512f = false;  // 'e'

  // From the target triple and the LLVM feature string ("+avx2,-avx512f,...")
  // that the JIT compiles for.
  static VectorMathIsa ForTarget(absl::string_view triple, absl::string_view features);
};

// One libmvec variant of a scalar libm function.
struct VectorMathVariant {
  std::string scalar_name;  // "sinf", "pow", ...
  std::string vector_name;  // "_ZGVdN8v_sinf", ...
  int lanes;
  int arity;
  bool f64;
};

// The variants used for `isa`: for each function and type, the best ISA of
// each vector width.
std::vector<VectorMathVariant> VectorMathVariants(const VectorMathIsa& isa);

// Marks every call in `module` to a scalar function with variants with the
// "vector-function-abi-variant" attribute and declares the variants (kept
// through the pipeline by llvm.compiler.used).
void AddVectorMathVariants(llvm::Module& module, const VectorMathIsa& isa);

// The address of each variant in libmvec.so.1 (opened once for the process).
struct ResolvedVectorFunction {
  std::string name;
  void* address;
};
absl::StatusOr<std::vector<ResolvedVectorFunction>> ResolveVectorMathVariants(const VectorMathIsa& isa);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_VECTOR_MATH_LIBRARY_H_
