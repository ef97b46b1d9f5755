// Tests against a real xla_service daemon started as a separate process on
// 127.0.0.1, driven by GrpcClient, raw gRPC calls, and the Python client.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "client/grpc_client.h"
#include "client/grpc_stub.h"
#include "client/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/daemon_process.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal_comparison.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

using ::testing::HasSubstr;

XlaComputation AxpyComputation(int64_t n) {
  XlaBuilder b("axpy");
  auto alpha = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {}), "alpha");
  auto x = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {n}), "x");
  auto y = Parameter(&b, 2, ShapeUtil::MakeShape(F32, {n}), "y");
  Add(Mul(alpha, x), y);
  return b.Build().value();
}

Literal Iota(int64_t n, float scale) {
  Literal lit(ShapeUtil::MakeShape(F32, {n}));
  for (int64_t i = 0; i < n; ++i) lit.data<float>()[i] = scale * (i % 1000);
  return lit;
}

class DaemonTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto d = DaemonProcess::Start({"--max_session_bytes=4294967296", "--max_memory_bytes=8589934592"});
    ASSERT_TRUE(d.ok()) << d.status();
    daemon_ = d->release();
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(daemon_->Stop(), 0) << daemon_->Log();
    delete daemon_;
  }

  std::unique_ptr<GrpcClient> Connect(const GrpcClientOptions& options = {}) {
    auto c = GrpcClient::Connect(daemon_->target(), options);
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? std::move(*c) : nullptr;
  }

  // The daemon still answers (checked after every bad request).
  void ExpectServing() {
    auto client = Connect();
    ASSERT_NE(client, nullptr);
    auto info = client->GetServiceInfo();
    ASSERT_TRUE(info.ok()) << info.status() << daemon_->Log();
    EXPECT_TRUE(daemon_->running());
  }

  GetServiceInfoResponse Info() {
    auto client = Connect();
    return client->GetServiceInfo().value();
  }

  static DaemonProcess* daemon_;
};
DaemonProcess* DaemonTest::daemon_ = nullptr;

TEST_F(DaemonTest, AxpyRoundTrip) {
  auto client = Connect();
  auto alpha = client->TransferToServer(Literal::CreateR0<float>(2)).value();
  auto x = client->TransferToServer(Literal::CreateR1<float>({1, 2, 3, 4})).value();
  auto y = client->TransferToServer(Literal::CreateR1<float>({10, 20, 30, 40})).value();
  ExecutionProfile profile;
  auto result = client->ExecuteAndTransfer(AxpyComputation(4), {alpha.get(), x.get(), y.get()}, nullptr, &profile);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, Literal::CreateR1<float>({12, 24, 36, 48}));
  EXPECT_THAT(daemon_->Log(), HasSubstr("method=ExecuteGraph session="));
}

TEST_F(DaemonTest, OneGibibyteArgumentMovesInChunks) {
  const int64_t n = int64_t{1} << 30;
  auto client = Connect();
  // u8 so filling and comparing 1 GiB stays cheap in unoptimized test builds.
  Literal big(ShapeUtil::MakeShape(U8, {n}));
  uint8_t* bytes = static_cast<uint8_t*>(big.untyped_data());
  for (int64_t i = 0; i < n; i += 4096) std::memset(bytes + i, static_cast<int>((i / 4096) % 251), 4096);
  auto data = client->TransferToServer(big);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(client->GetShape(**data)->ToString(), "u8[1073741824]");
  auto back = client->TransferToClient(**data);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(std::memcmp(back->untyped_data(), bytes, n), 0);
}

TEST_F(DaemonTest, TuplesAndLayoutsRoundTrip) {
  auto client = Connect();
  Literal tuple = Literal::MakeTuple({Literal::CreateR2<int32_t>({{1, 2}, {3, 4}}), Literal::CreateR0<bool>(true)});
  auto data = client->TransferToServer(tuple).value();
  EXPECT_EQ(client->TransferToClient(*data).value(), tuple);
  auto elements = client->DeconstructTuple(*data).value();
  ASSERT_EQ(elements.size(), 2);
  Shape col_major = ShapeUtil::MakeShapeWithLayout(S32, {2, 2}, {0, 1});
  Literal relaid = client->TransferToClient(*elements[0], &col_major).value();
  EXPECT_EQ(relaid.shape().layout(), col_major.layout());
  EXPECT_EQ(relaid, Literal::CreateR2<int32_t>({{1, 2}, {3, 4}}));
}

TEST_F(DaemonTest, MalformedProtoBytesAreRejected) {
  for (const char* method : {"/xla.XlaService/Compile", "/xla.XlaService/TransferToServer",
                             "/xla.XlaService/OpenSession"}) {
    const char garbage[] = "\xff\xff\xff\xff\x0f\x12\x99";
    EXPECT_FALSE(
        RawUnaryCall(daemon_->target(), method, std::string(garbage, sizeof(garbage)), {{"xla-session", "1"}}).ok())
        << method;
  }
  ExpectServing();
}

// A method the daemon does not have: UNIMPLEMENTED naming it, and a line
// in the log (gRPC would otherwise answer such calls without a trace).
TEST_F(DaemonTest, UnknownMethodIsNamedAndLogged) {
  const grpc::Status status = RawUnaryCall(daemon_->target(), "/xla.XlaService/NoSuchMethod", "body");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_THAT(status.error_message(), HasSubstr("unknown method '/xla.XlaService/NoSuchMethod'"));
  EXPECT_THAT(daemon_->Log(),
              HasSubstr("method=/xla.XlaService/NoSuchMethod session=- bytes=0 ms=0.000 status=UNIMPLEMENTED"));
  ExpectServing();
}

// Bodies over --max_request_bytes (4 MiB by default): RESOURCE_EXHAUSTED
// naming the limit, from the daemon and logged, for a unary call and for a
// chunk of a streamed upload (gRPC's own limit would refuse them unlogged).
TEST_F(DaemonTest, OversizedBodiesNameTheLimitAndAreLogged) {
  auto channel = grpc::CreateChannel(daemon_->target(), grpc::InsecureChannelCredentials());
  GrpcStub stub(channel, "");
  ASSERT_TRUE(stub.OpenSession("oversized").ok());
  CompileRequest request;
  request.set_hlo_text(std::string(5 << 20, ' '));
  CompileResponse response;
  absl::Status compiled = stub.Compile(request, &response);
  EXPECT_EQ(compiled.code(), absl::StatusCode::kResourceExhausted) << compiled;
  EXPECT_THAT(compiled.message(), HasSubstr("accepts at most 4194304 (--max_request_bytes)"));
  EXPECT_THAT(daemon_->Log(), HasSubstr("status=RESOURCE_EXHAUSTED: Compile: the request body is 52428"));

  std::unique_ptr<XlaService::Stub> raw = XlaService::NewStub(channel);
  grpc::ClientContext context;
  context.AddMetadata("xla-session", stub.session_id());
  TransferToServerResponse uploaded;
  std::unique_ptr<grpc::ClientWriter<LiteralChunk>> writer = raw->TransferToServerStream(&context, &uploaded);
  LiteralChunk first;
  *first.mutable_shape() = ShapeUtil::MakeShape(U8, {6 << 20}).ToProto();
  writer->Write(first);
  LiteralChunk big;
  big.set_data(std::string(5 << 20, 'a'));
  writer->Write(big);
  writer->WritesDone();
  const grpc::Status streamed = writer->Finish();
  EXPECT_EQ(streamed.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << streamed.error_message();
  EXPECT_THAT(streamed.error_message(), HasSubstr("chunks of at most 4194304 (--max_request_bytes)"));
  EXPECT_THAT(daemon_->Log(), HasSubstr("status=RESOURCE_EXHAUSTED: TransferToServerStream: chunk 2 is"));
  EXPECT_TRUE(stub.CloseSession().ok());
  ExpectServing();
}

// Uploads that break the stream's rules, sent as plain LiteralChunk
// messages (as any client's protobuf writes them): each is INVALID_ARGUMENT
// naming the rule, nothing stays allocated, and the daemon keeps serving.
TEST_F(DaemonTest, BadUploadStreamsAreInvalidArgumentAndLeaveNothingBehind) {
  GrpcStub stub(grpc::CreateChannel(daemon_->target(), grpc::InsecureChannelCredentials()), "");
  ASSERT_TRUE(stub.OpenSession("bad uploads").ok());
  auto raw = XlaService::NewStub(grpc::CreateChannel(daemon_->target(), grpc::InsecureChannelCredentials()));
  const int64_t start = Info().bytes_in_use();
  auto upload = [&](const Shape* shape, const std::vector<std::string>& data, const Shape* later_shape) {
    grpc::ClientContext context;
    context.AddMetadata("xla-session", stub.session_id());
    TransferToServerResponse response;
    auto writer = raw->TransferToServerStream(&context, &response);
    if (shape != nullptr) {
      LiteralChunk first;
      *first.mutable_shape() = shape->ToProto();
      writer->Write(first);
    }
    for (const std::string& bytes : data) {
      LiteralChunk chunk;
      chunk.set_data(bytes);
      writer->Write(chunk);
    }
    if (later_shape != nullptr) {
      LiteralChunk late;
      *late.mutable_shape() = later_shape->ToProto();
      writer->Write(late);
    }
    writer->WritesDone();
    return writer->Finish();
  };
  const Shape u8x4 = ShapeUtil::MakeShape(U8, {4});
  const Shape pred2 = ShapeUtil::MakeShape(PRED, {2});
  struct Case {
    const Shape* shape;
    std::vector<std::string> data;
    const Shape* later_shape;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {nullptr, {"abcd"}, nullptr, "the first chunk must carry the shape"},
           {&u8x4, {"ab", "cdef"}, nullptr, "more data than its shape holds"},
           {&u8x4, {"abc"}, nullptr, "transfer ended after 3 bytes but its shape holds 4"},
           {&pred2, {std::string("\x01\x02", 2)}, nullptr, "pred element has byte value 2"},
           {&u8x4, {"ab"}, &u8x4, "a later chunk carries a shape"},
       }) {
    const grpc::Status status = upload(c.shape, c.data, c.later_shape);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.message << ": " << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(c.message));
  }
  // A good upload on the same stub still works and reads back.
  const grpc::Status good = upload(&u8x4, {"ab", "cd"}, nullptr);
  EXPECT_TRUE(good.ok()) << good.error_message();
  EXPECT_TRUE(stub.CloseSession().ok());
  EXPECT_EQ(Info().bytes_in_use(), start);
  ExpectServing();
}

TEST_F(DaemonTest, BadRequestsGetClearErrorsAndTheDaemonKeepsServing) {
  auto client = Connect();
  GrpcStub* stub = static_cast<GrpcStub*>(client->service());

  // A module that fails verification: add of f32[2] and f32[3].
  {
    HloModuleProto module;
    module.set_name("bad");
    auto* c = module.add_computations();
    c->set_name("main");
    c->set_id(1);
    auto add_param = [&](int id, int number, int64_t n) {
      auto* p = c->add_instructions();
      p->set_name("p" + std::to_string(number));
      p->set_opcode("parameter");
      p->set_id(id);
      p->set_parameter_number(number);
      *p->mutable_shape() = ShapeUtil::MakeShape(F32, {n}).ToProto();
    };
    add_param(2, 0, 2);
    add_param(3, 1, 3);
    auto* add = c->add_instructions();
    add->set_name("sum");
    add->set_opcode("add");
    add->set_id(4);
    add->add_operand_ids(2);
    add->add_operand_ids(3);
    *add->mutable_shape() = ShapeUtil::MakeShape(F32, {2}).ToProto();
    c->set_root_id(4);
    module.set_entry_computation_id(1);
    CompileRequest request;
    *request.mutable_computation() = module;
    CompileResponse response;
    absl::Status s = stub->Compile(request, &response);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("sum"));

    // Unknown opcode.
    add->set_opcode("frobnicate");
    *request.mutable_computation() = module;
    s = stub->Compile(request, &response);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("frobnicate"));
  }
  // Unknown opcode in HLO text, with the line.
  {
    absl::StatusOr<ExecutionHandle> h =
        client->CompileHloText("HloModule m\nENTRY e {\n  ROOT x = f32[] frobnicate()\n}\n");
    EXPECT_EQ(h.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(h.status().message()), HasSubstr("line 3"));
  }
  // A dump directory of the client's choosing (the daemon would write files
  // wherever a remote client says), and a negative thread count.
  {
    ExecutionOptions options;
    options.mutable_debug_options()->set_xla_dump_to("/tmp/xla_daemon_test_must_not_exist");
    absl::StatusOr<ExecutionHandle> h =
        client->CompileHloText("HloModule m\nENTRY e {\n  ROOT x = f32[] constant(1)\n}\n", &options);
    EXPECT_EQ(h.status().code(), absl::StatusCode::kPermissionDenied) << h.status();
    EXPECT_FALSE(std::filesystem::exists("/tmp/xla_daemon_test_must_not_exist"));
    options.mutable_debug_options()->clear_xla_dump_to();
    options.mutable_debug_options()->set_xla_cpu_threads(-3);
    h = client->CompileHloText("HloModule m\nENTRY e {\n  ROOT x = f32[] constant(1)\n}\n", &options);
    EXPECT_EQ(h.status().code(), absl::StatusCode::kInvalidArgument) << h.status();
  }
  // Literal byte count that does not match its shape.
  {
    TransferToServerRequest request;
    *request.mutable_literal() = Literal::CreateR1<float>({1, 2, 3}).ToProto();
    request.mutable_literal()->mutable_shape()->set_dimensions(0, 4);
    TransferToServerResponse response;
    absl::Status s = stub->TransferToServer(request, &response);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("needs 4 elements"));
  }
  // Huge declared shapes: refused by the quota before any allocation.
  {
    TransferToServerRequest request;
    request.mutable_literal()->mutable_shape()->set_element_type(F32);
    request.mutable_literal()->mutable_shape()->add_dimensions(int64_t{1} << 40);
    TransferToServerResponse response;
    absl::Status s = stub->TransferToServer(request, &response);
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
    Literal fake(ShapeUtil::MakeShape(F32, {4}));
    // A streamed transfer whose shape claims 2^40 floats.
    grpc::ClientContext context;
    context.AddMetadata("xla-session", client->session_id());
    auto raw = XlaService::NewStub(grpc::CreateChannel(daemon_->target(), grpc::InsecureChannelCredentials()));
    TransferToServerResponse stream_response;
    auto writer = raw->TransferToServerStream(&context, &stream_response);
    LiteralChunk chunk;
    chunk.mutable_shape()->set_element_type(F32);
    chunk.mutable_shape()->add_dimensions(int64_t{1} << 40);
    writer->Write(chunk);
    writer->WritesDone();
    grpc::Status gs = writer->Finish();
    EXPECT_EQ(gs.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << gs.error_message();
  }
  // Wrong argument count and shapes for an executable.
  {
    ExecutionHandle exe = client->Compile(AxpyComputation(4)).value();
    auto alpha = client->TransferToServer(Literal::CreateR0<float>(1)).value();
    auto x3 = client->TransferToServer(Literal::CreateR1<float>({1, 2, 3})).value();
    auto r = client->Execute(exe, {alpha.get(), x3.get()});
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("takes 3 arguments but 2 were given"));
    r = client->Execute(exe, {alpha.get(), x3.get(), x3.get()});
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("argument 1 has shape f32[3]"));
  }
  // A forged handle and a double unregister.
  {
    GlobalData forged(stub, [] { GlobalDataHandle h; h.set_handle(987654321); return h; }());
    EXPECT_EQ(client->TransferToClient(forged).status().code(), absl::StatusCode::kNotFound);
    forged.Release();
    auto data = client->TransferToServer(Literal::CreateR0<float>(1)).value();
    EXPECT_TRUE(client->Unregister(*data).ok());
    EXPECT_EQ(client->Unregister(*data).code(), absl::StatusCode::kNotFound);
  }
  ExpectServing();
}

// StableHLO text with a private function, a call, a reduce region and two
// results: axpy and the sum of its elements.
constexpr char kAxpySumStableHlo[] = R"(module @axpy_sum {
  func.func private @axpy(%a: tensor<f32>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %ab = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %ax = stablehlo.multiply %ab, %x : tensor<4xf32>
    %r = stablehlo.add %ax, %y : tensor<4xf32>
    return %r : tensor<4xf32>
  }
  func.func public @main(%a: tensor<f32>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
    %r = func.call @axpy(%a, %x, %y) : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%r init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    return %r, %sum : tensor<4xf32>, tensor<f32>
  }
}
)";

// Compiles kAxpySumStableHlo on `client` and runs it on alpha=2,
// x={1,2,3,4}, y={10,20,30,40}.
absl::StatusOr<Literal> RunAxpySumStableHlo(Client* client) {
  absl::StatusOr<ExecutionHandle> executable = client->CompileStableHlo(kAxpySumStableHlo);
  if (!executable.ok()) return executable.status();
  auto alpha = client->TransferToServer(Literal::CreateR0<float>(2)).value();
  auto x = client->TransferToServer(Literal::CreateR1<float>({1, 2, 3, 4})).value();
  auto y = client->TransferToServer(Literal::CreateR1<float>({10, 20, 30, 40})).value();
  absl::StatusOr<std::unique_ptr<GlobalData>> result = client->Execute(*executable, {alpha.get(), x.get(), y.get()});
  if (!result.ok()) return result.status();
  return client->TransferToClient(**result);
}

TEST_F(DaemonTest, StableHloTextCompilesRemotelyAndRuns) {
  auto client = Connect();
  absl::StatusOr<Literal> result = RunAxpySumStableHlo(client.get());
  ASSERT_TRUE(result.ok()) << result.status() << daemon_->Log();
  EXPECT_EQ(*result, Literal::MakeTuple({Literal::CreateR1<float>({12, 24, 36, 48}), Literal::CreateR0<float>(120)}));
}

TEST_F(DaemonTest, MalformedStableHloTextIsALocatedInvalidArgumentAndTheDaemonKeepsServing) {
  auto client = Connect();
  auto expect_located = [&](const std::string& text, const std::string& message) {
    absl::StatusOr<ExecutionHandle> h = client->CompileStableHlo(text);
    EXPECT_EQ(h.status().code(), absl::StatusCode::kInvalidArgument) << h.status();
    EXPECT_THAT(std::string(h.status().message()), ::testing::ContainsRegex("^stablehlo_text:[0-9]+:[0-9]+: "));
    EXPECT_THAT(std::string(h.status().message()), HasSubstr(message));
  };
  expect_located("func.func @main() {\n  %0 = stablehlo.nope : tensor<f32>\n  return\n}\n",
                 "stablehlo_text:2:8: stablehlo.nope: unknown op");
  // Truncated in the middle of @main.
  const std::string full = kAxpySumStableHlo;
  expect_located(full.substr(0, full.find("%zero")), "");
  // An operand whose type disagrees with the op's.
  expect_located(
      "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %r = stablehlo.add %x, %x : tensor<3xf32>\n"
      "  return %r : tensor<4xf32>\n}\n",
      "stablehlo_text:2:");
  // No @main and two functions: which one to compile is ambiguous.
  expect_located(
      "func.func @f(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}\n"
      "func.func @g(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}\n",
      "stablehlo_text:1:1: expected one entry point (@main, or a single function), found 2: @f, @g");

  // Exactly one program per request.
  GrpcStub* stub = static_cast<GrpcStub*>(client->service());
  CompileRequest request;
  CompileResponse response;
  absl::Status s = stub->Compile(request, &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("carries 0 programs"));
  request.set_hlo_text("HloModule m\nENTRY e {\n  ROOT x = f32[] constant(1)\n}\n");
  request.set_stablehlo_text(kAxpySumStableHlo);
  s = stub->Compile(request, &response);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("carries 2 programs"));

  // StableHLO text gets the same size limit as HLO text: the daemon's
  // --max_request_bytes (4 MiB), checked before the body is parsed.
  const std::string huge(5 << 20, ' ');
  EXPECT_EQ(client->CompileStableHlo(huge).status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(client->CompileHloText(huge).status().code(), absl::StatusCode::kResourceExhausted);

  // The same session still compiles and runs StableHLO.
  absl::StatusOr<Literal> result = RunAxpySumStableHlo(client.get());
  ASSERT_TRUE(result.ok()) << result.status() << daemon_->Log();
  EXPECT_EQ(*result, Literal::MakeTuple({Literal::CreateR1<float>({12, 24, 36, 48}), Literal::CreateR0<float>(120)}));
  ExpectServing();
}

TEST_F(DaemonTest, CallsAfterTheSessionEndedFail) {
  auto client = Connect();
  auto data = client->TransferToServer(Literal::CreateR0<float>(1)).value();
  GlobalDataHandle handle = data->Release();
  ASSERT_TRUE(client->CloseSession().ok());
  auto r = client->TransferToServer(Literal::CreateR0<float>(2));
  EXPECT_FALSE(r.ok());
  ExpectServing();
}

TEST_F(DaemonTest, HandlesAreIsolatedBetweenSessions) {
  auto alice = Connect();
  auto bob = Connect();
  auto secret = alice->TransferToServer(Literal::CreateR1<int32_t>({42, 7})).value();
  GlobalData stolen(bob->service(), secret->handle());
  EXPECT_EQ(bob->TransferToClient(stolen).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(bob->Unregister(stolen).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(bob->GetShape(stolen).status().code(), absl::StatusCode::kNotFound);
  stolen.Release();
  // Executables are per session too.
  ExecutionHandle exe = alice->Compile(AxpyComputation(2)).value();
  auto s = bob->Execute(exe, {});
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(alice->TransferToClient(*secret).value(), Literal::CreateR1<int32_t>({42, 7}));
  // Session ids are unguessable tokens: small numbers name no session.
  auto raw = XlaService::NewStub(grpc::CreateChannel(daemon_->target(), grpc::InsecureChannelCredentials()));
  for (int guess = 0; guess < 50; ++guess) {
    grpc::ClientContext context;
    context.AddMetadata("xla-session", std::to_string(guess));
    TransferToClientRequest request;
    *request.mutable_data() = secret->handle();
    TransferToClientResponse response;
    EXPECT_EQ(raw->TransferToClient(&context, request, &response).error_code(), grpc::StatusCode::NOT_FOUND);
  }
  EXPECT_EQ(alice->session_id().size(), 32);
}

TEST_F(DaemonTest, HugeIntermediateValuesAreRefusedBeforeRunning) {
  auto client = Connect();
  // A 4 TiB intermediate reduced to a scalar: the result is small, the run is
  // not. x is read at two indices (x * reverse(x)), so it is materialized
  // (an arena buffer of its own) and the executable's working set is 4 TiB.
  // (A value read once would be fused into the reduce and take no memory.)
  XlaBuilder add("add");
  Add(Parameter(&add, 0, ShapeUtil::MakeShape(F32, {}), "a"), Parameter(&add, 1, ShapeUtil::MakeShape(F32, {}), "b"));
  XlaComputation sum = add.Build().value();
  XlaBuilder b("huge_intermediate");
  XlaOp x = Iota(&b, F32, int64_t{1} << 40);
  Reduce(Mul(x, Rev(x, {0})), ConstantR0<float>(&b, 0), sum, {0});
  XlaComputation c = b.Build().value();
  auto run = client->ExecuteAndTransfer(c, {});
  EXPECT_EQ(run.status().code(), absl::StatusCode::kResourceExhausted) << run.status();
  auto constant = client->ComputeConstant(c);
  EXPECT_EQ(constant.status().code(), absl::StatusCode::kResourceExhausted) << constant.status();
  ExpectServing();
}

TEST_F(DaemonTest, MemoryReturnsToItsStartingLevelAfterSessionsClose) {
  const int64_t start = Info().bytes_in_use();
  {
    auto client = Connect();
    auto a = client->TransferToServer(Iota(1 << 18, 1)).value();
    auto b = client->TransferToServer(Iota(1 << 18, 2)).value();
    a->Release();  // leaked on purpose: closing the session must free it
    b->Release();
    EXPECT_GE(Info().bytes_in_use(), start + 2 * (1 << 20));
  }
  EXPECT_EQ(Info().bytes_in_use(), start);
}

// A dropped GlobalData costs no call of its own: its release rides on the
// client's next call, and the daemon frees the buffer before serving it.
TEST_F(DaemonTest, ReleasedHandlesRideOnTheNextCall) {
  auto observer = Connect();
  auto client = Connect();
  ExecutionHandle axpy = client->Compile(AxpyComputation(1 << 18)).value();
  auto alpha = client->TransferToServer(Literal::CreateR0<float>(2)).value();
  auto x = client->TransferToServer(Iota(1 << 18, 1)).value();
  auto y = client->TransferToServer(Iota(1 << 18, 3)).value();
  const int64_t start = observer->GetServiceInfo()->bytes_in_use();
  constexpr int64_t kArrayBytes = int64_t{4} << 18;
  auto unregister_calls = [&] {
    const std::string log = daemon_->Log();
    int calls = 0;
    for (size_t at = log.find("method=Unregister "); at != std::string::npos; at = log.find("method=Unregister ", at + 1)) {
      ++calls;
    }
    return calls;
  };
  const int unregisters_before = unregister_calls();
  for (int i = 0; i < 5; ++i) {
    auto result = client->Execute(axpy, {alpha.get(), x.get(), y.get()});
    ASSERT_TRUE(result.ok()) << result.status();
  }
  // The first four results were freed by the calls that followed them; the
  // fifth waits for the client's next call.
  const int64_t one_result_alive = observer->GetServiceInfo()->bytes_in_use() - start;
  EXPECT_GE(one_result_alive, kArrayBytes);  // the array and its bookkeeping
  EXPECT_LT(one_result_alive, 2 * kArrayBytes);
  auto shape = client->GetShape(*x);
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(observer->GetServiceInfo()->bytes_in_use(), start);
  EXPECT_EQ(unregister_calls(), unregisters_before);  // no call of their own
  // A malformed list is refused with a message, and the daemon keeps serving.
  GetShapeRequest request;
  *request.mutable_data() = x->handle();
  grpc::Status bad = RawUnaryCall(daemon_->target(), "/xla.XlaService/GetShape", request.SerializeAsString(),
                                  {{"xla-session", client->session_id()}, {"xla-release", "12,x"}});
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(bad.error_message(), HasSubstr("xla-release"));
  ExpectServing();
}

// A client that goes away with runs it started and never waited for: its
// session's close stops them (they wait for an infeed that never comes) and
// frees everything, promptly, and the daemon keeps serving.
TEST_F(DaemonTest, ClosingASessionStopsItsAsyncRuns) {
  const GetServiceInfoResponse before = Info();
  const auto start = std::chrono::steady_clock::now();
  {
    auto client = Connect();
    XlaBuilder b("infeed_plus_parameter");
    const Shape shape = ShapeUtil::MakeShape(F32, {1 << 16});
    XlaOp in = InfeedWithToken(CreateToken(&b), shape);
    Add(GetTupleElement(in, 0), Parameter(&b, 0, shape, "p"));
    ExecutionHandle exe = client->Compile(b.Build().value()).value();
    auto p = client->TransferToServer(Iota(1 << 16, 1)).value();
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(client->ExecuteAsync(exe, {p.get()}).ok());
    EXPECT_EQ(Info().async_executions(), before.async_executions() + 3);
  }
  const GetServiceInfoResponse after = Info();
  EXPECT_EQ(after.async_executions(), before.async_executions());
  EXPECT_EQ(after.bytes_in_use(), before.bytes_in_use());
  EXPECT_EQ(after.live_buffers(), before.live_buffers());
  // Well under the daemon's 60 s infeed wait: the close stopped the runs.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  ExpectServing();
}

TEST_F(DaemonTest, CompilationCacheIsSharedAcrossSessions) {
  const int64_t hits_before = Info().cache_hits();
  auto first = Connect();
  auto second = Connect();
  bool hit = true;
  ASSERT_TRUE(first->Compile(AxpyComputation(7), {}, nullptr, &hit).ok());
  EXPECT_FALSE(hit);
  ASSERT_TRUE(second->Compile(AxpyComputation(7), {}, nullptr, &hit).ok());
  EXPECT_TRUE(hit);
  GetServiceInfoResponse info = Info();
  EXPECT_GE(info.cache_hits(), hits_before + 1);
  EXPECT_GE(info.cache_entries(), 1);
  EXPECT_GE(info.compilations(), 1);
  EXPECT_EQ(info.version(), "0.1");
  EXPECT_EQ(info.default_backend(), "cpu");
  EXPECT_FALSE(info.host_cpu_features().empty());
  EXPECT_EQ(info.max_session_bytes(), int64_t{4294967296});
}

TEST_F(DaemonTest, SixteenConcurrentClientsGetCorrectResultsAndLeakNothing) {
  const int64_t start_bytes = Info().bytes_in_use();
  const int kClients = 16, kIterations = 25;
  std::vector<std::thread> threads;
  std::atomic<int> correct{0};
  std::vector<std::string> errors(kClients);
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      auto client = GrpcClient::Connect(daemon_->target());
      if (!client.ok()) {
        errors[c] = std::string(client.status().message());
        return;
      }
      XlaComputation axpy = AxpyComputation(64);
      for (int i = 0; i < kIterations; ++i) {
        float alpha = c + 0.5f * i;
        auto a = (*client)->TransferToServer(Literal::CreateR0<float>(alpha));
        auto x = (*client)->TransferToServer(Iota(64, 1));
        auto y = (*client)->TransferToServer(Iota(64, c));
        if (!a.ok() || !x.ok() || !y.ok()) {
          errors[c] = "transfer failed";
          return;
        }
        auto exe = (*client)->Compile(axpy);
        if (!exe.ok()) {
          errors[c] = std::string(exe.status().message());
          return;
        }
        auto out = (*client)->Execute(*exe, {a->get(), x->get(), y->get()});
        if (!out.ok()) {
          errors[c] = std::string(out.status().message());
          return;
        }
        auto lit = (*client)->TransferToClient(**out);
        if (!lit.ok()) {
          errors[c] = std::string(lit.status().message());
          return;
        }
        bool ok = true;
        for (int64_t k = 0; k < 64; ++k) ok &= lit->data<float>()[k] == alpha * (k % 1000) + c * (k % 1000);
        if (ok) ++correct;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int c = 0; c < kClients; ++c) EXPECT_EQ(errors[c], "") << "client " << c;
  EXPECT_EQ(correct.load(), kClients * kIterations);
  GetServiceInfoResponse info = Info();
  EXPECT_EQ(info.bytes_in_use(), start_bytes);
  EXPECT_EQ(info.live_buffers(), 0);
  EXPECT_TRUE(daemon_->running());
}

TEST_F(DaemonTest, PythonClientCompilesTransfersExecutesAndReads) {
  std::string command = "PYTHONPATH=. /usr/bin/python3 tools/python/xla_client_example.py --target=" +
                        daemon_->target() + " > " + std::getenv("TEST_TMPDIR") + "/py.out 2>&1";
  int rc = std::system(command.c_str());
  std::ifstream out(std::string(std::getenv("TEST_TMPDIR")) + "/py.out");
  std::string text((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << text;
  EXPECT_THAT(text, HasSubstr("hlo: f32[4] {12, 24, 36, 48}"));
  EXPECT_THAT(text, HasSubstr("stablehlo: f32[4] {12, 24, 36, 48}"));
  EXPECT_THAT(text, HasSubstr("bad hlo rejected: INVALID_ARGUMENT"));
  EXPECT_THAT(text, HasSubstr("bad stablehlo rejected: INVALID_ARGUMENT: stablehlo_text:2:8: stablehlo.nope: unknown op"));
}

TEST(DaemonLimitsTest, SessionQuotaIsResourceExhaustedAndTheSessionStaysUsable) {
  auto daemon = DaemonProcess::Start({"--max_session_bytes=1048576"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  auto too_big = client->TransferToServer(Iota(1 << 19, 1));  // 2 MiB
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kResourceExhausted) << too_big.status();
  auto small = client->TransferToServer(Iota(1000, 1));
  ASSERT_TRUE(small.ok()) << small.status();
  // An execution whose result would exceed the quota is refused too.
  XlaBuilder b("big");
  Broadcast(ConstantR0<float>(&b, 1), {1 << 19});
  auto result = client->ExecuteAndTransfer(b.Build().value(), {});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted) << result.status();
  EXPECT_EQ(client->TransferToClient(**small).value(), Iota(1000, 1));
}

// An async run's result returned as a literal waits in the daemon until its
// WaitForExecution, and stays charged to the session meanwhile: uncollected
// results cannot hold more than the session's quota.
TEST(DaemonLimitsTest, UncollectedAsyncResultsCountAgainstTheSessionQuota) {
  auto daemon = DaemonProcess::Start({"--max_session_bytes=1048576"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  XlaBuilder b("threes");
  Broadcast(ConstantR0<float>(&b, 3), {163840});  // a 640 KiB result
  auto executable = client->Compile(b.Build().value());
  ASSERT_TRUE(executable.ok()) << executable.status();
  const int64_t executions = client->GetServiceInfo().value().executions();
  ExecuteAsyncRequest start;
  *start.mutable_execute()->mutable_handle() = *executable;
  start.mutable_execute()->set_transfer_result(true);
  ExecuteAsyncResponse started;
  ASSERT_TRUE(client->service()->ExecuteAsync(start, &started).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (client->GetServiceInfo().value().executions() == executions) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the async run did not finish";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Computed and not collected: 640 KiB of the 1 MiB are the result's. A
  // 256 KiB upload (charged twice its size while it arrives) does not fit.
  auto upload = client->TransferToServer(Iota(65536, 1));
  EXPECT_EQ(upload.status().code(), absl::StatusCode::kResourceExhausted) << upload.status();
  WaitForExecutionRequest wait;
  *wait.mutable_execution() = started.execution();
  WaitForExecutionResponse waited;
  ASSERT_TRUE(client->service()->WaitForExecution(wait, &waited).ok());
  ASSERT_TRUE(waited.result().has_result_literal());
  Literal result = Literal::FromProto(waited.result().result_literal()).value();
  EXPECT_EQ(result.data<float>()[163839], 3.0f);
  // Collected: the quota is free again.
  upload = client->TransferToServer(Iota(65536, 1));
  EXPECT_TRUE(upload.ok()) << upload.status();
}

// A run is charged what the executable reports it allocates (its result and
// the CPU arena from buffer assignment), not every instruction's value: a
// chain of ten 512 KiB elementwise values that all fuse into one loop runs
// under a 1.5 MiB session quota.
TEST(DaemonLimitsTest, RunsAreChargedTheExecutablesWorkingSet) {
  auto daemon = DaemonProcess::Start({"--max_session_bytes=1572864"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  std::string text = "HloModule chain\nENTRY e {\n  v0 = f32[131072] parameter(0)\n";
  for (int i = 1; i <= 10; ++i) {
    absl::StrAppend(&text, "  v", i, " = f32[131072] ", i % 2 ? "negate" : "abs", "(v", i - 1, ")\n");
  }
  absl::StrAppend(&text, "  ROOT r = f32[131072] add(v10, v0)\n}\n");
  auto executable = client->CompileHloText(text);
  ASSERT_TRUE(executable.ok()) << executable.status();
  auto arg = client->TransferToServer(Iota(131072, 1));
  ASSERT_TRUE(arg.ok()) << arg.status();
  auto run = client->Execute(*executable, {arg->get()});
  ASSERT_TRUE(run.ok()) << run.status();
  Literal result = client->TransferToClient(**run).value();
  // Element 7: negate and abs alternate, ending in abs: |x| + x = 14.
  EXPECT_EQ(result.data<float>()[7], 14.0f);
}

// A While whose condition is always true.
constexpr char kForeverLoop[] = R"(HloModule forever
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

TEST(DaemonLimitsTest, RunawayLoopsStopAtTheRunDeadlineAndTheDaemonKeepsServing) {
  auto daemon = DaemonProcess::Start({"--max_run_seconds=1"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  // On the default (CPU) backend.
  auto forever = client->CompileHloText(kForeverLoop);
  ASSERT_TRUE(forever.ok()) << forever.status();
  auto start = std::chrono::steady_clock::now();
  auto run = client->Execute(*forever, {});
  EXPECT_EQ(run.status().code(), absl::StatusCode::kDeadlineExceeded) << run.status();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  auto small = client->TransferToServer(Iota(1000, 1));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(client->TransferToClient(**small).value(), Iota(1000, 1));
}

TEST(DaemonLimitsTest, ARunStopsWhenItsClientsDeadlinePasses) {
  // The operator allows 300 s; the client waits 1 s for each call.
  auto daemon = DaemonProcess::Start({"--max_run_seconds=300"}).value();
  GrpcClientOptions options;
  options.call_timeout = absl::Seconds(1);
  auto client = GrpcClient::Connect(daemon->target(), options).value();
  auto forever = client->CompileHloText(kForeverLoop);
  ASSERT_TRUE(forever.ok()) << forever.status();
  auto run = client->Execute(*forever, {});
  EXPECT_EQ(run.status().code(), absl::StatusCode::kDeadlineExceeded) << run.status();
  // The daemon logs a request when its handler returns: the run itself has
  // stopped, long before the operator's 300 s.
  const auto start = std::chrono::steady_clock::now();
  while (daemon->Log().find("method=Execute") == std::string::npos &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_THAT(daemon->Log(), ::testing::ContainsRegex("method=Execute .*status=(DEADLINE_EXCEEDED|CANCELLED)"));
  // The session and the daemon keep serving.
  auto small = client->TransferToServer(Iota(1000, 1));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(client->TransferToClient(**small).value(), Iota(1000, 1));
}

// Each replica infeeds f32[2], sums it across the replicas and outfeeds it.
constexpr char kInfeedSumOutfeed[] = R"(
HloModule infeed_sum_outfeed
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  t = token[] after-all()
  in = (f32[2], token[]) infeed(t)
  v = f32[2] get-tuple-element(in), index=0
  t2 = token[] get-tuple-element(in), index=1
  s = f32[2] all-reduce(v), replica_groups={}, to_apply=sum
  o = token[] outfeed(s, t2)
  ROOT r = f32[2] add(s, s)
}
)";

ExecuteParallelRequest ReplicasOf(const char* hlo_text, int replicas) {
  ExecuteParallelRequest request;
  HloModuleProto proto = ParseHloModuleToProto(hlo_text).value();
  for (int r = 0; r < replicas; ++r) {
    ExecuteGraphRequest* one = request.add_requests();
    *one->mutable_computation() = proto;
    one->mutable_execution_options()->set_num_replicas(replicas);
  }
  return request;
}

TEST(DaemonLimitsTest, DevicesFlagSetsTheDeviceCount) {
  auto daemon = DaemonProcess::Start({"--devices=2"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  EXPECT_EQ(client->GetServiceInfo().value().device_count(), 2);
  auto two = client->GetDeviceHandles(2);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ((*two)[1].handle(), 1);
  EXPECT_EQ((*two)[1].device_count(), 2);
  auto three = client->GetDeviceHandles(3);
  EXPECT_EQ(three.status().code(), absl::StatusCode::kInvalidArgument) << three.status();
  // Three replicas do not fit on two devices.
  ExecuteParallelResponse response;
  absl::Status status = client->service()->ExecuteParallel(ReplicasOf(kInfeedSumOutfeed, 3), &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("3 requests but this service has 2 devices"));
  EXPECT_FALSE(DaemonProcess::Start({"--devices=0"}).ok());
}

TEST(DaemonLimitsTest, AReplicaWaitingForItsInfeedFailsEveryReplicaAtTheWaitBound) {
  auto daemon = DaemonProcess::Start({"--wait_seconds=1"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  auto devices = client->GetDeviceHandles(2).value();
  // Device 0 is fed, device 1 never is: replica 1 waits in its infeed and
  // replica 0 in the all-reduce, both until the 1 s bound.
  ASSERT_TRUE(client->TransferToInfeed(Literal::CreateR1<float>({1, 2}), &devices[0]).ok());
  auto start = std::chrono::steady_clock::now();
  ExecuteParallelResponse response;
  absl::Status status = client->service()->ExecuteParallel(ReplicasOf(kInfeedSumOutfeed, 2), &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  // Whichever wait ends first names itself: replica 1's infeed, or replica
  // 0's all-reduce missing replica 1.
  EXPECT_THAT(std::string(status.message()), ::testing::ContainsRegex("infeed|missing processes \\[\\(1,0\\)\\]"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  // The daemon keeps serving the same session.
  auto small = client->TransferToServer(Iota(10, 1));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(client->TransferToClient(**small).value(), Iota(10, 1));
  EXPECT_TRUE(daemon->running());
}

TEST_F(DaemonTest, OutfeedWaitEndsAtTheCallDeadline) {
  // The service would wait 60 s; the remote call's own deadline is 300 ms.
  GrpcClientOptions options;
  options.call_timeout = absl::Milliseconds(300);
  auto client = Connect(options);
  auto start = std::chrono::steady_clock::now();
  auto out = client->TransferFromOutfeed(nullptr);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded) << out.status();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ExpectServing();
}

TEST_F(DaemonTest, FeedQueuesAreIsolatedBetweenSessions) {
  auto alice = Connect();
  auto bob = Connect();
  auto devices = alice->GetDeviceHandles(1).value();
  ASSERT_TRUE(alice->TransferToInfeed(Literal::CreateR1<float>({4, 5}), &devices[0]).ok());
  // Bob's device 0 has no infeed value: his run waits and fails; Alice's value stays hers.
  ExecuteParallelResponse response;
  absl::Status status = alice->service()->ExecuteParallel(ReplicasOf(kInfeedSumOutfeed, 1), &response);
  ASSERT_TRUE(status.ok()) << status;
  auto bobs = bob->TransferFromOutfeed(nullptr, &devices[0], absl::Milliseconds(100));
  EXPECT_EQ(bobs.status().code(), absl::StatusCode::kDeadlineExceeded) << bobs.status();
  auto alices = alice->TransferFromOutfeed(nullptr, &devices[0], absl::Seconds(10));
  ASSERT_TRUE(alices.ok()) << alices.status();
  EXPECT_EQ(*alices, Literal::CreateR1<float>({4, 5}));
  GlobalData result(alice->service(), response.responses(0).output());  // released when the test ends
  EXPECT_EQ(alice->TransferToClient(result).value(), Literal::CreateR1<float>({8, 10}));
}

TEST(DaemonLimitsTest, AuthTokenIsRequiredWhenConfigured) {
  std::string token_path = std::string(std::getenv("TEST_TMPDIR")) + "/token";
  std::ofstream(token_path) << "s3cret\n";
  auto daemon = DaemonProcess::Start({"--auth_token_file=" + token_path}).value();
  auto none = GrpcClient::Connect(daemon->target());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kUnauthenticated);
  GrpcClientOptions wrong;
  wrong.auth_token = "guess";
  EXPECT_EQ(GrpcClient::Connect(daemon->target(), wrong).status().code(), absl::StatusCode::kUnauthenticated);
  GrpcClientOptions right;
  right.auth_token = "s3cret";
  auto client = GrpcClient::Connect(daemon->target(), right);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->TransferToClient(*(*client)->TransferToServer(Literal::CreateR0<int32_t>(5)).value()).value(),
            Literal::CreateR0<int32_t>(5));
  EXPECT_THAT(daemon->Log(), HasSubstr("UNAUTHENTICATED"));
}

TEST(DaemonLimitsTest, IdleSessionsAreClosedAndTheirBuffersFreed) {
  auto daemon = DaemonProcess::Start({"--session_idle_timeout_seconds=1"}).value();
  auto client = GrpcClient::Connect(daemon->target()).value();
  auto data = client->TransferToServer(Iota(1000, 1)).value();
  std::this_thread::sleep_for(std::chrono::milliseconds(2600));
  EXPECT_EQ(client->TransferToClient(*data).status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(daemon->Log(), HasSubstr("idle session"));
  auto observer = GrpcClient::Connect(daemon->target()).value();
  EXPECT_EQ(observer->GetServiceInfo()->bytes_in_use(), 0);
  data->Release();
}

TEST(DaemonLimitsTest, ServesOverTlsWhenConfigured) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  const std::string cert = dir + "/cert.pem", key = dir + "/key.pem";
  const std::string command = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
                              "-addext subjectAltName=IP:127.0.0.1 -keyout " + key + " -out " + cert +
                              " > " + dir + "/openssl.log 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << "openssl could not make a test certificate";
  auto daemon = DaemonProcess::Start({"--tls_cert=" + cert, "--tls_key=" + key}).value();
  std::ifstream in(cert);
  GrpcClientOptions tls;
  tls.tls_root_certs.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  auto client = GrpcClient::Connect(daemon->target(), tls);
  ASSERT_TRUE(client.ok()) << client.status() << daemon->Log();
  auto data = (*client)->TransferToServer(Literal::CreateR1<float>({1, 2})).value();
  EXPECT_EQ((*client)->TransferToClient(*data).value(), Literal::CreateR1<float>({1, 2}));
  // A plaintext client cannot talk to a TLS daemon, and the refused
  // handshake is in the daemon's log (gRPC's own line: the transport
  // rejects it before any handler sees a call).
  GrpcClientOptions plain;
  EXPECT_FALSE(GrpcClient::Connect(daemon->target(), plain).ok());
  EXPECT_THAT(daemon->Log(), HasSubstr("Handshake failed"));
}

TEST(DaemonLimitsTest, ShutsDownCleanlyOnSigterm) {
  auto daemon = DaemonProcess::Start().value();
  EXPECT_EQ(daemon->Stop(), 0);
  EXPECT_THAT(daemon->Log(), HasSubstr("shutting down"));
}

// A daemon restarted on the same --xla_cache_dir serves a program compiled
// by its predecessor without compiling it (issue 19).
TEST(DaemonRestartTest, ARestartedDaemonLoadsExecutablesFromItsCacheDirectory) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/xla_cache_dir";
  std::filesystem::remove_all(dir);
  auto run_axpy = [](const DaemonProcess& daemon) -> GetServiceInfoResponse {
    auto client = GrpcClient::Connect(daemon.target()).value();
    auto alpha = client->TransferToServer(Literal::CreateR0<float>(3)).value();
    auto x = client->TransferToServer(Literal::CreateR1<float>({1, 2, 3, 4, 5})).value();
    auto y = client->TransferToServer(Literal::CreateR1<float>({1, 1, 1, 1, 1})).value();
    auto result = client->ExecuteAndTransfer(AxpyComputation(5), {alpha.get(), x.get(), y.get()});
    EXPECT_TRUE(result.ok()) << result.status();
    if (result.ok()) EXPECT_EQ(*result, Literal::CreateR1<float>({4, 7, 10, 13, 16}));
    return client->GetServiceInfo().value();
  };
  {
    auto daemon = DaemonProcess::Start({"--xla_cache_dir=" + dir}).value();
    GetServiceInfoResponse info = run_axpy(*daemon);
    EXPECT_EQ(info.compilations(), 1);
    EXPECT_EQ(info.persistent_cache_writes(), 1);
    EXPECT_EQ(daemon->Stop(), 0) << daemon->Log();
  }
  auto restarted = DaemonProcess::Start({"--xla_cache_dir=" + dir}).value();
  GetServiceInfoResponse info = run_axpy(*restarted);
  EXPECT_EQ(info.compilations(), 0) << restarted->Log();
  EXPECT_EQ(info.persistent_cache_loads(), 1);
  EXPECT_EQ(info.persistent_cache_dir(), dir);
  // A directory the daemon cannot use is a startup error that names it.
  std::ofstream(dir + "/not_a_directory") << "x";
  auto refused = DaemonProcess::Start({"--xla_cache_dir=" + dir + "/not_a_directory"});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("not_a_directory"));
}

}  // namespace
}  // namespace xla
