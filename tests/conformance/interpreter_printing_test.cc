#include "tests/conformance/interpreter_printing.h"

#include <cstdint>

#include "gtest/gtest.h"
#include "xla/shape_util.h"
#include "xla/types.h"

namespace xla {
namespace conformance {
namespace {

// The formats printing.mlir's CHECK lines expect.
TEST(InterpreterPrintingTest, MatchesTheReferenceInterpretersFormat) {
  EXPECT_EQ(PrintLikeInterpreter(Literal::CreateR1<int8_t>({1, 2, -3, -4})), "tensor<4xi8> {\n  [1, 2, -3, -4]\n}");
  EXPECT_EQ(PrintLikeInterpreter(Literal::CreateR0<uint8_t>(1)), "tensor<ui8> {1}");
  EXPECT_EQ(PrintLikeInterpreter(Literal::CreateR1<bool>({true, false})), "tensor<2xi1> {\n  [true, false]\n}");
  EXPECT_EQ(PrintLikeInterpreter(Literal::CreateR1<half>({half(1.0f), half(-4.0f)})),
            "tensor<2xf16> {\n  [1.000000e+00, -4.000000e+00]\n}");
  EXPECT_EQ(PrintLikeInterpreter(Literal::CreateR2<int8_t>({{1, 2}, {3, 4}})),
            "tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}");
  EXPECT_EQ(PrintLikeInterpreter(Literal::CreateR3<int64_t>({{{0, 1}, {2, 3}}, {{4, 0}, {1, 2}}})),
            "tensor<2x2x2xi64> {\n  [\n    [\n      [0, 1],\n      [2, 3]\n    ],\n    [\n      [4, 0],\n      [1, 2]\n"
            "    ]\n  ]\n}");
  EXPECT_EQ(PrintLikeInterpreter(Literal(ShapeUtil::MakeShape(S8, {0, 2}))), "tensor<0x2xi8> {\n  []\n}");
  EXPECT_EQ(PrintLikeInterpreter(Literal(ShapeUtil::MakeShape(S8, {2, 0}))),
            "tensor<2x0xi8> {\n  [\n    [],\n    []\n  ]\n}");
  EXPECT_EQ(PrintLikeInterpreter(Literal::CreateR1<complex64>({complex64(3.14f, 1)})),
            "tensor<1xcomplex<f32>> {\n  [[3.140000e+00, 1.000000e+00]]\n}");
}

TEST(InterpreterPrintingTest, FileCheckLines) {
  const char* file = "func.func @main() {}\n// CHECK:      tensor<2xi32> {\n// CHECK-NEXT:   [3, 3]\n// CHECK-NEXT: }\n"
                     "// CHECK-DENSE: dense<3> : tensor<2xi32>\n";
  EXPECT_TRUE(MatchCheckLines(file, "tensor<2xi32> {\n  [3, 3]\n}\n", "f.mlir").ok());
  absl::Status wrong = MatchCheckLines(file, "tensor<2xi32> {\n  [3, 4]\n}\n", "f.mlir");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("CHECK-NEXT"), std::string::npos) << wrong;
  // CHECK-NEXT needs the very next line.
  EXPECT_FALSE(MatchCheckLines(file, "tensor<2xi32> {\n\n  [3, 3]\n}\n", "f.mlir").ok());
}

}  // namespace
}  // namespace conformance
}  // namespace xla
