// The libm transcendentals without polynomial IR (sin, cos, tan, cbrt, expm1,
// log1p, pow, atan2, f64 erf) in JIT loops: the optimized IR calls libmvec's
// vector variants in the vector body (no scalar libm call there), and the
// results stay within the stated ulp bound of the correctly rounded value
// (long double libm) on random and special inputs (vector_math_library.h).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/backend.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "backends/cpu/codegen/vector_math_library.h"
#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/VFABIDemangler.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CpuBackendOrDie;
using cpu_test::UlpError;

struct MathOp {
  const char* hlo;
  const char* f32;  // scalar libm name; nullptr: not a libm call for f32
  const char* f64;
  int arity;
  // Max ulp error asserted (glibc documents libmvec at <= 4 ulp).
  double f32_ulp, f64_ulp;
};
constexpr MathOp kOps[] = {
    {"sine", "sinf", "sin", 1, 4, 4},
    {"cosine", "cosf", "cos", 1, 4, 4},
    {"tan", "tanf", "tan", 1, 4, 4},
    {"cbrt", "cbrtf", "cbrt", 1, 4, 4},
    {"exponential-minus-one", "expm1f", "expm1", 1, 4, 4},
    {"log-plus-one", "log1pf", "log1p", 1, 4, 4},
    {"power", "powf", "pow", 2, 4, 4},
    {"atan2", "atan2f", "atan2", 2, 4, 4},
    {"erf", nullptr, "erf", 1, -1, 4},  // f32 erf is polynomial IR
};

std::string Module(const MathOp& op, const std::string& type, int64_t n) {
  const std::string shape = absl::StrCat(type, "[", n, "]");
  if (op.arity == 1) {
    return absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  ROOT r = ", shape, " ", op.hlo,
                        "(a)\n}\n");
  }
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n  b = ", shape,
                      " parameter(1)\n  ROOT r = ", shape, " ", op.hlo, "(a, b)\n}\n");
}

absl::StatusOr<std::unique_ptr<Executable>> Compile(const std::string& text,
                                                    const std::string& target = cpu_test::kIrTestTarget) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return CpuBackendOrDie()->compiler()->Compile(std::move(*module), cpu_test::WithTarget(target, 1));
}

// The text of every vectorized loop body of the optimized IR.
std::string VectorBodies(const std::string& ir) {
  std::string out;
  for (const std::string& body : cpu_test::VectorLoopBodies(ir)) out += body + "\n";
  return out;
}

// --- (a) vector calls in the optimized IR -----------------------------------------

// On each pinned target, the loop over a math function calls libmvec's
// variant of that ISA's full width (AVX2: _ZGVd, 256 bits; AVX-512: _ZGVe,
// 512 bits), and no vectorized loop calls the scalar function. 4099
// elements: a long loop with a remainder, whatever the width.
TEST(CpuVectorMathTest, LoopsCallLibmvecVariants) {
  struct Target {
    const char* name;
    const char* isa_letter;  // the VFABI ISA letter of its widest variant
    int bits;
  };
  for (const Target& target : {Target{cpu_test::kIrTestTarget, "d", 256}, Target{cpu_test::kAvx512IrTestTarget, "e", 512}}) {
    for (const MathOp& op : kOps) {
      for (const bool f64 : {false, true}) {
        const char* scalar = f64 ? op.f64 : op.f32;
        if (scalar == nullptr) continue;
        const std::string type = f64 ? "f64" : "f32";
        SCOPED_TRACE(absl::StrCat(target.name, " ", op.hlo, " ", type));
        auto executable = Compile(Module(op, type, 4099), target.name);
        ASSERT_TRUE(executable.ok()) << executable.status();
        const std::string& ir = static_cast<CpuExecutable*>(executable->get())->optimized_ir();
        const int lanes = target.bits / (f64 ? 64 : 32);
        const std::string vector_type = absl::StrCat("<", lanes, " x ", f64 ? "double" : "float", ">");
        // e.g. call <8 x float> @_ZGVdN8v_sinf(<8 x float> ...)
        const absl::Status checked = cpu_test::FileCheck(
            ir, absl::StrCat("CHECK: call{{.*}} ", vector_type, " @_ZGV", target.isa_letter, "N", lanes,
                             std::string(op.arity, 'v'), "_", scalar, "(\n"));
        EXPECT_TRUE(checked.ok()) << checked.message();
        const std::string bodies = VectorBodies(ir);
        ASSERT_FALSE(bodies.empty()) << "no vectorized loop:\n" << ir;
        EXPECT_EQ(bodies.find(absl::StrCat("@", scalar, "(")), std::string::npos) << "scalar call in a vector loop\n"
                                                                                 << bodies;
      }
    }
  }
}

// f16/bf16 compute in float: the float variants serve them as well.
TEST(CpuVectorMathTest, SmallFloatLoopsCallLibmvecVariants) {
  for (const std::string type : {"f16", "bf16"}) {
    auto executable = Compile(Module(kOps[0], type, 4099));
    ASSERT_TRUE(executable.ok()) << executable.status();
    const std::string body = VectorBodies(static_cast<CpuExecutable*>(executable->get())->optimized_ir());
    EXPECT_NE(body.find("x float> @_ZGV"), std::string::npos) << type << "\n" << body;
    EXPECT_EQ(body.find("@sinf("), std::string::npos) << type << "\n" << body;
  }
}

TEST(CpuVectorMathTest, VariantsPerIsa) {
  auto names = [](const VectorMathIsa& isa, const std::string& scalar) {
    std::vector<std::string> out;
    for (const VectorMathVariant& v : VectorMathVariants(isa)) {
      if (v.scalar_name == scalar) out.push_back(v.vector_name);
    }
    return out;
  };
  const VectorMathIsa avx512 = VectorMathIsa::ForTarget("x86_64-unknown-linux-gnu", "+sse2,+avx,+avx2,+avx512f");
  EXPECT_EQ(names(avx512, "sinf"), (std::vector<std::string>{"_ZGVbN4v_sinf", "_ZGVdN8v_sinf", "_ZGVeN16v_sinf"}));
  EXPECT_EQ(names(avx512, "atan2"),
            (std::vector<std::string>{"_ZGVbN2vv_atan2", "_ZGVdN4vv_atan2", "_ZGVeN8vv_atan2"}));
  const VectorMathIsa avx = VectorMathIsa::ForTarget("x86_64-unknown-linux-gnu", "+avx,-avx2,-avx512f");
  EXPECT_EQ(names(avx, "cbrt"), (std::vector<std::string>{"_ZGVbN2v_cbrt", "_ZGVcN4v_cbrt"}));
  const VectorMathIsa sse = VectorMathIsa::ForTarget("x86_64-unknown-linux-gnu", "-avx,-avx2,-avx512f");
  EXPECT_EQ(names(sse, "powf"), (std::vector<std::string>{"_ZGVbN4vv_powf"}));
  EXPECT_TRUE(VectorMathVariants(VectorMathIsa::ForTarget("aarch64-unknown-linux-gnu", "+neon")).empty());
  // Every variant this host's ISA may use resolves from libmvec.
  auto resolved = ResolveVectorMathVariants(avx512);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->size(), VectorMathVariants(avx512).size());
  for (const ResolvedVectorFunction& f : *resolved) EXPECT_NE(f.address, nullptr) << f.name;
}

// The attribute names valid VFABI mappings, and calls of another signature
// under a libm name are left alone.
TEST(CpuVectorMathTest, MarksOnlyLibmSignatures) {
  llvm::LLVMContext ctx;
  llvm::Module module("m", ctx);
  llvm::IRBuilder<> b(ctx);
  llvm::Type* f32 = b.getFloatTy();
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(f32, {f32}, false), llvm::GlobalValue::ExternalLinkage,
                                    "f", module);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::FunctionCallee sinf = module.getOrInsertFunction("sinf", llvm::FunctionType::get(f32, {f32}, false));
  llvm::FunctionCallee cbrt = module.getOrInsertFunction("cbrt", llvm::FunctionType::get(f32, {f32}, false));
  llvm::CallInst* good = b.CreateCall(sinf, {fn->getArg(0)});
  llvm::CallInst* odd = b.CreateCall(cbrt, {good});
  b.CreateRet(odd);
  AddVectorMathVariants(module, VectorMathIsa::ForTarget("x86_64-unknown-linux-gnu", "+avx,+avx2"));
  llvm::SmallVector<std::string, 4> mappings;
  llvm::VFABI::getVectorVariantNames(*good, mappings);
  ASSERT_EQ(mappings.size(), 2u);
  for (const std::string& m : mappings) {
    auto info = llvm::VFABI::tryDemangleForVFABI(m, good->getFunctionType());
    ASSERT_TRUE(info.has_value()) << m;
    EXPECT_EQ(info->ScalarName, "sinf");
    ASSERT_NE(module.getFunction(info->VectorName), nullptr) << info->VectorName;
  }
  mappings.clear();
  llvm::VFABI::getVectorVariantNames(*odd, mappings);
  EXPECT_TRUE(mappings.empty());
}

// --- (b) accuracy ----------------------------------------------------------------

long double Reference(const std::string& op, long double x, long double y) {
  if (op == "sine") return sinl(x);
  if (op == "cosine") return cosl(x);
  if (op == "tan") return tanl(x);
  if (op == "cbrt") return cbrtl(x);
  if (op == "exponential-minus-one") return expm1l(x);
  if (op == "log-plus-one") return log1pl(x);
  if (op == "power") return powl(x, y);
  if (op == "atan2") return atan2l(x, y);
  return erfl(x);
}

// The scalar libm result in T (what the evaluator computes).
template <typename T>
T Scalar(const std::string& op, T x, T y) {
  if (op == "sine") return std::sin(x);
  if (op == "cosine") return std::cos(x);
  if (op == "tan") return std::tan(x);
  if (op == "cbrt") return std::cbrt(x);
  if (op == "exponential-minus-one") return std::expm1(x);
  if (op == "log-plus-one") return std::log1p(x);
  if (op == "power") return std::pow(x, y);
  if (op == "atan2") return std::atan2(x, y);
  return std::erf(x);
}


template <typename T>
std::vector<T> SpecialValues() {
  using L = std::numeric_limits<T>;
  return {T(0), -T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), -L::quiet_NaN(), L::max(), -L::max(),
          L::min(), -L::min(), L::denorm_min(), -L::denorm_min(), T(1), T(-1), T(0.5), T(-0.5), T(2), T(-2),
          T(3), T(-3), T(1e30), T(-1e30), T(1e-30), T(-1e-30), T(0.1), T(10)};
}

// Inputs (x, and y for binary ops): specials first (always in the vector
// body), then random values over the op's interesting ranges.
template <typename T>
void Inputs(const std::string& op, std::mt19937_64& rng, std::vector<T>& xs, std::vector<T>& ys) {
  const bool f64 = std::is_same_v<T, double>;
  const int max_exp10 = f64 ? 307 : 38, min_exp10 = f64 ? -323 : -45;
  auto uniform = [&](double lo, double hi) { return static_cast<T>(std::uniform_real_distribution<double>(lo, hi)(rng)); };
  auto log_uniform = [&](double lo_exp10, double hi_exp10) {  // +-10^[lo, hi]
    const T m = static_cast<T>(std::pow(10.0, std::uniform_real_distribution<double>(lo_exp10, hi_exp10)(rng)));
    return rng() & 1 ? m : -m;
  };
  auto any_finite = [&] {
    T x;
    do {
      if constexpr (std::is_same_v<T, double>) {
        const uint64_t bits = rng();
        std::memcpy(&x, &bits, 8);
      } else {
        const uint32_t bits = static_cast<uint32_t>(rng());
        std::memcpy(&x, &bits, 4);
      }
    } while (!std::isfinite(x));
    return x;
  };
  const std::vector<T> specials = SpecialValues<T>();
  if (op == "power" || op == "atan2") {
    for (T a : specials) {
      for (T b : specials) {
        xs.push_back(a);
        ys.push_back(b);
      }
    }
  } else {
    xs = specials;
  }
  const int n = 60000;
  auto add = [&](T x, T y) {
    xs.push_back(x);
    if (op == "power" || op == "atan2") ys.push_back(y);
  };
  for (int i = 0; i < n; ++i) {
    if (op == "sine" || op == "cosine" || op == "tan") {
      add(uniform(-10, 10), 0);
      add(log_uniform(min_exp10, max_exp10), 0);
      // Near multiples of pi/2 (the hardest for range reduction).
      const double k = std::floor(std::pow(10.0, std::uniform_real_distribution<double>(0, f64 ? 8 : 5)(rng)));
      T near = static_cast<T>(k * 1.57079632679489661923);
      for (int s = 0; s < 2; ++s) near = std::nextafter(near, T(rng() & 1 ? 1e300 : -1e300));
      add(rng() & 1 ? near : -near, 0);
    } else if (op == "cbrt") {
      add(any_finite(), 0);
      add(uniform(-10, 10), 0);
    } else if (op == "exponential-minus-one") {
      add(uniform(-1, 1), 0);
      add(uniform(f64 ? -750 : -105, f64 ? 710 : 89), 0);
      add(log_uniform(min_exp10, 0), 0);
    } else if (op == "log-plus-one") {
      add(uniform(-1, 1), 0);
      add(std::fabs(log_uniform(-3, max_exp10)), 0);
      add(log_uniform(min_exp10, 0), 0);
    } else if (op == "power") {
      add(std::fabs(log_uniform(-3, 3)), uniform(-40, 40));
      add(uniform(0, 4), uniform(-30, 30));
      add(-std::floor(uniform(1, 30)), std::floor(uniform(-20, 20)));  // negative base, integer exponent
    } else if (op == "atan2") {
      add(log_uniform(min_exp10, max_exp10), log_uniform(min_exp10, max_exp10));
      add(uniform(-2, 2), uniform(-2, 2));
    } else {  // erf
      add(uniform(-6, 6), 0);
      add(log_uniform(min_exp10, 1), 0);
    }
  }
}

template <typename T>
void CheckAccuracy(const MathOp& op) {
  const bool f64 = std::is_same_v<T, double>;
  const double bound = f64 ? op.f64_ulp : op.f32_ulp;
  if (bound < 0) return;
  const std::string type = f64 ? "f64" : "f32";
  SCOPED_TRACE(absl::StrCat(op.hlo, " ", type));
  std::mt19937_64 rng(777);
  std::vector<T> xs, ys;
  Inputs<T>(op.hlo, rng, xs, ys);
  auto executable = Compile(Module(op, type, xs.size()));
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<std::shared_ptr<const DeviceBuffer>> args;
  for (const std::vector<T>* v : {&xs, &ys}) {
    if (v->empty()) continue;
    auto b = DeviceBuffer::FromLiteral(Literal::CreateR1<T>(*v));
    ASSERT_TRUE(b.ok()) << b.status();
    args.push_back(*b);
  }
  auto result = (*executable)->Execute(args);
  ASSERT_TRUE(result.ok()) << result.status();
  Literal out = (*result)->ToLiteral();
  auto data = out.data<T>();
  double worst = 0;
  size_t worst_i = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const T x = xs[i], y = ys.empty() ? T(0) : ys[i];
    const T actual = data[i];
    // Where scalar libm gives NaN, an infinity or a zero, exactly that
    // (signs included).
    const T scalar = Scalar<T>(op.hlo, x, y);
    if (std::isnan(scalar)) {
      EXPECT_TRUE(std::isnan(actual)) << "x=" << x << " y=" << y << " got " << actual;
      continue;
    }
    if (std::isinf(scalar) || scalar == 0) {
      EXPECT_TRUE(actual == scalar && std::signbit(actual) == std::signbit(scalar))
          << "x=" << x << " y=" << y << " got " << actual << " want " << scalar;
      continue;
    }
    const double e = UlpError<T>(actual, Reference(op.hlo, x, y));
    if (e > worst) {
      worst = e;
      worst_i = i;
    }
  }
  std::printf("VectorMathAccuracy: %s %s max %.3f ulp (at x=%.17g y=%.17g) over %zu inputs\n", op.hlo, type.c_str(),
              worst, static_cast<double>(xs[worst_i]), ys.empty() ? 0.0 : static_cast<double>(ys[worst_i]),
              xs.size());
  EXPECT_LE(worst, bound) << "at x=" << xs[worst_i];
}

TEST(CpuVectorMathTest, AccuracyF32) {
  for (const MathOp& op : kOps) CheckAccuracy<float>(op);
}

TEST(CpuVectorMathTest, AccuracyF64) {
  for (const MathOp& op : kOps) CheckAccuracy<double>(op);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
