// GetDimensionSize/SetDimensionSize on static shapes and CompositeCall
// through the client API on every backend.
#include <vector>

#include "gtest/gtest.h"
#include "tests/client_test_base.h"

namespace xla {
namespace {

using test::AddParam;
using test::ClientTest;

class DimensionSizeCompositeTest : public ClientTest {};

TEST_P(DimensionSizeCompositeTest, GetDimensionSize) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR2<float>({{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, {0, 0, 0, 0, 0}}), &args);
  Tuple(&b, {GetDimensionSize(x, 0), GetDimensionSize(x, 1)});
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR0<int32_t>(3));
  expected.push_back(Literal::CreateR0<int32_t>(5));
  ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)));
}

TEST_P(DimensionSizeCompositeTest, SetDimensionSizeToTheStaticSize) {
  // The document's v = f32[10] {1..10}: setting the size 10 (from
  // get-dimension-size or a constant) keeps every element.
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp v = AddParam(&b, Literal::CreateR1<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), &args);
  XlaOp same = SetDimensionSize(v, GetDimensionSize(v, 0), 0);
  Add(SetDimensionSize(same, ConstantR0<int32_t>(&b, 10), 0), v);
  ComputeAndCompareR1<float>(&b, {2, 4, 6, 8, 10, 12, 14, 16, 18, 20}, args);
}

TEST_P(DimensionSizeCompositeTest, OtherSizesAreErrors) {
  // The document's set_dimension_size(v, 5): a dynamic dimension, which
  // static shapes cannot express: Unimplemented, never the sum of all ten.
  {
    XlaBuilder b(TestName());
    std::vector<Literal> args;
    XlaOp v = AddParam(&b, Literal::CreateR1<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), &args);
    SetDimensionSize(v, ConstantR0<int32_t>(&b, 5), 0);
    absl::StatusOr<Literal> result = Execute(&b, args);
    EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
    EXPECT_NE(result.status().message().find("dynamic"), std::string::npos) << result.status();
  }
  {
    XlaBuilder b(TestName() + "_larger");
    std::vector<Literal> args;
    XlaOp v = AddParam(&b, Literal::CreateR1<float>({1, 2, 3}), &args);
    SetDimensionSize(v, ConstantR0<int32_t>(&b, 4), 0);
    absl::StatusOr<Literal> result = Execute(&b, args);
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << result.status();
    EXPECT_NE(result.status().message().find("outside [0, 3]"), std::string::npos) << result.status();
  }
  {
    XlaBuilder b(TestName() + "_build");
    XlaOp v = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {3}), "v");
    SetDimensionSize(v, ConstantR0<int64_t>(&b, 3), 0);
    ExpectBuildError(&b, "size must be an s32 scalar");
  }
  {
    XlaBuilder b(TestName() + "_dimension");
    GetDimensionSize(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {3}), "v"), 1);
    ExpectBuildError(&b, "dimension 1 is out of range");
  }
}

TEST_P(DimensionSizeCompositeTest, CompositeCallRunsItsDecomposition) {
  // The StableHLO spec's composite example: "my_namespace.my_op" whose
  // decomposition adds its operands.
  XlaBuilder add("my_op_decomposition");
  Add(Parameter(&add, 0, ShapeUtil::MakeShape(F32, {2}), "x"), Parameter(&add, 1, ShapeUtil::MakeShape(F32, {2}), "y"));
  XlaComputation decomposition = add.Build().value();
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<float>({1, 2}), &args);
  XlaOp y = AddParam(&b, Literal::CreateR1<float>({10, 20}), &args);
  CompositeCall(&b, decomposition, {x, y}, "my_namespace.my_op", "{my_attribute = \"my_value\"}", 1);
  ASSERT_OK_AND_ASSIGN(XlaComputation built, b.Build());
  const HloInstructionProto* call = nullptr;
  for (const HloComputationProto& c : built.proto().computations()) {
    for (const HloInstructionProto& i : c.instructions()) {
      if (i.opcode() == "call") call = &i;
    }
  }
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->frontend_attributes().map().at("composite.name"), "my_namespace.my_op");
  EXPECT_EQ(call->frontend_attributes().map().at("composite.attributes"), "{my_attribute = \"my_value\"}");
  EXPECT_EQ(call->frontend_attributes().map().at("composite.version"), "1");
  ASSERT_OK_AND_ASSIGN(Literal result, ExecuteComputation(built, args));
  EXPECT_EQ(result, Literal::CreateR1<float>({11, 22}));

  XlaBuilder bad(TestName() + "_bad");
  CompositeCall(&bad, decomposition, {ConstantR1<float>(&bad, {1, 2})}, "my_op");
  ExpectBuildError(&bad, "Call");
}

// OptimizationBarrier passes its operand (a tuple here) through unchanged.
TEST_P(DimensionSizeCompositeTest, OptimizationBarrierPassesItsOperand) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<float>({1, 2, 3}), &args);
  XlaOp y = AddParam(&b, Literal::CreateR1<float>({10, 20, 30}), &args);
  XlaOp barrier = OptimizationBarrier(Tuple(&b, {Mul(x, x), Add(y, y)}));
  Sub(GetTupleElement(barrier, 1), GetTupleElement(barrier, 0));
  ComputeAndCompareR1<float>(&b, {19, 36, 51}, args);
  XlaBuilder bad(TestName() + "_bad");
  OptimizationBarrier(XlaOp());
  EXPECT_FALSE(bad.Build().ok());
}

XLA_CLIENT_TEST_P(DimensionSizeCompositeTest);

}  // namespace
}  // namespace xla
