#include "tools/bench/bench_models.h"

#include <cmath>
#include <random>

#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace bench {

Literal RandomLiteral(const Shape& shape, uint32_t seed, float lo, float hi) {
  Literal literal(shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& v : literal.data<float>()) v = dist(rng);
  return literal;
}

absl::StatusOr<XlaComputation> ScalarComputation(XlaBuilder* parent, const std::string& name,
                                                 XlaOp (*op)(XlaOp, XlaOp, absl::Span<const int64_t>)) {
  auto sub = parent->CreateSubBuilder(name);
  Shape scalar = ShapeUtil::MakeShape(F32, {});
  op(Parameter(sub.get(), 0, scalar, "a"), Parameter(sub.get(), 1, scalar, "b"), {});
  return sub->Build();
}

absl::StatusOr<XlaComputation> BuildMlpStep(const MlpDims& d, float lr, int64_t replicas) {
  XlaBuilder b("mlp_train_step");
  ASSIGN_OR_RETURN(XlaComputation add, ScalarComputation(&b, "add", Add));
  ASSIGN_OR_RETURN(XlaComputation max, ScalarComputation(&b, "max", Max));
  auto f32 = [](std::vector<int64_t> dims) { return ShapeUtil::MakeShape(F32, dims); };
  XlaOp x = Parameter(&b, 0, f32({d.batch, d.in}), "x");
  XlaOp y = Parameter(&b, 1, f32({d.batch, d.out}), "y");
  XlaOp w1 = Parameter(&b, 2, f32({d.in, d.h1}), "w1"), b1 = Parameter(&b, 3, f32({d.h1}), "b1");
  XlaOp w2 = Parameter(&b, 4, f32({d.h1, d.h2}), "w2"), b2 = Parameter(&b, 5, f32({d.h2}), "b2");
  XlaOp w3 = Parameter(&b, 6, f32({d.h2, d.out}), "w3"), b3 = Parameter(&b, 7, f32({d.out}), "b3");
  XlaOp zero = ConstantR0<float>(&b, 0.0f);
  auto dot = [](XlaOp lhs, XlaOp rhs, int64_t lhs_contract, int64_t rhs_contract) {
    DotDimensionNumbers dnums;
    dnums.add_lhs_contracting_dimensions(lhs_contract);
    dnums.add_rhs_contracting_dimensions(rhs_contract);
    return DotGeneral(lhs, rhs, dnums);
  };
  auto sum_rows = [&](XlaOp v) { return Reduce(v, zero, add, {0}); };
  // Forward.
  XlaOp z1 = Add(dot(x, w1, 1, 0), b1, {1});
  XlaOp a1 = Max(z1, zero);
  XlaOp z2 = Add(dot(a1, w2, 1, 0), b2, {1});
  XlaOp a2 = Max(z2, zero);
  XlaOp logits = Add(dot(a2, w3, 1, 0), b3, {1});
  XlaOp shifted = Sub(logits, Reduce(logits, MinValue(&b, F32), max, {1}), {0});
  XlaOp exps = Exp(shifted);
  XlaOp sums = Reduce(exps, zero, add, {1});
  XlaOp log_probs = Sub(shifted, Log(sums), {0});
  const float inv_batch = 1.0f / d.batch;
  XlaOp loss = Mul(Neg(ReduceAll(Mul(y, log_probs), zero, add)), ConstantR0<float>(&b, inv_batch));
  // Backward: d(loss)/d(logits) = (softmax - y) / B.
  XlaOp g3 = Mul(Sub(Div(exps, sums, {0}), y), ConstantR0<float>(&b, inv_batch));
  XlaOp dw3 = dot(a2, g3, 0, 0), db3 = sum_rows(g3);
  XlaOp g2 = Select(Gt(z2, Broadcast(zero, {d.batch, d.h2})), dot(g3, w3, 1, 1), Broadcast(zero, {d.batch, d.h2}));
  XlaOp dw2 = dot(a1, g2, 0, 0), db2 = sum_rows(g2);
  XlaOp g1 = Select(Gt(z1, Broadcast(zero, {d.batch, d.h1})), dot(g2, w2, 1, 1), Broadcast(zero, {d.batch, d.h1}));
  XlaOp dw1 = dot(x, g1, 0, 0), db1 = sum_rows(g1);
  // Data-parallel: the mean over the replicas of their gradients (and loss).
  XlaOp inv_replicas = ConstantR0<float>(&b, 1.0f / replicas);
  auto averaged = [&](XlaOp v) { return replicas > 1 ? Mul(CrossReplicaSum(v), inv_replicas) : v; };
  loss = averaged(loss);
  // SGD update.
  XlaOp rate = ConstantR0<float>(&b, lr);
  auto step = [&](XlaOp w, XlaOp g) { return Sub(w, Mul(rate, averaged(g))); };
  Tuple(&b, {step(w1, dw1), step(b1, db1), step(w2, dw2), step(b2, db2), step(w3, dw3), step(b3, db3), loss});
  return b.Build();
}

std::vector<Literal> MlpInputs(const MlpDims& d, uint32_t seed) {
  std::vector<Literal> in;
  in.push_back(RandomLiteral(ShapeUtil::MakeShape(F32, {d.batch, d.in}), seed));
  Literal y(ShapeUtil::MakeShape(F32, {d.batch, d.out}));
  std::mt19937 rng(seed + 1);
  for (int64_t i = 0; i < d.batch; ++i) y.data<float>()[i * d.out + rng() % d.out] = 1.0f;
  in.push_back(std::move(y));
  const int64_t sizes[] = {d.in, d.h1, d.h2, d.out};
  for (int l = 0; l < 3; ++l) {
    float scale = 1.0f / std::sqrt(static_cast<float>(sizes[l]));
    in.push_back(RandomLiteral(ShapeUtil::MakeShape(F32, {sizes[l], sizes[l + 1]}), seed + 2 + 2 * l, -scale, scale));
    in.push_back(RandomLiteral(ShapeUtil::MakeShape(F32, {sizes[l + 1]}), seed + 3 + 2 * l, -0.1f, 0.1f));
  }
  return in;
}

}  // namespace bench
}  // namespace xla
