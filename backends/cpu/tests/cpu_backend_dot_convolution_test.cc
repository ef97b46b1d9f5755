// Differential tests of the CPU backend against the reference evaluator,
// dots (shapes, types, batch and contracting dimensions, layouts, fused
// operands and epilogues) and convolutions (types, windows, dimension
// numbers, large kernels, fused operands and epilogues).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/tests/cpu_backend_test_helpers.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using namespace cpu_backend_test;  // NOLINT: the shared helpers and tolerances

// --- Dot ----------------------------------------------------------------------------

std::string DotModule(const std::string& t, int64_t m, int64_t k, int64_t n) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", t, "[", m, ",", k, "] parameter(0)\n  b = ", t, "[", k, ",",
                      n, "] parameter(1)\n  ROOT d = ", t, "[", m, ",", n,
                      "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
}

TEST(CpuBackendTest, DotShapesAndTypes) {
  const std::vector<std::array<int64_t, 3>> sizes = {{1, 1, 1}, {7, 13, 5}, {64, 64, 64}, {3, 0, 4}, {0, 5, 2}, {33, 17, 1}};
  for (const std::string t : {"f32", "f64", "s32", "u8", "s64", "pred", "f16", "bf16"}) {
    for (const auto& [m, k, n] : sizes) RunAndCompare(DotModule(t, m, k, n), {.tol = kDotTol});
  }
}

TEST(CpuBackendTest, DotVariants) {
  // Transposed operands through contracting dimensions and layouts.
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[13,7] parameter(0)
  b = f32[5,13] parameter(1)
  ROOT d = f32[7,5] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
}
)",
                {.tol = kDotTol});
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f64[7,13]{0,1} parameter(0)
  b = f64[13,5]{0,1} parameter(1)
  ROOT d = f64[7,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                {.tol = kDotTol});
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[7,13] parameter(0)
  b = f32[13,5] parameter(1)
  ROOT d = f32[7,5]{0,1} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                {.tol = kDotTol});
  // Batched, through the runtime (leading batch dims) and elementally.
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[3,7,13] parameter(0)
  b = f32[3,13,5] parameter(1)
  ROOT d = f32[3,7,5] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}
)",
                {.tol = kDotTol});
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[7,3,13] parameter(0)
  b = f32[13,5,3] parameter(1)
  ROOT d = f32[3,7,5] dot(a, b), lhs_batch_dims={1}, rhs_batch_dims={2}, lhs_contracting_dims={2}, rhs_contracting_dims={0}
}
)",
                {.tol = kDotTol});
  // Vector dots and a dot feeding a fused epilogue.
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[17] parameter(0)
  b = f32[17] parameter(1)
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
)",
                {.tol = kDotTol});
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[9,17] parameter(0)
  b = f32[17,6] parameter(1)
  bias = f32[6] parameter(2)
  d = f32[9,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[9,6] broadcast(bias), dimensions={1}
  s = f32[9,6] add(d, bb)
  z = f32[] constant(0)
  zb = f32[9,6] broadcast(z), dimensions={}
  ROOT r = f32[9,6] maximum(s, zb)
}
)",
                {.tol = kDotTol});
  // An operand that is itself a fused expression.
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[8,16] parameter(0)
  b = f32[16,8] parameter(1)
  ea = f32[8,16] exponential(a)
  ROOT d = f32[8,8] dot(ea, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                {.tol = kDotTol});
}

// --- Convolution ----------------------------------------------------------------------

std::string ConvModule(const std::string& lhs, const std::string& rhs, const std::string& result,
                       const std::string& attrs) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", lhs, " parameter(0)\n  b = ", rhs,
                      " parameter(1)\n  ROOT c = ", result, " convolution(a, b), ", attrs, "\n}\n");
}

TEST(CpuBackendTest, ConvolutionTypes) {
  // A 3x3 same-padded NHWC convolution (TensorFlow's layout), every number type.
  for (const std::string t : {"f32", "f64", "f16", "bf16", "s32", "s8", "u16", "s64"}) {
    RunAndCompare(ConvModule(t + "[2,9,9,3]", t + "[3,3,3,4]", t + "[2,9,9,4]",
                             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
                  {.tol = ConvolutionTol(t), .small_ints = 20});
  }
}

TEST(CpuBackendTest, ConvolutionMixedPrecision) {
  // The declared result type of the operands' kind; operands converted to
  // it (f32 for f16/bf16 results) and summed there, as the evaluator does.
  const std::string same = "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f";
  RunAndCompare(ConvModule("s8[2,9,9,3]", "s8[3,3,3,4]", "s32[2,9,9,4]", same), {.tol = kExact});
  RunAndCompare(ConvModule("u8[2,9,9,3]", "u8[3,3,3,4]", "u32[2,9,9,4]", same), {.tol = kExact});
  RunAndCompare(ConvModule("s16[2,9,9,3]", "s16[3,3,3,4]", "s64[2,9,9,4]", same), {.tol = kExact});
  RunAndCompare(ConvModule("bf16[2,9,9,3]", "bf16[3,3,3,4]", "f32[2,9,9,4]", same), {.tol = ConvolutionTol("f32")});
  RunAndCompare(ConvModule("f16[2,9,9,3]", "f16[3,3,3,4]", "f32[2,9,9,4]", same), {.tol = ConvolutionTol("f32")});
  RunAndCompare(ConvModule("f32[2,9,9,3]", "f32[3,3,3,4]", "f64[2,9,9,4]", same), {.tol = ConvolutionTol("f64")});
  RunAndCompare(ConvModule("bf16[2,9,9,3]", "bf16[3,3,3,4]", "f16[2,9,9,4]", same), {.tol = ConvolutionTol("f16")});
  RunAndCompare(ConvModule("f32[2,9,9,3]", "f32[3,3,3,4]", "bf16[2,9,9,4]", same), {.tol = ConvolutionTol("bf16")});
  // Depthwise (lowered to a sum of products) and batch groups (one dot per
  // output position), from bf16 into f32.
  RunAndCompare(ConvModule("bf16[1,8,8,6]", "bf16[3,3,1,12]", "f32[1,8,8,12]",
                           "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=6"),
                {.tol = ConvolutionTol("f32")});
  RunAndCompare(ConvModule("bf16[4,5,5,3]", "bf16[2,2,3,6]", "f32[2,4,4,6]",
                           "window={size=2x2}, dim_labels=b01f_01io->b01f, batch_group_count=2"),
                {.tol = ConvolutionTol("f32")});
}

TEST(CpuBackendTest, ConvolutionWindowsAndDimensionNumbers) {
  const std::vector<std::array<std::string, 4>> cases = {
      // Strided, padded low/high unevenly (TensorFlow's SAME with stride 2).
      {"f32[1,10,10,3]", "f32[3,3,3,5]", "f32[1,5,5,5]",
       "window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f"},
      // NCHW / OIHW, odd sizes, 1x1 kernel.
      {"f32[3,4,7,5]", "f32[6,4,1,1]", "f32[3,6,7,5]", "window={size=1x1}, dim_labels=bf01_oi01->bf01"},
      // Dilations, window reversal and negative padding.
      {"f32[2,3,11]", "f32[4,3,3]", "f32[2,4,19]", "window={size=3 pad=1_-1 lhs_dilate=2}, dim_labels=bf0_oi0->bf0"},
      {"f32[2,3,11]", "f32[4,3,3]", "f32[2,4,7]", "window={size=3 rhs_dilate=2}, dim_labels=bf0_oi0->bf0"},
      {"f32[2,3,11]", "f32[4,3,3]", "f32[2,4,6]",
       "window={size=3 stride=2 pad=1_1 rhs_reversal=1}, dim_labels=bf0_oi0->bf0"},
      // Depthwise (feature groups = channels, multiplier 2) and grouped.
      {"f32[1,8,8,6]", "f32[3,3,1,12]", "f32[1,8,8,12]",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=6"},
      {"f32[2,6,6,6]", "f32[2,2,3,4]", "f32[2,5,5,4]",
       "window={size=2x2}, dim_labels=b01f_01io->b01f, feature_group_count=2"},
      // Batch groups (a weight gradient's shape).
      {"f32[4,5,5,3]", "f32[2,2,3,6]", "f32[2,4,4,6]",
       "window={size=2x2}, dim_labels=b01f_01io->b01f, batch_group_count=2"},
      // Transposed layouts of all three, a 3-d convolution, and a kernel
      // larger than the padded input (empty spatial result).
      {"f32[2,6,6,3]{1,2,3,0}", "f32[3,3,3,4]{0,1,3,2}", "f32[2,4,4,4]{2,1,3,0}",
       "window={size=3x3}, dim_labels=b01f_01io->b01f"},
      {"f32[1,5,4,6,2]", "f32[2,2,3,2,3]", "f32[1,4,3,4,3]", "window={size=2x2x3}, dim_labels=b012f_012io->b012f"},
      {"f32[1,2,2,1]", "f32[3,3,1,1]", "f32[1,0,0,1]", "window={size=3x3}, dim_labels=b01f_01io->b01f"},
      {"f32[0,4,4,2]", "f32[3,3,2,2]", "f32[0,2,2,2]", "window={size=3x3}, dim_labels=b01f_01io->b01f"},
  };
  for (const auto& [lhs, rhs, result, attrs] : cases) {
    RunAndCompare(ConvModule(lhs, rhs, result, attrs), {.tol = ConvolutionTol("f32")});
  }
}

TEST(CpuBackendTest, ConvolutionsWithLargeKernels) {
  // Kernels beyond im2col's positions (a weight gradient's), and batch
  // groups: one dot per output position. Sums of 3267 products in another order: the tolerance
  // is that of such sums, sqrt(n) to n roundings of values near 100.
  const ErrorSpec tol{2e-3, 2e-4};
  RunAndCompare(ConvModule("f32[2,36,36,3]", "f32[33,33,3,4]", "f32[2,4,4,4]",
                           "window={size=33x33}, dim_labels=b01f_01io->b01f"),
                {.tol = tol});
  // A depthwise convolution's weight gradient (batch groups).
  RunAndCompare(ConvModule("f32[3,10,10,4]", "f32[3,10,10,4]", "f32[1,3,3,4]",
                           "window={size=10x10 pad=1_1x1_1}, dim_labels=f01b_i01o->b01f, batch_group_count=4"),
                {.tol = kConvolutionTol});
  // A weight gradient's dimension numbers, strided, into a transposed layout.
  RunAndCompare(ConvModule("f32[3,35,35,2]", "f32[3,33,33,4]", "f32[3,3,2,4]{0,1,3,2}",
                           "window={size=33x33 stride=2x2 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"),
                {.tol = tol});
}

TEST(CpuBackendTest, ConvolutionWithFusedOperandsAndEpilogue) {
  // A conv layer: the input computed elementwise, bias add and ReLU6 after.
  RunAndCompare(R"(HloModule m
ENTRY e {
  x = f32[1,12,12,4] parameter(0)
  w = f32[3,3,4,8] parameter(1)
  bias = f32[8] parameter(2)
  half = f32[] constant(0.5)
  halves = f32[1,12,12,4] broadcast(half), dimensions={}
  xs = f32[1,12,12,4] multiply(x, halves)
  c = f32[1,6,6,8] convolution(xs, w), window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f
  bb = f32[1,6,6,8] broadcast(bias), dimensions={3}
  s = f32[1,6,6,8] add(c, bb)
  zero = f32[] constant(0)
  six = f32[] constant(6)
  ROOT r = f32[1,6,6,8] clamp(zero, s, six)
}
)",
                {.tol = ConvolutionTol("f32")});
}

}  // namespace
}  // namespace cpu
}  // namespace xla
