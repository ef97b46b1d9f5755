#include "client/grpc_stub.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "xla/chunked_transfer.h"
#include "xla/literal_chunk_wire.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {
constexpr int64_t kChunkBytes = 1 << 20;
// Literals at most this large go in one message.
constexpr int64_t kUnaryTransferLimit = 1 << 20;

std::string MethodPath(absl::string_view method) {
  return absl::StrCat("/", XlaService::service_full_name(), "/", method);
}

// One streamed call with raw messages, driven step by step over its own
// completion queue: each operation waits for its completion, as the
// synchronous API's would.
class RawStream {
 public:
  RawStream(grpc::GenericStub* stub, grpc::ClientContext* context, const std::string& method)
      : call_(stub->PrepareCall(context, method, &queue_)) {
    call_->StartCall(this);
    open_ = Wait();
  }
  ~RawStream() {
    queue_.Shutdown();
    void* tag;
    bool ok;
    while (queue_.Next(&tag, &ok)) {
    }
  }
  // False once the stream is closed (the reason comes from Finish).
  bool Write(const grpc::ByteBuffer& message) {
    if (!open_) return false;
    call_->Write(message, this);
    return open_ = Wait();
  }
  void WritesDone() {
    if (!open_) return;
    call_->WritesDone(this);
    Wait();
  }
  bool Read(grpc::ByteBuffer* message) {
    call_->Read(message, this);
    return Wait();
  }
  grpc::Status Finish() {
    grpc::Status status;
    call_->Finish(&status, this);
    Wait();
    return status;
  }

 private:
  bool Wait() {
    void* tag = nullptr;
    bool ok = false;
    return queue_.Next(&tag, &ok) && ok;
  }

  grpc::CompletionQueue queue_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
  bool open_ = false;
};
}  // namespace

GrpcStub::GrpcStub(std::shared_ptr<grpc::Channel> channel, std::string auth_token, absl::Duration call_timeout)
    : stub_(XlaService::NewStub(channel)),
      raw_stub_(std::make_unique<grpc::GenericStub>(std::move(channel))),
      auth_token_(std::move(auth_token)), call_timeout_(call_timeout) {}

absl::Status GrpcStub::FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  // absl and gRPC share the canonical code numbers.
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

void GrpcStub::PrepareContext(grpc::ClientContext* context) const {
  if (!auth_token_.empty()) context->AddMetadata("xla-auth-token", auth_token_);
  if (!session_id_.empty()) context->AddMetadata("xla-session", session_id_);
  if (call_timeout_ > absl::ZeroDuration()) context->set_deadline(absl::ToChronoTime(absl::Now() + call_timeout_));
}

absl::Status GrpcStub::OpenSession(const std::string& client_name) {
  grpc::ClientContext context;
  PrepareContext(&context);
  OpenSessionRequest request;
  request.set_client_name(client_name);
  OpenSessionResponse response;
  RETURN_IF_ERROR(FromGrpcStatus(stub_->OpenSession(&context, request, &response)));
  session_id_ = response.session_id();
  return absl::OkStatus();
}

absl::Status GrpcStub::CloseSession() {
  if (session_id_.empty()) return absl::OkStatus();
  {
    // Closing the session releases every handle it holds.
    absl::MutexLock lock(&release_mutex_);
    pending_releases_.clear();
  }
  grpc::ClientContext context;
  PrepareContext(&context);
  CloseSessionResponse response;
  absl::Status status = FromGrpcStatus(stub_->CloseSession(&context, CloseSessionRequest(), &response));
  session_id_.clear();
  return status;
}

std::vector<int64_t> GrpcStub::PrepareContextWithReleases(grpc::ClientContext* context) {
  PrepareContext(context);
  std::vector<int64_t> releases;
  {
    absl::MutexLock lock(&release_mutex_);
    releases.swap(pending_releases_);
  }
  if (!releases.empty()) context->AddMetadata("xla-release", absl::StrJoin(releases, ","));
  return releases;
}

void GrpcStub::RequeueReleases(const std::vector<int64_t>& handles) {
  if (handles.empty()) return;
  absl::MutexLock lock(&release_mutex_);
  pending_releases_.insert(pending_releases_.end(), handles.begin(), handles.end());
}

void GrpcStub::ReleaseHandle(const GlobalDataHandle& handle) {
  {
    absl::MutexLock lock(&release_mutex_);
    pending_releases_.push_back(handle.handle());
    if (pending_releases_.size() < kMaxPendingReleases) return;
  }
  FlushReleases().IgnoreError();
}

absl::Status GrpcStub::FlushReleases() {
  UnregisterRequest request;
  {
    absl::MutexLock lock(&release_mutex_);
    for (int64_t handle : pending_releases_) request.add_data()->set_handle(handle);
    pending_releases_.clear();
  }
  if (request.data_size() == 0) return absl::OkStatus();
  grpc::ClientContext context;
  PrepareContext(&context);
  UnregisterResponse response;
  return FromGrpcStatus(stub_->Unregister(&context, request, &response));
}

// A call that fails may not have reached the daemon: the releases it
// carried are sent again (unregistering twice is harmless).
#define STUB_METHOD(NAME, REQUEST, RESPONSE)                                    \
  absl::Status GrpcStub::NAME(const REQUEST& arg, RESPONSE* result) {           \
    grpc::ClientContext context;                                                \
    const std::vector<int64_t> releases = PrepareContextWithReleases(&context); \
    absl::Status status = FromGrpcStatus(stub_->NAME(&context, arg, result));   \
    if (!status.ok()) RequeueReleases(releases);                                \
    return status;                                                              \
  }
STUB_METHOD(TransferToServer, TransferToServerRequest, TransferToServerResponse)
STUB_METHOD(TransferToClient, TransferToClientRequest, TransferToClientResponse)
STUB_METHOD(Unregister, UnregisterRequest, UnregisterResponse)
STUB_METHOD(DeconstructTuple, DeconstructTupleRequest, DeconstructTupleResponse)
STUB_METHOD(GetShape, GetShapeRequest, GetShapeResponse)
STUB_METHOD(GetComputationShape, GetComputationShapeRequest, GetComputationShapeResponse)
STUB_METHOD(Compile, CompileRequest, CompileResponse)
STUB_METHOD(Execute, ExecuteRequest, ExecuteResponse)
STUB_METHOD(ExecuteGraph, ExecuteGraphRequest, ExecuteResponse)
STUB_METHOD(ExecuteParallel, ExecuteParallelRequest, ExecuteParallelResponse)
STUB_METHOD(ExecuteAsync, ExecuteAsyncRequest, ExecuteAsyncResponse)
STUB_METHOD(WaitForExecution, WaitForExecutionRequest, WaitForExecutionResponse)
STUB_METHOD(TransferToInfeed, TransferToInfeedRequest, TransferToInfeedResponse)
STUB_METHOD(TransferFromOutfeed, TransferFromOutfeedRequest, TransferFromOutfeedResponse)
STUB_METHOD(UnregisterExecutable, UnregisterExecutableRequest, UnregisterExecutableResponse)
STUB_METHOD(ComputeConstantGraph, ComputeConstantGraphRequest, ComputeConstantResponse)
STUB_METHOD(GetDeviceHandles, GetDeviceHandlesRequest, GetDeviceHandlesResponse)
STUB_METHOD(CreateChannelHandle, CreateChannelHandleRequest, CreateChannelHandleResponse)
STUB_METHOD(ResetDevice, ResetDeviceRequest, ResetDeviceResponse)
#undef STUB_METHOD

// Sessionless: the releases go first, in a call of their own, so that the
// figures count them (handles already unregistered are no error here, as in
// GlobalData's destructor).
absl::Status GrpcStub::GetServiceInfo(const GetServiceInfoRequest& arg, GetServiceInfoResponse* result) {
  FlushReleases().IgnoreError();
  grpc::ClientContext context;
  PrepareContext(&context);
  return FromGrpcStatus(stub_->GetServiceInfo(&context, arg, result));
}

absl::StatusOr<GlobalDataHandle> GrpcStub::TransferLiteralToServer(const Literal& literal) {
  if (!literal.shape().IsTuple() && literal.size_bytes() <= kUnaryTransferLimit) {
    return ServiceInterface::TransferLiteralToServer(literal);
  }
  LiteralChunk first;
  *first.mutable_shape() = literal.shape().ToProto();
  ASSIGN_OR_RETURN(grpc::ByteBuffer head, SerializeToByteBuffer(first));
  // Every chunk holds a copy of `owner`; the last one dropped (by gRPC,
  // once it has sent the bytes) signals `released`.
  absl::Notification released;
  std::shared_ptr<const void> owner(&literal, [&released](const void*) { released.Notify(); });
  grpc::Status status;
  TransferToServerResponse response;
  grpc::ByteBuffer raw_response;
  bool answered = false;
  {
    grpc::ClientContext context;
    PrepareContext(&context);
    RawStream stream(raw_stub_.get(), &context, MethodPath("TransferToServerStream"));
    if (stream.Write(head)) {
      // The leaves are only read; LeafBytes is shared with the receiving side.
      ForEachChunk(LiteralLeaves(const_cast<Literal&>(literal)), kChunkBytes, [&](absl::string_view piece) {
        if (!stream.Write(DataChunkReferencing(piece, owner))) {
          return absl::CancelledError("stream closed by the server");
        }
        return absl::OkStatus();
      }).IgnoreError();  // a closed stream reports its reason through Finish()
    }
    stream.WritesDone();
    answered = stream.Read(&raw_response);
    status = stream.Finish();
  }
  owner.reset();
  released.WaitForNotification();
  RETURN_IF_ERROR(FromGrpcStatus(status));
  if (!answered || !ParseFromByteBuffer(raw_response, &response)) {
    return absl::InternalError("TransferToServerStream: the server's answer is not a TransferToServerResponse");
  }
  return response.data();
}

absl::StatusOr<Literal> GrpcStub::TransferLiteralToClient(const GlobalDataHandle& handle,
                                                          const Shape* shape_with_layout) {
  TransferToClientRequest arg;
  *arg.mutable_data() = handle;
  if (shape_with_layout != nullptr) *arg.mutable_shape_with_layout() = shape_with_layout->ToProto();
  ASSIGN_OR_RETURN(grpc::ByteBuffer request, SerializeToByteBuffer(arg));
  grpc::ClientContext context;
  PrepareContext(&context);
  RawStream stream(raw_stub_.get(), &context, MethodPath("TransferToClientStream"));
  stream.Write(request);
  stream.WritesDone();
  Literal result;
  std::optional<LeafWriter> writer;
  auto append = [&](absl::string_view bytes) -> absl::Status {
    if (!writer.has_value()) return absl::InternalError("TransferToClientStream: data arrived before the shape");
    return writer->Append(bytes);
  };
  absl::Status status;
  grpc::ByteBuffer incoming;
  while (status.ok() && stream.Read(&incoming)) {
    LiteralChunk parsed;
    absl::StatusOr<bool> general = ReadChunk(incoming, append, &parsed);
    if (!general.ok() || !*general) {
      status = general.status();
      continue;
    }
    if (parsed.has_shape()) {
      absl::StatusOr<Shape> shape = ShapeUtil::FromProto(parsed.shape());
      if (!shape.ok() || writer.has_value()) {
        status = shape.ok() ? absl::InternalError("TransferToClientStream: a second shape arrived") : shape.status();
        continue;
      }
      result = Literal(*shape);
      writer.emplace(LiteralLeaves(result));
    }
    status = append(parsed.data());
  }
  if (!status.ok()) context.TryCancel();
  RETURN_IF_ERROR(FromGrpcStatus(stream.Finish()));
  RETURN_IF_ERROR(status);
  if (!writer.has_value()) return absl::InternalError("TransferToClientStream: the stream ended before the shape");
  RETURN_IF_ERROR(writer->Finish());
  return result;
}

}  // namespace xla
