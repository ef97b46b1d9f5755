// Differential tests of the CPU backend against the reference evaluator,
// control flow (counted, data-dependent and nested while loops,
// conditionals by pred and by index, calls), plus Unimplemented errors for
// what the backend does not cover yet.
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/tests/cpu_backend_test_helpers.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu {
namespace {

using namespace cpu_backend_test;  // NOLINT: the shared helpers and tolerances
using cpu_test::CpuBackendOrDie;
using cpu_test::RandomLiteral;

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
      "HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  ROOT r = f32[4] sort(a), dimensions={0}, to_apply=lt\n}\n",
  };
  for (const std::string& text : modules) {
    auto module = ParseHloModule(text);
    if (!module.ok()) continue;  // a module the parser rejects tests nothing here
    auto executable = CpuBackendOrDie()->compiler()->Compile(std::move(*module), DebugOptions());
    ASSERT_FALSE(executable.ok()) << text;
    EXPECT_EQ(executable.status().code(), absl::StatusCode::kUnimplemented) << executable.status();
    // Named by the verifier (shape inference) or by the backend.
    const bool named = executable.status().message().find("custom-call") != std::string::npos ||
                       executable.status().message().find("sort") != std::string::npos;
    EXPECT_TRUE(named) << executable.status();
  }
}

TEST(CpuBackendTest, UnknownCustomCallTargetsFailToCompile) {
  // Also inside a while body: the compiler binds every computation's calls.
  const std::vector<std::string> modules = {
      "HloModule m\nENTRY e {\n  a = c64[4] parameter(0)\n  ROOT r = c64[4] custom-call(a), custom_call_target=\"foo\"\n}\n",
      "HloModule m\ncond {\n  s = c64[4] parameter(0)\n  ROOT f = pred[] constant(false)\n}\nbody {\n  s = c64[4] "
      "parameter(0)\n  ROOT n = c64[4] custom-call(s), custom_call_target=\"foo\"\n}\nENTRY e {\n  a = c64[4] parameter(0)\n  ROOT w = c64[4] "
      "while(a), condition=cond, body=body\n}\n",
  };
  for (const std::string& text : modules) {
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    auto executable = CpuBackendOrDie()->compiler()->Compile(std::move(*module), DebugOptions());
    ASSERT_FALSE(executable.ok()) << text;
    EXPECT_EQ(executable.status().code(), absl::StatusCode::kNotFound) << executable.status();
    EXPECT_NE(executable.status().message().find("target 'foo' is not registered"), std::string::npos)
        << executable.status();
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
