#include "client/client.h"

#include <string>
#include <utility>

#include "google/protobuf/arena.h"
#include "xla/program_digest.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

// From this size of a module on, a first compile sends the module's digest
// before the module (one more round trip, against an upload and a copy).
constexpr size_t kDigestFirstBytes = size_t{1} << 20;

}  // namespace

absl::StatusOr<std::unique_ptr<GlobalData>> Client::TransferToServer(const Literal& literal) {
  ASSIGN_OR_RETURN(GlobalDataHandle handle, service_->TransferLiteralToServer(literal));
  return std::make_unique<GlobalData>(service_, handle);
}

absl::StatusOr<std::unique_ptr<GlobalData>> Client::TransferInProcess(const Shape& shape, const void* data,
                                                                      std::shared_ptr<const void> owner,
                                                                      bool* aliased) {
  ASSIGN_OR_RETURN(GlobalDataHandle handle,
                   service_->TransferHostArrayInProcess(shape, data, std::move(owner), aliased));
  return std::make_unique<GlobalData>(service_, handle);
}

absl::StatusOr<std::unique_ptr<GlobalData>> Client::TransferInProcess(std::shared_ptr<const Literal> literal,
                                                                      bool* aliased) {
  if (literal == nullptr) return InvalidArgument("TransferInProcess: no literal");
  if (!literal->shape().IsArray()) {
    // Tuples have no single host array: one copy, as TransferToServer.
    if (aliased != nullptr) *aliased = false;
    return TransferToServer(*literal);
  }
  const Shape& shape = literal->shape();
  const void* data = literal->untyped_data();
  return TransferInProcess(shape, data, std::move(literal), aliased);
}

absl::StatusOr<Literal> Client::TransferToClient(const GlobalData& data, const Shape* shape_with_layout) {
  return service_->TransferLiteralToClient(data.handle(), shape_with_layout);
}

absl::StatusOr<ExecutionHandle> Client::Compile(const XlaComputation& computation,
                                                absl::Span<const Shape> argument_shapes,
                                                const ExecutionOptions* options, bool* cache_hit) {
  CompileRequest request;
  if (options != nullptr) *request.mutable_execution_options() = *options;
  for (const Shape& s : argument_shapes) *request.add_input_shape_with_layout() = s.ToProto();
  CompileResponse response;
  // A computation compiled before goes by its digest first: a cached
  // executable then costs no copy, upload or parse of the module. So does a
  // large one compiled the first time, whose digest is computed here: a
  // service that has it (in memory, or in its persistent cache after a
  // restart) then needs neither the copy nor the upload of its weights.
  std::string digest = computation.KnownProgramDigest();
  if (digest.empty() && computation.proto().ByteSizeLong() >= kDigestFirstBytes) {
    digest = ProgramDigest(computation.proto());
  }
  if (!digest.empty()) {
    request.set_program_digest(std::move(digest));
    RETURN_IF_ERROR(service_->Compile(request, &response));
    if (!response.program_needed()) {
      computation.RememberProgramDigest(request.program_digest());
      if (cache_hit != nullptr) *cache_hit = response.compilation_cache_hit();
      return response.handle();
    }
    request.clear_program_digest();
    response.Clear();
  }
  *request.mutable_computation() = computation.proto();
  RETURN_IF_ERROR(service_->Compile(request, &response));
  if (!response.program_digest().empty()) computation.RememberProgramDigest(response.program_digest());
  if (cache_hit != nullptr) *cache_hit = response.compilation_cache_hit();
  return response.handle();
}

absl::StatusOr<ExecutionHandle> Client::CompileHloText(const std::string& hlo_text,
                                                       const ExecutionOptions* options) {
  CompileRequest request;
  request.set_hlo_text(hlo_text);
  return CompileProgram(std::move(request), options);
}

absl::StatusOr<ExecutionHandle> Client::CompileStableHlo(const std::string& stablehlo_text,
                                                         const ExecutionOptions* options) {
  CompileRequest request;
  request.set_stablehlo_text(stablehlo_text);
  return CompileProgram(std::move(request), options);
}

absl::StatusOr<ExecutionHandle> Client::CompileProgram(CompileRequest request, const ExecutionOptions* options) {
  if (options != nullptr) *request.mutable_execution_options() = *options;
  CompileResponse response;
  RETURN_IF_ERROR(service_->Compile(request, &response));
  return response.handle();
}

namespace {

absl::Status AddArguments(absl::Span<GlobalData* const> arguments,
                          google::protobuf::RepeatedPtrField<GlobalDataHandle>* handles) {
  for (GlobalData* arg : arguments) {
    if (arg == nullptr) return InvalidArgument("Execute: argument is null");
    *handles->Add() = arg->handle();
  }
  return absl::OkStatus();
}

// A protobuf arena whose first block is on the stack: the messages of one
// call (handles, profile) in it touch no heap.
class StackArena {
 public:
  StackArena() : arena_(Options(block_)) {}
  google::protobuf::Arena* get() { return &arena_; }

 private:
  static google::protobuf::ArenaOptions Options(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kBlockBytes;
    return options;
  }
  static constexpr size_t kBlockBytes = 1024;
  alignas(8) char block_[kBlockBytes];
  google::protobuf::Arena arena_;
};

// Runs `executable` on `arguments`; the request and the response live in
// `arena`. A run of a cached executable in this process then allocates no
// protobuf message on the heap.
absl::StatusOr<const ExecuteResponse*> RunByHandle(ServiceInterface* service, google::protobuf::Arena* arena,
                                                   const ExecutionHandle& executable,
                                                   absl::Span<GlobalData* const> arguments, bool transfer_result,
                                                   ExecutionProfile* profile, absl::Span<const int64_t> donated = {}) {
  auto* request = google::protobuf::Arena::CreateMessage<ExecuteRequest>(arena);
  *request->mutable_handle() = executable;
  RETURN_IF_ERROR(AddArguments(arguments, request->mutable_arguments()));
  request->set_transfer_result(transfer_result);
  for (int64_t i : donated) request->add_donated_arguments(i);
  auto* response = google::protobuf::Arena::CreateMessage<ExecuteResponse>(arena);
  RETURN_IF_ERROR(service->Execute(*request, response));
  if (profile != nullptr) *profile = response->profile();
  return response;
}

}  // namespace

absl::StatusOr<std::unique_ptr<GlobalData>> Client::Execute(const ExecutionHandle& executable,
                                                            absl::Span<GlobalData* const> arguments,
                                                            ExecutionProfile* profile) {
  StackArena arena;
  ASSIGN_OR_RETURN(const ExecuteResponse* response,
                   RunByHandle(service_, arena.get(), executable, arguments, /*transfer_result=*/false, profile));
  return std::make_unique<GlobalData>(service_, response->output());
}

absl::StatusOr<std::unique_ptr<GlobalData>> Client::ExecuteDonating(const ExecutionHandle& executable,
                                                                    absl::Span<GlobalData* const> arguments,
                                                                    absl::Span<const int64_t> donated,
                                                                    ExecutionProfile* profile) {
  StackArena arena;
  ASSIGN_OR_RETURN(const ExecuteResponse* response, RunByHandle(service_, arena.get(), executable, arguments,
                                                                /*transfer_result=*/false, profile, donated));
  // The service validated the positions before consuming any.
  for (int64_t i : donated) arguments[i]->Release();
  return std::make_unique<GlobalData>(service_, response->output());
}

absl::StatusOr<std::unique_ptr<GlobalData>> Client::Execute(const XlaComputation& computation,
                                                            absl::Span<GlobalData* const> arguments,
                                                            const ExecutionOptions* options,
                                                            ExecutionProfile* profile) {
  ExecuteGraphRequest request;
  *request.mutable_computation() = computation.proto();
  RETURN_IF_ERROR(AddArguments(arguments, request.mutable_arguments()));
  if (options != nullptr) *request.mutable_execution_options() = *options;
  ExecuteResponse response;
  RETURN_IF_ERROR(service_->ExecuteGraph(request, &response));
  if (profile != nullptr) *profile = response.profile();
  return std::make_unique<GlobalData>(service_, response.output());
}

absl::StatusOr<Literal> Client::ResultLiteral(const ExecuteResponse& response, const Shape* shape_with_layout) {
  if (response.has_result_literal()) return Literal::FromProto(response.result_literal());
  // Too large for the response: fetched (streamed, from a daemon) and released.
  GlobalData result(service_, response.output());
  return TransferToClient(result, shape_with_layout);
}

absl::StatusOr<Literal> Client::ExecuteAndTransfer(const ExecutionHandle& executable,
                                                   absl::Span<GlobalData* const> arguments,
                                                   ExecutionProfile* profile) {
  StackArena arena;
  ASSIGN_OR_RETURN(const ExecuteResponse* response,
                   RunByHandle(service_, arena.get(), executable, arguments, /*transfer_result=*/true, profile));
  return ResultLiteral(*response, nullptr);
}

absl::StatusOr<Literal> Client::ExecuteAndTransfer(const XlaComputation& computation,
                                                   absl::Span<GlobalData* const> arguments,
                                                   const ExecutionOptions* options, ExecutionProfile* profile) {
  ExecuteGraphRequest request;
  *request.mutable_computation() = computation.proto();
  RETURN_IF_ERROR(AddArguments(arguments, request.mutable_arguments()));
  if (options != nullptr) *request.mutable_execution_options() = *options;
  request.set_transfer_result(true);
  const Shape* layout = nullptr;
  Shape requested;
  if (options != nullptr && options->has_shape_with_output_layout()) {
    ASSIGN_OR_RETURN(requested, ShapeUtil::FromProto(options->shape_with_output_layout()));
    layout = &requested;
  }
  ExecuteResponse response;
  RETURN_IF_ERROR(service_->ExecuteGraph(request, &response));
  if (profile != nullptr) *profile = response.profile();
  return ResultLiteral(response, layout);
}

absl::StatusOr<AsyncExecutionHandle> Client::ExecuteAsync(const ExecutionHandle& executable,
                                                          absl::Span<GlobalData* const> arguments) {
  ExecuteAsyncRequest request;
  *request.mutable_execute()->mutable_handle() = executable;
  RETURN_IF_ERROR(AddArguments(arguments, request.mutable_execute()->mutable_arguments()));
  ExecuteAsyncResponse response;
  RETURN_IF_ERROR(service_->ExecuteAsync(request, &response));
  return response.execution();
}

absl::StatusOr<std::unique_ptr<GlobalData>> Client::WaitForExecution(const AsyncExecutionHandle& execution,
                                                                     absl::Duration timeout,
                                                                     ExecutionProfile* profile) {
  WaitForExecutionRequest request;
  *request.mutable_execution() = execution;
  if (timeout < absl::ZeroDuration()) return InvalidArgument("WaitForExecution: negative timeout");
  // A timeout under a millisecond still waits (0 would mean no bound).
  if (timeout > absl::ZeroDuration()) request.set_timeout_ms(std::max<int64_t>(1, absl::ToInt64Milliseconds(timeout)));
  WaitForExecutionResponse response;
  RETURN_IF_ERROR(service_->WaitForExecution(request, &response));
  if (profile != nullptr) *profile = response.result().profile();
  return std::make_unique<GlobalData>(service_, response.result().output());
}

absl::Status Client::UnregisterExecutable(const ExecutionHandle& executable) {
  UnregisterExecutableRequest request;
  *request.mutable_handle() = executable;
  UnregisterExecutableResponse response;
  return service_->UnregisterExecutable(request, &response);
}

absl::Status Client::Unregister(const GlobalData& data) {
  UnregisterRequest request;
  *request.add_data() = data.handle();
  UnregisterResponse response;
  return service_->Unregister(request, &response);
}

absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> Client::DeconstructTuple(const GlobalData& data) {
  DeconstructTupleRequest request;
  *request.mutable_tuple_handle() = data.handle();
  DeconstructTupleResponse response;
  RETURN_IF_ERROR(service_->DeconstructTuple(request, &response));
  std::vector<std::unique_ptr<GlobalData>> out;
  for (const GlobalDataHandle& h : response.element_handles()) {
    out.push_back(std::make_unique<GlobalData>(service_, h));
  }
  return out;
}

absl::StatusOr<Shape> Client::GetShape(const GlobalData& data) {
  GetShapeRequest request;
  *request.mutable_data() = data.handle();
  GetShapeResponse response;
  RETURN_IF_ERROR(service_->GetShape(request, &response));
  return ShapeUtil::FromProto(response.shape());
}

absl::StatusOr<ProgramShape> Client::GetComputationShape(const XlaComputation& computation) {
  GetComputationShapeRequest request;
  *request.mutable_computation() = computation.proto();
  GetComputationShapeResponse response;
  RETURN_IF_ERROR(service_->GetComputationShape(request, &response));
  return ShapeUtil::ProgramShapeFromProto(response.program_shape());
}

absl::StatusOr<Literal> Client::ComputeConstant(const XlaComputation& computation, const Layout* output_layout) {
  ComputeConstantGraphRequest request;
  *request.mutable_computation() = computation.proto();
  if (output_layout != nullptr) {
    for (int64_t d : output_layout->minor_to_major()) request.mutable_output_layout()->add_minor_to_major(d);
  }
  ComputeConstantResponse response;
  RETURN_IF_ERROR(service_->ComputeConstantGraph(request, &response));
  return Literal::FromProto(response.literal());
}

absl::StatusOr<std::vector<DeviceHandle>> Client::GetDeviceHandles(int64_t device_count) {
  GetDeviceHandlesRequest request;
  request.set_device_count(device_count);
  GetDeviceHandlesResponse response;
  RETURN_IF_ERROR(service_->GetDeviceHandles(request, &response));
  return std::vector<DeviceHandle>(response.device_handles().begin(), response.device_handles().end());
}

absl::StatusOr<ChannelHandle> Client::CreateChannelHandle(ChannelHandle::ChannelType type) {
  CreateChannelHandleRequest request;
  request.set_channel_type(type);
  CreateChannelHandleResponse response;
  RETURN_IF_ERROR(service_->CreateChannelHandle(request, &response));
  return response.channel();
}

absl::Status Client::CheckInstance(const ComputationInstance& c, size_t i) {
  if (c.computation != nullptr && c.executable.handle() != 0) {
    return InvalidArgument("ExecuteParallel: computation %d gives both a computation and an executable", i);
  }
  if (c.computation == nullptr && c.executable.handle() == 0) {
    return InvalidArgument("ExecuteParallel: computation %d has neither a computation nor an executable", i);
  }
  for (const GlobalData* arg : c.arguments) {
    if (arg == nullptr) return InvalidArgument("ExecuteParallel: computation %d has a null argument", i);
  }
  std::vector<bool> donated(c.arguments.size(), false);
  for (int64_t d : c.donated_arguments) {
    if (d < 0 || d >= static_cast<int64_t>(c.arguments.size()) || donated[d]) {
      return InvalidArgument("ExecuteParallel: computation %d donates argument %d, which it has not or donates twice",
                             i, d);
    }
    donated[d] = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> Client::ExecuteParallel(
    absl::Span<const ComputationInstance> computations, std::vector<ExecutionProfile>* profiles,
    const ClusterRun* cluster_run) {
  ExecuteParallelRequest request;
  if (cluster_run != nullptr) *request.mutable_cluster_run() = *cluster_run;
  for (size_t i = 0; i < computations.size(); ++i) {
    const ComputationInstance& c = computations[i];
    RETURN_IF_ERROR(CheckInstance(c, i));
    ExecuteGraphRequest* r = request.add_requests();
    if (c.computation != nullptr) {
      *r->mutable_computation() = c.computation->proto();
    } else {
      *r->mutable_executable() = c.executable;
    }
    for (const GlobalData* arg : c.arguments) *r->add_arguments() = arg->handle();
    for (int64_t d : c.donated_arguments) r->add_donated_arguments(d);
    *r->mutable_execution_options() = c.execution_options;
  }
  ExecuteParallelResponse response;
  RETURN_IF_ERROR(service_->ExecuteParallel(request, &response));
  for (const ComputationInstance& c : computations) {
    for (int64_t d : c.donated_arguments) c.arguments[d]->Release();
  }
  std::vector<std::unique_ptr<GlobalData>> out;
  for (const ExecuteResponse& r : response.responses()) {
    out.push_back(std::make_unique<GlobalData>(service_, r.output()));
    if (profiles != nullptr) profiles->push_back(r.profile());
  }
  return out;
}

absl::Status Client::TransferToInfeed(const Literal& literal, const DeviceHandle* device) {
  TransferToInfeedRequest request;
  *request.mutable_literal() = literal.ToProto();
  if (device != nullptr) *request.mutable_device_handle() = *device;
  TransferToInfeedResponse response;
  return service_->TransferToInfeed(request, &response);
}

absl::StatusOr<Literal> Client::TransferFromOutfeed(const Shape* shape_with_layout, const DeviceHandle* device,
                                                    absl::Duration timeout) {
  TransferFromOutfeedRequest request;
  if (shape_with_layout != nullptr) *request.mutable_shape_with_layout() = shape_with_layout->ToProto();
  if (device != nullptr) *request.mutable_device_handle() = *device;
  if (timeout < absl::ZeroDuration()) return InvalidArgument("TransferFromOutfeed: negative timeout");
  // At least 1 ms: 0 means the service's default.
  if (timeout > absl::ZeroDuration()) request.set_timeout_ms(std::max<int64_t>(1, absl::ToInt64Milliseconds(timeout)));
  TransferFromOutfeedResponse response;
  RETURN_IF_ERROR(service_->TransferFromOutfeed(request, &response));
  return Literal::FromProto(response.literal());
}

absl::StatusOr<GetServiceInfoResponse> Client::GetServiceInfo() {
  GetServiceInfoRequest request;
  GetServiceInfoResponse response;
  RETURN_IF_ERROR(service_->GetServiceInfo(request, &response));
  return response;
}

}  // namespace xla
