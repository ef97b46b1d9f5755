// ReductionSplitting: large reduces over the operand's most-major dimension
// into small results become a reduce into [P, result] partials (one
// contiguous partition of that dimension each) and a reduce over P; others
// stay as they are. Results: the evaluator's, exactly for integers, min/max
// and an order-sensitive (associative, not commutative) reducer, within
// rounding for float sums.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "backends/cpu/transforms/reduction_splitting.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

// reduce($IN) over $DIMS into $OUT with reducer $OP and init value $INIT
// (an identity of $OP) on $T elements.
std::string ReduceHlo(const std::string& t, const std::string& op, const std::string& in, const std::string& dims,
                      const std::string& out, const std::string& init = "0") {
  return absl::StrReplaceAll(R"(HloModule m
r {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = $T[] $OP(a, b)
}
ENTRY e {
  x = $T$IN parameter(0)
  z = $T[] constant($INIT)
  ROOT s = $T$OUT reduce(x, z), dimensions={$DIMS}, to_apply=r
}
)",
                             {{"$T", t}, {"$OP", op}, {"$IN", in}, {"$DIMS", dims}, {"$OUT", out}, {"$INIT", init}});
}

// `text` after the pass ("" and a test failure if it does not run), and
// whether the pass changed it.
std::string AfterPass(const std::string& text, bool* changed) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "";
  ReductionSplitting pass;
  auto ran = pass.Run(module->get());
  EXPECT_TRUE(ran.ok()) << ran.status();
  *changed = ran.ok() && *ran;
  return (*module)->ToString();
}

struct Case {
  std::string name, text;
  std::string partial;  // the partial results' shape when split, "" when not
};

std::vector<Case> Cases() {
  return {
      // A column sum: R = 4096 rows in 16 partitions of 256.
      {"column_sum", ReduceHlo("f32", "add", "[4096,300]", "0", "[300]"), "f32[16,300]{1,0}"},
      // A whole array into one value.
      {"full_sum", ReduceHlo("f32", "add", "[1024,1030]", "0,1", "[]"), "f32[16]{0}"},
      // Integers, and R = 2 * 3 * 174763: P = 6, the largest divisor <= 16.
      {"integer_sum", ReduceHlo("s32", "add", "[1048578]", "0", "[]"), "s32[6]{0}"},
      {"float_max", ReduceHlo("f32", "maximum", "[2048,1024]", "0", "[1024]", "-inf"), "f32[16,1024]{1,0}"},
      // Column-major: dimension 1 is the most major, and it is reduced; the
      // partition dimension goes where it was among the kept ones.
      {"column_major", ReduceHlo("f32", "add", "[300,4096]{0,1}", "1", "[300]"), "f32[300,16]{0,1}"},
      // A kept dimension (0) in front of R (dimension 1, most major in
      // layout {2,0,1}).
      {"kept_in_front", ReduceHlo("f32", "add", "[3,4096,256]{2,0,1}", "1,2", "[3]"), "f32[3,16]{0,1}"},
      // Not split: the most-major dimension is kept (a row sum is already
      // split by rows), the operand is small, the result is large, R has no
      // divisor in [2, 16] (1031 is prime).
      {"row_sum", ReduceHlo("f32", "add", "[4096,300]", "1", "[4096]"), ""},
      {"small", ReduceHlo("f32", "add", "[1000,1000]", "0", "[1000]"), ""},
      {"large_result", ReduceHlo("f32", "add", "[16,65536]", "0", "[65536]"), ""},
      {"prime_extent", ReduceHlo("f32", "add", "[1031,1031]", "0", "[1031]"), ""},
      // The most-major dimension (1) is reduced but is not the fold's
      // outermost (0 is): its partitions would interleave in the fold.
      {"major_not_outermost", ReduceHlo("s32", "add", "[1024,1024]{0,1}", "0,1", "[]"), ""},
  };
}

TEST(ReductionSplittingTest, SplitsLargeReductionsIntoSmallResults) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    bool changed = false;
    const std::string after = AfterPass(c.text, &changed);
    EXPECT_EQ(changed, !c.partial.empty()) << after;
    if (c.partial.empty()) {
      EXPECT_EQ(after, (*ParseHloModule(c.text))->ToString());
      continue;
    }
    EXPECT_NE(after.find(c.partial + " reduce("), std::string::npos) << after;
    // The root is still a reduce with the original result shape.
    auto module = ParseHloModule(after);
    ASSERT_TRUE(module.ok()) << module.status();
    const HloInstruction* root = (*module)->entry_computation()->root_instruction();
    EXPECT_EQ(root->opcode(), HloOpcode::kReduce);
    EXPECT_EQ(root->shape(), (*ParseHloModule(c.text))->entry_computation()->root_instruction()->shape());
  }
}

TEST(ReductionSplittingTest, MatchesTheEvaluator) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    // Float sums of 1M values in [-1, 1] round differently when split;
    // integer sums and maxima do not.
    const bool exact = c.text.find("s32") != std::string::npos || c.text.find("maximum") != std::string::npos;
    const ErrorSpec tolerance = exact ? ErrorSpec{0, 0} : ErrorSpec{1e-3, 1e-4};
    cpu_test::CompareWithEvaluator(c.text, cpu_test::RandomArguments(c.text, 7, /*range=*/1.0, /*small=*/1000),
                                   tolerance, cpu_test::WithThreads(2));
  }
}

TEST(ReductionSplittingTest, PartitionsCombineInOrder) {
  // "The first nonzero value": associative but not commutative, so only an
  // order-keeping split gives the sequential fold's value; the zeros in
  // front span several of the 16 partitions.
  const std::string text = R"(HloModule m
first_nonzero {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  zero = s32[] constant(0)
  a_set = pred[] compare(a, zero), direction=NE
  ROOT c = s32[] select(a_set, a, b)
}
ENTRY e {
  x = s32[1048576] parameter(0)
  z = s32[] constant(0)
  ROOT s = s32[] reduce(x, z), dimensions={0}, to_apply=first_nonzero
}
)";
  bool changed = false;
  AfterPass(text, &changed);
  ASSERT_TRUE(changed);  // split, so the order of the partitions is what is tested
  Literal x(ShapeUtil::MakeShape(S32, {1048576}));
  auto data = x.data<int32_t>();
  for (int64_t i = 0; i < 1048576; ++i) data[i] = i < 300000 ? 0 : static_cast<int32_t>(i % 97 + 1);
  data[900000] = -5;
  std::vector<Literal> args;
  args.push_back(std::move(x));
  for (int threads : {1, 2}) {
    auto run = cpu_test::RunOnCpu(text, args, cpu_test::WithThreads(threads));
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(run->data<int32_t>()[0], 300000 % 97 + 1);  // what the evaluator's sequential fold gives
  }
}

TEST(ReductionSplittingTest, SplitsArgmaxAndKeepsTheFirstOfTies) {
  // A variadic (value, index) reduce over 1M values with many ties: the
  // reducer keeps the accumulator on ties, so the first maximum's index
  // wins, split or not.
  const std::string text = R"(HloModule m
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  keep = pred[] compare(v0, v1), direction=GE
  v = f32[] select(keep, v0, v1)
  i = s32[] select(keep, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[1024,1024] parameter(0)
  i = s32[1024,1024] iota(), iota_dimension=0
  lo = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[1024], s32[1024]) reduce(x, i, lo, z), dimensions={0}, to_apply=argmax
}
)";
  bool changed = false;
  const std::string after = AfterPass(text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_NE(after.find("(f32[16,1024]{1,0}, s32[16,1024]{1,0}) reduce("), std::string::npos) << after;
  Literal x(ShapeUtil::MakeShape(F32, {1024, 1024}));
  auto data = x.data<float>();
  for (int64_t k = 0; k < data.size(); ++k) data[k] = static_cast<float>((k * 7919) % 3);  // values 0, 1, 2
  // The sequential fold by hand: per column, the first row holding its maximum.
  std::vector<float> want_value(1024, -INFINITY);
  std::vector<int32_t> want_index(1024, 0);
  for (int32_t r = 0; r < 1024; ++r) {
    for (int64_t c = 0; c < 1024; ++c) {
      if (!(want_value[c] >= data[r * 1024 + c])) want_value[c] = data[r * 1024 + c], want_index[c] = r;
    }
  }
  std::vector<Literal> args;
  args.push_back(std::move(x));
  for (int threads : {1, 2}) {
    auto run = cpu_test::RunOnCpu(text, args, cpu_test::WithThreads(threads));
    ASSERT_TRUE(run.ok()) << run.status();
    std::vector<Literal> parts = std::move(*run).DecomposeTuple();
    ASSERT_EQ(parts.size(), 2u);
    for (int64_t c = 0; c < 1024; ++c) {
      ASSERT_EQ(parts[0].data<float>()[c], want_value[c]) << c;
      ASSERT_EQ(parts[1].data<int32_t>()[c], want_index[c]) << c;
    }
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
