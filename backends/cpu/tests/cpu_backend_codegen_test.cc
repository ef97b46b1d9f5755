// Properties of the code the CPU backend generates, read from the optimized
// IR for the pinned IR test target: vectorized elementwise, reduction and
// transcendental loops, lean GELU bodies, unrolling limits, the shifted exp
// of softmax bit for bit the general one; and the backend's registration.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/base/casts.h"
#include "absl/strings/str_cat.h"
#include "backends/backend.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/tests/cpu_backend_test_helpers.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/literal.h"

namespace xla {
namespace cpu {
namespace {

using namespace cpu_backend_test;  // NOLINT: the shared helpers and tolerances

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
