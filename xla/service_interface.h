// ServiceInterface: the one API between clients and the execution service,
// one method per request type of proto/xla.proto. The in-process service
// and the gRPC adapter both implement it, so LocalClient and remote clients
// run the same code path. Lives in xla/ so client/ never includes service/.
#ifndef XLA_SERVICE_INTERFACE_H_
#define XLA_SERVICE_INTERFACE_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/xla.pb.h"
#include "xla/literal.h"

namespace xla {

class ServiceInterface {
 public:
  virtual ~ServiceInterface() = default;

  virtual absl::Status TransferToServer(const TransferToServerRequest& arg, TransferToServerResponse* result) = 0;
  virtual absl::Status TransferToClient(const TransferToClientRequest& arg, TransferToClientResponse* result) = 0;
  virtual absl::Status Unregister(const UnregisterRequest& arg, UnregisterResponse* result) = 0;
  virtual absl::Status DeconstructTuple(const DeconstructTupleRequest& arg, DeconstructTupleResponse* result) = 0;
  virtual absl::Status GetShape(const GetShapeRequest& arg, GetShapeResponse* result) = 0;
  virtual absl::Status GetComputationShape(const GetComputationShapeRequest& arg,
                                           GetComputationShapeResponse* result) = 0;
  virtual absl::Status Compile(const CompileRequest& arg, CompileResponse* result) = 0;
  virtual absl::Status Execute(const ExecuteRequest& arg, ExecuteResponse* result) = 0;
  virtual absl::Status ExecuteGraph(const ExecuteGraphRequest& arg, ExecuteResponse* result) = 0;
  virtual absl::Status ExecuteParallel(const ExecuteParallelRequest& arg, ExecuteParallelResponse* result) = 0;
  virtual absl::Status ExecuteAsync(const ExecuteAsyncRequest& arg, ExecuteAsyncResponse* result) = 0;
  virtual absl::Status WaitForExecution(const WaitForExecutionRequest& arg, WaitForExecutionResponse* result) = 0;
  virtual absl::Status TransferToInfeed(const TransferToInfeedRequest& arg, TransferToInfeedResponse* result) = 0;
  virtual absl::Status TransferFromOutfeed(const TransferFromOutfeedRequest& arg,
                                           TransferFromOutfeedResponse* result) = 0;
  virtual absl::Status UnregisterExecutable(const UnregisterExecutableRequest& arg,
                                            UnregisterExecutableResponse* result) = 0;
  virtual absl::Status ComputeConstantGraph(const ComputeConstantGraphRequest& arg,
                                            ComputeConstantResponse* result) = 0;
  virtual absl::Status GetDeviceHandles(const GetDeviceHandlesRequest& arg, GetDeviceHandlesResponse* result) = 0;
  virtual absl::Status CreateChannelHandle(const CreateChannelHandleRequest& arg,
                                           CreateChannelHandleResponse* result) = 0;
  virtual absl::Status ResetDevice(const ResetDeviceRequest& arg, ResetDeviceResponse* result) = 0;
  virtual absl::Status GetServiceInfo(const GetServiceInfoRequest& arg, GetServiceInfoResponse* result) = 0;

  // Gives up a handle the client no longer needs (GlobalData's destructor),
  // ignoring one already unregistered. The default unregisters it at once;
  // a remote stub sends it with its next request instead of a round trip of
  // its own (grpc_stub.h).
  virtual void ReleaseHandle(const GlobalDataHandle& handle);

  // Literal transfers without an intermediate LiteralProto. The defaults go
  // through the proto methods above; an in-process service copies the data
  // once, and a remote stub streams it in chunks.
  virtual absl::StatusOr<GlobalDataHandle> TransferLiteralToServer(const Literal& literal);
  virtual absl::StatusOr<Literal> TransferLiteralToClient(const GlobalDataHandle& handle,
                                                          const Shape* shape_with_layout);
  // Client::TransferInProcess: the service takes the host array at `data`
  // (ShapeUtil::ByteSizeOfStorage(shape) bytes, kept alive by `owner`)
  // without a copy when it can (see DeviceBuffer::FromHostArray); `aliased`
  // says whether it did. Only a service in this process can: the default
  // is FAILED_PRECONDITION.
  virtual absl::StatusOr<GlobalDataHandle> TransferHostArrayInProcess(const Shape& shape, const void* data,
                                                                      std::shared_ptr<const void> owner,
                                                                      bool* aliased);
};

// Options for an in-process service.
struct ServiceOptions {
  std::string backend;  // empty: the default backend
  int num_devices = 0;  // host devices; 0: the service's default (ServiceLimits)
  // Where compiled executables are saved and loaded across processes
  // (service/persistent_cache.h); "" for nowhere. cache_dir_bytes bounds the
  // directory (0: the service's default, 1 GiB).
  std::string cache_dir;
  int64_t cache_dir_bytes = 0;
};

// The in-process service is created through a factory that service/
// registers when it is linked in, keeping client/ free of service/ headers.
using InProcessServiceFactory =
    std::function<absl::StatusOr<std::unique_ptr<ServiceInterface>>(const ServiceOptions&)>;
void RegisterInProcessServiceFactory(InProcessServiceFactory factory);
absl::StatusOr<std::unique_ptr<ServiceInterface>> CreateInProcessService(const ServiceOptions& options);

}  // namespace xla

#endif  // XLA_SERVICE_INTERFACE_H_
