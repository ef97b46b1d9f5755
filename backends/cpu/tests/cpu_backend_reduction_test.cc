// Differential tests of the CPU backend against the reference evaluator,
// reductions and windows: reduce over each dimension, scatter (collisions,
// index types, variadic, large), reduce-window (pooling, dilations,
// variadic) and select-and-scatter.
#include <array>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/codegen/elemental_ir_emitter.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/tests/cpu_backend_test_helpers.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using namespace cpu_backend_test;  // NOLINT: the shared helpers and tolerances

// --- Reductions ---------------------------------------------------------------------

TEST(CpuBackendTest, ReduceEachDimension) {
  struct Case { std::string op, init; };
  for (const std::string t : {"f32", "f64", "s32", "u8", "s64", "f16", "bf16"}) {
    const bool is_float = t[0] == 'f' || t[0] == 'b';
    std::vector<Case> cases = {{"add", "0"}, {"maximum", is_float ? "-inf" : "0"}, {"minimum", is_float ? "inf" : "0"},
                               {"multiply", "1"}};
    for (const Case& c : cases) {
      const ErrorSpec tol = c.op == "multiply" ? ErrorSpec{1e-3, 1e-4} : kReduceTol;
      const double range = c.op == "multiply" ? 1.5 : 2.0;
      RunAndCompare(ReduceModule(t, c.op, "[5,17,33]", "[17,33]", "0", c.init), {.tol = tol, .range = range});
      RunAndCompare(ReduceModule(t, c.op, "[5,17,33]", "[5,33]", "1", c.init), {.tol = tol, .range = range});
      RunAndCompare(ReduceModule(t, c.op, "[5,17,33]", "[5,17]", "2", c.init), {.tol = tol, .range = range});
      RunAndCompare(ReduceModule(t, c.op, "[5,17,33]", "[17]", "0,2", c.init), {.tol = tol, .range = range});
      RunAndCompare(ReduceModule(t, c.op, "[5,17,33]", "[]", "0,1,2", c.init), {.tol = tol, .range = range});
      RunAndCompare(ReduceModule(t, c.op, "[]", "[]", "", c.init), {.tol = tol});
      RunAndCompare(ReduceModule(t, c.op, "[4,0]", "[4]", "1", c.init), {.tol = tol});
      RunAndCompare(ReduceModule(t, c.op, "[0,4]", "[0]", "1", c.init), {.tol = tol});
      RunAndCompare(ReduceModule(t, c.op, "[1000]", "[]", "0", c.init), {.tol = tol, .range = range});
    }
  }
  RunAndCompare(ReduceModule("pred", "and", "[7,9]", "[7]", "1", "true"));
  RunAndCompare(ReduceModule("pred", "or", "[7,9]", "[9]", "0", "false"));
}

TEST(CpuBackendTest, ReduceOfFusedProducerAndSoftmax) {
  RunAndCompare(cpu_test::SoftmaxHlo("f32", 13, 37),
                {.tol = kReduceTol});
}

// --- Scatter --------------------------------------------------------------------------

// (value, index) pairs: the larger value, the first one on ties.
constexpr char kArgmax[] = R"(argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(bv, av), direction=GT
  v = f32[] select(gt, bv, av)
  i = s32[] select(gt, bi, ai)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
)";

std::string ScatterModule(const std::string& t, const std::string& operand, const std::string& indices,
                          const std::string& updates, const std::string& combine, const std::string& dims) {
  return absl::StrCat("HloModule m\nc {\n  a = ", t, "[] parameter(0)\n  b = ", t, "[] parameter(1)\n  ROOT r = ", t,
                      "[] ", combine, "\n}\nENTRY e {\n  x = ", t, operand, " parameter(0)\n  i = ", indices,
                      " parameter(1)\n  u = ", t, updates, " parameter(2)\n  ROOT s = ", t, operand,
                      " scatter(x, i, u), ", dims, ", to_apply=c\n}\n");
}

// (value, index) rows scattered by row index and combined by kArgmax; the
// value result in `value_layout` ("" for the default).
std::string ArgmaxScatterModule(int64_t rows, int64_t cols, int64_t updates, const std::string& value_layout) {
  return absl::StrReplaceAll(std::string("HloModule m\n") + kArgmax + R"(ENTRY e {
  x = f32[$R,$C] parameter(0)
  xi = s32[$R,$C] parameter(1)
  ids = s32[$U] parameter(2)
  u = f32[$U,$C] parameter(3)
  ui = s32[$U,$C] parameter(4)
  ROOT s = (f32[$R,$C]$L, s32[$R,$C]) scatter(x, xi, ids, u, ui), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=argmax
}
)",
                             {{"$R", absl::StrCat(rows)}, {"$C", absl::StrCat(cols)}, {"$U", absl::StrCat(updates)},
                              {"$L", value_layout}});
}

TEST(CpuBackendTest, ScatterOfEveryTypeWithCollisions) {
  // Indices in [-10, 10] over 7 rows: collisions, and rows out of range
  // (skipped); add, and a non-commutative combiner.
  const std::string rows =
      "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";
  for (const std::string t : {"f32", "f64", "s32", "u8", "s64", "f16", "bf16"}) {
    RunAndCompare(ScatterModule(t, "[7,5]", "s32[12]", "[12,5]", "add(a, b)", rows),
                  {.tol = kExact, .small_ints = 10});
    RunAndCompare(ScatterModule(t, "[7,5]", "s32[12]", "[12,5]", "subtract(a, b)", rows),
                  {.tol = kExact, .small_ints = 10});
  }
  RunAndCompare(ScatterModule("pred", "[7,5]", "s32[12]", "[12,5]", "or(a, b)", rows), {.tol = kExact, .small_ints = 10});
}

TEST(CpuBackendTest, VariadicScatterAndResultLayouts) {
  // (value, index) pairs combined by a max-with-index computation, results
  // in a layout other than the operands'.
  RunAndCompare(ArgmaxScatterModule(6, 4, 10, "{0,1}"), {.tol = kExact, .small_ints = 8});
  RunAndCompare(R"(HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, b)
}
ENTRY e {
  x = s32[6,4] parameter(0)
  ids = s32[10] parameter(1)
  u = s32[10,4] parameter(2)
  ROOT s = s32[6,4]{0,1} scatter(x, ids, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)",
                {.tol = kExact, .small_ints = 8});
}

TEST(CpuBackendTest, ScatterIndexTypesAndWindows) {
  // 2-d windows at 2-d starts of every index type (random bits: most out of
  // range), and with small values.
  const std::string windows =
      "update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1";
  for (const std::string& it : kIntTypes) {
    RunAndCompare(ScatterModule("f32", "[6,7]", it + "[4,2]", "[4,2,3]", "add(a, b)", windows), {.tol = kExact});
    RunAndCompare(ScatterModule("f32", "[6,7]", it + "[4,2]", "[4,2,3]", "add(a, b)", windows),
                  {.tol = kExact, .small_ints = 6});
  }
  // Index vectors down dimension 0, a replacing combiner, a transposed
  // operand; and batching dimensions.
  RunAndCompare(ScatterModule("s32", "[6,7]{0,1}", "s32[2,5]", "[5]", "copy(b)",
                              "update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={1,0}, "
                              "index_vector_dim=0"),
                {.tol = kExact, .small_ints = 7});
  RunAndCompare(ScatterModule("f32", "[3,6,4]", "s64[3,5,1]", "[3,5,4]", "add(a, b)",
                              "update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, "
                              "input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2"),
                {.tol = kExact, .small_ints = 7});
  // Into a computed operand (zeros: a gradient accumulator), which must
  // not be fused into the scatter's loops.
  RunAndCompare(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  ids = s32[9] parameter(0)
  g = f32[9,8] parameter(1)
  z = f32[] constant(0)
  zb = f32[6,8] broadcast(z), dimensions={}
  ROOT s = f32[6,8] scatter(zb, ids, g), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)",
                {.tol = kExact, .small_ints = 7});
  // No updates.
  RunAndCompare(ScatterModule("f32", "[6,7]", "s32[0]", "[0,7]", "add(a, b)",
                              "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                              "index_vector_dim=1"),
                {.tol = kExact});
}

// An update window even partly outside the operand is skipped whole (XLA's
// semantics, docs/ops.md), in every dimension, with batching dimensions,
// and in the banded parallel path where a window spans two bands.
TEST(CpuBackendTest, ScatterWindowsPartlyOutOfBoundsAreSkippedWhole) {
  const std::string windows =
      "update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1";
  const std::string text = ScatterModule("f32", "[6,7]", "s32[7,2]", "[7,2,3]", "add(a, b)", windows);
  // Starts: fits at the far corner (4,4); one past it in rows (5,0) or
  // columns (0,5); negative (-1,0), (0,-1); far out; fits at (0,0).
  Literal idx = Literal::CreateR2<int32_t>({{4, 4}, {5, 0}, {0, 5}, {-1, 0}, {0, -1}, {1000, 2}, {0, 0}});
  std::vector<Literal> args;
  args.push_back(Literal(ShapeUtil::MakeShape(F32, {6, 7})));
  args.push_back(std::move(idx));
  Literal up(ShapeUtil::MakeShape(F32, {7, 2, 3}));
  for (int i = 0; i < 42; ++i) up.data<float>()[i] = static_cast<float>(i + 1);
  args.push_back(std::move(up));
  for (int i = 0; i < 42; ++i) args[0].data<float>()[i] = 0;
  RunAndCompare(text, {.tol = kExact, .args = std::move(args)});
  // Random starts around the edges, in a transposed operand, and windows
  // of two rows with batching dimensions.
  RunAndCompare(ScatterModule("s32", "[6,7]{0,1}", "s64[20,2]", "[20,2,3]", "add(a, b)", windows),
                {.tol = kExact, .small_ints = 7});
  RunAndCompare(ScatterModule("f32", "[3,6,4]", "s32[3,5,1]", "[3,5,2,4]", "add(a, b)",
                              "update_window_dims={2,3}, inserted_window_dims={}, scatter_dims_to_operand_dims={1}, "
                              "input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2"),
                {.tol = kExact, .small_ints = 7});
  // Banded: windows of 3 rows at random rows of 300, the last rows' windows
  // skipped, windows crossing band boundaries applied whole.
  RunAndCompare(ScatterModule("f32", "[300,8]", "s32[9000]", "[9000,3,8]", "add(a, b)",
                              "update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, "
                              "index_vector_dim=1"),
                {.tol = kExact, .small_ints = 310});
}

// Scatters with enough updates to run in bands of the operand's rows, one
// worker per band: collisions still combine in the evaluator's order (float
// sums exactly, the last of colliding replacements, argmax ties), with
// out-of-range indices skipped.
TEST(CpuBackendTest, LargeScatterKeepsTheEvaluatorsOrder) {
  const std::string rows =
      "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";
  RunAndCompare(ScatterModule("f32", "[300,8]", "s32[9000]", "[9000,8]", "add(a, b)", rows),
                {.tol = kExact, .small_ints = 310});
  RunAndCompare(ScatterModule("s32", "[300,8]{0,1}", "s32[9000]", "[9000,8]", "copy(b)", rows),
                {.tol = kExact, .small_ints = 310});
  RunAndCompare(ArgmaxScatterModule(200, 40, 2000, ""), {.tol = kExact, .small_ints = 200});
  // A batch of one: the bands run along the 300 rows of dimension 1.
  RunAndCompare(ScatterModule("f32", "[1,300,8]", "s32[9000]", "[9000,1,8]", "add(a, b)",
                              "update_window_dims={1,2}, inserted_window_dims={1}, "
                              "scatter_dims_to_operand_dims={1}, index_vector_dim=1"),
                {.tol = kExact, .small_ints = 310});
}

// --- Reduce-window --------------------------------------------------------------------

std::string ReduceWindowModule(const std::string& t, const std::string& operand, const std::string& result,
                               const std::string& op, const std::string& init, const std::string& window) {
  return absl::StrCat("HloModule m\nr {\n  a = ", t, "[] parameter(0)\n  b = ", t, "[] parameter(1)\n  ROOT c = ", t,
                      "[] ", op, "(a, b)\n}\nENTRY e {\n  x = ", t, operand, " parameter(0)\n  i = ", t, "[] constant(",
                      init, ")\n  ROOT w = ", t, result, " reduce-window(x, i), window={", window, "}, to_apply=r\n}\n");
}

TEST(CpuBackendTest, ReduceWindowPoolingOfEveryType) {
  // 3x3 max pooling, stride 2, SAME padding (TensorFlow's), NHWC; and a sum.
  for (const std::string t : {"f32", "f64", "f16", "bf16", "s32", "u8", "s64"}) {
    RunAndCompare(ReduceWindowModule(t, "[2,9,9,3]", "[2,5,5,3]", "maximum", "0",
                                     "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0"),
                  {.tol = kExact, .small_ints = 50});
    RunAndCompare(ReduceWindowModule(t, "[2,9,9,3]", "[2,4,4,3]", "add", "0", "size=1x2x2x1 stride=1x2x2x1"),
                  {.tol = t == "f16" || t == "bf16" ? ConvolutionTol(t) : kReduceTol, .small_ints = 50});
  }
}

TEST(CpuBackendTest, ReduceWindowWindowsAndLayouts) {
  const std::vector<std::array<std::string, 3>> cases = {
      // Base and window dilation, negative and uneven padding.
      {"[13,7]", "[12,3]", "size=3x2 stride=2x2 pad=1_-1x0_1 lhs_dilate=2x1 rhs_dilate=1x2"},
      // A window as large as the padded input, and size-0 results.
      {"[5,4]", "[1,1]", "size=7x4 pad=1_1x0_0"},
      {"[0,4]", "[0,3]", "size=1x2"},
      {"[3,4]", "[3,0]", "size=1x5"},
      // Rank 1 and rank 3 with a transposed layout.
      {"[100]", "[34]", "size=5 stride=3 pad=2_2"},
      {"[4,6,5]{0,2,1}", "[4,3,5]", "size=1x2x1 stride=1x2x1"},
      // Windows of more than kMaxStraightLineWindowPositions positions fold
      // in a loop over the window (smaller ones in straight-line code).
      {"[20,21]", "[5,5]", "size=9x9 stride=3x3 pad=1_0x0_0"},
      {"[2,10,10,3]", "[2,1,1,3]", "size=1x10x10x1"},
  };
  for (const auto& [operand, result, window] : cases) {
    RunAndCompare(ReduceWindowModule("f32", operand, result, "maximum", "-inf", window), {.tol = kExact});
    RunAndCompare(ReduceWindowModule("s32", operand, result, "add", "0", window), {.tol = kExact, .small_ints = 9});
  }
  // A non-identity init value counts once per padding position, as in the
  // evaluator (the document pads with init values).
  RunAndCompare(ReduceWindowModule("s32", "[6]", "[7]", "add", "3", "size=2 pad=1_1"), {.tol = kExact});
}

// Pooling's small windows are folded position by position inside the loop
// over features, which is then innermost and vectorized.
TEST(CpuBackendTest, SmallReduceWindowsVectorizeOverFeatures) {
  static_assert(9 <= kMaxStraightLineWindowPositions);
  const std::string text = ReduceWindowModule("f32", "[2,13,13,24]", "[2,7,7,24]", "maximum", "-inf",
                                              "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0");
  auto executable = CompileOnCpu(text);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::string& ir = static_cast<CpuExecutable*>(executable->get())->optimized_ir();
  // (With the window as a loop, the module had no vector code at all.)
  EXPECT_GT(cpu_test::CountOccurrences(ir, " x float>"), 0) << ir;
  RunAndCompare(text, {.tol = kExact});
}

// Long bf16 bodies in loops of a few iterations: LLVM's vectorizer, masking
// their tail, never finished compiling these (loop_emitter.h,
// kMinVectorizedTripCount).
TEST(CpuBackendTest, LongBf16BodiesOverFewElementsCompile) {
  // (tanh may round to the neighbouring bf16 value, which 1 + tanh(x) then
  // magnifies where it cancels: an absolute bound too.)
  RunAndCompare(cpu_test::GeluHlo("[7,5]", "bf16"), {.tol = ErrorSpec{2e-2, 2e-2}});
  for (const std::string features : {"3", "5", "9"}) {
    RunAndCompare(ReduceWindowModule("bf16", "[2,9,9," + features + "]", "[2,5,5," + features + "]", "maximum",
                                     "-inf", "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0"),
                  {.tol = kExact});
  }
}

TEST(CpuBackendTest, VariadicReduceWindowArgmaxPooling) {
  // (value, index) pairs: the first maximum's index in each 2x2 window,
  // padding positions holding the init pair.
  RunAndCompare(std::string("HloModule m\n") + kArgmax + R"(ENTRY e {
  x = f32[2,7,7,3] parameter(0)
  idx = s32[2,7,7,3] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  none = s32[] constant(-1)
  ROOT w = (f32[2,4,4,3], s32[2,4,4,3]) reduce-window(x, idx, lo, none), window={size=1x2x2x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0}, to_apply=argmax
}
)",
                {.tol = kExact});
}

TEST(CpuBackendTest, SelectAndScatterIsMaxPoolingsGradient) {
  // 3x3/2 SAME max pooling's gradient over NHWC, several types; overlapping
  // windows accumulate, ties pick the first (GE), padding never selected.
  for (const std::string t : {"f32", "f64", "s32", "bf16"}) {
    RunAndCompare(cpu_test::MaxPoolGradientHlo(t, "[2,9,9,3]", "[2,5,5,3]",
                                               "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0"),
                  {.tol = t == "bf16" ? ConvolutionTol(t) : kExact, .small_ints = 4});
  }
}

TEST(CpuBackendTest, ReduceWindowOfAFusedOperandAndGeneralReducer) {
  // Average pooling after a ReLU, with a reducer that is not a single op.
  RunAndCompare(R"(HloModule m
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  ROOT m = f32[] maximum(s, a)
}
ENTRY e {
  x = f32[1,8,8,4] parameter(0)
  z = f32[] constant(0)
  zs = f32[1,8,8,4] broadcast(z), dimensions={}
  relu = f32[1,8,8,4] maximum(x, zs)
  w = f32[1,4,4,4] reduce-window(relu, z), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=r
  q = f32[] constant(0.25)
  qs = f32[1,4,4,4] broadcast(q), dimensions={}
  ROOT avg = f32[1,4,4,4] multiply(w, qs)
}
)",
                {.tol = kReduceTol});
}

}  // namespace
}  // namespace cpu
}  // namespace xla
