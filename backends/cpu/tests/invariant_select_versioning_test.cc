// Loop versioning on invariant selects (invariant_select_versioning.h):
// loops whose selects test conditions fixed for the whole loop (pads at the
// edges of a depthwise convolution, of a padded product that is reduced)
// run a copy without those selects when every condition holds, and the
// original loop otherwise. Results stay the evaluator's, at the borders
// (the original loop) as in the interior (the copy), on any thread count.
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::CountOccurrences;
using cpu_test::OptimizedIr;
using cpu_test::RandomArguments;
using cpu_test::WithThreads;

constexpr char kVersioned[] = "invariant.selects.hold";

std::string Depthwise(const std::string& window, int64_t out_height, int64_t out_width, int64_t multiplier) {
  const int64_t features = 16;
  return absl::StrCat("HloModule m\nENTRY e {\n  x = f32[2,9,11,", features, "] parameter(0)\n  w = f32[3,3,1,",
                      features * multiplier, "] parameter(1)\n  ROOT c = f32[2,", out_height, ",", out_width, ",",
                      features * multiplier, "] convolution(x, w), window={", window,
                      "}, dim_labels=b01f_01io->b01f, feature_group_count=", features, "\n}\n");
}

TEST(InvariantSelectVersioningTest, PaddedDepthwiseConvolutionsRunAnInteriorCopy) {
  struct Case {
    std::string window;
    int64_t out_height, out_width, multiplier;
  };
  for (const Case& c : {Case{"size=3x3 pad=1_1x1_1", 9, 11, 1}, Case{"size=3x3 stride=2x2 pad=1_1x1_1", 5, 6, 1},
                        Case{"size=3x3 pad=1_1x1_1", 9, 11, 2}}) {
    const std::string text = Depthwise(c.window, c.out_height, c.out_width, c.multiplier);
    SCOPED_TRACE(text);
    EXPECT_GE(CountOccurrences(OptimizedIr(text, 1), kVersioned), 1);
    for (int threads : {1, 2}) {
      CompareWithEvaluator(text, RandomArguments(text, 5), ErrorSpec{1e-5, 1e-5}, WithThreads(threads));
    }
  }
}

// The loop's sum leaves it through an LCSSA phi, which the copy must feed
// too; rows 0, 1, 6 and 7 are padding in one operand or more. (The loop is
// long enough that LLVM's own unswitching leaves it alone.)
TEST(InvariantSelectVersioningTest, ValuesLeavingTheLoopComeFromTheCopyThatRan) {
  const std::string text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[6,300] parameter(0)
  y = f32[6,300] parameter(1)
  z = f32[] constant(0)
  px = f32[8,300] pad(x, z), padding=1_1x0_0
  py = f32[8,300] pad(y, z), padding=2_0x0_0
  qx = f32[8,300] pad(y, z), padding=0_2x0_0
  m = f32[8,300] multiply(px, py)
  t = f32[8,300] tanh(qx)
  n = f32[8,300] multiply(m, t)
  ROOT r = f32[8] reduce(n, z), dimensions={1}, to_apply=add
})";
  EXPECT_GE(CountOccurrences(OptimizedIr(text, 1), kVersioned), 1);
  CompareWithEvaluator(text, RandomArguments(text, 6), ErrorSpec{1e-5, 1e-5}, WithThreads(1));
}

// A select whose condition changes along the loop is left alone.
TEST(InvariantSelectVersioningTest, VaryingConditionsAreNotVersioned) {
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[64,256] parameter(0)
  y = f32[64,256] parameter(1)
  g = pred[64,256] compare(x, y), direction=GT
  ROOT s = f32[64,256] select(g, x, y)
})";
  EXPECT_EQ(CountOccurrences(OptimizedIr(text, 1), kVersioned), 0);
  CompareWithEvaluator(text, RandomArguments(text, 7), ErrorSpec{0, 0}, WithThreads(1));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
