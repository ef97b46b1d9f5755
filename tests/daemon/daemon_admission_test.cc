// How the daemon admits calls (issue 17): 256 clients at the default flags
// all get answers (no "Server Threadpool Exhausted"), a full request queue
// is a clear RESOURCE_EXHAUSTED naming its limit, a body that does not
// parse is INVALID_ARGUMENT with a message, and the auth token is checked
// before any body is parsed. The daemon keeps serving after each.
#include <atomic>
#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/grpc_client.h"
#include "client/xla_builder.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "proto/xla_service.grpc.pb.h"
#include "gtest/gtest.h"
#include "tools/daemon_process.h"
#include "xla/shape_util.h"
// Last: it includes <resolv.h>, whose _res macro breaks Eigen's headers.
#include "httplib.h"

namespace xla {
namespace {

using ::testing::HasSubstr;

void ExpectServing(const DaemonProcess& daemon, const GrpcClientOptions& options = {}) {
  auto client = GrpcClient::Connect(daemon.target(), options);
  ASSERT_TRUE(client.ok()) << client.status();
  auto small = (*client)->TransferToServer(Literal::CreateR1<float>({1, 2, 3}));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ((*client)->TransferToClient(**small).value(), Literal::CreateR1<float>({1, 2, 3}));
}

TEST(DaemonAdmissionTest, BodiesThatDoNotParseAreInvalidArgumentWithAMessage) {
  auto daemon = DaemonProcess::Start().value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  const std::vector<std::pair<std::string, std::string>> session = {{"xla-session", client->session_id()}};
  const std::string garbage("\xff\xff\xff\xff\x0f\x12\x99", 7);
  for (const char* method : {"Compile", "TransferToServer", "Execute", "GetShape"}) {
    grpc::Status status = RawUnaryCall(daemon->target(), absl::StrCat("/xla.XlaService/", method), garbage, session);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << method << ": " << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(absl::StrCat(method, ": the request body (7 bytes) is not a valid")));
  }
  // Sessionless methods too.
  grpc::Status open = RawUnaryCall(daemon->target(), "/xla.XlaService/OpenSession", garbage, {});
  EXPECT_EQ(open.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << open.error_message();
  // A CompileRequest whose hlo_text (field 4, a proto3 string) is not UTF-8.
  const std::string bad_text = std::string("\x22\x03", 2) + std::string("\xc3\x28\xff", 3);
  grpc::Status utf8 = RawUnaryCall(daemon->target(), "/xla.XlaService/Compile", bad_text, session);
  EXPECT_EQ(utf8.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << utf8.error_message();
  EXPECT_THAT(utf8.error_message(), HasSubstr("not UTF-8"));
  // Every rejection is logged.
  EXPECT_THAT(daemon->Log(), HasSubstr("method=Compile"));
  EXPECT_THAT(daemon->Log(), HasSubstr("status=INVALID_ARGUMENT: Compile: the request body"));
  ExpectServing(*daemon);
}

TEST(DaemonAdmissionTest, TheAuthTokenIsCheckedBeforeTheBodyIsParsed) {
  const std::string token_file = absl::StrCat(::testing::TempDir(), "/admission_token");
  {
    std::FILE* f = std::fopen(token_file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("s3cret-admission\n", f);
    std::fclose(f);
  }
  auto daemon = DaemonProcess::Start({"--auth_token_file=" + token_file}).value();
  // 4 MB that do not parse, without a token: UNAUTHENTICATED, so the body
  // was never looked at (a parse would have said INVALID_ARGUMENT).
  const std::string big(4 << 20, '\xff');
  for (const char* method : {"Compile", "OpenSession", "GetServiceInfo", "Execute"}) {
    grpc::Status status = RawUnaryCall(daemon->target(), absl::StrCat("/xla.XlaService/", method), big, {});
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << method << ": " << status.error_message();
    grpc::Status wrong = RawUnaryCall(daemon->target(), absl::StrCat("/xla.XlaService/", method), big, {{"xla-auth-token", "guess"}});
    EXPECT_EQ(wrong.error_code(), grpc::StatusCode::UNAUTHENTICATED) << method << ": " << wrong.error_message();
  }
  EXPECT_THAT(daemon->Log(), HasSubstr("status=UNAUTHENTICATED"));
  GrpcClientOptions options;
  options.auth_token = "s3cret-admission";
  ExpectServing(*daemon, options);
}

// Counts to 2^62: stopped only by --max_run_seconds.
constexpr char kLongLoop[] = R"(HloModule long_loop
cond {
  p = s64[] parameter(0)
  limit = s64[] constant(4611686018427387904)
  ROOT c = pred[] compare(p, limit), direction=LT
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

TEST(DaemonAdmissionTest, AFullQueueIsResourceExhaustedNamingItsLimit) {
  auto daemon = DaemonProcess::Start({"--threads=1", "--max_queued_requests=1", "--max_run_seconds=3"}).value();
  auto busy = GrpcClient::Connect(daemon->target()).value();
  auto loop = busy->CompileHloText(kLongLoop);
  ASSERT_TRUE(loop.ok()) << loop.status();
  // The one worker runs the loop for 3 s; one more call may wait.
  std::thread running([&] { (void)busy->Execute(*loop, {}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::atomic<int> exhausted{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i) {
    callers.emplace_back([&] {
      grpc::Status status = RawUnaryCall(daemon->target(), "/xla.XlaService/GetServiceInfo", "", {});
      if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
        EXPECT_THAT(status.error_message(), HasSubstr("--max_queued_requests=1"));
        ++exhausted;
      } else {
        EXPECT_TRUE(status.ok()) << status.error_message();
      }
    });
  }
  for (std::thread& t : callers) t.join();
  running.join();
  // One of the four waited; the others found the queue full.
  EXPECT_GE(exhausted.load(), 3);
  EXPECT_THAT(daemon->Log(), HasSubstr("status=RESOURCE_EXHAUSTED: the service is busy"));
  ExpectServing(*daemon);
}

TEST(DaemonAdmissionTest, BothTransferPathsRefuseDynamicDimensionsAlike) {
  auto daemon = DaemonProcess::Start().value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  ShapeProto dynamic = ShapeUtil::MakeShape(F32, {2}).ToProto();
  dynamic.add_is_dynamic_dimension(true);
  auto channel = grpc::CreateChannel(daemon->target(), grpc::InsecureChannelCredentials());
  auto stub = XlaService::NewStub(channel);
  {
    TransferToServerRequest request;
    *request.mutable_literal()->mutable_shape() = dynamic;
    request.mutable_literal()->add_f32s(1);
    request.mutable_literal()->add_f32s(2);
    TransferToServerResponse response;
    grpc::ClientContext context;
    context.AddMetadata("xla-session", client->session_id());
    grpc::Status status = stub->TransferToServer(&context, request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr("is dynamic"));
  }
  {
    TransferToServerResponse response;
    grpc::ClientContext context;
    context.AddMetadata("xla-session", client->session_id());
    auto writer = stub->TransferToServerStream(&context, &response);
    LiteralChunk chunk;
    *chunk.mutable_shape() = dynamic;
    chunk.set_data(std::string(8, '\0'));
    writer->Write(chunk);
    writer->WritesDone();
    grpc::Status status = writer->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr("is dynamic"));
  }
  ExpectServing(*daemon);
}

TEST(DaemonAdmissionTest, AnAbortedUploadIsLoggedCancelled) {
  auto daemon = DaemonProcess::Start().value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  auto channel = grpc::CreateChannel(daemon->target(), grpc::InsecureChannelCredentials());
  auto stub = XlaService::NewStub(channel);
  {
    TransferToServerResponse response;
    grpc::ClientContext context;
    context.AddMetadata("xla-session", client->session_id());
    auto writer = stub->TransferToServerStream(&context, &response);
    LiteralChunk chunk;
    *chunk.mutable_shape() = ShapeUtil::MakeShape(F32, {1 << 20}).ToProto();
    chunk.set_data(std::string(1 << 16, '\0'));
    ASSERT_TRUE(writer->Write(chunk));
    // Gone after 64 KiB of 4 MiB.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    context.TryCancel();
    (void)writer->Finish();
  }
  const auto start = std::chrono::steady_clock::now();
  while (daemon->Log().find("method=TransferToServerStream") == std::string::npos &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_THAT(daemon->Log(), ::testing::ContainsRegex("method=TransferToServerStream .*status=CANCELLED"));
  // Nothing of the upload is held.
  EXPECT_EQ(client->GetServiceInfo().value().bytes_in_use(), 0);
  ExpectServing(*daemon);
}

// ExecutionOptions.shape_with_output_layout is honoured by the daemon (the
// result buffer comes back in that layout, on every run of the executable),
// and one that does not match the result is INVALID_ARGUMENT.
TEST(DaemonAdmissionTest, ShapeWithOutputLayoutIsHonouredOrRejected) {
  auto daemon = DaemonProcess::Start().value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  XlaBuilder b("transpose_free");
  auto x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 3}), "x");
  Add(x, x);
  XlaComputation computation = b.Build().value();
  auto arg = client->TransferToServer(Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}})).value();
  ExecutionOptions options;
  Shape column_major = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  *options.mutable_shape_with_output_layout() = column_major.ToProto();
  auto run = client->Execute(computation, {arg.get()}, &options);
  ASSERT_TRUE(run.ok()) << run.status();
  auto shape = client->GetShape(**run);
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(*shape, column_major) << shape->ToString();
  EXPECT_EQ(client->TransferToClient(**run).value().RelayoutTo(ShapeUtil::MakeShape(F32, {2, 3})),
            Literal::CreateR2<float>({{2, 4, 6}, {8, 10, 12}}));
  // Compile with the option: every run of the executable returns that layout.
  CompileRequest compile;
  *compile.mutable_computation() = computation.proto();
  *compile.mutable_execution_options() = options;
  CompileResponse compiled;
  ASSERT_TRUE(client->service()->Compile(compile, &compiled).ok());
  auto again = client->Execute(compiled.handle(), {arg.get()});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(client->GetShape(**again).value(), column_major);
  // A shape other than the result's is refused, not ignored.
  *options.mutable_shape_with_output_layout() = ShapeUtil::MakeShape(S32, {3}).ToProto();
  auto bad = client->Execute(computation, {arg.get()}, &options);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("shape_with_output_layout s32[3]"));
  ExpectServing(*daemon);
}

// The --metrics_port endpoint: Prometheus text with the calls by method and
// status, latency histograms, and the service's state.
TEST(DaemonAdmissionTest, MetricsEndpointCountsCallsAndShowsTheServiceState) {
  auto daemon = DaemonProcess::Start({"--metrics_port=0"}).value();
  std::smatch match;
  const std::string log = daemon->Log();
  ASSERT_TRUE(std::regex_search(log, match, std::regex("metrics on http://127.0.0.1:(\\d+)/metrics"))) << log;
  const int port = std::stoi(match[1]);
  auto client = GrpcClient::Connect(daemon->target()).value();
  auto exe = client->CompileHloText("HloModule m\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n");
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_FALSE(client->CompileHloText("HloModule broken").ok());
  auto run = client->Execute(*exe, {});
  ASSERT_TRUE(run.ok()) << run.status();
  httplib::Client http("127.0.0.1", port);
  httplib::Result response = http.Get("/metrics");
  ASSERT_TRUE(response) << "no answer from the metrics port";
  EXPECT_EQ(response->status, 200);
  const std::string& text = response->body;
  EXPECT_THAT(text, HasSubstr("# TYPE xla_requests_total counter"));
  EXPECT_THAT(text, HasSubstr("xla_requests_total{method=\"Compile\",code=\"OK\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("xla_requests_total{method=\"Compile\",code=\"INVALID_ARGUMENT\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("xla_requests_total{method=\"Execute\",code=\"OK\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("xla_request_duration_seconds_bucket{method=\"Compile\",le=\"+Inf\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("xla_request_duration_seconds_count{method=\"Execute\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("xla_sessions 1\n"));
  EXPECT_THAT(text, HasSubstr("xla_compilations_total 1\n"));
  EXPECT_THAT(text, HasSubstr("xla_workers 64\n"));
  EXPECT_THAT(text, HasSubstr("xla_queued_requests 0\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("xla_bytes_in_use [1-9]"));
}

XlaComputation Axpy(int64_t n) {
  XlaBuilder b("axpy");
  auto alpha = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {}), "alpha");
  auto x = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {n}), "x");
  auto y = Parameter(&b, 2, ShapeUtil::MakeShape(F32, {n}), "y");
  Add(Mul(alpha, x), y);
  return b.Build().value();
}

TEST(DaemonAdmissionTest, TwoHundredFiftySixClientsAtTheDefaultFlagsGetNoErrors) {
  auto daemon = DaemonProcess::Start().value();
  constexpr int kClients = 256, kLoops = 20;
  std::atomic<int> errors{0}, wrong{0}, done{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto client = GrpcClient::Connect(daemon->target());
      if (!client.ok()) {
        ++errors;
        ADD_FAILURE() << "client " << c << ": " << client.status();
        return;
      }
      auto exe = (*client)->Compile(Axpy(16));
      if (!exe.ok()) {
        ++errors;
        ADD_FAILURE() << "client " << c << ": " << exe.status();
        return;
      }
      for (int i = 0; i < kLoops; ++i) {
        std::vector<float> x(16), y(16);
        for (int k = 0; k < 16; ++k) {
          x[k] = static_cast<float>(c + k);
          y[k] = static_cast<float>(i);
        }
        auto alpha = (*client)->TransferToServer(Literal::CreateR0<float>(2));
        auto xs = (*client)->TransferToServer(Literal::CreateR1<float>(absl::MakeConstSpan(x)));
        auto ys = (*client)->TransferToServer(Literal::CreateR1<float>(absl::MakeConstSpan(y)));
        if (!alpha.ok() || !xs.ok() || !ys.ok()) {
          ++errors;
          ADD_FAILURE() << "client " << c << " loop " << i << ": transfer failed";
          continue;
        }
        auto run = (*client)->Execute(*exe, {alpha->get(), xs->get(), ys->get()});
        if (!run.ok()) {
          ++errors;
          ADD_FAILURE() << "client " << c << " loop " << i << ": " << run.status();
          continue;
        }
        auto out = (*client)->TransferToClient(**run);
        if (!out.ok()) {
          ++errors;
          ADD_FAILURE() << "client " << c << " loop " << i << ": " << out.status();
          continue;
        }
        for (int k = 0; k < 16; ++k) {
          if (out->data<float>()[k] != 2 * x[k] + y[k]) ++wrong;
        }
        ++done;
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(done.load(), kClients * kLoops);
  EXPECT_THAT(daemon->Log(), ::testing::Not(HasSubstr("RESOURCE_EXHAUSTED")));
  ExpectServing(*daemon);
}

}  // namespace
}  // namespace xla
