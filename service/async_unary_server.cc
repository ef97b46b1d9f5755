#include "service/async_unary_server.h"

namespace xla {

bool AsyncUnaryCall::cancelled() const {
  // IsCancelled is only safe once the done notification was delivered.
  return done_.load(std::memory_order_acquire) && context_.IsCancelled();
}

void AsyncUnaryCall::Finish(const grpc::Status& status) {
  // With a non-OK status gRPC sends no message.
  responder_.Finish(response_, status, &finished_);
}

void AsyncUnaryServer::AddTo(grpc::ServerBuilder* builder) { queue_ = builder->AddCompletionQueue(); }

void AsyncUnaryServer::ArmOneCall() {
  auto* call = new AsyncUnaryCall();
  {
    absl::MutexLock lock(&mutex_);
    ++live_calls_;
  }
  // Before the call starts: the done notification is what tells a
  // cancelled call (and makes IsCancelled safe to ask).
  call->context_.AsyncNotifyWhenDone(&call->done_tag_);
  request_(&call->context_, &call->request_, &call->responder_, queue_.get(), &call->arrived_);
}

void AsyncUnaryServer::Start(int threads) {
  for (int i = 0; i < threads; ++i) ArmOneCall();
  for (int i = 0; i < threads; ++i) pollers_.emplace_back([this] { Poll(); });
}

void AsyncUnaryServer::Release(AsyncUnaryCall* call) {
  delete call;
  absl::MutexLock lock(&mutex_);
  --live_calls_;
}

void AsyncUnaryServer::Poll() {
  void* tag = nullptr;
  bool ok = false;
  while (queue_->Next(&tag, &ok)) {
    auto* event = static_cast<AsyncUnaryCall::Tag*>(tag);
    AsyncUnaryCall* call = event->call;
    switch (event->event) {
      case AsyncUnaryCall::Event::kArrived: {
        if (!ok) {  // the server is shutting down: this call never started
          Release(call);
          break;
        }
        bool stopping;
        {
          absl::MutexLock lock(&mutex_);
          stopping = stopping_;
        }
        if (!stopping) ArmOneCall();  // the next call can arrive meanwhile
        handle_(call);
        break;
      }
      case AsyncUnaryCall::Event::kDone:
        call->done_.store(true, std::memory_order_release);
        [[fallthrough]];
      case AsyncUnaryCall::Event::kFinished:
        if (call->pending_events_.fetch_sub(1, std::memory_order_acq_rel) == 1) Release(call);
        break;
    }
  }
}

void AsyncUnaryServer::Stop() {
  if (stopped_ || queue_ == nullptr) return;
  stopped_ = true;
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
    // The server is shut down: calls waiting to arrive come back not ok,
    // and the ones in flight finish (their handlers' Finish still needs an
    // open queue).
    if (!pollers_.empty()) mutex_.Await(absl::Condition(+[](int64_t* live) { return *live == 0; }, &live_calls_));
  }
  queue_->Shutdown();
  if (pollers_.empty()) {  // never started: drain here
    void* tag = nullptr;
    bool ok = false;
    while (queue_->Next(&tag, &ok)) {
    }
  }
  for (std::thread& poller : pollers_) poller.join();
}

}  // namespace xla
