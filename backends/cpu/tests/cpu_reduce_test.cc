// Reductions that keep the operand's minor-most layout dimension
// (reduction_emitter.h): outputs updated row by row of the reduced indices.
// Each output element folds its elements in the evaluator's order, so every
// case must match the evaluator exactly, with 1 and 2 threads, for every
// element type, layout and fused producer.
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::OptimizedIr;
using cpu_test::RandomArguments;
using cpu_test::WithThreads;

// A scalar reducer computation `red` of `type` applying `op` (an HLO opcode).
std::string Reducer(const std::string& type, const std::string& op) {
  return absl::StrCat("red {\n  a = ", type, "[] parameter(0)\n  b = ", type, "[] parameter(1)\n  ROOT r = ", type,
                      "[] ", op, "(a, b)\n}\n");
}

// The identity of `op` over `type`, as an HLO constant literal.
std::string Identity(const std::string& type, const std::string& op) {
  const bool is_float = type[0] == 'f' || type == "bf16";
  if (op == "add") return "0";
  if (op == "multiply") return "1";
  if (op == "and" || (type == "pred" && op == "minimum")) return "true";
  if (op == "or" || (type == "pred" && op == "maximum")) return "false";
  if (op == "maximum") {
    if (is_float) return "-inf";
    return type == "s32" ? "-2147483648" : "0";
  }
  if (is_float) return "inf";  // minimum
  return type == "s32" ? "2147483647" : "255";
}

// reduce(x) of x = `type`[`dims`]`layout` over `reduced`, into `out_dims`.
std::string ReduceModule(const std::string& type, const std::string& op, const std::string& dims,
                         const std::string& layout, const std::string& reduced, const std::string& out_dims,
                         const std::string& out_layout = "") {
  return absl::StrCat("HloModule m\n", Reducer(type, op), "ENTRY e {\n  x = ", type, "[", dims, "]", layout,
                      " parameter(0)\n  z = ", type, "[] constant(", Identity(type, op), ")\n  ROOT r = ", type, "[",
                      out_dims, "]", out_layout, " reduce(x, z), dimensions={", reduced, "}, to_apply=red\n}\n");
}

void ExpectWithThreads(const std::string& text, uint64_t seed, double range, const ErrorSpec& tolerance) {
  std::vector<Literal> args = RandomArguments(text, seed, range);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(absl::StrCat("threads=", threads, "\n", text));
    CompareWithEvaluator(text, args, tolerance, WithThreads(threads));
  }
}

void ExpectExactWithThreads(const std::string& text, uint64_t seed, double range = 4.0) {
  ExpectWithThreads(text, seed, range, ErrorSpec{0, 0});
}

std::vector<std::string> OpsOf(const std::string& type) {
  if (type == "pred") return {"and", "or", "maximum", "minimum"};
  return {"add", "maximum", "minimum", "multiply"};
}

TEST(CpuReduceTest, ColumnReductionsOfEveryTypeAndReducer) {
  uint64_t seed = 1;
  for (const std::string type : {"f32", "f64", "f16", "bf16", "s32", "u8", "pred"}) {
    for (const std::string& op : OpsOf(type)) {
      // Below and above the parallel threshold (kMinParallelWork).
      for (const auto& [rows, cols] : std::vector<std::pair<int, int>>{{7, 9}, {513, 259}}) {
        // Products of many floats in [-4, 4] overflow: keep them near 1.
        const double range = op == "multiply" ? 1.2 : 4.0;
        ExpectExactWithThreads(
            ReduceModule(type, op, absl::StrCat(rows, ",", cols), "", "0", absl::StrCat(cols)), ++seed, range);
      }
    }
  }
}

TEST(CpuReduceTest, Rank3KeepingTheMinorDimension) {
  uint64_t seed = 100;
  for (const std::string type : {"f32", "f16", "s32"}) {
    for (const std::string dims : {"5,6,7", "40,50,60"}) {
      ExpectExactWithThreads(ReduceModule(type, "add", dims, "", "0,1", dims.substr(dims.rfind(',') + 1)), ++seed);
      const std::string first = dims.substr(0, dims.find(','));
      const std::string last = dims.substr(dims.rfind(',') + 1);
      const std::string mid = dims.substr(dims.find(',') + 1, dims.rfind(',') - dims.find(',') - 1);
      ExpectExactWithThreads(ReduceModule(type, "add", dims, "", "1", absl::StrCat(first, ",", last)), ++seed);
      ExpectExactWithThreads(ReduceModule(type, "maximum", dims, "", "0", absl::StrCat(mid, ",", last)), ++seed);
      // The output in the other layout: the inner loop strides the output.
      ExpectExactWithThreads(ReduceModule(type, "add", dims, "", "0", absl::StrCat(mid, ",", last), "{0,1}"),
                             ++seed);
    }
  }
}

TEST(CpuReduceTest, NonDefaultLayouts) {
  uint64_t seed = 200;
  // Dimension 0 is minor: reducing dimension 1 keeps it.
  ExpectExactWithThreads(ReduceModule("f32", "add", "37,41", "{0,1}", "1", "37"), ++seed);
  ExpectExactWithThreads(ReduceModule("f32", "add", "700,300", "{0,1}", "1", "700"), ++seed);
  ExpectExactWithThreads(ReduceModule("bf16", "add", "700,300", "{0,1}", "1", "700"), ++seed);
  // Dimension 1 is minor in a rank-3 layout.
  ExpectExactWithThreads(ReduceModule("f32", "add", "20,30,40", "{1,0,2}", "0,2", "30"), ++seed);
  ExpectExactWithThreads(ReduceModule("f64", "minimum", "60,70,80", "{1,0,2}", "2", "60,70"), ++seed);
  ExpectExactWithThreads(ReduceModule("f64", "minimum", "60,70,80", "{1,0,2}", "2", "60,70", "{1,0}"), ++seed);
  ExpectExactWithThreads(ReduceModule("u8", "add", "60,70,80", "{1,2,0}", "0,2", "70"), ++seed);
}

TEST(CpuReduceTest, ZeroSizedReducedDimensionsGiveTheInitValue) {
  uint64_t seed = 300;
  ExpectExactWithThreads(ReduceModule("f32", "add", "0,17", "", "0", "17"), ++seed);
  ExpectExactWithThreads(ReduceModule("s32", "maximum", "3,0,17", "", "0,1", "17"), ++seed);
  ExpectExactWithThreads(ReduceModule("f16", "multiply", "0,70000", "", "0", "70000"), ++seed);
}

TEST(CpuReduceTest, FusedProducersAndInitValues) {
  const std::string add = Reducer("f32", "add");
  // reduce(exp(x)): the backend's exp is a polynomial (vector_math_library.h)
  // within an ulp or so of libm's, which the evaluator uses; the fold itself
  // is exact, so the sums differ by those ulps only.
  ExpectWithThreads(absl::StrCat("HloModule m\n", add, R"(ENTRY e {
  x = f32[300,257] parameter(0)
  ex = f32[300,257] exponential(x)
  z = f32[] constant(0)
  ROOT r = f32[257] reduce(ex, z), dimensions={0}, to_apply=red
})"),
                    400, 4.0, ErrorSpec{1e-6, 1e-6});
  const std::vector<std::string> modules = {
      // reduce(x * y) with a parameter init value
      absl::StrCat("HloModule m\n", add, R"(ENTRY e {
  x = f32[400,300] parameter(0)
  y = f32[400,300] parameter(1)
  i = f32[] parameter(2)
  m = f32[400,300] multiply(x, y)
  ROOT r = f32[300] reduce(m, i), dimensions={0}, to_apply=red
})"),
      // reduce(convert(s32)) into f16, transposed producer
      absl::StrCat("HloModule m\n", Reducer("f16", "add"), R"(ENTRY e {
  x = s32[90,80] parameter(0)
  t = s32[80,90] transpose(x), dimensions={1,0}
  c = f16[80,90] convert(t)
  z = f16[] constant(0)
  ROOT r = f16[90] reduce(c, z), dimensions={0}, to_apply=red
})"),
      // The reduce feeds a fused consumer (materialized, not the root).
      absl::StrCat("HloModule m\n", add, R"(ENTRY e {
  x = f32[600,200] parameter(0)
  z = f32[] constant(0)
  s = f32[200] reduce(x, z), dimensions={0}, to_apply=red
  ROOT n = f32[200] negate(s)
})"),
      // A reducer that is not a single op: sum of squares in bf16.
      R"(HloModule m
red {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  bb = bf16[] multiply(b, b)
  ROOT r = bf16[] add(a, bb)
}
ENTRY e {
  x = bf16[500,300] parameter(0)
  z = bf16[] constant(0)
  ROOT r = bf16[300] reduce(x, z), dimensions={0}, to_apply=red
})",
  };
  uint64_t seed = 410;
  for (const std::string& text : modules) ExpectExactWithThreads(text, ++seed);
}

TEST(CpuReduceTest, ColumnSumVectorizesAndSplitsAcrossThreads) {
  const std::string text = ReduceModule("f32", "add", "1024,1024", "", "0", "1024");
  const std::string parallel = OptimizedIr(text, 2);
  EXPECT_NE(parallel.find("__xla_cpu_runtime_ParallelFor"), std::string::npos);
  EXPECT_NE(parallel.find(".parallel("), std::string::npos);
  const std::regex wide_add("fadd <(8|16|32|64) x float>");
  EXPECT_TRUE(std::regex_search(parallel, wide_add)) << parallel;
  const std::string serial = OptimizedIr(text, 1);
  EXPECT_EQ(serial.find("__xla_cpu_runtime_ParallelFor"), std::string::npos);
  EXPECT_TRUE(std::regex_search(serial, wide_add)) << serial;
}

}  // namespace
}  // namespace cpu
}  // namespace xla
