// Fft, TriangularSolve and Cholesky through the client API on every
// backend: the builder functions, hand-worked values, build-time errors,
// and random differential cases against the reference evaluator.
#include <complex>
#include <vector>

#include "gtest/gtest.h"
#include "tests/client_test_base.h"

namespace xla {
namespace {

using test::AddParam;
using test::ClientTest;

class FftLinalgTest : public ClientTest {};

TEST_P(FftLinalgTest, FftOfAnImpulseAndARoundTrip) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<complex64>({1, 0, 0, 0}), &args);
  Fft(x, FFT, {4});
  ComputeAndCompare(&b, args, Literal::CreateR1<complex64>({1, 1, 1, 1}), ErrorSpec{1e-6, 1e-6});

  XlaBuilder r(TestName() + "_rfft");
  std::vector<Literal> real_args;
  XlaOp y = AddParam(&r, Literal::CreateR1<double>({1, 2, 3, 4}), &real_args);
  Fft(Fft(y, RFFT, {4}), IRFFT, {4});
  ComputeAndCompare(&r, real_args, Literal::CreateR1<double>({1, 2, 3, 4}), ErrorSpec{1e-12, 1e-12});
}

TEST_P(FftLinalgTest, SolveAndFactor) {
  // The StableHLO spec's examples: l = cholesky(a), then l x = l gives 1s.
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp a = AddParam(&b, Literal::CreateR2<float>({{1, 2, 3}, {2, 20, 26}, {3, 26, 70}}), &args);
  XlaOp l = Cholesky(a, /*lower=*/true);
  XlaOp x = TriangularSolve(l, l, /*left_side=*/true, /*lower=*/true, /*unit_diagonal=*/false,
                            TriangularSolveOptions::NO_TRANSPOSE);
  Tuple(&b, {l, x});
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR2<float>({{1, 0, 0}, {2, 4, 0}, {3, 5, 6}}));
  expected.push_back(Literal::CreateR2<float>({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}));
  ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)), ErrorSpec{1e-6, 1e-6});
}

TEST_P(FftLinalgTest, RandomInputsMatchTheEvaluator) {
  XlaBuilder b(TestName());
  XlaOp s = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {3, 6, 10}), "s");
  XlaOp a = Parameter(&b, 1, ShapeUtil::MakeShape(F64, {2, 4, 4}), "a");
  XlaOp rhs = Parameter(&b, 2, ShapeUtil::MakeShape(F64, {2, 3, 4}), "rhs");
  // a + 10 I keeps the solve well conditioned for entries in [-1, 1].
  XlaOp eye = ConvertElementType(Eq(Iota(&b, ShapeUtil::MakeShape(S32, {2, 4, 4}), 1),
                                    Iota(&b, ShapeUtil::MakeShape(S32, {2, 4, 4}), 2)),
                                 F64);
  XlaOp solved = TriangularSolve(Add(a, Mul(eye, ConstantR0<double>(&b, 10))), rhs, /*left_side=*/false,
                                 /*lower=*/false, /*unit_diagonal=*/false, TriangularSolveOptions::TRANSPOSE);
  Tuple(&b, {Fft(s, RFFT, {6, 10}), solved});
  RandomSpec spec;
  spec.lo = -1;
  spec.hi = 1;
  CompareWithReferenceOnRandomInputs(&b, ErrorSpec{1e-4, 1e-4}, spec);
}

TEST_P(FftLinalgTest, BuildErrors) {
  {
    XlaBuilder b(TestName());
    Fft(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {8}), "x"), FFT, {8});
    ExpectBuildError(&b, "FFT needs a complex");
  }
  {
    XlaBuilder b(TestName());
    XlaOp a = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {3, 3}), "a");
    XlaOp rhs = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {2, 3}), "b");
    TriangularSolve(a, rhs, /*left_side=*/true, /*lower=*/true, /*unit_diagonal=*/false,
                    TriangularSolveOptions::NO_TRANSPOSE);
    ExpectBuildError(&b, "left_side=true");
  }
  {
    XlaBuilder b(TestName());
    Cholesky(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 3}), "a"), true);
    ExpectBuildError(&b, "square matrices");
  }
}

XLA_CLIENT_TEST_P(FftLinalgTest);

}  // namespace
}  // namespace xla
