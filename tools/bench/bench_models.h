// What the benchmarks and demos share: random f32 literals, scalar reducer
// computations, and the MLP training step (forward, hand-written backward
// and SGD update as one computation), single-process or data-parallel.
#ifndef TOOLS_BENCH_BENCH_MODELS_H_
#define TOOLS_BENCH_BENCH_MODELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/xla_builder.h"
#include "xla/literal.h"

namespace xla {
namespace bench {

// Uniform in [lo, hi), from `seed`.
Literal RandomLiteral(const Shape& shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

// op(a, b) on f32 scalars, as a sub-computation of `parent`.
absl::StatusOr<XlaComputation> ScalarComputation(XlaBuilder* parent, const std::string& name,
                                                 XlaOp (*op)(XlaOp, XlaOp, absl::Span<const int64_t>));

struct MlpDims {
  int64_t batch, in, h1, h2, out;  // batch: per replica
};

// Parameters: x[B,in], y[B,out] (one-hot), w1, b1, w2, b2, w3, b3. Returns
// (w1', b1', w2', b2', w3', b3', loss), loss = mean cross-entropy. With
// `replicas` > 1 it is one replica's step of data-parallel training over
// replicas * B examples: the gradients and the loss are averaged over the
// replicas (cross-replica sums), so every replica computes the same update.
absl::StatusOr<XlaComputation> BuildMlpStep(const MlpDims& d, float lr, int64_t replicas = 1);

// Inputs in parameter order: x, one-hot y, w1, b1, w2, b2, w3, b3.
std::vector<Literal> MlpInputs(const MlpDims& d, uint32_t seed);

}  // namespace bench
}  // namespace xla

#endif  // TOOLS_BENCH_BENCH_MODELS_H_
