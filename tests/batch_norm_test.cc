// BatchNormTraining, BatchNormInference and BatchNormGrad through the client
// API on every backend (the CPU backend runs the batch-norm-expander's HLO,
// the interpreter the evaluator's direct formulas): hand-worked values, the
// gradient against central finite differences of BatchNormTraining, random
// differential cases against the reference evaluator, build-time errors.
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/client_test_base.h"

namespace xla {
namespace {

using test::AddParam;
using test::ClientTest;

class BatchNormTest : public ClientTest {};

// x = [[1, 2], [3, 6]] (features along dimension 1): batch means [2, 4],
// variances [1, 4]; with scale [1, 2] and offset [0, 1]:
// y = [[(1-2)/1, 2(2-4)/2 + 1], [(3-2)/1, 2(6-4)/2 + 1]] = [[-1, -1], [1, 3]].
TEST_P(BatchNormTest, TrainingAndInferenceByHand) {
  {
    XlaBuilder b(TestName());
    std::vector<Literal> args;
    XlaOp x = AddParam(&b, Literal::CreateR2<float>({{1, 2}, {3, 6}}), &args);
    BatchNormTraining(x, ConstantR1<float>(&b, {1, 2}), ConstantR1<float>(&b, {0, 1}), 0.0f, 1);
    std::vector<Literal> expected;
    expected.push_back(Literal::CreateR2<float>({{-1, -1}, {1, 3}}));
    expected.push_back(Literal::CreateR1<float>({2, 4}));
    expected.push_back(Literal::CreateR1<float>({1, 4}));
    ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)), ErrorSpec{1e-6, 1e-6});
  }
  {
    // epsilon 3 on a variance of 1: (x - mean) / 2.
    XlaBuilder b(TestName() + "_inference");
    std::vector<Literal> args;
    XlaOp x = AddParam(&b, Literal::CreateR2<double>({{1, 5}, {3, 7}, {9, -1}}), &args);
    BatchNormInference(x, ConstantR1<double>(&b, {1, 1, 1}), ConstantR1<double>(&b, {0, 10, 0}),
                       ConstantR1<double>(&b, {1, 3, 5}), ConstantR1<double>(&b, {1, 1, 1}), 3.0f, 0);
    ComputeAndCompareR2<double>(&b, {{0, 2}, {10, 12}, {2, -3}}, args, ErrorSpec{1e-12, 1e-12});
  }
}

// The same x with mean [2, 4], variance [1, 4], scale [1, 2], epsilon 0
// and grad_output [[1, 0], [0, 1]]: feature 0 has x - mean = [-1, 1], so
// grad_offset = 1, grad_scale = sum(dy (x - mean)) / 1 = -1; feature 1
// has x - mean = [-2, 2]: grad_offset = 1, grad_scale = 2 / 2 = 1. The
// normalized outputs of one feature sum to zero, so here dx is 0.
TEST_P(BatchNormTest, GradByHand) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR2<float>({{1, 2}, {3, 6}}), &args);
  XlaOp dy = AddParam(&b, Literal::CreateR2<float>({{1, 0}, {0, 1}}), &args);
  BatchNormGrad(x, ConstantR1<float>(&b, {1, 2}), ConstantR1<float>(&b, {2, 4}), ConstantR1<float>(&b, {1, 4}), dy,
                0.0f, 1);
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR2<float>({{0, 0}, {0, 0}}));
  expected.push_back(Literal::CreateR1<float>({-1, 1}));
  expected.push_back(Literal::CreateR1<float>({1, 1}));
  ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)), ErrorSpec{1e-6, 1e-6});
}

// sum(dy * BatchNormTraining(x, scale, offset).y) as a function of x, scale
// and offset, evaluated in f64 by the reference evaluator.
double Objective(const Literal& x, const Literal& scale, const Literal& offset, const Literal& dy, float epsilon,
                 int64_t feature_index) {
  XlaBuilder b("objective");
  XlaOp px = Parameter(&b, 0, x.shape(), "x");
  XlaOp ps = Parameter(&b, 1, scale.shape(), "scale");
  XlaOp po = Parameter(&b, 2, offset.shape(), "offset");
  XlaOp pd = Parameter(&b, 3, dy.shape(), "dy");
  XlaOp y = GetTupleElement(BatchNormTraining(px, ps, po, epsilon, feature_index), 0);
  XlaBuilder add_builder("add");
  Add(Parameter(&add_builder, 0, ShapeUtil::MakeScalarShape(F64), "a"),
      Parameter(&add_builder, 1, ShapeUtil::MakeScalarShape(F64), "b"));
  std::vector<int64_t> all(x.shape().rank());
  for (int64_t d = 0; d < x.shape().rank(); ++d) all[d] = d;
  Reduce(Mul(y, pd), ConstantR0<double>(&b, 0), add_builder.Build().value(), all);
  std::vector<Literal> args;
  args.push_back(x);
  args.push_back(scale);
  args.push_back(offset);
  args.push_back(dy);
  return test::EvaluateWithReference(b.Build().value(), args).value().data<double>()[0];
}

TEST_P(BatchNormTest, GradMatchesFiniteDifferences) {
  std::mt19937 rng(3);
  const Shape x_shape = ShapeUtil::MakeShape(F64, {3, 2, 4});
  const Shape f_shape = ShapeUtil::MakeShape(F64, {2});
  const int64_t feature_index = 1;
  const float epsilon = 0.5f;
  Literal x = test::RandomLiteral(x_shape, rng, -2, 2);
  Literal scale = test::RandomLiteral(f_shape, rng, 0.5, 2);
  Literal offset = test::RandomLiteral(f_shape, rng, -1, 1);
  Literal dy = test::RandomLiteral(x_shape, rng, -1, 1);

  // The batch moments of x, then BatchNormGrad on the backend.
  XlaBuilder moments("moments");
  BatchNormTraining(Parameter(&moments, 0, x_shape, "x"), Parameter(&moments, 1, f_shape, "s"),
                    Parameter(&moments, 2, f_shape, "o"), epsilon, feature_index);
  std::vector<Literal> margs;
  margs.push_back(x);
  margs.push_back(scale);
  margs.push_back(offset);
  ASSERT_OK_AND_ASSIGN(Literal stats, test::EvaluateWithReference(moments.Build().value(), margs));

  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp px = AddParam(&b, x, &args);
  XlaOp ps = AddParam(&b, scale, &args);
  XlaOp pm = AddParam(&b, stats.tuple_elements()[1], &args);
  XlaOp pv = AddParam(&b, stats.tuple_elements()[2], &args);
  XlaOp pd = AddParam(&b, dy, &args);
  BatchNormGrad(px, ps, pm, pv, pd, epsilon, feature_index);
  ASSERT_OK_AND_ASSIGN(Literal grads, Execute(&b, args));

  const double h = 1e-5;
  auto central = [&](Literal& v, int64_t i, auto objective) {
    const double saved = v.data<double>()[i];
    v.data<double>()[i] = saved + h;
    const double up = objective();
    v.data<double>()[i] = saved - h;
    const double down = objective();
    v.data<double>()[i] = saved;
    return (up - down) / (2 * h);
  };
  auto f = [&] { return Objective(x, scale, offset, dy, epsilon, feature_index); };
  for (int64_t i = 0; i < x.element_count(); ++i) {
    EXPECT_NEAR(grads.tuple_elements()[0].data<double>()[i], central(x, i, f), 1e-6) << "dx " << i;
  }
  for (int64_t l = 0; l < 2; ++l) {
    EXPECT_NEAR(grads.tuple_elements()[1].data<double>()[l], central(scale, l, f), 1e-6) << "dscale " << l;
    EXPECT_NEAR(grads.tuple_elements()[2].data<double>()[l], central(offset, l, f), 1e-6) << "doffset " << l;
  }
}

TEST_P(BatchNormTest, RandomInputsMatchTheEvaluator) {
  struct Case {
    PrimitiveType type;
    std::vector<int64_t> dims;
    int64_t feature_index;
    double tolerance;
  };
  const std::vector<Case> cases = {
      {F32, {4, 3, 5, 6}, 1, 1e-4}, {F32, {4, 3, 5, 6}, 3, 1e-4}, {F64, {7, 9}, 0, 1e-10},
      {F16, {8, 4}, 1, 2e-2},       {BF16, {2, 3, 8}, 2, 5e-2},   {F32, {300, 7}, 1, 1e-4},
  };
  for (const Case& c : cases) {
    const Shape x_shape = ShapeUtil::MakeShape(c.type, c.dims);
    const Shape f_shape = ShapeUtil::MakeShape(c.type, {c.dims[c.feature_index]});
    {
      XlaBuilder b(TestName() + "_training");
      BatchNormTraining(Parameter(&b, 0, x_shape, "x"), Parameter(&b, 1, f_shape, "scale"),
                        Parameter(&b, 2, f_shape, "offset"), 0.001f, c.feature_index);
      CompareWithReferenceOnRandomInputs(&b, ErrorSpec{c.tolerance, c.tolerance}, {-3, 3, 2, 11});
    }
    {
      XlaBuilder b(TestName() + "_inference");
      XlaOp variance = Abs(Parameter(&b, 4, f_shape, "variance"));
      BatchNormInference(Parameter(&b, 0, x_shape, "x"), Parameter(&b, 1, f_shape, "scale"),
                         Parameter(&b, 2, f_shape, "offset"), Parameter(&b, 3, f_shape, "mean"), variance, 0.01f,
                         c.feature_index);
      CompareWithReferenceOnRandomInputs(&b, ErrorSpec{c.tolerance, c.tolerance}, {-3, 3, 2, 12});
    }
    {
      XlaBuilder b(TestName() + "_grad");
      XlaOp variance = Abs(Parameter(&b, 3, f_shape, "variance"));
      BatchNormGrad(Parameter(&b, 0, x_shape, "x"), Parameter(&b, 1, f_shape, "scale"),
                    Parameter(&b, 2, f_shape, "mean"), variance, Parameter(&b, 4, x_shape, "grad_output"), 0.1f,
                    c.feature_index);
      CompareWithReferenceOnRandomInputs(&b, ErrorSpec{c.tolerance, c.tolerance}, {-3, 3, 2, 13});
    }
  }
}

TEST_P(BatchNormTest, BadInputIsABuildError) {
  const Shape x = ShapeUtil::MakeShape(F32, {2, 3});
  const Shape f3 = ShapeUtil::MakeShape(F32, {3});
  {
    XlaBuilder b(TestName());
    BatchNormTraining(Parameter(&b, 0, x, "x"), Parameter(&b, 1, f3, "s"), Parameter(&b, 2, f3, "o"), 0.1f, 2);
    ExpectBuildError(&b, "feature_index 2 is out of range");
  }
  {
    XlaBuilder b(TestName());
    BatchNormTraining(Parameter(&b, 0, x, "x"), Parameter(&b, 1, ShapeUtil::MakeShape(F32, {2}), "s"),
                      Parameter(&b, 2, f3, "o"), 0.1f, 1);
    ExpectBuildError(&b, "scale must be a rank-1 array of the feature dimension's size 3");
  }
  {
    XlaBuilder b(TestName());
    BatchNormInference(Parameter(&b, 0, x, "x"), Parameter(&b, 1, f3, "s"), Parameter(&b, 2, f3, "o"),
                       Parameter(&b, 3, ShapeUtil::MakeShape(F32, {3, 1}), "m"), Parameter(&b, 4, f3, "v"), 0.1f, 1);
    ExpectBuildError(&b, "mean must be a rank-1 array");
  }
  {
    XlaBuilder b(TestName());
    const Shape i = ShapeUtil::MakeShape(S32, {2, 3});
    const Shape i3 = ShapeUtil::MakeShape(S32, {3});
    BatchNormTraining(Parameter(&b, 0, i, "x"), Parameter(&b, 1, i3, "s"), Parameter(&b, 2, i3, "o"), 0.1f, 1);
    ExpectBuildError(&b, "floating-point element type");
  }
  {
    XlaBuilder b(TestName());
    BatchNormTraining(Parameter(&b, 0, x, "x"), Parameter(&b, 1, ShapeUtil::MakeShape(F64, {3}), "s"),
                      Parameter(&b, 2, f3, "o"), 0.1f, 1);
    ExpectBuildError(&b, "scale must have the operand's element type f32");
  }
  {
    XlaBuilder b(TestName());
    BatchNormGrad(Parameter(&b, 0, x, "x"), Parameter(&b, 1, f3, "s"), Parameter(&b, 2, f3, "m"),
                  Parameter(&b, 3, f3, "v"), Parameter(&b, 4, ShapeUtil::MakeShape(F32, {3, 2}), "dy"), 0.1f, 1);
    ExpectBuildError(&b, "grad_output must have the operand's shape");
  }
}

XLA_CLIENT_TEST_P(BatchNormTest);

}  // namespace
}  // namespace xla
