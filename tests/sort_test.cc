// Sort and TopK through the client API on every backend: the builder's
// forms (default dimension, several operands, descending comparators, a
// stable sort of equal keys), hand-worked values, build errors, and random
// differential cases against the reference evaluator.
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/client_test_base.h"

namespace xla {
namespace {

using test::AddParam;
using test::ClientTest;

class SortTest : public ClientTest {};

// (lhs, rhs, ...) -> lhs < rhs (> when `greater`), in the total order for
// floats, on parameters 0 and 1 of scalar `types` (2 per operand).
XlaComputation Comparator(const std::vector<PrimitiveType>& types, bool greater) {
  XlaBuilder b("comparator");
  std::vector<XlaOp> p;
  for (size_t i = 0; i < 2 * types.size(); ++i) {
    p.push_back(Parameter(&b, i, ShapeUtil::MakeScalarShape(types[i / 2]), absl::StrCat("p", i)));
  }
  if (greater) {
    GtTotalOrder(p[0], p[1]);
  } else {
    LtTotalOrder(p[0], p[1]);
  }
  return b.Build().value();
}

TEST_P(SortTest, OneOperandAlongTheLastDimensionByDefault) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR2<float>({{3, 1, 2}, {-1, 5, 0}}), &args);
  Sort({x}, Comparator({F32}, /*greater=*/false));
  ComputeAndCompareR2<float>(&b, {{1, 2, 3}, {-1, 0, 5}}, args);
}

TEST_P(SortTest, KeysAndValuesDescendingAlongDimensionZero) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp keys = AddParam(&b, Literal::CreateR2<int32_t>({{1, 7}, {4, 7}, {2, 0}}), &args);
  XlaOp values = AddParam(&b, Literal::CreateR2<float>({{10, 20}, {30, 40}, {50, 60}}), &args);
  Sort({keys, values}, Comparator({S32, F32}, /*greater=*/true), /*dimension=*/0, /*is_stable=*/true);
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR2<int32_t>({{4, 7}, {2, 7}, {1, 0}}));
  expected.push_back(Literal::CreateR2<float>({{30, 20}, {50, 40}, {10, 60}}));
  ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)));
}

TEST_P(SortTest, StableSortKeepsEqualKeysInOrder) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp keys = AddParam(&b, Literal::CreateR1<uint8_t>({3, 1, 3, 1, 2, 1}), &args);
  XlaOp iota = Iota(&b, ShapeUtil::MakeShape(S32, {6}), 0);
  Sort({keys, iota}, Comparator({U8, S32}, /*greater=*/false), 0, /*is_stable=*/true);
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR1<uint8_t>({1, 1, 1, 2, 3, 3}));
  expected.push_back(Literal::CreateR1<int32_t>({1, 3, 5, 4, 0, 2}));
  ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)));
}

TEST_P(SortTest, TopKLargestAndSmallest) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  {
    XlaBuilder b(TestName());
    std::vector<Literal> args;
    XlaOp x = AddParam(&b, Literal::CreateR2<float>({{1, nan, 3, 3}, {-0.0f, 0.0f, -2, 7}}), &args);
    TopK(x, 3);
    std::vector<Literal> expected;
    expected.push_back(Literal::CreateR2<float>({{nan, 3, 3}, {7, 0.0f, -0.0f}}));
    expected.push_back(Literal::CreateR2<int32_t>({{1, 2, 3}, {3, 1, 0}}));
    ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)));
  }
  {
    XlaBuilder b(TestName());
    std::vector<Literal> args;
    XlaOp x = AddParam(&b, Literal::CreateR1<int64_t>({4, -1, 4, -1}), &args);
    TopK(x, 2, /*largest=*/false);
    std::vector<Literal> expected;
    expected.push_back(Literal::CreateR1<int64_t>({-1, -1}));
    expected.push_back(Literal::CreateR1<int32_t>({1, 3}));
    ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)));
  }
}

TEST_P(SortTest, RandomInputs) {
  XlaBuilder b(TestName());
  XlaOp keys = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {6, 33}), "keys");
  XlaOp values = Parameter(&b, 1, ShapeUtil::MakeShape(S32, {6, 33}), "values");
  XlaOp sorted = Sort({keys, values}, Comparator({F32, S32}, /*greater=*/true), 1);
  XlaOp top = TopK(GetTupleElement(sorted, 1), 4);
  Tuple(&b, {GetTupleElement(sorted, 0), GetTupleElement(top, 0), GetTupleElement(top, 1)});
  CompareWithReferenceOnRandomInputs(&b, ErrorSpec{0, 0});
}

TEST_P(SortTest, BuildErrors) {
  {
    XlaBuilder b(TestName());
    Sort({Parameter(&b, 0, ShapeUtil::MakeShape(F32, {3}), "x")}, Comparator({S32}, /*greater=*/false));
    ExpectBuildError(&b, "comparator parameter 0 has shape s32[] but must be f32[]");
  }
  {
    XlaBuilder b(TestName());
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {3}), "x");
    XlaOp y = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {4}), "y");
    Sort({x, y}, Comparator({F32, F32}, /*greater=*/false));
    ExpectBuildError(&b, "all operands must have the same dimensions");
  }
  {
    XlaBuilder b(TestName());
    Sort({Parameter(&b, 0, ShapeUtil::MakeShape(F32, {3}), "x")}, Comparator({F32}, /*greater=*/false), 1);
    ExpectBuildError(&b, "dimension 1 is out of range");
  }
  {
    XlaBuilder b(TestName());
    TopK(Parameter(&b, 0, ShapeUtil::MakeShape(S32, {2, 3}), "x"), 4);
    ExpectBuildError(&b, "k = 4 must be in [0, 3]");
  }
}

XLA_CLIENT_TEST_P(SortTest);

}  // namespace
}  // namespace xla
