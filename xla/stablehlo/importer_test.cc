// Imports small StableHLO modules (pretty and generic forms, literal
// syntaxes, regions, checks) and runs them on the evaluator.
#include "xla/stablehlo/importer.h"

#include <regex>

#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/types.h"

namespace xla {
namespace stablehlo {
namespace {

// Imports `text` (one chunk, one entry point) and returns the evaluated
// outputs (the elements of the entry's result tuple).
std::vector<Literal> ImportAndRun(const std::string& text, EntryPoint* out_entry = nullptr) {
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(text, "test.mlir");
  EXPECT_TRUE(chunks.ok()) << chunks.status();
  if (!chunks.ok()) return {};
  EXPECT_EQ(chunks->size(), 1u);
  EXPECT_EQ((*chunks)[0].entries.size(), 1u);
  EntryPoint& entry = (*chunks)[0].entries[0];
  EXPECT_TRUE(VerifyHloModule(*entry.module).ok()) << VerifyHloModule(*entry.module);
  HloEvaluator evaluator;
  absl::StatusOr<Literal> result = evaluator.Evaluate(*entry.module, {});
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  std::vector<Literal> outputs = std::move(*result).DecomposeTuple();
  if (out_entry != nullptr) *out_entry = std::move(entry);
  return outputs;
}

std::string ImportError(const std::string& text) {
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(text, "bad.mlir");
  EXPECT_FALSE(chunks.ok());
  return chunks.ok() ? "" : std::string(chunks.status().message());
}

TEST(ImporterTest, TestdataSkeletonWithHexBlobsCallsAndCheck) {
  EntryPoint entry;
  std::vector<Literal> out = ImportAndRun(R"(
module @jit_main attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main() -> (tensor<2xf32> {jax.result_info = ""}) {
    %0:2 = call @inputs() : () -> (tensor<2xf32>, tensor<2xf32>)
    %1 = call @expected() : () -> tensor<2xf32>
    %2 = stablehlo.add %0#0, %0#1 : tensor<2xf32>
    stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    return %2 : tensor<2xf32>
  }
  func.func private @inputs() -> (tensor<2xf32> {mhlo.layout_mode = "default"}, tensor<2xf32>) {
    %cst = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
    %cst_0 = stablehlo.constant dense<"0x00004040"> : tensor<2xf32>
    return %cst, %cst_0 : tensor<2xf32>, tensor<2xf32>
  }
  func.func private @expected() -> (tensor<2xf32>) {
    %cst = stablehlo.constant dense<[4.000000e+00, 5.0]> : tensor<2xf32>
    return %cst : tensor<2xf32>
  }
}
)", &entry);
  ASSERT_EQ(out.size(), 3u);  // result, check actual, check expected
  EXPECT_EQ(out[0], Literal::CreateR1<float>({4, 5}));
  ASSERT_EQ(entry.checks.size(), 1u);
  EXPECT_EQ(entry.checks[0].kind, CheckSpec::kClose);
  EXPECT_TRUE(entry.checks[0].custom_call_form);
  EXPECT_EQ(entry.checks[0].actual_output, 1);
  EXPECT_EQ(entry.checks[0].expected_output, 2);
  EXPECT_EQ(entry.checks[0].location, "test.mlir:7:5");
}

// The StableHLO spec's batch_norm examples (generic form) and rng.
// jax.jit(donate_argnums=...) marks a donated argument with the result it
// may become: the module's input_output_alias.
TEST(ImporterTest, DonatedArgumentsBecomeInputOutputAliases) {
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(R"(
module @jit_step {
  func.func public @main(%w: tensor<4xf32> {tf.aliasing_output = 1 : i32}, %g: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
    %0 = stablehlo.subtract %w, %g : tensor<4xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    return %z, %0 : tensor<f32>, tensor<4xf32>
  }
}
)", "step.mlir");
  ASSERT_TRUE(chunks.ok()) << chunks.status();
  ASSERT_EQ(chunks->size(), 1u);
  const HloModule& module = *(*chunks)[0].entries.at(0).module;
  ASSERT_EQ(module.input_output_aliases().size(), 1u);
  EXPECT_EQ(module.input_output_aliases()[0].output_index, std::vector<int64_t>{1});
  EXPECT_EQ(module.input_output_aliases()[0].parameter, 0);
  EXPECT_NE(ImportError(R"(
func.func public @main(%w: tensor<4xf32> {tf.aliasing_output = 2 : i32}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}
)").find("tf.aliasing_output = 2"), std::string::npos);
}

TEST(ImporterTest, BatchNormAndRng) {
  std::vector<Literal> out = ImportAndRun(R"(
func.func @main() -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>, tensor<2x2x2xf64>,
                      tensor<2xf64>, tensor<2xf64>, tensor<3x4xf32>, tensor<5xi32>) {
  %operand = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>
  %scale = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %offset = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%operand, %scale, %offset) {
    epsilon = 0.0 : f32, feature_index = 2 : i64
  } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  %mean = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf64>
  %variance = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %inferred = "stablehlo.batch_norm_inference"(%operand, %scale, %offset, %mean, %variance) {
    epsilon = 0.0 : f32, feature_index = 2 : i64
  } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<2x2x2xf64>
  %grad_output = stablehlo.constant dense<0.1> : tensor<2x2x2xf64>
  %gx, %gs, %go = "stablehlo.batch_norm_grad"(%operand, %scale, %mean, %variance, %grad_output) {
    epsilon = 0.0 : f32, feature_index = 2 : i64
  } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>)
      -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  %a = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.constant dense<1.0> : tensor<f32>
  %shape = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %u = "stablehlo.rng"(%a, %b, %shape) {rng_distribution = #stablehlo<rng_distribution NORMAL>}
      : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
  %lo = stablehlo.constant dense<-2> : tensor<i32>
  %hi = stablehlo.constant dense<2> : tensor<i32>
  %shape1 = stablehlo.constant dense<5> : tensor<1xi64>
  %i = stablehlo.rng %lo, %hi, %shape1, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<5xi32>
  func.return %output, %batch_mean, %batch_var, %inferred, %gx, %gs, %go, %u, %i
      : tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>, tensor<2x2x2xf64>, tensor<2xf64>,
        tensor<2xf64>, tensor<3x4xf32>, tensor<5xi32>
}
)");
  ASSERT_EQ(out.size(), 9u);
  // The spec's values: output [[[0, 0], [2, 2]], [[2, 2], [0, 0]]], mean
  // [2, 3], variance [1, 1]; inference gives the same output; the grad of
  // the spec: grad_operand 0, grad_scale [0, 0], grad_offset [0.4, 0.4].
  const Literal normalized = Literal::CreateR3<double>({{{0, 0}, {2, 2}}, {{2, 2}, {0, 0}}});
  EXPECT_EQ(out[0], normalized);
  EXPECT_EQ(out[1], Literal::CreateR1<double>({2, 3}));
  EXPECT_EQ(out[2], Literal::CreateR1<double>({1, 1}));
  EXPECT_EQ(out[3], normalized);
  for (double v : out[4].data<double>()) EXPECT_NEAR(v, 0, 1e-15);
  EXPECT_NEAR(out[5].data<double>()[0], 0, 1e-15);
  EXPECT_NEAR(out[5].data<double>()[1], 0, 1e-15);
  EXPECT_NEAR(out[6].data<double>()[0], 0.4, 1e-15);
  EXPECT_NEAR(out[6].data<double>()[1], 0.4, 1e-15);
  EXPECT_EQ(out[7].shape().dimensions(), (std::vector<int64_t>{3, 4}));
  for (int32_t v : out[8].data<int32_t>()) {
    EXPECT_GE(v, -2);
    EXPECT_LT(v, 2);
  }
  EXPECT_NE(ImportError(R"(
func.func @main() -> tensor<2xi32> {
  %a = stablehlo.constant dense<0> : tensor<i32>
  %shape = stablehlo.constant dense<2> : tensor<1xi64>
  %u = "stablehlo.rng"(%a, %a, %shape) {rng_distribution = #stablehlo<rng_distribution NORMAL>}
      : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<2xi32>
  func.return %u : tensor<2xi32>
}
)").find("floating-point"), std::string::npos);
}

TEST(ImporterTest, DenseLiteralForms) {
  std::vector<Literal> out = ImportAndRun(R"(
func.func @main() -> (tensor<2x2xi32>, tensor<3xf32>, tensor<2xcomplex<f32>>, tensor<ui64>, tensor<0xf64>, tensor<2xi1>, tensor<bf16>) {
  %a = stablehlo.constant dense<[[1, -2],
                                 [3, 4]]> : tensor<2x2xi32>
  %b = stablehlo.constant dense<[0x7FC00000, 0xFF800000, 3.40282347E+38]> : tensor<3xf32>
  %c = stablehlo.constant dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>
  %d = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  %e = stablehlo.constant dense<> : tensor<0xf64>
  %f = stablehlo.constant dense<true> : tensor<2xi1>
  %g = stablehlo.constant dense<0x7FC0> : tensor<bf16>
  func.return %a, %b, %c, %d, %e, %f, %g : tensor<2x2xi32>, tensor<3xf32>, tensor<2xcomplex<f32>>, tensor<ui64>, tensor<0xf64>, tensor<2xi1>, tensor<bf16>
}
)");
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out[0], Literal::CreateR2<int32_t>({{1, -2}, {3, 4}}));
  EXPECT_TRUE(std::isnan(out[1].data<float>()[0]));
  EXPECT_EQ(out[1].data<float>()[1], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(out[1].data<float>()[2], std::numeric_limits<float>::max());
  EXPECT_EQ(out[2], Literal::CreateR1<complex64>({{1, 2}, {3, -4}}));
  EXPECT_EQ(out[3].data<uint64_t>()[0], ~uint64_t{0});
  EXPECT_EQ(out[4].element_count(), 0);
  EXPECT_EQ(out[5], Literal::CreateR1<bool>({true, true}));
  EXPECT_TRUE(Eigen::numext::isnan(out[6].data<bfloat16>()[0]));
}

TEST(ImporterTest, PrettyFormsOfShapeAndReductionOps) {
  std::vector<Literal> out = ImportAndRun(R"(
func.func @main() -> (tensor<2x2xf32>, tensor<i64>, tensor<3x2xf32>, tensor<2xf32>, tensor<4xi32>, tensor<2xi1>) {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %s = stablehlo.slice %x [0:2, 1:3:1] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %i = stablehlo.iota dim = 0 : tensor<4xi64>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %sum = stablehlo.reduce(%i init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %f0 = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %f0) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %r = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }
  %c1 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %cat = stablehlo.concatenate %c1, %c1, dim = 0 : (tensor<2xi32>, tensor<2xi32>) -> tensor<4xi32>
  %cmp = stablehlo.compare  LT, %c1, %c1,  SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  return %s, %sum, %t, %m, %cat, %cmp : tensor<2x2xf32>, tensor<i64>, tensor<3x2xf32>, tensor<2xf32>, tensor<4xi32>, tensor<2xi1>
}
)");
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], Literal::CreateR2<float>({{2, 3}, {5, 6}}));
  EXPECT_EQ(out[1], Literal::CreateR0<int64_t>(6));
  EXPECT_EQ(out[2], Literal::CreateR2<float>({{1, 4}, {2, 5}, {3, 6}}));
  EXPECT_EQ(out[3], Literal::CreateR1<float>({3, 6}));
  EXPECT_EQ(out[4], Literal::CreateR1<int32_t>({1, 2, 1, 2}));
  EXPECT_EQ(out[5], Literal::CreateR1<bool>({false, false}));
}

TEST(ImporterTest, WhileCaseAndCapturedValues) {
  EntryPoint entry;
  std::vector<Literal> out = ImportAndRun(R"(
func.func @main() {
  %init_i = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %limit = stablehlo.add %one, %one : tensor<i64>
  %r0, %r1 = stablehlo.while(%arg0 = %init_i, %arg1 = %init_i) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %arg0, %limit : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %arg0, %one : tensor<i64>
    %s = stablehlo.add %arg1, %limit : tensor<i64>
    stablehlo.return %n, %s : tensor<i64>, tensor<i64>
  }
  %index = stablehlo.constant dense<5> : tensor<i32>
  %v = "stablehlo.case"(%index) ({
    stablehlo.return %r0 : tensor<i64>
  }, {
    stablehlo.return %r1 : tensor<i64>
  }) : (tensor<i32>) -> tensor<i64>
  check.expect_eq_const %r0, dense<2> : tensor<i64>
  check.expect_eq_const %v, dense<4> : tensor<i64>
  func.return
}
)", &entry);
  ASSERT_EQ(entry.checks.size(), 2u);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], *entry.checks[0].expected_literal);
  // Out-of-range case index runs the last branch.
  EXPECT_EQ(out[1], *entry.checks[1].expected_literal);
}

TEST(ImporterTest, GenericFormsWithPropertiesAndRegions) {
  std::vector<Literal> out = ImportAndRun(R"(
func.func @main() -> tensor<1xi64> {
  %input = stablehlo.constant dense<[[1, 2, 3, 4, 5, 6]]> : tensor<1x6xi64>
  %init = stablehlo.constant dense<0> : tensor<i64>
  %result = "stablehlo.reduce"(%input, %init) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  %w = "stablehlo.reduce_window"(%result, %init) <{padding = dense<[[1, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 2>}> ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %1 = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) : (tensor<1xi64>, tensor<i64>) -> tensor<1xi64>
  func.return %w : tensor<1xi64>
}
)");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], Literal::CreateR1<int64_t>({21}));
}

TEST(ImporterTest, DotGeneralAndConvolutionPrettyForms) {
  std::vector<Literal> out = ImportAndRun(R"(
func.func @main() -> (tensor<2x2xf32>, tensor<1x1x2x2xf32>) {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %d = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %x = stablehlo.constant dense<1.0> : tensor<1x1x3x3xf32>
  %k = stablehlo.constant dense<1.0> : tensor<1x1x2x2xf32>
  %c = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %d, %c : tensor<2x2xf32>, tensor<1x1x2x2xf32>
}
)");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], Literal::CreateR2<float>({{7, 10}, {15, 22}}));
  EXPECT_EQ(out[1].data<float>()[0], 4.0f);
}

TEST(ImporterTest, FftTriangularSolveAndCholeskyForms) {
  // Pretty and generic forms of each; the spec's Cholesky example.
  std::vector<Literal> out = ImportAndRun(R"(
func.func @main() -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x1xf32>, tensor<3xcomplex<f32>>, tensor<4xf32>) {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [2.0, 20.0, 26.0], [3.0, 26.0, 70.0]]> : tensor<3x3xf32>
  %l = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %u = stablehlo.cholesky %a, lower = false : tensor<3x3xf32>
  %b = stablehlo.constant dense<[[1.0], [6.0], [14.0]]> : tensor<3x1xf32>
  %x = "stablehlo.triangular_solve"(%l, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  %s = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %f = "stablehlo.fft"(%s) {fft_type = #stablehlo<fft_type RFFT>, fft_length = array<i64: 4>} : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  %i = stablehlo.fft %f, type = IRFFT, length = [4] : (tensor<3xcomplex<f32>>) -> tensor<4xf32>
  return %l, %u, %x, %f, %i : tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x1xf32>, tensor<3xcomplex<f32>>, tensor<4xf32>
}
)");
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], Literal::CreateR2<float>({{1, 0, 0}, {2, 4, 0}, {3, 5, 6}}));
  EXPECT_EQ(out[1], Literal::CreateR2<float>({{1, 2, 3}, {0, 4, 5}, {0, 0, 6}}));
  // l x = b: x0 = 1, x1 = (6 - 2) / 4 = 1, x2 = (14 - 3 - 5) / 6 = 1.
  EXPECT_EQ(out[2], Literal::CreateR2<float>({{1}, {1}, {1}}));
  EXPECT_EQ(out[3], Literal::CreateR1<complex64>({10, complex64(-2, 2), -2}));
  EXPECT_EQ(out[4], Literal::CreateR1<float>({1, 2, 3, 4}));
  EXPECT_NE(ImportError(R"(
func.func @main() -> tensor<4xcomplex<f32>> {
  %s = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %f = stablehlo.fft %s, type = FFT, length = [4] : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
  return %f : tensor<4xcomplex<f32>>
}
)").find("FFT needs a complex"), std::string::npos);
}

TEST(ImporterTest, SplitInputFileAndEntryPoints) {
  const std::string text = "func.func @a() {\n  func.return\n}\n// -----\n\n// -----\nfunc.func @b() {\n  return\n}\n"
                           "func.func @c() {\n  return\n}\n";
  ImportOptions options;
  options.split_input_file = true;
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(text, "s.mlir", options);
  ASSERT_TRUE(chunks.ok()) << chunks.status();
  ASSERT_EQ(chunks->size(), 3u);
  EXPECT_EQ((*chunks)[0].entries.size(), 1u);
  EXPECT_EQ((*chunks)[1].entries.size(), 0u);  // an empty chunk
  ASSERT_EQ((*chunks)[2].entries.size(), 2u);  // no @main: every function
  EXPECT_EQ((*chunks)[2].entries[1].name, "c");
  EXPECT_TRUE(WantsSplitInputFile("// RUN: stablehlo-translate --interpret -split-input-file %s\n"));
}

TEST(ImporterTest, DynamicOpsWithConstantShapeOperandsAreTheirStaticOps) {
  // dynamic_reshape and real_dynamic_slice (not in the corpus), generic form.
  std::vector<Literal> out = ImportAndRun(R"(
func.func @main() -> (tensor<3x2xi32>, tensor<2xi32>) {
  %x = stablehlo.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %shape = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
  %r = "stablehlo.dynamic_reshape"(%x, %shape) : (tensor<6xi32>, tensor<2xi64>) -> tensor<3x2xi32>
  %start = stablehlo.constant dense<1> : tensor<1xi64>
  %limit = stablehlo.constant dense<5> : tensor<1xi64>
  %stride = stablehlo.constant dense<3> : tensor<1xi64>
  %s = "stablehlo.real_dynamic_slice"(%x, %start, %limit, %stride)
      : (tensor<6xi32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi32>
  return %r, %s : tensor<3x2xi32>, tensor<2xi32>
}
)");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], Literal::CreateR2<int32_t>({{1, 2}, {3, 4}, {5, 6}}));
  EXPECT_EQ(out[1], Literal::CreateR1<int32_t>({2, 5}));
}

TEST(ImporterTest, DynamicShapeOperandsMustBeConstantsAgreeingWithTheResultType) {
  EXPECT_EQ(ImportError("func.func @main() {\n  %s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n"
                        "  %t = stablehlo.add %s, %s : tensor<2xi64>\n"
                        "  %0 = stablehlo.dynamic_iota %t, dim = 0 : (tensor<2xi64>) -> tensor<2x3xi64>\n"
                        "  return\n}"),
            "bad.mlir:4:31: stablehlo.dynamic_iota: output_shape (%t) must be an integer constant: shapes are static "
            "here, so they must be known when the module is imported");
  EXPECT_EQ(ImportError("func.func @main() {\n  %s = stablehlo.constant dense<[2, 4]> : tensor<2xi64>\n"
                        "  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi64>) -> tensor<2x3xi64>\n"
                        "  return\n}"),
            "bad.mlir:3:8: stablehlo.dynamic_iota: output_shape [2, 4] does not match the result type s64[2,3]");
  EXPECT_EQ(ImportError("func.func @main() {\n  %x = stablehlo.constant dense<1> : tensor<1xi64>\n"
                        "  %s = stablehlo.constant dense<[-1]> : tensor<1xi64>\n"
                        "  %0 = \"stablehlo.dynamic_broadcast_in_dim\"(%x, %s) {broadcast_dimensions = array<i64: 0>}"
                        " : (tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>\n  return\n}"),
            "bad.mlir:4:8: stablehlo.dynamic_broadcast_in_dim: output_dimensions [-1] does not match the result type "
            "s64[3]");
}

TEST(ImporterTest, ErrorsAreLocated) {
  EXPECT_EQ(ImportError("func.func @main() {\n  %0 = stablehlo.frobnicate %x : tensor<f32>\n  return\n}\n"),
            "bad.mlir:2:8: stablehlo.frobnicate: unknown op");
  EXPECT_EQ(ImportError("func.func @main() {\n  %0 = stablehlo.constant dense<\"0x0000\"> : tensor<2xf32>\n  return\n}"),
            "bad.mlir:2:27: the hex blob has 2 bytes but f32[2] needs 8 (or 4 for a splat)");
  EXPECT_EQ(ImportError("func.func @main() {\n  %a = stablehlo.constant dense<1.0> : tensor<2xf32>\n"
                        "  %b = stablehlo.constant dense<1> : tensor<2xi32>\n"
                        "  %c = stablehlo.add %a, %b : tensor<2xf32>\n  return\n}"),
            "bad.mlir:4:8: stablehlo.add: Add: element types differ: lhs f32[2], rhs s32[2]");
  EXPECT_EQ(ImportError("func.func @main() {\n  %a = stablehlo.constant dense<1.0> : tensor<2xf32>\n"
                        "  %b = stablehlo.abs %a : (tensor<2xf32>) -> tensor<3xf32>\n  return\n}"),
            "bad.mlir:3:8: stablehlo.abs: result 0 is declared tensor<3xf32> but the op computes f32[2]");
  EXPECT_EQ(ImportError("func.func @main() {\n  %a = stablehlo.constant dense<1.0> : tensor<f32>\n"
                        "  %w = stablehlo.while(%x = %a) : tensor<f32>\n  cond {\n  } do {\n"
                        "    stablehlo.return %x : tensor<f32>\n  }\n  return\n}"),
            "bad.mlir:4:8: block does not end with a return");
  std::string truncated = ImportError("func.func @main() {\n  %a = stablehlo.constant dense<[1.0, ");
  EXPECT_EQ(truncated, "bad.mlir:2:39: expected a number (reached the end of the input)");
  EXPECT_NE(ImportError("func.func @main() {\n  %a = stablehlo.constant dense<1.0> : tensor<2xtf32>\n  return\n}")
                .find("unsupported element type 'tf32' (tf32"),
            std::string::npos);
}

TEST(ImporterTest, NarrowIntegersAndSmallFloats) {
  // i4 decimals and hex patterns (0xF is -1 in four bits), ui2, small float
  // decimals rounded once, hex bit patterns of the type's width, and hex
  // blobs of one byte per element.
  std::vector<Literal> out = ImportAndRun(
      "func.func @main() -> (tensor<3xi4>, tensor<2xui2>, tensor<3xf8E4M3FN>, tensor<2xf4E2M1FN>, "
      "tensor<2xi4>, tensor<2xf8E5M2>) {\n"
      "  %a = stablehlo.constant dense<[-8, 7, 0xF]> : tensor<3xi4>\n"
      "  %b = stablehlo.constant dense<[3, 1]> : tensor<2xui2>\n"
      "  %c = stablehlo.constant dense<[0.1, 500.0, 0x7E]> : tensor<3xf8E4M3FN>\n"
      "  %d = stablehlo.constant dense<[0x0F, 5.0]> : tensor<2xf4E2M1FN>\n"
      "  %e = stablehlo.constant dense<\"0x07F8\"> : tensor<2xi4>\n"
      "  %f = stablehlo.constant dense<\"0x3C7B\"> : tensor<2xf8E5M2>\n"
      "  return %a, %b, %c, %d, %e, %f : tensor<3xi4>, tensor<2xui2>, tensor<3xf8E4M3FN>, tensor<2xf4E2M1FN>, "
      "tensor<2xi4>, tensor<2xf8E5M2>\n}");
  std::vector<std::string> printed;
  for (const Literal& l : out) printed.push_back(l.ToString());
  EXPECT_EQ(printed, (std::vector<std::string>{"s4[3] {-8, 7, -1}", "u2[2] {3, 1}", "f8e4m3fn[3] {0.1, nan, 448}",
                                               "f4e2m1fn[2] {-6, 4}", "s4[2] {7, -8}", "f8e5m2[2] {1, 57344}"}));
  EXPECT_NE(ImportError("func.func @main() {\n  %a = stablehlo.constant dense<8> : tensor<i4>\n  return\n}")
                .find("out of range for s4"),
            std::string::npos);
  EXPECT_NE(ImportError("func.func @main() {\n  %a = stablehlo.constant dense<0x1F> : tensor<f4E2M1FN>\n  return\n}")
                .find("does not fit f4e2m1fn"),
            std::string::npos);
  EXPECT_NE(ImportError("func.func @main() {\n  %a = stablehlo.constant dense<\"0x10\"> : tensor<1xui4>\n  return\n}")
                .find("does not fit u4"),
            std::string::npos);
}

}  // namespace
}  // namespace stablehlo
}  // namespace xla

namespace xla {
namespace stablehlo {
namespace {

// A custom_call of any target imports (whether it is registered is the
// backends' compile-time check); its attributes land in the HLO.
TEST(ImporterTest, CustomCallTargetsAndAttributes) {
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(R"(
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i32>) {
  %0 = stablehlo.custom_call @my.scale(%x) {backend_config = {scale = 2.5 : f32, name = "a\"b", on = true}, api_version = 4 : i32, has_side_effect = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1:2 = stablehlo.custom_call @my.pair(%0) {backend_config = "opaque text", operand_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i32>)
  return %1#0, %1#1 : tensor<2x3xf32>, tensor<i32>
}
)", "cc.mlir");
  ASSERT_TRUE(chunks.ok()) << chunks.status();
  const HloModule& module = *(*chunks)[0].entries[0].module;
  ASSERT_TRUE(VerifyHloModule(module).ok()) << VerifyHloModule(module);
  std::vector<const HloInstruction*> calls;
  for (const HloInstruction* i : module.entry_computation()->instructions()) {
    if (i->opcode() == HloOpcode::kCustomCall) calls.push_back(i);
  }
  ASSERT_EQ(calls.size(), 2u);
  const HloInstruction* scale = calls[0]->attributes().custom_call_target() == "my.scale" ? calls[0] : calls[1];
  const HloInstruction* pair = scale == calls[0] ? calls[1] : calls[0];
  EXPECT_EQ(scale->attributes().backend_config(), R"({"scale" = 2.5 : f32, "name" = "a\"b", "on" = true})");
  EXPECT_EQ(scale->attributes().custom_call_api_version(), API_VERSION_TYPED_FFI);
  EXPECT_TRUE(scale->attributes().custom_call_has_side_effect());
  EXPECT_EQ(pair->attributes().custom_call_target(), "my.pair");
  EXPECT_EQ(pair->attributes().backend_config(), "opaque text");
  EXPECT_EQ(pair->attributes().custom_call_api_version(), API_VERSION_ORIGINAL);
  EXPECT_EQ(pair->shape().ToString(), "(f32[2,3], s32[])");
}

TEST(ImporterTest, CustomCallFormsWithoutAnHloMeaningAreErrors) {
  const std::string head = "func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {\n  %0 = stablehlo.custom_call @t(%x) ";
  const std::string tail = " : (tensor<2x3xf32>) -> tensor<2x3xf32>\n  return %0 : tensor<2x3xf32>\n}\n";
  EXPECT_NE(ImportError(head + "{operand_layouts = [dense<[0, 1]> : tensor<2xindex>]}" + tail)
                .find("only row-major layouts are supported"),
            std::string::npos);
  EXPECT_NE(ImportError(head + "{backend_config = {a = 1}, api_version = 2 : i32}" + tail)
                .find("a dictionary backend_config needs api_version = 4"),
            std::string::npos);
  EXPECT_NE(ImportError(head + "{backend_config = {a = [1, 2]}, api_version = 4 : i32}" + tail)
                .find("backend_config entry 'a'"),
            std::string::npos);
  EXPECT_NE(ImportError(head + "{api_version = 9 : i32}" + tail).find("unknown api_version 9"), std::string::npos);
  EXPECT_NE(ImportError(head + "{called_computations = [@f]}" + tail).find("called_computations is not supported"),
            std::string::npos);
}

}  // namespace
}  // namespace stablehlo
}  // namespace xla
