// GrpcService: serves a Service over gRPC (proto/xla_service.proto).
//
// The unary methods use raw (ByteBuffer) messages, so that the daemon, not
// gRPC, decides what happens to a call:
//   - the auth token (when one is configured) and the session (metadata
//     "xla-session") are checked before the body is parsed, so an
//     unauthenticated caller cannot make the daemon parse anything;
//   - a body that does not parse (bad bytes, a string field that is not
//     UTF-8) is INVALID_ARGUMENT with a message naming the method;
//   - the work runs on the RequestQueue's workers (--threads): calls beyond
//     them wait in its bounded queue with fair turns between sessions,
//     instead of gRPC rejecting them when its thread pool is exhausted. The
//     one exception is an Execute whose last run took at most 100 us: when
//     nothing waits, it runs on the thread that received it, since handing
//     it to a worker (two thread wake-ups) would cost as much as the run.
// Execute, the call whose round trip matters most, is served from a
// completion queue that two threads of this service poll
// (AsyncUnaryServer): gRPC's callback API, which serves the other unary
// methods, hands every call from the thread that read it to a callback
// thread, one more wake-up per call.
// The two streamed transfers are raw callback reactors too: an upload's
// chunks are copied from gRPC's receive buffers straight into the device
// buffer, and a download's chunks refer to the device buffer, so neither
// copies the array through a protobuf string (xla/literal_chunk_wire.h); a
// download in another layout makes its relaid copy on a worker first. Every
// call is logged as one line (method, session, bytes, milliseconds,
// status), rejections included; so is a call
// of a method the daemon does not have (UnknownMethods(), registered as the
// server's generic service). The size limit of a request body (and of each
// chunk of a streamed upload) is the daemon's, max_request_bytes, not
// gRPC's: gRPC 1.51's core refuses a body over its own limit before any C++
// code (interceptors included) sees the call, so that rejection could not be
// logged; and the core receives the whole body before checking it either
// way, so its limit bounds no memory the daemon's check does not.
#ifndef SERVICE_GRPC_SERVICE_H_
#define SERVICE_GRPC_SERVICE_H_

#include <memory>
#include <string>

#include "grpcpp/generic/async_generic_service.h"
#include "proto/xla_service.grpc.pb.h"
#include "service/async_unary_server.h"
#include "service/metrics.h"
#include "service/request_queue.h"
#include "service/service.h"

namespace xla {

// The generated service with every unary method raw: Execute served from a
// completion queue (AsyncUnaryServer), the others callback-based.
using GrpcServiceBase = XlaService::WithRawCallbackMethod_OpenSession<
    XlaService::WithRawCallbackMethod_CloseSession<XlaService::WithRawCallbackMethod_Compile<
        XlaService::WithRawMethod_Execute<XlaService::WithRawCallbackMethod_ExecuteGraph<
            XlaService::WithRawCallbackMethod_ExecuteParallel<XlaService::WithRawCallbackMethod_ExecuteAsync<
                XlaService::WithRawCallbackMethod_WaitForExecution<XlaService::WithRawCallbackMethod_UnregisterExecutable<
                XlaService::WithRawCallbackMethod_TransferToServer<XlaService::WithRawCallbackMethod_TransferToClient<
                    XlaService::WithRawCallbackMethod_TransferToInfeed<
                        XlaService::WithRawCallbackMethod_TransferFromOutfeed<XlaService::WithRawCallbackMethod_Unregister<
                            XlaService::WithRawCallbackMethod_DeconstructTuple<XlaService::WithRawCallbackMethod_GetShape<
                                XlaService::WithRawCallbackMethod_GetComputationShape<
                                    XlaService::WithRawCallbackMethod_ComputeConstantGraph<
                                        XlaService::WithRawCallbackMethod_GetDeviceHandles<
                                            XlaService::WithRawCallbackMethod_CreateChannelHandle<
                                                XlaService::WithRawCallbackMethod_ResetDevice<
                                                    XlaService::WithRawCallbackMethod_GetServiceInfo<
                                                        XlaService::WithRawCallbackMethod_TransferToServerStream<
                                                            XlaService::WithRawCallbackMethod_TransferToClientStream<
                                                                XlaService::Service>>>>>>>>>>>>>>>>>>>>>>>>;

struct GrpcServiceOptions {
  std::string auth_token;  // empty: no authentication
  absl::Duration idle_timeout = absl::Minutes(10);
  int workers = 64;               // requests running at once
  int64_t max_queued_requests = 1024;  // requests waiting for a worker
  // Largest request body, and largest chunk of a streamed upload. The
  // server's gRPC receive limit must be at least this (xla_service lifts it).
  int64_t max_request_bytes = int64_t{4} << 20;
};

class GrpcService final : public GrpcServiceBase {
 public:
  GrpcService(std::shared_ptr<xla::Service> service, const GrpcServiceOptions& options);

  // How a server serves this: RegisterWith(&builder) before BuildAndStart
  // (the service, its unknown-method answers and Execute's completion
  // queue), Start() after it. The server is shut down before this is
  // destroyed (the destructor waits for the Executes in flight).
  void RegisterWith(grpc::ServerBuilder* builder);
  void Start();

#define XLA_RAW_UNARY(NAME)                                                                          \
  grpc::ServerUnaryReactor* NAME(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request, \
                                 grpc::ByteBuffer* response) override;
  XLA_RAW_UNARY(OpenSession)
  XLA_RAW_UNARY(CloseSession)
  XLA_RAW_UNARY(Compile)
  XLA_RAW_UNARY(ExecuteGraph)
  XLA_RAW_UNARY(ExecuteParallel)
  XLA_RAW_UNARY(ExecuteAsync)
  XLA_RAW_UNARY(WaitForExecution)
  XLA_RAW_UNARY(UnregisterExecutable)
  XLA_RAW_UNARY(TransferToServer)
  XLA_RAW_UNARY(TransferToClient)
  XLA_RAW_UNARY(TransferToInfeed)
  XLA_RAW_UNARY(TransferFromOutfeed)
  XLA_RAW_UNARY(Unregister)
  XLA_RAW_UNARY(DeconstructTuple)
  XLA_RAW_UNARY(GetShape)
  XLA_RAW_UNARY(GetComputationShape)
  XLA_RAW_UNARY(ComputeConstantGraph)
  XLA_RAW_UNARY(GetDeviceHandles)
  XLA_RAW_UNARY(CreateChannelHandle)
  XLA_RAW_UNARY(ResetDevice)
  XLA_RAW_UNARY(GetServiceInfo)
#undef XLA_RAW_UNARY

  grpc::ServerReadReactor<grpc::ByteBuffer>* TransferToServerStream(grpc::CallbackServerContext* context,
                                                                    grpc::ByteBuffer* response) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer>* TransferToClientStream(grpc::CallbackServerContext* context,
                                                                     const grpc::ByteBuffer* request) override;

  // Answers calls of methods no service registered: UNIMPLEMENTED naming
  // the method, logged and counted (under method "unknown") like any call.
  // For ServerBuilder::RegisterCallbackGenericService.
  grpc::CallbackGenericService* UnknownMethods() { return unknown_methods_.get(); }

  static grpc::Status ToGrpcStatus(const absl::Status& status);
  const RequestQueue& queue() const { return queue_; }
  // The Prometheus exposition text of the calls so far and the service now.
  std::string MetricsText() const { return metrics_.Render(*service_, queue_); }

 private:
  absl::Status Authenticate(const grpc::ServerContextBase& context) const;
  // Authenticates and resolves (and touches) the caller's session.
  absl::StatusOr<SessionId> SessionOf(const grpc::ServerContextBase& context) const;
  // Unregisters the handles the client released since its last call,
  // carried as metadata 'xla-release' (client/grpc_stub.h).
  absl::Status ReleaseCarriedHandles(SessionId session, const grpc::ServerContextBase& context);
  // A raw unary call: checks auth (and the session unless `sessionless`)
  // on the thread that received it, then queues the parse of `Request`,
  // `body` (SessionId, const Request&, Response*, const RequestControl&)
  // and the serialization of `Response` for a worker, logs the call and
  // passes its status to `reply`. With `is_short` (SessionId, const
  // Request&) -> bool, the request is parsed on the receiving thread, and
  // one it calls short runs there when the queue is idle
  // (RequestQueue::RunHereIfIdle); `is_short` nullptr: never.
  template <typename Request, typename Response, typename Body, typename IsShort, typename Reply>
  void HandleUnary(const char* method, bool sessionless, const grpc::ServerContextBase* context,
                   const grpc::ByteBuffer* raw_request, grpc::ByteBuffer* raw_response, RequestControl control,
                   Body body, IsShort is_short, Reply reply);
  // HandleUnary for a callback-API call.
  template <typename Request, typename Response, typename Body>
  grpc::ServerUnaryReactor* Unary(const char* method, bool sessionless, grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* raw_request, grpc::ByteBuffer* raw_response, Body body);
  // HandleUnary for an Execute from the completion queue.
  void ServeExecute(AsyncUnaryCall* call);
  // The two streamed transfers (grpc_service.cc), and their common log line.
  class UploadReactor;
  class DownloadReactor;
  struct StreamRecord;
  void FinishStream(const StreamRecord& record, const absl::Status& status);

  std::shared_ptr<xla::Service> service_;
  const GrpcServiceOptions options_;
  RequestQueue queue_;
  mutable ServiceMetrics metrics_;
  std::unique_ptr<grpc::CallbackGenericService> unknown_methods_;
  // After queue_: destroyed first, while the workers can still finish the
  // Executes they hold.
  AsyncUnaryServer execute_server_;
};

}  // namespace xla

#endif  // SERVICE_GRPC_SERVICE_H_
