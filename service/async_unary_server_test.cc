// AsyncUnaryServer on a real loopback server: calls answered on the
// poller, calls kept and finished later from other threads, a cancel seen
// by the handler, and a shutdown with calls still held by the handler.
#include "service/async_unary_server.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "proto/xla_service.grpc.pb.h"

namespace xla {
namespace {

// Only Execute is served (raw, from the completion queue); the handler is
// the test's.
class ExecuteOnly final : public XlaService::WithRawMethod_Execute<XlaService::Service> {};

std::string Text(const grpc::ByteBuffer& buffer) {
  grpc::Slice slice;
  EXPECT_TRUE(buffer.DumpToSingleSlice(&slice).ok());
  return std::string(reinterpret_cast<const char*>(slice.begin()), slice.size());
}

grpc::ByteBuffer Buffer(const std::string& text) {
  grpc::Slice slice(text);
  return grpc::ByteBuffer(&slice, 1);
}

class AsyncUnaryServerTest : public ::testing::Test {
 protected:
  // Starts a server whose Execute calls go to `handler`.
  void Serve(AsyncUnaryServer::Handler handler) {
    server_ = std::make_unique<AsyncUnaryServer>(
        [this](grpc::ServerContext* context, grpc::ByteBuffer* request,
               grpc::ServerAsyncResponseWriter<grpc::ByteBuffer>* responder, grpc::ServerCompletionQueue* queue,
               void* tag) { service_.RequestExecute(context, request, responder, queue, queue, tag); },
        std::move(handler));
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service_);
    server_->AddTo(&builder);
    grpc_server_ = builder.BuildAndStart();
    ASSERT_NE(grpc_server_, nullptr);
    server_->Start(2);
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  }

  // One raw Execute call with `body`: its status, and the reply in *reply.
  grpc::Status Call(const std::string& body, std::string* reply, grpc::ClientContext* context = nullptr) {
    grpc::ClientContext own;
    if (context == nullptr) context = &own;
    grpc::GenericStub stub(channel_);
    const grpc::ByteBuffer request = Buffer(body);
    grpc::ByteBuffer response;
    absl::Notification done;
    grpc::Status status;
    stub.UnaryCall(context, "/xla.XlaService/Execute", grpc::StubOptions(), &request, &response,
                   [&](grpc::Status s) {
                     status = std::move(s);
                     done.Notify();
                   });
    done.WaitForNotification();
    if (status.ok()) *reply = Text(response);
    return status;
  }

  // Serves with a handler that keeps every call; HeldCalls(n) waits for
  // n of them and returns them.
  void ServeHolding() {
    Serve([this](AsyncUnaryCall* call) {
      absl::MutexLock lock(&held_mutex_);
      held_.push_back(call);
    });
  }
  std::vector<AsyncUnaryCall*> HeldCalls(size_t n) {
    auto enough = [this, n] { return held_.size() >= n; };  // called with the lock held
    absl::MutexLock lock(&held_mutex_);
    held_mutex_.Await(absl::Condition(&enough));
    return held_;
  }

  void TearDown() override {
    if (grpc_server_ != nullptr) grpc_server_->Shutdown();
    if (server_ != nullptr) server_->Stop();
  }

  ExecuteOnly service_;
  std::unique_ptr<AsyncUnaryServer> server_;
  std::unique_ptr<grpc::Server> grpc_server_;
  std::shared_ptr<grpc::Channel> channel_;
  absl::Mutex held_mutex_;
  std::vector<AsyncUnaryCall*> held_ ABSL_GUARDED_BY(held_mutex_);
};

TEST_F(AsyncUnaryServerTest, AnswersOnThePoller) {
  Serve([](AsyncUnaryCall* call) {
    *call->response() = Buffer("echo:" + Text(call->request()));
    call->Finish(grpc::Status::OK);
  });
  for (int i = 0; i < 20; ++i) {
    std::string reply;
    ASSERT_TRUE(Call("x" + std::to_string(i), &reply).ok());
    EXPECT_EQ(reply, "echo:x" + std::to_string(i));
  }
}

TEST_F(AsyncUnaryServerTest, CallsKeptAndFinishedLaterFromOtherThreadsAllArrive) {
  ServeHolding();
  constexpr int kCalls = 32;
  std::vector<std::thread> clients;
  std::atomic<int> right{0};
  for (int i = 0; i < kCalls; ++i) {
    clients.emplace_back([&, i] {
      std::string reply;
      grpc::Status status = Call(std::to_string(i), &reply);
      if (status.ok() && reply == "done:" + std::to_string(i)) ++right;
    });
  }
  // Every call waits with the handler until all have arrived.
  const std::vector<AsyncUnaryCall*> calls = HeldCalls(kCalls);
  std::vector<std::thread> finishers;
  for (int t = 0; t < 4; ++t) {
    finishers.emplace_back([&, t] {
      for (size_t i = t; i < calls.size(); i += 4) {
        *calls[i]->response() = Buffer("done:" + Text(calls[i]->request()));
        calls[i]->Finish(grpc::Status::OK);
      }
    });
  }
  for (std::thread& t : finishers) t.join();
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(right.load(), kCalls);
}

TEST_F(AsyncUnaryServerTest, TheHandlerSeesTheClientsCancel) {
  ServeHolding();
  grpc::ClientContext context;
  grpc::Status status;
  std::thread client([&] {
    std::string reply;
    status = Call("long", &reply, &context);
  });
  AsyncUnaryCall* call = HeldCalls(1)[0];
  EXPECT_FALSE(call->cancelled());
  context.TryCancel();
  const auto start = std::chrono::steady_clock::now();
  while (!call->cancelled() && std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(call->cancelled());
  call->Finish(grpc::Status(grpc::StatusCode::CANCELLED, "seen"));
  client.join();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(AsyncUnaryServerTest, StopWaitsForCallsTheHandlerStillHoldsAtShutdown) {
  ServeHolding();
  std::vector<std::thread> clients;
  std::atomic<int> finished{0};
  for (int i = 0; i < 3; ++i) {
    clients.emplace_back([&] {
      std::string reply;
      (void)Call("held", &reply);
      ++finished;
    });
  }
  const std::vector<AsyncUnaryCall*> calls = HeldCalls(3);
  // The server shuts down with the three calls unanswered (its deadline
  // cancels them); the handler finishes them only afterwards, and Stop
  // waits for that instead of closing the queue under them.
  grpc_server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(100));
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (AsyncUnaryCall* call : calls) call->Finish(grpc::Status::OK);
  });
  server_->Stop();
  late.join();
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(finished.load(), 3);
}

}  // namespace
}  // namespace xla
