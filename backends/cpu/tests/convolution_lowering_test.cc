// ConvolutionLowering: which convolutions become what (HLO after the pass),
// and that the lowered module still computes the evaluator's convolution.
// The CPU differential tests (cpu_backend_test.cc, ConvolutionWindows...)
// cover the windows and dimension numbers through the whole pipeline.
#include <string>

#include "backends/cpu/transforms/convolution_lowering.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

std::string ConvModule(const std::string& lhs, const std::string& rhs, const std::string& result,
                       const std::string& attrs) {
  return "HloModule m\nENTRY e {\n  a = " + lhs + " parameter(0)\n  b = " + rhs + " parameter(1)\n  ROOT c = " +
         result + " convolution(a, b), " + attrs + "\n}\n";
}

// `text` after the pass ("" and a test failure if it does not run), and
// whether the pass changed it.
std::string AfterPass(const std::string& text, bool* changed) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "";
  ConvolutionLowering pass;
  auto ran = pass.Run(module->get());
  EXPECT_TRUE(ran.ok()) << ran.status();
  *changed = ran.ok() && *ran;
  return (*module)->ToString();
}

TEST(ConvolutionLoweringTest, UngroupedBecomesPatchesAndOneDot) {
  bool changed = false;
  const std::string after =
      AfterPass(ConvModule("f32[1,10,10,3]", "f32[3,3,3,5]", "f32[1,5,5,5]",
                           "window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f"),
                &changed);
  EXPECT_TRUE(changed);
  EXPECT_EQ(cpu_test::CountOccurrences(after, " convolution("), 0) << after;
  EXPECT_EQ(cpu_test::CountOccurrences(after, " dot("), 1) << after;
  EXPECT_EQ(cpu_test::CountOccurrences(after, " slice("), 9) << after;
  EXPECT_NE(after.find("f32[1,5,5,27]{3,2,1,0} concatenate("), std::string::npos) << after;
  EXPECT_NE(after.find("f32[1,11,11,3]{3,2,1,0} pad("), std::string::npos) << after;
  EXPECT_NE(after.find("f32[27,5]{1,0} reshape(%b)"), std::string::npos) << after;
  EXPECT_NE(after.find("lhs_contracting_dims={3}, rhs_contracting_dims={0}"), std::string::npos) << after;
}

TEST(ConvolutionLoweringTest, OneByOneIsADotOfTheInputItself) {
  bool changed = false;
  const std::string after = AfterPass(
      ConvModule("f32[2,7,7,16]", "f32[1,1,16,32]", "f32[2,7,7,32]", "window={size=1x1}, dim_labels=b01f_01io->b01f"),
      &changed);
  EXPECT_TRUE(changed);
  EXPECT_NE(after.find("dot(%a, "), std::string::npos) << after;
  EXPECT_EQ(cpu_test::CountOccurrences(after, " slice("), 0) << after;
  EXPECT_EQ(cpu_test::CountOccurrences(after, " pad("), 0) << after;
}

TEST(ConvolutionLoweringTest, OtherDimensionOrdersAreTransposedInAndOut) {
  bool changed = false;
  const std::string after = AfterPass(
      ConvModule("f32[3,4,7,5]", "f32[6,4,1,1]", "f32[3,6,7,5]", "window={size=1x1}, dim_labels=bf01_oi01->bf01"),
      &changed);
  EXPECT_TRUE(changed);
  EXPECT_NE(after.find("f32[3,7,5,4]{3,2,1,0} transpose(%a), dimensions={0,2,3,1}"), std::string::npos) << after;
  EXPECT_NE(after.find("f32[3,6,7,5]{3,2,1,0} transpose("), std::string::npos) << after;
  EXPECT_NE(after.find("dimensions={0,3,1,2}"), std::string::npos) << after;
}

TEST(ConvolutionLoweringTest, DepthwiseBecomesOneSumOfProducts) {
  bool changed = false;
  const std::string after =
      AfterPass(ConvModule("bf16[1,8,8,6]", "bf16[3,3,1,12]", "bf16[1,8,8,12]",
                           "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=6"),
                &changed);
  EXPECT_TRUE(changed);
  EXPECT_EQ(cpu_test::CountOccurrences(after, " multiply("), 9) << after;
  EXPECT_EQ(cpu_test::CountOccurrences(after, " add("), 8) << after;
  EXPECT_EQ(cpu_test::CountOccurrences(after, " dot("), 0) << after;
  // bf16 computed in f32, the multiplier of 2 by broadcast and reshape.
  EXPECT_NE(after.find("f32[1,8,8,6]{3,2,1,0} convert(%a)"), std::string::npos) << after;
  EXPECT_NE(after.find("f32[1,8,8,6,2]{4,3,2,1,0} broadcast("), std::string::npos) << after;
  EXPECT_NE(after.find("bf16[1,8,8,12]{3,2,1,0} convert("), std::string::npos) << after;
  // No padded copy: each position's slice padded where it hangs over the
  // edge (all but the centre position).
  EXPECT_EQ(cpu_test::CountOccurrences(after, " pad("), 8) << after;
  EXPECT_NE(after.find("f32[1,7,8,6]{3,2,1,0} slice(%convert), slice={[0:1], [0:7], [0:8], [0:6]}"), std::string::npos)
      << after;
}

TEST(ConvolutionLoweringTest, LargeKernelsAndBatchGroupsBecomeOneDotPerOutputPosition) {
  // Kernels of more than kMaxKernelPositions positions (a weight gradient's
  // kernel is the output gradient) with few output positions: one dot per
  // output position. f64, so only the summation order differs from the
  // evaluator; windows with padding, strides, dilations and reversal.
  struct Case {
    std::string text;
    int dots;
  };
  const Case cases[] = {
      {ConvModule("f64[2,36,36,3]", "f64[33,33,3,4]", "f64[2,4,4,4]", "window={size=33x33}, dim_labels=b01f_01io->b01f"),
       16},
      // A weight gradient's dimension numbers (batch and features swapped).
      {ConvModule("f64[3,35,35,2]", "f64[3,33,33,4]", "f64[5,5,2,4]",
                  "window={size=33x33 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"),
       25},
      {ConvModule("f64[2,3,1100]", "f64[4,3,1030]", "f64[2,4,25]",
                  "window={size=1030 stride=3 pad=2_1 rhs_reversal=1}, dim_labels=bf0_oi0->bf0"),
       25},
      {ConvModule("f64[2,3,600]", "f64[4,3,1030]", "f64[2,4,170]", "window={size=1030 lhs_dilate=2}, dim_labels=bf0_oi0->bf0"),
       170},
      {ConvModule("f64[1,2,2060]", "f64[4,2,1025]", "f64[1,4,12]", "window={size=1025 rhs_dilate=2}, dim_labels=bf0_oi0->bf0"),
       12},
  };
  for (const Case& c : cases) {
    bool changed = false;
    const std::string after = AfterPass(c.text, &changed);
    EXPECT_TRUE(changed) << c.text;
    EXPECT_EQ(cpu_test::CountOccurrences(after, " convolution("), 0) << after;
    EXPECT_EQ(cpu_test::CountOccurrences(after, " dot("), c.dots) << after;
    cpu_test::CompareWithEvaluator(c.text, cpu_test::RandomArguments(c.text, 7), ErrorSpec{1e-11, 1e-11});
  }
  // Batch groups (a depthwise convolution's weight gradient: one group per
  // channel), one batched dot per output position.
  const Case grouped[] = {
      {ConvModule("f64[3,10,10,4]", "f64[3,10,10,4]", "f64[1,3,3,4]",
                  "window={size=10x10 pad=1_1x1_1}, dim_labels=f01b_i01o->b01f, batch_group_count=4"),
       9},
      {ConvModule("f64[4,5,5,3]", "f64[2,2,3,6]", "f64[2,4,4,6]",
                  "window={size=2x2}, dim_labels=b01f_01io->b01f, batch_group_count=2"),
       16},
  };
  for (const Case& c : grouped) {
    bool changed = false;
    const std::string after = AfterPass(c.text, &changed);
    EXPECT_TRUE(changed) << c.text;
    EXPECT_EQ(cpu_test::CountOccurrences(after, " dot("), c.dots) << after;
    EXPECT_NE(after.find("lhs_batch_dims={0}"), std::string::npos) << after;
    cpu_test::CompareWithEvaluator(c.text, cpu_test::RandomArguments(c.text, 9), ErrorSpec{1e-11, 1e-11});
  }
  // Too many output positions as well: left as it is.
  bool changed = true;
  AfterPass(ConvModule("f64[1,1,3000]", "f64[1,1,1025]", "f64[1,1,1976]", "window={size=1025}, dim_labels=bf0_oi0->bf0"),
            &changed);
  EXPECT_FALSE(changed);
}

TEST(ConvolutionLoweringTest, WhatStaysAnElementalLoop) {
  const std::string kept[] = {
      // Integers, partial feature groups, empty results (the float ones
      // compared exactly: the elemental loop sums in the evaluator's order).
      ConvModule("s32[1,6,6,3]", "s32[3,3,3,4]", "s32[1,4,4,4]", "window={size=3x3}, dim_labels=b01f_01io->b01f"),
      ConvModule("f32[2,6,6,6]", "f32[2,2,3,4]", "f32[2,5,5,4]",
                 "window={size=2x2}, dim_labels=b01f_01io->b01f, feature_group_count=2"),
      ConvModule("f32[0,4,4,2]", "f32[3,3,2,2]", "f32[0,2,2,2]", "window={size=3x3}, dim_labels=b01f_01io->b01f"),
      // Empty kernels (ungrouped and depthwise).
      ConvModule("f32[1,4,1]", "f32[0,1,1]", "f32[1,5,1]", "window={size=0}, dim_labels=b0f_0io->b0f"),
      ConvModule("f32[1,4,2]", "f32[0,1,2]", "f32[1,5,2]",
                 "window={size=0}, dim_labels=b0f_0io->b0f, feature_group_count=2"),
      // Mixed precision into integers and into f16/bf16 (the evaluator sums
      // bf16 operands in f32, not in the f16 an im2col dot would use).
      ConvModule("s8[1,6,6,3]", "s8[3,3,3,4]", "s32[1,4,4,4]", "window={size=3x3}, dim_labels=b01f_01io->b01f"),
      ConvModule("bf16[1,6,6,3]", "bf16[3,3,3,4]", "f16[1,4,4,4]", "window={size=3x3}, dim_labels=b01f_01io->b01f"),
  };
  for (const std::string& text : kept) {
    bool changed = true;
    const std::string after = AfterPass(text, &changed);
    EXPECT_FALSE(changed) << after;
    EXPECT_EQ(cpu_test::CountOccurrences(after, " convolution("), 1) << after;
    cpu_test::CompareWithEvaluator(text, cpu_test::RandomArguments(text, 5), ErrorSpec{0, 0});
  }
}

TEST(ConvolutionLoweringTest, LoweredModulesComputeTheConvolution) {
  // Reversal, dilations and negative padding through the lowering, f64 so
  // only the summation order differs.
  const std::string texts[] = {
      ConvModule("f64[2,11,3]", "f64[3,3,4]", "f64[2,6,4]",
                 "window={size=3 stride=2 pad=1_1 rhs_reversal=1}, dim_labels=b0f_0io->b0f"),
      ConvModule("f64[2,3,11]", "f64[4,3,3]", "f64[2,4,19]", "window={size=3 pad=1_-1 lhs_dilate=2}, dim_labels=bf0_oi0->bf0"),
      ConvModule("f64[1,9,9,4]", "f64[3,3,1,8]", "f64[1,4,4,8]",
                 "window={size=3x3 stride=2x2 rhs_dilate=1x1 pad=0_1x0_1 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f, "
                 "feature_group_count=4"),
      // Mixed precision into f64: operands converted exactly on the way in
      // (im2col, depthwise, one dot per output position).
      ConvModule("f32[2,11,3]", "f32[3,3,4]", "f64[2,6,4]", "window={size=3 stride=2 pad=1_1}, dim_labels=b0f_0io->b0f"),
      ConvModule("f32[1,9,9,4]", "f32[3,3,1,8]", "f64[1,4,4,8]",
                 "window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f, feature_group_count=4"),
      ConvModule("f32[1,1,1200]", "f32[1,1,1100]", "f64[1,1,101]", "window={size=1100}, dim_labels=bf0_oi0->bf0"),
  };
  for (const std::string& text : texts) {
    bool changed = false;
    const std::string after = AfterPass(text, &changed);
    EXPECT_TRUE(changed) << text;
    EXPECT_EQ(cpu_test::CountOccurrences(after, " convolution("), 0) << after;
    cpu_test::CompareWithEvaluator(text, cpu_test::RandomArguments(text, 3), ErrorSpec{1e-12, 1e-12});
  }
}

TEST(ConvolutionLoweringTest, MixedPrecisionIntoF32ConvertsTheOperands) {
  // JAX's f32 convolution(bf16, bf16): bf16 -> f32 is exact, so the lowered
  // dot in f32 sums what the evaluator sums.
  const std::string text = ConvModule("bf16[2,8,8,3]", "bf16[3,3,3,5]", "f32[2,8,8,5]",
                                      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f");
  bool changed = false;
  const std::string after = AfterPass(text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_EQ(cpu_test::CountOccurrences(after, " dot("), 1) << after;
  EXPECT_NE(after.find("f32[2,8,8,3]{3,2,1,0} convert(%a)"), std::string::npos) << after;
  EXPECT_NE(after.find("f32[3,3,3,5]{3,2,1,0} convert(%b)"), std::string::npos) << after;
  cpu_test::CompareWithEvaluator(text, cpu_test::RandomArguments(text, 4), ErrorSpec{1e-5, 1e-5});
}

}  // namespace
}  // namespace cpu
}  // namespace xla
