// GrpcStub: ServiceInterface over a gRPC channel to an xla_service daemon.
// Adds the session id (and auth token, when set) to every call's metadata
// and maps grpc::Status back to absl::Status. With a call timeout, a call
// past it fails with DEADLINE_EXCEEDED and the daemon stops the run.
// Released handles (GlobalData's destructor) cost no round trip: they ride
// on the next unary call as metadata 'xla-release' (ids joined by commas),
// which the daemon unregisters before the call's own work; after
// kMaxPendingReleases of them, or on close, one Unregister call sends them.
#ifndef CLIENT_GRPC_STUB_H_
#define CLIENT_GRPC_STUB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "proto/xla_service.grpc.pb.h"
#include "xla/literal.h"
#include "xla/service_interface.h"

namespace xla {

class GrpcStub : public ServiceInterface {
 public:
  // `call_timeout`: each call's deadline from its start (zero: none).
  GrpcStub(std::shared_ptr<grpc::Channel> channel, std::string auth_token,
           absl::Duration call_timeout = absl::ZeroDuration());

  absl::Status OpenSession(const std::string& client_name);
  absl::Status CloseSession();
  const std::string& session_id() const { return session_id_; }

  absl::Status TransferToServer(const TransferToServerRequest& arg, TransferToServerResponse* result) override;
  absl::Status TransferToClient(const TransferToClientRequest& arg, TransferToClientResponse* result) override;
  absl::Status Unregister(const UnregisterRequest& arg, UnregisterResponse* result) override;
  absl::Status DeconstructTuple(const DeconstructTupleRequest& arg, DeconstructTupleResponse* result) override;
  absl::Status GetShape(const GetShapeRequest& arg, GetShapeResponse* result) override;
  absl::Status GetComputationShape(const GetComputationShapeRequest& arg,
                                   GetComputationShapeResponse* result) override;
  absl::Status Compile(const CompileRequest& arg, CompileResponse* result) override;
  absl::Status Execute(const ExecuteRequest& arg, ExecuteResponse* result) override;
  absl::Status ExecuteGraph(const ExecuteGraphRequest& arg, ExecuteResponse* result) override;
  absl::Status ExecuteParallel(const ExecuteParallelRequest& arg, ExecuteParallelResponse* result) override;
  absl::Status ExecuteAsync(const ExecuteAsyncRequest& arg, ExecuteAsyncResponse* result) override;
  absl::Status WaitForExecution(const WaitForExecutionRequest& arg, WaitForExecutionResponse* result) override;
  absl::Status TransferToInfeed(const TransferToInfeedRequest& arg, TransferToInfeedResponse* result) override;
  absl::Status TransferFromOutfeed(const TransferFromOutfeedRequest& arg,
                                   TransferFromOutfeedResponse* result) override;
  absl::Status UnregisterExecutable(const UnregisterExecutableRequest& arg,
                                    UnregisterExecutableResponse* result) override;
  absl::Status ComputeConstantGraph(const ComputeConstantGraphRequest& arg, ComputeConstantResponse* result) override;
  absl::Status GetDeviceHandles(const GetDeviceHandlesRequest& arg, GetDeviceHandlesResponse* result) override;
  absl::Status CreateChannelHandle(const CreateChannelHandleRequest& arg, CreateChannelHandleResponse* result) override;
  absl::Status ResetDevice(const ResetDeviceRequest& arg, ResetDeviceResponse* result) override;
  absl::Status GetServiceInfo(const GetServiceInfoRequest& arg, GetServiceInfoResponse* result) override;

  // Small literals go in one message, larger ones in chunks (any size). The
  // chunks refer to the literal's memory (no copy); the call returns once
  // gRPC no longer refers to it.
  absl::StatusOr<GlobalDataHandle> TransferLiteralToServer(const Literal& literal) override;
  // Always streamed: the size is unknown until the server answers. Each
  // chunk is copied from gRPC's receive buffer straight into the result.
  absl::StatusOr<Literal> TransferLiteralToClient(const GlobalDataHandle& handle,
                                                  const Shape* shape_with_layout) override;

  void ReleaseHandle(const GlobalDataHandle& handle) override;
  // Sends the released handles not sent yet (one Unregister call).
  absl::Status FlushReleases();
  // At most this many wait for a call to carry them (metadata is small).
  static constexpr size_t kMaxPendingReleases = 128;

  static absl::Status FromGrpcStatus(const grpc::Status& status);

 private:
  void PrepareContext(grpc::ClientContext* context) const;
  // PrepareContext, and the released handles added to the call (returned,
  // to be put back if the call fails).
  std::vector<int64_t> PrepareContextWithReleases(grpc::ClientContext* context);
  void RequeueReleases(const std::vector<int64_t>& handles);

  std::unique_ptr<XlaService::Stub> stub_;
  // The streamed transfers, with raw messages (xla/literal_chunk_wire.h).
  std::unique_ptr<grpc::GenericStub> raw_stub_;
  std::string auth_token_;
  absl::Duration call_timeout_;
  std::string session_id_;
  absl::Mutex release_mutex_;
  std::vector<int64_t> pending_releases_ ABSL_GUARDED_BY(release_mutex_);
};

}  // namespace xla

#endif  // CLIENT_GRPC_STUB_H_
