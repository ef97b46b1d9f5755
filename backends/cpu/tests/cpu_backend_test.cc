// Differential tests of the CPU backend against the reference evaluator:
// HLO text modules on seeded random inputs of several shapes (rank 0, size-0
// dimensions, odd sizes that are not multiples of the vector width, fused
// chains, reductions over each dimension, dots), plus Unimplemented errors
// for what this increment does not cover.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/base/casts.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/backend.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "backends/cpu/codegen/elemental_ir_emitter.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal_comparison.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CpuBackendOrDie;
using cpu_test::RandomLiteral;
using cpu_test::UlpError;

// --- Tolerances, all in one place ---------------------------------------------
// Integers and pred always compare exactly (literal_comparison::Near does).
// Elementwise float ops use the same libm as the evaluator, or (vector
// loops) libmvec's variants within 4 ulp of it (vector_math_library.h): within
// 1e-6 relative for f32/f64.
constexpr ErrorSpec kElementwiseTol{1e-6, 1e-6};
// Reductions with add are reassociated (vector accumulators).
constexpr ErrorSpec kReduceTol{1e-4, 1e-5};
// Dots through Eigen sum in another order than the evaluator.
constexpr ErrorSpec kDotTol{1e-4, 1e-5};
// Convolutions sum kernel positions and features in another order once
// lowered to dots or elementwise sums (convolution_rewriter.h); f16/bf16
// results may then round to the neighbouring value of their type.
constexpr ErrorSpec kConvolutionTol{1e-4, 1e-5};
ErrorSpec ConvolutionTol(const std::string& type) {
  if (type == "f16") return {1e-2, 2e-3};
  if (type == "bf16") return {1e-1, 1.6e-2};
  return kConvolutionTol;
}
constexpr ErrorSpec kExact{0, 0};
// exp, log, tanh, logistic and (not f64) erf are polynomial IR
// (polynomial_math.h): a few ulp from libm; f16/bf16 results may then round
// to the neighbouring value of their type.
constexpr ErrorSpec kTranscendentalF32Tol{1e-38, 5e-7};
constexpr ErrorSpec kTranscendentalF64Tol{1e-300, 1e-15};
constexpr ErrorSpec kTranscendentalF16Tol{1e-7, 1e-3};
constexpr ErrorSpec kTranscendentalBF16Tol{1e-38, 8e-3};
// Max error in ulp against the correctly rounded result, asserted by
// TranscendentalAccuracy over wide ranges (figures also in polynomial_math.h).
struct UlpBound {
  const char* op;
  double f32, f64;  // f64 < 0: not polynomial for f64 (libm)
};
constexpr UlpBound kUlpBounds[] = {
    {"exponential", 1.01, 2}, {"log", 1, 2}, {"tanh", 5.5, 2}, {"logistic", 3, 3}, {"erf", 8, -1}};

// The libmvec ops (a few ulp in float): f16/bf16 results may round to the
// neighbouring value of their type, as for the polynomial ones.
constexpr const char* kLibmvecOps[] = {"sine", "cosine", "tan", "cbrt", "exponential-minus-one", "log-plus-one",
                                       "power", "atan2", "erf"};

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
// Tolerance of one elementwise float op on `type`.
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

struct RunOptions {
  ErrorSpec tol = kElementwiseTol;
  double range = 2.0;
  int64_t small_ints = 0;
  uint64_t seed = 42;
  std::vector<Literal> args;  // explicit arguments instead of random ones
};

// Compiled for the pinned IR test target: the tests that use this read the
// generated code.
absl::StatusOr<std::unique_ptr<Executable>> CompileOnCpu(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return CpuBackendOrDie()->compiler()->Compile(std::move(*module), cpu_test::WithTarget(cpu_test::kIrTestTarget));
}

// Modules compared in this run (printed at the end).
int g_compared = 0;
class CountingEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { std::printf("cpu_backend_test: %d modules compared with the evaluator\n", g_compared); }
};
[[maybe_unused]] ::testing::Environment* const kCounting =
    ::testing::AddGlobalTestEnvironment(new CountingEnvironment);

// Runs `text` on the CPU backend and on the evaluator and compares.
void RunAndCompare(const std::string& text, RunOptions options = {}) {
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

// --- Elementwise ----------------------------------------------------------------

TEST(CpuBackendTest, UnaryFloat) {
  const std::vector<std::string> ops = {
      "abs", "negate", "sign", "ceil", "floor", "round-nearest-afz", "round-nearest-even", "sqrt", "rsqrt",
      "exponential", "log", "sine", "cosine", "tan", "tanh", "logistic", "erf", "cbrt", "exponential-minus-one",
      "log-plus-one", "copy"};
  for (const std::string& t : kFloatTypes) {
    for (const std::string& d : kShapes) {
      for (const std::string& op : ops) {
        RunAndCompare(Subst(absl::StrCat("HloModule m\nENTRY e {\n  p = $T$D parameter(0)\n  ROOT r = $T$D ", op,
                                         "(p)\n}\n"),
                            t, d),
                      {.tol = ElementwiseTol(op, t)});
      }
      RunAndCompare(Subst("HloModule m\nENTRY e {\n  p = $T$D parameter(0)\n  ROOT r = pred$D is-finite(p)\n}\n", t, d));
    }
  }
}

// Special and extreme values through the polynomial transcendentals, against
// the evaluator (libm).
TEST(CpuBackendTest, TranscendentalSpecialValues) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-30, -1e-30, 1e-40, -1e-40, 1e-310,
                                      0.625, -0.625, 0.6249, 3.0, -3.0, 8.9, 9.1, -9.1, 20, -20, 40, 50, -50,
                                      88.72, 88.73, -87.3, -103.0, -103.9, -104.5, 709.7, 709.8, -708.4, -745.0,
                                      -746.0, 1e30, -1e30, 1e300, -1e300, 3.9, 4.0, 4.1, -4.1, inf, -inf, nan,
                                      1.17549435e-38, 2.2250738585072014e-308, 0.7071, 0.7072, 1.4142, 2.0};
  for (const std::string t : {"f32", "f64", "f16", "bf16"}) {
    for (const UlpBound& u : kUlpBounds) {
      Literal a64 = Literal::CreateR1<double>(values);
      Literal a = t == "f64" ? std::move(a64) : a64.Convert(t == "f32" ? F32 : t == "f16" ? F16 : BF16).value();
      std::vector<Literal> args;
      args.push_back(std::move(a));
      RunAndCompare(absl::StrCat("HloModule m\nENTRY e {\n  a = ", t, "[", values.size(), "] parameter(0)\n  ROOT r = ",
                                 t, "[", values.size(), "] ", u.op, "(a)\n}\n"),
                    {.tol = TranscendentalTol(t), .args = std::move(args)});
    }
  }
}

// Max ulp error of the polynomial transcendentals against long double libm,
// over wide ranges (asserts kUlpBounds, prints the measured figures).

long double Reference(const std::string& op, long double x) {
  if (op == "exponential") return std::exp(x);
  if (op == "log") return std::log(x);
  if (op == "tanh") return std::tanh(x);
  if (op == "logistic") return 1 / (1 + std::exp(-x));
  return std::erf(x);
}

template <typename T>
std::vector<T> AccuracyInputs(const std::string& op, std::mt19937_64& rng) {
  const bool f64 = std::is_same_v<T, double>;
  std::vector<T> v;
  auto uniform = [&](double lo, double hi, int n) {
    for (int i = 0; i < n; ++i) v.push_back(static_cast<T>(std::uniform_real_distribution<double>(lo, hi)(rng)));
  };
  auto log_uniform = [&](double lo_exp10, double hi_exp10, int n) {  // +-10^[lo, hi]
    for (int i = 0; i < n; ++i) {
      const double m = std::pow(10.0, std::uniform_real_distribution<double>(lo_exp10, hi_exp10)(rng));
      v.push_back(static_cast<T>(rng() & 1 ? m : -m));
    }
  };
  const int n = 100000;
  if (op == "exponential") {
    uniform(f64 ? -746 : -104, f64 ? 710 : 89, n);
    uniform(-1, 1, n);
  } else if (op == "log") {
    for (int i = 0; i < n; ++i) {  // every positive finite bit pattern, incl. subnormals
      T x;
      if constexpr (std::is_same_v<T, double>) {
        const uint64_t bits = rng() % 0x7ff0000000000000ull;
        std::memcpy(&x, &bits, 8);
      } else {
        const uint32_t bits = static_cast<uint32_t>(rng() % 0x7f800000u);
        std::memcpy(&x, &bits, 4);
      }
      v.push_back(x);
    }
    uniform(0.5, 2, n);
  } else if (op == "tanh") {
    log_uniform(f64 ? -300 : -30, 1.5, n);
    uniform(-1, 1, n);
  } else if (op == "logistic") {
    uniform(f64 ? -745 : -103, f64 ? 745 : 103, n);
    uniform(-5, 5, n);
  } else {
    log_uniform(f64 ? -300 : -30, 0.7, n);
    uniform(-5, 5, n);
  }
  return v;
}

template <typename T>
void CheckAccuracy(const UlpBound& bound) {
  const std::string op = bound.op;
  const double max_allowed = std::is_same_v<T, double> ? bound.f64 : bound.f32;
  if (max_allowed < 0) return;
  std::mt19937_64 rng(1234);
  const std::vector<T> inputs = AccuracyInputs<T>(op, rng);
  const std::string type = std::is_same_v<T, double> ? "f64" : "f32";
  auto executable = CompileOnCpu(absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, "[", inputs.size(),
                                              "] parameter(0)\n  ROOT r = ", type, "[", inputs.size(), "] ", op,
                                              "(a)\n}\n"));
  ASSERT_TRUE(executable.ok()) << executable.status();
  auto arg = DeviceBuffer::FromLiteral(Literal::CreateR1<T>(inputs));
  ASSERT_TRUE(arg.ok()) << arg.status();
  auto result = (*executable)->Execute({*arg});
  ASSERT_TRUE(result.ok()) << result.status();
  Literal out = (*result)->ToLiteral();
  auto data = out.data<T>();
  double worst = 0;
  T worst_x = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const double e = UlpError<T>(data[i], Reference(op, static_cast<long double>(inputs[i])));
    if (e > worst) {
      worst = e;
      worst_x = inputs[i];
    }
  }
  std::printf("TranscendentalAccuracy: %s %s max %.3f ulp (at x=%.9g) over %zu inputs\n", op.c_str(), type.c_str(),
              worst, static_cast<double>(worst_x), inputs.size());
  EXPECT_LE(worst, max_allowed) << op << " " << type << " at x=" << worst_x;
}

TEST(CpuBackendTest, TranscendentalAccuracy) {
  for (const UlpBound& u : kUlpBounds) {
    CheckAccuracy<float>(u);
    CheckAccuracy<double>(u);
  }
}

TEST(CpuBackendTest, UnaryInteger) {
  const std::vector<std::string> ops = {"abs", "negate", "sign", "not", "count-leading-zeros", "popcnt", "copy"};
  for (const std::string& t : kIntTypes) {
    for (const std::string& d : kShapes) {
      for (const std::string& op : ops) {
        RunAndCompare(Subst(absl::StrCat("HloModule m\nENTRY e {\n  p = $T$D parameter(0)\n  ROOT r = $T$D ", op,
                                         "(p)\n}\n"),
                            t, d),
                      {.tol = kExact});
      }
    }
  }
  RunAndCompare("HloModule m\nENTRY e {\n  p = pred[33] parameter(0)\n  ROOT r = pred[33] not(p)\n}\n");
}

TEST(CpuBackendTest, BinaryAllTypes) {
  const std::vector<std::string> arith = {"add", "subtract", "multiply", "divide", "remainder", "power",
                                          "maximum", "minimum"};
  const std::vector<std::string> bits = {"and", "or", "xor", "shift-left", "shift-right-logical",
                                         "shift-right-arithmetic"};
  for (const std::string& t : AllTypes()) {
    std::vector<std::string> ops;
    if (t == "pred") {
      ops = {"add", "multiply", "maximum", "minimum", "and", "or", "xor", "power"};
    } else if (t[0] == 'f' || t[0] == 'b') {
      ops = arith;
      ops.push_back("atan2");
    } else {
      ops = arith;
      ops.insert(ops.end(), bits.begin(), bits.end());
    }
    for (const std::string& d : kShapes) {
      for (const std::string& op : ops) {
        const std::string text = Subst(absl::StrCat("HloModule m\nENTRY e {\n  a = $T$D parameter(0)\n  b = $T$D "
                                                    "parameter(1)\n  ROOT r = $T$D ",
                                                    op, "(a, b)\n}\n"),
                                       t, d);
        const ErrorSpec tol = ElementwiseTol(op, t);
        RunAndCompare(text, {.tol = tol});                     // random bits: overflow, huge shifts
        RunAndCompare(text, {.tol = tol, .small_ints = 9});    // small values: x/0, x%-1, shifts in range, powers
      }
    }
  }
}

TEST(CpuBackendTest, CompareAllTypesAndDirections) {
  for (const std::string& t : AllTypes()) {
    for (const std::string dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      std::vector<std::string> types = {""};
      if (t[0] == 'f' || t[0] == 'b') types.push_back(", type=TOTALORDER");
      for (const std::string& ctype : types) {
        RunAndCompare(Subst(absl::StrCat("HloModule m\nENTRY e {\n  a = $T[3,17] parameter(0)\n  b = $T[3,17] "
                                         "parameter(1)\n  ROOT r = pred[3,17] compare(a, b), direction=",
                                         dir, ctype, "\n}\n"),
                            t, ""),
                      {.small_ints = 2});
      }
    }
  }
}

// Special float values through max/min/compare/convert/sign/round.
TEST(CpuBackendTest, FloatSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> values = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, inf, -inf, nan,
                               3e9f, -3e9f, 1e20f, -1e20f, 255.5f, 65535.9f, -129.0f};
  std::vector<float> lhs, rhs;
  for (float a : values) {
    for (float b : values) {
      lhs.push_back(a);
      rhs.push_back(b);
    }
  }
  const int64_t n = lhs.size();
  auto args = [&] {
    std::vector<Literal> v;
    v.push_back(Literal::CreateR1<float>(lhs));
    v.push_back(Literal::CreateR1<float>(rhs));
    return v;
  };
  const std::string dims = absl::StrCat("[", n, "]");
  for (const std::string op : {"maximum", "minimum", "add", "divide", "remainder", "power", "atan2"}) {
    RunAndCompare(absl::StrCat("HloModule m\nENTRY e {\n  a = f32", dims, " parameter(0)\n  b = f32", dims,
                               " parameter(1)\n  ROOT r = f32", dims, " ", op, "(a, b)\n}\n"),
                  {.args = args()});
  }
  for (const std::string dir : {"EQ", "NE", "LT", "GE"}) {
    for (const std::string ct : {"", ", type=TOTALORDER"}) {
      RunAndCompare(absl::StrCat("HloModule m\nENTRY e {\n  a = f32", dims, " parameter(0)\n  b = f32", dims,
                                 " parameter(1)\n  ROOT r = pred", dims, " compare(a, b), direction=", dir, ct,
                                 "\n}\n"),
                    {.args = args()});
    }
  }
  for (const std::string op : {"sign", "round-nearest-even", "round-nearest-afz", "is-finite"}) {
    const std::string out = op == "is-finite" ? "pred" : "f32";
    std::vector<Literal> a;
    a.push_back(Literal::CreateR1<float>(values));
    RunAndCompare(absl::StrCat("HloModule m\nENTRY e {\n  a = f32[", values.size(), "] parameter(0)\n  ROOT r = ",
                               out, "[", values.size(), "] ", op, "(a)\n}\n"),
                  {.args = std::move(a)});
  }
  // Saturating float -> int converts, NaN -> 0.
  for (const std::string& t : AllTypes()) {
    std::vector<Literal> a;
    a.push_back(Literal::CreateR1<float>(values));
    RunAndCompare(absl::StrCat("HloModule m\nENTRY e {\n  a = f32[", values.size(), "] parameter(0)\n  ROOT r = ",
                               t, "[", values.size(), "] convert(a)\n}\n"),
                  {.args = std::move(a)});
  }
  // Clamp with NaN operands and bounds.
  {
    std::vector<Literal> a;
    a.push_back(Literal::CreateR1<float>(lhs));
    a.push_back(Literal::CreateR1<float>(rhs));
    RunAndCompare(absl::StrCat("HloModule m\nENTRY e {\n  a = f32", dims, " parameter(0)\n  b = f32", dims,
                               " parameter(1)\n  lo = f32[] constant(-1)\n  ROOT r = f32", dims,
                               " clamp(lo, a, b)\n}\n"),
                  {.args = std::move(a)});
  }
}

TEST(CpuBackendTest, ConvertAllPairs) {
  for (const std::string& from : AllTypes()) {
    for (const std::string& to : AllTypes()) {
      const std::string text = absl::StrCat("HloModule m\nENTRY e {\n  a = ", from, "[5,7] parameter(0)\n  ROOT r = ",
                                            to, "[5,7] convert(a)\n}\n");
      RunAndCompare(text, {.range = 1e3});
      RunAndCompare(text, {.range = 1e20, .seed = 7});
    }
  }
}

TEST(CpuBackendTest, SelectAndClamp) {
  for (const std::string& t : AllTypes()) {
    for (const std::string d : {"[]", "[17]", "[0,3]", "[3,33]"}) {
      RunAndCompare(Subst("HloModule m\nENTRY e {\n  p = pred$D parameter(0)\n  a = $T$D parameter(1)\n  b = $T$D "
                          "parameter(2)\n  ROOT r = $T$D select(p, a, b)\n}\n",
                          t, d));
      RunAndCompare(Subst("HloModule m\nENTRY e {\n  p = pred[] parameter(0)\n  a = $T$D parameter(1)\n  b = $T$D "
                          "parameter(2)\n  ROOT r = $T$D select(p, a, b)\n}\n",
                          t, d));
      if (t == "pred") continue;
      RunAndCompare(Subst("HloModule m\nENTRY e {\n  lo = $T$D parameter(0)\n  x = $T$D parameter(1)\n  hi = $T$D "
                          "parameter(2)\n  ROOT r = $T$D clamp(lo, x, hi)\n}\n",
                          t, d));
      RunAndCompare(Subst("HloModule m\nENTRY e {\n  lo = $T[] parameter(0)\n  x = $T$D parameter(1)\n  hi = $T[] "
                          "parameter(2)\n  ROOT r = $T$D clamp(lo, x, hi)\n}\n",
                          t, d),
                    {.small_ints = 50});
    }
  }
}

// --- Shape ops, fused into an elementwise consumer ------------------------------

TEST(CpuBackendTest, FusedShapeOps) {
  for (const std::string t : {"f32", "s32", "u8", "f64", "pred", "f16", "bf16"}) {
    const std::string op = std::string(t) == "pred" ? "xor" : "add";
    auto run = [&](const std::string& body) {
      RunAndCompare(absl::StrReplaceAll(absl::StrCat("HloModule m\nENTRY e {\n", body, "}\n"), {{"$T", t}, {"$OP", op}}));
    };
    run("  a = $T[5] parameter(0)\n  b = $T[3,5] parameter(1)\n  br = $T[3,5] broadcast(a), dimensions={1}\n"
        "  ROOT r = $T[3,5] $OP(br, b)\n");
    run("  a = $T[] parameter(0)\n  b = $T[4,0,3] parameter(1)\n  br = $T[4,0,3] broadcast(a), dimensions={}\n"
        "  ROOT r = $T[4,0,3] $OP(br, b)\n");
    run("  a = $T[3,5] parameter(0)\n  b = $T[15] parameter(1)\n  rs = $T[15] reshape(a)\n"
        "  ROOT r = $T[15] $OP(rs, b)\n");
    run("  a = $T[6,5] parameter(0)\n  b = $T[3,10] parameter(1)\n  rs = $T[3,10] reshape(a)\n"
        "  ROOT r = $T[3,10] $OP(rs, b)\n");
    run("  a = $T[1,17,1] parameter(0)\n  b = $T[17] parameter(1)\n  rs = $T[17] reshape(a)\n"
        "  ROOT r = $T[17] $OP(rs, b)\n");
    run("  a = $T[2,3,5] parameter(0)\n  b = $T[5,2,3] parameter(1)\n  tr = $T[5,2,3] transpose(a), "
        "dimensions={2,0,1}\n  ROOT r = $T[5,2,3] $OP(tr, b)\n");
    run("  a = $T[10,33] parameter(0)\n  b = $T[3,8] parameter(1)\n  sl = $T[3,8] slice(a), "
        "slice={[1:10:3], [2:33:4]}\n  ROOT r = $T[3,8] $OP(sl, b)\n");
    run("  a = $T[4,7] parameter(0)\n  b = $T[4,7] parameter(1)\n  rv = $T[4,7] reverse(a), dimensions={0,1}\n"
        "  ROOT r = $T[4,7] $OP(rv, b)\n");
    run("  a = $T[2,3] parameter(0)\n  b = $T[2,4] parameter(1)\n  c = $T[2,0] parameter(2)\n"
        "  d = $T[2,11] parameter(3)\n  cc = $T[2,11] concatenate(a, b, c, b), dimensions={1}\n"
        "  ROOT r = $T[2,11] $OP(cc, d)\n");
    run("  a = $T[3,4] parameter(0)\n  v = $T[] parameter(1)\n  b = $T[8,8] parameter(2)\n"
        "  pd = $T[8,8] pad(a, v), padding=1_2_1x-1_2_1\n  ROOT r = $T[8,8] $OP(pd, b)\n");
    if (std::string(t) != "pred") {
      run("  b = $T[3,17] parameter(0)\n  io = $T[3,17] iota(), iota_dimension=1\n  ROOT r = $T[3,17] $OP(io, b)\n");
      run("  b = $T[3] parameter(0)\n  c = $T[3] constant({1, 2, 3})\n  ROOT r = $T[3] $OP(c, b)\n");
    }
  }
}

// A materialized concatenate's loop over its dimension is split into one
// loop per operand (when that dimension is not the parallel or row one):
// concatenates along each dimension and layout, with empty and repeated
// operands, fused operands, and sizes that take the parallel and row-group
// paths.
TEST(CpuBackendTest, MaterializedConcatenate) {
  for (const std::string t : {"f32", "s32", "u8", "f64", "pred", "f16", "bf16", "s64"}) {
    auto run = [&](const std::string& body) {
      const std::string unary = t[0] == 'f' || t[0] == 'b' ? "negate" : "not";
      const std::string binary = t == "pred" ? "xor" : "add";
      RunAndCompare(absl::StrReplaceAll(absl::StrCat("HloModule m\nENTRY e {\n", body, "}\n"),
                                        {{"$T", t}, {"$U", unary}, {"$B", binary}}));
    };
    run("  a = $T[3,5] parameter(0)\n  b = $T[3,0] parameter(1)\n  c = $T[3,17] parameter(2)\n"
        "  ROOT r = $T[3,27] concatenate(a, b, c, a), dimensions={1}\n");
    run("  a = $T[3,5] parameter(0)\n  b = $T[2,5] parameter(1)\n"
        "  ROOT r = $T[8,5] concatenate(a, b, a), dimensions={0}\n");
    run("  a = $T[3,5]{0,1} parameter(0)\n  b = $T[3,9]{0,1} parameter(1)\n"
        "  ROOT r = $T[3,14]{0,1} concatenate(a, b), dimensions={1}\n");
    run("  a = $T[4,3,6] parameter(0)\n  b = $T[4,1,6] parameter(1)\n  n = $T[4,1,6] $U(b)\n"
        "  ROOT r = $T[4,4,6]{2,0,1} concatenate(a, n), dimensions={1}\n");
    run("  a = $T[0,5] parameter(0)\n  b = $T[0,3] parameter(1)\n"
        "  ROOT r = $T[0,8] concatenate(a, b), dimensions={1}\n");
    // Large enough for the parallel loop; a row group of a pad and a
    // concatenate along the minor dimension (the shape of im2col patches).
    run("  a = $T[300,64] parameter(0)\n  b = $T[300,37] parameter(1)\n"
        "  ROOT r = $T[300,165] concatenate(a, b, a), dimensions={1}\n");
    // A concatenate generated inline by elementwise ops (the loop is split
    // by its operands too), next to one read at another index (not split).
    run("  a = $T[300,64] parameter(0)\n  b = $T[300,37] parameter(1)\n  d = $T[300,165] parameter(2)\n"
        "  c = $T[300,165] concatenate(a, b, a), dimensions={1}\n  n = $T[300,165] $U(c)\n"
        "  rv = $T[300,165] reverse(c), dimensions={1}\n  s = $T[300,165] $B(n, d)\n"
        "  ROOT r = $T[300,165] $B(s, rv)\n");
    run("  x = $T[4,30,30,16] parameter(0)\n  z = $T[] constant(0)\n"
        "  p = $T[4,32,32,16] pad(x, z), padding=0_0x1_1x1_1x0_0\n"
        "  s0 = $T[4,30,30,16] slice(p), slice={[0:4], [0:30], [0:30], [0:16]}\n"
        "  s1 = $T[4,30,30,16] slice(p), slice={[0:4], [1:31], [2:32], [0:16]}\n"
        "  s2 = $T[4,30,30,16] slice(p), slice={[0:4], [2:32], [1:31], [0:16]}\n"
        "  ROOT r = $T[4,30,30,48] concatenate(s0, s1, s2), dimensions={3}\n");
  }
}

// A reshape between row-major shapes is stored in its operand's loop order
// (the same linear positions): of a strided slice, of a concatenate (whose
// pieces then split that loop), into a dot, with the rows kept (a row group
// with its operand's producer) or changed; and in another layout (not
// reordered).
TEST(CpuBackendTest, MaterializedReshapes) {
  for (const std::string t : {"f32", "s8", "pred", "bf16", "f64"}) {
    auto run = [&](const std::string& body) {
      RunAndCompare(absl::StrReplaceAll(absl::StrCat("HloModule m\nENTRY e {\n", body, "}\n"), {{"$T", t}}),
                    {.tol = kExact});
    };
    run("  x = $T[6,9,10,8] parameter(0)\n"
        "  s = $T[6,4,5,8] slice(x), slice={[0:6], [1:9:2], [0:10:2], [0:8]}\n"
        "  ROOT r = $T[6,160] reshape(s)\n");
    run("  a = $T[4,3,5] parameter(0)\n  b = $T[4,2,5] parameter(1)\n"
        "  c = $T[4,5,5] concatenate(a, b), dimensions={1}\n  ROOT r = $T[4,25] reshape(c)\n");
    run("  x = $T[6,9,10] parameter(0)\n  s = $T[6,4,10] slice(x), slice={[0:6], [1:9:2], [0:10]}\n"
        "  ROOT r = $T[12,20] reshape(s)\n");
    run("  x = $T[6,4,5] parameter(0)\n  ROOT r = $T[6,20]{0,1} reshape(x)\n");
    run("  x = $T[300,6,10] parameter(0)\n  s = $T[300,3,10] slice(x), slice={[0:300], [0:6:2], [0:10]}\n"
        "  r = $T[300,30] reshape(s)\n  t = $T[300,3,10] reshape(r)\n  ROOT u = ($T[300,30], $T[300,3,10]) tuple(r, t)\n");
  }
  RunAndCompare(R"(HloModule m
ENTRY e {
  x = f32[24,9,10] parameter(0)
  s = f32[24,4,10] slice(x), slice={[0:24], [1:9:2], [0:10]}
  r = f32[24,40] reshape(s)
  w = f32[40,7] parameter(1)
  ROOT d = f32[24,7] dot(r, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                {.tol = kDotTol});
}

// The loops of a concatenate along the minor dimension (here generated
// inline in its negation's loop) each read one operand: vectorized, with no
// per-element choice of operand left.
TEST(CpuBackendTest, ConcatenateLoopsAreVectorizedCopies) {
  auto executable = CompileOnCpu(R"(HloModule m
ENTRY e {
  a = f32[512,64] parameter(0)
  b = f32[512,64] parameter(1)
  n = f32[512,64] negate(b)
  c = f32[512,192] concatenate(a, n, a), dimensions={1}
  ROOT r = f32[512,192] negate(c)
}
)");
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string& ir = static_cast<CpuExecutable*>(executable->get())->optimized_ir();
  // (One loop choosing per element was vectorized as scalar loads from
  // selected addresses.)
  EXPECT_TRUE(ir.find("load <8 x float>") != std::string::npos || ir.find("load <16 x float>") != std::string::npos)
      << ir;
  EXPECT_EQ(ir.find(" select <"), std::string::npos) << ir;
}

TEST(CpuBackendTest, ConstantsAndScalars) {
  RunAndCompare("HloModule m\nENTRY e {\n  c = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n  ROOT r = f32[2,3] "
                "negate(c)\n}\n");
  RunAndCompare("HloModule m\nENTRY e {\n  ROOT c = s32[4] constant({1, -2, 3, 4})\n}\n");
  RunAndCompare("HloModule m\nENTRY e {\n  ROOT c = f64[] constant(2.5)\n}\n");
  RunAndCompare("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  c = f32[] constant(3)\n  ROOT r = f32[] "
                "multiply(a, c)\n}\n");
}

// --- Fused chains ------------------------------------------------------------------

TEST(CpuBackendTest, GeluTanhChain) {
  for (const std::string d : {"[]", "[17]", "[1000]", "[3,33]", "[0,4]"}) {
    RunAndCompare(cpu_test::GeluHlo(d), {.range = 4});
  }
}

TEST(CpuBackendTest, BiasAddRelu) {
  for (const std::string t : {"f32", "f64", "s32"}) {
    RunAndCompare(Subst(R"(HloModule m
ENTRY e {
  x = $T[33,17] parameter(0)
  b = $T[17] parameter(1)
  bb = $T[33,17] broadcast(b), dimensions={1}
  s = $T[33,17] add(x, bb)
  z = $T[] constant(0)
  zb = $T[33,17] broadcast(z), dimensions={}
  ROOT r = $T[33,17] maximum(s, zb)
}
)",
                        t, ""));
  }
}

TEST(CpuBackendTest, SharedIntermediateAndTupleResult) {
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[9,7] parameter(0)
  b = f32[9,7] parameter(1)
  e = f32[9,7] exponential(a)
  s = f32[9,7] add(e, b)
  p = f32[9,7] multiply(e, s)
  ROOT t = (f32[9,7], f32[9,7], f32[9,7], f32[9,7], f32[9,7]) tuple(p, e, a, p, s)
}
)");
  RunAndCompare(R"(HloModule m
ENTRY e {
  t = (f32[5], (s32[3], f32[5])) parameter(0)
  a = f32[5] get-tuple-element(t), index=0
  inner = (s32[3], f32[5]) get-tuple-element(t), index=1
  b = f32[5] get-tuple-element(inner), index=1
  i = s32[3] get-tuple-element(inner), index=0
  s = f32[5] add(a, b)
  ROOT r = (f32[5], s32[3], (s32[3], f32[5])) tuple(s, i, inner)
}
)");
  RunAndCompare("HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  ROOT r = f32[4] multiply(a, a)\n}\n");
  RunAndCompare("HloModule m\nENTRY e {\n  ROOT a = f32[4,3] parameter(0)\n}\n");
}

TEST(CpuBackendTest, Layouts) {
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[3,5]{0,1} parameter(0)
  b = f32[3,5] parameter(1)
  s = f32[3,5]{0,1} add(a, b)
  ROOT t = f32[5,3]{0,1} transpose(s), dimensions={1,0}
}
)");
}

TEST(CpuBackendTest, ArgumentsInAnotherLayoutAreRelaidOut) {
  std::vector<Literal> args;
  args.push_back(Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}));  // row-major for a {0,1} parameter
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  e = f32[2,3]{0,1} exponential(a)
  ROOT m = f32[2,3]{0,1} multiply(e, e)
}
)",
                {.args = std::move(args)});
}

TEST(CpuBackendTest, NonDefaultLayoutsThroughReduceAndFusion) {
  RunAndCompare(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[7,33,5]{0,2,1} parameter(0)
  y = f32[7,33,5]{1,0,2} parameter(1)
  s = f32[7,33,5]{2,1,0} multiply(x, y)
  z = f32[] constant(0)
  r0 = f32[33,5]{0,1} reduce(s, z), dimensions={0}, to_apply=add
  r2 = f32[7,33]{0,1} reduce(s, z), dimensions={2}, to_apply=add
  t = f32[5,33]{1,0} transpose(r0), dimensions={1,0}
  ROOT out = (f32[5,33]{1,0}, f32[7,33]{0,1}, f32[33,5]{0,1}) tuple(t, r2, r0)
}
)",
                {.tol = kReduceTol});
}

// --- Reductions ---------------------------------------------------------------------

std::string ReduceModule(const std::string& type, const std::string& op, const std::string& in_dims,
                         const std::string& out_dims, const std::string& dims, const std::string& init) {
  return absl::StrCat("HloModule m\nr {\n  a = ", type, "[] parameter(0)\n  b = ", type,
                      "[] parameter(1)\n  ROOT c = ", type, "[] ", op, "(a, b)\n}\nENTRY e {\n  x = ", type, in_dims,
                      " parameter(0)\n  i = ", type, "[] constant(", init, ")\n  ROOT y = ", type, out_dims,
                      " reduce(x, i), dimensions={", dims, "}, to_apply=r\n}\n");
}

TEST(CpuBackendTest, ReduceEachDimension) {
  struct Case { std::string op, init; };
  for (const std::string t : {"f32", "f64", "s32", "u8", "s64", "f16", "bf16"}) {
    const bool is_float = t[0] == 'f' || t[0] == 'b';
    std::vector<Case> cases = {{"add", "0"}, {"maximum", is_float ? "-inf" : "0"}, {"minimum", is_float ? "inf" : "0"},
                               {"multiply", "1"}};
    for (const Case& c : cases) {
      const ErrorSpec tol = c.op == "multiply" ? ErrorSpec{1e-3, 1e-4} : kReduceTol;
      const double range = c.op == "multiply" ? 1.5 : 2.0;
      RunAndCompare(ReduceModule(t, c.op, "[5,17,33]", "[17,33]", "0", c.init), {.tol = tol, .range = range});
      RunAndCompare(ReduceModule(t, c.op, "[5,17,33]", "[5,33]", "1", c.init), {.tol = tol, .range = range});
      RunAndCompare(ReduceModule(t, c.op, "[5,17,33]", "[5,17]", "2", c.init), {.tol = tol, .range = range});
      RunAndCompare(ReduceModule(t, c.op, "[5,17,33]", "[17]", "0,2", c.init), {.tol = tol, .range = range});
      RunAndCompare(ReduceModule(t, c.op, "[5,17,33]", "[]", "0,1,2", c.init), {.tol = tol, .range = range});
      RunAndCompare(ReduceModule(t, c.op, "[]", "[]", "", c.init), {.tol = tol});
      RunAndCompare(ReduceModule(t, c.op, "[4,0]", "[4]", "1", c.init), {.tol = tol});
      RunAndCompare(ReduceModule(t, c.op, "[0,4]", "[0]", "1", c.init), {.tol = tol});
      RunAndCompare(ReduceModule(t, c.op, "[1000]", "[]", "0", c.init), {.tol = tol, .range = range});
    }
  }
  RunAndCompare(ReduceModule("pred", "and", "[7,9]", "[7]", "1", "true"));
  RunAndCompare(ReduceModule("pred", "or", "[7,9]", "[9]", "0", "false"));
}

TEST(CpuBackendTest, ReduceOfFusedProducerAndSoftmax) {
  RunAndCompare(cpu_test::SoftmaxHlo("f32", 13, 37),
                {.tol = kReduceTol});
}

TEST(CpuBackendTest, ValuesReadOnlyInsideOneLoopGetNoBuffer) {
  // d in d*d (a squared error) is generated once per element inside the
  // reduce: no buffer for d, for f32 and s32 alike.
  for (const std::string t : {"f32", "s32"}) {
    const std::string mse = absl::StrReplaceAll(R"(HloModule m
add {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT s = $T[] add(a, b)
}
ENTRY e {
  x = $T[37,129] parameter(0)
  y = $T[37,129] parameter(1)
  d = $T[37,129] subtract(x, y)
  sq = $T[37,129] multiply(d, d)
  z = $T[] constant(0)
  ROOT r = $T[] reduce(sq, z), dimensions={0,1}, to_apply=add
}
)",
                                                {{"$T", t}});
    EXPECT_EQ(cpu_test::ArenaBytes(mse), 0) << t;
    RunAndCompare(mse, {.tol = kReduceTol, .small_ints = 100});
  }
  // Read by several elementwise ops of one loop (a leaky ReLU and a SiLU of
  // a sum, a sum times its exp inside a reduce): no buffer either (the row
  // group of the loop keeps one row of it on the stack).
  for (const std::string body : {
           "  s = f32[37,129] add(x, y)\n  z = f32[] constant(0)\n  zb = f32[37,129] broadcast(z), dimensions={}\n"
           "  p = pred[37,129] compare(s, zb), direction=GT\n  c = f32[] constant(0.01)\n"
           "  cb = f32[37,129] broadcast(c), dimensions={}\n  l = f32[37,129] multiply(cb, s)\n"
           "  ROOT r = f32[37,129] select(p, s, l)\n",
           "  s = f32[37,129] add(x, y)\n  g = f32[37,129] logistic(s)\n  ROOT r = f32[37,129] multiply(s, g)\n",
           "  s = f32[37,129] add(x, y)\n  e = f32[37,129] exponential(s)\n  t = f32[37,129] multiply(s, e)\n"
           "  u = f32[37,129] add(t, s)\n  z = f32[] constant(0)\n"
           "  ROOT r = f32[37] reduce(u, z), dimensions={1}, to_apply=add\n"}) {
    const std::string text = absl::StrCat(
        "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
        "ENTRY e {\n  x = f32[37,129] parameter(0)\n  y = f32[37,129] parameter(1)\n",
        body, "}\n");
    EXPECT_EQ(cpu_test::ArenaBytes(text), 0) << text;
    RunAndCompare(text, {.tol = kReduceTol});
  }
  // Read by two loops (an elementwise result and a column sum), s is
  // stored: computing it in both would do its work twice.
  const std::string two_results = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[37,129] parameter(0)
  y = f32[37,129] parameter(1)
  s = f32[37,129] add(x, y)
  a = f32[37,129] multiply(s, s)
  z = f32[] constant(0)
  b = f32[129] reduce(s, z), dimensions={0}, to_apply=add
  ROOT t = (f32[37,129], f32[129]) tuple(a, b)
}
)";
  EXPECT_GE(cpu_test::ArenaBytes(two_results), 37 * 129 * 4);
  RunAndCompare(two_results, {.tol = kReduceTol});
  // A chain of 40 squarings: each step's value is generated twice by the
  // next, so fusing them all would emit 2^40 copies; every few steps one is
  // stored instead, and the compile is quick.
  std::string squarings = "HloModule m\nENTRY e {\n  x0 = u32[1000] parameter(0)\n";
  for (int i = 1; i <= 40; ++i) {
    absl::StrAppend(&squarings, i == 40 ? "  ROOT " : "  ", "x", i, " = u32[1000] multiply(x", i - 1, ", x", i - 1,
                    ")\n");
  }
  absl::StrAppend(&squarings, "}\n");
  EXPECT_GT(cpu_test::ArenaBytes(squarings), 0);
  RunAndCompare(squarings);
  // Read at two different indices (a concatenate of d with itself), d is
  // still stored once rather than computed twice per element.
  const std::string twice = R"(HloModule m
ENTRY e {
  x = f32[37,129] parameter(0)
  y = f32[37,129] parameter(1)
  d = f32[37,129] subtract(x, y)
  ROOT c = f32[74,129] concatenate(d, d), dimensions={0}
}
)";
  EXPECT_GE(cpu_test::ArenaBytes(twice), 37 * 129 * 4);
  RunAndCompare(twice);
}

// --- Dot ----------------------------------------------------------------------------

std::string DotModule(const std::string& t, int64_t m, int64_t k, int64_t n) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", t, "[", m, ",", k, "] parameter(0)\n  b = ", t, "[", k, ",",
                      n, "] parameter(1)\n  ROOT d = ", t, "[", m, ",", n,
                      "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
}

TEST(CpuBackendTest, DotShapesAndTypes) {
  const std::vector<std::array<int64_t, 3>> sizes = {{1, 1, 1}, {7, 13, 5}, {64, 64, 64}, {3, 0, 4}, {0, 5, 2}, {33, 17, 1}};
  for (const std::string t : {"f32", "f64", "s32", "u8", "s64", "pred", "f16", "bf16"}) {
    for (const auto& [m, k, n] : sizes) RunAndCompare(DotModule(t, m, k, n), {.tol = kDotTol});
  }
}

TEST(CpuBackendTest, DotVariants) {
  // Transposed operands through contracting dimensions and layouts.
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[13,7] parameter(0)
  b = f32[5,13] parameter(1)
  ROOT d = f32[7,5] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
}
)",
                {.tol = kDotTol});
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f64[7,13]{0,1} parameter(0)
  b = f64[13,5]{0,1} parameter(1)
  ROOT d = f64[7,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                {.tol = kDotTol});
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[7,13] parameter(0)
  b = f32[13,5] parameter(1)
  ROOT d = f32[7,5]{0,1} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                {.tol = kDotTol});
  // Batched, through the runtime (leading batch dims) and elementally.
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[3,7,13] parameter(0)
  b = f32[3,13,5] parameter(1)
  ROOT d = f32[3,7,5] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}
)",
                {.tol = kDotTol});
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[7,3,13] parameter(0)
  b = f32[13,5,3] parameter(1)
  ROOT d = f32[3,7,5] dot(a, b), lhs_batch_dims={1}, rhs_batch_dims={2}, lhs_contracting_dims={2}, rhs_contracting_dims={0}
}
)",
                {.tol = kDotTol});
  // Vector dots and a dot feeding a fused epilogue.
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[17] parameter(0)
  b = f32[17] parameter(1)
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
)",
                {.tol = kDotTol});
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[9,17] parameter(0)
  b = f32[17,6] parameter(1)
  bias = f32[6] parameter(2)
  d = f32[9,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[9,6] broadcast(bias), dimensions={1}
  s = f32[9,6] add(d, bb)
  z = f32[] constant(0)
  zb = f32[9,6] broadcast(z), dimensions={}
  ROOT r = f32[9,6] maximum(s, zb)
}
)",
                {.tol = kDotTol});
  // An operand that is itself a fused expression.
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[8,16] parameter(0)
  b = f32[16,8] parameter(1)
  ea = f32[8,16] exponential(a)
  ROOT d = f32[8,8] dot(ea, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                {.tol = kDotTol});
}

// --- Gather ---------------------------------------------------------------------------

std::string GatherModule(const std::string& operand, const std::string& indices, const std::string& result,
                         const std::string& attrs) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", operand, " parameter(0)\n  i = ", indices,
                      " parameter(1)\n  ROOT g = ", result, " gather(a, i), ", attrs, "\n}\n");
}

TEST(CpuBackendTest, GatherRowsOfEveryType) {
  // Indices in [-10, 10] over 7 rows: in range, and clamped on both sides.
  for (const std::string& t : AllTypes()) {
    RunAndCompare(GatherModule(t + "[7,5]", "s32[4]", t + "[4,5]",
                               "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
                               "slice_sizes={1,5}"),
                  {.tol = kExact, .small_ints = 10});
  }
}

TEST(CpuBackendTest, GatherIndexTypesAndAttributes) {
  // Random index bits of every integral type (huge, negative, u64 above
  // INT64_MAX), 2-d windows of a 6x7 operand.
  for (const std::string& it : kIntTypes) {
    RunAndCompare(GatherModule("f32[6,7]", it + "[3,2]", "f32[3,2,3]",
                               "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, "
                               "index_vector_dim=1, slice_sizes={2,3}"),
                  {.tol = kExact});
  }
  // Index vectors down dimension 0, mapped in reverse; operand column-major.
  RunAndCompare(GatherModule("s16[6,7]{0,1}", "s32[2,4]", "s16[4]",
                             "offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={1,0}, index_vector_dim=0, "
                             "slice_sizes={1,1}"),
                {.tol = kExact, .small_ints = 8});
  // A scalar index (index_vector_dim = rank 0) and an offset dimension first.
  RunAndCompare(GatherModule("f64[7,5]", "u8[]", "f64[7]",
                             "offset_dims={0}, collapsed_slice_dims={1}, start_index_map={1}, index_vector_dim=0, "
                             "slice_sizes={7,1}"),
                {.tol = kExact, .small_ints = 6});
  // Operand batching dimensions paired with start_indices dimension 0.
  RunAndCompare(GatherModule("f32[3,6,4]", "s64[3,5,1]", "f32[3,5,4]",
                             "offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, "
                             "operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, "
                             "slice_sizes={1,1,4}"),
                {.tol = kExact, .small_ints = 7});
  // Size-0 results: no indices, and empty slices.
  RunAndCompare(GatherModule("f32[7,5]", "s32[0]", "f32[0,5]",
                             "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
                             "slice_sizes={1,5}"),
                {.tol = kExact});
  RunAndCompare(GatherModule("f32[7,0]", "s32[3]", "f32[3,0]",
                             "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
                             "slice_sizes={1,0}"),
                {.tol = kExact});
}

TEST(CpuBackendTest, GatherFusesWithItsOperandAndUser) {
  // An embedding lookup of a computed table followed by elementwise work:
  // one loop, the table never materialized.
  const std::string text = R"(HloModule m
ENTRY e {
  table = f32[50,8] parameter(0)
  ids = s32[6] parameter(1)
  sq = f32[50,8] multiply(table, table)
  g = f32[6,8] gather(sq, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}
  one = f32[] constant(1)
  ones = f32[6,8] broadcast(one), dimensions={}
  ROOT r = f32[6,8] add(g, ones)
}
)";
  RunAndCompare(text, {.tol = kExact, .small_ints = 60});
  EXPECT_EQ(cpu_test::ArenaBytes(text), 0);
}

// --- Convolution ----------------------------------------------------------------------

std::string ConvModule(const std::string& lhs, const std::string& rhs, const std::string& result,
                       const std::string& attrs) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", lhs, " parameter(0)\n  b = ", rhs,
                      " parameter(1)\n  ROOT c = ", result, " convolution(a, b), ", attrs, "\n}\n");
}

TEST(CpuBackendTest, ConvolutionTypes) {
  // A 3x3 same-padded NHWC convolution (TensorFlow's layout), every number type.
  for (const std::string t : {"f32", "f64", "f16", "bf16", "s32", "s8", "u16", "s64"}) {
    RunAndCompare(ConvModule(t + "[2,9,9,3]", t + "[3,3,3,4]", t + "[2,9,9,4]",
                             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
                  {.tol = ConvolutionTol(t), .small_ints = 20});
  }
}

TEST(CpuBackendTest, ConvolutionWindowsAndDimensionNumbers) {
  const std::vector<std::array<std::string, 4>> cases = {
      // Strided, padded low/high unevenly (TensorFlow's SAME with stride 2).
      {"f32[1,10,10,3]", "f32[3,3,3,5]", "f32[1,5,5,5]",
       "window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f"},
      // NCHW / OIHW, odd sizes, 1x1 kernel.
      {"f32[3,4,7,5]", "f32[6,4,1,1]", "f32[3,6,7,5]", "window={size=1x1}, dim_labels=bf01_oi01->bf01"},
      // Dilations, window reversal and negative padding.
      {"f32[2,3,11]", "f32[4,3,3]", "f32[2,4,19]", "window={size=3 pad=1_-1 lhs_dilate=2}, dim_labels=bf0_oi0->bf0"},
      {"f32[2,3,11]", "f32[4,3,3]", "f32[2,4,7]", "window={size=3 rhs_dilate=2}, dim_labels=bf0_oi0->bf0"},
      {"f32[2,3,11]", "f32[4,3,3]", "f32[2,4,6]",
       "window={size=3 stride=2 pad=1_1 rhs_reversal=1}, dim_labels=bf0_oi0->bf0"},
      // Depthwise (feature groups = channels, multiplier 2) and grouped.
      {"f32[1,8,8,6]", "f32[3,3,1,12]", "f32[1,8,8,12]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=6"},
      {"f32[2,6,6,6]", "f32[2,2,3,4]", "f32[2,5,5,4]",
       "window={size=2x2}, dim_labels=b01f_01io->b01f, feature_group_count=2"},
      // Batch groups (a weight gradient's shape).
      {"f32[4,5,5,3]", "f32[2,2,3,6]", "f32[2,4,4,6]",
       "window={size=2x2}, dim_labels=b01f_01io->b01f, batch_group_count=2"},
      // Transposed layouts of all three, a 3-d convolution, and a kernel
      // larger than the padded input (empty spatial result).
      {"f32[2,6,6,3]{1,2,3,0}", "f32[3,3,3,4]{0,1,3,2}", "f32[2,4,4,4]{2,1,3,0}",
       "window={size=3x3}, dim_labels=b01f_01io->b01f"},
      {"f32[1,5,4,6,2]", "f32[2,2,3,2,3]", "f32[1,4,3,4,3]", "window={size=2x2x3}, dim_labels=b012f_012io->b012f"},
      {"f32[1,2,2,1]", "f32[3,3,1,1]", "f32[1,0,0,1]", "window={size=3x3}, dim_labels=b01f_01io->b01f"},
      {"f32[0,4,4,2]", "f32[3,3,2,2]", "f32[0,2,2,2]", "window={size=3x3}, dim_labels=b01f_01io->b01f"},
  };
  for (const auto& [lhs, rhs, result, attrs] : cases) {
    RunAndCompare(ConvModule(lhs, rhs, result, attrs), {.tol = ConvolutionTol("f32")});
  }
}

TEST(CpuBackendTest, ConvolutionsWithLargeKernels) {
  // Kernels beyond im2col's positions (a weight gradient's), and batch
  // groups: one dot per output position. Sums of 3267 products in another order: the tolerance
  // is that of such sums, sqrt(n) to n roundings of values near 100.
  const ErrorSpec tol{2e-3, 2e-4};
  RunAndCompare(ConvModule("f32[2,36,36,3]", "f32[33,33,3,4]", "f32[2,4,4,4]",
                           "window={size=33x33}, dim_labels=b01f_01io->b01f"),
                {.tol = tol});
  // A depthwise convolution's weight gradient (batch groups).
  RunAndCompare(ConvModule("f32[3,10,10,4]", "f32[3,10,10,4]", "f32[1,3,3,4]",
                           "window={size=10x10 pad=1_1x1_1}, dim_labels=f01b_i01o->b01f, batch_group_count=4"),
                {.tol = kConvolutionTol});
  // A weight gradient's dimension numbers, strided, into a transposed layout.
  RunAndCompare(ConvModule("f32[3,35,35,2]", "f32[3,33,33,4]", "f32[3,3,2,4]{0,1,3,2}",
                           "window={size=33x33 stride=2x2 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"),
                {.tol = tol});
}

TEST(CpuBackendTest, ConvolutionWithFusedOperandsAndEpilogue) {
  // A conv layer: the input computed elementwise, bias add and ReLU6 after.
  RunAndCompare(R"(HloModule m
ENTRY e {
  x = f32[1,12,12,4] parameter(0)
  w = f32[3,3,4,8] parameter(1)
  bias = f32[8] parameter(2)
  half = f32[] constant(0.5)
  halves = f32[1,12,12,4] broadcast(half), dimensions={}
  xs = f32[1,12,12,4] multiply(x, halves)
  c = f32[1,6,6,8] convolution(xs, w), window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f
  bb = f32[1,6,6,8] broadcast(bias), dimensions={3}
  s = f32[1,6,6,8] add(c, bb)
  zero = f32[] constant(0)
  six = f32[] constant(6)
  ROOT r = f32[1,6,6,8] clamp(zero, s, six)
}
)",
                {.tol = ConvolutionTol("f32")});
}

// --- Scatter --------------------------------------------------------------------------

// (value, index) pairs: the larger value, the first one on ties.
constexpr char kArgmax[] = R"(argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(bv, av), direction=GT
  v = f32[] select(gt, bv, av)
  i = s32[] select(gt, bi, ai)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
)";

std::string ScatterModule(const std::string& t, const std::string& operand, const std::string& indices,
                          const std::string& updates, const std::string& combine, const std::string& dims) {
  return absl::StrCat("HloModule m\nc {\n  a = ", t, "[] parameter(0)\n  b = ", t, "[] parameter(1)\n  ROOT r = ", t,
                      "[] ", combine, "\n}\nENTRY e {\n  x = ", t, operand, " parameter(0)\n  i = ", indices,
                      " parameter(1)\n  u = ", t, updates, " parameter(2)\n  ROOT s = ", t, operand,
                      " scatter(x, i, u), ", dims, ", to_apply=c\n}\n");
}

// (value, index) rows scattered by row index and combined by kArgmax; the
// value result in `value_layout` ("" for the default).
std::string ArgmaxScatterModule(int64_t rows, int64_t cols, int64_t updates, const std::string& value_layout) {
  return absl::StrReplaceAll(std::string("HloModule m\n") + kArgmax + R"(ENTRY e {
  x = f32[$R,$C] parameter(0)
  xi = s32[$R,$C] parameter(1)
  ids = s32[$U] parameter(2)
  u = f32[$U,$C] parameter(3)
  ui = s32[$U,$C] parameter(4)
  ROOT s = (f32[$R,$C]$L, s32[$R,$C]) scatter(x, xi, ids, u, ui), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=argmax
}
)",
                             {{"$R", absl::StrCat(rows)}, {"$C", absl::StrCat(cols)}, {"$U", absl::StrCat(updates)},
                              {"$L", value_layout}});
}

TEST(CpuBackendTest, ScatterOfEveryTypeWithCollisions) {
  // Indices in [-10, 10] over 7 rows: collisions, and rows out of range
  // (skipped); add, and a non-commutative combiner.
  const std::string rows =
      "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";
  for (const std::string t : {"f32", "f64", "s32", "u8", "s64", "f16", "bf16"}) {
    RunAndCompare(ScatterModule(t, "[7,5]", "s32[12]", "[12,5]", "add(a, b)", rows),
                  {.tol = kExact, .small_ints = 10});
    RunAndCompare(ScatterModule(t, "[7,5]", "s32[12]", "[12,5]", "subtract(a, b)", rows),
                  {.tol = kExact, .small_ints = 10});
  }
  RunAndCompare(ScatterModule("pred", "[7,5]", "s32[12]", "[12,5]", "or(a, b)", rows), {.tol = kExact, .small_ints = 10});
}

TEST(CpuBackendTest, VariadicScatterAndResultLayouts) {
  // (value, index) pairs combined by a max-with-index computation, results
  // in a layout other than the operands'.
  RunAndCompare(ArgmaxScatterModule(6, 4, 10, "{0,1}"), {.tol = kExact, .small_ints = 8});
  RunAndCompare(R"(HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, b)
}
ENTRY e {
  x = s32[6,4] parameter(0)
  ids = s32[10] parameter(1)
  u = s32[10,4] parameter(2)
  ROOT s = s32[6,4]{0,1} scatter(x, ids, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)",
                {.tol = kExact, .small_ints = 8});
}

TEST(CpuBackendTest, ScatterIndexTypesAndWindows) {
  // 2-d windows at 2-d starts of every index type (random bits: most out of
  // range), and with small values.
  const std::string windows =
      "update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1";
  for (const std::string& it : kIntTypes) {
    RunAndCompare(ScatterModule("f32", "[6,7]", it + "[4,2]", "[4,2,3]", "add(a, b)", windows), {.tol = kExact});
    RunAndCompare(ScatterModule("f32", "[6,7]", it + "[4,2]", "[4,2,3]", "add(a, b)", windows),
                  {.tol = kExact, .small_ints = 6});
  }
  // Index vectors down dimension 0, a replacing combiner, a transposed
  // operand; and batching dimensions.
  RunAndCompare(ScatterModule("s32", "[6,7]{0,1}", "s32[2,5]", "[5]", "copy(b)",
                              "update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={1,0}, "
                              "index_vector_dim=0"),
                {.tol = kExact, .small_ints = 7});
  RunAndCompare(ScatterModule("f32", "[3,6,4]", "s64[3,5,1]", "[3,5,4]", "add(a, b)",
                              "update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, "
                              "input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2"),
                {.tol = kExact, .small_ints = 7});
  // Into a computed operand (zeros: a gradient accumulator), which must
  // not be fused into the scatter's loops.
  RunAndCompare(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  ids = s32[9] parameter(0)
  g = f32[9,8] parameter(1)
  z = f32[] constant(0)
  zb = f32[6,8] broadcast(z), dimensions={}
  ROOT s = f32[6,8] scatter(zb, ids, g), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)",
                {.tol = kExact, .small_ints = 7});
  // No updates.
  RunAndCompare(ScatterModule("f32", "[6,7]", "s32[0]", "[0,7]", "add(a, b)",
                              "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                              "index_vector_dim=1"),
                {.tol = kExact});
}

// Scatters with enough updates to run in bands of the operand's rows, one
// worker per band: collisions still combine in the evaluator's order (float
// sums exactly, the last of colliding replacements, argmax ties), with
// out-of-range indices skipped.
TEST(CpuBackendTest, LargeScatterKeepsTheEvaluatorsOrder) {
  const std::string rows =
      "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";
  RunAndCompare(ScatterModule("f32", "[300,8]", "s32[9000]", "[9000,8]", "add(a, b)", rows),
                {.tol = kExact, .small_ints = 310});
  RunAndCompare(ScatterModule("s32", "[300,8]{0,1}", "s32[9000]", "[9000,8]", "copy(b)", rows),
                {.tol = kExact, .small_ints = 310});
  RunAndCompare(ArgmaxScatterModule(200, 40, 2000, ""), {.tol = kExact, .small_ints = 200});
  // A batch of one: the bands run along the 300 rows of dimension 1.
  RunAndCompare(ScatterModule("f32", "[1,300,8]", "s32[9000]", "[9000,1,8]", "add(a, b)",
                              "update_window_dims={1,2}, inserted_window_dims={1}, "
                              "scatter_dims_to_operand_dims={1}, index_vector_dim=1"),
                {.tol = kExact, .small_ints = 310});
}

// --- Reduce-window --------------------------------------------------------------------

std::string ReduceWindowModule(const std::string& t, const std::string& operand, const std::string& result,
                               const std::string& op, const std::string& init, const std::string& window) {
  return absl::StrCat("HloModule m\nr {\n  a = ", t, "[] parameter(0)\n  b = ", t, "[] parameter(1)\n  ROOT c = ", t,
                      "[] ", op, "(a, b)\n}\nENTRY e {\n  x = ", t, operand, " parameter(0)\n  i = ", t, "[] constant(",
                      init, ")\n  ROOT w = ", t, result, " reduce-window(x, i), window={", window, "}, to_apply=r\n}\n");
}

TEST(CpuBackendTest, ReduceWindowPoolingOfEveryType) {
  // 3x3 max pooling, stride 2, SAME padding (TensorFlow's), NHWC; and a sum.
  for (const std::string t : {"f32", "f64", "f16", "bf16", "s32", "u8", "s64"}) {
    RunAndCompare(ReduceWindowModule(t, "[2,9,9,3]", "[2,5,5,3]", "maximum", "0",
                                     "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0"),
                  {.tol = kExact, .small_ints = 50});
    RunAndCompare(ReduceWindowModule(t, "[2,9,9,3]", "[2,4,4,3]", "add", "0", "size=1x2x2x1 stride=1x2x2x1"),
                  {.tol = t == "f16" || t == "bf16" ? ConvolutionTol(t) : kReduceTol, .small_ints = 50});
  }
}

TEST(CpuBackendTest, ReduceWindowWindowsAndLayouts) {
  const std::vector<std::array<std::string, 3>> cases = {
      // Base and window dilation, negative and uneven padding.
      {"[13,7]", "[12,3]", "size=3x2 stride=2x2 pad=1_-1x0_1 lhs_dilate=2x1 rhs_dilate=1x2"},
      // A window as large as the padded input, and size-0 results.
      {"[5,4]", "[1,1]", "size=7x4 pad=1_1x0_0"},
      {"[0,4]", "[0,3]", "size=1x2"},
      {"[3,4]", "[3,0]", "size=1x5"},
      // Rank 1 and rank 3 with a transposed layout.
      {"[100]", "[34]", "size=5 stride=3 pad=2_2"},
      {"[4,6,5]{0,2,1}", "[4,3,5]", "size=1x2x1 stride=1x2x1"},
      // Windows of more than kMaxStraightLineWindowPositions positions fold
      // in a loop over the window (smaller ones in straight-line code).
      {"[20,21]", "[5,5]", "size=9x9 stride=3x3 pad=1_0x0_0"},
      {"[2,10,10,3]", "[2,1,1,3]", "size=1x10x10x1"},
  };
  for (const auto& [operand, result, window] : cases) {
    RunAndCompare(ReduceWindowModule("f32", operand, result, "maximum", "-inf", window), {.tol = kExact});
    RunAndCompare(ReduceWindowModule("s32", operand, result, "add", "0", window), {.tol = kExact, .small_ints = 9});
  }
  // A non-identity init value counts once per padding position, as in the
  // evaluator (the document pads with init values).
  RunAndCompare(ReduceWindowModule("s32", "[6]", "[7]", "add", "3", "size=2 pad=1_1"), {.tol = kExact});
}

// Pooling's small windows are folded position by position inside the loop
// over features, which is then innermost and vectorized.
TEST(CpuBackendTest, SmallReduceWindowsVectorizeOverFeatures) {
  static_assert(9 <= kMaxStraightLineWindowPositions);
  const std::string text = ReduceWindowModule("f32", "[2,13,13,24]", "[2,7,7,24]", "maximum", "-inf",
                                              "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0");
  auto executable = CompileOnCpu(text);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string& ir = static_cast<CpuExecutable*>(executable->get())->optimized_ir();
  // (With the window as a loop, the module had no vector code at all.)
  EXPECT_GT(cpu_test::CountOccurrences(ir, " x float>"), 0) << ir;
  RunAndCompare(text, {.tol = kExact});
}

// Long bf16 bodies in loops of a few iterations: LLVM's vectorizer, masking
// their tail, never finished compiling these (loop_emitter.h,
// kMinVectorizedTripCount).
TEST(CpuBackendTest, LongBf16BodiesOverFewElementsCompile) {
  // (tanh may round to the neighbouring bf16 value, which 1 + tanh(x) then
  // magnifies where it cancels: an absolute bound too.)
  RunAndCompare(cpu_test::GeluHlo("[7,5]", "bf16"), {.tol = ErrorSpec{2e-2, 2e-2}});
  for (const std::string features : {"3", "5", "9"}) {
    RunAndCompare(ReduceWindowModule("bf16", "[2,9,9," + features + "]", "[2,5,5," + features + "]", "maximum",
                                     "-inf", "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0"),
                  {.tol = kExact});
  }
}

TEST(CpuBackendTest, VariadicReduceWindowArgmaxPooling) {
  // (value, index) pairs: the first maximum's index in each 2x2 window,
  // padding positions holding the init pair.
  RunAndCompare(std::string("HloModule m\n") + kArgmax + R"(ENTRY e {
  x = f32[2,7,7,3] parameter(0)
  idx = s32[2,7,7,3] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  none = s32[] constant(-1)
  ROOT w = (f32[2,4,4,3], s32[2,4,4,3]) reduce-window(x, idx, lo, none), window={size=1x2x2x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0}, to_apply=argmax
}
)",
                {.tol = kExact});
}

TEST(CpuBackendTest, SelectAndScatterIsMaxPoolingsGradient) {
  // 3x3/2 SAME max pooling's gradient over NHWC, several types; overlapping
  // windows accumulate, ties pick the first (GE), padding never selected.
  for (const std::string t : {"f32", "f64", "s32", "bf16"}) {
    RunAndCompare(cpu_test::MaxPoolGradientHlo(t, "[2,9,9,3]", "[2,5,5,3]",
                                               "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0"),
                  {.tol = t == "bf16" ? ConvolutionTol(t) : kExact, .small_ints = 4});
  }
}

TEST(CpuBackendTest, ReduceWindowOfAFusedOperandAndGeneralReducer) {
  // Average pooling after a ReLU, with a reducer that is not a single op.
  RunAndCompare(R"(HloModule m
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  ROOT m = f32[] maximum(s, a)
}
ENTRY e {
  x = f32[1,8,8,4] parameter(0)
  z = f32[] constant(0)
  zs = f32[1,8,8,4] broadcast(z), dimensions={}
  relu = f32[1,8,8,4] maximum(x, zs)
  w = f32[1,4,4,4] reduce-window(relu, z), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=r
  q = f32[] constant(0.25)
  qs = f32[1,4,4,4] broadcast(q), dimensions={}
  ROOT avg = f32[1,4,4,4] multiply(w, qs)
}
)",
                {.tol = kReduceTol});
}

// --- Control flow ---------------------------------------------------------------------

// A counted loop over tuple state (s32 counter, f32 vector, f64 scalar).
TEST(CpuBackendTest, WhileCounted) {
  for (const std::string n : {"0", "1", "10"}) {
    RunAndCompare(absl::StrReplaceAll(R"(HloModule m
cond {
  s = (s32[], f32[17], f64[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant($N)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[17], f64[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[17] get-tuple-element(s), index=1
  a = f64[] get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  t = f32[17] tanh(x)
  h = f32[] constant(1.5)
  hb = f32[17] broadcast(h), dimensions={}
  x1 = f32[17] multiply(t, hb)
  c = f64[] constant(0.5)
  a1 = f64[] multiply(a, c)
  ROOT r = (s32[], f32[17], f64[]) tuple(i1, x1, a1)
}
ENTRY e {
  z = s32[] constant(0)
  x = f32[17] parameter(0)
  a = f64[] parameter(1)
  init = (s32[], f32[17], f64[]) tuple(z, x, a)
  w = (s32[], f32[17], f64[]) while(init), condition=cond, body=body
  ROOT y = f32[17] get-tuple-element(w), index=1
}
)", {{"$N", n}}),
                  {.tol = kTranscendentalF32Tol});
  }
}

// Trip count from the data: double x until it reaches a limit; array state;
// the whole tuple is the result.
TEST(CpuBackendTest, WhileDataDependentAndNested) {
  const std::string text = R"(HloModule m
cond {
  s = (s32[], s32[]) parameter(0)
  x = s32[] get-tuple-element(s), index=0
  lim = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(x, lim), direction=LT
}
inner_cond {
  t = (s32[], s32[3]) parameter(0)
  j = s32[] get-tuple-element(t), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(j, k), direction=LT
}
inner_body {
  t = (s32[], s32[3]) parameter(0)
  j = s32[] get-tuple-element(t), index=0
  v = s32[3] get-tuple-element(t), index=1
  one = s32[] constant(1)
  j1 = s32[] add(j, one)
  jb = s32[3] broadcast(j), dimensions={}
  v1 = s32[3] add(v, jb)
  ROOT r = (s32[], s32[3]) tuple(j1, v1)
}
body {
  s = (s32[], s32[]) parameter(0)
  x = s32[] get-tuple-element(s), index=0
  lim = s32[] get-tuple-element(s), index=1
  z = s32[] constant(0)
  zv = s32[3] broadcast(x), dimensions={}
  it = (s32[], s32[3]) tuple(z, zv)
  iw = (s32[], s32[3]) while(it), condition=inner_cond, body=inner_body
  v = s32[3] get-tuple-element(iw), index=1
  v0 = s32[1] slice(v), slice={[2:3]}
  x2 = s32[] reshape(v0)
  two = s32[] constant(2)
  x3 = s32[] multiply(x2, two)
  ROOT r = (s32[], s32[]) tuple(x3, lim)
}
ENTRY e {
  x = s32[] parameter(0)
  lim = s32[] parameter(1)
  init = (s32[], s32[]) tuple(x, lim)
  ROOT w = (s32[], s32[]) while(init), condition=cond, body=body
}
)";
  for (const auto& [x, lim] : std::vector<std::pair<int32_t, int32_t>>{{1, 1000}, {5, 3}, {-7, 100}, {2, 2}}) {
    std::vector<Literal> args;
    args.push_back(Literal::CreateR0<int32_t>(x));
    args.push_back(Literal::CreateR0<int32_t>(lim));
    RunAndCompare(text, {.tol = kExact, .args = std::move(args)});
  }
}

TEST(CpuBackendTest, ConditionalPredAndIndexAndCall) {
  const std::string pred_text = R"(HloModule m
on_true {
  p = (f32[5], f32[5]) parameter(0)
  a = f32[5] get-tuple-element(p), index=0
  b = f32[5] get-tuple-element(p), index=1
  ROOT r = f32[5] add(a, b)
}
on_false {
  q = f32[5] parameter(0)
  ROOT r = f32[5] exponential(q)
}
ENTRY e {
  c = pred[] parameter(0)
  a = f32[5] parameter(1)
  b = f32[5] parameter(2)
  t = (f32[5], f32[5]) tuple(a, b)
  ROOT r = f32[5] conditional(c, t, b), true_computation=on_true, false_computation=on_false
}
)";
  for (bool c : {true, false}) {
    std::mt19937_64 rng(3);
    std::vector<Literal> args;
    args.push_back(Literal::CreateR0<bool>(c));
    args.push_back(RandomLiteral(ShapeUtil::MakeShape(F32, {5}), rng, 2, 0));
    args.push_back(RandomLiteral(ShapeUtil::MakeShape(F32, {5}), rng, 2, 0));
    RunAndCompare(pred_text, {.tol = kTranscendentalF32Tol, .args = std::move(args)});
  }
  const std::string index_text = R"(HloModule m
b0 {
  p = s32[4] parameter(0)
  p0 = s32[] constant(100)
  ROOT r = (s32[4], s32[]) tuple(p, p0)
}
b1 {
  p = s32[4] parameter(0)
  n = s32[4] negate(p)
  c = s32[] constant(101)
  ROOT r = (s32[4], s32[]) tuple(n, c)
}
b2 {
  p = s32[4] parameter(0)
  m = s32[4] multiply(p, p)
  c = s32[] constant(102)
  ROOT r = (s32[4], s32[]) tuple(m, c)
}
helper {
  a = s32[4] parameter(0)
  b = s32[4] parameter(1)
  ROOT s = s32[4] subtract(a, b)
}
ENTRY e {
  i = s32[] parameter(0)
  x = s32[4] parameter(1)
  y = s32[4] call(x, x), to_apply=helper
  z = s32[4] add(y, x)
  ROOT r = (s32[4], s32[]) conditional(i, z, x, z), branch_computations={b0, b1, b2}
}
)";
  for (int32_t i : {-1, 0, 1, 2, 3, 1000}) {
    std::vector<Literal> args;
    args.push_back(Literal::CreateR0<int32_t>(i));
    args.push_back(Literal::CreateR1<int32_t>({3, -4, 5, 7}));
    RunAndCompare(index_text, {.tol = kExact, .args = std::move(args)});
  }
}

// --- What is not implemented yet ----------------------------------------------------

TEST(CpuBackendTest, UnimplementedIsAnError) {
  const std::vector<std::string> modules = {
      "HloModule m\nENTRY e {\n  a = c64[4] parameter(0)\n  ROOT r = c64[4] fft(a), fft_type=FFT, fft_length={4}\n}\n",
      "HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  ROOT r = f32[4] sort(a), dimensions={0}, to_apply=lt\n}\n",
      // Unsupported inside a while body: still an error at compile time.
      "HloModule m\ncond {\n  s = c64[4] parameter(0)\n  ROOT f = pred[] constant(false)\n}\nbody {\n  s = c64[4] "
      "parameter(0)\n  ROOT n = c64[4] fft(s), fft_type=FFT, fft_length={4}\n}\nENTRY e {\n  a = c64[4] parameter(0)\n  ROOT w = c64[4] "
      "while(a), condition=cond, body=body\n}\n",
  };
  for (const std::string& text : modules) {
    auto module = ParseHloModule(text);
    if (!module.ok()) continue;  // a module the parser rejects tests nothing here
    auto executable = CpuBackendOrDie()->compiler()->Compile(std::move(*module), DebugOptions());
    ASSERT_FALSE(executable.ok()) << text;
    EXPECT_EQ(executable.status().code(), absl::StatusCode::kUnimplemented) << executable.status();
    EXPECT_NE(executable.status().message().find("CPU backend"), std::string::npos) << executable.status();
  }
}

// --- Code quality ---------------------------------------------------------------------

TEST(CpuBackendTest, ElementwiseLoopIsVectorized) {
  auto executable = CompileOnCpu(R"(HloModule m
ENTRY e {
  a = f32[1003] parameter(0)
  b = f32[1003] parameter(1)
  bias = f32[] constant(1.5)
  bb = f32[1003] broadcast(bias), dimensions={}
  s = f32[1003] multiply(a, b)
  ROOT r = f32[1003] add(s, bb)
}
)");
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string& ir = static_cast<CpuExecutable*>(executable->get())->optimized_ir();
  EXPECT_NE(ir.find("x float>"), std::string::npos) << ir;
}

// Only innermost loops are unrolled: a strided slice's loop over rows of
// 512 elements keeps one copy of its (fully unrolled) row loop, 64 vector
// stores, instead of one per row (640).
TEST(CpuBackendTest, OuterLoopsAreNotUnrolled) {
  auto executable = CompileOnCpu(R"(HloModule m
ENTRY e {
  x = f32[1,19,19,512] parameter(0)
  ROOT s = f32[1,9,10,512] slice(x), slice={[0:1], [1:18:2], [0:19:2], [0:512]}
}
)");
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string& ir = static_cast<CpuExecutable*>(executable->get())->optimized_ir();
  const int stores = cpu_test::CountOccurrences(ir, "store <8 x float>") + cpu_test::CountOccurrences(ir, "store <16 x float>");
  EXPECT_GT(stores, 0) << ir;
  EXPECT_LE(stores, 128) << ir;
}

TEST(CpuBackendTest, RowReductionIsVectorized) {
  auto executable = CompileOnCpu(ReduceModule("f32", "add", "[64,1024]", "[64]", "1", "0"));
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string& ir = static_cast<CpuExecutable*>(executable->get())->optimized_ir();
  EXPECT_NE(ir.find("x float>"), std::string::npos) << ir;
}

// GELU-tanh and softmax loops are vectorized, transcendentals included: no
// scalar libm call is left in the optimized IR.
TEST(CpuBackendTest, TranscendentalLoopsAreVectorized) {
  const std::string gelu = cpu_test::GeluHlo("[4099]");
  const std::string softmax = cpu_test::SoftmaxHlo("f32", 64, 1024);
  const std::string others = R"(HloModule m
ENTRY e {
  x = f32[1003] parameter(0)
  l = f32[1003] log(x)
  s = f32[1003] logistic(l)
  ROOT r = f32[1003] erf(s)
}
)";
  for (const std::string& text : {gelu, softmax, others}) {
    auto executable = CompileOnCpu(text);
    ASSERT_TRUE(executable.ok()) << executable.status();
    const std::string& ir = static_cast<CpuExecutable*>(executable->get())->optimized_ir();
    EXPECT_TRUE(ir.find("<8 x float>") != std::string::npos || ir.find("<16 x float>") != std::string::npos) << ir;
    for (const char* call : {"@expf", "@tanhf", "@logf", "@erff", "@llvm.exp.", "@llvm.log."}) {
      EXPECT_EQ(ir.find(call), std::string::npos) << call << "\n" << ir;
    }
  }
}

// The GELU loop body at full vector width is short: tanh is one rational
// function (no branch values to select between, no range reduction or
// exponent-field arithmetic, no NaN select: its clamps keep NaN), with one
// division and four compares (clamping its argument and its result), and no
// calls. (The loop is bound by its dependency chain and instruction count,
// not by memory, so each of these costs bandwidth.)
TEST(CpuBackendTest, GeluTanhVectorBodyIsLean) {
  auto executable = CompileOnCpu(cpu_test::GeluHlo("[4096]"));

  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string& ir = static_cast<CpuExecutable*>(executable->get())->optimized_ir();
  std::string body;
  for (const std::string& block : cpu_test::VectorLoopBodies(ir)) body += block;
  ASSERT_FALSE(body.empty()) << "GELU loop not vectorized:\n" << ir;
  EXPECT_NE(body.find("<8 x float>"), std::string::npos) << body;
  auto count = [&](const std::string& what) { return cpu_test::CountOccurrences(body, what); };
  const int tanhs = count("fdiv ");  // one division per tanh
  EXPECT_GE(tanhs, 1) << body;
  EXPECT_EQ(count("fcmp "), 4 * tanhs) << body;
  EXPECT_EQ(count("select "), 4 * tanhs) << body;
  EXPECT_EQ(count(" shl "), 0) << body;
  EXPECT_EQ(count("@llvm.roundeven."), 0) << body;
  EXPECT_EQ(count("@llvm.maxnum."), 0) << body;
  EXPECT_EQ(count("call "), count("@llvm.")) << "a call other than an intrinsic\n" << body;
}

// exp(x - max(x)) over rows (softmax's numerator) knows its argument is
// <= 0 or NaN and skips exp's overflow handling: the results must be bit
// for bit those of the general exp on the same differences, including
// subnormal and zero results, -inf and NaN rows, and a +inf maximum.
TEST(CpuBackendTest, ExpOfAShiftByTheRowMaxIsTheGeneralExp) {
  constexpr int kRows = 6, kCols = 300;
  std::mt19937_64 rng(77);
  std::vector<float> x(kRows * kCols);
  for (float& v : x) v = std::uniform_real_distribution<float>(-125.0f, 5.0f)(rng);
  const float inf = std::numeric_limits<float>::infinity();
  x[1 * kCols + 3] = -inf;
  x[2 * kCols + 7] = std::numeric_limits<float>::quiet_NaN();
  x[3 * kCols + 11] = inf;
  for (int c = 0; c < kCols; ++c) x[4 * kCols + c] = -inf;  // max -inf: every difference NaN
  // The differences, as the shifted module computes them (HLO max
  // propagates NaN).
  std::vector<float> d(x.size());
  for (int r = 0; r < kRows; ++r) {
    float m = -inf;
    for (int c = 0; c < kCols; ++c) {
      const float v = x[r * kCols + c];
      m = std::isnan(v) || std::isnan(m) ? std::numeric_limits<float>::quiet_NaN() : std::max(m, v);
    }
    for (int c = 0; c < kCols; ++c) d[r * kCols + c] = x[r * kCols + c] - m;
  }
  const std::string shape = absl::StrCat("f32[", kRows, ",", kCols, "]");
  const std::string shifted = absl::StrCat(R"(HloModule shifted
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  x = )", shape, R"( parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[)", kRows, R"(] reduce(x, ninf), dimensions={1}, to_apply=mx
  mb = )", shape, R"( broadcast(m), dimensions={0}
  d = )", shape, R"( subtract(x, mb)
  ROOT e = )", shape, R"( exponential(d)
})");
  const std::string plain = absl::StrCat("HloModule plain\nENTRY e {\n  d = ", shape, " parameter(0)\n  ROOT e = ",
                                         shape, " exponential(d)\n}\n");
  auto run = [&](const std::string& text, const std::vector<float>& values, std::string* ir) {
    auto executable = CompileOnCpu(text);
    EXPECT_TRUE(executable.ok()) << executable.status();
    if (!executable.ok()) return Literal();
    *ir = static_cast<CpuExecutable*>(executable->get())->optimized_ir();
    Literal arg = Literal::CreateR1<float>(values).Reshape({kRows, kCols}).value();
    auto buffer = DeviceBuffer::FromLiteral(arg);
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    auto result = (*executable)->Execute({*buffer});
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? (*result)->ToLiteral() : Literal();
  };
  std::string shifted_ir, plain_ir;
  Literal fast = run(shifted, x, &shifted_ir);
  Literal general = run(plain, d, &plain_ir);
  auto a = fast.data<float>(), b = general.data<float>();
  ASSERT_EQ(a.size(), b.size());
  int subnormal = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool same = std::isnan(a[i]) ? std::isnan(b[i]) : absl::bit_cast<uint32_t>(a[i]) == absl::bit_cast<uint32_t>(b[i]);
    ASSERT_TRUE(same) << "at " << i << ": d=" << d[i] << " shifted " << a[i] << " general " << b[i];
    if (a[i] != 0 && std::fabs(a[i]) < std::numeric_limits<float>::min()) ++subnormal;
  }
  EXPECT_GT(subnormal, 0) << "no subnormal result exercised";
  // The overflow clamp (x < 89) is in the general exp only.
  EXPECT_NE(plain_ir.find("8.900000e+01"), std::string::npos);
  EXPECT_EQ(shifted_ir.find("8.900000e+01"), std::string::npos) << shifted_ir;
}

// A materialized 32x128 broadcast (two users) stays a loop: loops with
// constant trip counts above 16 are not fully unrolled into thousands of
// stores (jit.cc), which made O3 spend most of a compile in DSE.
TEST(CpuBackendTest, LargeConstantTripLoopsAreNotFullyUnrolled) {
  auto executable = CompileOnCpu(R"(HloModule m
ENTRY e {
  x = f32[32,128] parameter(0)
  c = f32[] constant(0.5)
  s = f32[32,128] broadcast(c), dimensions={}
  a = f32[32,128] multiply(x, s)
  t = f32[32,128] tanh(a)
  ROOT r = f32[32,128] multiply(t, s)
}
)");
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string& ir = static_cast<CpuExecutable*>(executable->get())->optimized_ir();
  int stores = 0;
  for (size_t pos = ir.find(" store "); pos != std::string::npos; pos = ir.find(" store ", pos + 1)) ++stores;
  EXPECT_LT(stores, 64) << ir;
}

TEST(CpuBackendTest, RegisteredAsTheDefaultBackend) {
  auto names = BackendRegistry::Names();
  EXPECT_NE(std::find(names.begin(), names.end(), "cpu"), names.end());
  EXPECT_EQ(BackendRegistry::DefaultName(), "cpu");
}

}  // namespace
}  // namespace cpu
}  // namespace xla
