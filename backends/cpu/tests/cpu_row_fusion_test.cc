// Row fusion (row_fusion.h): instructions sharing their outermost dimension
// run in one loop over it when each reads only the same row of the others.
// Results must equal the evaluator's (and be identical across thread
// counts); the IR shows which groups formed.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "backends/cpu/transforms/row_fusion.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::OptimizedIr;
using cpu_test::RandomArguments;
using cpu_test::WithThreads;

void ExpectMatchesEvaluator(const std::string& text, const ErrorSpec& tolerance) {
  std::vector<Literal> args = RandomArguments(text, 11);
  auto serial = cpu_test::RunOnCpu(text, args, WithThreads(1));
  ASSERT_TRUE(serial.ok()) << serial.status();
  for (int threads : {1, 2}) {
    SCOPED_TRACE(absl::StrCat("threads=", threads));
    cpu_test::CompareWithEvaluator(text, args, tolerance, WithThreads(threads));
    auto parallel = cpu_test::RunOnCpu(text, args, WithThreads(threads));
    ASSERT_TRUE(parallel.ok()) << parallel.status();
    EXPECT_TRUE(literal_comparison::Equal(*serial, *parallel).ok());
  }
}

std::string Softmax(const std::string& type, const std::string& layout) {
  return cpu_test::SoftmaxHlo(type, 300, 257, layout);
}

TEST(CpuRowFusionTest, SoftmaxRunsAsOneRowLoop) {
  const std::string text = Softmax("f32", "{1,0}");
  ExpectMatchesEvaluator(text, ErrorSpec{1e-6, 1e-5});
  const std::string ir = OptimizedIr(text, 2);
  // m, ex, s and r in one group, outlined once.
  EXPECT_NE(ir.find("rows.m.ex.s.r"), std::string::npos) << ir.substr(0, 3000);
}

// A batch of one ([1,300,257], as in inference): the rows are dimension 1's,
// in the default layout and in one where the unit dimension sits between
// the rows and the columns; a reshape to [300,257] keeps the rows.
TEST(CpuRowFusionTest, BatchOfOneGroupsAlongItsRows) {
  for (const std::string layout : {"{2,1,0}", "{2,0,1}"}) {
    SCOPED_TRACE(layout);
    const std::string text = absl::StrCat(R"(HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[1,300,257])", layout, R"( parameter(0)
  lo = f32[] constant(-inf)
  m = f32[1,300] reduce(x, lo), dimensions={2}, to_apply=max
  mb = f32[1,300,257] broadcast(m), dimensions={0,1}
  d = f32[1,300,257] subtract(x, mb)
  ex = f32[1,300,257] exponential(d)
  z = f32[] constant(0)
  s = f32[1,300] reduce(ex, z), dimensions={2}, to_apply=add
  sb = f32[1,300,257] broadcast(s), dimensions={0,1}
  r = f32[1,300,257] divide(ex, sb)
  ROOT f = f32[300,257] reshape(r)
})");
    ExpectMatchesEvaluator(text, ErrorSpec{1e-6, 1e-5});
    const std::string ir = OptimizedIr(text, 2);
    EXPECT_NE(ir.find("define internal void @rows.m.ex.s."), std::string::npos) << ir.substr(0, 3000);
  }
}

// Each row prefetches the next row of what the group streams: x (read) and
// the result (written; ex lives on the stack and is not prefetched). Rows of
// 257 floats are long enough; the last row prefetches itself (in bounds).
TEST(CpuRowFusionTest, RowGroupsPrefetchTheNextRowOfTheirStreams) {
  const std::string ir = OptimizedIr(Softmax("f32", "{1,0}"), 2);
  EXPECT_NE(ir.find("@llvm.prefetch.p0(ptr %"), std::string::npos) << ir.substr(0, 3000);
  EXPECT_NE(ir.find(", i32 0, i32 3, i32 1)"), std::string::npos) << "no read prefetch\n" << ir.substr(0, 3000);
  EXPECT_NE(ir.find(", i32 1, i32 3, i32 1)"), std::string::npos) << "no write prefetch\n" << ir.substr(0, 3000);
  // Rows of 8 floats (32 bytes) are not worth it.
  EXPECT_EQ(OptimizedIr(cpu_test::SoftmaxHlo("f32", 300, 8, "{1,0}"), 2).find("@llvm.prefetch"), std::string::npos);
}

TEST(CpuRowFusionTest, LongChainsSplitIntoGroupsOfBoundedSize) {
  // 20 steps: 20 reductions and 20 subtractions are materialized, all
  // row-local: groups of at most kMaxRowGroupMembers.
  const std::string text = cpu_test::RowSumChainHlo(20, 64, 300);
  ExpectMatchesEvaluator(text, ErrorSpec{1e-3, 1e-4});
  const std::string ir = OptimizedIr(text, 2);
  // A group's function, internal, or external under a part prefix when the
  // module is compiled in parts and the entry is in another.
  const std::regex group_function(R"(define (internal )?void @(__xla_part\.)?rows((\.[-\w]+)+)\.(parallel|serial)\()");
  int groups = 0;
  for (std::sregex_iterator it(ir.begin(), ir.end(), group_function), end; it != end; ++it) {
    ++groups;
    const std::string members = (*it)[3];
    EXPECT_LE(std::count(members.begin(), members.end(), '.'), kMaxRowGroupMembers) << it->str();
  }
  EXPECT_EQ(groups, (40 + kMaxRowGroupMembers - 1) / kMaxRowGroupMembers) << ir.substr(0, 3000);
}

// Steps of t = tanh(v * 0.5), v' = t - rowsum(t): one group of 16 members
// (kMaxRowGroupMembers) that is nearly all of the module's code.
std::string TanhRowSumChainHlo(int steps) {
  std::string text =
      "HloModule tanh_chain\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  v0 = f32[32,128] parameter(0)\n"
      "  zero = f32[] constant(0)\n  half = f32[] constant(0.5)\n"
      "  h = f32[32,128] broadcast(half), dimensions={}\n";
  for (int i = 0; i < steps; ++i) {
    absl::StrAppend(&text, "  m", i, " = f32[32,128] multiply(v", i, ", h)\n");
    absl::StrAppend(&text, "  t", i, " = f32[32,128] tanh(m", i, ")\n");
    absl::StrAppend(&text, "  r", i, " = f32[32] reduce(t", i, ", zero), dimensions={1}, to_apply=add\n");
    absl::StrAppend(&text, "  b", i, " = f32[32,128] broadcast(r", i, "), dimensions={0}\n");
    absl::StrAppend(&text, "  ", i + 1 == steps ? "ROOT " : "", "v", i + 1, " = f32[32,128] subtract(t", i,
                    ", b", i, ")\n");
  }
  return text + "}\n";
}

// Compiled on two threads, such a group's row runs as chunks of members,
// functions of their own that the module's parts share out (one part would
// otherwise hold nearly all the code); one thread keeps one function. The
// values are the evaluator's either way, and equal across thread counts.
TEST(CpuRowFusionTest, GroupsThatDominateTheModuleCompileInChunksAcrossParts) {
  const std::string text = TanhRowSumChainHlo(8);
  ExpectMatchesEvaluator(text, ErrorSpec{1e-4, 1e-4});
  const std::string parallel_ir = OptimizedIr(text, 2);
  const std::regex chunk(R"(define (internal )?void @(__xla_part\.)?rows(\.[-\w]+)+\.chunk(\d+)\()");
  int chunks = 0, in_other_part = 0;
  for (std::sregex_iterator it(parallel_ir.begin(), parallel_ir.end(), chunk), end; it != end; ++it) {
    ++chunks;
    if ((*it)[2].matched) ++in_other_part;
  }
  EXPECT_GE(chunks, 2) << parallel_ir.substr(0, 3000);
  EXPECT_GE(in_other_part, 1) << "every chunk stayed in its caller's part\n" << parallel_ir.substr(0, 3000);
  EXPECT_NE(parallel_ir.find("; ---- part 2 of 2"), std::string::npos);
  // The chunks' loops are vectorized as the group's own were, with no
  // run-time overlap checks (their row scratch has its own alias scope).
  EXPECT_NE(parallel_ir.find("fdiv <"), std::string::npos) << parallel_ir.substr(0, 3000);
  EXPECT_EQ(parallel_ir.find("vector.memcheck"), std::string::npos);
  EXPECT_EQ(OptimizedIr(text, 1).find(".chunk"), std::string::npos);
  // A softmax (a group of four short members) is not split.
  EXPECT_EQ(OptimizedIr(Softmax("f32", "{1,0}"), 2).find(".chunk"), std::string::npos);
}

TEST(CpuRowFusionTest, SoftmaxInHalfPrecisionAndDouble) {
  ExpectMatchesEvaluator(Softmax("f64", "{1,0}"), ErrorSpec{1e-13, 1e-12});
  ExpectMatchesEvaluator(Softmax("f16", "{1,0}"), ErrorSpec{1e-2, 1e-2});
}

TEST(CpuRowFusionTest, ColumnMajorLayoutsGroupAlongTheirMajorDimension) {
  // With {0,1} the major dimension is 1: rows are the 257 columns, which the
  // row reductions over dimension 1 do not keep, so no group forms; results
  // must still be right.
  const std::string text = Softmax("f32", "{0,1}");
  ExpectMatchesEvaluator(text, ErrorSpec{1e-6, 1e-5});
  EXPECT_EQ(OptimizedIr(text, 2).find("rows."), std::string::npos);
}

TEST(CpuRowFusionTest, LayerNormGroupsMeanVarianceAndOutput) {
  const std::string text = R"(HloModule layernorm
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[256,300] parameter(0)
  g = f32[300] parameter(1)
  z = f32[] constant(0)
  n = f32[] constant(300)
  sum = f32[256] reduce(x, z), dimensions={1}, to_apply=add
  nb = f32[256] broadcast(n), dimensions={}
  mean = f32[256] divide(sum, nb)
  mb = f32[256,300] broadcast(mean), dimensions={0}
  c = f32[256,300] subtract(x, mb)
  c2 = f32[256,300] multiply(c, c)
  var = f32[256] reduce(c2, z), dimensions={1}, to_apply=add
  vn = f32[256] divide(var, nb)
  eps = f32[] constant(1e-5)
  eb = f32[256] broadcast(eps), dimensions={}
  ve = f32[256] add(vn, eb)
  rs = f32[256] rsqrt(ve)
  rb = f32[256,300] broadcast(rs), dimensions={0}
  gb = f32[256,300] broadcast(g), dimensions={1}
  y = f32[256,300] multiply(c, rb)
  ROOT o = f32[256,300] multiply(y, gb)
})";
  ExpectMatchesEvaluator(text, ErrorSpec{1e-5, 1e-5});
  EXPECT_NE(OptimizedIr(text, 2).find("rows."), std::string::npos);
}

TEST(CpuRowFusionTest, ReadingAnotherRowOfAMemberSplitsTheGroup) {
  // b reads a transposed: row r of b needs column r of a, i.e. every row.
  const std::string text = R"(HloModule transposed
ENTRY e {
  x = f32[300,300] parameter(0)
  a = f32[300,300] exponential(x)
  t = f32[300,300] transpose(a), dimensions={1,0}
  b = f32[300,300] add(a, t)
  ROOT r = f32[300,300] multiply(b, b)
})";
  ExpectMatchesEvaluator(text, ErrorSpec{1e-6, 1e-6});
  EXPECT_EQ(OptimizedIr(text, 2).find("rows.a.b"), std::string::npos);
}

// Materialized data movement (concatenate, reverse, pad, slice, ...) whose
// operands reach a member, directly or through fused transposes and
// reverses, reads other rows of it: it must not join the member's group.
// The fuzzer found the concatenate case returning wrong values
// (fuzz_regressions/slice_transpose_reverse_concatenate.hlo).
TEST(CpuRowFusionTest, DataMovementReadingOtherRowsOfAMemberSplitsTheGroup) {
  for (const std::string root :
       {"ROOT c = f32[64,192] concatenate(a, r), dimensions={1}", "ROOT c = f32[64,96] reverse(a), dimensions={0,1}",
        "ROOT c = f32[64,96] add(a, r)"}) {
    SCOPED_TRACE(root);
    const std::string text = absl::StrCat(R"(HloModule moved
ENTRY e {
  x = f32[64,96] parameter(0)
  a = f32[64,96] exponential(x)
  t = f32[96,64] transpose(a), dimensions={1,0}
  s = f32[64,64] slice(t), slice={[0:64], [0:64]}
  ts = f32[64,64] transpose(s), dimensions={1,0}
  zero = f32[] constant(0)
  p = f32[64,96] pad(ts, zero), padding=0_0x0_32
  r = f32[64,96] reverse(p), dimensions={0}
  )",
                                          root, "\n}\n");
    ExpectMatchesEvaluator(text, ErrorSpec{1e-6, 1e-6});
  }
}

TEST(CpuRowFusionTest, BroadcastingAWholeMemberAcrossRowsSplitsTheGroup) {
  // y's row r needs all of v (v broadcast along y's minor dimension).
  const std::string text = R"(HloModule across
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[300,300] parameter(0)
  z = f32[] constant(0)
  v = f32[300] reduce(x, z), dimensions={1}, to_apply=add
  vb = f32[300,300] broadcast(v), dimensions={1}
  ROOT y = f32[300,300] add(x, vb)
})";
  // Row sums of 300 values are vectorized (reassociated): absolute error
  // around 1e-5 where x + v cancels.
  ExpectMatchesEvaluator(text, ErrorSpec{1e-4, 1e-4});
  EXPECT_EQ(OptimizedIr(text, 2).find("rows.v.y"), std::string::npos);
}

TEST(CpuRowFusionTest, ValuesOnlyTheirGroupReadsGetOneRowOfStackNotABuffer) {
  // ex is read only by s and r (same group): it needs no 4 MiB buffer.
  // m and s are read only in the group too; the result r is a buffer.
  const std::string text = cpu_test::SoftmaxHlo("f32", 1024, 1024);
  const std::string dir = ::testing::TempDir() + "/row_scratch";
  std::filesystem::remove_all(dir);
  DebugOptions options = WithThreads(2);
  options.set_xla_dump_to(dir);
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = cpu_test::CpuBackendOrDie()->compiler()->Compile(std::move(*module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::ifstream in(dir + "/softmax.buffer-assignment.txt");
  const std::string assignment((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(assignment.find("arena bytes: 0\n"), std::string::npos) << assignment;
  ExpectMatchesEvaluator(text, ErrorSpec{1e-6, 1e-5});
}

TEST(CpuRowFusionTest, GroupsInsideAndAroundAWhileLoop) {
  // Groups in the entry before and after a While whose body has groups of
  // its own (each computation's groups are its own).
  const std::string text = R"(HloModule nested
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
body {
  p = (s32[], f32[64,300]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[64,300] get-tuple-element(p), index=1
  z = f32[] constant(0)
  rs = f32[64] reduce(v, z), dimensions={1}, to_apply=sum
  rb = f32[64,300] broadcast(rs), dimensions={0}
  e = f32[64,300] tanh(v)
  e2 = f32[64,300] add(e, e)
  n = f32[64,300] subtract(e2, rb)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[64,300]) tuple(i1, n)
}
cond {
  p = (s32[], f32[64,300]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  x = f32[64,300] parameter(0)
  y = f32[300] parameter(1)
  a = f32[64,300] negate(x)
  a2 = f32[64,300] multiply(a, a)
  z = f32[] constant(0)
  rsum = f32[64] reduce(a2, z), dimensions={1}, to_apply=sum
  rb = f32[64,300] broadcast(rsum), dimensions={0}
  c = f32[64,300] divide(a2, rb)
  zero = s32[] constant(0)
  init = (s32[], f32[64,300]) tuple(zero, c)
  loop = (s32[], f32[64,300]) while(init), condition=cond, body=body
  final = f32[64,300] get-tuple-element(loop), index=1
  f2 = f32[64,300] multiply(final, final)
  fs = f32[64] reduce(f2, z), dimensions={1}, to_apply=sum
  yb = f32[64,300] broadcast(y), dimensions={1}
  ROOT r = (f32[64,300], f32[64], f32[64,300]) tuple(f2, fs, yb)
})";
  ExpectMatchesEvaluator(text, ErrorSpec{1e-4, 1e-4});
}

}  // namespace
}  // namespace cpu
}  // namespace xla
