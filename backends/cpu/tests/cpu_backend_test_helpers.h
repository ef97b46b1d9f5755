// Shared by the CPU backend's differential tests (cpu_backend_*_test.cc, one
// cc_test): the tolerances, all in one place, the element types and shapes
// the tests sweep, and RunAndCompare, which runs an HLO text module on the
// CPU backend and on the reference evaluator and compares the results.
#ifndef BACKENDS_CPU_TESTS_CPU_BACKEND_TEST_HELPERS_H_
#define BACKENDS_CPU_TESTS_CPU_BACKEND_TEST_HELPERS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "xla/literal.h"
#include "xla/literal_comparison.h"

namespace xla {
namespace cpu {
namespace cpu_backend_test {

// --- Tolerances, all in one place ---------------------------------------------
// Integers and pred always compare exactly (literal_comparison::Near does).
// Elementwise float ops use the same libm as the evaluator, or (vector
// loops) libmvec's variants within 4 ulp of it (vector_math_library.h): within
// 1e-6 relative for f32/f64.
inline constexpr ErrorSpec kElementwiseTol{1e-6, 1e-6};
// Reductions with add are reassociated (vector accumulators).
inline constexpr ErrorSpec kReduceTol{1e-4, 1e-5};
// Dots through Eigen sum in another order than the evaluator.
inline constexpr ErrorSpec kDotTol{1e-4, 1e-5};
// Convolutions sum kernel positions and features in another order once
// lowered to dots or elementwise sums (convolution_rewriter.h); f16/bf16
// results may then round to the neighbouring value of their type.
inline constexpr ErrorSpec kConvolutionTol{1e-4, 1e-5};
ErrorSpec ConvolutionTol(const std::string& type);
inline constexpr ErrorSpec kExact{0, 0};
// exp, log, tanh, logistic and (not f64) erf are polynomial IR
// (polynomial_math.h): a few ulp from libm; f16/bf16 results may then round
// to the neighbouring value of their type.
inline constexpr ErrorSpec kTranscendentalF32Tol{1e-38, 5e-7};
inline constexpr ErrorSpec kTranscendentalF64Tol{1e-300, 1e-15};
inline constexpr ErrorSpec kTranscendentalF16Tol{1e-7, 1e-3};
inline constexpr ErrorSpec kTranscendentalBF16Tol{1e-38, 8e-3};
// Max error in ulp against the correctly rounded result, asserted by
// TranscendentalAccuracy over wide ranges (figures also in polynomial_math.h).
struct UlpBound {
  const char* op;
  double f32, f64;  // f64 < 0: not polynomial for f64 (libm)
};
inline constexpr UlpBound kUlpBounds[] = {
    {"exponential", 1.01, 2}, {"log", 1, 2}, {"tanh", 5.5, 2}, {"logistic", 3, 3}, {"erf", 8, -1}};

// The libmvec ops (a few ulp in float): f16/bf16 results may round to the
// neighbouring value of their type, as for the polynomial ones.
inline constexpr const char* kLibmvecOps[] = {"sine", "cosine", "tan", "cbrt", "exponential-minus-one",
                                              "log-plus-one", "power", "atan2", "erf"};

bool IsPolynomialOp(const std::string& op);
ErrorSpec TranscendentalTol(const std::string& type);
// Tolerance of one elementwise float op on `type`.
ErrorSpec ElementwiseTol(const std::string& op, const std::string& type);

// Every element type but complex ones; the integral and float ones; shapes
// exercised by elementwise tests (dimensions only).
const std::vector<std::string>& AllTypes();
extern const std::vector<std::string> kIntTypes;
extern const std::vector<std::string> kFloatTypes;
extern const std::vector<std::string> kShapes;

struct RunOptions {
  ErrorSpec tol = kElementwiseTol;
  double range = 2.0;
  int64_t small_ints = 0;
  uint64_t seed = 42;
  std::vector<Literal> args;  // explicit arguments instead of random ones
};

// Compiled for the pinned IR test target: the tests that use this read the
// generated code.
absl::StatusOr<std::unique_ptr<Executable>> CompileOnCpu(const std::string& text);

// Runs `text` on the CPU backend and on the evaluator and compares (the
// modules compared are counted and the count printed at the end).
void RunAndCompare(const std::string& text, RunOptions options = {});

// `tmpl` with $T replaced by `type` and $D by `dims`.
std::string Subst(const std::string& tmpl, const std::string& type, const std::string& dims);

// A reduce of a `type`[in_dims] parameter over `dims` by `op` from `init`.
std::string ReduceModule(const std::string& type, const std::string& op, const std::string& in_dims,
                         const std::string& out_dims, const std::string& dims, const std::string& init);

}  // namespace cpu_backend_test
}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TESTS_CPU_BACKEND_TEST_HELPERS_H_
