// AsyncUnaryServer: serves one raw unary method (marked async with the
// generated WithRawMethod_NAME) from a server completion queue that its own
// threads poll. A call's request is handed to the handler on the thread
// that polled it, which is also a thread that reads the network: a call the
// handler answers at once costs the same thread wake-ups as gRPC's
// synchronous API, where the callback API hands every call from the thread
// that read it to a callback thread (about 20 us a call on a 2-vCPU VM).
// The handler may also keep the call and Finish it later from any thread.
//
// Lifetime: AddTo before the server is built, Start after; the server is
// shut down before Stop (or the destructor), which waits for the calls in
// flight to finish and then stops polling.
#ifndef SERVICE_ASYNC_UNARY_SERVER_H_
#define SERVICE_ASYNC_UNARY_SERVER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/async_unary_call.h"

namespace xla {

// One call, from the moment the client's request arrived until gRPC is done
// with it; owned by the server.
class AsyncUnaryCall {
 public:
  grpc::ServerContext* context() { return &context_; }
  const grpc::ByteBuffer& request() const { return request_; }
  grpc::ByteBuffer* response() { return &response_; }
  // The client cancelled, disconnected or passed its deadline before the
  // call was finished. Any thread.
  bool cancelled() const;
  // Sends `response()` (when `status` is OK) and `status`. Exactly once per
  // call, from any thread; the call may be gone when it returns.
  void Finish(const grpc::Status& status);

 private:
  friend class AsyncUnaryServer;
  enum class Event { kArrived, kFinished, kDone };
  // What a completion-queue tag points to: the call and which of its three
  // events completed.
  struct Tag {
    AsyncUnaryCall* call;
    Event event;
  };
  AsyncUnaryCall() = default;

  grpc::ServerContext context_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  grpc::ServerAsyncResponseWriter<grpc::ByteBuffer> responder_{&context_};
  Tag arrived_{this, Event::kArrived};
  Tag finished_{this, Event::kFinished};
  Tag done_tag_{this, Event::kDone};
  std::atomic<bool> done_{false};
  // Events still to come once the call arrived: its Finish and gRPC's done
  // notification, in either order (on any poller).
  std::atomic<int> pending_events_{2};
};

class AsyncUnaryServer {
 public:
  // Asks gRPC for the next call of the method (the generated
  // RequestNAME(context, request, responder, cq, cq, tag)).
  using Requester = std::function<void(grpc::ServerContext*, grpc::ByteBuffer*,
                                       grpc::ServerAsyncResponseWriter<grpc::ByteBuffer>*,
                                       grpc::ServerCompletionQueue*, void*)>;
  // Takes an arrived call; it must Finish it, now or later.
  using Handler = std::function<void(AsyncUnaryCall*)>;

  AsyncUnaryServer(Requester request, Handler handle) : request_(std::move(request)), handle_(std::move(handle)) {}
  ~AsyncUnaryServer() { Stop(); }
  AsyncUnaryServer(const AsyncUnaryServer&) = delete;
  AsyncUnaryServer& operator=(const AsyncUnaryServer&) = delete;

  // Before builder->BuildAndStart().
  void AddTo(grpc::ServerBuilder* builder);
  // After the server started: `threads` pollers, each with one call waiting
  // to arrive.
  void Start(int threads);
  // After the server's Shutdown: waits for the calls in flight to finish,
  // then stops the pollers. Idempotent.
  void Stop();

 private:
  void ArmOneCall();
  void Poll();
  void Release(AsyncUnaryCall* call);

  const Requester request_;
  const Handler handle_;
  std::unique_ptr<grpc::ServerCompletionQueue> queue_;
  std::vector<std::thread> pollers_;
  absl::Mutex mutex_;
  int64_t live_calls_ ABSL_GUARDED_BY(mutex_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopped_ = false;
};

}  // namespace xla

#endif  // SERVICE_ASYNC_UNARY_SERVER_H_
