// Differential tests of the CPU backend against the reference evaluator,
// elementwise ops: unary and binary ops of every type over shapes of rank 0,
// size-0 dimensions and odd sizes, compare, convert, select and clamp,
// special float values, and the polynomial transcendentals' accuracy.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/tests/cpu_backend_test_helpers.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/evaluator/reduce_precision.h"
#include "xla/literal.h"

namespace xla {
namespace cpu {
namespace {

using namespace cpu_backend_test;  // NOLINT: the shared helpers and tolerances
using cpu_test::UlpError;

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
        // abs and sign are defined on signed types only (the verifier, which
        // runs before code generation, rejects them on unsigned ones).
        if (t[0] == 'u' && (op == "abs" || op == "sign")) continue;
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
      ops = {"add", "multiply", "maximum", "minimum", "and", "or", "xor"};  // power is not defined on pred
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

// Random bit patterns (every exponent, subnormals, infinities, NaNs) through
// reduce-precision on each float type and several formats, fused after an
// add of zero so the operand is a generated value as well as a buffer load:
// bit for bit the evaluator's ReducePrecisionBits, but that NaNs may differ
// in payload.
template <typename Uint>
void CheckReducePrecision(const std::string& type, int src_exponent, int src_mantissa) {
  std::mt19937_64 rng(42);
  constexpr int kCount = 4096;
  for (auto [e, m] : std::vector<std::pair<int, int>>{{5, 10}, {8, 7}, {4, 3}, {5, 2}, {2, 0}, {1, 1}, {11, 52}, {6, 30}}) {
    for (bool fused : {false, true}) {
      const std::string root = fused ? "  z = " + type + "[] constant(0)\n  bz = " + type +
                                           "[4096] broadcast(z), dimensions={}\n  s = " + type +
                                           "[4096] add(a, bz)\n  ROOT r = " + type + "[4096] reduce-precision(s)"
                                     : "  ROOT r = " + type + "[4096] reduce-precision(a)";
      const std::string text = absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, "[4096] parameter(0)\n", root,
                                            ", exponent_bits=", e, ", mantissa_bits=", m, "\n}\n");
      Literal input(ShapeUtil::MakeShape(type == "f16" ? F16 : type == "bf16" ? BF16 : type == "f32" ? F32 : F64,
                                         {kCount}));
      Uint* in = static_cast<Uint*>(input.untyped_data());
      for (int i = 0; i < kCount; ++i) in[i] = static_cast<Uint>(rng());
      absl::StatusOr<Literal> out = cpu_test::RunOnCpu(text, std::vector<Literal>{input});
      ASSERT_TRUE(out.ok()) << out.status() << "\n" << text;
      const Uint* got = static_cast<const Uint*>(out->untyped_data());
      const Uint exponent_mask = static_cast<Uint>(((Uint{1} << src_exponent) - 1) << src_mantissa);
      const Uint mantissa_mask = static_cast<Uint>((Uint{1} << src_mantissa) - 1);
      auto is_nan = [&](Uint b) { return (b & exponent_mask) == exponent_mask && (b & mantissa_mask) != 0; };
      int mismatches = 0;
      for (int i = 0; i < kCount; ++i) {
        Uint x = in[i];
        // x + 0 turns -0 into +0.
        if (fused && (x & static_cast<Uint>(~(Uint{1} << (sizeof(Uint) * 8 - 1)))) == 0) x = 0;
        const Uint want = ReducePrecisionBits<Uint>(x, src_exponent, src_mantissa, e, m);
        if (want == got[i] || (is_nan(want) && is_nan(got[i]))) continue;
        if (++mismatches <= 5) {
          ADD_FAILURE() << type << " e" << e << "m" << m << (fused ? " fused" : "") << ": input 0x" << std::hex
                        << uint64_t{in[i]} << " gives 0x" << uint64_t{got[i]} << ", want 0x" << uint64_t{want};
        }
      }
    }
  }
}

TEST(CpuBackendTest, ReducePrecisionBitForBit) {
  CheckReducePrecision<uint16_t>("f16", 5, 10);
  CheckReducePrecision<uint16_t>("bf16", 8, 7);
  CheckReducePrecision<uint32_t>("f32", 8, 23);
  CheckReducePrecision<uint64_t>("f64", 11, 52);
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

}  // namespace
}  // namespace cpu
}  // namespace xla
