// Service: the backend-agnostic execution service. Validates every request
// (protos, HLO text, handles, literals), verifies and compiles modules
// through the CompilationCache, keeps device buffers behind handles in the
// AllocationTracker, and executes on one Backend.
#ifndef SERVICE_SERVICE_H_
#define SERVICE_SERVICE_H_

#include <atomic>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "backends/backend.h"
#include "service/allocation_tracker.h"
#include "service/compilation_cache.h"
#include "xla/service_interface.h"

namespace xla {

class Service : public ServiceInterface {
 public:
  static absl::StatusOr<std::unique_ptr<Service>> Create(const ServiceOptions& options);

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
  absl::Status UnregisterExecutable(const UnregisterExecutableRequest& arg,
                                    UnregisterExecutableResponse* result) override;
  absl::Status ComputeConstantGraph(const ComputeConstantGraphRequest& arg, ComputeConstantResponse* result) override;
  absl::Status GetDeviceHandles(const GetDeviceHandlesRequest& arg, GetDeviceHandlesResponse* result) override;
  absl::Status CreateChannelHandle(const CreateChannelHandleRequest& arg, CreateChannelHandleResponse* result) override;
  absl::Status ResetDevice(const ResetDeviceRequest& arg, ResetDeviceResponse* result) override;
  absl::Status GetServiceInfo(const GetServiceInfoRequest& arg, GetServiceInfoResponse* result) override;

  const AllocationTracker& allocation_tracker() const { return allocations_; }

 private:
  explicit Service(std::unique_ptr<Backend> backend) : backend_(std::move(backend)) {}

  // Proto (or HLO text) -> verified HloModule.
  absl::StatusOr<std::unique_ptr<HloModule>> LoadModule(const HloModuleProto& proto, const std::string& hlo_text);
  // Verified module -> executable, through the cache.
  absl::StatusOr<std::shared_ptr<Executable>> CompileModule(std::unique_ptr<HloModule> module,
                                                            const ExecutionOptions& options, bool* cache_hit);
  absl::StatusOr<std::shared_ptr<Executable>> ResolveExecutable(const ExecutionHandle& handle) const;
  // Runs `executable` on argument handles (checked against its signature).
  absl::Status Run(Executable& executable, const google::protobuf::RepeatedPtrField<GlobalDataHandle>& args,
                   ExecuteResponse* result);

  std::unique_ptr<Backend> backend_;
  AllocationTracker allocations_;
  CompilationCache cache_;

  mutable absl::Mutex executables_mutex_;
  int64_t next_executable_ ABSL_GUARDED_BY(executables_mutex_) = 1;
  absl::flat_hash_map<int64_t, std::shared_ptr<Executable>> executables_ ABSL_GUARDED_BY(executables_mutex_);

  std::atomic<int64_t> next_channel_{1};
  std::atomic<int64_t> compilations_{0};
  std::atomic<int64_t> executions_{0};
};

}  // namespace xla

#endif  // SERVICE_SERVICE_H_
