// Service benchmark: round-trip latency of Execute on a tiny computation
// (and over gRPC of ExecuteAndTransfer: the run and its result in one
// request) and transfer throughput for 256 MiB in and out, in-process and over loopback
// gRPC, next to a plain gRPC echo of the same payload in the same run.
// Prints one line per figure:
//   BENCH name=<id> value=<v> unit=<u> ref=<id> ref_value=<v> ratio=<r>
// (ratio > 1 means better than the reference).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "client/client_library.h"
#include "client/grpc_client.h"
#include "client/xla_builder.h"
#include "grpcpp/grpcpp.h"
#include "service/grpc_service.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/echo.grpc.pb.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

constexpr int64_t kPayload = int64_t{256} << 20;
constexpr int64_t kChunk = 1 << 20;

using bench::BestSeconds;
using bench::Report;

class EchoService final : public xla_bench::Echo::Service {
  grpc::Status Upload(grpc::ServerContext*, grpc::ServerReader<xla_bench::Chunk>* reader,
                      xla_bench::Count* count) override {
    xla_bench::Chunk chunk;
    int64_t bytes = 0;
    while (reader->Read(&chunk)) bytes += chunk.data().size();
    count->set_bytes(bytes);
    return grpc::Status::OK;
  }
  grpc::Status Download(grpc::ServerContext*, const xla_bench::Count* request,
                        grpc::ServerWriter<xla_bench::Chunk>* writer) override {
    std::string payload(kChunk, 'x');
    xla_bench::Chunk chunk;
    for (int64_t sent = 0; sent < request->bytes(); sent += kChunk) {
      chunk.set_data(payload.data(), std::min<int64_t>(kChunk, request->bytes() - sent));
      writer->Write(chunk);
    }
    return grpc::Status::OK;
  }
  grpc::Status Ping(grpc::ServerContext*, const xla_bench::Count* request, xla_bench::Count* response) override {
    response->set_bytes(request->bytes());
    return grpc::Status::OK;
  }
};

class CallbackEchoService final : public xla_bench::CallbackEcho::CallbackService {
  grpc::ServerUnaryReactor* Ping(grpc::CallbackServerContext* context, const xla_bench::Count* request,
                                 xla_bench::Count* response) override {
    response->set_bytes(request->bytes());
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

XlaComputation TinyAdd() {
  XlaBuilder b("tiny_add");
  Add(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4}), "x"), Parameter(&b, 1, ShapeUtil::MakeShape(F32, {4}), "y"));
  return b.Build().value();
}

int Main() {
  // The daemon's gRPC adapter and a plain echo service in one server.
  std::shared_ptr<Service> service = Service::Create("", ServiceLimits()).value();
  GrpcService grpc_service(service, GrpcServiceOptions());
  EchoService echo;
  CallbackEchoService callback_echo;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  grpc_service.RegisterWith(&builder);
  builder.RegisterService(&echo);
  builder.RegisterService(&callback_echo);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  grpc_service.Start();
  const std::string target = "127.0.0.1:" + std::to_string(port);
  // Keep the service's request log out of the figures.
  std::freopen("/dev/null", "w", stderr);

  auto echo_stub = xla_bench::Echo::NewStub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  auto callback_echo_stub =
      xla_bench::CallbackEcho::NewStub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  std::unique_ptr<GrpcClient> remote = GrpcClient::Connect(target).value();
  LocalClient* local = ClientLibrary::GetOrCreateLocalClient().value();

  // --- Latency: Execute of a 4-element add with arguments on the service.
  auto latency = [](Client* client) {
    ExecutionHandle exe = client->Compile(TinyAdd()).value();
    auto x = client->TransferToServer(Literal::CreateR1<float>({1, 2, 3, 4})).value();
    auto y = client->TransferToServer(Literal::CreateR1<float>({5, 6, 7, 8})).value();
    const int kRuns = 2000;
    double s = BestSeconds(3, [&] {
      for (int i = 0; i < kRuns; ++i) client->Execute(exe, {x.get(), y.get()}).value();
    });
    return s / kRuns * 1e6;
  };
  // One empty Ping's round trip, in microseconds.
  auto ping_latency = [](auto& stub) {
    const int kRuns = 2000;
    return BestSeconds(3, [&] {
             for (int i = 0; i < kRuns; ++i) {
               grpc::ClientContext context;
               xla_bench::Count request, response;
               stub->Ping(&context, request, &response);
             }
           }) / kRuns * 1e6;
  };
  double ping_us = ping_latency(echo_stub);
  // The same ping answered on the callback API's thread: what a callback
  // server's round trip costs before any work.
  double callback_ping_us = ping_latency(callback_echo_stub);
  Report("grpc_callback_ping_loopback", callback_ping_us, "us", "grpc_ping_loopback", ping_us, false);
  Report("execute_latency_inprocess", latency(local), "us", "grpc_ping_loopback", ping_us, false);
  Report("execute_latency_grpc", latency(remote.get()), "us", "grpc_ping_loopback", ping_us, false);
  // The same run with its result back in the response (one request where
  // Execute + TransferToClient took two).
  auto latency_with_result = [](Client* client) {
    ExecutionHandle exe = client->Compile(TinyAdd()).value();
    auto x = client->TransferToServer(Literal::CreateR1<float>({1, 2, 3, 4})).value();
    auto y = client->TransferToServer(Literal::CreateR1<float>({5, 6, 7, 8})).value();
    if (client->ExecuteAndTransfer(exe, {x.get(), y.get()}).value() != Literal::CreateR1<float>({6, 8, 10, 12})) {
      std::fprintf(stdout, "# execute_and_transfer: wrong result\n");
      std::exit(1);
    }
    const int kRuns = 2000;
    double s = BestSeconds(3, [&] {
      for (int i = 0; i < kRuns; ++i) client->ExecuteAndTransfer(exe, {x.get(), y.get()}).value();
    });
    return s / kRuns * 1e6;
  };
  Report("execute_and_transfer_latency_grpc", latency_with_result(remote.get()), "us", "grpc_ping_loopback", ping_us,
         false);

  // --- Throughput: 256 MiB in and out.
  Literal payload(ShapeUtil::MakeShape(U8, {kPayload}));
  std::memset(payload.untyped_data(), 7, kPayload);
  const double mib = kPayload / double(1 << 20);
  double echo_up = BestSeconds(3, [&] {
    grpc::ClientContext context;
    xla_bench::Count count;
    auto writer = echo_stub->Upload(&context, &count);
    xla_bench::Chunk chunk;
    const char* bytes = static_cast<const char*>(payload.untyped_data());
    for (int64_t off = 0; off < kPayload; off += kChunk) {
      chunk.set_data(bytes + off, kChunk);
      writer->Write(chunk);
    }
    writer->WritesDone();
    writer->Finish();
  });
  double echo_down = BestSeconds(3, [&] {
    grpc::ClientContext context;
    xla_bench::Count request;
    request.set_bytes(kPayload);
    auto reader = echo_stub->Download(&context, request);
    xla_bench::Chunk chunk;
    std::string sink(kPayload, '\0');
    int64_t off = 0;
    while (reader->Read(&chunk)) {
      std::memcpy(sink.data() + off, chunk.data().data(), chunk.data().size());
      off += chunk.data().size();
    }
    reader->Finish();
  });
  for (auto [name, client] : {std::pair<const char*, Client*>{"inprocess", local}, {"grpc", remote.get()}}) {
    std::unique_ptr<GlobalData> held;
    double up = BestSeconds(3, [&] { held = client->TransferToServer(payload).value(); });
    double down = BestSeconds(3, [&] { client->TransferToClient(*held).value(); });
    Report(std::string("transfer_in_256MiB_") + name, mib / up, "MiB/s", "grpc_echo_upload", mib / echo_up, true);
    Report(std::string("transfer_out_256MiB_") + name, mib / down, "MiB/s", "grpc_echo_download", mib / echo_down,
           true);
  }
  remote.reset();
  server->Shutdown();
  return 0;
}

}  // namespace
}  // namespace xla

int main() { return xla::Main(); }
