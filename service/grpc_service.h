// GrpcService: serves a Service over gRPC (proto/xla_service.proto). Each
// call is authenticated (when a token is configured), bound to the caller's
// session (metadata "xla-session"), logged as one line (method, session,
// bytes, milliseconds, status), and mapped from absl::Status to grpc::Status.
#ifndef SERVICE_GRPC_SERVICE_H_
#define SERVICE_GRPC_SERVICE_H_

#include <memory>
#include <string>

#include "proto/xla_service.grpc.pb.h"
#include "service/service.h"

namespace xla {

class GrpcService final : public XlaService::Service {
 public:
  // `auth_token` empty: no authentication.
  GrpcService(std::shared_ptr<xla::Service> service, std::string auth_token, absl::Duration idle_timeout)
      : service_(std::move(service)), auth_token_(std::move(auth_token)), idle_timeout_(idle_timeout) {}

  grpc::Status OpenSession(grpc::ServerContext* context, const OpenSessionRequest* request,
                           OpenSessionResponse* response) override;
  grpc::Status CloseSession(grpc::ServerContext* context, const CloseSessionRequest* request,
                            CloseSessionResponse* response) override;
  grpc::Status Compile(grpc::ServerContext* context, const CompileRequest* request,
                       CompileResponse* response) override;
  grpc::Status Execute(grpc::ServerContext* context, const ExecuteRequest* request,
                       ExecuteResponse* response) override;
  grpc::Status ExecuteGraph(grpc::ServerContext* context, const ExecuteGraphRequest* request,
                            ExecuteResponse* response) override;
  grpc::Status ExecuteParallel(grpc::ServerContext* context, const ExecuteParallelRequest* request,
                               ExecuteParallelResponse* response) override;
  grpc::Status TransferToInfeed(grpc::ServerContext* context, const TransferToInfeedRequest* request,
                                TransferToInfeedResponse* response) override;
  grpc::Status TransferFromOutfeed(grpc::ServerContext* context, const TransferFromOutfeedRequest* request,
                                   TransferFromOutfeedResponse* response) override;
  grpc::Status UnregisterExecutable(grpc::ServerContext* context, const UnregisterExecutableRequest* request,
                                    UnregisterExecutableResponse* response) override;
  grpc::Status TransferToServer(grpc::ServerContext* context, const TransferToServerRequest* request,
                                TransferToServerResponse* response) override;
  grpc::Status TransferToClient(grpc::ServerContext* context, const TransferToClientRequest* request,
                                TransferToClientResponse* response) override;
  grpc::Status TransferToServerStream(grpc::ServerContext* context, grpc::ServerReader<LiteralChunk>* reader,
                                      TransferToServerResponse* response) override;
  grpc::Status TransferToClientStream(grpc::ServerContext* context, const TransferToClientRequest* request,
                                      grpc::ServerWriter<LiteralChunk>* writer) override;
  grpc::Status Unregister(grpc::ServerContext* context, const UnregisterRequest* request,
                          UnregisterResponse* response) override;
  grpc::Status DeconstructTuple(grpc::ServerContext* context, const DeconstructTupleRequest* request,
                                DeconstructTupleResponse* response) override;
  grpc::Status GetShape(grpc::ServerContext* context, const GetShapeRequest* request,
                        GetShapeResponse* response) override;
  grpc::Status GetComputationShape(grpc::ServerContext* context, const GetComputationShapeRequest* request,
                                   GetComputationShapeResponse* response) override;
  grpc::Status ComputeConstantGraph(grpc::ServerContext* context, const ComputeConstantGraphRequest* request,
                                    ComputeConstantResponse* response) override;
  grpc::Status GetDeviceHandles(grpc::ServerContext* context, const GetDeviceHandlesRequest* request,
                                GetDeviceHandlesResponse* response) override;
  grpc::Status CreateChannelHandle(grpc::ServerContext* context, const CreateChannelHandleRequest* request,
                                   CreateChannelHandleResponse* response) override;
  grpc::Status ResetDevice(grpc::ServerContext* context, const ResetDeviceRequest* request,
                           ResetDeviceResponse* response) override;
  grpc::Status GetServiceInfo(grpc::ServerContext* context, const GetServiceInfoRequest* request,
                              GetServiceInfoResponse* response) override;

  static grpc::Status ToGrpcStatus(const absl::Status& status);

 private:
  absl::Status Authenticate(const grpc::ServerContext& context) const;
  // Authenticates and resolves (and touches) the caller's session.
  absl::StatusOr<SessionId> SessionOf(const grpc::ServerContext& context) const;
  // Runs `body` for a session-bound call and logs it.
  template <typename Body>
  grpc::Status Handle(const char* method, grpc::ServerContext* context, int64_t request_bytes, Body&& body);

  std::shared_ptr<xla::Service> service_;
  std::string auth_token_;
  absl::Duration idle_timeout_;
};

}  // namespace xla

#endif  // SERVICE_GRPC_SERVICE_H_
