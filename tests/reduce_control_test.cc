// Contractions, reductions and control flow through the client API: dot and
// dot-general (incl. batch matmul), reduce (single and variadic, the
// document's argmax), ReduceAll, map, call, while (the document's example),
// conditional (predicate and indexed forms), and ComputeConstant.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/client_test_base.h"
#include "xla/program_digest.h"

namespace xla {
namespace {

using test::AddParam;
using test::ClientTest;
using test::L;

constexpr float kInf = std::numeric_limits<float>::infinity();

Shape Scalar(PrimitiveType t) { return ShapeUtil::MakeScalarShape(t); }

Literal MakeTuple(std::vector<Literal> elements) { return Literal::MakeTuple(std::move(elements)); }
template <typename... L>
Literal TupleOf(L&&... elements) {
  std::vector<Literal> v;
  (v.push_back(std::forward<L>(elements)), ...);
  return Literal::MakeTuple(std::move(v));
}

class ReduceControlTest : public ClientTest {
 protected:
  // (a, b) -> a OP b on scalars of `type`, built in a sub-builder of `b`.
  XlaComputation Reducer(XlaBuilder* b, PrimitiveType type, const std::function<XlaOp(XlaOp, XlaOp)>& op,
                         const std::string& name) {
    std::unique_ptr<XlaBuilder> sb = b->CreateSubBuilder(name);
    op(Parameter(sb.get(), 0, Scalar(type), "a"), Parameter(sb.get(), 1, Scalar(type), "b"));
    absl::StatusOr<XlaComputation> c = sb->Build();
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? *std::move(c) : XlaComputation();
  }
  XlaComputation AddReducer(XlaBuilder* b, PrimitiveType type) {
    return Reducer(b, type, [](XlaOp x, XlaOp y) { return Add(x, y); }, "add");
  }
  XlaComputation MaxReducer(XlaBuilder* b, PrimitiveType type) {
    return Reducer(b, type, [](XlaOp x, XlaOp y) { return Max(x, y); }, "max");
  }

  // The 4x2x3 array of the Reduce figure: 1..6 replicated across dim 0.
  static Literal Doc3D() {
    return Literal::CreateR3<float>({{{1, 2, 3}, {4, 5, 6}},
                                     {{1, 2, 3}, {4, 5, 6}},
                                     {{1, 2, 3}, {4, 5, 6}},
                                     {{1, 2, 3}, {4, 5, 6}}});
  }
};

// --- Dot ---------------------------------------------------------------------------

TEST_P(ReduceControlTest, DotVectorVector) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Dot(AddParam(&b, Literal::CreateR1<float>({1, 2, 3}), &args), AddParam(&b, Literal::CreateR1<float>({4, 5, 6}), &args));
  ComputeAndCompareR0<float>(&b, 32, args);
}

TEST_P(ReduceControlTest, DotMatrixVectorAndVectorMatrix) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Dot(AddParam(&b, Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}), &args),
      AddParam(&b, Literal::CreateR1<float>({1, 0, -1}), &args));
  ComputeAndCompareR1<float>(&b, {-2, -2}, args);

  XlaBuilder b2(TestName() + "_vm");
  std::vector<Literal> args2;
  Dot(AddParam(&b2, Literal::CreateR1<float>({1, 2}), &args2),
      AddParam(&b2, Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}), &args2));
  ComputeAndCompareR1<float>(&b2, {9, 12, 15}, args2);
}

TEST_P(ReduceControlTest, DotMatrixMatrixTypes) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Dot(AddParam(&b, Literal::CreateR2<float>({{1, 2}, {3, 4}}), &args),
      AddParam(&b, Literal::CreateR2<float>({{5, 6}, {7, 8}}), &args));
  ComputeAndCompareR2<float>(&b, {{19, 22}, {43, 50}}, args);

  XlaBuilder b2(TestName() + "_s32");
  std::vector<Literal> args2;
  Dot(AddParam(&b2, Literal::CreateR2<int32_t>({{1, -2, 3}}), &args2),
      AddParam(&b2, Literal::CreateR2<int32_t>({{4}, {5}, {-6}}), &args2));
  ComputeAndCompareR2<int32_t>(&b2, {{-24}}, args2);

  XlaBuilder b3(TestName() + "_f64");
  std::vector<Literal> args3;
  Dot(AddParam(&b3, Literal::CreateR2<double>({{0.5, 0.25}}), &args3),
      AddParam(&b3, Literal::CreateR2<double>({{2, 4}, {8, 16}}), &args3));
  ComputeAndCompareR2<double>(&b3, {{3, 6}}, args3);

  XlaBuilder b4(TestName() + "_c64");
  std::vector<Literal> args4;
  Dot(AddParam(&b4, Literal::CreateR1<complex64>({{1, 1}, {0, 2}}), &args4),
      AddParam(&b4, Literal::CreateR1<complex64>({{1, -1}, {3, 0}}), &args4));
  // (1+i)(1-i) + 2i*3 = 2 + 6i.
  ComputeAndCompareR0<complex64>(&b4, {2, 6}, args4);
}

TEST_P(ReduceControlTest, DotGeneralDocContractingExample) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp lhs = AddParam(&b, Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}), &args);
  XlaOp rhs = AddParam(&b, Literal::CreateR2<float>({{1, 1, 1}, {2, 2, 2}}), &args);
  DotDimensionNumbers dnums;
  dnums.add_lhs_contracting_dimensions(1);
  dnums.add_rhs_contracting_dimensions(1);
  DotGeneral(lhs, rhs, dnums);
  ComputeAndCompareR2<float>(&b, {{6, 12}, {15, 30}}, args);
}

TEST_P(ReduceControlTest, DotGeneralDocBatchExample) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp lhs = AddParam(&b, Literal::CreateR3<float>({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}), &args);
  XlaOp rhs = AddParam(&b, Literal::CreateR3<float>({{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}}), &args);
  DotDimensionNumbers dnums;
  dnums.add_lhs_contracting_dimensions(2);
  dnums.add_rhs_contracting_dimensions(1);
  dnums.add_lhs_batch_dimensions(0);
  dnums.add_rhs_batch_dimensions(0);
  DotGeneral(lhs, rhs, dnums);
  ComputeAndCompareR3<float>(&b, {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}, args);
}

TEST_P(ReduceControlTest, DotGeneralBatchMatmulRank4) {
  // [b0, b1, m, k] . [b0, b1, k, n] -> [b0, b1, m, n], checked against loops.
  const int64_t B0 = 2, B1 = 3, M = 4, K = 5, N = 2;
  std::mt19937 rng(5);
  Literal lhs = test::RandomLiteral(ShapeUtil::MakeShape(F32, {B0, B1, M, K}), rng, -2, 2);
  Literal rhs = test::RandomLiteral(ShapeUtil::MakeShape(F32, {B0, B1, K, N}), rng, -2, 2);
  Literal expected(ShapeUtil::MakeShape(F32, {B0, B1, M, N}));
  for (int64_t a = 0; a < B0; ++a)
    for (int64_t c = 0; c < B1; ++c)
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          double sum = 0;
          for (int64_t k = 0; k < K; ++k) sum += lhs.Get<float>({a, c, m, k}) * rhs.Get<float>({a, c, k, n});
          expected.Set<float>({a, c, m, n}, static_cast<float>(sum));
        }
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp l = AddParam(&b, lhs, &args);
  XlaOp r = AddParam(&b, rhs, &args);
  DotDimensionNumbers dnums;
  dnums.add_lhs_batch_dimensions(0);
  dnums.add_lhs_batch_dimensions(1);
  dnums.add_rhs_batch_dimensions(0);
  dnums.add_rhs_batch_dimensions(1);
  dnums.add_lhs_contracting_dimensions(3);
  dnums.add_rhs_contracting_dimensions(2);
  DotGeneral(l, r, dnums);
  ComputeAndCompare(&b, args, expected, ErrorSpec{1e-5, 1e-5});
}

TEST_P(ReduceControlTest, DotGeneralDimensionOrder) {
  // Batch dims first, then lhs free dims, then rhs free dims, whatever the
  // operand positions: lhs [k=2, b=2, m=1], rhs [n=3, k=2, b=2].
  Literal lhs = Literal::CreateR3<float>({{{1}, {2}}, {{3}, {4}}});  // lhs[k][b][m]
  Literal rhs(ShapeUtil::MakeShape(F32, {3, 2, 2}));                   // rhs[n][k][b]
  for (int64_t n = 0; n < 3; ++n)
    for (int64_t k = 0; k < 2; ++k)
      for (int64_t bb = 0; bb < 2; ++bb) rhs.Set<float>({n, k, bb}, static_cast<float>(100 * n + 10 * k + bb));
  Literal expected(ShapeUtil::MakeShape(F32, {2, 1, 3}));  // [b][m][n]
  for (int64_t bb = 0; bb < 2; ++bb)
    for (int64_t n = 0; n < 3; ++n) {
      float sum = 0;
      for (int64_t k = 0; k < 2; ++k) sum += lhs.Get<float>({k, bb, 0}) * rhs.Get<float>({n, k, bb});
      expected.Set<float>({bb, 0, n}, sum);
    }
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp l = AddParam(&b, lhs, &args);
  XlaOp r = AddParam(&b, rhs, &args);
  DotDimensionNumbers dnums;
  dnums.add_lhs_batch_dimensions(1);
  dnums.add_rhs_batch_dimensions(2);
  dnums.add_lhs_contracting_dimensions(0);
  dnums.add_rhs_contracting_dimensions(1);
  DotGeneral(l, r, dnums);
  ComputeAndCompare(&b, args, expected);
}

TEST_P(ReduceControlTest, DotGeneralMultipleContractingAndEmpty) {
  // lhs [2,3,4] . rhs [3,4,5] contracting {1,2} with {0,1} -> [2,5].
  Literal lhs(ShapeUtil::MakeShape(S32, {2, 3, 4}));
  Literal rhs(ShapeUtil::MakeShape(S32, {3, 4, 5}));
  for (int64_t i = 0; i < lhs.element_count(); ++i) lhs.data<int32_t>()[i] = static_cast<int32_t>(i % 7) - 3;
  for (int64_t i = 0; i < rhs.element_count(); ++i) rhs.data<int32_t>()[i] = static_cast<int32_t>(i % 5) - 2;
  Literal expected(ShapeUtil::MakeShape(S32, {2, 5}));
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t n = 0; n < 5; ++n) {
      int32_t sum = 0;
      for (int64_t c = 0; c < 3; ++c)
        for (int64_t d = 0; d < 4; ++d) sum += lhs.Get<int32_t>({a, c, d}) * rhs.Get<int32_t>({c, d, n});
      expected.Set<int32_t>({a, n}, sum);
    }
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp l = AddParam(&b, lhs, &args);
  XlaOp r = AddParam(&b, rhs, &args);
  DotDimensionNumbers dnums;
  dnums.add_lhs_contracting_dimensions(1);
  dnums.add_lhs_contracting_dimensions(2);
  dnums.add_rhs_contracting_dimensions(0);
  dnums.add_rhs_contracting_dimensions(1);
  DotGeneral(l, r, dnums);
  ComputeAndCompare(&b, args, expected);

  // An empty contraction sums nothing: zeros.
  XlaBuilder b2(TestName() + "_empty");
  std::vector<Literal> args2;
  Dot(AddParam(&b2, Literal(ShapeUtil::MakeShape(F32, {2, 0})), &args2),
      AddParam(&b2, Literal(ShapeUtil::MakeShape(F32, {0, 3})), &args2));
  ComputeAndCompareR2<float>(&b2, {{0, 0, 0}, {0, 0, 0}}, args2);

  // Outer product: no contracting dimensions.
  XlaBuilder b3(TestName() + "_outer");
  std::vector<Literal> args3;
  DotGeneral(AddParam(&b3, Literal::CreateR1<float>({1, 2}), &args3),
             AddParam(&b3, Literal::CreateR1<float>({3, 4, 5}), &args3), DotDimensionNumbers());
  ComputeAndCompareR2<float>(&b3, {{3, 4, 5}, {6, 8, 10}}, args3);
}

TEST_P(ReduceControlTest, RandomDotsMatchReference) {
  for (auto [m, k, n] : std::vector<std::array<int64_t, 3>>{{1, 1, 1}, {7, 13, 5}, {16, 32, 8}, {3, 64, 1}}) {
    SCOPED_TRACE(absl::StrCat(m, "x", k, "x", n));
    XlaBuilder b(absl::StrCat(TestName(), "_", m, "_", k, "_", n));
    Dot(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {m, k}), "lhs"),
        Parameter(&b, 1, ShapeUtil::MakeShape(F32, {k, n}), "rhs"));
    CompareWithReferenceOnRandomInputs(&b, ErrorSpec{1e-4, 1e-4}, RandomSpec{-1, 1, 2, static_cast<uint32_t>(m * k)});
  }
}

// --- Reduce ------------------------------------------------------------------------------

TEST_P(ReduceControlTest, Reduce2DMatrixBothDimensions) {
  Literal m = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, m, &args);
  XlaComputation add = AddReducer(&b, F32);
  Tuple(&b, {Reduce(x, ConstantR0<float>(&b, 0), add, {0}), Reduce(x, ConstantR0<float>(&b, 0), add, {1})});
  ComputeAndCompare(&b, args, TupleOf(Literal::CreateR1<float>({5, 7, 9}), Literal::CreateR1<float>({6, 15})));
}

TEST_P(ReduceControlTest, Reduce3DDocExamples) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Doc3D(), &args);
  XlaComputation add = AddReducer(&b, F32);
  XlaOp zero = ConstantR0<float>(&b, 0);
  Tuple(&b, {Reduce(x, zero, add, {0}), Reduce(x, zero, add, {2}), Reduce(x, zero, add, {0, 1}),
             Reduce(x, zero, add, {1, 0}), Reduce(x, zero, add, {0, 1, 2}), ReduceAll(x, zero, add)});
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR2<float>({{4, 8, 12}, {16, 20, 24}}));
  expected.push_back(Literal::CreateR2<float>({{6, 15}, {6, 15}, {6, 15}, {6, 15}}));
  expected.push_back(Literal::CreateR1<float>({20, 28, 36}));
  expected.push_back(Literal::CreateR1<float>({20, 28, 36}));
  expected.push_back(Literal::CreateR0<float>(84));
  expected.push_back(Literal::CreateR0<float>(84));
  ComputeAndCompare(&b, args, MakeTuple(std::move(expected)));
}

TEST_P(ReduceControlTest, ReduceOtherReducersAndTypes) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp f = AddParam(&b, Literal::CreateR2<float>({{1, -5, 3}, {-kInf, 2, 0}}), &args);
  XlaOp i = AddParam(&b, Literal::CreateR1<int32_t>({1, 2, 3, 4}), &args);
  XlaOp p = AddParam(&b, Literal::CreateR2<bool>({{true, true}, {true, false}}), &args);
  XlaComputation fmax = MaxReducer(&b, F32);
  XlaComputation imul = Reducer(&b, S32, [](XlaOp x, XlaOp y) { return Mul(x, y); }, "mul");
  XlaComputation imin = Reducer(&b, S32, [](XlaOp x, XlaOp y) { return Min(x, y); }, "min");
  XlaComputation pand = Reducer(&b, PRED, [](XlaOp x, XlaOp y) { return And(x, y); }, "and");
  XlaComputation por = Reducer(&b, PRED, [](XlaOp x, XlaOp y) { return Or(x, y); }, "or");
  Tuple(&b, {Reduce(f, ConstantR0<float>(&b, -kInf), fmax, {1}),
             ReduceAll(i, ConstantR0<int32_t>(&b, 1), imul),
             ReduceAll(i, ConstantR0<int32_t>(&b, std::numeric_limits<int32_t>::max()), imin),
             Reduce(p, ConstantR0<bool>(&b, true), pand, {1}), Reduce(p, ConstantR0<bool>(&b, false), por, {0})});
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR1<float>({3, 2}));
  expected.push_back(Literal::CreateR0<int32_t>(24));
  expected.push_back(Literal::CreateR0<int32_t>(1));
  expected.push_back(Literal::CreateR1<bool>({true, false}));
  expected.push_back(Literal::CreateR1<bool>({true, true}));
  ComputeAndCompare(&b, args, MakeTuple(std::move(expected)));
}

TEST_P(ReduceControlTest, ReduceEmptyAndNoDimensions) {
  // Reducing a zero-sized dimension yields the init value.
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal(ShapeUtil::MakeShape(F32, {0, 3})), &args);
  Reduce(x, ConstantR0<float>(&b, 5), AddReducer(&b, F32), {0});
  ComputeAndCompareR1<float>(&b, {5, 5, 5}, args);

  // Reducing no dimension applies the reducer once: f(init, x).
  XlaBuilder b2(TestName() + "_no_dims");
  std::vector<Literal> args2;
  XlaOp y = AddParam(&b2, Literal::CreateR1<int32_t>({1, 2, 3}), &args2);
  Reduce(y, ConstantR0<int32_t>(&b2, 10), AddReducer(&b2, S32), {});
  ComputeAndCompareR1<int32_t>(&b2, {11, 12, 13}, args2);

  // A scalar ReduceAll.
  XlaBuilder b3(TestName() + "_scalar");
  std::vector<Literal> args3;
  ReduceAll(AddParam(&b3, Literal::CreateR0<float>(2.5f), &args3), ConstantR0<float>(&b3, 1), AddReducer(&b3, F32));
  ComputeAndCompareR0<float>(&b3, 3.5f, args3);
}

// The document's max/argmax reducer: (max, argmax, value, index) ->
// value >= max ? (value, index) : (max, argmax).
XlaComputation ArgMaxReducer(XlaBuilder* parent) {
  std::unique_ptr<XlaBuilder> sb = parent->CreateSubBuilder("argmax");
  XlaOp max = Parameter(sb.get(), 0, Scalar(F32), "max");
  XlaOp argmax = Parameter(sb.get(), 1, Scalar(S32), "argmax");
  XlaOp value = Parameter(sb.get(), 2, Scalar(F32), "value");
  XlaOp index = Parameter(sb.get(), 3, Scalar(S32), "index");
  XlaOp take = Ge(value, max);
  Tuple(sb.get(), {Select(take, value, max), Select(take, index, argmax)});
  absl::StatusOr<XlaComputation> c = sb->Build();
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : XlaComputation();
}

TEST_P(ReduceControlTest, VariadicReduceArgMaxDocExample) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp v = AddParam(&b, Literal::CreateR1<float>({3, 7, 1, 9, 2}), &args);
  XlaOp k = Iota(&b, S32, 5);
  Reduce(&b, {v, k}, {ConstantR0<float>(&b, -kInf), ConstantR0<int32_t>(&b, -1)}, ArgMaxReducer(&b), {0});
  ComputeAndCompare(&b, args, TupleOf(Literal::CreateR0<float>(9), Literal::CreateR0<int32_t>(3)));
}

TEST_P(ReduceControlTest, VariadicReduceArgMaxPerRow) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp v = AddParam(&b, Literal::CreateR2<float>({{3, 7, 1}, {-1, -5, -2}, {0, 2, 8}}), &args);
  XlaOp k = Iota(&b, ShapeUtil::MakeShape(S32, {3, 3}), 1);
  Reduce(&b, {v, k}, {ConstantR0<float>(&b, -kInf), ConstantR0<int32_t>(&b, -1)}, ArgMaxReducer(&b), {1});
  ComputeAndCompare(&b, args, TupleOf(Literal::CreateR1<float>({7, -1, 8}), Literal::CreateR1<int32_t>({1, 0, 2})));
}

TEST_P(ReduceControlTest, VariadicReduceSumAndCount) {
  // Two independent reductions in one op: sum (f32) and count (s32).
  std::unique_ptr<XlaBuilder> sb;
  XlaBuilder b(TestName());
  sb = b.CreateSubBuilder("sum_count");
  XlaOp s0 = Parameter(sb.get(), 0, Scalar(F32), "s");
  XlaOp c0 = Parameter(sb.get(), 1, Scalar(S32), "c");
  XlaOp s1 = Parameter(sb.get(), 2, Scalar(F32), "x");
  XlaOp c1 = Parameter(sb.get(), 3, Scalar(S32), "one");
  Tuple(sb.get(), {Add(s0, s1), Add(c0, c1)});
  ASSERT_OK_AND_ASSIGN(XlaComputation reducer, sb->Build());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR2<float>({{1, 2}, {3, 4}, {5, 6}}), &args);
  XlaOp ones = Broadcast(ConstantR0<int32_t>(&b, 1), {3, 2});
  Reduce(&b, {x, ones}, {ConstantR0<float>(&b, 0), ConstantR0<int32_t>(&b, 0)}, reducer, {0});
  ComputeAndCompare(&b, args, TupleOf(Literal::CreateR1<float>({9, 12}), Literal::CreateR1<int32_t>({3, 3})));
}

TEST_P(ReduceControlTest, RandomReductionsMatchReference) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int64_t> reduce;
  };
  int seed = 11;
  for (const Case& c : std::vector<Case>{{{17}, {0}}, {{8, 9}, {1}}, {{8, 9}, {0}}, {{3, 4, 5}, {0, 2}},
                                         {{3, 4, 5}, {1}}, {{2, 3, 4, 5}, {0, 1, 2, 3}}}) {
    XlaBuilder b(absl::StrCat(TestName(), "_", seed));
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, c.dims), "x");
    Tuple(&b, {Reduce(x, ConstantR0<float>(&b, 0), AddReducer(&b, F32), c.reduce),
               Reduce(x, ConstantR0<float>(&b, -kInf), MaxReducer(&b, F32), c.reduce)});
    CompareWithReferenceOnRandomInputs(&b, ErrorSpec{1e-5, 1e-5}, RandomSpec{-1, 1, 2, static_cast<uint32_t>(seed++)});
  }
}

// --- Map ---------------------------------------------------------------------------------

TEST_P(ReduceControlTest, MapUnaryAndBinary) {
  XlaBuilder b(TestName());
  std::unique_ptr<XlaBuilder> sq = b.CreateSubBuilder("square_plus_one");
  XlaOp e = Parameter(sq.get(), 0, Scalar(F32), "e");
  Add(Mul(e, e), ConstantR0<float>(sq.get(), 1));
  ASSERT_OK_AND_ASSIGN(XlaComputation square_plus_one, sq->Build());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<float>({0, 1, -2, 3}), &args);
  Map(&b, {x}, square_plus_one, {0});
  ComputeAndCompareR1<float>(&b, {1, 2, 5, 10}, args);

  XlaBuilder b2(TestName() + "_binary");
  std::unique_ptr<XlaBuilder> sub = b2.CreateSubBuilder("sub");
  Sub(Parameter(sub.get(), 0, Scalar(S32), "a"), Parameter(sub.get(), 1, Scalar(S32), "b"));
  ASSERT_OK_AND_ASSIGN(XlaComputation sub_c, sub->Build());
  std::vector<Literal> args2;
  XlaOp p = AddParam(&b2, Literal::CreateR2<int32_t>({{10, 20}, {30, 40}}), &args2);
  XlaOp q = AddParam(&b2, Literal::CreateR2<int32_t>({{1, 2}, {3, 4}}), &args2);
  Map(&b2, {p, q}, sub_c, {0, 1});
  ComputeAndCompareR2<int32_t>(&b2, {{9, 18}, {27, 36}}, args2);
}

TEST_P(ReduceControlTest, MapChangesElementTypeAndOnScalars) {
  XlaBuilder b(TestName());
  std::unique_ptr<XlaBuilder> pos = b.CreateSubBuilder("is_positive");
  Gt(Parameter(pos.get(), 0, Scalar(F32), "e"), ConstantR0<float>(pos.get(), 0));
  ASSERT_OK_AND_ASSIGN(XlaComputation is_positive, pos->Build());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<float>({-1, 0, 2}), &args);
  XlaOp s = AddParam(&b, Literal::CreateR0<float>(3), &args);
  Tuple(&b, {Map(&b, {x}, is_positive, {0}), Map(&b, {s}, is_positive, {})});
  ComputeAndCompare(&b, args, TupleOf(Literal::CreateR1<bool>({false, false, true}), Literal::CreateR0<bool>(true)));
}

// --- Call -----------------------------------------------------------------------------------

TEST_P(ReduceControlTest, CallWithArgumentsNoArgumentsAndNested) {
  XlaBuilder b(TestName());
  std::unique_ptr<XlaBuilder> fma = b.CreateSubBuilder("fma");
  Add(Mul(Parameter(fma.get(), 0, ShapeUtil::MakeShape(F32, {2}), "x"),
          Parameter(fma.get(), 1, ShapeUtil::MakeShape(F32, {2}), "y")),
      ConstantR0<float>(fma.get(), 1));
  ASSERT_OK_AND_ASSIGN(XlaComputation fma_c, fma->Build());

  std::unique_ptr<XlaBuilder> seven = b.CreateSubBuilder("seven");
  ConstantR1<float>(seven.get(), {7, 7});
  ASSERT_OK_AND_ASSIGN(XlaComputation seven_c, seven->Build());

  // A computation that calls another computation.
  std::unique_ptr<XlaBuilder> outer = b.CreateSubBuilder("outer");
  XlaOp z = Parameter(outer.get(), 0, ShapeUtil::MakeShape(F32, {2}), "z");
  Call(outer.get(), fma_c, {z, z});
  ASSERT_OK_AND_ASSIGN(XlaComputation outer_c, outer->Build());

  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<float>({2, 3}), &args);
  XlaOp y = AddParam(&b, Literal::CreateR1<float>({4, -1}), &args);
  Tuple(&b, {Call(&b, fma_c, {x, y}), Call(&b, seven_c, {}), Call(&b, outer_c, {x}), Call(&b, fma_c, {y, x})});
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR1<float>({9, -2}));
  expected.push_back(Literal::CreateR1<float>({7, 7}));
  expected.push_back(Literal::CreateR1<float>({5, 10}));
  expected.push_back(Literal::CreateR1<float>({9, -2}));
  ComputeAndCompare(&b, args, MakeTuple(std::move(expected)));
}

TEST_P(ReduceControlTest, CallReturningTuple) {
  XlaBuilder b(TestName());
  std::unique_ptr<XlaBuilder> swap = b.CreateSubBuilder("swap");
  XlaOp p = Parameter(swap.get(), 0, Scalar(S32), "p");
  XlaOp q = Parameter(swap.get(), 1, Scalar(F32), "q");
  Tuple(swap.get(), {q, p});
  ASSERT_OK_AND_ASSIGN(XlaComputation swap_c, swap->Build());
  XlaOp t = Call(&b, swap_c, {ConstantR0<int32_t>(&b, 4), ConstantR0<float>(&b, 2.5f)});
  GetTupleElement(t, 0);
  ComputeAndCompareR0<float>(&b, 2.5f);
}

// --- While ----------------------------------------------------------------------------------

TEST_P(ReduceControlTest, WhileDocExample) {
  // init = {0, zero_vector[10]}; while (result(0) < 1000) { iteration =
  // result(0) + 1; new_vector = result(1) + constant_vector[10]; }
  const Shape state = ShapeUtil::MakeTupleShape({Scalar(S32), ShapeUtil::MakeShape(F32, {10})});
  XlaBuilder b(TestName());
  std::unique_ptr<XlaBuilder> cb = b.CreateSubBuilder("condition");
  Lt(GetTupleElement(Parameter(cb.get(), 0, state, "state"), 0), ConstantR0<int32_t>(cb.get(), 1000));
  ASSERT_OK_AND_ASSIGN(XlaComputation condition, cb->Build());
  std::unique_ptr<XlaBuilder> bb = b.CreateSubBuilder("body");
  XlaOp s = Parameter(bb.get(), 0, state, "state");
  Tuple(bb.get(), {Add(GetTupleElement(s, 0), ConstantR0<int32_t>(bb.get(), 1)),
                   Add(GetTupleElement(s, 1), ConstantR1<float>(bb.get(), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}))});
  ASSERT_OK_AND_ASSIGN(XlaComputation body, bb->Build());
  XlaOp init = Tuple(&b, {ConstantR0<int32_t>(&b, 0), Broadcast(ConstantR0<float>(&b, 0), {10})});
  While(condition, body, init);
  ComputeAndCompare(&b, TupleOf(Literal::CreateR0<int32_t>(1000),
                                Literal::CreateR1<float>({1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000})));
}

TEST_P(ReduceControlTest, WhileScalarStateAndZeroIterations) {
  for (auto [start, expected] : std::vector<std::pair<int32_t, int32_t>>{{1, 128}, {3, 192}, {500, 500}}) {
    SCOPED_TRACE(start);
    XlaBuilder b(absl::StrCat(TestName(), "_", start));
    std::unique_ptr<XlaBuilder> cb = b.CreateSubBuilder("cond");
    Lt(Parameter(cb.get(), 0, Scalar(S32), "x"), ConstantR0<int32_t>(cb.get(), 100));
    ASSERT_OK_AND_ASSIGN(XlaComputation cond, cb->Build());
    std::unique_ptr<XlaBuilder> bb = b.CreateSubBuilder("body");
    Mul(Parameter(bb.get(), 0, Scalar(S32), "x"), ConstantR0<int32_t>(bb.get(), 2));
    ASSERT_OK_AND_ASSIGN(XlaComputation body, bb->Build());
    std::vector<Literal> args;
    While(cond, body, AddParam(&b, Literal::CreateR0<int32_t>(start), &args));
    ComputeAndCompareR0<int32_t>(&b, expected, args);
  }
}

TEST_P(ReduceControlTest, WhileFibonacciWithNestedWhile) {
  // state (i, a, b): 20 steps of (a, b) -> (b, a + b); the inner loop adds
  // via repeated increment to exercise a while inside a while body.
  const Shape state = ShapeUtil::MakeTupleShape({Scalar(S32), Scalar(S64), Scalar(S64)});
  XlaBuilder b(TestName());
  std::unique_ptr<XlaBuilder> cb = b.CreateSubBuilder("cond");
  Lt(GetTupleElement(Parameter(cb.get(), 0, state, "s"), 0), ConstantR0<int32_t>(cb.get(), 20));
  ASSERT_OK_AND_ASSIGN(XlaComputation cond, cb->Build());

  const Shape pair = ShapeUtil::MakeTupleShape({Scalar(S64), Scalar(S64)});
  std::unique_ptr<XlaBuilder> icb = b.CreateSubBuilder("inner_cond");
  Gt(GetTupleElement(Parameter(icb.get(), 0, pair, "p"), 1), ConstantR0<int64_t>(icb.get(), 0));
  ASSERT_OK_AND_ASSIGN(XlaComputation inner_cond, icb->Build());
  std::unique_ptr<XlaBuilder> ibb = b.CreateSubBuilder("inner_body");
  XlaOp ip = Parameter(ibb.get(), 0, pair, "p");
  // Moves min(remaining, 1000) at a time so the loop is short.
  XlaOp step = Min(GetTupleElement(ip, 1), ConstantR0<int64_t>(ibb.get(), 1000));
  Tuple(ibb.get(), {Add(GetTupleElement(ip, 0), step), Sub(GetTupleElement(ip, 1), step)});
  ASSERT_OK_AND_ASSIGN(XlaComputation inner_body, ibb->Build());

  std::unique_ptr<XlaBuilder> bb = b.CreateSubBuilder("body");
  XlaOp s = Parameter(bb.get(), 0, state, "s");
  XlaOp a = GetTupleElement(s, 1), c = GetTupleElement(s, 2);
  XlaOp sum = GetTupleElement(While(inner_cond, inner_body, Tuple(bb.get(), {a, c})), 0);
  Tuple(bb.get(), {Add(GetTupleElement(s, 0), ConstantR0<int32_t>(bb.get(), 1)), c, sum});
  ASSERT_OK_AND_ASSIGN(XlaComputation body, bb->Build());

  While(cond, body, Tuple(&b, {ConstantR0<int32_t>(&b, 0), ConstantR0<int64_t>(&b, 0), ConstantR0<int64_t>(&b, 1)}));
  ComputeAndCompare(&b, TupleOf(Literal::CreateR0<int32_t>(20), Literal::CreateR0<int64_t>(6765),
                                Literal::CreateR0<int64_t>(10946)));
}

// --- Conditional --------------------------------------------------------------------------

TEST_P(ReduceControlTest, ConditionalPredicateForm) {
  for (bool pred : {true, false}) {
    SCOPED_TRACE(pred);
    XlaBuilder b(absl::StrCat(TestName(), "_", pred));
    std::unique_ptr<XlaBuilder> tb = b.CreateSubBuilder("on_true");
    Add(Parameter(tb.get(), 0, ShapeUtil::MakeShape(F32, {2}), "x"), ConstantR0<float>(tb.get(), 1));
    ASSERT_OK_AND_ASSIGN(XlaComputation on_true, tb->Build());
    // The false branch takes another type: s32[] -> f32[2].
    std::unique_ptr<XlaBuilder> fb = b.CreateSubBuilder("on_false");
    Broadcast(ConvertElementType(Mul(Parameter(fb.get(), 0, Scalar(S32), "n"), ConstantR0<int32_t>(fb.get(), 2)), F32),
              {2});
    ASSERT_OK_AND_ASSIGN(XlaComputation on_false, fb->Build());
    std::vector<Literal> args;
    XlaOp p = AddParam(&b, Literal::CreateR0<bool>(pred), &args);
    XlaOp x = AddParam(&b, Literal::CreateR1<float>({10, 20}), &args);
    XlaOp n = AddParam(&b, Literal::CreateR0<int32_t>(21), &args);
    Conditional(p, x, on_true, n, on_false);
    ComputeAndCompareR1<float>(&b, pred ? std::vector<float>{11, 21} : std::vector<float>{42, 42}, args);
  }
}

TEST_P(ReduceControlTest, ConditionalIndexedFormWithDefaultBranch) {
  // branch 0: x + 10, branch 1: x * 10, branch 2: -x. Out-of-range indices
  // run the last branch.
  for (auto [index, expected] : std::vector<std::pair<int32_t, int32_t>>{
           {0, 13}, {1, 30}, {2, -3}, {-1, -3}, {3, -3}, {5, -3}, {std::numeric_limits<int32_t>::min(), -3}}) {
    SCOPED_TRACE(index);
    XlaBuilder b(absl::StrCat(TestName(), "_", index < 0 ? "minus" : "", std::abs(int64_t{index})));
    std::unique_ptr<XlaBuilder> b0 = b.CreateSubBuilder("plus10");
    Add(Parameter(b0.get(), 0, Scalar(S32), "x"), ConstantR0<int32_t>(b0.get(), 10));
    ASSERT_OK_AND_ASSIGN(XlaComputation c0, b0->Build());
    std::unique_ptr<XlaBuilder> b1 = b.CreateSubBuilder("times10");
    Mul(Parameter(b1.get(), 0, Scalar(S32), "x"), ConstantR0<int32_t>(b1.get(), 10));
    ASSERT_OK_AND_ASSIGN(XlaComputation c1, b1->Build());
    std::unique_ptr<XlaBuilder> b2 = b.CreateSubBuilder("negate");
    Neg(Parameter(b2.get(), 0, Scalar(S32), "x"));
    ASSERT_OK_AND_ASSIGN(XlaComputation c2, b2->Build());
    std::vector<Literal> args;
    XlaOp i = AddParam(&b, Literal::CreateR0<int32_t>(index), &args);
    XlaOp x = AddParam(&b, Literal::CreateR0<int32_t>(3), &args);
    const XlaComputation* branches[] = {&c0, &c1, &c2};
    Conditional(i, branches, {x, x, x});
    ComputeAndCompareR0<int32_t>(&b, expected, args);
  }
}

TEST_P(ReduceControlTest, ConditionalWithTupleOperandsAndResults) {
  const Shape pair = ShapeUtil::MakeTupleShape({Scalar(F32), Scalar(F32)});
  XlaBuilder b(TestName());
  std::unique_ptr<XlaBuilder> sb = b.CreateSubBuilder("swap");
  XlaOp p = Parameter(sb.get(), 0, pair, "p");
  Tuple(sb.get(), {GetTupleElement(p, 1), GetTupleElement(p, 0)});
  ASSERT_OK_AND_ASSIGN(XlaComputation swap, sb->Build());
  std::unique_ptr<XlaBuilder> kb = b.CreateSubBuilder("keep");
  Parameter(kb.get(), 0, pair, "p");
  ASSERT_OK_AND_ASSIGN(XlaComputation keep, kb->Build());
  std::vector<Literal> args;
  XlaOp t = AddParam(&b, TupleOf(Literal::CreateR0<float>(1), Literal::CreateR0<float>(2)), &args);
  XlaOp idx = AddParam(&b, Literal::CreateR0<int32_t>(0), &args);
  const XlaComputation* branches[] = {&swap, &keep};
  Conditional(idx, branches, {t, t});
  ComputeAndCompare(&b, args, TupleOf(Literal::CreateR0<float>(2), Literal::CreateR0<float>(1)));
}

TEST_P(ReduceControlTest, ConditionalInsideWhile) {
  // Collatz steps from 27 until 1: 111 steps.
  XlaBuilder b(TestName());
  const Shape state = ShapeUtil::MakeTupleShape({Scalar(S64), Scalar(S32)});
  std::unique_ptr<XlaBuilder> cb = b.CreateSubBuilder("cond");
  Ne(GetTupleElement(Parameter(cb.get(), 0, state, "s"), 0), ConstantR0<int64_t>(cb.get(), 1));
  ASSERT_OK_AND_ASSIGN(XlaComputation cond, cb->Build());
  std::unique_ptr<XlaBuilder> even = b.CreateSubBuilder("even");
  Div(Parameter(even.get(), 0, Scalar(S64), "n"), ConstantR0<int64_t>(even.get(), 2));
  ASSERT_OK_AND_ASSIGN(XlaComputation even_c, even->Build());
  std::unique_ptr<XlaBuilder> odd = b.CreateSubBuilder("odd");
  Add(Mul(Parameter(odd.get(), 0, Scalar(S64), "n"), ConstantR0<int64_t>(odd.get(), 3)), ConstantR0<int64_t>(odd.get(), 1));
  ASSERT_OK_AND_ASSIGN(XlaComputation odd_c, odd->Build());
  std::unique_ptr<XlaBuilder> bb = b.CreateSubBuilder("body");
  XlaOp s = Parameter(bb.get(), 0, state, "s");
  XlaOp n = GetTupleElement(s, 0);
  XlaOp is_even = Eq(Rem(n, ConstantR0<int64_t>(bb.get(), 2)), ConstantR0<int64_t>(bb.get(), 0));
  Tuple(bb.get(), {Conditional(is_even, n, even_c, n, odd_c),
                   Add(GetTupleElement(s, 1), ConstantR0<int32_t>(bb.get(), 1))});
  ASSERT_OK_AND_ASSIGN(XlaComputation body, bb->Build());
  std::vector<Literal> args;
  XlaOp start = AddParam(&b, Literal::CreateR0<int64_t>(27), &args);
  GetTupleElement(While(cond, body, Tuple(&b, {start, ConstantR0<int32_t>(&b, 0)})), 1);
  ComputeAndCompareR0<int32_t>(&b, 111, args);
}

TEST_P(ReduceControlTest, ConditionalRunsOnlyTheSelectedBranch) {
  // The untaken branch loops 2^31 - 1 times: evaluating it would take far
  // longer than the test (or hit ComputeConstant's loop bound and fail).
  XlaBuilder b(TestName());
  std::unique_ptr<XlaBuilder> cb = b.CreateSubBuilder("cond");
  Lt(Parameter(cb.get(), 0, Scalar(S32), "i"), ConstantR0<int32_t>(cb.get(), std::numeric_limits<int32_t>::max()));
  ASSERT_OK_AND_ASSIGN(XlaComputation cond, cb->Build());
  std::unique_ptr<XlaBuilder> ib = b.CreateSubBuilder("inc");
  Add(Parameter(ib.get(), 0, Scalar(S32), "i"), ConstantR0<int32_t>(ib.get(), 1));
  ASSERT_OK_AND_ASSIGN(XlaComputation inc, ib->Build());
  std::unique_ptr<XlaBuilder> slow = b.CreateSubBuilder("slow");
  While(cond, inc, Parameter(slow.get(), 0, Scalar(S32), "start"));
  ASSERT_OK_AND_ASSIGN(XlaComputation slow_c, slow->Build());
  std::unique_ptr<XlaBuilder> fast = b.CreateSubBuilder("fast");
  Neg(Parameter(fast.get(), 0, Scalar(S32), "x"));
  ASSERT_OK_AND_ASSIGN(XlaComputation fast_c, fast->Build());
  XlaOp r = Conditional(ConstantR0<bool>(&b, false), ConstantR0<int32_t>(&b, 0), slow_c, ConstantR0<int32_t>(&b, 7),
                        fast_c);
  ASSERT_OK_AND_ASSIGN(XlaComputation constant, b.BuildConstantSubGraph(r));
  ASSERT_OK_AND_ASSIGN(Literal value, client()->ComputeConstant(constant));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR0<int32_t>(-7), value));
}

TEST_P(ReduceControlTest, DotHalfPrecisionTypes) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  Dot(AddParam(&b, Literal::CreateR2<half>({{half(1.0f), half(2.0f)}, {half(0.5f), half(-1.0f)}}), &args),
      AddParam(&b, Literal::CreateR1<half>({half(4.0f), half(0.25f)}), &args));
  ComputeAndCompareR1<half>(&b, {half(4.5f), half(1.75f)}, args);
  XlaBuilder b2(TestName() + "_bf16");
  std::vector<Literal> args2;
  Dot(AddParam(&b2, Literal::CreateR1<bfloat16>({bfloat16(1.5f), bfloat16(2.0f), bfloat16(-1.0f)}), &args2),
      AddParam(&b2, Literal::CreateR1<bfloat16>({bfloat16(2.0f), bfloat16(0.5f), bfloat16(3.0f)}), &args2));
  ComputeAndCompareR0<bfloat16>(&b2, bfloat16(1.0f), args2);
}

// --- ComputeConstant and other client API -----------------------------------------------------------

TEST_P(ReduceControlTest, ComputeConstant) {
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, Scalar(F32), "x");
  XlaOp c = Add(ConstantR0<int32_t>(&b, 2), ConstantR0<int32_t>(&b, 3));
  XlaOp sum = ReduceAll(Iota(&b, S32, 5), ConstantR0<int32_t>(&b, 0), AddReducer(&b, S32));
  XlaOp m = Transpose(Reshape(Iota(&b, F32, 6), {2, 3}), {1, 0});
  Add(x, ConvertElementType(c, F32));  // The rest of the graph uses the parameter.

  ASSERT_OK_AND_ASSIGN(XlaComputation cc, b.BuildConstantSubGraph(c));
  ASSERT_OK_AND_ASSIGN(Literal cv, client()->ComputeConstant(cc));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR0<int32_t>(5), cv));

  ASSERT_OK_AND_ASSIGN(XlaComputation sc, b.BuildConstantSubGraph(sum));
  ASSERT_OK_AND_ASSIGN(Literal sv, client()->ComputeConstant(sc));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR0<int32_t>(10), sv));

  ASSERT_OK_AND_ASSIGN(XlaComputation mc, b.BuildConstantSubGraph(m));
  ASSERT_OK_AND_ASSIGN(Literal mv, client()->ComputeConstant(mc));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR2<float>({{0, 3}, {1, 4}, {2, 5}}), mv));
  // With an output layout (column-major).
  Layout col_major({0, 1});
  ASSERT_OK_AND_ASSIGN(Literal mv_col, client()->ComputeConstant(mc, &col_major));
  EXPECT_EQ(mv_col.shape().layout(), col_major);
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR2<float>({{0, 3}, {1, 4}, {2, 5}}), mv_col));

  // A value that depends on a parameter is not a constant.
  absl::StatusOr<XlaComputation> bad = b.BuildConstantSubGraph(Add(x, x));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("parameter"), std::string::npos) << bad.status();
}

TEST_P(ReduceControlTest, ComputationShapeAndCompilationCache) {
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
  XlaOp y = Parameter(&b, 1, Scalar(S32), "y");
  Tuple(&b, {Reduce(x, ConstantR0<float>(&b, 0), AddReducer(&b, F32), {1}), y});
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  ASSERT_OK_AND_ASSIGN(ProgramShape ps, client()->GetComputationShape(c));
  ASSERT_EQ(ps.parameters().size(), 2u);
  EXPECT_EQ(ps.parameters()[0].ToString(), "f32[2,3]");
  EXPECT_EQ(ps.parameters()[1].ToString(), "s32[]");
  EXPECT_EQ(ps.result().ToString(), "(f32[2], s32[])");

  bool hit = true;
  ASSERT_OK_AND_ASSIGN(ExecutionHandle h1, client()->Compile(c, {}, nullptr, &hit));
  // A fresh service may or may not have seen this module before (other
  // tests); the second compile of the same module must hit.
  ASSERT_OK_AND_ASSIGN(ExecutionHandle h2, client()->Compile(c, {}, nullptr, &hit));
  EXPECT_TRUE(hit);
  EXPECT_NE(h1.handle(), h2.handle());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> xd,
                       client()->TransferToServer(Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}})));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> yd, client()->TransferToServer(Literal::CreateR0<int32_t>(9)));
  // The same executable runs many times on the same handles.
  for (int i = 0; i < 3; ++i) {
    ExecutionProfile profile;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> r, client()->Execute(h1, {xd.get(), yd.get()}, &profile));
    ASSERT_OK_AND_ASSIGN(Literal rv, client()->TransferToClient(*r));
    EXPECT_OK(test::ExactlyEqual(TupleOf(Literal::CreateR1<float>({6, 15}), Literal::CreateR0<int32_t>(9)), rv));
  }
  EXPECT_OK(client()->UnregisterExecutable(h1));
  EXPECT_OK(client()->UnregisterExecutable(h2));
}

// A program compiled once is compiled again by its digest alone
// (CompileRequest.program_digest): the service answers from its cache
// without the module, and asks for the program when it cannot.
TEST_P(ReduceControlTest, CompileByProgramDigest) {
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
  Reduce(Mul(x, x), ConstantR0<float>(&b, 0), AddReducer(&b, F32), {1});
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  EXPECT_TRUE(c.KnownProgramDigest().empty());
  ASSERT_OK_AND_ASSIGN(ExecutionHandle first, client()->Compile(c));
  const std::string digest = c.KnownProgramDigest();
  ASSERT_EQ(digest.size(), kProgramDigestBytes);
  EXPECT_EQ(digest, ProgramDigest(c.proto()));
  // A copy keeps it; a change through mutable_proto() forgets it.
  XlaComputation copy = c;
  EXPECT_EQ(copy.KnownProgramDigest(), digest);
  copy.mutable_proto()->set_name("renamed");
  EXPECT_TRUE(copy.KnownProgramDigest().empty());

  ServiceInterface* service = client()->service();
  CompileRequest by_digest;
  by_digest.set_program_digest(digest);
  CompileResponse response;
  ASSERT_OK(service->Compile(by_digest, &response));
  EXPECT_FALSE(response.program_needed());
  EXPECT_TRUE(response.compilation_cache_hit());
  ASSERT_TRUE(response.has_handle());
  EXPECT_NE(response.handle().handle(), first.handle());
  ASSERT_OK_AND_ASSIGN(ProgramShape expected_shape, c.GetProgramShape());
  ASSERT_OK_AND_ASSIGN(ProgramShape shape, ShapeUtil::ProgramShapeFromProto(response.program_shape()));
  EXPECT_EQ(shape.ToString(), expected_shape.ToString());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> xd,
                       client()->TransferToServer(Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}})));
  for (const ExecutionHandle& h : {first, response.handle()}) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> r, client()->Execute(h, {xd.get()}));
    ASSERT_OK_AND_ASSIGN(Literal rv, client()->TransferToClient(*r));
    EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({14, 77}), rv));
    EXPECT_OK(client()->UnregisterExecutable(h));
  }

  // Other options are another executable: the service asks for the program.
  CompileRequest seeded = by_digest;
  seeded.mutable_execution_options()->set_seed(7);
  response.Clear();
  ASSERT_OK(service->Compile(seeded, &response));
  EXPECT_TRUE(response.program_needed());
  EXPECT_FALSE(response.has_handle());
  // So does a digest it never returned.
  CompileRequest unknown;
  unknown.set_program_digest(std::string(kProgramDigestBytes, '\x5a'));
  response.Clear();
  ASSERT_OK(service->Compile(unknown, &response));
  EXPECT_TRUE(response.program_needed());
  // The client library does that exchange itself.
  ExecutionOptions options;
  options.set_seed(7);
  bool hit = true;
  ASSERT_OK_AND_ASSIGN(ExecutionHandle seeded_handle, client()->Compile(c, {}, &options, &hit));
  EXPECT_OK(client()->UnregisterExecutable(seeded_handle));
  ASSERT_OK_AND_ASSIGN(seeded_handle, client()->Compile(c, {}, &options, &hit));
  EXPECT_TRUE(hit);
  EXPECT_OK(client()->UnregisterExecutable(seeded_handle));

  // Malformed requests.
  CompileRequest short_digest;
  short_digest.set_program_digest("abc");
  absl::Status status = service->Compile(short_digest, &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("program_digest has 3 bytes"), std::string::npos) << status;
  CompileRequest both = by_digest;
  *both.mutable_computation() = c.proto();
  status = service->Compile(both, &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("not both"), std::string::npos) << status;
}

XLA_CLIENT_TEST_P(ReduceControlTest);

}  // namespace
}  // namespace xla
