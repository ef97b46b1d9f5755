#include "service/grpc_service.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <type_traits>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "service/grpc_metadata.h"
#include "xla/chunked_transfer.h"
#include "xla/literal_chunk_wire.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

constexpr int64_t kChunkBytes = 1 << 20;
// Runs this short go on gRPC's thread (when the queue is idle) rather than
// a worker's: the hand-off would cost about as much as the run.
constexpr absl::Duration kShortRun = absl::Microseconds(100);

void LogRequest(const char* method, const std::string& session, int64_t bytes, double ms, const absl::Status& s) {
  std::fprintf(stderr, "xla_service: method=%s session=%s bytes=%lld ms=%.3f status=%s\n", method,
               session.c_str(), static_cast<long long>(bytes), ms,
               s.ok() ? "OK" : absl::StrCat(absl::StatusCodeToString(s.code()), ": ", s.message()).c_str());
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// A request's own deadline and cancel, for the runs and compiles it starts:
// gRPC marks the context cancelled when the client cancels, its deadline
// passes or it disconnects, so the work stops instead of finishing for no
// one. `cancelled` asks the call (how depends on gRPC's API).
RequestControl RequestControlOf(const grpc::ServerContextBase& context, std::function<bool()> cancelled) {
  RequestControl request;
  if (context.deadline() != std::chrono::system_clock::time_point::max()) {
    request.deadline = absl::FromChrono(context.deadline());
  }
  request.cancelled = std::move(cancelled);
  return request;
}

// Parses a raw request body; INVALID_ARGUMENT naming the method otherwise.
template <typename Request>
absl::Status ParseRequest(const char* method, const grpc::ByteBuffer& raw, Request* request) {
  if (!ParseFromByteBuffer(raw, request)) {
    return InvalidArgument(
        "%s: the request body (%d bytes) is not a valid %s (malformed bytes, or a string field that is not UTF-8)",
        method, raw.Length(), Request::descriptor()->full_name());
  }
  return absl::OkStatus();
}

// A device buffer's array leaves, for LeafWriter and ForEachChunk.
std::vector<LeafBytes> DeviceLeaves(DeviceBuffer& buffer) {
  std::vector<LeafBytes> leaves;
  for (DeviceBuffer* leaf : buffer.MutableLeaves()) {
    leaves.push_back({static_cast<uint8_t*>(leaf->mutable_data()), leaf->size_bytes(),
                      leaf->shape().element_type() == PRED});
  }
  return leaves;
}

// Calls without a session share one turn of the request queue.
constexpr int64_t kNoSessionKey = -1;

// Finishes a call of an unknown method at once; deletes itself when gRPC is
// done with it.
class UnknownMethodReactor : public grpc::ServerGenericBidiReactor {
 public:
  explicit UnknownMethodReactor(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

class UnknownMethodService : public grpc::CallbackGenericService {
 public:
  explicit UnknownMethodService(ServiceMetrics* metrics) : metrics_(metrics) {}

  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* context) override {
    // The path is the client's: shown escaped and cut short, and counted
    // under one label so that clients cannot grow the metrics.
    std::string method = absl::CHexEscape(context->method().substr(0, 200));
    const absl::Status status = absl::UnimplementedError(absl::StrCat(
        "unknown method '", method, "' (this daemon serves ", XlaService::service_full_name(), ")"));
    LogRequest(method.c_str(), "-", 0, 0, status);
    metrics_->RecordCall("unknown", status.code(), 0, 0);
    return new UnknownMethodReactor(GrpcService::ToGrpcStatus(status));
  }

 private:
  ServiceMetrics* metrics_;
};

}  // namespace

GrpcService::GrpcService(std::shared_ptr<xla::Service> service, const GrpcServiceOptions& options)
    : service_(std::move(service)),
      options_(options),
      queue_(options.workers, options.max_queued_requests),
      unknown_methods_(std::make_unique<UnknownMethodService>(&metrics_)),
      execute_server_(
          [this](grpc::ServerContext* context, grpc::ByteBuffer* request,
                 grpc::ServerAsyncResponseWriter<grpc::ByteBuffer>* responder, grpc::ServerCompletionQueue* queue,
                 void* tag) { RequestExecute(context, request, responder, queue, queue, tag); },
          [this](AsyncUnaryCall* call) { ServeExecute(call); }) {}

void GrpcService::RegisterWith(grpc::ServerBuilder* builder) {
  builder->RegisterService(this);
  builder->RegisterCallbackGenericService(UnknownMethods());
  execute_server_.AddTo(builder);
}

// Two pollers: one short Execute running on a poller does not hold up the
// next call's arrival.
void GrpcService::Start() { execute_server_.Start(/*threads=*/2); }

grpc::Status GrpcService::ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbers.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

absl::Status GrpcService::Authenticate(const grpc::ServerContextBase& context) const {
  return CheckAuthToken(context, options_.auth_token);
}

absl::StatusOr<SessionId> GrpcService::SessionOf(const grpc::ServerContextBase& context) const {
  RETURN_IF_ERROR(Authenticate(context));
  absl::StatusOr<std::string> token = Metadata(context, "xla-session");
  if (!token.ok()) return FailedPrecondition("no session: call OpenSession and send its id as metadata 'xla-session'");
  ASSIGN_OR_RETURN(SessionId id, service_->SessionForToken(*token));
  RETURN_IF_ERROR(service_->TouchSession(id));
  return id;
}

absl::Status GrpcService::ReleaseCarriedHandles(SessionId session, const grpc::ServerContextBase& context) {
  absl::StatusOr<std::string> carried = Metadata(context, "xla-release");
  if (!carried.ok()) return absl::OkStatus();  // none
  UnregisterRequest request;
  for (absl::string_view id : absl::StrSplit(*carried, ',')) {
    int64_t handle = 0;
    if (!absl::SimpleAtoi(id, &handle)) {
      return InvalidArgument("metadata 'xla-release': '%s' is not a handle (ids joined by commas)",
                             absl::CEscape(id.substr(0, 32)));
    }
    request.add_data()->set_handle(handle);
  }
  UnregisterResponse response;
  // Handles already gone (released twice after a failed call) are fine;
  // the session's own are the only ones it can release.
  service_->Unregister(session, request, &response).IgnoreError();
  return absl::OkStatus();
}

template <typename Request, typename Response, typename Body, typename IsShort, typename Reply>
void GrpcService::HandleUnary(const char* method, bool sessionless, const grpc::ServerContextBase* context,
                              const grpc::ByteBuffer* raw_request, grpc::ByteBuffer* raw_response,
                              RequestControl control, Body body, IsShort is_short, Reply reply) {
  const auto start = std::chrono::steady_clock::now();
  const int64_t request_bytes = raw_request->Length();
  auto finish = [=](const std::string& session_text, int64_t response_bytes, const absl::Status& status) {
    const double ms = MillisecondsSince(start);
    LogRequest(method, session_text, request_bytes + response_bytes, ms, status);
    metrics_.RecordCall(method, status.code(), ms / 1000, request_bytes + response_bytes);
    reply(ToGrpcStatus(status));
  };
  // On the thread that received the call, before the body is parsed: who
  // is calling.
  SessionId session = kNoSessionKey;
  absl::Status admitted;
  if (sessionless) {
    admitted = Authenticate(*context);
  } else {
    absl::StatusOr<SessionId> resolved = SessionOf(*context);
    admitted = resolved.status();
    if (resolved.ok()) session = *resolved;
  }
  if (admitted.ok() && request_bytes > options_.max_request_bytes) {
    admitted = absl::ResourceExhaustedError(absl::StrCat(
        method, ": the request body is ", request_bytes, " bytes; this daemon accepts at most ",
        options_.max_request_bytes, " (--max_request_bytes); send large arrays with TransferToServerStream"));
  }
  if (!admitted.ok()) {
    finish("-", 0, admitted);
    return;
  }
  const std::string session_text = sessionless ? "-" : absl::StrCat(session);
  // `preparsed`: the request, when it was parsed already (else null).
  auto run = [=](const Request* preparsed) {
    if (control.cancelled && control.cancelled()) {
      finish(session_text, 0, absl::CancelledError("the client went away while the call waited for a worker"));
      return;
    }
    Request parsed_here;
    absl::Status status = sessionless ? absl::OkStatus() : ReleaseCarriedHandles(session, *context);
    if (status.ok() && preparsed == nullptr) status = ParseRequest(method, *raw_request, &parsed_here);
    const Request& request = preparsed != nullptr ? *preparsed : parsed_here;
    int64_t response_bytes = 0;
    if (status.ok()) {
      Response response;
      status = body(session, request, &response, control);
      if (status.ok()) {
        absl::StatusOr<grpc::ByteBuffer> serialized = SerializeToByteBuffer(response);
        status = serialized.status();
        if (status.ok()) *raw_response = *std::move(serialized);
        response_bytes = raw_response->Length();
      }
    }
    finish(session_text, response_bytes, status);
  };
  if constexpr (!std::is_same_v<IsShort, std::nullptr_t>) {
    // A call known to be short runs here, on the receiving thread, when
    // the queue is idle; one that is not, or finds the queue busy, takes
    // its parsed request to a worker. A request that does not parse goes
    // the usual way and gets its error there.
    auto request = std::make_shared<Request>();
    if (ParseRequest(method, *raw_request, request.get()).ok()) {
      if (is_short(session, *request) && queue_.RunHereIfIdle([&] { run(request.get()); })) return;
      absl::Status queued = queue_.Submit(session, [=]() { run(request.get()); });
      if (!queued.ok()) finish(session_text, 0, queued);
      return;
    }
  }
  absl::Status queued = queue_.Submit(session, [=]() { run(nullptr); });
  if (!queued.ok()) finish(session_text, 0, queued);
}

template <typename Request, typename Response, typename Body>
grpc::ServerUnaryReactor* GrpcService::Unary(const char* method, bool sessionless,
                                             grpc::CallbackServerContext* context,
                                             const grpc::ByteBuffer* raw_request, grpc::ByteBuffer* raw_response,
                                             Body body) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  HandleUnary<Request, Response>(method, sessionless, context, raw_request, raw_response,
                                 RequestControlOf(*context, [context] { return context->IsCancelled(); }), body,
                                 nullptr, [reactor](const grpc::Status& status) { reactor->Finish(status); });
  return reactor;
}

grpc::ServerUnaryReactor* GrpcService::OpenSession(grpc::CallbackServerContext* context,
                                                   const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  return Unary<OpenSessionRequest, OpenSessionResponse>(
      "OpenSession", /*sessionless=*/true, context, request, response,
      [this](SessionId, const OpenSessionRequest& r, OpenSessionResponse* out, const RequestControl&) {
        SessionId id = service_->OpenSession(r.client_name());
        out->set_session_id(service_->SessionToken(id));  // the log shows the number, never the token
        out->set_idle_timeout_seconds(absl::ToInt64Seconds(options_.idle_timeout));
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* GrpcService::GetServiceInfo(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  return Unary<GetServiceInfoRequest, GetServiceInfoResponse>(
      "GetServiceInfo", /*sessionless=*/true, context, request, response,
      [this](SessionId, const GetServiceInfoRequest& r, GetServiceInfoResponse* out, const RequestControl&) {
        return service_->GetServiceInfo(r, out);
      });
}

grpc::ServerUnaryReactor* GrpcService::CloseSession(grpc::CallbackServerContext* context,
                                                    const grpc::ByteBuffer* request, grpc::ByteBuffer* response) {
  return Unary<CloseSessionRequest, CloseSessionResponse>(
      "CloseSession", /*sessionless=*/false, context, request, response,
      [this](SessionId s, const CloseSessionRequest&, CloseSessionResponse*, const RequestControl&) {
        return service_->CloseSession(s);
      });
}

// The session-bound unary methods all have the same shape; ARGS are the
// Service method's arguments.
#define SESSION_METHOD(NAME, REQUEST, RESPONSE, ARGS)                                                        \
  grpc::ServerUnaryReactor* GrpcService::NAME(grpc::CallbackServerContext* context,                          \
                                              const grpc::ByteBuffer* request, grpc::ByteBuffer* response) { \
    return Unary<REQUEST, RESPONSE>(                                                                         \
        #NAME, /*sessionless=*/false, context, request, response,                                           \
        [this](SessionId s, const REQUEST& r, RESPONSE* out, const RequestControl& control) {              \
          (void)control;                                                                                     \
          return service_->NAME ARGS;                                                                        \
        });                                                                                                  \
  }
#define UNARY_METHOD(NAME, REQUEST, RESPONSE) SESSION_METHOD(NAME, REQUEST, RESPONSE, (s, r, out))
// Methods that run or compile a computation (or wait for one) also pass the
// request's deadline and cancel.
#define RUNNING_METHOD(NAME, REQUEST, RESPONSE) \
  SESSION_METHOD(NAME, REQUEST, RESPONSE, (s, r, out, control))
RUNNING_METHOD(ExecuteGraph, ExecuteGraphRequest, ExecuteResponse)
RUNNING_METHOD(ExecuteParallel, ExecuteParallelRequest, ExecuteParallelResponse)
RUNNING_METHOD(WaitForExecution, WaitForExecutionRequest, WaitForExecutionResponse)
RUNNING_METHOD(TransferFromOutfeed, TransferFromOutfeedRequest, TransferFromOutfeedResponse)
RUNNING_METHOD(ComputeConstantGraph, ComputeConstantGraphRequest, ComputeConstantResponse)
RUNNING_METHOD(Compile, CompileRequest, CompileResponse)
#undef RUNNING_METHOD
UNARY_METHOD(UnregisterExecutable, UnregisterExecutableRequest, UnregisterExecutableResponse)
UNARY_METHOD(ExecuteAsync, ExecuteAsyncRequest, ExecuteAsyncResponse)
UNARY_METHOD(TransferToServer, TransferToServerRequest, TransferToServerResponse)
UNARY_METHOD(TransferToClient, TransferToClientRequest, TransferToClientResponse)
UNARY_METHOD(TransferToInfeed, TransferToInfeedRequest, TransferToInfeedResponse)
UNARY_METHOD(Unregister, UnregisterRequest, UnregisterResponse)
UNARY_METHOD(DeconstructTuple, DeconstructTupleRequest, DeconstructTupleResponse)
UNARY_METHOD(GetShape, GetShapeRequest, GetShapeResponse)
UNARY_METHOD(GetComputationShape, GetComputationShapeRequest, GetComputationShapeResponse)
UNARY_METHOD(GetDeviceHandles, GetDeviceHandlesRequest, GetDeviceHandlesResponse)
UNARY_METHOD(CreateChannelHandle, CreateChannelHandleRequest, CreateChannelHandleResponse)
UNARY_METHOD(ResetDevice, ResetDeviceRequest, ResetDeviceResponse)
#undef UNARY_METHOD
#undef SESSION_METHOD

// Execute is served from the completion queue (AsyncUnaryServer), and one
// whose last run was short runs on the thread that received it.
void GrpcService::ServeExecute(AsyncUnaryCall* call) {
  HandleUnary<ExecuteRequest, ExecuteResponse>(
      "Execute", /*sessionless=*/false, call->context(), &call->request(), call->response(),
      RequestControlOf(*call->context(), [call] { return call->cancelled(); }),
      [this](SessionId s, const ExecuteRequest& r, ExecuteResponse* out, const RequestControl& control) {
        return service_->Execute(s, r, out, control);
      },
      [this](SessionId s, const ExecuteRequest& r) { return service_->LastRunTookAtMost(s, r.handle(), kShortRun); },
      [call](const grpc::Status& status) { call->Finish(status); });
}

// A streamed call's log line and counters, written when it finishes.
struct GrpcService::StreamRecord {
  const char* method;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::string session_text = "-";
  int64_t bytes = 0;
};

void GrpcService::FinishStream(const StreamRecord& record, const absl::Status& status) {
  const double ms = MillisecondsSince(record.start);
  LogRequest(record.method, record.session_text, record.bytes, ms, status);
  metrics_.RecordCall(record.method, status.code(), ms / 1000, record.bytes);
}

// An upload: the first chunk carries the shape, which is checked against
// the session's quota and allocated before any data arrives; every later
// chunk's bytes are copied from gRPC's receive buffer straight into the
// device buffer. Runs on gRPC's callback threads (it only copies memory).
class GrpcService::UploadReactor final : public grpc::ServerReadReactor<grpc::ByteBuffer> {
 public:
  UploadReactor(GrpcService* owner, grpc::CallbackServerContext* context, grpc::ByteBuffer* response)
      : owner_(owner), context_(context), response_(response) {
    record_.method = "TransferToServerStream";
    absl::StatusOr<SessionId> session = owner_->SessionOf(*context);
    if (!session.ok()) {
      Done(session.status());
      return;
    }
    session_ = *session;
    record_.session_text = absl::StrCat(session_);
    StartRead(&incoming_);
  }

  void OnReadDone(bool ok) override {
    absl::Status status = ok ? Consume() : EndOfStream();
    if (!ok || !status.ok()) {
      Done(status);
      return;
    }
    StartRead(&incoming_);
  }

  void OnDone() override { delete this; }

 private:
  absl::Status Consume() {
    ++chunks_;
    const int64_t size = incoming_.Length();
    if (size > owner_->options_.max_request_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "TransferToServerStream: chunk ", chunks_, " is ", size, " bytes; this daemon accepts chunks of at most ",
          owner_->options_.max_request_bytes, " (--max_request_bytes)"));
    }
    LiteralChunk parsed;
    ASSIGN_OR_RETURN(bool general, ReadChunk(incoming_, [this](absl::string_view bytes) { return Append(bytes); },
                                             &parsed));
    if (!general) return absl::OkStatus();
    if (parsed.has_shape()) {
      if (writer_.has_value()) return InvalidArgument("TransferToServerStream: a later chunk carries a shape");
      ASSIGN_OR_RETURN(Shape shape, ShapeUtil::FromProto(parsed.shape()));
      // The quota is checked on the declared shape before anything is
      // allocated.
      ASSIGN_OR_RETURN(buffer_, owner_->service_->AllocateForTransfer(session_, shape, &reservation_));
      writer_.emplace(DeviceLeaves(*buffer_));
    }
    return Append(parsed.data());
  }

  absl::Status Append(absl::string_view bytes) {
    if (!writer_.has_value()) return InvalidArgument("TransferToServerStream: the first chunk must carry the shape");
    record_.bytes += bytes.size();
    return writer_->Append(bytes);
  }

  absl::Status EndOfStream() {
    // The stream also ends when the client goes away mid-upload: that is a
    // cancel, not a short upload.
    if (context_->IsCancelled()) {
      return absl::CancelledError(absl::StrCat("TransferToServerStream: the client cancelled the upload after ",
                                               record_.bytes, " bytes"));
    }
    if (!writer_.has_value()) return InvalidArgument("TransferToServerStream: no chunks were sent");
    RETURN_IF_ERROR(writer_->Finish());
    TransferToServerResponse response;
    ASSIGN_OR_RETURN(*response.mutable_data(), owner_->service_->RegisterBuffer(session_, std::move(buffer_), "transfer"));
    reservation_.Release();
    ASSIGN_OR_RETURN(*response_, SerializeToByteBuffer(response));
    return absl::OkStatus();
  }

  void Done(const absl::Status& status) {
    owner_->FinishStream(record_, status);
    Finish(ToGrpcStatus(status));
  }

  GrpcService* const owner_;
  grpc::CallbackServerContext* const context_;
  grpc::ByteBuffer* const response_;
  StreamRecord record_;
  SessionId session_ = kNoSessionKey;
  grpc::ByteBuffer incoming_;
  int64_t chunks_ = 0;
  AllocationTracker::Reservation reservation_;
  std::shared_ptr<DeviceBuffer> buffer_;
  std::optional<LeafWriter> writer_;
};

// A download: the shape, then the value's bytes in chunks that refer to the
// device buffer (or to the relaid copy) instead of copying it; each chunk
// holds the memory it refers to until gRPC has sent it.
class GrpcService::DownloadReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  DownloadReactor(GrpcService* owner, grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request)
      : owner_(owner) {
    record_.method = "TransferToClientStream";
    record_.bytes = raw_request->Length();
    absl::Status status = Admit(*context, *raw_request);
    if (status.ok() && request_.has_shape_with_layout()) {
      // A relaid copy is a pass over the whole value: it is made on a worker,
      // not on gRPC's thread. The reactor lives until Done's Finish.
      status = owner_->queue_.Submit(session_, [this] { StartOrFail(); });
    } else if (status.ok()) {
      StartOrFail();
      return;
    }
    if (!status.ok()) Done(status);
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Done(absl::CancelledError("TransferToClientStream: the client went away"));
      return;
    }
    if (next_piece_ == pieces_.size()) {
      Done(absl::OkStatus());
      return;
    }
    const absl::string_view piece = pieces_[next_piece_++];
    record_.bytes += piece.size();
    outgoing_ = DataChunkReferencing(piece, source_);
    StartWrite(&outgoing_);
  }

  void OnDone() override { delete this; }

 private:
  // The caller's session and request.
  absl::Status Admit(const grpc::CallbackServerContext& context, const grpc::ByteBuffer& raw_request) {
    ASSIGN_OR_RETURN(session_, owner_->SessionOf(context));
    record_.session_text = absl::StrCat(session_);
    return ParseRequest(record_.method, raw_request, &request_);
  }

  void StartOrFail() {
    absl::Status status = Prepare();
    if (status.ok()) {
      StartWrite(&outgoing_);
    } else {
      Done(status);
    }
  }

  // The bytes to send, as pieces of the device buffer or of its relaid copy,
  // and the first message (the shape).
  absl::Status Prepare() {
    std::vector<LeafBytes> leaves;
    LiteralChunk first;
    if (request_.has_shape_with_layout()) {
      ASSIGN_OR_RETURN(Shape requested, ShapeUtil::FromProto(request_.shape_with_layout()));
      ASSIGN_OR_RETURN(Literal relaid, owner_->service_->TransferLiteralToClient(session_, request_.data(), &requested));
      auto owned = std::make_shared<Literal>(std::move(relaid));
      leaves = LiteralLeaves(*owned);
      *first.mutable_shape() = owned->shape().ToProto();
      source_ = std::move(owned);
    } else {
      ASSIGN_OR_RETURN(std::shared_ptr<const DeviceBuffer> buffer, owner_->service_->ResolveBuffer(session_, request_.data()));
      // Read only; LeafBytes is shared with the receiving side.
      leaves = DeviceLeaves(const_cast<DeviceBuffer&>(*buffer));
      *first.mutable_shape() = buffer->shape().ToProto();
      source_ = std::move(buffer);
    }
    RETURN_IF_ERROR(ForEachChunk(leaves, kChunkBytes, [&](absl::string_view piece) {
      pieces_.push_back(piece);
      return absl::OkStatus();
    }));
    ASSIGN_OR_RETURN(outgoing_, SerializeToByteBuffer(first));
    return absl::OkStatus();
  }

  void Done(const absl::Status& status) {
    owner_->FinishStream(record_, status);
    Finish(ToGrpcStatus(status));
  }

  GrpcService* const owner_;
  StreamRecord record_;
  SessionId session_ = kNoSessionKey;
  TransferToClientRequest request_;
  std::shared_ptr<const void> source_;  // the bytes the chunks refer to
  std::vector<absl::string_view> pieces_;
  size_t next_piece_ = 0;
  grpc::ByteBuffer outgoing_;
};

grpc::ServerReadReactor<grpc::ByteBuffer>* GrpcService::TransferToServerStream(grpc::CallbackServerContext* context,
                                                                              grpc::ByteBuffer* response) {
  return new UploadReactor(this, context, response);
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* GrpcService::TransferToClientStream(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request) {
  return new DownloadReactor(this, context, request);
}

}  // namespace xla
