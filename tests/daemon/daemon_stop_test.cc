// The daemon bounds the work one request can make it do (issue 17): a run
// without a While stops within a second of --max_run_seconds and of its
// client's deadline, a compile stops at --max_compile_seconds and at its
// client's deadline, and SIGTERM ends the daemon within 5 s while such work
// runs. After each stop the daemon keeps serving.
#include <chrono>
#include <functional>
#include <limits>
#include <regex>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "client/grpc_client.h"
#include "grpcpp/grpcpp.h"
#include "proto/xla_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/daemon_process.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

using Clock = std::chrono::steady_clock;

// About 6e11 additions: minutes of work on any host, with no While.
constexpr char kBigReduceWindow[] = R"(HloModule big_window
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2048,2048] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[1537,1537] reduce-window(x, zero), window={size=512x512}, to_apply=add
}
)";

// `depth` Whiles nested in each other's bodies (each runs once): its
// compile time grows with the square of the depth (the while simplifier
// inlines them one by one), tens of seconds at 300.
// The runaway compile of these tests: 600 nested one-trip loops take about
// 4 s to compile in fastbuild on a 2-core Zen 4 (the passes are linear in
// the nesting now; 1,000 took minutes when they were quadratic). A compile
// stops between passes, so it ends within the longest pass (under a second
// here) after its deadline.
constexpr int kRunawayDepth = 600;

// Sanitizer builds (tools/xla test --asan) run every pass several times
// slower, so the longest one between two stop checks takes longer.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XLA_TEST_SANITIZED 1
#endif
#endif
#ifdef XLA_TEST_SANITIZED
constexpr int kSlowdown = 4;
#else
constexpr int kSlowdown = 1;
#endif

std::string NestedWhiles(int depth) {
  std::string text = "HloModule nested_whiles\n";
  for (int k = 0; k < depth; ++k) {
    absl::StrAppend(&text, "cond", k, " {\n  p = (s32[], f32[4]) parameter(0)\n",
                    "  i = s32[] get-tuple-element(p), index=0\n  one = s32[] constant(1)\n",
                    "  ROOT c = pred[] compare(i, one), direction=LT\n}\n");
    absl::StrAppend(&text, "body", k, " {\n  p = (s32[], f32[4]) parameter(0)\n",
                    "  i = s32[] get-tuple-element(p), index=0\n  v = f32[4] get-tuple-element(p), index=1\n",
                    "  zero = s32[] constant(0)\n  t0 = (s32[], f32[4]) tuple(zero, v)\n");
    if (k > 0) {
      absl::StrAppend(&text, "  w = (s32[], f32[4]) while(t0), condition=cond", k - 1, ", body=body", k - 1,
                      "\n  inner = f32[4] get-tuple-element(w), index=1\n");
    } else {
      absl::StrAppend(&text, "  inner = f32[4] negate(v)\n");
    }
    absl::StrAppend(&text, "  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n  n = f32[4] negate(inner)\n",
                    "  ROOT r = (s32[], f32[4]) tuple(i1, n)\n}\n");
  }
  absl::StrAppend(&text, "ENTRY e {\n  x = f32[4] parameter(0)\n  zero = s32[] constant(0)\n",
                  "  t = (s32[], f32[4]) tuple(zero, x)\n  w = (s32[], f32[4]) while(t), condition=cond", depth - 1,
                  ", body=body", depth - 1, "\n  ROOT r = f32[4] get-tuple-element(w), index=1\n}\n");
  return text;
}

// The duration the daemon logged for the first call of `method` (it logs a
// call when its handler returns), waiting up to 60 s for the line.
double LoggedMilliseconds(const DaemonProcess& daemon, const std::string& method, std::string* status) {
  const std::regex line("method=" + method + " session=\\S+ bytes=\\d+ ms=([0-9.]+) status=(\\w+)");
  const auto start = Clock::now();
  while (Clock::now() - start < std::chrono::seconds(60)) {
    std::smatch match;
    const std::string log = daemon.Log();
    if (std::regex_search(log, match, line)) {
      *status = match[2];
      return std::stod(match[1]);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  *status = "never logged";
  return -1;
}

void ExpectServing(GrpcClient& client) {
  auto small = client.TransferToServer(Literal::CreateR1<float>({1, 2, 3}));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(client.TransferToClient(**small).value(), Literal::CreateR1<float>({1, 2, 3}));
}

TEST(DaemonStopTest, ARunWithoutAWhileStopsWithinASecondOfMaxRunSeconds) {
  auto daemon = DaemonProcess::Start({"--max_run_seconds=1"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  auto executable = client->CompileHloText(kBigReduceWindow);
  ASSERT_TRUE(executable.ok()) << executable.status();
  auto arg = client->TransferToServer(Literal(ShapeUtil::MakeShape(F32, {2048, 2048})));
  ASSERT_TRUE(arg.ok()) << arg.status();
  const auto start = Clock::now();
  auto run = client->Execute(*executable, {arg->get()});
  const auto took = Clock::now() - start;
  EXPECT_EQ(run.status().code(), absl::StatusCode::kDeadlineExceeded) << run.status();
  EXPECT_LT(took, std::chrono::seconds(2)) << std::chrono::duration<double>(took).count() << " s";
  ExpectServing(*client);
  // The run's reservation is released: nothing but the two buffers is held.
  EXPECT_LT(client->GetServiceInfo().value().bytes_in_use(), (int64_t{2048} * 2048 * 4) + (1 << 20));
}

// A raw call in `client`'s session with its own deadline (the client's
// other calls have none).
grpc::Status CallWithDeadline(const DaemonProcess& daemon, const GrpcClient& client, absl::Duration deadline,
                              const std::function<grpc::Status(XlaService::Stub&, grpc::ClientContext*)>& call) {
  auto channel = grpc::CreateChannel(daemon.target(), grpc::InsecureChannelCredentials());
  auto stub = XlaService::NewStub(channel);
  grpc::ClientContext context;
  context.AddMetadata("xla-session", client.session_id());
  context.set_deadline(std::chrono::system_clock::now() + absl::ToChronoMilliseconds(deadline));
  return call(*stub, &context);
}

// A run of kBigReduceWindow compiled in `client`'s session; its argument
// is held in *arg.
ExecuteRequest BigWindowRun(GrpcClient& client, std::unique_ptr<GlobalData>* arg) {
  ExecuteRequest request;
  *request.mutable_handle() = client.CompileHloText(kBigReduceWindow).value();
  *arg = client.TransferToServer(Literal(ShapeUtil::MakeShape(F32, {2048, 2048}))).value();
  *request.add_arguments() = (*arg)->handle();
  return request;
}

TEST(DaemonStopTest, ARunWithoutAWhileStopsWithinASecondOfItsClientsDeadline) {
  auto daemon = DaemonProcess::Start({"--max_run_seconds=300"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  std::unique_ptr<GlobalData> arg;
  const ExecuteRequest request = BigWindowRun(*client, &arg);
  grpc::Status status = CallWithDeadline(*daemon, *client, absl::Seconds(1), [&](auto& stub, auto* context) {
    ExecuteResponse response;
    return stub.Execute(context, request, &response);
  });
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  // The daemon logs the call when the run has really stopped: within a
  // second of the client's deadline, not at the operator's 300 s.
  std::string logged;
  const double ms = LoggedMilliseconds(*daemon, "Execute", &logged);
  EXPECT_GT(ms, 0) << daemon->Log();
  EXPECT_LT(ms, 2000) << daemon->Log();
  EXPECT_THAT(logged, ::testing::AnyOf("DEADLINE_EXCEEDED", "CANCELLED"));
  ExpectServing(*client);
}

TEST(DaemonStopTest, ARunawayCompileStopsAtMaxCompileSeconds) {
  auto daemon = DaemonProcess::Start({"--max_compile_seconds=1"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  const auto start = Clock::now();
  auto executable = client->CompileHloText(NestedWhiles(kRunawayDepth));
  const auto took = Clock::now() - start;
  EXPECT_EQ(executable.status().code(), absl::StatusCode::kDeadlineExceeded) << executable.status();
  EXPECT_THAT(std::string(executable.status().message()), ::testing::HasSubstr("--max_compile_seconds=1"));
  // Parsing and verifying the 1,200 computations come first (about half a
  // second); the compile then stops at its next check, between passes.
  EXPECT_LT(took, kSlowdown * std::chrono::milliseconds(3500)) << std::chrono::duration<double>(took).count() << " s";
  // Small programs still compile, in the same session.
  auto small = client->CompileHloText(NestedWhiles(3));
  ASSERT_TRUE(small.ok()) << small.status();
  ExpectServing(*client);
}

TEST(DaemonStopTest, ACompileStopsAtItsClientsDeadline) {
  auto daemon = DaemonProcess::Start({"--max_compile_seconds=300"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  CompileRequest request;
  request.set_hlo_text(NestedWhiles(kRunawayDepth));
  grpc::Status status = CallWithDeadline(*daemon, *client, absl::Seconds(1), [&](auto& stub, auto* context) {
    CompileResponse response;
    return stub.Compile(context, request, &response);
  });
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  std::string logged;
  const double ms = LoggedMilliseconds(*daemon, "Compile", &logged);
  EXPECT_GT(ms, 0) << daemon->Log();
  EXPECT_LT(ms, kSlowdown * 3500) << daemon->Log();
  ExpectServing(*client);
}

// Found by the service_request fuzzer: an outfeed wait the request asks for
// (timeout_ms = 2^63 - 1) held a worker for good; --max_run_seconds bounds it.
TEST(DaemonStopTest, ARequestedOutfeedWaitEndsAtMaxRunSeconds) {
  auto daemon = DaemonProcess::Start({"--max_run_seconds=1"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  TransferFromOutfeedRequest request;
  request.set_timeout_ms(std::numeric_limits<int64_t>::max());
  TransferFromOutfeedResponse response;
  const auto start = Clock::now();
  absl::Status status = client->service()->TransferFromOutfeed(request, &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
  ExpectServing(*client);
}

// Calls `method` in `client`'s session through a stub of its own and
// cancels it half a second in: the call ends CANCELLED, and the daemon logs
// it so within 2 s (the work stopped, not ran to its bound).
template <typename Request, typename Response>
void ExpectCancelStops(const DaemonProcess& daemon, const GrpcClient& client, const std::string& method,
                       grpc::Status (XlaService::Stub::*call)(grpc::ClientContext*, const Request&, Response*),
                       const Request& request) {
  auto stub = XlaService::NewStub(grpc::CreateChannel(daemon.target(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.AddMetadata("xla-session", client.session_id());
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    context.TryCancel();
  });
  Response response;
  grpc::Status status = ((*stub).*call)(&context, request, &response);
  canceller.join();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED) << status.error_message();
  std::string logged;
  const double ms = LoggedMilliseconds(daemon, method, &logged);
  EXPECT_GT(ms, 0) << daemon.Log();
  EXPECT_LT(ms, 2000) << daemon.Log();
  EXPECT_EQ(logged, "CANCELLED") << daemon.Log();
}

// A client that cancels its outfeed wait frees the worker at once, not at
// the wait's bound (300 s here).
TEST(DaemonStopTest, AnOutfeedWaitEndsWhenItsClientCancels) {
  auto daemon = DaemonProcess::Start({"--max_run_seconds=300"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  TransferFromOutfeedRequest request;
  request.set_timeout_ms(300000);
  ExpectCancelStops(*daemon, *client, "TransferFromOutfeed", &XlaService::Stub::TransferFromOutfeed, request);
  ExpectServing(*client);
}

// Execute is served from a completion queue (service/async_unary_server.h),
// where a cancel is learnt from gRPC's done notification: the run stops
// when its client cancels.
TEST(DaemonStopTest, ARunStopsWhenItsClientCancels) {
  auto daemon = DaemonProcess::Start({"--max_run_seconds=300"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  std::unique_ptr<GlobalData> arg;
  const ExecuteRequest request = BigWindowRun(*client, &arg);
  ExpectCancelStops(*daemon, *client, "Execute", &XlaService::Stub::Execute, request);
  ExpectServing(*client);
  // The run's reservation is released: nothing but the two buffers is held.
  EXPECT_LT(client->GetServiceInfo().value().bytes_in_use(), (int64_t{2048} * 2048 * 4) + (1 << 20));
}

TEST(DaemonStopTest, SigtermEndsTheDaemonWithinFiveSecondsWhileWorkRuns) {
  auto daemon = DaemonProcess::Start({"--max_run_seconds=300", "--max_compile_seconds=300"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  auto window = client->CompileHloText(kBigReduceWindow);
  ASSERT_TRUE(window.ok()) << window.status();
  auto arg = client->TransferToServer(Literal(ShapeUtil::MakeShape(F32, {2048, 2048})));
  ASSERT_TRUE(arg.ok()) << arg.status();
  // Three clients keep the daemon busy: a long run, a long compile, and a
  // While that never ends.
  std::vector<std::thread> work;
  work.emplace_back([&] { (void)client->Execute(*window, {arg->get()}); });
  work.emplace_back([&] {
    auto other = GrpcClient::Connect(daemon->target()).value();
    (void)other->CompileHloText(NestedWhiles(kRunawayDepth));
  });
  work.emplace_back([&] {
    auto other = GrpcClient::Connect(daemon->target()).value();
    const std::string forever = R"(HloModule forever
cond {
  p = s64[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  p = s64[] parameter(0)
  one = s64[] constant(1)
  ROOT n = s64[] add(p, one)
}
ENTRY e {
  z = s64[] constant(0)
  ROOT w = s64[] while(z), condition=cond, body=body
}
)";
    auto loop = other->CompileHloText(forever);
    if (loop.ok()) (void)other->Execute(*loop, {});
  });
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ASSERT_TRUE(daemon->running());
  const auto start = Clock::now();
  const int exit_status = daemon->Stop();  // SIGTERM, then waits for the process
  const auto took = Clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds(5)) << std::chrono::duration<double>(took).count() << " s\n"
                                           << daemon->Log();
  EXPECT_EQ(exit_status, 0) << daemon->Log();
  for (std::thread& t : work) t.join();
}

}  // namespace
}  // namespace xla
