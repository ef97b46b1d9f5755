// Code compiled for each pinned target (AVX2 and AVX-512 code paths) runs
// and matches the reference evaluator wherever this host has the target's
// features; where it does not, the executable refuses to run with a clear
// error instead of faulting. Which targets ran is printed, so a log says
// which code paths a host exercised.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/codegen/cpu_target.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::RandomArguments;
using cpu_test::WithTarget;

struct Program {
  std::string name;
  std::string text;
  ErrorSpec tolerance;
};

// Loops of every kind the emitter writes: elementwise with polynomial and
// libmvec math, row groups, reductions along and across rows, matmuls
// through the runtime with an epilogue, convolution, pooling, scatter, and
// narrow float types.
std::vector<Program> Programs() {
  return {
      {"gelu", cpu_test::GeluHlo("[3,1001]"), ErrorSpec{1e-5, 1e-5}},
      {"gelu_bf16", cpu_test::GeluHlo("[257]", "bf16"), ErrorSpec{1e-2, 1e-2}},
      {"softmax", cpu_test::SoftmaxHlo("f32", 33, 517), ErrorSpec{1e-6, 1e-5}},
      {"math", R"(HloModule math
ENTRY e {
  x = f32[2053] parameter(0)
  y = f64[1031] parameter(1)
  s = f32[2053] sine(x)
  ss = f32[2053] multiply(s, s)
  l = f32[2053] log-plus-one(ss)
  ex = f32[2053] exponential(x)
  a = f32[2053] add(l, ex)
  t = f64[1031] tanh(y)
  c = f64[1031] cosine(t)
  ROOT r = (f32[2053], f64[1031]) tuple(a, c)
})",
       ErrorSpec{1e-5, 1e-5}},
      {"reduce", R"(HloModule reduce
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[67,301] parameter(0)
  z = f32[] constant(0)
  rows = f32[67] reduce(x, z), dimensions={1}, to_apply=add
  cols = f32[301] reduce(x, z), dimensions={0}, to_apply=add
  ROOT r = (f32[67], f32[301]) tuple(rows, cols)
})",
       ErrorSpec{1e-4, 1e-5}},
      {"matmul_bias_relu", R"(HloModule mm
ENTRY e {
  x = f32[37,129] parameter(0)
  w = f32[129,70] parameter(1)
  b = f32[70] parameter(2)
  d = f32[37,70] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[37,70] broadcast(b), dimensions={1}
  a = f32[37,70] add(d, bb)
  z = f32[] constant(0)
  zb = f32[37,70] broadcast(z), dimensions={}
  ROOT r = f32[37,70] maximum(a, zb)
})",
       ErrorSpec{1e-4, 1e-5}},
      {"conv", R"(HloModule conv
ENTRY e {
  x = f32[2,17,19,8] parameter(0)
  k = f32[3,3,8,12] parameter(1)
  ROOT c = f32[2,17,19,12] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})",
       ErrorSpec{1e-4, 1e-5}},
      {"pooling_gradient", cpu_test::MaxPoolGradientHlo("f32", "[2,13,11,24]", "[2,7,6,24]",
                                                          "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0"),
       ErrorSpec{1e-5, 1e-5}},
      {"scatter", R"(HloModule scatter
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  operand = s32[50,33] parameter(0)
  indices = s32[40,1] parameter(1)
  updates = s32[40,33] parameter(2)
  ROOT r = s32[50,33] scatter(operand, indices, updates), update_window_dims={1}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})",
       ErrorSpec{0, 0}},
  };
}

struct TargetCase {
  const char* label;
  const char* spec;
};

class CpuTargetsTest : public ::testing::TestWithParam<TargetCase> {};

TEST_P(CpuTargetsTest, RunsAndMatchesTheEvaluatorOrRefuses) {
  const TargetCase& target = GetParam();
  absl::StatusOr<cpu::CpuTarget> resolved = cpu::ResolveCpuTarget(target.spec);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  const std::vector<std::string> missing = cpu::FeaturesMissingOnHost(*resolved);
  for (const Program& program : Programs()) {
    SCOPED_TRACE(absl::StrCat(target.spec, " ", program.name));
    const std::vector<Literal> args = RandomArguments(program.text, 17, /*range=*/2.0, /*small=*/49);
    for (int threads : {1, 2}) {
      if (missing.empty()) {
        CompareWithEvaluator(program.text, args, program.tolerance, WithTarget(target.spec, threads));
        continue;
      }
      absl::StatusOr<Literal> run = cpu_test::RunOnCpu(program.text, args, WithTarget(target.spec, threads));
      ASSERT_FALSE(run.ok());
      EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
      EXPECT_NE(run.status().message().find(missing.front()), std::string::npos) << run.status();
    }
  }
  if (missing.empty()) {
    std::printf("CpuTargetsTest: %s (%s) executed and matched the evaluator\n", target.label, target.spec);
  } else {
    std::printf("CpuTargetsTest: %s (%s) compiled but not run: this host lacks %s\n", target.label, target.spec,
                absl::StrJoin(missing, ", ").c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, CpuTargetsTest,
                         ::testing::Values(TargetCase{"Host", "host"}, TargetCase{"Avx2", "haswell"},
                                           TargetCase{"Avx2NoFma", "haswell:-fma"},
                                           TargetCase{"Avx512", cpu_test::kAvx512IrTestTarget},
                                           TargetCase{"Zen4", "znver4"}),
                         [](const ::testing::TestParamInfo<TargetCase>& info) { return info.param.label; });

TEST(CpuTargetTest, RejectsUnknownTargetsAndMalformedFeatures) {
  for (const char* spec : {"pentium-pro-max", "haswell:avx2", "haswell:+", "host:avx512f"}) {
    absl::StatusOr<cpu::CpuTarget> target = cpu::ResolveCpuTarget(spec);
    EXPECT_EQ(target.status().code(), absl::StatusCode::kInvalidArgument) << spec;
  }
  const std::string text = "HloModule m\nENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n";
  absl::StatusOr<Literal> run = cpu_test::RunOnCpu(text, RandomArguments(text, 1), WithTarget("bogus"));
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("unknown x86-64 CPU 'bogus'"), std::string::npos) << run.status();
}

TEST(CpuTargetTest, NamedTargetsListTheirFeatures) {
  absl::StatusOr<cpu::CpuTarget> haswell = cpu::ResolveCpuTarget("haswell");
  ASSERT_TRUE(haswell.ok());
  EXPECT_NE(haswell->features.find("+avx2"), std::string::npos) << haswell->features;
  EXPECT_NE(haswell->features.find("+fma"), std::string::npos) << haswell->features;
  EXPECT_EQ(haswell->features.find("avx512f"), std::string::npos) << haswell->features;
  absl::StatusOr<cpu::CpuTarget> adjusted = cpu::ResolveCpuTarget("haswell:-fma");
  ASSERT_TRUE(adjusted.ok());
  EXPECT_NE(adjusted->features.find("-fma"), std::string::npos) << adjusted->features;
  absl::StatusOr<cpu::CpuTarget> zen4 = cpu::ResolveCpuTarget("znver4");
  ASSERT_TRUE(zen4.ok());
  EXPECT_NE(zen4->features.find("+avx512f"), std::string::npos) << zen4->features;
  // The host's own features never lack on the host.
  absl::StatusOr<cpu::CpuTarget> host = cpu::ResolveCpuTarget("host");
  ASSERT_TRUE(host.ok());
  EXPECT_TRUE(host->is_host);
  EXPECT_TRUE(cpu::FeaturesMissingOnHost(*host).empty());
}

}  // namespace
}  // namespace xla
