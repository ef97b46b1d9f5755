#include "service/service.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

int64_t NanosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Service>> Service::Create(const ServiceOptions& options) {
  std::string name = options.backend.empty() ? BackendRegistry::DefaultName() : options.backend;
  if (name.empty()) return FailedPrecondition("no backend is linked into this program");
  ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend, BackendRegistry::Create(name));
  return absl::WrapUnique(new Service(std::move(backend)));
}

absl::Status Service::TransferToServer(const TransferToServerRequest& arg, TransferToServerResponse* result) {
  ASSIGN_OR_RETURN(Literal literal, Literal::FromProto(arg.literal()));
  ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> buffer,
                   backend_->transfer_manager()->TransferLiteralToDevice(literal));
  *result->mutable_data() = allocations_.Register(std::move(buffer), "transfer");
  return absl::OkStatus();
}

absl::Status Service::TransferToClient(const TransferToClientRequest& arg, TransferToClientResponse* result) {
  ASSIGN_OR_RETURN(std::shared_ptr<const DeviceBuffer> buffer, allocations_.Resolve(arg.data()));
  ASSIGN_OR_RETURN(Literal literal, backend_->transfer_manager()->TransferLiteralFromDevice(*buffer));
  if (arg.has_shape_with_layout()) {
    ASSIGN_OR_RETURN(Shape requested, ShapeUtil::FromProto(arg.shape_with_layout()));
    if (!requested.Compatible(literal.shape())) {
      return InvalidArgument("TransferToClient: requested shape %s does not match the data's shape %s",
                             requested.ToString(), literal.shape().ToString());
    }
    literal = literal.RelayoutTo(requested);
  }
  *result->mutable_literal() = literal.ToProto();
  return absl::OkStatus();
}

absl::Status Service::Unregister(const UnregisterRequest& arg, UnregisterResponse* result) {
  // Release every handle that exists; report the first unknown one.
  absl::Status status;
  for (const GlobalDataHandle& h : arg.data()) status.Update(allocations_.Unregister(h));
  return status;
}

absl::Status Service::DeconstructTuple(const DeconstructTupleRequest& arg, DeconstructTupleResponse* result) {
  ASSIGN_OR_RETURN(std::vector<GlobalDataHandle> handles, allocations_.DeconstructTuple(arg.tuple_handle()));
  for (const GlobalDataHandle& h : handles) *result->add_element_handles() = h;
  return absl::OkStatus();
}

absl::Status Service::GetShape(const GetShapeRequest& arg, GetShapeResponse* result) {
  ASSIGN_OR_RETURN(std::shared_ptr<const DeviceBuffer> buffer, allocations_.Resolve(arg.data()));
  *result->mutable_shape() = buffer->shape().ToProto();
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloModule>> Service::LoadModule(const HloModuleProto& proto,
                                                               const std::string& hlo_text) {
  std::unique_ptr<HloModule> module;
  if (!hlo_text.empty()) {
    if (proto.computations_size() > 0) {
      return InvalidArgument("request carries both a module proto and HLO text; send one");
    }
    ASSIGN_OR_RETURN(module, ParseHloModule(hlo_text));
  } else {
    ASSIGN_OR_RETURN(module, HloModule::CreateFromProto(proto));
  }
  HloVerifier verifier;
  RETURN_IF_ERROR(verifier.Verify(*module));
  return module;
}

absl::Status Service::GetComputationShape(const GetComputationShapeRequest& arg,
                                          GetComputationShapeResponse* result) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(arg.computation(), ""));
  *result->mutable_program_shape() = module->entry_computation()->ComputeProgramShape().ToProto();
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Executable>> Service::CompileModule(std::unique_ptr<HloModule> module,
                                                                   const ExecutionOptions& options, bool* cache_hit) {
  if (!options.backend().empty() && options.backend() != backend_->name()) {
    return InvalidArgument("this service runs backend '%s', but the request asks for '%s'", backend_->name(),
                           options.backend());
  }
  std::string key = CompilationCache::Fingerprint(*module, options.debug_options(), backend_->name());
  if (std::shared_ptr<Executable> cached = cache_.Lookup(key)) {
    *cache_hit = true;
    return cached;
  }
  *cache_hit = false;
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                   backend_->compiler()->Compile(std::move(module), options.debug_options()));
  ++compilations_;
  std::shared_ptr<Executable> shared = std::move(executable);
  cache_.Insert(key, shared);
  return shared;
}

absl::Status Service::Compile(const CompileRequest& arg, CompileResponse* result) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(arg.computation(), arg.hlo_text()));
  const HloComputation* entry = module->entry_computation();
  if (arg.input_shape_with_layout_size() > 0) {
    if (arg.input_shape_with_layout_size() != entry->num_parameters()) {
      return InvalidArgument("Compile: %d argument shapes given but the computation takes %d parameters",
                             arg.input_shape_with_layout_size(), entry->num_parameters());
    }
    for (int i = 0; i < arg.input_shape_with_layout_size(); ++i) {
      ASSIGN_OR_RETURN(Shape s, ShapeUtil::FromProto(arg.input_shape_with_layout(i)));
      if (!s.Compatible(entry->parameter_instruction(i)->shape())) {
        return InvalidArgument("Compile: argument %d has shape %s but parameter %d is %s", i, s.ToString(), i,
                               entry->parameter_instruction(i)->shape().ToString());
      }
    }
  }
  *result->mutable_program_shape() = entry->ComputeProgramShape().ToProto();
  bool hit = false;
  ASSIGN_OR_RETURN(std::shared_ptr<Executable> executable, CompileModule(std::move(module), arg.execution_options(), &hit));
  result->set_compilation_cache_hit(hit);
  absl::MutexLock lock(&executables_mutex_);
  int64_t handle = next_executable_++;
  executables_[handle] = std::move(executable);
  result->mutable_handle()->set_handle(handle);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Executable>> Service::ResolveExecutable(const ExecutionHandle& handle) const {
  absl::MutexLock lock(&executables_mutex_);
  auto it = executables_.find(handle.handle());
  if (it == executables_.end()) {
    return NotFound("no executable with handle %d (unknown or already released)", handle.handle());
  }
  return it->second;
}

absl::Status Service::Run(Executable& executable, const google::protobuf::RepeatedPtrField<GlobalDataHandle>& args,
                          ExecuteResponse* result) {
  const HloComputation* entry = executable.module().entry_computation();
  if (args.size() != entry->num_parameters()) {
    return InvalidArgument("Execute: computation '%s' takes %d arguments but %d were given",
                           entry->name(), entry->num_parameters(), args.size());
  }
  std::vector<std::shared_ptr<const DeviceBuffer>> buffers;
  for (int i = 0; i < args.size(); ++i) {
    ASSIGN_OR_RETURN(std::shared_ptr<const DeviceBuffer> buffer, allocations_.Resolve(args[i]));
    const Shape& expected = entry->parameter_instruction(i)->shape();
    if (!buffer->shape().Compatible(expected)) {
      return InvalidArgument("Execute: argument %d has shape %s but parameter %d ('%s') of '%s' is %s", i,
                             buffer->shape().ToString(), i, entry->parameter_instruction(i)->name(), entry->name(),
                             expected.ToString());
    }
    if (buffer->shape() != expected) {
      // Same values, another layout: relayout into the parameter's layout.
      ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> relaid,
                       DeviceBuffer::FromLiteral(buffer->ToLiteral().RelayoutTo(expected)));
      buffer = std::move(relaid);
    }
    buffers.push_back(std::move(buffer));
  }
  auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> output, executable.Execute(buffers));
  result->mutable_profile()->set_compute_time_ns(NanosSince(start));
  ++executions_;
  *result->mutable_output() = allocations_.Register(std::move(output), "execution result");
  return absl::OkStatus();
}

absl::Status Service::Execute(const ExecuteRequest& arg, ExecuteResponse* result) {
  ASSIGN_OR_RETURN(std::shared_ptr<Executable> executable, ResolveExecutable(arg.handle()));
  result->mutable_profile()->set_compilation_cache_hit(true);
  return Run(*executable, arg.arguments(), result);
}

absl::Status Service::ExecuteGraph(const ExecuteGraphRequest& arg, ExecuteResponse* result) {
  auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(arg.computation(), ""));
  bool hit = false;
  ASSIGN_OR_RETURN(std::shared_ptr<Executable> executable, CompileModule(std::move(module), arg.execution_options(), &hit));
  result->mutable_profile()->set_compilation_cache_hit(hit);
  result->mutable_profile()->set_compile_time_ms(NanosSince(start) / 1000000);
  RETURN_IF_ERROR(Run(*executable, arg.arguments(), result));
  result->mutable_profile()->set_compute_and_transfer_time_ns(NanosSince(start));
  return absl::OkStatus();
}

absl::Status Service::UnregisterExecutable(const UnregisterExecutableRequest& arg,
                                           UnregisterExecutableResponse* result) {
  absl::MutexLock lock(&executables_mutex_);
  if (executables_.erase(arg.handle().handle()) == 0) {
    return NotFound("no executable with handle %d (unknown or already released)", arg.handle().handle());
  }
  return absl::OkStatus();
}

absl::Status Service::ComputeConstantGraph(const ComputeConstantGraphRequest& arg, ComputeConstantResponse* result) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(arg.computation(), ""));
  if (module->entry_computation()->num_parameters() != 0) {
    return InvalidArgument("ComputeConstant: the computation takes %d parameters; constants take none",
                           module->entry_computation()->num_parameters());
  }
  HloEvaluator evaluator(/*max_loop_iterations=*/1 << 24);
  ASSIGN_OR_RETURN(Literal literal, evaluator.Evaluate(*module, {}));
  if (arg.has_output_layout() && literal.shape().IsArray()) {
    Shape with_layout = literal.shape();
    with_layout.set_layout(Layout({arg.output_layout().minor_to_major().begin(), arg.output_layout().minor_to_major().end()}));
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(with_layout));
    literal = literal.Relayout(with_layout.layout());
  }
  *result->mutable_literal() = literal.ToProto();
  return absl::OkStatus();
}

absl::Status Service::GetDeviceHandles(const GetDeviceHandlesRequest& arg, GetDeviceHandlesResponse* result) {
  if (arg.device_count() < 1 || arg.device_count() > 1) {
    return InvalidArgument("GetDeviceHandles: this service has 1 device, %d requested", arg.device_count());
  }
  DeviceHandle* h = result->add_device_handles();
  h->set_handle(0);
  h->set_device_count(1);
  return absl::OkStatus();
}

absl::Status Service::CreateChannelHandle(const CreateChannelHandleRequest& arg, CreateChannelHandleResponse* result) {
  result->mutable_channel()->set_handle(next_channel_++);
  result->mutable_channel()->set_type(arg.channel_type() == ChannelHandle::CHANNEL_TYPE_INVALID
                                          ? ChannelHandle::DEVICE_TO_DEVICE
                                          : arg.channel_type());
  return absl::OkStatus();
}

absl::Status Service::ResetDevice(const ResetDeviceRequest& arg, ResetDeviceResponse* result) {
  // Host devices keep no state between executions beyond the buffers the
  // client owns through handles; nothing to reset.
  return absl::OkStatus();
}

absl::Status Service::GetServiceInfo(const GetServiceInfoRequest& arg, GetServiceInfoResponse* result) {
  result->set_version("0.1");
  for (const std::string& n : BackendRegistry::Names()) result->add_backends(n);
  result->set_default_backend(backend_->name());
  result->set_bytes_in_use(allocations_.bytes_in_use());
  result->set_live_buffers(allocations_.live_handles());
  CompilationCache::Stats stats = cache_.stats();
  result->set_cache_entries(stats.entries);
  result->set_cache_hits(stats.hits);
  result->set_cache_misses(stats.misses);
  result->set_cache_evictions(stats.evictions);
  result->set_compilations(compilations_);
  result->set_executions(executions_);
  return absl::OkStatus();
}

namespace {

// Linking //service:service makes ClientLibrary's in-process clients work.
const bool registered = [] {
  RegisterInProcessServiceFactory(
      [](const ServiceOptions& options) -> absl::StatusOr<std::unique_ptr<ServiceInterface>> {
        ASSIGN_OR_RETURN(std::unique_ptr<Service> service, Service::Create(options));
        return std::unique_ptr<ServiceInterface>(std::move(service));
      });
  return true;
}();

}  // namespace
}  // namespace xla
