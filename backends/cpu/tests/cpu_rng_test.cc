// rng (RngUniform, RngNormal) and the RngBernoulli builder helper: the
// CPU backend (rng-expander pass) against the evaluator (the same
// expansion) bit for bit; the distributions on 1M samples (range, mean,
// variance, histograms, with bounds of 5 standard errors); reproducibility
// with a fixed rng_seed and distinct streams per instruction and seed; rng
// in a loop body is Unimplemented on both backends.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "client/xla_builder.h"
#include "gtest/gtest.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::RunOnCpu;

// rng(a, b) of `type`[dims] with `distribution`, a and b constants.
std::string RngHlo(const std::string& type, const std::string& dims, const std::string& distribution,
                   const std::string& a, const std::string& b, const std::string& header = "") {
  return absl::StrCat("HloModule m", header, "\nENTRY e {\n  a = ", type, "[] constant(", a, ")\n  b = ", type,
                      "[] constant(", b, ")\n  ROOT r = ", type, dims, " rng(a, b), distribution=", distribution,
                      "\n}\n");
}

absl::StatusOr<Literal> Evaluate(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  HloEvaluator evaluator;
  return evaluator.Evaluate(**module, {});
}

std::vector<double> AsDoubles(const Literal& literal) {
  Literal converted = literal.Convert(F64).value();
  auto data = converted.data<double>();
  return std::vector<double>(data.begin(), data.end());
}

double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / v.size();
}

double Variance(const std::vector<double>& v) {
  const double m = Mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / v.size();
}

TEST(CpuRngTest, CpuEqualsEvaluatorBitForBit) {
  struct Case {
    std::string type, distribution, a, b;
  };
  const std::vector<Case> cases = {
      {"f32", "rng_uniform", "-2.5", "7"},     {"f64", "rng_uniform", "0", "1"},
      {"f16", "rng_uniform", "1", "3"},        {"bf16", "rng_uniform", "-1", "1"},
      {"s32", "rng_uniform", "-1000", "1000"}, {"s64", "rng_uniform", "-5", "123456789012"},
      {"u8", "rng_uniform", "3", "250"},       {"u64", "rng_uniform", "0", "18446744073709551615"},
      {"s8", "rng_uniform", "-128", "127"},    {"pred", "rng_uniform", "false", "true"},
      {"f32", "rng_normal", "1", "2"},         {"f64", "rng_normal", "-3", "0.5"},
      {"f16", "rng_normal", "0", "1"},         {"bf16", "rng_normal", "0", "1"},
      {"f32", "rng_uniform", "5", "2"},        {"s32", "rng_uniform", "9", "9"},
  };
  for (const Case& c : cases) {
    for (const std::string dims : {"[1000]", "[3,5,7]", "[]", "[0,4]"}) {
      SCOPED_TRACE(absl::StrCat(c.type, dims, " ", c.distribution, "(", c.a, ", ", c.b, ")"));
      CompareWithEvaluator(RngHlo(c.type, dims, c.distribution, c.a, c.b, ", rng_seed=42"), {}, ErrorSpec{0, 0});
    }
  }
}

TEST(CpuRngTest, UniformFloatDistribution) {
  auto result = RunOnCpu(RngHlo("f32", "[1000000]", "rng_uniform", "2", "5"), {});
  ASSERT_TRUE(result.ok()) << result.status();
  const std::vector<double> v = AsDoubles(*result);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), 2.0);
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 5.0);
  // Mean 3.5 (sd 3/sqrt(12) = 0.866), variance 0.75 (sd of (x - m)^2:
  // sqrt(81/180 - 0.75^2)... bounded by 0.67), each over 1M samples.
  EXPECT_NEAR(Mean(v), 3.5, 5 * 0.866 / 1000);
  EXPECT_NEAR(Variance(v), 0.75, 5 * 0.67 / 1000);
  // Ten equal bins hold 100000 each (binomial sd 300).
  std::vector<int64_t> bins(10, 0);
  for (double x : v) ++bins[std::min<int64_t>(9, static_cast<int64_t>((x - 2) / 0.3))];
  for (int64_t count : bins) EXPECT_NEAR(count, 100000, 5 * 300);
}

TEST(CpuRngTest, UniformIntegerDistribution) {
  auto result = RunOnCpu(RngHlo("s32", "[1000000]", "rng_uniform", "-3", "7"), {});
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<int64_t> counts(10, 0);
  for (int32_t x : result->data<int32_t>()) {
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 7);
    ++counts[x + 3];
  }
  for (int64_t count : counts) EXPECT_NEAR(count, 100000, 5 * 300);
}

TEST(CpuRngTest, NormalDistribution) {
  for (const std::string type : {"f32", "f64"}) {
    SCOPED_TRACE(type);
    auto result = RunOnCpu(RngHlo(type, "[1000000]", "rng_normal", "1", "2"), {});
    ASSERT_TRUE(result.ok()) << result.status();
    const std::vector<double> v = AsDoubles(*result);
    // N(1, 2): mean sd 2/1000; variance 4 with sd sqrt(2 * 16)/1000.
    EXPECT_NEAR(Mean(v), 1.0, 5 * 2.0 / 1000);
    EXPECT_NEAR(Variance(v), 4.0, 5 * std::sqrt(32.0) / 1000);
    // Fractions within 1, 2 and 3 sigma, and the fourth moment (kurtosis 3).
    int64_t in1 = 0, in2 = 0, in3 = 0;
    double m4 = 0;
    for (double x : v) {
      const double z = (x - 1) / 2;
      in1 += std::fabs(z) < 1;
      in2 += std::fabs(z) < 2;
      in3 += std::fabs(z) < 3;
      m4 += z * z * z * z;
    }
    auto fraction_sd = [](double p) { return std::sqrt(p * (1 - p) / 1e6); };
    EXPECT_NEAR(in1 / 1e6, 0.682689, 5 * fraction_sd(0.682689));
    EXPECT_NEAR(in2 / 1e6, 0.954500, 5 * fraction_sd(0.9545));
    EXPECT_NEAR(in3 / 1e6, 0.997300, 5 * fraction_sd(0.9973));
    EXPECT_NEAR(m4 / 1e6, 3.0, 5 * std::sqrt(96.0 / 1e6));
  }
}

TEST(CpuRngTest, EmptyRangeGivesA) {
  auto f = Evaluate(RngHlo("f32", "[100]", "rng_uniform", "5", "2"));
  ASSERT_TRUE(f.ok()) << f.status();
  for (float x : f->data<float>()) EXPECT_EQ(x, 5.0f);
  auto i = RunOnCpu(RngHlo("u32", "[100]", "rng_uniform", "7", "7"), {});
  ASSERT_TRUE(i.ok()) << i.status();
  for (uint32_t x : i->data<uint32_t>()) EXPECT_EQ(x, 7u);
}

TEST(CpuRngTest, SeedReproducesAndSelectsTheStream) {
  const std::string seeded = RngHlo("f32", "[64]", "rng_uniform", "0", "1", ", rng_seed=7");
  auto first = RunOnCpu(seeded, {});
  auto second = RunOnCpu(seeded, {});
  auto other_seed = RunOnCpu(RngHlo("f32", "[64]", "rng_uniform", "0", "1", ", rng_seed=8"), {});
  ASSERT_TRUE(first.ok() && second.ok() && other_seed.ok());
  EXPECT_EQ(*first, *second);
  EXPECT_NE(*first, *other_seed);
  // Two rng ops of one module draw different numbers.
  const std::string two = R"(
HloModule m, rng_seed=7
ENTRY e {
  a = f32[] constant(0)
  b = f32[] constant(1)
  x = f32[64] rng(a, b), distribution=rng_uniform
  y = f32[64] rng(a, b), distribution=rng_uniform
  ROOT t = (f32[64], f32[64]) tuple(x, y)
}
)";
  auto pair = RunOnCpu(two, {});
  ASSERT_TRUE(pair.ok()) << pair.status();
  EXPECT_NE(pair->tuple_elements()[0], pair->tuple_elements()[1]);
  CompareWithEvaluator(two, {}, ErrorSpec{0, 0});
}

TEST(CpuRngTest, RuntimeBoundsFromParameters) {
  const std::string text = R"(
HloModule m
ENTRY e {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT r = f64[2,300] rng(a, b), distribution=rng_normal
}
)";
  std::vector<Literal> args;
  args.push_back(Literal::CreateR0<double>(10));
  args.push_back(Literal::CreateR0<double>(0.25));
  CompareWithEvaluator(text, args, ErrorSpec{0, 0});
}

TEST(CpuRngTest, RngInALoopBodyIsUnimplemented) {
  const std::string text = R"(
HloModule m
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  a = f32[] constant(0)
  b = f32[] constant(1)
  r = f32[4] rng(a, b), distribution=rng_uniform
  s = f32[4] add(x, r)
  ROOT t = (s32[], f32[4]) tuple(next, s)
}
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(w), index=1
}
)";
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<float>({1, 2, 3, 4}));
  auto cpu = RunOnCpu(text, args);
  EXPECT_EQ(cpu.status().code(), absl::StatusCode::kUnimplemented) << cpu.status();
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok());
  HloEvaluator evaluator;
  const Literal* arg = &args[0];
  auto evaluated = evaluator.Evaluate(**module, absl::MakeConstSpan(&arg, 1));
  EXPECT_EQ(evaluated.status().code(), absl::StatusCode::kUnimplemented) << evaluated.status();
  EXPECT_NE(evaluated.status().message().find("rng"), std::string::npos);
}

TEST(CpuRngTest, BuilderRngAndBernoulli) {
  XlaBuilder b("bernoulli");
  XlaOp mean = ConstantR0<float>(&b, 0.3f);
  XlaOp draws = RngBernoulli(mean, ShapeUtil::MakeShape(U32, {1000000}));
  XlaOp uniform = RngUniform(ConstantR0<float>(&b, 0), ConstantR0<float>(&b, 1), ShapeUtil::MakeShape(F32, {16}));
  XlaOp normal = RngNormal(ConstantR0<double>(&b, 0), ConstantR0<double>(&b, 1), ShapeUtil::MakeShape(F64, {16}));
  Tuple(&b, {draws, uniform, normal});
  auto computation = b.Build();
  ASSERT_TRUE(computation.ok()) << computation.status();
  auto module = HloModule::CreateFromProto(computation->proto());
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string text = (*module)->ToString();
  auto result = RunOnCpu(text, {});
  ASSERT_TRUE(result.ok()) << result.status();
  int64_t ones = 0;
  for (uint32_t x : result->tuple_elements()[0].data<uint32_t>()) {
    ASSERT_LE(x, 1u);
    ones += x;
  }
  EXPECT_NEAR(ones / 1e6, 0.3, 5 * std::sqrt(0.21 / 1e6));
  CompareWithEvaluator(text, {}, ErrorSpec{0, 0});
}

TEST(CpuRngTest, BuilderRejectsBadInput) {
  auto error = [](auto build) {
    XlaBuilder b("bad");
    build(b);
    return b.Build().status();
  };
  const Shape f32_4 = ShapeUtil::MakeShape(F32, {4});
  // Non-scalar bounds, mismatched types, normal on integers, a bad mean.
  absl::Status s = error([&](XlaBuilder& b) {
    RngUniform(ConstantR1<float>(&b, {0, 1}), ConstantR0<float>(&b, 1), f32_4);
  });
  EXPECT_NE(s.message().find("scalars"), std::string::npos) << s;
  s = error([&](XlaBuilder& b) { RngUniform(ConstantR0<float>(&b, 0), ConstantR0<double>(&b, 1), f32_4); });
  EXPECT_NE(s.message().find("one element type"), std::string::npos) << s;
  s = error([&](XlaBuilder& b) {
    RngNormal(ConstantR0<int32_t>(&b, 0), ConstantR0<int32_t>(&b, 1), ShapeUtil::MakeShape(S32, {4}));
  });
  EXPECT_NE(s.message().find("floating-point"), std::string::npos) << s;
  s = error([&](XlaBuilder& b) { RngBernoulli(ConstantR0<int32_t>(&b, 0), ShapeUtil::MakeShape(U32, {4})); });
  EXPECT_NE(s.message().find("RngBernoulli"), std::string::npos) << s;
}

}  // namespace
}  // namespace cpu
}  // namespace xla
