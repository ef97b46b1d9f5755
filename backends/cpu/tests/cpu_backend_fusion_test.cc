// Differential tests of the CPU backend against the reference evaluator,
// fusion: elementwise chains, shared intermediates and tuple results,
// layouts through fused loops, and which values get no buffer of their own.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/tests/cpu_backend_test_helpers.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/literal.h"

namespace xla {
namespace cpu {
namespace {

using namespace cpu_backend_test;  // NOLINT: the shared helpers and tolerances

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

// --- Values without a buffer of their own -------------------------------------------

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

}  // namespace
}  // namespace cpu
}  // namespace xla
