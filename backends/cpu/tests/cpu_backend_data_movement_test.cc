// Differential tests of the CPU backend against the reference evaluator,
// data movement: shape ops fused into an elementwise consumer, materialized
// concatenates and reshapes, constants, and gathers.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/tests/cpu_backend_test_helpers.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using namespace cpu_backend_test;  // NOLINT: the shared helpers and tolerances

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
    // More than a few operands: a switch on the operand number (equal
    // lengths; picking a buffer when all are buffers of one shape) or a tree
    // of compares (unequal, with an empty one).
    run("  a = $T[2,3] parameter(0)\n  b = $T[2,3] parameter(1)\n  d = $T[14,3] parameter(2)\n"
        "  cc = $T[14,3] concatenate(a, b, b, a, a, b, a), dimensions={0}\n  ROOT r = $T[14,3] $OP(cc, d)\n");
    if (std::string(t) != "pred" && t[0] != 'u') {  // operands computed in the loop: each case its own element
      run("  a = $T[2,3] parameter(0)\n  b = $T[2,3] parameter(1)\n  d = $T[10,3] parameter(2)\n"
          "  na = $T[2,3] negate(a)\n  nb = $T[2,3] negate(b)\n"
          "  cc = $T[10,3] concatenate(na, b, nb, a, na), dimensions={0}\n  ROOT r = $T[10,3] $OP(cc, d)\n");
    }
    run("  a = $T[1,4] parameter(0)\n  b = $T[2,4] parameter(1)\n  c = $T[0,4] parameter(2)\n"
        "  e = $T[5,4] parameter(3)\n  d = $T[12,4] parameter(4)\n"
        "  cc = $T[12,4] concatenate(b, a, c, e, a, b, c, a), dimensions={0}\n  ROOT r = $T[12,4] $OP(cc, d)\n");
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

}  // namespace
}  // namespace cpu
}  // namespace xla
