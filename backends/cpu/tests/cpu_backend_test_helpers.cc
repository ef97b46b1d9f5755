// cpu_backend_test_helpers.h: tolerances, type lists, RunAndCompare.
#include "backends/cpu/tests/cpu_backend_test_helpers.h"

#include <cstdio>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace cpu_backend_test {

using cpu_test::CpuBackendOrDie;
using cpu_test::RandomLiteral;

ErrorSpec ConvolutionTol(const std::string& type) {
  if (type == "f16") return {1e-2, 2e-3};
  if (type == "bf16") return {1e-1, 1.6e-2};
  return kConvolutionTol;
}

bool IsPolynomialOp(const std::string& op) {
  for (const UlpBound& u : kUlpBounds) {
    if (op == u.op) return true;
  }
  return false;
}
ErrorSpec TranscendentalTol(const std::string& type) {
  if (type == "f64") return kTranscendentalF64Tol;
  if (type == "f16") return kTranscendentalF16Tol;
  if (type == "bf16") return kTranscendentalBF16Tol;
  return kTranscendentalF32Tol;
}
ErrorSpec ElementwiseTol(const std::string& op, const std::string& type) {
  if (IsPolynomialOp(op)) return TranscendentalTol(type);
  for (const char* libmvec : kLibmvecOps) {
    if (op == libmvec && (type == "f16" || type == "bf16")) return TranscendentalTol(type);
  }
  return kElementwiseTol;
}

const std::vector<std::string>& AllTypes() {
  static const auto* types =
      new std::vector<std::string>{"pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f32", "f64", "f16", "bf16"};
  return *types;
}
const std::vector<std::string> kIntTypes = {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"};
const std::vector<std::string> kFloatTypes = {"f32", "f64", "f16", "bf16"};
// Shapes exercised by elementwise tests (dimensions only).
const std::vector<std::string> kShapes = {"[]", "[0]", "[17]", "[3,33]", "[2,0,5]", "[4,5,7]"};

absl::StatusOr<std::unique_ptr<Executable>> CompileOnCpu(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return CpuBackendOrDie()->compiler()->Compile(std::move(*module), cpu_test::WithTarget(cpu_test::kIrTestTarget));
}

namespace {

// Modules compared in this run (printed at the end).
int g_compared = 0;
class CountingEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { std::printf("cpu_backend_test: %d modules compared with the evaluator\n", g_compared); }
};
[[maybe_unused]] ::testing::Environment* const kCounting =
    ::testing::AddGlobalTestEnvironment(new CountingEnvironment);

}  // namespace

void RunAndCompare(const std::string& text, RunOptions options) {
  SCOPED_TRACE(text);
  std::vector<Literal> args = std::move(options.args);
  if (args.empty()) {
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    std::mt19937_64 rng(options.seed);
    for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
      args.push_back(RandomLiteral(p->shape(), rng, options.range, options.small_ints));
    }
  }
  ++g_compared;
  cpu_test::CompareWithEvaluator(text, args, options.tol);
}

std::string Subst(const std::string& tmpl, const std::string& type, const std::string& dims) {
  return absl::StrReplaceAll(tmpl, {{"$T", type}, {"$D", dims}});
}

std::string ReduceModule(const std::string& type, const std::string& op, const std::string& in_dims,
                         const std::string& out_dims, const std::string& dims, const std::string& init) {
  return absl::StrCat("HloModule m\nr {\n  a = ", type, "[] parameter(0)\n  b = ", type,
                      "[] parameter(1)\n  ROOT c = ", type, "[] ", op, "(a, b)\n}\nENTRY e {\n  x = ", type, in_dims,
                      " parameter(0)\n  i = ", type, "[] constant(", init, ")\n  ROOT y = ", type, out_dims,
                      " reduce(x, i), dimensions={", dims, "}, to_apply=r\n}\n");
}

}  // namespace cpu_backend_test
}  // namespace cpu
}  // namespace xla
