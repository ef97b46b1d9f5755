// Shared by the CPU backend's differential tests: run one module on the
// CPU backend and on the reference evaluator, and compare the results.
#ifndef BACKENDS_CPU_TESTS_CPU_TEST_UTIL_H_
#define BACKENDS_CPU_TESTS_CPU_TEST_UTIL_H_

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "absl/status/status.h"

#include "backends/backend.h"
#include "xla/hlo/hlo_module.h"
#include "xla/literal.h"
#include "xla/literal_comparison.h"
#include "proto/xla.pb.h"

namespace xla {
namespace cpu_test {

std::unique_ptr<Backend> CpuBackendOrDie();

// Compiles `text` for the CPU backend with `options` and runs it on `args`.
absl::StatusOr<Literal> RunOnCpu(const std::string& text, const std::vector<Literal>& args,
                                 const DebugOptions& options = DebugOptions());
absl::StatusOr<Literal> RunOnCpu(std::unique_ptr<HloModule> module, const std::vector<Literal>& args,
                                 const DebugOptions& options = DebugOptions());

// Evaluates `text` with HloEvaluator and runs it on the CPU backend with the
// same arguments, then checks the result shapes (with layouts) are equal and
// the values are within `tolerance` (gtest failures name the module).
void CompareWithEvaluator(const std::string& text, const std::vector<Literal>& args, const ErrorSpec& tolerance,
                          const DebugOptions& options = DebugOptions());
// The same for a module already built (e.g. one too large to print).
void CompareWithEvaluator(std::unique_ptr<HloModule> module, const std::vector<Literal>& args,
                          const ErrorSpec& tolerance, const DebugOptions& options = DebugOptions());

// Random values of `shape` (tuples element by element): floats uniform in
// [-range, range]; integers as random bits, or in [-small, small] when
// `small` > 0 (for division- and shift-friendly values); pred as coin flips.
Literal RandomLiteral(const Shape& shape, std::mt19937_64& rng, double range, int64_t small = 0);

// HLO text of a softmax over the last dimension of a `type`[rows, cols]
// parameter in `layout` ("" for the default): row max m, ex = exp(x - m),
// row sum s, ROOT r = ex / s (module "softmax").
std::string SoftmaxHlo(const std::string& type, int64_t rows, int64_t cols, const std::string& layout = "");

// HLO text of max pooling's gradient: select-and-scatter (select GE,
// scatter add, init 0) of a `type` source of dimensions `source` (e.g.
// "[2,5,5,3]") into an operand of dimensions `operand`, with `window` (e.g.
// "size=1x3x3x1 stride=1x2x2x1"); module "m", root "r".
std::string MaxPoolGradientHlo(const std::string& type, const std::string& operand, const std::string& source,
                               const std::string& window);

// HLO text of GELU (tanh form) written out from elementary ops over a
// parameter of dimensions `dims` (e.g. "[4096]", "[]"; module "gelu") and
// float type `type`: 0.5 * x * (1 + tanh(0.79788456 * (x + 0.044715 * x^3))),
// x^3 as multiplies.
std::string GeluHlo(const std::string& dims, const std::string& type = "f32");

// HLO text of x - rowsum(x), `steps` times over f32[rows, cols] (three
// instructions per step, each row-local): a long chain of materialized
// reductions (module "chain").
std::string RowSumChainHlo(int steps, int64_t rows, int64_t cols);

// Occurrences of `what` in `text` (overlapping ones counted).
int CountOccurrences(const std::string& text, const std::string& what);

// DebugOptions asking for `threads` CPU worker threads.
DebugOptions WithThreads(int threads);

// RandomLiteral values for every parameter of the entry of `text`.
std::vector<Literal> RandomArguments(const std::string& text, uint64_t seed, double range = 4.0,
                                     int64_t small = 100);

// The target IR tests compile for unless they name another: tests that
// read generated code never read the host's (its vector width, tuning and
// unrolling differ between machines). Haswell: AVX2 + FMA, 256-bit vectors.
inline constexpr char kIrTestTarget[] = "haswell";
// An AVX-512 target that uses 512-bit vectors (skylake-avx512 alone prefers
// 256-bit ones), for tests of the AVX-512 code paths.
inline constexpr char kAvx512IrTestTarget[] = "skylake-avx512:-prefer-256-bit";

// DebugOptions with `threads` workers compiling for `target` (cpu_target.h),
// keeping the optimized IR for the test to read.
DebugOptions WithTarget(const std::string& target, int threads = 0);

// The optimized LLVM IR of `text` compiled with `threads` workers for
// `target` ("" and a test failure if it does not compile).
std::string OptimizedIr(const std::string& text, int threads, const std::string& target = kIrTestTarget);

// Runs LLVM's FileCheck with `checks` (CHECK lines) over `input`; the error
// carries FileCheck's report. FileCheck comes from Debian's llvm-19-tools.
absl::Status FileCheck(const std::string& input, const std::string& checks);

// The latch blocks of the loops LLVM vectorized (back-edge metadata
// llvm.loop.isvectorized, and vector-typed values in the block), in IR
// order: the vector bodies of a module, found without relying on LLVM's
// block names. Scalar remainder loops carry the same metadata but no
// vector values. `ir` is a whole module (the loop metadata is at its end);
// with `function`, only that function's loops.
std::vector<std::string> VectorLoopBodies(const std::string& ir, const std::string& function = "");

// The text of function `name` (its "define ... @name(" line to its closing
// brace) in `ir`, "" if absent.
std::string FunctionIr(const std::string& ir, const std::string& name);

// The arena bytes of `text` compiled for one thread (-1 and a test failure
// if it does not compile): 0 when every value but the result is fused.
int64_t ArenaBytes(const std::string& text);

// Error of `actual` in ulp of T at `reference` (0 when both are NaN; infinite
// when one is NaN/inf and the other is not the same).
template <typename T>
double UlpError(T actual, long double reference) {
  const T ref = static_cast<T>(reference);
  if (std::isnan(ref) || std::isinf(ref) || std::isnan(actual) || std::isinf(actual)) {
    if (std::isnan(ref) && std::isnan(actual)) return 0;
    return actual == ref ? 0 : std::numeric_limits<double>::infinity();
  }
  const T mag = std::fabs(ref);
  T spacing = std::nextafter(mag, std::numeric_limits<T>::infinity()) - mag;
  if (std::isinf(spacing)) spacing = mag - std::nextafter(mag, T(0));
  return static_cast<double>(std::fabs(static_cast<long double>(actual) - reference) / spacing);
}

}  // namespace cpu_test
}  // namespace xla

#endif  // BACKENDS_CPU_TESTS_CPU_TEST_UTIL_H_
