// Uniform quantized types: parsing (and its located errors), and
// uniform_quantize / uniform_dequantize / dequantize-op-quantize lowered to
// HLO arithmetic, run on the evaluator. Expected values are hand-computed
// from the spec's formulas (round half to even, clamp to the storage range).
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/stablehlo/importer.h"

namespace xla {
namespace stablehlo {
namespace {

// Imports one function returning its results (no checks) and evaluates it.
std::vector<Literal> ImportAndEvaluate(const std::string& text) {
  ImportOptions options;
  options.checks_as_outputs = false;
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(text, "q.mlir", options);
  EXPECT_TRUE(chunks.ok()) << chunks.status();
  if (!chunks.ok()) return {};
  EntryPoint& entry = (*chunks)[0].entries[0];
  EXPECT_TRUE(VerifyHloModule(*entry.module).ok()) << VerifyHloModule(*entry.module);
  HloEvaluator evaluator;
  absl::StatusOr<Literal> result = evaluator.Evaluate(*entry.module, {});
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  if (!result->shape().IsTuple()) {
    std::vector<Literal> one;
    one.push_back(std::move(*result));
    return one;
  }
  return std::move(*result).DecomposeTuple();
}

std::string Error(const std::string& text) {
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(text, "q.mlir");
  EXPECT_FALSE(chunks.ok());
  if (chunks.ok()) return "";
  const std::string message(chunks.status().message());
  EXPECT_TRUE(std::regex_search(message, std::regex("^q\\.mlir:[0-9]+:[0-9]+: "))) << message;
  return message;
}

TEST(QuantizationTest, QuantizeRoundsHalfToEvenAndClampsToTheStorageRange) {
  // x / 0.5 - 1: 1, 3, -201 (clamped), -0.5 -> 0, 0.5 -> 0, 1.5 -> 2.
  std::vector<Literal> out = ImportAndEvaluate(R"(
func.func @main() -> (tensor<6xi8>, tensor<6xi8>) {
  %x = stablehlo.constant dense<[1.0, 2.0, -100.0, 0.25, 0.75, 1.25]> : tensor<6xf32>
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<6xf32>) -> tensor<6x!quant.uniform<i8:f32, 0.5:-1>>
  %s = "stablehlo.bitcast_convert"(%q) : (tensor<6x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<6xi8>
  %n = "stablehlo.uniform_quantize"(%x) : (tensor<6xf32>) -> tensor<6x!quant.uniform<i8<-127:127>:f32, 0.5:-1>>
  %t = "stablehlo.bitcast_convert"(%n) : (tensor<6x!quant.uniform<i8<-127:127>:f32, 0.5:-1>>) -> tensor<6xi8>
  func.return %s, %t : tensor<6xi8>, tensor<6xi8>
}
)");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], Literal::CreateR1<int8_t>({1, 3, -128, 0, 0, 2}));
  EXPECT_EQ(out[1], Literal::CreateR1<int8_t>({1, 3, -127, 0, 0, 2}));
}

TEST(QuantizationTest, UnsignedStorageScaleAloneAndF64Expressed) {
  // u8, scale 2, zero point 10: -30 -> -5 -> 0; 0 -> 10; 600 -> 310 -> 255.
  // ui16 with scale alone (zero point 0): 3.0 / 0.25 = 12.
  std::vector<Literal> out = ImportAndEvaluate(R"(
func.func @main() -> (tensor<3xui8>, tensor<ui16>) {
  %x = stablehlo.constant dense<[-30.0, 0.0, 600.0]> : tensor<3xf64>
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<3xf64>) -> tensor<3x!quant.uniform<u8:f64, 2.0:10>>
  %s = "stablehlo.bitcast_convert"(%q) : (tensor<3x!quant.uniform<u8:f64, 2.0:10>>) -> tensor<3xui8>
  %y = stablehlo.constant dense<3.0> : tensor<f32>
  %r = "stablehlo.uniform_quantize"(%y) : (tensor<f32>) -> tensor<!quant.uniform<u16:f32, 2.5e-01>>
  %t = "stablehlo.bitcast_convert"(%r) : (tensor<!quant.uniform<u16:f32, 2.5e-01>>) -> tensor<ui16>
  func.return %s, %t : tensor<3xui8>, tensor<ui16>
}
)");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], Literal::CreateR1<uint8_t>({0, 10, 255}));
  EXPECT_EQ(out[1], Literal::CreateR0<uint16_t>(12));
}

TEST(QuantizationTest, PerAxisQuantizeDequantizeAndRequantize) {
  // Axis 1 of 2x2: column 0 has scale 0.5 and zero point 0, column 1 scale
  // 2 and zero point 5. [[1, 4], [2, 8]] -> [[2, 7], [4, 9]]. Requantized
  // to per-tensor 1.0:-100: [[-99, -96], [-98, -92]].
  std::vector<Literal> out = ImportAndEvaluate(R"(
func.func @main() -> (tensor<2x2xi8>, tensor<2x2xf32>, tensor<2x2xi8>) {
  %x = stablehlo.constant dense<[[1.0, 4.0], [2.0, 8.0]]> : tensor<2x2xf32>
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5:0, 2.0:5}>>
  %s = "stablehlo.bitcast_convert"(%q) : (tensor<2x2x!quant.uniform<i8:f32:1, {0.5:0, 2.0:5}>>) -> tensor<2x2xi8>
  %d = "stablehlo.uniform_dequantize"(%q) : (tensor<2x2x!quant.uniform<i8:f32:1, {0.5:0, 2.0:5}>>) -> tensor<2x2xf32>
  %r = "stablehlo.uniform_quantize"(%q) : (tensor<2x2x!quant.uniform<i8:f32:1, {0.5:0, 2.0:5}>>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0:-100>>
  %t = "stablehlo.bitcast_convert"(%r) : (tensor<2x2x!quant.uniform<i8:f32, 1.0:-100>>) -> tensor<2x2xi8>
  func.return %s, %d, %t : tensor<2x2xi8>, tensor<2x2xf32>, tensor<2x2xi8>
}
)");
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], Literal::CreateR2<int8_t>({{2, 7}, {4, 9}}));
  EXPECT_EQ(out[1], Literal::CreateR2<float>({{1, 4}, {2, 8}}));
  EXPECT_EQ(out[2], Literal::CreateR2<int8_t>({{-99, -96}, {-98, -92}}));
}

TEST(QuantizationTest, DequantizeDoesNotWrapInTheStorageType) {
  // 127 - (-128) = 255 does not fit i8; dequantize must still give 255.
  std::vector<Literal> out = ImportAndEvaluate(R"(
func.func @main() -> tensor<2xf32> {
  %s = stablehlo.constant dense<[127, -128]> : tensor<2xi8>
  %q = "stablehlo.bitcast_convert"(%s) : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32, 1.0:-128>>
  %d = "stablehlo.uniform_dequantize"(%q) : (tensor<2x!quant.uniform<i8:f32, 1.0:-128>>) -> tensor<2xf32>
  func.return %d : tensor<2xf32>
}
)");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], Literal::CreateR1<float>({255, 0}));
}

TEST(QuantizationTest, ElementwiseOpsAreDequantizeOpQuantize) {
  // a = [1, 2] at 0.5:-20 is storage [-18, -16]; a + a = [2, 4] -> [-16, -12];
  // a * a (pretty single-type form) = [1, 4] -> [-18, -12]; a > 1.5.
  std::vector<Literal> out = ImportAndEvaluate(R"(
func.func @main() -> (tensor<2xi8>, tensor<2xi8>, tensor<2xi1>, tensor<2xf32>) {
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %a = "stablehlo.uniform_quantize"(%x) : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
  %sum = "stablehlo.add"(%a, %a) : (tensor<2x!quant.uniform<i8:f32, 0.5:-20>>, tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
  %prod = stablehlo.multiply %a, %a : tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
  %s0 = "stablehlo.bitcast_convert"(%sum) : (tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2xi8>
  %s1 = "stablehlo.bitcast_convert"(%prod) : (tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2xi8>
  %c = stablehlo.constant dense<1.5> : tensor<2xf32>
  %cq = "stablehlo.uniform_quantize"(%c) : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
  %gt = stablehlo.compare GT, %a, %cq : (tensor<2x!quant.uniform<i8:f32, 0.5:-20>>, tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2xi1>
  %neg = "stablehlo.negate"(%a) : (tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2xf32>
  func.return %s0, %s1, %gt, %neg : tensor<2xi8>, tensor<2xi8>, tensor<2xi1>, tensor<2xf32>
}
)");
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], Literal::CreateR1<int8_t>({-16, -12}));
  EXPECT_EQ(out[1], Literal::CreateR1<int8_t>({-18, -12}));
  EXPECT_EQ(out[2], Literal::CreateR1<bool>({false, true}));
  EXPECT_EQ(out[3], Literal::CreateR1<float>({-1, -2}));
}

TEST(QuantizationTest, DataMovementRunsOnTheStorageOfOneQuantizedType) {
  std::vector<Literal> out = ImportAndEvaluate(R"(
func.func @main() -> tensor<2x1xi8> {
  %s = stablehlo.constant dense<[3, -4]> : tensor<2x!quant.uniform<i8:f32, 0.5:1>>
  %r = stablehlo.reshape %s : (tensor<2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x1x!quant.uniform<i8:f32, 0.5:1>>
  %b = "stablehlo.bitcast_convert"(%r) : (tensor<2x1x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x1xi8>
  func.return %b : tensor<2x1xi8>
}
)");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], Literal::CreateR2<int8_t>({{3}, {-4}}));
  EXPECT_NE(Error(R"(
func.func @main() -> tensor<2x1x!quant.uniform<i8:f32, 0.25:1>> {
  %s = stablehlo.constant dense<[3, -4]> : tensor<2x!quant.uniform<i8:f32, 0.5:1>>
  %r = stablehlo.reshape %s : (tensor<2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x1x!quant.uniform<i8:f32, 0.25:1>>
  func.return %r : tensor<2x1x!quant.uniform<i8:f32, 0.25:1>>
}
)").find("stablehlo.reshape: moves quantized values between different quantized types"),
            std::string::npos);
}

TEST(QuantizationTest, OtherOpsRejectQuantizedTypesNamingOpAndType) {
  const std::string message = Error(R"(
func.func @main() -> tensor<2xf32> {
  %s = stablehlo.constant dense<[3, -4]> : tensor<2x!quant.uniform<i8:f32, 0.5:1>>
  %c = stablehlo.convert %s : (tensor<2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}
)");
  EXPECT_NE(message.find("q.mlir:4:8: stablehlo.convert: quantized operands and results "
                         "(tensor<2x!quant.uniform<i8:f32, 0.5:1>>) are not supported"),
            std::string::npos)
      << message;
}

TEST(QuantizationTest, QuantizationOpsNeedQuantizedTypes) {
  EXPECT_NE(Error(R"(
func.func @main() -> tensor<2xi8> {
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %q = "stablehlo.uniform_quantize"(%x) : (tensor<2xf32>) -> tensor<2xi8>
  func.return %q : tensor<2xi8>
}
)").find("q.mlir:4:8: stablehlo.uniform_quantize: needs a quantized result type, got tensor<2xi8>"),
            std::string::npos);
  EXPECT_NE(Error(R"(
func.func @main() -> tensor<2xf32> {
  %x = stablehlo.constant dense<[1, 2]> : tensor<2xi8>
  %d = "stablehlo.uniform_dequantize"(%x) : (tensor<2xi8>) -> tensor<2xf32>
  func.return %d : tensor<2xf32>
}
)").find("stablehlo.uniform_dequantize: needs a quantized operand"),
            std::string::npos);
  EXPECT_NE(Error(R"(
func.func @main() -> tensor<2xf16> {
  %x = stablehlo.constant dense<[1, 2]> : tensor<2x!quant.uniform<i8:f32, 1.0>>
  %d = "stablehlo.uniform_dequantize"(%x) : (tensor<2x!quant.uniform<i8:f32, 1.0>>) -> tensor<2xf16>
  func.return %d : tensor<2xf16>
}
)").find("the result must be the operand's expressed type f32, got tensor<2xf16>"),
            std::string::npos);
}

TEST(QuantizationTest, MalformedQuantizedTypesAreLocatedErrors) {
  const std::pair<const char*, const char*> kCases[] = {
      {"tensor<2x!quant.uniform<i7:f32, 1.0>>", "storage type must be i2, i4, i8, i16, i32, u2, u4, u8, u16 or u32"},
      {"tensor<2x!quant.uniform<i8:f33, 1.0>>", "expressed type must be f16, bf16, f32 or f64, got 'f33'"},
      {"tensor<2x!quant.uniform<i8:f32, -1.0>>", "a scale must be positive and finite"},
      {"tensor<2x!quant.uniform<i8:f32, abc>>", "expected a scale"},
      {"tensor<2x!quant.uniform<i8:f32, 1.0:300>>", "zero point 300 is outside the storage range [-128, 127]"},
      {"tensor<2x!quant.uniform<i8<-200:0>:f32, 1.0>>", "storage range <-200:0> must lie in i8's [-128, 127]"},
      {"tensor<2x!quant.uniform<u8<5:5>:f32, 1.0>>", "with min < max"},
      {"tensor<2x!quant.uniform<i8:f32, {1.0:0}>>", "needs a quantization axis"},
      {"tensor<2x!quant.uniform<i8:f32:0, 1.0>>", "a per-axis type needs {scale:zero_point, ...}"},
      {"tensor<2x!quant.uniform<i8:f32:0, {1.0:0}>>", "lists 1 scales but dimension 0 has size 2"},
      {"tensor<2x!quant.uniform<i8:f32:1, {1.0:0, 1.0:0}>>", "quantization axis 1 is out of range for rank 1"},
      {"tensor<2x!quant.uniform<i8 f32, 1.0>>", "expected ':' and the expressed type"},
      {"tensor<2x!quant.uniform<i8:f32, 1.0 2.0>>", "expected '>' at the end of the quantized type"},
      {"tensor<2x!quant.any<i8:f32>>", "only !quant.uniform<storage:expressed, scale:zero_point> is supported"},
  };
  for (const auto& [type, want] : kCases) {
    const std::string message = Error(absl::StrCat("func.func @main() -> ", type, " {\n  %s = stablehlo.constant dense<1> : ",
                                                   type, "\n  func.return %s : ", type, "\n}\n"));
    EXPECT_NE(message.find(want), std::string::npos) << type << " gave: " << message;
  }
  // The error points at the offending part: the zero point here.
  EXPECT_NE(Error("func.func @main(%a: tensor<!quant.uniform<i8:f32, 1.0:999>>) {\n  func.return\n}\n")
                .find("q.mlir:1:55: zero point 999"),
            std::string::npos);
}

}  // namespace
}  // namespace stablehlo
}  // namespace xla
