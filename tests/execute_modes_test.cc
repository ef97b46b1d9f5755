// Execute's other modes through the client API, on every backend of
// TestBackends() (in process, and a real daemon over gRPC):
//   - ExecuteAndTransfer in one request (ExecuteRequest.transfer_result):
//     small results come back in the response with no handle made, large
//     ones as a handle the client fetches and releases, in the requested
//     output layout either way;
//   - ExecuteAsync / WaitForExecution: the call returns while the run waits
//     for its infeed, a wait with a timeout gives DEADLINE_EXCEEDED and
//     leaves the run going, a handle is consumed by the wait that gets the
//     result, argument errors come from ExecuteAsync itself, and the
//     per-session bound holds.
// ClientTest's TearDown checks that no buffer is left on the service.
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/client_test_base.h"

namespace xla {
namespace {

using test::ClientTest;
using test::ExactlyEqual;

class ExecuteModesTest : public ClientTest {
 protected:
  // x * 2 + 1 over f32[rows, cols].
  static XlaComputation ScaleShift(int64_t rows, int64_t cols) {
    XlaBuilder b("scale_shift");
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {rows, cols}), "x");
    Add(Mul(x, ConstantR0<float>(&b, 2.0f)), ConstantR0<float>(&b, 1.0f));
    return b.Build().value();
  }
  static Literal ScaleShiftOf(const Literal& x) {
    Literal out = x;
    for (float& v : out.data<float>()) v = v * 2.0f + 1.0f;
    return out;
  }
  // Reads f32[2] from the infeed and returns it plus `p0`.
  static XlaComputation InfeedPlusParameter() {
    XlaBuilder b("infeed_plus_parameter");
    const Shape shape = ShapeUtil::MakeShape(F32, {2});
    XlaOp p = Parameter(&b, 0, shape, "p");
    XlaOp in = InfeedWithToken(CreateToken(&b), shape);
    Add(GetTupleElement(in, 0), p);
    return b.Build().value();
  }
  int64_t AsyncExecutions() {
    absl::StatusOr<GetServiceInfoResponse> info = client()->GetServiceInfo();
    EXPECT_TRUE(info.ok()) << info.status();
    return info.ok() ? info->async_executions() : -1;
  }
};

TEST_P(ExecuteModesTest, ExecuteAndTransferByHandleLeavesNoHandle) {
  std::mt19937 rng(7);
  Literal x = test::RandomLiteral(ShapeUtil::MakeShape(F32, {4, 8}), rng, -4, 4);
  ASSERT_OK_AND_ASSIGN(ExecutionHandle exe, client()->Compile(ScaleShift(4, 8)));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> arg, client()->TransferToServer(x));
  const int64_t live = LiveBuffers();
  ExecutionProfile profile;
  ASSERT_OK_AND_ASSIGN(Literal out, client()->ExecuteAndTransfer(exe, {arg.get()}, &profile));
  EXPECT_OK(ExactlyEqual(ScaleShiftOf(x), out));
  EXPECT_TRUE(profile.compilation_cache_hit());
  // The result never became a buffer on the service.
  EXPECT_EQ(LiveBuffers(), live);
  ASSERT_OK(client()->UnregisterExecutable(exe));
}

TEST_P(ExecuteModesTest, ExecuteAndTransferOfALargeResultFetchesAndReleasesIt) {
  // 512 x 1024 f32 is 2 MiB, over the 1 MiB carried in a response.
  std::mt19937 rng(8);
  Literal x = test::RandomLiteral(ShapeUtil::MakeShape(F32, {512, 1024}), rng, -4, 4);
  ASSERT_OK_AND_ASSIGN(ExecutionHandle exe, client()->Compile(ScaleShift(512, 1024)));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> arg, client()->TransferToServer(x));
  const int64_t live = LiveBuffers();
  ASSERT_OK_AND_ASSIGN(Literal out, client()->ExecuteAndTransfer(exe, {arg.get()}));
  EXPECT_OK(ExactlyEqual(ScaleShiftOf(x), out));
  EXPECT_EQ(LiveBuffers(), live);
  ASSERT_OK(client()->UnregisterExecutable(exe));
}

TEST_P(ExecuteModesTest, ExecuteAndTransferOfAComputationInTheRequestedLayout) {
  for (int64_t cols : {3, 600}) {  // 3 x 600 x 4 bytes is 7 KiB; 600 x 600 x 4 is 1.4 MiB
    SCOPED_TRACE(cols);
    std::mt19937 rng(9);
    Literal x = test::RandomLiteral(ShapeUtil::MakeShape(F32, {600, cols}), rng, -4, 4);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> arg, client()->TransferToServer(x));
    ExecutionOptions options;
    *options.mutable_shape_with_output_layout() = ShapeUtil::MakeShapeWithLayout(F32, {600, cols}, {0, 1}).ToProto();
    ASSERT_OK_AND_ASSIGN(Literal out, client()->ExecuteAndTransfer(ScaleShift(600, cols), {arg.get()}, &options));
    EXPECT_EQ(out.shape().layout().minor_to_major(), (std::vector<int64_t>{0, 1}));
    EXPECT_OK(ExactlyEqual(ScaleShiftOf(x).RelayoutTo(out.shape()), out));
  }
}

TEST_P(ExecuteModesTest, ExecuteAndTransferOfATuple) {
  XlaBuilder b("pair");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(S32, {3}), "x");
  Tuple(&b, {Add(x, x), ConstantR0<float>(&b, 2.5f)});
  ASSERT_OK_AND_ASSIGN(XlaComputation computation, b.Build());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> arg, client()->TransferToServer(Literal::CreateR1<int32_t>({1, -2, 3})));
  const int64_t live = LiveBuffers();
  ASSERT_OK_AND_ASSIGN(Literal out, client()->ExecuteAndTransfer(computation, {arg.get()}));
  EXPECT_OK(ExactlyEqual(test::L("(s32[3] {2, -4, 6}, f32[] 2.5)"), out));
  EXPECT_EQ(LiveBuffers(), live);
}

TEST_P(ExecuteModesTest, AsyncRunReturnsWhileItWaitsForItsInfeed) {
  ASSERT_OK_AND_ASSIGN(ExecutionHandle exe, client()->Compile(InfeedPlusParameter()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> p, client()->TransferToServer(Literal::CreateR1<float>({10, 20})));
  // The run cannot finish before the infeed below: ExecuteAsync returning
  // at all shows it does not wait for the run.
  ASSERT_OK_AND_ASSIGN(AsyncExecutionHandle execution, client()->ExecuteAsync(exe, {p.get()}));
  EXPECT_EQ(AsyncExecutions(), 1);
  absl::StatusOr<std::unique_ptr<GlobalData>> early = client()->WaitForExecution(execution, absl::Milliseconds(50));
  EXPECT_EQ(early.status().code(), absl::StatusCode::kDeadlineExceeded) << early.status();
  ASSERT_OK(client()->TransferToInfeed(Literal::CreateR1<float>({1, 2})));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> out, client()->WaitForExecution(execution));
  ASSERT_OK_AND_ASSIGN(Literal value, client()->TransferToClient(*out));
  EXPECT_OK(ExactlyEqual(Literal::CreateR1<float>({11, 22}), value));
  EXPECT_EQ(AsyncExecutions(), 0);
  // Consumed by the wait that got it.
  absl::StatusOr<std::unique_ptr<GlobalData>> again = client()->WaitForExecution(execution);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kNotFound) << again.status();
  ASSERT_OK(client()->UnregisterExecutable(exe));
}

TEST_P(ExecuteModesTest, SeveralAsyncRunsWaitedForInAnyOrder) {
  ASSERT_OK_AND_ASSIGN(ExecutionHandle exe, client()->Compile(ScaleShift(2, 3)));
  std::vector<Literal> inputs;
  std::vector<std::unique_ptr<GlobalData>> args;
  std::vector<AsyncExecutionHandle> runs;
  for (int i = 0; i < 4; ++i) {
    inputs.push_back(Literal::CreateR2<float>({{1.0f * i, 2, 3}, {4, 5, -1.0f * i}}));
    ASSERT_OK_AND_ASSIGN(args.emplace_back(), client()->TransferToServer(inputs.back()));
    ASSERT_OK_AND_ASSIGN(runs.emplace_back(), client()->ExecuteAsync(exe, {args.back().get()}));
  }
  for (int i = 3; i >= 0; --i) {
    ExecutionProfile profile;
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> out, client()->WaitForExecution(runs[i], absl::ZeroDuration(), &profile));
    ASSERT_OK_AND_ASSIGN(Literal value, client()->TransferToClient(*out));
    SCOPED_TRACE(i);
    EXPECT_OK(ExactlyEqual(ScaleShiftOf(inputs[i]), value));
    EXPECT_GT(profile.compute_time_ns(), 0);
  }
  EXPECT_EQ(AsyncExecutions(), 0);
  ASSERT_OK(client()->UnregisterExecutable(exe));
}

TEST_P(ExecuteModesTest, AsyncArgumentErrorsComeFromExecuteAsync) {
  ASSERT_OK_AND_ASSIGN(ExecutionHandle exe, client()->Compile(ScaleShift(2, 3)));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> wrong, client()->TransferToServer(Literal::CreateR1<float>({1, 2})));
  absl::StatusOr<AsyncExecutionHandle> bad_shape = client()->ExecuteAsync(exe, {wrong.get()});
  EXPECT_EQ(bad_shape.status().code(), absl::StatusCode::kInvalidArgument) << bad_shape.status();
  EXPECT_TRUE(absl::StrContains(bad_shape.status().message(), "argument 0")) << bad_shape.status();
  absl::StatusOr<AsyncExecutionHandle> no_args = client()->ExecuteAsync(exe, {});
  EXPECT_EQ(no_args.status().code(), absl::StatusCode::kInvalidArgument) << no_args.status();
  ExecutionHandle forged;
  forged.set_handle(987654);
  absl::StatusOr<AsyncExecutionHandle> unknown = client()->ExecuteAsync(forged, {});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound) << unknown.status();
  AsyncExecutionHandle never;
  never.set_handle(123456);
  absl::StatusOr<std::unique_ptr<GlobalData>> wait = client()->WaitForExecution(never);
  EXPECT_EQ(wait.status().code(), absl::StatusCode::kNotFound) << wait.status();
  absl::StatusOr<std::unique_ptr<GlobalData>> negative = client()->WaitForExecution(never, absl::Milliseconds(-5));
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument) << negative.status();
  EXPECT_EQ(AsyncExecutions(), 0);
  ASSERT_OK(client()->UnregisterExecutable(exe));
}

TEST_P(ExecuteModesTest, AsyncRunsPerSessionAreBounded) {
  // 16 runs wait for their infeed; the 17th is refused, not queued.
  ASSERT_OK_AND_ASSIGN(ExecutionHandle exe, client()->Compile(InfeedPlusParameter()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> p, client()->TransferToServer(Literal::CreateR1<float>({0, 0})));
  std::vector<AsyncExecutionHandle> runs;
  for (int i = 0; i < 16; ++i) {
    ASSERT_OK_AND_ASSIGN(runs.emplace_back(), client()->ExecuteAsync(exe, {p.get()}));
  }
  absl::StatusOr<AsyncExecutionHandle> refused = client()->ExecuteAsync(exe, {p.get()});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "WaitForExecution")) << refused.status();
  // Each run takes one value, in some order: every value comes back once.
  for (int i = 0; i < 16; ++i) ASSERT_OK(client()->TransferToInfeed(Literal::CreateR1<float>({1.0f * i, 0})));
  std::vector<bool> seen(16, false);
  for (const AsyncExecutionHandle& run : runs) {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> out, client()->WaitForExecution(run));
    ASSERT_OK_AND_ASSIGN(Literal value, client()->TransferToClient(*out));
    const int i = static_cast<int>(value.data<float>()[0]);
    ASSERT_TRUE(i >= 0 && i < 16 && !seen[i]) << value.ToString();
    seen[i] = true;
  }
  EXPECT_EQ(AsyncExecutions(), 0);
  ASSERT_OK(client()->UnregisterExecutable(exe));
}

XLA_CLIENT_TEST_P(ExecuteModesTest);

}  // namespace
}  // namespace xla
