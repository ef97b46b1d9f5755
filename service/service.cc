#include "service/service.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <new>
#include <fstream>
#include <optional>
#include <thread>

#include "absl/container/inlined_vector.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/random/random.h"
#include "absl/time/clock.h"
#include "backends/replicated_execution.h"
#include "xla/collectives/rendezvous.h"
#include "xla/collectives/replica_context.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/program_digest.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/single_module.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

// Upper bound of what running `module` allocates: the values of all its
// instructions (parameters are the caller's), saturating.
int64_t WorkingSetBytes(const HloModule& module) {
  int64_t total = 0;
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      if (i->opcode() == HloOpcode::kParameter && c == module.entry_computation()) continue;
      int64_t b = AllocationTracker::ChargedBytesOfTree(i->shape());
      total = total > INT64_MAX - b ? INT64_MAX : total + b;
    }
  }
  return total;
}

// Host allocation failures inside a backend become a status, not a crash.
absl::StatusOr<std::shared_ptr<DeviceBuffer>> ExecuteCatchingOutOfMemory(
    Executable& executable, absl::Span<const std::shared_ptr<const DeviceBuffer>> arguments,
    absl::Span<const std::shared_ptr<DeviceBuffer>> donated, const ExecutionControl* control) {
  try {
    return donated.empty() ? executable.Execute(arguments, control)
                           : executable.ExecuteWithDonations(arguments, donated, control);
  } catch (const std::bad_alloc&) {
    return ResourceExhausted("execution ran out of host memory");
  }
}

// The wall clock to a few milliseconds, without a clock read's full cost:
// enough for idle timeouts, and read on every call of a session.
absl::Time CoarseNow() {
  timespec now;
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return absl::TimeFromTimespec(now);
}

int64_t NanosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Service::Service(std::unique_ptr<Backend> backend, const ServiceLimits& limits)
    : backend_(std::move(backend)),
      limits_(limits),
      allocations_(limits.max_memory_bytes, limits.max_session_bytes),
      cache_(limits.cache_bytes) {}

Service::~Service() { AbandonAsyncRuns(std::nullopt); }

absl::StatusOr<std::unique_ptr<Service>> Service::Create(const std::string& backend, const ServiceLimits& limits) {
  std::string name = backend.empty() ? BackendRegistry::DefaultName() : backend;
  if (name.empty()) return FailedPrecondition("no backend is linked into this program");
  if (limits.num_devices < 1) return InvalidArgument("a service needs at least 1 device, not %d", limits.num_devices);
  if (limits.wait_seconds <= 0) return InvalidArgument("wait_seconds must be > 0, not %g", limits.wait_seconds);
  ASSIGN_OR_RETURN(std::unique_ptr<Backend> created, BackendRegistry::Create(name));
#ifdef NDEBUG
  // Debian's Abseil is built with its debug checks, so every Mutex lock
  // updates a global lock graph: about a tenth of a tiny run's time in the
  // service. Optimized builds turn that off, as an NDEBUG Abseil would;
  // debug builds (the tests) keep it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
#endif
  auto service = absl::WrapUnique(new Service(std::move(created), limits));
  if (!limits.cache_dir.empty()) {
    ASSIGN_OR_RETURN(service->persistent_cache_, PersistentCache::Open(limits.cache_dir, limits.cache_dir_bytes));
  }
  return service;
}

SessionId Service::OpenSession(const std::string& client_name) {
  // 128 bits from Abseil's OS-seeded generator: the token is the capability.
  absl::BitGen gen;
  std::string token = absl::StrFormat("%016x%016x", absl::Uniform<uint64_t>(gen), absl::Uniform<uint64_t>(gen));
  absl::MutexLock lock(&mutex_);
  const SessionId id = next_session_++;
  auto session = std::make_shared<Session>(id, client_name, token, allocations_.OpenSession(id));
  session->last_active_ns.store(absl::ToUnixNanos(CoarseNow()), std::memory_order_relaxed);
  sessions_[id] = std::move(session);
  session_by_token_[token] = id;
  return id;
}

std::shared_ptr<Service::Session> Service::FindSession(SessionId session) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = sessions_.find(session);
  return it == sessions_.end() ? nullptr : it->second;
}

absl::StatusOr<std::shared_ptr<Service::Session>> Service::OpenSessionOrError(SessionId session) const {
  std::shared_ptr<Session> found = FindSession(session);
  if (found == nullptr) return NotFound("session %d is not open (closed or timed out)", session);
  return found;
}

std::string Service::SessionToken(SessionId session) const {
  std::shared_ptr<Session> found = FindSession(session);
  return found == nullptr ? "" : found->token;
}

absl::StatusOr<SessionId> Service::SessionForToken(const std::string& token) const {
  absl::MutexLock lock(&mutex_);
  auto it = session_by_token_.find(token);
  if (it == session_by_token_.end()) return NotFound("no open session with this token (closed or timed out?)");
  return it->second;
}

absl::Status Service::CloseSession(SessionId session) {
  // Its async runs stop before its buffers go, so that none registers a
  // result in a closed session.
  AbandonAsyncRuns(session);
  std::shared_ptr<Session> closed;
  {
    absl::MutexLock lock(&mutex_);
    auto it = sessions_.find(session);
    if (it == sessions_.end()) return NotFound("session %d is not open", session);
    closed = std::move(it->second);
    session_by_token_.erase(closed->token);
    sessions_.erase(it);
  }
  {
    // A SessionService that kept the session sees it closed from now on.
    absl::MutexLock lock(&closed->mutex);
    closed->open.store(false, std::memory_order_relaxed);
  }
  DropExecutables(*closed);
  executions_.fetch_add(closed->executions.load(std::memory_order_relaxed), std::memory_order_relaxed);
  DropFeeds(session);
  allocations_.CloseSession(session);
  return absl::OkStatus();
}

void Service::DropExecutables(Session& session) {
  absl::flat_hash_map<int64_t, std::shared_ptr<ExecutableEntry>> dropped;
  absl::MutexLock lock(&session.mutex);
  dropped.swap(session.executables);
}

absl::Status Service::TouchSession(SessionId session) {
  ASSIGN_OR_RETURN(std::shared_ptr<Session> found, OpenSessionOrError(session));
  return TouchSession(*found);
}

absl::Status Service::TouchSession(Session& session) {
  // A call racing a close may pass here; it then fails at its first access
  // to the session's tables.
  if (!session.open.load(std::memory_order_relaxed)) {
    return NotFound("session %d is not open (closed or timed out)", session.id);
  }
  session.last_active_ns.store(absl::ToUnixNanos(CoarseNow()), std::memory_order_relaxed);
  return absl::OkStatus();
}

int Service::CloseIdleSessions(absl::Duration idle) {
  std::vector<SessionId> idle_sessions;
  {
    absl::ReaderMutexLock lock(&mutex_);
    const int64_t cutoff_ns = absl::ToUnixNanos(CoarseNow() - idle);
    for (const auto& [id, session] : sessions_) {
      if (session->last_active_ns.load(std::memory_order_relaxed) < cutoff_ns) idle_sessions.push_back(id);
    }
  }
  int closed = 0;
  for (SessionId id : idle_sessions) closed += CloseSession(id).ok() ? 1 : 0;
  return closed;
}

int64_t Service::open_sessions() const {
  absl::ReaderMutexLock lock(&mutex_);
  return sessions_.size();
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> Service::AllocateForTransfer(
    SessionId session, const Shape& shape, AllocationTracker::Reservation* reservation) {
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  ASSIGN_OR_RETURN(*reservation, allocations_.Reserve(session, AllocationTracker::ChargedBytesOfTree(shape),
                                                      absl::StrCat("a transfer of ", shape.ToString())));
  return DeviceBuffer::AllocateTree(shape);
}

absl::StatusOr<GlobalDataHandle> Service::RegisterBuffer(SessionId session, std::shared_ptr<const DeviceBuffer> buffer,
                                                         const std::string& tag) {
  return allocations_.Register(session, std::move(buffer), tag);
}

absl::StatusOr<std::shared_ptr<const DeviceBuffer>> Service::ResolveBuffer(SessionId session,
                                                                          const GlobalDataHandle& handle) const {
  return allocations_.Resolve(session, handle);
}

absl::Status Service::TransferToServer(SessionId session, const TransferToServerRequest& arg,
                                      TransferToServerResponse* result) {
  // Check the quota on the declared shape before decoding anything: the
  // decoded literal and the device buffer both exist for a moment.
  ASSIGN_OR_RETURN(Shape shape, ShapeUtil::FromProto(arg.literal().shape()));
  const int64_t bytes = AllocationTracker::ChargedBytesOfTree(shape);
  ASSIGN_OR_RETURN(AllocationTracker::Reservation reservation,
                   allocations_.Reserve(session, bytes > INT64_MAX / 2 ? INT64_MAX : 2 * bytes,
                                        absl::StrCat("a transfer of ", shape.ToString())));
  ASSIGN_OR_RETURN(Literal literal, Literal::FromProto(arg.literal()));
  ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> buffer,
                   backend_->transfer_manager()->TransferLiteralToDevice(literal));
  ASSIGN_OR_RETURN(*result->mutable_data(), allocations_.Register(session, std::move(buffer), "transfer"));
  return absl::OkStatus();
}

absl::StatusOr<GlobalDataHandle> Service::TransferLiteralToServer(SessionId session, const Literal& literal) {
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(literal.shape()));
  ASSIGN_OR_RETURN(AllocationTracker::Reservation reservation,
                   allocations_.Reserve(session, AllocationTracker::ChargedBytesOfTree(literal.shape()),
                                        absl::StrCat("a transfer of ", literal.shape().ToString())));
  ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> buffer,
                   backend_->transfer_manager()->TransferLiteralToDevice(literal));
  return allocations_.Register(session, std::move(buffer), "transfer");
}

absl::StatusOr<GlobalDataHandle> Service::TransferHostArrayInProcess(SessionId session, const Shape& shape,
                                                                    const void* data, std::shared_ptr<const void> owner,
                                                                    bool* aliased) {
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  if (!shape.IsArray()) return InvalidArgument("TransferInProcess: %s is not an array", shape.ToString());
  ASSIGN_OR_RETURN(AllocationTracker::Reservation reservation,
                   allocations_.Reserve(session, AllocationTracker::ChargedBytesOfTree(shape),
                                        absl::StrCat("a transfer of ", shape.ToString())));
  ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> buffer,
                   DeviceBuffer::FromHostArray(shape, data, std::move(owner), aliased));
  return allocations_.Register(session, std::move(buffer), "transfer");
}

absl::StatusOr<Literal> Service::TransferLiteralToClient(SessionId session, const GlobalDataHandle& handle,
                                                         const Shape* shape_with_layout) {
  ASSIGN_OR_RETURN(std::shared_ptr<const DeviceBuffer> buffer, allocations_.Resolve(session, handle));
  if (shape_with_layout != nullptr) {
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(*shape_with_layout));
    if (!shape_with_layout->Compatible(buffer->shape())) {
      return InvalidArgument("TransferToClient: requested shape %s does not match the data's shape %s",
                             shape_with_layout->ToString(), buffer->shape().ToString());
    }
  }
  // The copy and a relaid copy (padded: its whole memory image) count
  // against the quota while they exist.
  const int64_t copy_bytes = AllocationTracker::ChargedBytesOfTree(buffer->shape());
  const int64_t relaid_bytes =
      AllocationTracker::ChargedBytesOfTree(shape_with_layout != nullptr ? *shape_with_layout : buffer->shape());
  // Without a quota, a padded layout could still ask for more than exists.
  const int64_t physical_bytes = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  if (relaid_bytes > physical_bytes) {
    return ResourceExhausted("TransferToClient: the requested layout %s needs %d bytes, more than the machine's %d",
                             shape_with_layout->ToString(true), relaid_bytes, physical_bytes);
  }
  ASSIGN_OR_RETURN(AllocationTracker::Reservation reservation,
                   allocations_.Reserve(session, copy_bytes > INT64_MAX - relaid_bytes ? INT64_MAX : copy_bytes + relaid_bytes,
                                        absl::StrCat("a copy of ", buffer->shape().ToString())));
  ASSIGN_OR_RETURN(Literal literal, backend_->transfer_manager()->TransferLiteralFromDevice(*buffer));
  if (shape_with_layout != nullptr) literal = literal.RelayoutTo(*shape_with_layout);
  return literal;
}

absl::Status Service::TransferToClient(SessionId session, const TransferToClientRequest& arg,
                                      TransferToClientResponse* result) {
  std::optional<Shape> requested;
  if (arg.has_shape_with_layout()) {
    ASSIGN_OR_RETURN(requested, ShapeUtil::FromProto(arg.shape_with_layout()));
  }
  ASSIGN_OR_RETURN(Literal literal,
                   TransferLiteralToClient(session, arg.data(), requested.has_value() ? &*requested : nullptr));
  *result->mutable_literal() = literal.ToProto();
  return absl::OkStatus();
}

void Service::ReleaseHandle(Session& session, const GlobalDataHandle& handle) {
  allocations_.Unregister(*session.table, handle).IgnoreError();
}

absl::Status Service::Unregister(SessionId session, const UnregisterRequest& arg, UnregisterResponse* result) {
  // Release every handle that exists; report the first unknown one.
  absl::Status status;
  for (const GlobalDataHandle& h : arg.data()) status.Update(allocations_.Unregister(session, h));
  return status;
}

absl::Status Service::DeconstructTuple(SessionId session, const DeconstructTupleRequest& arg, DeconstructTupleResponse* result) {
  ASSIGN_OR_RETURN(std::vector<GlobalDataHandle> handles, allocations_.DeconstructTuple(session, arg.tuple_handle()));
  for (const GlobalDataHandle& h : handles) *result->add_element_handles() = h;
  return absl::OkStatus();
}

absl::Status Service::GetShape(SessionId session, const GetShapeRequest& arg, GetShapeResponse* result) {
  ASSIGN_OR_RETURN(std::shared_ptr<const DeviceBuffer> buffer, allocations_.Resolve(session, arg.data()));
  *result->mutable_shape() = buffer->shape().ToProto();
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloModule>> Service::LoadModule(const HloModuleProto& proto) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, HloModule::CreateFromProto(proto));
  RETURN_IF_ERROR(VerifyHloModule(*module));
  return module;
}

absl::StatusOr<std::unique_ptr<HloModule>> Service::LoadModule(const CompileRequest& request) {
  const int programs = request.has_computation() + !request.hlo_text().empty() + !request.stablehlo_text().empty();
  if (programs != 1) {
    return InvalidArgument(
        "Compile: the request carries %d programs; set exactly one of computation, hlo_text and stablehlo_text",
        programs);
  }
  if (request.has_computation()) return LoadModule(request.computation());
  std::unique_ptr<HloModule> module;
  if (!request.hlo_text().empty()) {
    ASSIGN_OR_RETURN(module, ParseHloModule(request.hlo_text()));
  } else {
    // Errors read "stablehlo_text:LINE:COL: message".
    ASSIGN_OR_RETURN(module, stablehlo::ImportStableHloModule(request.stablehlo_text(), "stablehlo_text"));
  }
  RETURN_IF_ERROR(VerifyHloModule(*module));
  return module;
}

absl::Status Service::GetComputationShape(SessionId session, const GetComputationShapeRequest& arg,
                                          GetComputationShapeResponse* result) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(arg.computation()));
  *result->mutable_program_shape() = module->entry_computation()->ComputeProgramShape().ToProto();
  return absl::OkStatus();
}

ExecutionControl Service::RunControl(const RequestControl& request) const {
  absl::Time deadline = request.deadline;
  if (limits_.max_run_seconds > 0) deadline = std::min(deadline, absl::Now() + absl::Seconds(limits_.max_run_seconds));
  return ExecutionControl(deadline, request.cancelled);
}

absl::StatusOr<DebugOptions> Service::EffectiveDebugOptions(const DebugOptions& requested) const {
  DebugOptions options = requested;
  if (!options.xla_dump_to().empty() && !limits_.allow_request_dump_to) {
    return absl::PermissionDeniedError(
        "xla_dump_to is not accepted from clients of this service; the operator sets the dump directory");
  }
  if (options.xla_dump_to().empty()) options.set_xla_dump_to(limits_.dump_to);
  if (options.xla_cpu_target().empty()) options.set_xla_cpu_target(limits_.cpu_target);
  if (options.xla_cpu_threads() < 0) return InvalidArgument("xla_cpu_threads must be >= 0");
  if (options.has_xla_backend_optimization_level() &&
      (options.xla_backend_optimization_level() < 0 || options.xla_backend_optimization_level() > 3)) {
    return InvalidArgument("xla_backend_optimization_level must be 0 to 3, not %d",
                           options.xla_backend_optimization_level());
  }
  if (limits_.max_cpu_threads > 0 &&
      (options.xla_cpu_threads() == 0 || options.xla_cpu_threads() > limits_.max_cpu_threads)) {
    options.set_xla_cpu_threads(limits_.max_cpu_threads);
  }
  return options;
}

absl::Status Service::ApplyOutputLayout(const ExecutionOptions& options, HloModule* module) {
  if (!options.has_shape_with_output_layout()) return absl::OkStatus();
  absl::StatusOr<Shape> wanted = ShapeUtil::FromProto(options.shape_with_output_layout());
  if (!wanted.ok()) {
    return InvalidArgument("execution_options.shape_with_output_layout: %s", wanted.status().message());
  }
  // A padded layout describes the host literal the client will fetch (the
  // client pads at transfer); the device result takes its element order.
  *wanted = ShapeUtil::WithoutPadding(*wanted);
  HloComputation* entry = module->entry_computation();
  HloInstruction* root = entry->root_instruction();
  if (!wanted->Compatible(root->shape())) {
    return InvalidArgument("execution_options.shape_with_output_layout %s does not match the result %s of '%s'",
                           wanted->ToString(), root->shape().ToString(), entry->name());
  }
  if (*wanted == root->shape()) return absl::OkStatus();
  // The result is copied into the requested layout by the program itself,
  // so every later run of the compiled executable returns it so.
  NameUniquer names(*module);
  entry->set_root_instruction(AddInstructionWithUniqueName(
      entry, HloInstruction::CreateUnary(HloOpcode::kCopy, *wanted, root), &names, "output_layout"));
  return VerifyHloModule(*module);
}

absl::StatusOr<std::string> Service::PersistentBackendKey(const DebugOptions& debug_options) const {
  // Not for compiles that dump (a load has no IR to dump).
  if (persistent_cache_ == nullptr || !debug_options.xla_dump_to().empty()) return std::string();
  return backend_->compiler()->PersistentKey(debug_options);
}

std::shared_ptr<Executable> Service::LoadSaved(const std::string& persistent_key, const DebugOptions& debug_options) {
  std::shared_ptr<const PersistentCache::Payload> saved = persistent_cache_->Lookup(persistent_key);
  if (saved == nullptr) return nullptr;
  absl::StatusOr<std::unique_ptr<Executable>> loaded =
      backend_->compiler()->LoadExecutable(saved->bytes(), saved, debug_options);
  if (!loaded.ok()) {
    // An intact file the backend refuses (another target or build): the
    // caller compiles and saves over it.
    std::fprintf(stderr, "xla persistent cache: %s not loaded: %s\n", persistent_cache_->PathFor(persistent_key).c_str(),
                 loaded.status().ToString().c_str());
    persistent_cache_->Reject(persistent_key);
    return nullptr;
  }
  ++persistent_loads_;
  return std::move(*loaded);
}

absl::StatusOr<std::shared_ptr<Executable>> Service::CompileModule(std::unique_ptr<HloModule> module,
                                                                   const ExecutionOptions& options, bool* cache_hit,
                                                                   const RequestControl& request,
                                                                   std::string* cache_key, bool look_in_saved) {
  if (!options.backend().empty() && options.backend() != backend_->name()) {
    return InvalidArgument("this service runs backend '%s', but the request asks for '%s'", backend_->name(),
                           options.backend());
  }
  ASSIGN_OR_RETURN(DebugOptions debug_options, EffectiveDebugOptions(options.debug_options()));
  RETURN_IF_ERROR(ApplyOutputLayout(options, module.get()));
  // ExecutionOptions.seed keys the module's rng ops (its rng_seed header
  // attribute, xla/transforms/rng_expansion.h) for every program form and
  // client, unless the module names its own; the attribute is part of the
  // cache key.
  if (options.seed() != 0 && module->attributes().count("rng_seed") == 0) {
    module->attributes()["rng_seed"] = std::to_string(options.seed());
  }
  std::string key = CompilationCache::Fingerprint(*module, debug_options, backend_->name());
  if (cache_key != nullptr) *cache_key = key;
  if (std::shared_ptr<Executable> cached = cache_.Lookup(key)) {
    *cache_hit = true;
    return cached;
  }
  *cache_hit = false;
  // Then the persistent cache.
  ASSIGN_OR_RETURN(std::string backend_key, PersistentBackendKey(debug_options));
  const std::string persistent_key = backend_key.empty() ? "" : absl::StrCat(key, "\n", backend_key);
  if (!persistent_key.empty() && look_in_saved) {
    if (std::shared_ptr<Executable> loaded = LoadSaved(persistent_key, debug_options)) {
      cache_.Insert(key, loaded);
      *cache_hit = true;
      return loaded;
    }
  }
  absl::Time deadline = request.deadline;
  if (limits_.max_compile_seconds > 0) {
    deadline = std::min(deadline, absl::Now() + absl::Seconds(limits_.max_compile_seconds));
  }
  const ExecutionControl control(deadline, request.cancelled);
  absl::StatusOr<std::unique_ptr<Executable>> compiled =
      backend_->compiler()->Compile(std::move(module), debug_options, &control);
  if (control.stopped()) {
    if (!compiled.ok() && compiled.status().code() == absl::StatusCode::kCancelled) {
      return absl::CancelledError("the compile was cancelled (the client went away or the service is stopping)");
    }
    if (!compiled.ok()) {
      return absl::DeadlineExceededError(absl::StrFormat(
          "the compile did not finish before its deadline (the client's, or --max_compile_seconds=%g)",
          limits_.max_compile_seconds));
    }
  }
  if (!compiled.ok()) return compiled.status();
  std::unique_ptr<Executable> executable = std::move(*compiled);
  ++compilations_;
  std::shared_ptr<Executable> shared = std::move(executable);
  cache_.Insert(key, shared);
  if (!persistent_key.empty()) {
    // A failure to save costs only a later compile: logged, not returned.
    absl::StatusOr<std::string> bytes = backend_->compiler()->SerializeExecutable(*shared);
    absl::Status saved = bytes.ok() ? persistent_cache_->Insert(persistent_key, *bytes) : bytes.status();
    if (!saved.ok() && saved.code() != absl::StatusCode::kFailedPrecondition) {
      std::fprintf(stderr, "xla persistent cache: not saved: %s\n", saved.ToString().c_str());
    }
  }
  return shared;
}

namespace {

// The digest of a Compile request's one program; empty when it does not
// carry exactly one (LoadModule reports that).
std::string ProgramDigestOf(const CompileRequest& request) {
  const int programs = request.has_computation() + !request.hlo_text().empty() + !request.stablehlo_text().empty();
  if (programs != 1) return "";
  if (request.has_computation()) return ProgramDigest(request.computation());
  if (!request.hlo_text().empty()) return HloTextDigest(request.hlo_text());
  return StableHloTextDigest(request.stablehlo_text());
}

// The compilation cache's alias of a Compile request: its program's digest
// with everything else that decides what is compiled (the options and the
// argument shapes), encoded as a request without a program.
std::string CompileRequestAlias(const std::string& digest, const CompileRequest& request) {
  CompileRequest key;
  key.set_program_digest(digest);
  *key.mutable_execution_options() = request.execution_options();
  *key.mutable_input_shape_with_layout() = request.input_shape_with_layout();
  return DeterministicBytes(key);
}

// The persistent cache's key of an alias record.
std::string PersistentAliasKey(const std::string& alias, const std::string& backend_key) {
  return absl::StrCat("compile-request-alias\n", backend_key, "\n", alias);
}

}  // namespace

std::optional<CompilationCache::AliasHit> Service::FindByAlias(const std::string& alias,
                                                               const ExecutionOptions& options, bool* looked_in_saved) {
  if (std::optional<CompilationCache::AliasHit> hit = cache_.LookupAlias(alias)) return hit;
  // A fresh process finds the executable a previous one saved through the
  // alias record it saved with it. Options the service refuses have no
  // record (the compile that would have written it failed).
  absl::StatusOr<DebugOptions> debug_options = EffectiveDebugOptions(options.debug_options());
  if (!debug_options.ok()) return std::nullopt;
  absl::StatusOr<std::string> backend_key = PersistentBackendKey(*debug_options);
  if (!backend_key.ok() || backend_key->empty()) return std::nullopt;
  const std::string record_key = PersistentAliasKey(alias, *backend_key);
  std::shared_ptr<const PersistentCache::Payload> record_bytes =
      persistent_cache_->Lookup(record_key, PersistentCache::kUncounted);
  if (record_bytes == nullptr) return std::nullopt;
  PersistentCompileAlias record;
  // (An intact file of another format: the compile that follows saves over it.)
  if (record_bytes->bytes().size() > INT_MAX ||
      !record.ParseFromArray(record_bytes->bytes().data(), static_cast<int>(record_bytes->bytes().size()))) {
    return std::nullopt;
  }
  *looked_in_saved = true;
  std::shared_ptr<Executable> loaded =
      LoadSaved(absl::StrCat(record.canonical_key(), "\n", *backend_key), *debug_options);
  if (loaded == nullptr) return std::nullopt;
  auto program_shape = std::make_shared<const ProgramShapeProto>(std::move(*record.mutable_program_shape()));
  cache_.Insert(record.canonical_key(), loaded);
  cache_.AddAlias(alias, record.canonical_key(), program_shape);
  return CompilationCache::AliasHit{std::move(loaded), std::move(program_shape)};
}

void Service::SaveAlias(const std::string& alias, const std::string& key,
                        std::shared_ptr<const ProgramShapeProto> program_shape, const ExecutionOptions& options) {
  if (persistent_cache_ != nullptr) {
    absl::StatusOr<DebugOptions> debug_options = EffectiveDebugOptions(options.debug_options());
    absl::StatusOr<std::string> backend_key =
        debug_options.ok() ? PersistentBackendKey(*debug_options) : debug_options.status();
    if (backend_key.ok() && !backend_key->empty()) {
      PersistentCompileAlias record;
      record.set_canonical_key(key);
      *record.mutable_program_shape() = *program_shape;
      absl::Status saved = persistent_cache_->Insert(PersistentAliasKey(alias, *backend_key),
                                                     DeterministicBytes(record), PersistentCache::kUncounted);
      if (!saved.ok() && saved.code() != absl::StatusCode::kFailedPrecondition) {
        std::fprintf(stderr, "xla persistent cache: alias not saved: %s\n", saved.ToString().c_str());
      }
    }
  }
  cache_.AddAlias(alias, key, std::move(program_shape));
}

absl::Status Service::Compile(SessionId session, const CompileRequest& arg, CompileResponse* result,
                              const RequestControl& request) {
  const bool by_digest = !arg.program_digest().empty();
  std::string digest;
  if (by_digest) {
    if (arg.has_computation() || !arg.hlo_text().empty() || !arg.stablehlo_text().empty()) {
      return InvalidArgument(
          "Compile: set program_digest alone (to compile a program the service returned that digest for) or a "
          "program, not both");
    }
    if (arg.program_digest().size() != kProgramDigestBytes) {
      return InvalidArgument("Compile: program_digest has %d bytes; the digests the service returns have %d",
                             arg.program_digest().size(), kProgramDigestBytes);
    }
    digest = arg.program_digest();
  } else {
    digest = ProgramDigestOf(arg);
  }
  const std::string alias = digest.empty() ? "" : CompileRequestAlias(digest, arg);
  std::shared_ptr<Executable> executable;
  bool looked_in_saved = false;
  if (!alias.empty()) {
    if (std::optional<CompilationCache::AliasHit> hit = FindByAlias(alias, arg.execution_options(), &looked_in_saved)) {
      executable = std::move(hit->executable);
      *result->mutable_program_shape() = *hit->program_shape;
      result->set_compilation_cache_hit(true);
    }
  }
  if (executable == nullptr && by_digest) {
    result->set_program_needed(true);
    return absl::OkStatus();
  }
  if (executable == nullptr) {
    ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(arg));
    const HloComputation* entry = module->entry_computation();
    if (arg.input_shape_with_layout_size() > 0) {
      if (arg.input_shape_with_layout_size() != entry->num_parameters()) {
        return InvalidArgument("Compile: %d argument shapes given but the computation takes %d parameters",
                               arg.input_shape_with_layout_size(), entry->num_parameters());
      }
      for (int i = 0; i < arg.input_shape_with_layout_size(); ++i) {
        ASSIGN_OR_RETURN(Shape s, ShapeUtil::FromProto(arg.input_shape_with_layout(i)));
        RETURN_IF_ERROR(ShapeUtil::CheckNoPadding(s, absl::StrCat("Compile: argument ", i)));
        if (!s.Compatible(entry->parameter_instruction(i)->shape())) {
          return InvalidArgument("Compile: argument %d has shape %s but parameter %d is %s", i, s.ToString(), i,
                                 entry->parameter_instruction(i)->shape().ToString());
        }
      }
    }
    auto program_shape = std::make_shared<const ProgramShapeProto>(entry->ComputeProgramShape().ToProto());
    *result->mutable_program_shape() = *program_shape;
    bool hit = false;
    std::string key;
    // (An entry the alias record led to and that did not load is not looked
    // up twice.)
    ASSIGN_OR_RETURN(executable, CompileModule(std::move(module), arg.execution_options(), &hit, request, &key,
                                               /*look_in_saved=*/!looked_in_saved));
    result->set_compilation_cache_hit(hit);
    if (!alias.empty()) SaveAlias(alias, key, std::move(program_shape), arg.execution_options());
  }
  result->set_program_digest(digest);
  ASSIGN_OR_RETURN(AllocationTracker::Reservation charge,
                   allocations_.Reserve(session, std::max<int64_t>(executable->SizeInBytes(), 0) + AllocationTracker::kHandleBytes,
                                        "a compiled executable"));
  std::shared_ptr<Session> record = FindSession(session);
  if (record == nullptr) return FailedPrecondition("session %d closed during Compile", session);
  absl::MutexLock lock(&record->mutex);
  // The session may have closed while compiling; then nothing is kept.
  if (!record->open.load(std::memory_order_relaxed)) {
    return FailedPrecondition("session %d closed during Compile", session);
  }
  const int64_t handle = next_executable_.fetch_add(1, std::memory_order_relaxed);
  record->executables[handle] = std::make_shared<ExecutableEntry>(std::move(executable), std::move(charge));
  result->mutable_handle()->set_handle(handle);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Executable>> Service::ResolveExecutable(
    Session& session, const ExecutionHandle& handle, std::atomic<int64_t>** last_run_ns) const {
  absl::MutexLock lock(&session.mutex);
  auto it = session.executables.find(handle.handle());
  if (it == session.executables.end()) {
    return NotFound("no executable with handle %d in this session (unknown, released, or another session's)",
                    handle.handle());
  }
  const std::shared_ptr<ExecutableEntry>& entry = it->second;
  if (last_run_ns != nullptr) *last_run_ns = &entry->last_run_ns;
  return std::shared_ptr<Executable>(entry, entry->executable.get());
}

bool Service::LastRunTookAtMost(SessionId session, const ExecutionHandle& handle, absl::Duration bound) const {
  std::shared_ptr<Session> record = FindSession(session);
  if (record == nullptr) return false;
  std::atomic<int64_t>* last_run_ns = nullptr;
  absl::StatusOr<std::shared_ptr<Executable>> executable = ResolveExecutable(*record, handle, &last_run_ns);
  // A run that may wait for an infeed, an outfeed or a peer can block however
  // short its last run was.
  if (!executable.ok() || (*executable)->uses_replica_context()) return false;
  const int64_t last = last_run_ns->load(std::memory_order_relaxed);
  return last >= 0 && last <= absl::ToInt64Nanoseconds(bound);
}

absl::StatusOr<Service::PreparedRun> Service::PrepareRun(
    Session& session, std::shared_ptr<Executable> executable,
    const google::protobuf::RepeatedPtrField<GlobalDataHandle>& args, absl::Span<const int64_t> donated) {
  AllocationTracker::SessionTable& table = *session.table;
  const ProgramShape& signature = executable->program_shape();
  const std::string& entry_name = executable->entry_name();
  const int num_parameters = static_cast<int>(signature.parameters().size());
  if (args.size() != num_parameters) {
    return InvalidArgument("Execute: computation '%s' takes %d arguments but %d were given", entry_name,
                           num_parameters, args.size());
  }
  // Donation bookkeeping only when there is a donation: the hot path of a
  // cached executable allocates nothing here.
  absl::InlinedVector<bool, 8> is_donated;
  if (!donated.empty() || !executable->input_output_aliases().empty()) is_donated.assign(args.size(), false);
  for (int64_t i : donated) {
    if (i < 0 || i >= args.size()) {
      return InvalidArgument("Execute: donated argument %d of '%s', which takes %d arguments", i, entry_name,
                             args.size());
    }
    if (is_donated[i]) return InvalidArgument("Execute: argument %d of '%s' is donated twice", i, entry_name);
    is_donated[i] = true;
    for (int j = 0; j < args.size(); ++j) {
      if (j != i && args[j].handle() == args[i].handle()) {
        return InvalidArgument("Execute: argument %d of '%s' is donated but its handle %d is also argument %d", i,
                               entry_name, args[i].handle(), j);
      }
    }
  }
  for (const InputOutputAlias& alias : executable->input_output_aliases()) {
    if (alias.must_alias && !is_donated[alias.parameter]) {
      return InvalidArgument("Execute: parameter %d of '%s' must be donated (its input_output_alias is must-alias)",
                             alias.parameter, entry_name);
    }
  }
  PreparedRun run;
  run.arguments.reserve(args.size());
  absl::InlinedVector<bool, 8> relaid;  // per argument, when donating
  if (!donated.empty()) relaid.assign(args.size(), false);
  for (int i = 0; i < args.size(); ++i) {
    ASSIGN_OR_RETURN(std::shared_ptr<const DeviceBuffer> buffer, allocations_.Resolve(table, args[i]));
    const Shape& expected = signature.parameters()[i];
    if (!buffer->shape().Compatible(expected)) {
      return InvalidArgument("Execute: argument %d has shape %s but parameter %d ('%s') of '%s' is %s", i,
                             buffer->shape().ToString(), i, signature.parameter_names()[i], entry_name,
                             expected.ToString());
    }
    if (!ShapeUtil::SameLayouts(buffer->shape(), expected)) {
      ASSIGN_OR_RETURN(AllocationTracker::Reservation copy,
                       allocations_.Reserve(table, 2 * AllocationTracker::ChargedBytesOfTree(expected), [i] {
                         return absl::StrCat("relaying out argument ", i);
                       }));
      // Same values, another layout: relayout into the parameter's layout.
      ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> relaid_buffer,
                       DeviceBuffer::FromLiteral(buffer->ToLiteral().RelayoutTo(expected)));
      buffer = std::move(relaid_buffer);
      if (!relaid.empty()) relaid[i] = true;
    }
    run.arguments.push_back(std::move(buffer));
  }
  // Everything the run allocates must fit the quotas before it starts: its
  // result and the scratch the backend reports (the CPU arena), or, from a
  // backend that cannot tell, every instruction's value.
  const std::optional<int64_t> scratch = executable->ScratchBytesPerRun();
  const int64_t result_bytes = AllocationTracker::ChargedBytesOfTree(signature.result());
  if (!scratch.has_value() && !executable->has_module()) {
    return Internal("Execute: '%s' reports neither its scratch bytes nor its module", entry_name);
  }
  const int64_t run_bytes = scratch.has_value()
                                ? (*scratch > INT64_MAX - result_bytes ? INT64_MAX : *scratch + result_bytes)
                                : WorkingSetBytes(executable->module());
  ASSIGN_OR_RETURN(run.reservation, allocations_.Reserve(table, run_bytes, [&entry_name] {
                     return absl::StrCat("running '", entry_name, "' (its values)");
                   }));
  if (!donated.empty()) {
    // This run's own references go first: a taken buffer must be held by
    // the handle alone. An argument relaid above keeps its copy.
    std::vector<GlobalDataHandle> handles;
    for (int64_t i : donated) {
      handles.push_back(args[i]);
      if (!relaid[i]) run.arguments[i].reset();
    }
    ASSIGN_OR_RETURN(std::vector<std::shared_ptr<DeviceBuffer>> taken, allocations_.TakeDonated(table, handles));
    run.donated.resize(args.size());
    for (size_t k = 0; k < donated.size(); ++k) {
      const int64_t i = donated[k];
      if (run.arguments[i] == nullptr) run.arguments[i] = taken[k];
      run.donated[i] = std::move(taken[k]);
    }
  }
  run.executable = std::move(executable);
  return run;
}

absl::Status Service::Run(Session& session, std::shared_ptr<Executable> executable,
                          const google::protobuf::RepeatedPtrField<GlobalDataHandle>& args,
                          absl::Span<const int64_t> donated, int64_t device,
                          bool transfer_result, const Shape* output_layout, ExecuteResponse* result,
                          const RequestControl& request) {
  ASSIGN_OR_RETURN(PreparedRun run, PrepareRun(session, std::move(executable), args, donated));
  return RunPrepared(session, std::move(run), device, transfer_result, output_layout, result, request);
}

absl::Status Service::RunPrepared(Session& session, PreparedRun run, int64_t device, bool transfer_result,
                                  const Shape* output_layout, ExecuteResponse* result, const RequestControl& request,
                                  AllocationTracker::Reservation* inline_result_charge) {
  auto start = std::chrono::steady_clock::now();
  // The operator's bound on a run's time (a runaway loop must not hold a
  // serving thread forever), and the client's own deadline and cancel.
  ExecutionControl control = RunControl(request);
  // The only process on its device: its infeeds and outfeeds use the
  // device's queues. A program without such ops gets no context (its setup
  // is most of a tiny run's cost).
  std::optional<collectives::ReplicaContext> context;
  if (run.executable->uses_replica_context()) {
    const absl::Duration wait = WaitBound(request);
    context.emplace(1, 1, collectives::ProcessId{}, std::make_shared<collectives::Rendezvous>(wait), wait);
    DeviceFeeds feeds = Feeds(session.id, device);
    context->set_feeds(feeds.infeed, feeds.outfeed);
    context->set_channels(Channels(session.id));
    control.set_replica_context(&*context);
  }
  absl::StatusOr<std::shared_ptr<DeviceBuffer>> output =
      ExecuteCatchingOutOfMemory(*run.executable, run.arguments, run.donated, &control);
  RETURN_IF_ERROR(output.status());
  // The result's literal stands in for a handle when it is small; the run's
  // reservation (which counted the result) covers the copy, and keeps
  // covering it for an async run until its wait.
  const bool inline_result =
      transfer_result && ShapeUtil::ByteSizeOfElements((*output)->shape()) <= kInlineResultBytes;
  if (inline_result && inline_result_charge != nullptr) {
    *inline_result_charge = run.reservation.Split(AllocationTracker::ChargedBytesOfTree((*output)->shape()));
  }
  result->mutable_profile()->set_compute_time_ns(NanosSince(start));
  session.executions.fetch_add(1, std::memory_order_relaxed);
  if (inline_result) {
    ASSIGN_OR_RETURN(Literal literal, backend_->transfer_manager()->TransferLiteralFromDevice(**output));
    if (output_layout != nullptr && *output_layout != literal.shape()) literal = literal.RelayoutTo(*output_layout);
    *result->mutable_result_literal() = literal.ToProto();
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(*result->mutable_output(),
                   allocations_.Register(*session.table, std::move(*output), "execution result"));
  return absl::OkStatus();
}

absl::Status Service::Execute(SessionId session, const ExecuteRequest& arg, ExecuteResponse* result,
                              const RequestControl& request) {
  ASSIGN_OR_RETURN(std::shared_ptr<Session> record, OpenSessionOrError(session));
  return Execute(*record, arg, result, request);
}

absl::Status Service::Execute(Session& session, const ExecuteRequest& arg, ExecuteResponse* result,
                              const RequestControl& request) {
  std::atomic<int64_t>* last_run_ns = nullptr;
  ASSIGN_OR_RETURN(std::shared_ptr<Executable> executable, ResolveExecutable(session, arg.handle(), &last_run_ns));
  result->mutable_profile()->set_compilation_cache_hit(true);
  const auto start = std::chrono::steady_clock::now();
  // `executable` (a copy goes to the run) keeps the entry `last_run_ns` is in.
  absl::Status status = Run(session, executable, arg.arguments(), arg.donated_arguments(), /*device=*/0,
                            arg.transfer_result(),
                            /*output_layout=*/nullptr, result, request);
  // Failed runs too: a run stopped at its deadline was not short.
  last_run_ns->store(NanosSince(start), std::memory_order_relaxed);
  return status;
}

absl::Status Service::ExecuteAsync(SessionId session, const ExecuteAsyncRequest& arg, ExecuteAsyncResponse* result) {
  const ExecuteRequest& execute = arg.execute();
  ASSIGN_OR_RETURN(std::shared_ptr<Session> record, OpenSessionOrError(session));
  ASSIGN_OR_RETURN(std::shared_ptr<Executable> executable, ResolveExecutable(*record, execute.handle()));
  // Argument errors (and quota) are the caller's to see now.
  ASSIGN_OR_RETURN(PreparedRun prepared,
                   PrepareRun(*record, std::move(executable), execute.arguments(), execute.donated_arguments()));
  auto run = std::make_shared<AsyncRun>();
  run->session = session;
  run->response.mutable_profile()->set_compilation_cache_hit(true);
  int64_t id = 0;
  {
    absl::MutexLock lock(&async_mutex_);
    int64_t in_flight = 0;
    for (const auto& [unused, other] : async_runs_) in_flight += other->session == session ? 1 : 0;
    if (in_flight >= limits_.max_async_executions) {
      return ResourceExhausted(
          "ExecuteAsync: this session already has %d runs started and not yet waited for (the service's limit); "
          "call WaitForExecution first",
          in_flight);
    }
    id = next_async_++;
    async_runs_[id] = run;
    // Started under the lock so that AbandonAsyncRuns always finds a thread.
    run->thread = std::thread([this, record, run, prepared = std::move(prepared),
                               transfer = execute.transfer_result()]() mutable {
      RequestControl control;
      control.cancelled = [run]() { return run->abandoned.load(); };
      run->status = RunPrepared(*record, std::move(prepared), /*device=*/0, transfer, /*output_layout=*/nullptr,
                                &run->response, control, &run->result_charge);
      run->done.Notify();
    });
  }
  result->mutable_execution()->set_handle(id);
  return absl::OkStatus();
}

absl::Status Service::WaitForExecution(SessionId session, const WaitForExecutionRequest& arg,
                                       WaitForExecutionResponse* result, const RequestControl& request) {
  const int64_t id = arg.execution().handle();
  std::shared_ptr<AsyncRun> run;
  {
    absl::MutexLock lock(&async_mutex_);
    auto it = async_runs_.find(id);
    if (it == async_runs_.end() || it->second->session != session) {
      return NotFound("no async execution %d in this session (unknown, already waited for, or another session's)",
                      id);
    }
    run = it->second;
  }
  if (arg.timeout_ms() < 0) return InvalidArgument("WaitForExecution: timeout_ms is negative (%d)", arg.timeout_ms());
  absl::Time deadline = request.deadline;
  if (arg.timeout_ms() > 0) deadline = std::min(deadline, absl::Now() + absl::Milliseconds(arg.timeout_ms()));
  // A cancelled caller stops waiting at the next slice; the run goes on.
  while (!run->done.WaitForNotificationWithDeadline(std::min(deadline, absl::Now() + absl::Milliseconds(100)))) {
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("WaitForExecution: async execution ", id, " is still running (wait again)"));
    }
    if (request.cancelled && request.cancelled()) return absl::CancelledError("WaitForExecution: the caller left");
  }
  {
    absl::MutexLock lock(&async_mutex_);
    auto it = async_runs_.find(id);
    // Another wait took it in the meantime.
    if (it == async_runs_.end() || it->second != run) {
      return NotFound("async execution %d was already waited for", id);
    }
    async_runs_.erase(it);
  }
  run->thread.join();
  run->result_charge.Release();  // the literal moves to the caller now
  RETURN_IF_ERROR(run->status);
  *result->mutable_result() = std::move(run->response);
  return absl::OkStatus();
}

void Service::AbandonAsyncRuns(std::optional<SessionId> session) {
  std::vector<std::shared_ptr<AsyncRun>> abandoned;
  {
    absl::MutexLock lock(&async_mutex_);
    for (auto it = async_runs_.begin(); it != async_runs_.end();) {
      if (!session.has_value() || it->second->session == *session) {
        it->second->abandoned = true;
        abandoned.push_back(std::move(it->second));
        async_runs_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  for (const std::shared_ptr<AsyncRun>& run : abandoned) run->thread.join();
}

absl::Status Service::ExecuteGraph(SessionId session, const ExecuteGraphRequest& arg, ExecuteResponse* result,
                                   const RequestControl& request) {
  auto start = std::chrono::steady_clock::now();
  const ExecutionOptions& options = arg.execution_options();
  if (arg.has_executable()) {
    return InvalidArgument("ExecuteGraph: the request names an executable; run a compiled executable with Execute");
  }
  if (std::max(options.num_replicas(), 1) * std::max(options.num_partitions(), 1) > 1) {
    return InvalidArgument(
        "ExecuteGraph: a run of %d replica(s) x %d partition(s) has one argument list and result per process; "
        "use ExecuteParallel with one request per process",
        std::max(options.num_replicas(), 1), std::max(options.num_partitions(), 1));
  }
  ASSIGN_OR_RETURN(int64_t device, RequestDevice(options, 0));
  ASSIGN_OR_RETURN(std::shared_ptr<Session> record, OpenSessionOrError(session));
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(arg.computation()));
  bool hit = false;
  ASSIGN_OR_RETURN(std::shared_ptr<Executable> executable, CompileModule(std::move(module), options, &hit, request));
  result->mutable_profile()->set_compilation_cache_hit(hit);
  result->mutable_profile()->set_compile_time_ms(NanosSince(start) / 1000000);
  std::optional<Shape> output_layout;
  if (arg.transfer_result() && options.has_shape_with_output_layout()) {
    ASSIGN_OR_RETURN(output_layout, ShapeUtil::FromProto(options.shape_with_output_layout()));
  }
  RETURN_IF_ERROR(Run(*record, std::move(executable), arg.arguments(), arg.donated_arguments(), device,
                      arg.transfer_result(),
                      output_layout.has_value() ? &*output_layout : nullptr, result, request));
  result->mutable_profile()->set_compute_and_transfer_time_ns(NanosSince(start));
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Service::DeviceOrdinal(const DeviceHandle& handle, absl::string_view what) const {
  if (cluster() != nullptr) {
    // A cluster device: the request must come to the device's host.
    const int host = cluster()->HostOfDevice(handle.handle());
    if (handle.device_count() != cluster()->total_devices() || host < 0) {
      return InvalidArgument("%s: device handle %d (of %d devices) is not a device of this cluster, which has %d "
                             "(use GetDeviceHandles)",
                             what, handle.handle(), handle.device_count(), cluster()->total_devices());
    }
    if (host != cluster()->rank()) {
      return FailedPrecondition("%s: device %d is on %s, not on this host (%s); send its requests there", what,
                                handle.handle(), cluster()->HostName(host), cluster()->HostName(cluster()->rank()));
    }
    return handle.handle() - cluster()->device_offset(host);
  }
  if (handle.device_count() != limits_.num_devices) {
    return InvalidArgument("%s: device handle %d comes from a service with %d devices; this one has %d (use "
                           "GetDeviceHandles)",
                           what, handle.handle(), handle.device_count(), limits_.num_devices);
  }
  if (handle.handle() < 0 || handle.handle() >= limits_.num_devices) {
    return InvalidArgument("%s: device handle %d is out of range; this service has devices 0 to %d", what,
                           handle.handle(), limits_.num_devices - 1);
  }
  return handle.handle();
}

absl::StatusOr<int64_t> Service::RequestDevice(const ExecutionOptions& options, int64_t fallback) const {
  if (options.device_handles_size() > 1) {
    return InvalidArgument("Execute: execution_options names %d devices; a request runs on one (ExecuteParallel "
                           "takes one request per device)",
                           options.device_handles_size());
  }
  if (options.device_handles_size() == 1) return DeviceOrdinal(options.device_handles(0), "Execute");
  return fallback;
}

Service::DeviceFeeds Service::Feeds(SessionId session, int64_t device) {
  absl::MutexLock lock(&mutex_);
  return feeds_[{session, device}];
}

std::shared_ptr<collectives::ChannelTable> Service::Channels(SessionId session) {
  absl::MutexLock lock(&mutex_);
  std::shared_ptr<collectives::ChannelTable>& table = channels_[session];
  if (table == nullptr) table = std::make_shared<collectives::ChannelTable>();
  return table;
}

void Service::DropFeeds(SessionId session) {
  absl::MutexLock lock(&mutex_);
  absl::erase_if(feeds_, [session](const auto& entry) { return entry.first.first == session; });
  channels_.erase(session);
}

absl::Duration Service::WaitBound(const RequestControl& request) const {
  absl::Duration wait = absl::Seconds(limits_.wait_seconds);
  if (limits_.max_run_seconds > 0) wait = std::min(wait, absl::Seconds(limits_.max_run_seconds));
  if (request.deadline != absl::InfiniteFuture()) {
    wait = std::min(wait, std::max(request.deadline - absl::Now(), absl::ZeroDuration()));
  }
  return wait;
}

absl::StatusOr<Service::PreparedRun> Service::PrepareParallelRequest(Session& session, const ExecuteGraphRequest& r,
                                                                     int64_t index, int64_t device,
                                                                     const RequestControl& request,
                                                                     ExecuteParallelResponse* result) {
  std::shared_ptr<Executable> executable;
  bool hit = true;
  if (r.has_executable()) {
    if (r.has_computation()) {
      return InvalidArgument("ExecuteParallel: request %d gives both a computation and an executable; give one", index);
    }
    absl::StatusOr<std::shared_ptr<Executable>> compiled = ResolveExecutable(session, r.executable());
    if (!compiled.ok()) {
      return absl::Status(compiled.status().code(), absl::StrCat("request ", index, ": ", compiled.status().message()));
    }
    executable = *std::move(compiled);
  } else {
    ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(r.computation()));
    ASSIGN_OR_RETURN(executable, CompileModule(std::move(module), r.execution_options(), &hit, request));
  }
  result->add_responses()->mutable_profile()->set_compilation_cache_hit(hit);
  absl::StatusOr<PreparedRun> run = PrepareRun(session, std::move(executable), r.arguments(), r.donated_arguments());
  if (!run.ok()) return absl::Status(run.status().code(), absl::StrCat("request ", index, ": ", run.status().message()));
  run->device = device;
  return run;
}

absl::Status Service::RegisterParallelResults(SessionId session, std::vector<std::shared_ptr<DeviceBuffer>> outputs,
                                              int64_t compute_ns, ExecuteParallelResponse* result) {
  executions_ += static_cast<int64_t>(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    ExecuteResponse* response = result->mutable_responses(i);
    response->mutable_profile()->set_compute_time_ns(compute_ns);
    ASSIGN_OR_RETURN(*response->mutable_output(),
                     allocations_.Register(session, std::move(outputs[i]), "execution result"));
  }
  return absl::OkStatus();
}

absl::Status Service::ExecuteParallel(SessionId session, const ExecuteParallelRequest& arg,
                                      ExecuteParallelResponse* result, const RequestControl& request) {
  if (arg.has_cluster_run()) return ExecuteClusterRun(session, arg, result, request);
  const int64_t n = arg.requests_size();
  if (n == 0) return InvalidArgument("ExecuteParallel: no requests");
  if (n > limits_.num_devices) {
    return InvalidArgument("ExecuteParallel: %d requests but this service has %d devices", n, limits_.num_devices);
  }
  // One replicated run of R x P processes, or n independent runs.
  const ExecutionOptions& first = arg.requests(0).execution_options();
  const int64_t replicas = std::max(first.num_replicas(), 1);
  const int64_t partitions = std::max(first.num_partitions(), 1);
  const bool replicated = replicas * partitions > 1;
  ASSIGN_OR_RETURN(std::shared_ptr<Session> record, OpenSessionOrError(session));
  std::vector<PreparedRun> runs;
  std::vector<bool> device_used(limits_.num_devices, false);
  for (int64_t i = 0; i < n; ++i) {
    const ExecuteGraphRequest& r = arg.requests(i);
    const ExecutionOptions& options = r.execution_options();
    if (std::max(options.num_replicas(), 1) != replicas || std::max(options.num_partitions(), 1) != partitions) {
      return InvalidArgument(
          "ExecuteParallel: request %d asks for %d replica(s) x %d partition(s) but request 0 for %d x %d; the "
          "requests of one call are one run",
          i, std::max(options.num_replicas(), 1), std::max(options.num_partitions(), 1), replicas, partitions);
    }
    absl::StatusOr<int64_t> device = RequestDevice(options, i);
    if (!device.ok()) return absl::Status(device.status().code(), absl::StrCat("request ", i, ": ", device.status().message()));
    if (device_used[*device]) return InvalidArgument("ExecuteParallel: request %d runs on device %d, which an earlier request already uses", i, *device);
    device_used[*device] = true;
    ASSIGN_OR_RETURN(PreparedRun run, PrepareParallelRequest(*record, r, i, *device, request, result));
    runs.push_back(std::move(run));
  }
  if (replicated && n != replicas * partitions) {
    return InvalidArgument(
        "ExecuteParallel: a run of %d replica(s) x %d partition(s) needs %d requests (one per process), got %d",
        replicas, partitions, replicas * partitions, n);
  }
  auto start = std::chrono::steady_clock::now();
  ReplicatedRunOptions options;
  options.timeout = WaitBound(request);
  options.cancelled = request.cancelled;
  options.channels = Channels(session);
  auto process = [&](int64_t i) {
    DeviceFeeds feeds = Feeds(session, runs[i].device);
    return DeviceProcessRun{runs[i].executable.get(), runs[i].arguments, feeds.infeed, feeds.outfeed,
                            runs[i].donated};
  };
  std::vector<absl::StatusOr<std::shared_ptr<DeviceBuffer>>> outputs(n);
  if (replicated) {
    options.num_replicas = replicas;
    options.num_partitions = partitions;
    std::vector<DeviceProcessRun> processes;
    for (int64_t i = 0; i < n; ++i) processes.push_back(process(i));
    ASSIGN_OR_RETURN(std::vector<std::shared_ptr<DeviceBuffer>> buffers,
                     ExecuteReplicatedOnDevices(std::move(processes), options));
    for (int64_t i = 0; i < n; ++i) outputs[i] = std::move(buffers[i]);
  } else {
    // Independent programs at once, each the only process of its own run.
    std::vector<std::thread> threads;
    for (int64_t i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        absl::StatusOr<std::vector<std::shared_ptr<DeviceBuffer>>> one =
            ExecuteReplicatedOnDevices({process(i)}, options);
        if (one.ok()) {
          outputs[i] = std::move((*one)[0]);
        } else {
          outputs[i] = absl::Status(one.status().code(), absl::StrCat("request ", i, ": ", one.status().message()));
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (int64_t i = 0; i < n; ++i) RETURN_IF_ERROR(outputs[i].status());
  }
  std::vector<std::shared_ptr<DeviceBuffer>> buffers;
  for (auto& output : outputs) buffers.push_back(std::move(*output));
  return RegisterParallelResults(session, std::move(buffers), NanosSince(start), result);
}

absl::Status Service::ExecuteClusterRun(SessionId session, const ExecuteParallelRequest& arg,
                                        ExecuteParallelResponse* result, const RequestControl& request) {
  if (cluster() == nullptr) {
    return FailedPrecondition("ExecuteParallel: a cluster run, but this daemon is not in a cluster (--cluster_*)");
  }
  const ClusterRun& run = arg.cluster_run();
  const std::string& run_id = run.run_id();
  if (run_id.empty() || run_id.size() > 64 || !std::all_of(run_id.begin(), run_id.end(), [](char c) {
        return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
      })) {
    return InvalidArgument("ExecuteParallel: a cluster run id is 1 to 64 characters of [A-Za-z0-9_.-]");
  }
  bool started = false;
  absl::Status status = ExecuteClusterPart(session, arg, result, request, &started);
  // The other hosts would wait for this one's part until their timeout.
  if (!status.ok() && !started) cluster()->AbortRun(run_id, status);
  return status;
}

absl::Status Service::ExecuteClusterPart(SessionId session, const ExecuteParallelRequest& arg,
                                         ExecuteParallelResponse* result, const RequestControl& request,
                                         bool* started) {
  ASSIGN_OR_RETURN(std::shared_ptr<Session> record, OpenSessionOrError(session));
  const ClusterRun& run = arg.cluster_run();
  const std::string& run_id = run.run_id();
  const int64_t total = run.devices_size();
  if (total < 1 || total > cluster()->total_devices()) {
    return InvalidArgument("ExecuteParallel: a cluster run of %d devices in a cluster of %d", total,
                           cluster()->total_devices());
  }
  // Every process's host, and which processes are this host's.
  std::vector<int> host_of_process;
  absl::flat_hash_map<int64_t, int64_t> process_of_device;
  for (int64_t i = 0; i < total; ++i) {
    const DeviceHandle& d = run.devices(i);
    const int host = cluster()->HostOfDevice(d.handle());
    if (d.device_count() != cluster()->total_devices() || host < 0) {
      return InvalidArgument("ExecuteParallel: cluster run device %d (handle %d of %d) is not a device of this "
                             "cluster of %d",
                             i, d.handle(), d.device_count(), cluster()->total_devices());
    }
    if (!process_of_device.emplace(d.handle(), i).second) {
      return InvalidArgument("ExecuteParallel: device %d appears twice in the cluster run", d.handle());
    }
    host_of_process.push_back(host);
  }
  const int64_t local_count = std::count(host_of_process.begin(), host_of_process.end(), cluster()->rank());
  if (local_count == 0) {
    return InvalidArgument("ExecuteParallel: the cluster run has no process on this host (%s)",
                           cluster()->HostName(cluster()->rank()));
  }
  if (arg.requests_size() != local_count) {
    return InvalidArgument("ExecuteParallel: the cluster run has %d processes on this host (%s), but %d requests came",
                           local_count, cluster()->HostName(cluster()->rank()), arg.requests_size());
  }
  const ExecutionOptions& first = arg.requests(0).execution_options();
  const int64_t replicas = std::max(first.num_replicas(), 1);
  const int64_t partitions = std::max(first.num_partitions(), 1);
  if (replicas * partitions != total) {
    return InvalidArgument("ExecuteParallel: a run of %d replica(s) x %d partition(s) needs %d devices; the cluster "
                           "run lists %d",
                           replicas, partitions, replicas * partitions, total);
  }
  std::vector<PreparedRun> runs;
  std::vector<int64_t> process_indices;
  for (int64_t i = 0; i < arg.requests_size(); ++i) {
    const ExecuteGraphRequest& r = arg.requests(i);
    const ExecutionOptions& options = r.execution_options();
    if (std::max(options.num_replicas(), 1) != replicas || std::max(options.num_partitions(), 1) != partitions) {
      return InvalidArgument("ExecuteParallel: request %d asks for %d x %d processes but request 0 for %d x %d", i,
                             std::max(options.num_replicas(), 1), std::max(options.num_partitions(), 1), replicas,
                             partitions);
    }
    if (options.device_handles_size() != 1) {
      return InvalidArgument("ExecuteParallel: request %d of a cluster run names %d devices; each names one", i,
                             options.device_handles_size());
    }
    absl::StatusOr<int64_t> device = DeviceOrdinal(options.device_handles(0), "ExecuteParallel");
    if (!device.ok()) return absl::Status(device.status().code(), absl::StrCat("request ", i, ": ", device.status().message()));
    auto process = process_of_device.find(options.device_handles(0).handle());
    if (process == process_of_device.end()) {
      return InvalidArgument("ExecuteParallel: request %d runs on device %d, which the cluster run does not list", i,
                             options.device_handles(0).handle());
    }
    if (std::find(process_indices.begin(), process_indices.end(), process->second) != process_indices.end()) {
      return InvalidArgument("ExecuteParallel: two requests run on device %d", options.device_handles(0).handle());
    }
    ASSIGN_OR_RETURN(PreparedRun prepared, PrepareParallelRequest(*record, r, i, *device, request, result));
    runs.push_back(std::move(prepared));
    process_indices.push_back(process->second);
  }
  {
    absl::MutexLock lock(&mutex_);
    if (!cluster_runs_.insert(run_id).second) {
      return absl::AlreadyExistsError(absl::StrCat("ExecuteParallel: cluster run ", run_id, " is already running on this host"));
    }
  }
  struct RunIdRelease {
    Service* service;
    const std::string& id;
    ~RunIdRelease() {
      absl::MutexLock lock(&service->mutex_);
      service->cluster_runs_.erase(id);
    }
  } release{this, run_id};

  ReplicatedRunOptions options;
  options.num_replicas = replicas;
  options.num_partitions = partitions;
  options.timeout = WaitBound(request);
  options.cancelled = request.cancelled;
  options.channels = Channels(session);
  options.process_indices = process_indices;
  ASSIGN_OR_RETURN(options.communicator,
                   cluster()->MakeCommunicator(run_id, host_of_process, partitions, options.timeout));
  std::vector<DeviceProcessRun> processes;
  for (PreparedRun& r : runs) {
    DeviceFeeds feeds = Feeds(session, r.device);
    processes.push_back(DeviceProcessRun{r.executable.get(), r.arguments, feeds.infeed, feeds.outfeed, r.donated});
  }
  auto start = std::chrono::steady_clock::now();
  *started = true;  // from here on, the communicator tells the others of a failure
  absl::StatusOr<std::vector<std::shared_ptr<DeviceBuffer>>> buffers =
      ExecuteReplicatedOnDevices(std::move(processes), options);
  cluster()->Retire(run_id, std::move(options.communicator));
  if (!buffers.ok()) {
    // Name the hosts of the run the coordinator reports lost, the likely
    // cause of a lost connection or a wait that timed out: its heartbeats
    // show a lost host within a few seconds.
    const absl::StatusCode code = buffers.status().code();
    if (code != absl::StatusCode::kUnavailable && code != absl::StatusCode::kDeadlineExceeded) {
      return buffers.status();
    }
    std::vector<int> hosts = host_of_process;
    std::sort(hosts.begin(), hosts.end());
    hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
    std::vector<int> lost = cluster()->WaitForLost(hosts, absl::Seconds(5));
    if (lost.empty()) return buffers.status();
    std::vector<std::string> names;
    for (int r : lost) names.push_back(cluster()->HostName(r));
    return absl::Status(buffers.status().code(), absl::StrCat(buffers.status().message(), " [lost from the cluster: ",
                                                              absl::StrJoin(names, ", "), "]"));
  }
  return RegisterParallelResults(session, std::move(*buffers), NanosSince(start), result);
}

absl::Status Service::TransferToInfeed(SessionId session, const TransferToInfeedRequest& arg,
                                      TransferToInfeedResponse* result) {
  int64_t device = 0;
  if (arg.has_device_handle()) {
    ASSIGN_OR_RETURN(device, DeviceOrdinal(arg.device_handle(), "TransferToInfeed"));
  }
  if (!arg.has_literal()) return InvalidArgument("TransferToInfeed: the request carries no literal");
  ASSIGN_OR_RETURN(Literal literal, Literal::FromProto(arg.literal()));
  if (!literal.shape().IsArray() && !literal.shape().IsTuple()) {
    return InvalidArgument("TransferToInfeed: a %s cannot be infed (arrays and tuples only)",
                           literal.shape().ToString());
  }
  absl::Status pushed = Feeds(session, device).infeed->PushBounded(std::move(literal), limits_.max_infeed_values);
  if (!pushed.ok()) return absl::Status(pushed.code(), absl::StrCat("TransferToInfeed: device ", device, "'s infeed: ", pushed.message()));
  return absl::OkStatus();
}

absl::Status Service::TransferFromOutfeed(SessionId session, const TransferFromOutfeedRequest& arg,
                                         TransferFromOutfeedResponse* result, const RequestControl& request) {
  int64_t device = 0;
  if (arg.has_device_handle()) {
    ASSIGN_OR_RETURN(device, DeviceOrdinal(arg.device_handle(), "TransferFromOutfeed"));
  }
  if (arg.timeout_ms() < 0) return InvalidArgument("TransferFromOutfeed: timeout_ms must be >= 0");
  std::optional<Shape> requested;
  if (arg.has_shape_with_layout()) {
    ASSIGN_OR_RETURN(requested, ShapeUtil::FromProto(arg.shape_with_layout()));
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(*requested));
  }
  absl::Duration wait = absl::Seconds(limits_.wait_seconds);
  if (arg.timeout_ms() > 0) wait = absl::Milliseconds(arg.timeout_ms());
  // The operator's bound on one call's work holds for the wait a request
  // asks for too (a timeout of 2^63 ms held a worker for good).
  if (limits_.max_run_seconds > 0) wait = std::min(wait, absl::Seconds(limits_.max_run_seconds));
  if (request.deadline != absl::InfiniteFuture()) {
    wait = std::min(wait, std::max(request.deadline - absl::Now(), absl::ZeroDuration()));
  }
  auto check = [&](const Literal& value) -> absl::Status {
    if (requested.has_value() && !requested->Compatible(value.shape())) {
      return InvalidArgument("TransferFromOutfeed: the next value outfed on device %d is %s, not the requested %s "
                             "(it stays queued)",
                             device, value.shape().ToString(), requested->ToString());
    }
    return absl::OkStatus();
  };
  // A client that gives up (cancels, disconnects) ends the wait too.
  std::function<absl::Status()> client_gone;
  if (request.cancelled) {
    client_gone = [&request]() {
      return request.cancelled() ? absl::CancelledError("TransferFromOutfeed: the client cancelled the call")
                                 : absl::OkStatus();
    };
  }
  ASSIGN_OR_RETURN(Literal value,
                   Feeds(session, device).outfeed->Pop(absl::StrCat("TransferFromOutfeed: device ", device, "'s outfeed"),
                                                       wait, check, client_gone));
  if (requested.has_value()) value = value.RelayoutTo(*requested);
  *result->mutable_literal() = value.ToProto();
  return absl::OkStatus();
}

absl::Status Service::UnregisterExecutable(SessionId session, const UnregisterExecutableRequest& arg,
                                           UnregisterExecutableResponse* result) {
  ASSIGN_OR_RETURN(std::shared_ptr<Session> record, OpenSessionOrError(session));
  std::shared_ptr<ExecutableEntry> dropped;  // released outside the lock
  absl::MutexLock lock(&record->mutex);
  auto it = record->executables.find(arg.handle().handle());
  if (it == record->executables.end()) {
    return NotFound("no executable with handle %d in this session (unknown, released, or another session's)",
                    arg.handle().handle());
  }
  dropped = std::move(it->second);
  record->executables.erase(it);
  return absl::OkStatus();
}

absl::Status Service::ComputeConstantGraph(SessionId session, const ComputeConstantGraphRequest& arg,
                                           ComputeConstantResponse* result, const RequestControl& request) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(arg.computation()));
  if (module->entry_computation()->num_parameters() != 0) {
    return InvalidArgument("ComputeConstant: the computation takes %d parameters; constants take none",
                           module->entry_computation()->num_parameters());
  }
  ASSIGN_OR_RETURN(AllocationTracker::Reservation reservation,
                   allocations_.Reserve(session, WorkingSetBytes(*module), "ComputeConstant (its values)"));
  HloEvaluator evaluator(/*max_loop_iterations=*/1 << 24);
  const ExecutionControl control = RunControl(request);
  evaluator.set_should_stop([&control] { return control.ShouldStop(); });
  absl::StatusOr<Literal> evaluated;
  try {
    evaluated = evaluator.Evaluate(*module, {});
  } catch (const std::bad_alloc&) {
    evaluated = ResourceExhausted("ComputeConstant: out of host memory");
  }
  if (control.stopped()) return control.StopStatus();
  ASSIGN_OR_RETURN(Literal literal, std::move(evaluated));
  if (arg.has_output_layout() && literal.shape().IsArray()) {
    Shape with_layout = literal.shape();
    with_layout.set_layout(Layout({arg.output_layout().minor_to_major().begin(), arg.output_layout().minor_to_major().end()}));
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(with_layout));
    literal = literal.Relayout(with_layout.layout());
  }
  *result->mutable_literal() = literal.ToProto();
  return absl::OkStatus();
}

absl::Status Service::GetDeviceHandles(SessionId session, const GetDeviceHandlesRequest& arg, GetDeviceHandlesResponse* result) {
  if (cluster() != nullptr) {
    const int64_t total = cluster()->total_devices();
    if (arg.device_count() < 1 || arg.device_count() > total) {
      return InvalidArgument("GetDeviceHandles: this cluster has %d devices on %d hosts, %d requested", total,
                             cluster()->size(), arg.device_count());
    }
    // Spread over the hosts: every host's first device, then every host's
    // second, ... (a run of N <= hosts devices uses N hosts).
    for (int64_t local = 0; result->device_handles_size() < arg.device_count(); ++local) {
      for (int host = 0; host < cluster()->size() && result->device_handles_size() < arg.device_count(); ++host) {
        if (local >= cluster()->devices_of(host)) continue;
        DeviceHandle* h = result->add_device_handles();
        h->set_handle(cluster()->device_offset(host) + local);
        h->set_device_count(total);
        h->set_host(host);
        h->set_host_address(cluster()->HostAddress(host));
      }
    }
    return absl::OkStatus();
  }
  if (arg.device_count() < 1 || arg.device_count() > limits_.num_devices) {
    return InvalidArgument("GetDeviceHandles: this service has %d devices, %d requested", limits_.num_devices,
                           arg.device_count());
  }
  for (int64_t d = 0; d < arg.device_count(); ++d) {
    DeviceHandle* h = result->add_device_handles();
    h->set_handle(d);
    h->set_device_count(limits_.num_devices);
  }
  return absl::OkStatus();
}

absl::Status Service::CreateChannelHandle(SessionId session, const CreateChannelHandleRequest& arg, CreateChannelHandleResponse* result) {
  result->mutable_channel()->set_handle(next_channel_++);
  result->mutable_channel()->set_type(arg.channel_type() == ChannelHandle::CHANNEL_TYPE_INVALID
                                          ? ChannelHandle::DEVICE_TO_DEVICE
                                          : arg.channel_type());
  return absl::OkStatus();
}

absl::Status Service::ResetDevice(SessionId session, const ResetDeviceRequest& arg, ResetDeviceResponse* result) {
  // Host devices keep no state between runs but their feed queues;
  // resetting the caller's device view releases the session's buffers,
  // executables and queued feed values (others' are untouched).
  if (arg.has_device_handle()) RETURN_IF_ERROR(DeviceOrdinal(arg.device_handle(), "ResetDevice").status());
  DropFeeds(session);
  ASSIGN_OR_RETURN(std::shared_ptr<Session> record, OpenSessionOrError(session));
  DropExecutables(*record);
  allocations_.ReleaseSession(session);
  return absl::OkStatus();
}

namespace {

// The host CPU's model name and feature flags, read once from /proc/cpuinfo.
struct HostCpu {
  std::string model;
  std::vector<std::string> features;
};

const HostCpu& GetHostCpu() {
  static const HostCpu* cpu = [] {
    auto* info = new HostCpu();
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
      auto value = [&] { return std::string(absl::StripAsciiWhitespace(line.substr(line.find(':') + 1))); };
      if (info->model.empty() && absl::StartsWith(line, "model name")) info->model = value();
      if (info->features.empty() && absl::StartsWith(line, "flags")) {
        info->features = absl::StrSplit(value(), ' ', absl::SkipEmpty());
      }
    }
    return info;
  }();
  return *cpu;
}

}  // namespace

absl::Status Service::GetServiceInfo(const GetServiceInfoRequest& arg, GetServiceInfoResponse* result) {
  result->set_version("0.1");
  result->set_host_cpu(GetHostCpu().model);
  for (const std::string& f : GetHostCpu().features) result->add_host_cpu_features(f);
  for (const std::string& n : BackendRegistry::Names()) result->add_backends(n);
  result->set_default_backend(backend_->name());
  result->set_bytes_in_use(allocations_.bytes_in_use());
  result->set_live_buffers(allocations_.live_handles());
  CompilationCache::Stats stats = cache_.stats();
  result->set_cache_entries(stats.entries);
  result->set_cache_hits(stats.hits);
  result->set_cache_misses(stats.misses);
  result->set_cache_evictions(stats.evictions);
  result->set_cache_bytes(stats.bytes);
  if (persistent_cache_ != nullptr) {
    const PersistentCache::Stats disk = persistent_cache_->stats();
    result->set_persistent_cache_dir(persistent_cache_->directory());
    result->set_persistent_cache_hits(disk.hits);
    result->set_persistent_cache_misses(disk.misses);
    result->set_persistent_cache_rejected(disk.rejected);
    result->set_persistent_cache_writes(disk.writes);
    result->set_persistent_cache_evictions(disk.evictions);
    result->set_persistent_cache_loads(persistent_loads_);
  }
  result->set_compilations(compilations_);
  int64_t executions = executions_.load(std::memory_order_relaxed);
  {
    absl::ReaderMutexLock lock(&mutex_);
    for (const auto& [id, session] : sessions_) executions += session->executions.load(std::memory_order_relaxed);
  }
  result->set_executions(executions);
  if (cluster() != nullptr) {
    result->set_cluster_rank(cluster()->rank());
    result->set_cluster_size(cluster()->size());
    for (int r = 0; r < cluster()->size(); ++r) result->add_cluster_hosts(cluster()->HostAddress(r));
    for (int r : cluster()->lost_ranks()) result->add_cluster_lost_ranks(r);
    result->set_cluster_gloo_contexts_connected(cluster()->contexts_connected());
    result->set_cluster_gloo_contexts_reused(cluster()->contexts_reused());
  }
  {
    absl::MutexLock lock(&async_mutex_);
    result->set_async_executions(static_cast<int64_t>(async_runs_.size()));
  }
  result->set_max_memory_bytes(allocations_.max_total_bytes());
  result->set_max_session_bytes(allocations_.max_session_bytes());
  result->set_device_count(limits_.num_devices);
  return absl::OkStatus();
}

SessionService::~SessionService() {
  if (owns_session_) service_->CloseSession(session_).IgnoreError();
}

// A session that was not open when this SessionService was made has no
// record, and never will be (session ids are not reused).
absl::Status SessionService::Touch() {
  if (record_ == nullptr) return NotFound("session %d is not open (closed or timed out)", session_);
  return service_->TouchSession(*record_);
}

#define FORWARD(METHOD, REQUEST, RESPONSE)                                       \
  absl::Status SessionService::METHOD(const REQUEST& arg, RESPONSE* result) {    \
    RETURN_IF_ERROR(Touch());                                                    \
    return service_->METHOD(session_, arg, result);                              \
  }
FORWARD(TransferToServer, TransferToServerRequest, TransferToServerResponse)
FORWARD(TransferToClient, TransferToClientRequest, TransferToClientResponse)
FORWARD(Unregister, UnregisterRequest, UnregisterResponse)
FORWARD(DeconstructTuple, DeconstructTupleRequest, DeconstructTupleResponse)
FORWARD(GetShape, GetShapeRequest, GetShapeResponse)
FORWARD(GetComputationShape, GetComputationShapeRequest, GetComputationShapeResponse)
FORWARD(Compile, CompileRequest, CompileResponse)
FORWARD(ExecuteGraph, ExecuteGraphRequest, ExecuteResponse)
FORWARD(ExecuteParallel, ExecuteParallelRequest, ExecuteParallelResponse)
FORWARD(ExecuteAsync, ExecuteAsyncRequest, ExecuteAsyncResponse)
FORWARD(WaitForExecution, WaitForExecutionRequest, WaitForExecutionResponse)
FORWARD(TransferToInfeed, TransferToInfeedRequest, TransferToInfeedResponse)
FORWARD(TransferFromOutfeed, TransferFromOutfeedRequest, TransferFromOutfeedResponse)
FORWARD(UnregisterExecutable, UnregisterExecutableRequest, UnregisterExecutableResponse)
FORWARD(ComputeConstantGraph, ComputeConstantGraphRequest, ComputeConstantResponse)
FORWARD(GetDeviceHandles, GetDeviceHandlesRequest, GetDeviceHandlesResponse)
FORWARD(CreateChannelHandle, CreateChannelHandleRequest, CreateChannelHandleResponse)
FORWARD(ResetDevice, ResetDeviceRequest, ResetDeviceResponse)
#undef FORWARD

// Execute and ReleaseHandle, an in-process client's calls per run, go
// through the kept record: no lock another session takes.
absl::Status SessionService::Execute(const ExecuteRequest& arg, ExecuteResponse* result) {
  RETURN_IF_ERROR(Touch());
  return service_->Execute(*record_, arg, result);
}

void SessionService::ReleaseHandle(const GlobalDataHandle& handle) {
  // Already unregistered (explicitly, or by a consumed tuple) is fine here.
  if (record_ != nullptr) service_->ReleaseHandle(*record_, handle);
}

absl::StatusOr<GlobalDataHandle> SessionService::TransferLiteralToServer(const Literal& literal) {
  RETURN_IF_ERROR(Touch());
  return service_->TransferLiteralToServer(session_, literal);
}

absl::StatusOr<GlobalDataHandle> SessionService::TransferHostArrayInProcess(const Shape& shape, const void* data,
                                                                           std::shared_ptr<const void> owner,
                                                                           bool* aliased) {
  RETURN_IF_ERROR(Touch());
  return service_->TransferHostArrayInProcess(session_, shape, data, std::move(owner), aliased);
}

absl::StatusOr<Literal> SessionService::TransferLiteralToClient(const GlobalDataHandle& handle,
                                                                const Shape* shape_with_layout) {
  RETURN_IF_ERROR(Touch());
  return service_->TransferLiteralToClient(session_, handle, shape_with_layout);
}

absl::Status SessionService::GetServiceInfo(const GetServiceInfoRequest& arg, GetServiceInfoResponse* result) {
  return service_->GetServiceInfo(arg, result);
}

namespace {

// Linking //service:service makes ClientLibrary's in-process clients work.
const bool registered = [] {
  RegisterInProcessServiceFactory(
      [](const ServiceOptions& options) -> absl::StatusOr<std::unique_ptr<ServiceInterface>> {
        // An in-process client gets its own service with one unlimited session.
        ServiceLimits limits;
        if (options.num_devices != 0) limits.num_devices = options.num_devices;
        limits.cache_dir = options.cache_dir;
        if (options.cache_dir_bytes > 0) limits.cache_dir_bytes = options.cache_dir_bytes;
        ASSIGN_OR_RETURN(std::unique_ptr<Service> created, Service::Create(options.backend, limits));
        std::shared_ptr<Service> service = std::move(created);
        SessionId session = service->OpenSession("in-process");
        return std::unique_ptr<ServiceInterface>(new SessionService(service, session, /*owns_session=*/true));
      });
  return true;
}();

}  // namespace
}  // namespace xla
