// RngUniform/RngNormal through the client API on every backend: the
// ExecutionOptions seed reproduces and selects the numbers, and every
// backend gives the values the reference evaluator gives for that seed.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/client_test_base.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

using test::ClientTest;

class RngTest : public ClientTest {};

TEST_P(RngTest, ExecutionSeedReproducesAndMatchesTheEvaluator) {
  XlaBuilder b(TestName());
  XlaOp u = RngUniform(ConstantR0<float>(&b, -1), ConstantR0<float>(&b, 1), ShapeUtil::MakeShape(F32, {5, 7}));
  XlaOp n = RngNormal(ConstantR0<double>(&b, 2), ConstantR0<double>(&b, 3), ShapeUtil::MakeShape(F64, {9}));
  XlaOp i = RngUniform(ConstantR0<int32_t>(&b, 0), ConstantR0<int32_t>(&b, 100), ShapeUtil::MakeShape(S32, {11}));
  Tuple(&b, {u, n, i});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  auto run = [&](uint64_t seed) {
    ExecutionOptions options;
    options.set_seed(seed);
    return client()->ExecuteAndTransfer(computation, {}, &options);
  };
  ASSERT_OK_AND_ASSIGN(Literal first, run(5));
  ASSERT_OK_AND_ASSIGN(Literal again, run(5));
  ASSERT_OK_AND_ASSIGN(Literal other, run(6));
  EXPECT_EQ(first, again);
  EXPECT_NE(first.tuple_elements()[0], other.tuple_elements()[0]);
  EXPECT_NE(first.tuple_elements()[1], other.tuple_elements()[1]);
  // The evaluator on the module with rng_seed=5 gives the same bits.
  XlaComputation seeded = computation;
  (*seeded.mutable_proto()->mutable_attributes())["rng_seed"] = "5";
  ASSERT_OK_AND_ASSIGN(Literal reference, test::EvaluateWithReference(seeded, {}));
  EXPECT_EQ(first, reference);
  for (float v : first.tuple_elements()[0].data<float>()) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
  }
}

// The seed reaches modules sent as HLO text too: the service stamps it.
TEST_P(RngTest, ExecutionSeedKeysHloText) {
  const std::string text = R"(
HloModule rng_text
ENTRY %main () -> f32[16] {
  %a = f32[] constant(0)
  %b = f32[] constant(1)
  ROOT %r = f32[16] rng(%a, %b), distribution=rng_uniform
})";
  auto run = [&](uint64_t seed) -> absl::StatusOr<Literal> {
    ExecutionOptions options;
    options.set_seed(seed);
    ASSIGN_OR_RETURN(ExecutionHandle handle, client()->CompileHloText(text, &options));
    ASSIGN_OR_RETURN(std::unique_ptr<GlobalData> result, client()->Execute(handle, {}));
    return client()->TransferToClient(*result);
  };
  ASSERT_OK_AND_ASSIGN(Literal first, run(5));
  ASSERT_OK_AND_ASSIGN(Literal again, run(5));
  ASSERT_OK_AND_ASSIGN(Literal other, run(6));
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
}

XLA_CLIENT_TEST_P(RngTest);

}  // namespace
}  // namespace xla
