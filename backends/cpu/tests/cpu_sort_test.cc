// Sort and topk on the CPU backend against the reference evaluator: every
// element type, each dimension of 1-3-D shapes in several layouts, several
// operands, stable and unstable sorts, comparators that are not strict weak
// orders, and values with many ties, NaNs and signed zeros. The CPU sort is
// stable like the evaluator's, so results must be equal bit for bit.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu_test {
namespace {

bool IsFloat(const std::string& type) { return type == "f32" || type == "f64" || type == "f16" || type == "bf16"; }

// Random values with many ties: small integers, and for floats also NaNs of
// both signs, infinities and signed zeros.
Literal TiedLiteral(const Shape& shape, std::mt19937_64& rng) {
  Literal lit(shape);
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = decltype(tag);
    for (auto& v : lit.data<T>()) {
      const int64_t r = static_cast<int64_t>(rng() % 9) - 4;
      if constexpr (std::is_same_v<T, bool>) {
        v = r > 0;
      } else if constexpr (primitive_util::is_complex_v<T>) {
        v = T(static_cast<typename T::value_type>(r), static_cast<typename T::value_type>(rng() % 5));
      } else if constexpr (primitive_util::is_float_v<T>) {
        const float specials[] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::infinity(), -0.0f, 0.0f};
        v = static_cast<T>(rng() % 4 == 0 ? specials[rng() % 5] : static_cast<float>(r) / 2);
      } else {
        v = static_cast<T>(r);
      }
    }
  });
  return lit;
}

std::vector<Literal> TiedArguments(const std::string& text, uint64_t seed) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  if (!module.ok()) return args;
  std::mt19937_64 rng(seed);
  for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
    args.push_back(TiedLiteral(p->shape(), rng));
  }
  return args;
}

// Equal bit for bit (NaN signs and -0 too), whatever the layouts.
bool BitwiseEqual(const Literal& a, const Literal& b) {
  if (!a.shape().Compatible(b.shape())) return false;
  if (a.shape().IsTuple()) {
    for (size_t i = 0; i < a.tuple_elements().size(); ++i) {
      if (!BitwiseEqual(a.tuple_elements()[i], b.tuple_elements()[i])) return false;
    }
    return true;
  }
  const Literal relaid = b.Relayout(a.shape().layout());
  // Empty literals may have no data pointer (memcmp's are never null).
  return a.size_bytes() == 0 || std::memcmp(a.untyped_data(), relaid.untyped_data(), a.size_bytes()) == 0;
}

// The CPU result (1 and 2 threads) equals the evaluator's bit for bit.
void ExpectSameAsEvaluator(const std::string& text, const std::vector<Literal>& args) {
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
  std::vector<const Literal*> pointers;
  for (const Literal& a : args) pointers.push_back(&a);
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**module, pointers);
  ASSERT_TRUE(expected.ok()) << expected.status() << "\n" << text;
  for (int threads : {1, 2}) {
    absl::StatusOr<Literal> actual = RunOnCpu(text, args, WithThreads(threads));
    ASSERT_TRUE(actual.ok()) << actual.status() << "\n" << text;
    EXPECT_TRUE(BitwiseEqual(*actual, *expected)) << "threads=" << threads << "\n"
                                      << text << "\nCPU: " << actual->ToString()
                                      << "\nevaluator: " << expected->ToString();
  }
}

// sort of parameters of `types` (each with `dims` and its own layout from
// `layouts`, "" for the default) along `dimension`, the comparator's root
// `compare` over parameters p0, p1 (operand 0), p2, p3 (operand 1), ...
std::string SortHlo(const std::vector<std::string>& types, const std::string& dims,
                    const std::vector<std::string>& layouts, int64_t dimension, const std::string& compare,
                    bool stable, const std::string& producer = "") {
  std::string comparator = "cmp {\n";
  std::vector<std::string> params, operands, results;
  for (size_t i = 0; i < types.size(); ++i) {
    for (int side = 0; side < 2; ++side) {
      absl::StrAppend(&comparator, "  p", 2 * i + side, " = ", types[i], "[] parameter(", 2 * i + side, ")\n");
    }
    const std::string layout = i < layouts.size() ? layouts[i] : "";
    const std::string shape = absl::StrCat(types[i], "[", dims, "]", layout);
    params.push_back(absl::StrCat("  x", i, " = ", shape, " parameter(", i, ")\n"));
    operands.push_back(absl::StrCat("x", i));
    results.push_back(shape);
  }
  absl::StrAppend(&comparator, compare, "}\n");
  std::string body = absl::StrJoin(params, "");
  if (!producer.empty()) {
    // Operand 0 through an elementwise producer, fused into the sort's copy.
    absl::StrAppend(&body, "  y0 = ", results[0], " ", producer, "(x0)\n");
    operands[0] = "y0";
  }
  const std::string result = types.size() == 1 ? results[0] : absl::StrCat("(", absl::StrJoin(results, ", "), ")");
  return absl::StrCat("HloModule m\n", comparator, "ENTRY e {\n", body, "  ROOT s = ", result, " sort(",
                      absl::StrJoin(operands, ", "), "), dimensions={", dimension, "}",
                      stable ? ", is_stable=true" : "", ", to_apply=cmp\n}\n");
}

// compare(p0, p1) `direction`, in the total order for floats.
std::string Less(const std::string& type, const std::string& direction = "LT") {
  return absl::StrCat("  ROOT r = pred[] compare(p0, p1), direction=", direction,
                      IsFloat(type) ? ", type=TOTALORDER" : "", "\n");
}

TEST(CpuSortTest, EveryTypeEachDimensionStableAndUnstable) {
  uint64_t seed = 1;
  for (const std::string type :
       {"f32", "f64", "f16", "bf16", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "pred"}) {
    for (const auto& [dims, rank] : std::vector<std::pair<std::string, int>>{{"37", 1}, {"5,7", 2}, {"3,4,6", 3}}) {
      for (int64_t dim = 0; dim < rank; ++dim) {
        for (bool stable : {false, true}) {
          const std::string text = SortHlo({type}, dims, {}, dim, Less(type, dim % 2 ? "GT" : "LT"), stable);
          SCOPED_TRACE(text);
          ExpectSameAsEvaluator(text, TiedArguments(text, seed++));
        }
      }
    }
  }
}

TEST(CpuSortTest, TheCorpusNaNCanonicalizingComparator) {
  // jnp.sort's comparator: -0 as +0, every NaN as one, then LT TOTALORDER.
  const std::string compare = R"(  zero = f32[] constant(0)
  nan = f32[] constant(nan)
  az = pred[] compare(p0, zero), direction=EQ
  a0 = f32[] select(az, zero, p0)
  an = pred[] compare(p0, p0), direction=NE
  a = f32[] select(an, nan, a0)
  bz = pred[] compare(p1, zero), direction=EQ
  b0 = f32[] select(bz, zero, p1)
  bn = pred[] compare(p1, p1), direction=NE
  b = f32[] select(bn, nan, b0)
  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER
)";
  const std::string text = SortHlo({"f32"}, "6,40", {}, 1, compare, false);
  ExpectSameAsEvaluator(text, TiedArguments(text, 7));
}

TEST(CpuSortTest, SeveralOperandsFollowTheKeys) {
  uint64_t seed = 100;
  // By the keys of operand 0 only: equal keys keep the other operands' order.
  for (bool stable : {false, true}) {
    for (int64_t dim : {0, 1}) {
      const std::string text = SortHlo({"s32", "f32", "u8"}, "9,11", {}, dim, Less("s32"), stable);
      SCOPED_TRACE(text);
      ExpectSameAsEvaluator(text, TiedArguments(text, seed++));
    }
  }
  // Lexicographic over two keys, descending in the second (a bf16 and a pred).
  const std::string lexicographic = R"(  lt = pred[] compare(p0, p1), direction=LT
  eq = pred[] compare(p0, p1), direction=EQ
  gt = pred[] compare(p2, p3), direction=GT
  tie = pred[] and(eq, gt)
  ROOT r = pred[] or(lt, tie)
)";
  const std::string text = SortHlo({"s16", "pred", "bf16"}, "4,30", {}, 1, lexicographic, false);
  ExpectSameAsEvaluator(text, TiedArguments(text, seed++));
}

TEST(CpuSortTest, ComplexOperandsByTheirRealParts) {
  for (const std::string type : {"c64", "c128"}) {
    const std::string part = type == "c64" ? "f32" : "f64";
    const std::string compare = absl::StrCat("  a = ", part, "[] real(p0)\n  b = ", part,
                                             "[] real(p1)\n  ROOT r = pred[] compare(a, b), direction=GT\n");
    const std::string text = SortHlo({type, "s32"}, "3,17", {}, 1, compare, false);
    SCOPED_TRACE(text);
    ExpectSameAsEvaluator(text, TiedArguments(text, 3));
  }
}

TEST(CpuSortTest, LayoutsOfOperandsAndResults) {
  uint64_t seed = 200;
  for (int64_t dim : {0, 1, 2}) {
    // Column-major operand 0 and a permuted layout for operand 1; the results
    // take the operands' layouts.
    const std::string text =
        SortHlo({"f32", "s64"}, "4,5,6", {"{0,1,2}", "{1,2,0}"}, dim, Less("f32"), true);
    SCOPED_TRACE(text);
    ExpectSameAsEvaluator(text, TiedArguments(text, seed++));
  }
  // A single operand in another layout than its result.
  const std::string relaid = R"(HloModule m
cmp {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT r = pred[] compare(p0, p1), direction=LT, type=TOTALORDER
}
ENTRY e {
  x = f32[6,8]{0,1} parameter(0)
  ROOT s = f32[6,8]{1,0} sort(x), dimensions={0}, to_apply=cmp
})";
  ExpectSameAsEvaluator(relaid, TiedArguments(relaid, seed++));
}

TEST(CpuSortTest, FusedProducerAndZeroElements) {
  const std::string fused = SortHlo({"f32", "s32"}, "7,9", {}, 1, Less("f32"), true, "negate");
  ExpectSameAsEvaluator(fused, TiedArguments(fused, 11));
  for (const std::string dims : {"0,5", "5,0"}) {
    for (int64_t dim : {0, 1}) {
      const std::string text = SortHlo({"f32", "s32"}, dims, {}, dim, Less("f32"), false);
      SCOPED_TRACE(text);
      ExpectSameAsEvaluator(text, TiedArguments(text, 12));
    }
  }
  // A sort dimension of size 1 leaves the values as they are.
  const std::string one = SortHlo({"u16"}, "4,1", {}, 1, Less("u16"), false);
  ExpectSameAsEvaluator(one, TiedArguments(one, 13));
}

TEST(CpuSortTest, ComparatorsThatAreNotStrictWeakOrdersDoNotCrash) {
  // LE (true for equal elements) and plain LT over NaNs (incomparable to
  // everything) break std::sort's assumptions; the result is the
  // evaluator's permutation (both run the same std::stable_sort).
  for (const std::string& compare :
       {std::string("  ROOT r = pred[] compare(p0, p1), direction=LE\n"),
        std::string("  ROOT r = pred[] compare(p0, p1), direction=LT\n"),
        std::string("  ROOT r = pred[] constant(true)\n")}) {
    const std::string text = SortHlo({"f32"}, "3,200", {}, 1, compare, false);
    SCOPED_TRACE(text);
    ExpectSameAsEvaluator(text, TiedArguments(text, 21));
  }
}

TEST(CpuSortTest, ManySlicesRunInParallel) {
  // Enough slices x work per slice for the pool (kMinParallelWork).
  const std::string text = SortHlo({"f32", "s32"}, "256,64", {}, 1, Less("f32"), false);
  ExpectSameAsEvaluator(text, TiedArguments(text, 31));
  const std::string columns = SortHlo({"s32"}, "64,300", {}, 0, Less("s32"), true);
  ExpectSameAsEvaluator(columns, TiedArguments(columns, 32));
}

TEST(CpuSortTest, ARuntimeCallPerSliceAndSlicesOnThePool) {
  // One comparator function; the runtime sorts; with two threads the slices
  // go to the pool.
  const std::string text = SortHlo({"f32", "s32"}, "256,64", {}, 1, Less("f32"), false);
  const std::string ir = OptimizedIr(text, /*threads=*/2);
  EXPECT_GE(CountOccurrences(ir, "call void @__xla_cpu_runtime_SortSlice("), 1) << ir;
  EXPECT_EQ(CountOccurrences(ir, "define private void @s.comparator("), 1) << ir;
  EXPECT_GE(CountOccurrences(ir, "@__xla_cpu_runtime_ParallelFor("), 1) << ir;
  // TopK goes the same way (TopkDecomposer).
  const std::string topk = OptimizedIr(
      "HloModule t\nENTRY e {\n  x = f32[4,9] parameter(0)\n  ROOT t = (f32[4,3], s32[4,3]) topk(x), k=3\n}\n", 1);
  EXPECT_GE(CountOccurrences(topk, "call void @__xla_cpu_runtime_SortSlice("), 1) << topk;
}

TEST(CpuSortTest, HandComputedValues) {
  const std::string text = SortHlo({"s32", "f32"}, "2,3", {}, 0, Less("s32", "GT"), true);
  std::vector<Literal> args;
  args.push_back(Literal::CreateR2<int32_t>({{1, 2, 3}, {3, 2, 1}}));
  args.push_back(Literal::CreateR2<float>({{10, 20, 30}, {40, 50, 60}}));
  absl::StatusOr<Literal> r = RunOnCpu(text, args);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR2<int32_t>({{3, 2, 3}, {1, 2, 1}}));
  expected.push_back(Literal::CreateR2<float>({{40, 20, 30}, {10, 50, 60}}));
  EXPECT_EQ(*r, Literal::MakeTuple(std::move(expected))) << r->ToString();
}

std::string TopKHlo(const std::string& type, const std::string& dims, const std::string& out, int64_t k,
                    bool largest) {
  return absl::StrCat("HloModule t\nENTRY e {\n  x = ", type, "[", dims, "] parameter(0)\n  ROOT t = (", type, "[",
                      out, "], s32[", out, "]) topk(x), k=", k, largest ? "" : ", largest=false", "\n}\n");
}

TEST(CpuTopKTest, EveryTypeBothDirections) {
  uint64_t seed = 300;
  for (const std::string type : {"f32", "f64", "f16", "bf16", "s8", "s32", "s64", "u8", "u64", "pred"}) {
    for (bool largest : {true, false}) {
      for (const auto& [dims, out, k] : std::vector<std::tuple<std::string, std::string, int64_t>>{
               {"37", "5", 5}, {"5,7", "5,7", 7}, {"2,3,9", "2,3,1", 1}, {"4,6", "4,0", 0}}) {
        const std::string text = TopKHlo(type, dims, out, k, largest);
        SCOPED_TRACE(text);
        ExpectSameAsEvaluator(text, TiedArguments(text, seed++));
      }
    }
  }
}

TEST(CpuTopKTest, TheCorpusValues) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<float>({inf, nan, -nan, -inf, 3}));
  absl::StatusOr<Literal> r = RunOnCpu(TopKHlo("f32", "5", "5", 5, true), args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tuple_elements()[1], Literal::CreateR1<int32_t>({1, 0, 4, 3, 2}));
  EXPECT_TRUE(std::isnan(r->tuple_elements()[0].data<float>()[0]) && !std::signbit(r->tuple_elements()[0].data<float>()[0]));
  EXPECT_TRUE(std::isnan(r->tuple_elements()[0].data<float>()[4]) && std::signbit(r->tuple_elements()[0].data<float>()[4]));
  args.clear();
  args.push_back(Literal::CreateR1<int32_t>({5, 7, 5, 8, 8, 5}));
  r = RunOnCpu(TopKHlo("s32", "6", "3", 3, true), args);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR1<int32_t>({8, 8, 7}));
  expected.push_back(Literal::CreateR1<int32_t>({3, 4, 1}));
  EXPECT_EQ(*r, Literal::MakeTuple(std::move(expected))) << r->ToString();
}

}  // namespace
}  // namespace cpu_test
}  // namespace xla
