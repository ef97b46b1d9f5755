// Parallel loops of the CPU backend: large loop nests are outlined and run
// on the thread pool (parallel_loop_emitter.h). Every module here is big
// enough to be split, runs with 1, 2 and 3 threads, and must give exactly
// the evaluator's results; the IR must show the split really happened.
#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "backends/cpu/runtime/cpu_thread_pool.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::OptimizedIr;
using cpu_test::RandomArguments;
using cpu_test::WithThreads;

struct Case {
  std::string name;
  std::string text;
  // Against the evaluator (tanh is a polynomial; float sums are vectorized,
  // so reassociated). Between thread counts the results are bit-identical.
  ErrorSpec tolerance{0, 0};
};

// Each big enough for the parallel path (>= kMinParallelWork work).
std::vector<Case> Cases() {
  return {
      {"axpy_rank1",
       R"(HloModule m
ENTRY e {
  a = f32[] parameter(0)
  x = f32[100003] parameter(1)
  y = f32[100003] parameter(2)
  b = f32[100003] broadcast(a), dimensions={}
  m = f32[100003] multiply(b, x)
  ROOT r = f32[100003] add(m, y)
})"},
      {"elementwise_rank3_column_major",
       R"(HloModule m
ENTRY e {
  x = f32[37,41,53]{0,1,2} parameter(0)
  y = f32[37,41,53]{2,1,0} parameter(1)
  t = f32[37,41,53]{0,1,2} tanh(x)
  ROOT r = f32[37,41,53]{0,1,2} maximum(t, y)
})", ErrorSpec{1e-6, 1e-6}},
      // A batch of one: the range runs over the next dimension (75 rows).
      {"batch_of_one",
       R"(HloModule m
ENTRY e {
  x = f32[1,75,75,64] parameter(0)
  y = f32[1,75,75,64]{2,1,3,0} parameter(1)
  ROOT r = f32[1,75,75,64] subtract(x, y)
})"},
      // Major dimensions of one in another layout, then one of 3 rows:
      // merged with the next (15 items); the minor dimension stays a loop.
      {"few_rows_merged",
       R"(HloModule m
ENTRY e {
  x = f32[3,1,5,700,11]{4,3,2,0,1} parameter(0)
  ROOT r = f32[3,1,5,700,11]{4,3,2,0,1} multiply(x, x)
})"},
      {"reduce_batch_of_one",
       R"(HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  x = s32[1,300,500] parameter(0)
  z = s32[] constant(0)
  ROOT r = s32[1,300] reduce(x, z), dimensions={2}, to_apply=add
})"},
      // A global average pool's sum for a batch of one: the reduce keeps
      // the minor dimension, whose 512 columns become the range.
      {"pool_batch_of_one",
       R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[1,40,40,512] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[1,512] reduce(x, z), dimensions={1,2}, to_apply=add
})", ErrorSpec{1e-5, 1e-5}},
      // A variadic reduce (argmax over rows): parallel over the rows.
      {"argmax_rows",
       R"(HloModule m
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  v = f32[] select(gt, v1, v0)
  i = s32[] select(gt, i1, i0)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[500,300] parameter(0)
  idx = s32[500,300] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[500], s32[500]) reduce(x, idx, lo, z), dimensions={1}, to_apply=argmax
})"},
      {"integer_division",
       R"(HloModule m
ENTRY e {
  x = s32[300,301] parameter(0)
  y = s32[300,301] parameter(1)
  ROOT d = s32[300,301] divide(x, y)
})"},
      {"row_sum",
       R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[513,257] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[513] reduce(x, z), dimensions={1}, to_apply=add
})", ErrorSpec{1e-4, 1e-5}},
      {"column_max",
       R"(HloModule m
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[511,259] parameter(0)
  z = f32[] constant(-inf)
  ROOT r = f32[259] reduce(x, z), dimensions={0}, to_apply=mx
})"},
      {"softmax",
       R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[300,257] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[300] reduce(x, ninf), dimensions={1}, to_apply=mx
  mb = f32[300,257] broadcast(m), dimensions={0}
  d = f32[300,257] subtract(x, mb)
  ex = f32[300,257] exponential(d)
  z = f32[] constant(0)
  s = f32[300] reduce(ex, z), dimensions={1}, to_apply=add
  sb = f32[300,257] broadcast(s), dimensions={0}
  ROOT r = f32[300,257] divide(ex, sb)
})", ErrorSpec{1e-6, 1e-5}},
      {"slice_concat_pad_with_constant",
       R"(HloModule m
ENTRY e {
  x = f32[400,300] parameter(0)
  s = f32[400,150] slice(x), slice={[0:400], [1:300:2]}
  t = f32[400,150] slice(x), slice={[0:400], [0:150]}
  c = f32[400,300] concatenate(s, t), dimensions={1}
  k = f32[] constant(7)
  p = f32[402,301] pad(c, k), padding=1_1x0_1
  ROOT r = f32[402,301] negate(p)
})"},
      {"dynamic_slice_and_iota",
       R"(HloModule m
ENTRY e {
  x = f32[700,200] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  d = f32[600,190] dynamic-slice(x, i, j), dynamic_slice_sizes={600,190}
  io = f32[600,190] iota(), iota_dimension=1
  ROOT r = f32[600,190] add(d, io)
})"},
      {"elemental_dot_s32",
       R"(HloModule m
ENTRY e {
  a = s32[200,64] parameter(0)
  b = s32[64,150] parameter(1)
  ROOT d = s32[200,150] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"},
      {"parallel_loop_inside_while",
       R"(HloModule m
cond {
  p = (s32[], f32[300,300]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[300,300]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[300,300] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  h = f32[] constant(0.5)
  hb = f32[300,300] broadcast(h), dimensions={}
  y = f32[300,300] multiply(x, hb)
  ROOT t = (s32[], f32[300,300]) tuple(i1, y)
}
ENTRY e {
  x = f32[300,300] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[300,300]) tuple(z, x)
  w = (s32[], f32[300,300]) while(t), condition=cond, body=body
  ROOT r = f32[300,300] get-tuple-element(w), index=1
})"},
  };
}

TEST(CpuParallelTest, MatchesEvaluatorWithAnyThreadCount) {
  uint64_t seed = 1;
  for (const Case& c : Cases()) {
    std::vector<Literal> args = RandomArguments(c.text, ++seed);
    auto serial = cpu_test::RunOnCpu(c.text, args, WithThreads(1));
    ASSERT_TRUE(serial.ok()) << c.name << ": " << serial.status();
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(absl::StrCat(c.name, " threads=", threads));
      CompareWithEvaluator(c.text, args, c.tolerance, WithThreads(threads));
      // Each element is computed as the serial loop computes it.
      auto parallel = cpu_test::RunOnCpu(c.text, args, WithThreads(threads));
      ASSERT_TRUE(parallel.ok()) << parallel.status();
      EXPECT_TRUE(literal_comparison::Equal(*serial, *parallel).ok());
    }
  }
}

TEST(CpuParallelTest, LargeLoopsAreOutlinedOnlyWithSeveralThreads) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const std::string parallel = OptimizedIr(c.text, 2);
    EXPECT_NE(parallel.find("__xla_cpu_runtime_ParallelFor"), std::string::npos);
    EXPECT_NE(parallel.find(".parallel("), std::string::npos);
    const std::string serial = OptimizedIr(c.text, 1);
    EXPECT_EQ(serial.find("__xla_cpu_runtime_ParallelFor"), std::string::npos);
  }
}

TEST(CpuParallelTest, SmallLoopsStayInline) {
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[1000] parameter(0)
  ROOT r = f32[1000] negate(x)
})";
  EXPECT_EQ(OptimizedIr(text, 2).find("__xla_cpu_runtime_ParallelFor"), std::string::npos);
}

// Past IrEmitter::kMaxInlineLoops materialized instructions, every loop
// nest gets a function of its own (small ones run serially through the
// runtime), so no LLVM function holds them all.
TEST(CpuParallelTest, LargeComputationsGetOneFunctionPerLoopNest) {
  // 40 materialized instructions on [4,16].
  const std::string text = cpu_test::RowSumChainHlo(20, 4, 16);
  CompareWithEvaluator(text, RandomArguments(text, 5), ErrorSpec{1e-4, 1e-5}, WithThreads(2));
  const std::string ir = OptimizedIr(text, 2);
  EXPECT_NE(ir.find(".serial("), std::string::npos) << ir.substr(0, 3000);
  EXPECT_EQ(ir.find(".parallel("), std::string::npos) << "too small for the pool\n" << ir.substr(0, 3000);
  // A small computation keeps its loops inline.
  const std::string small = R"(HloModule m
ENTRY e {
  x = f32[4,16] parameter(0)
  ROOT r = f32[4,16] negate(x)
})";
  EXPECT_EQ(OptimizedIr(small, 2).find(".serial("), std::string::npos);
}

// An outlined kernel loads its buffers' pointers itself (from the run's
// pointer arrays, or by offset into the arena): the entry function passes
// only the arrays, and loads no pointer of its own, however many buffers
// the program has (thousands of loads and captured-pointer stores in one
// block were where a wide program's compile time went).
TEST(CpuParallelTest, OutlinedKernelsLoadTheirOwnBufferPointers) {
  constexpr int kParams = 40;  // past IrEmitter::kMaxInlineLoops kernels
  std::string text = "HloModule m\nENTRY e {\n";
  std::string results;
  for (int i = 0; i < kParams; ++i) {
    absl::StrAppend(&text, "  p", i, " = f32[4,16] parameter(", i, ")\n  n", i, " = f32[4,16] negate(p", i, ")\n");
    absl::StrAppend(&text, "  s", i, " = f32[4,16] sine(n", i, ")\n");
    absl::StrAppend(&results, i > 0 ? ", " : "", "s", i);
  }
  absl::StrAppend(&text, "  ROOT t = (", absl::StrJoin(std::vector<std::string>(kParams, "f32[4,16]"), ", "),
                  ") tuple(", results, ")\n}\n");
  CompareWithEvaluator(text, RandomArguments(text, 7), ErrorSpec{1e-5, 1e-5}, WithThreads(2));
  const std::string ir = OptimizedIr(text, 2);
  const size_t entry = ir.find("define void @xla_cpu_entry(");
  ASSERT_NE(entry, std::string::npos);
  const std::string entry_function = ir.substr(entry, ir.find("\n}\n", entry) - entry);
  EXPECT_EQ(entry_function.find("load ptr"), std::string::npos) << entry_function.substr(0, 3000);
  EXPECT_NE(ir.find("param39.in_body"), std::string::npos) << ir.substr(0, 3000);
  EXPECT_NE(ir.find("result39.in_body"), std::string::npos) << ir.substr(0, 3000);
}

TEST(CpuParallelTest, MajorDimensionsOfOneAreSkipped) {
  // One row of the major dimension: the range runs over the next one.
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[1,200000] parameter(0)
  ROOT r = f32[1,200000] negate(x)
})";
  EXPECT_NE(OptimizedIr(text, 2).find(".parallel("), std::string::npos);
  CompareWithEvaluator(text, RandomArguments(text, 99), ErrorSpec{0, 0}, WithThreads(2));
  // Every dimension of size one: a single item, inline.
  const std::string single = R"(HloModule m
ENTRY e {
  x = f32[1,1,1] parameter(0)
  ROOT r = f32[1,1,1] negate(x)
})";
  EXPECT_EQ(OptimizedIr(single, 2).find("__xla_cpu_runtime_ParallelFor"), std::string::npos);
  CompareWithEvaluator(single, RandomArguments(single, 98), ErrorSpec{0, 0}, WithThreads(2));
}

// Merged range dimensions must leave the minor dimension a vector loop.
TEST(CpuParallelTest, MergedRowsKeepTheMinorLoopVectorized) {
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[3,5,700,64] parameter(0)
  ROOT r = f32[3,5,700,64] multiply(x, x)
})";
  // On each pinned target the merged loop is a parallel one whose minor
  // loop multiplies full-width vectors: 8 floats with AVX2, 16 with AVX-512.
  for (const auto& [target, lanes] : {std::pair<std::string, int>{cpu_test::kIrTestTarget, 8},
                                      std::pair<std::string, int>{cpu_test::kAvx512IrTestTarget, 16},
                                      std::pair<std::string, int>{"znver4", 16}}) {
    SCOPED_TRACE(target);
    const std::string ir = OptimizedIr(text, 2, target);
    const absl::Status checked =
        cpu_test::FileCheck(ir, absl::StrCat("CHECK: define {{.*}}.parallel(\nCHECK: fmul <", lanes, " x float>\n"));
    EXPECT_TRUE(checked.ok()) << checked.message();
  }
}

// Max pooling's gradient: windows of one position along the batch and the
// features never overlap there, so those indices run in parallel; ties
// (s32 values in [-3, 3]) and overlapping 3x3/2 windows must still resolve
// as the evaluator's row-major order does, on any thread count.
TEST(CpuParallelTest, SelectAndScatterSplitsAlongUnwindowedDimensions) {
  for (const std::string type : {"f32", "s32"}) {
    const std::string module = cpu_test::MaxPoolGradientHlo(type, "[4,31,29,24]", "[4,16,15,24]",
                                                            "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0");
    std::vector<Literal> args = RandomArguments(module, 3, /*range=*/4.0, /*small=*/3);
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(absl::StrCat(type, " threads=", threads));
      CompareWithEvaluator(module, args, ErrorSpec{0, 0}, WithThreads(threads));
    }
    EXPECT_NE(OptimizedIr(module, 2).find("@r.source.parallel("), std::string::npos);
  }
  // Windows over every dimension: nothing to split, one thread, same values.
  const std::string everywhere = cpu_test::MaxPoolGradientHlo("f32", "[4,31,29,24]", "[4,16,15,24]",
                                                              "size=2x3x3x2 stride=1x2x2x1 pad=0_1x1_1x1_1x0_1");
  CompareWithEvaluator(everywhere, RandomArguments(everywhere, 4), ErrorSpec{0, 0}, WithThreads(2));
  EXPECT_EQ(OptimizedIr(everywhere, 2).find("@r.source.parallel("), std::string::npos);
}

TEST(CpuParallelTest, ConcurrentRunsOfOneExecutableShareThePool) {
  const std::vector<Case> cases = Cases();
  const Case c = *std::find_if(cases.begin(), cases.end(), [](const Case& x) { return x.name == "softmax"; });
  auto module = ParseHloModule(c.text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args = RandomArguments(c.text, 7);
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(&a);
  auto expected = HloEvaluator().Evaluate(**module, arg_ptrs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  auto executable = cpu_test::CpuBackendOrDie()->compiler()->Compile(std::move(*module), WithThreads(2));
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<std::shared_ptr<const DeviceBuffer>> buffers;
  for (const Literal& a : args) buffers.push_back(*DeviceBuffer::FromLiteral(a));
  constexpr int kCallers = 4, kRuns = 5;
  std::vector<int> mismatches(kCallers, 0);
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        auto result = (*executable)->Execute(buffers);
        if (!result.ok() || !literal_comparison::Near(*expected, (*result)->ToLiteral(), c.tolerance).ok()) {
          ++mismatches[t];
        }
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (int t = 0; t < kCallers; ++t) EXPECT_EQ(mismatches[t], 0) << "caller " << t;
}

TEST(CpuParallelTest, ThreadCountDefaultsToTheAffinityMask) {
  EXPECT_GE(AffinityCoreCount(), 1);
  EXPECT_EQ(ResolveCpuThreadCount(0), AffinityCoreCount());
  EXPECT_EQ(ResolveCpuThreadCount(3), 3);
  EXPECT_EQ(SharedThreadPoolDevice(1), nullptr);
  EXPECT_NE(SharedThreadPoolDevice(2), nullptr);
  EXPECT_EQ(SharedThreadPoolDevice(2), SharedThreadPoolDevice(2));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
