// Service: the backend-agnostic execution service. Validates every request
// (protos, HLO text, handles, literals), verifies and compiles modules
// through the CompilationCache (shared by all sessions), keeps device
// buffers behind per-session handles in the AllocationTracker, and executes
// on one Backend.
//
// Devices: the service has ServiceLimits::num_devices host devices, each a
// place a process of a replicated run (or one plain run) executes, all on
// the same Backend and the same host memory: a buffer is not bound to a
// device, and any run of its session may read it. What a device has of its
// own are its infeed and outfeed queues, kept per session (one client never
// reads another's outfeed) until the session closes or resets the device.
//
// Every operation runs in a session: handles (data and executables) belong
// to the session that made them, and closing a session frees them. Clients
// talk to a session through SessionService (a ServiceInterface), in-process
// or through the gRPC adapter.
#ifndef SERVICE_SERVICE_H_
#define SERVICE_SERVICE_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "backends/backend.h"
#include "backends/execution_control.h"
#include "xla/collectives/channel_table.h"
#include "xla/collectives/feed_queue.h"
#include "service/allocation_tracker.h"
#include "service/cluster_view.h"
#include "service/compilation_cache.h"
#include "service/persistent_cache.h"
#include "xla/service_interface.h"

namespace xla {

struct ServiceLimits {
  int64_t max_memory_bytes = AllocationTracker::kUnlimited;   // whole service
  int64_t max_session_bytes = AllocationTracker::kUnlimited;  // per session
  int64_t cache_bytes = int64_t{256} << 20;                   // compilation cache bound
  // Worker threads per run (DebugOptions.xla_cpu_threads): requests asking
  // for 0 or for more get this many. 0: whatever the request asks.
  int max_cpu_threads = 0;
  // Where compilations are dumped (the operator's choice), "" for nowhere.
  std::string dump_to;
  // DebugOptions.xla_cpu_target for requests that name none ("" or "host":
  // the host).
  std::string cpu_target;
  // Whether a request may name its own xla_dump_to directory. A daemon
  // must not let remote clients write files where they like.
  bool allow_request_dump_to = true;
  // A run taking longer than this stops with DEADLINE_EXCEEDED at its next
  // loop check (backends/execution_control.h). 0: no limit.
  double max_run_seconds = 0;
  // A compile taking longer than this stops with DEADLINE_EXCEEDED at its
  // next check (between passes and instructions; backends/backend.h). 0: no
  // limit.
  double max_compile_seconds = 0;
  // Host devices (GetDeviceHandles hands out up to this many; a replicated
  // run has at most this many processes). Each process is a thread.
  int num_devices = 8;
  // The longest a collective or an infeed of a run waits, and the default
  // wait of TransferFromOutfeed; a replicated run that takes longer fails
  // (every process) with DEADLINE_EXCEEDED.
  double wait_seconds = 60;
  // Values a device's infeed queue holds at most (per session).
  int64_t max_infeed_values = 1024;
  // Where compiled executables are saved and loaded across processes
  // (persistent_cache.h), "" for nowhere; and the directory's size bound.
  std::string cache_dir;
  int64_t cache_dir_bytes = int64_t{1} << 30;
  // Runs a session may have started with ExecuteAsync and not yet had
  // consumed by WaitForExecution (each runs on a thread of its own).
  int64_t max_async_executions = 16;
};

// With ExecuteRequest.transfer_result, results of at most this many bytes
// of array data come back in the response; larger ones as a handle.
inline constexpr int64_t kInlineResultBytes = int64_t{1} << 20;

// What one request's caller allows its run: the client's own deadline, and
// a probe of whether the client has gone away (a gRPC cancel or
// disconnect). A run stops at its first loop check past the earlier of this
// deadline and the operator's max_run_seconds, or once the probe says so.
struct RequestControl {
  absl::Time deadline = absl::InfiniteFuture();
  std::function<bool()> cancelled;  // empty: the caller waits for the result
};

class Service {
 public:
  static absl::StatusOr<std::unique_ptr<Service>> Create(const std::string& backend, const ServiceLimits& limits);
  // Stops the runs ExecuteAsync started and waits for them.
  ~Service();

  SessionId OpenSession(const std::string& client_name);
  // The session's unguessable token (128 random bits, hex): what remote
  // clients present, so knowing another session's number is not enough.
  std::string SessionToken(SessionId session) const;
  // NotFound unless `token` names an open session.
  absl::StatusOr<SessionId> SessionForToken(const std::string& token) const;
  // Frees the session's buffers and executables. NotFound if not open.
  absl::Status CloseSession(SessionId session);
  // NotFound if the session is not open; otherwise marks it active now.
  absl::Status TouchSession(SessionId session);

  // An open session's own state (its buffers' table, its executables, its
  // activity) under a lock of its own. A caller that keeps it (an in-process
  // client's SessionService) runs its calls through the overloads below and
  // takes no lock another session takes; the others look it up by id.
  struct Session;
  // Null when the session is not open.
  std::shared_ptr<Session> FindSession(SessionId session) const;
  absl::Status TouchSession(Session& session);
  // Closes sessions idle for longer than `idle`; returns how many.
  int CloseIdleSessions(absl::Duration idle);
  int64_t open_sessions() const;

  absl::Status TransferToServer(SessionId s, const TransferToServerRequest& arg, TransferToServerResponse* result);
  absl::Status TransferToClient(SessionId s, const TransferToClientRequest& arg, TransferToClientResponse* result);
  absl::Status Unregister(SessionId s, const UnregisterRequest& arg, UnregisterResponse* result);
  // Unregisters one handle of the session, ignoring one already gone (an
  // in-process GlobalData's release: no proto, no session touch).
  void ReleaseHandle(Session& s, const GlobalDataHandle& handle);
  absl::Status DeconstructTuple(SessionId s, const DeconstructTupleRequest& arg, DeconstructTupleResponse* result);
  absl::Status GetShape(SessionId s, const GetShapeRequest& arg, GetShapeResponse* result);
  absl::Status GetComputationShape(SessionId s, const GetComputationShapeRequest& arg,
                                   GetComputationShapeResponse* result);
  absl::Status Compile(SessionId s, const CompileRequest& arg, CompileResponse* result,
                       const RequestControl& request = {});
  absl::Status Execute(SessionId s, const ExecuteRequest& arg, ExecuteResponse* result,
                       const RequestControl& request = {});
  absl::Status Execute(Session& s, const ExecuteRequest& arg, ExecuteResponse* result,
                       const RequestControl& request = {});
  // Whether the last Execute of `handle` (in session `s`) took at most
  // `bound`: a hint for running the next one without a thread hand-off.
  // False when it never ran, is not the session's, or may wait for a feed
  // or a peer (Executable::uses_replica_context).
  bool LastRunTookAtMost(SessionId s, const ExecutionHandle& handle, absl::Duration bound) const;
  absl::Status ExecuteGraph(SessionId s, const ExecuteGraphRequest& arg, ExecuteResponse* result,
                            const RequestControl& request = {});
  absl::Status ExecuteParallel(SessionId s, const ExecuteParallelRequest& arg, ExecuteParallelResponse* result,
                               const RequestControl& request = {});
  absl::Status ExecuteAsync(SessionId s, const ExecuteAsyncRequest& arg, ExecuteAsyncResponse* result);
  absl::Status WaitForExecution(SessionId s, const WaitForExecutionRequest& arg, WaitForExecutionResponse* result,
                                const RequestControl& request = {});
  absl::Status TransferToInfeed(SessionId s, const TransferToInfeedRequest& arg, TransferToInfeedResponse* result);
  absl::Status TransferFromOutfeed(SessionId s, const TransferFromOutfeedRequest& arg,
                                   TransferFromOutfeedResponse* result, const RequestControl& request = {});
  absl::Status UnregisterExecutable(SessionId s, const UnregisterExecutableRequest& arg,
                                    UnregisterExecutableResponse* result);
  absl::Status ComputeConstantGraph(SessionId s, const ComputeConstantGraphRequest& arg,
                                    ComputeConstantResponse* result, const RequestControl& request = {});
  absl::Status GetDeviceHandles(SessionId s, const GetDeviceHandlesRequest& arg, GetDeviceHandlesResponse* result);
  absl::Status CreateChannelHandle(SessionId s, const CreateChannelHandleRequest& arg,
                                   CreateChannelHandleResponse* result);
  absl::Status ResetDevice(SessionId s, const ResetDeviceRequest& arg, ResetDeviceResponse* result);
  absl::Status GetServiceInfo(const GetServiceInfoRequest& arg, GetServiceInfoResponse* result);

  // Literal transfers without a LiteralProto (in-process clients).
  absl::StatusOr<GlobalDataHandle> TransferLiteralToServer(SessionId s, const Literal& literal);
  absl::StatusOr<GlobalDataHandle> TransferHostArrayInProcess(SessionId s, const Shape& shape, const void* data,
                                                              std::shared_ptr<const void> owner, bool* aliased);
  absl::StatusOr<Literal> TransferLiteralToClient(SessionId s, const GlobalDataHandle& handle,
                                                  const Shape* shape_with_layout);

  // Building blocks of chunked transfers: reserve and allocate a buffer tree
  // for `shape`, then register it once filled.
  absl::StatusOr<std::shared_ptr<DeviceBuffer>> AllocateForTransfer(SessionId s, const Shape& shape,
                                                                    AllocationTracker::Reservation* reservation);
  absl::StatusOr<GlobalDataHandle> RegisterBuffer(SessionId s, std::shared_ptr<const DeviceBuffer> buffer,
                                                  const std::string& tag);
  absl::StatusOr<std::shared_ptr<const DeviceBuffer>> ResolveBuffer(SessionId s, const GlobalDataHandle& handle) const;

  // Makes this service a host of a cluster (before it serves any request):
  // device handles then name cluster devices (GetDeviceHandles spreads them
  // over the hosts; a request naming another host's device is refused with
  // that host's address), and ExecuteParallel runs this host's processes of
  // a ClusterRun.
  void set_cluster(std::shared_ptr<ClusterView> cluster) {
    cluster_owner_ = std::move(cluster);
    cluster_.store(cluster_owner_.get(), std::memory_order_release);
  }

  const AllocationTracker& allocation_tracker() const { return allocations_; }
  const Backend& backend() const { return *backend_; }

 private:
  Service(std::unique_ptr<Backend> backend, const ServiceLimits& limits);

  // A device's queues as one session sees them.
  struct DeviceFeeds {
    std::shared_ptr<collectives::FeedQueue> infeed = std::make_shared<collectives::FeedQueue>();
    std::shared_ptr<collectives::FeedQueue> outfeed = std::make_shared<collectives::FeedQueue>();
  };
  // A run ready to start on a device: its executable, checked arguments,
  // and the quota its values take while it runs.
  struct PreparedRun {
    std::shared_ptr<Executable> executable;
    std::vector<std::shared_ptr<const DeviceBuffer>> arguments;
    // Per argument, its buffer when donated (ExecuteRequest.donated_arguments;
    // the handle is gone), else null; empty when none is.
    std::vector<std::shared_ptr<DeviceBuffer>> donated;
    AllocationTracker::Reservation reservation;
    int64_t device = 0;
  };
  // A run ExecuteAsync started: its thread fills `status` and `response`,
  // then notifies `done`.
  struct AsyncRun {
    SessionId session = 0;
    std::atomic<bool> abandoned{false};  // its session closed: stop the run
    absl::Notification done;
    absl::Status status;
    ExecuteResponse response;
    // A result in `response` as a literal, charged to the session until the
    // wait that takes it (or the session's close).
    AllocationTracker::Reservation result_charge;
    std::thread thread;
  };
  // A session's executable handle, held by shared_ptr: a run holds the
  // entry (so the executable), not the executable itself, whose reference
  // count every session using the same cached executable would write.
  struct alignas(64) ExecutableEntry {
    ExecutableEntry(std::shared_ptr<Executable> executable, AllocationTracker::Reservation charge)
        : executable(std::move(executable)), charge(std::move(charge)) {}
    const std::shared_ptr<Executable> executable;
    AllocationTracker::Reservation charge;  // the executable's size, against the session's quota
    // How long its last Execute took, failed or not (-1: none yet).
    std::atomic<int64_t> last_run_ns{-1};
  };

  // Proto -> verified HloModule.
  absl::StatusOr<std::unique_ptr<HloModule>> LoadModule(const HloModuleProto& proto);
  // A Compile request's one program (proto, HLO text or StableHLO text) ->
  // verified HloModule.
  absl::StatusOr<std::unique_ptr<HloModule>> LoadModule(const CompileRequest& request);
  // Verified module -> executable, through the cache.
  // The compile stops at the earlier of the request's deadline and
  // max_compile_seconds from now, or on its cancel.
  // `cache_key`, when given, receives the module's compilation-cache key;
  // look_in_saved=false skips the persistent cache's lookup (not its save).
  absl::StatusOr<std::shared_ptr<Executable>> CompileModule(std::unique_ptr<HloModule> module,
                                                            const ExecutionOptions& options, bool* cache_hit,
                                                            const RequestControl& request,
                                                            std::string* cache_key = nullptr,
                                                            bool look_in_saved = true);
  // The backend's part of persistent cache keys for these options; empty
  // when nothing is saved or loaded (no cache_dir, a dumping compile, or a
  // backend without persistent executables).
  absl::StatusOr<std::string> PersistentBackendKey(const DebugOptions& debug_options) const;
  // The executable saved under `persistent_key`, loaded; null for a miss or
  // an entry the backend refuses (counted as rejected).
  std::shared_ptr<Executable> LoadSaved(const std::string& persistent_key, const DebugOptions& debug_options);
  // A Compile request's executable by its alias (the program digest with
  // the options and argument shapes): from the compilation cache, or loaded
  // through the persistent cache's alias record (`looked_in_saved` is then
  // set, whether or not the saved executable loaded).
  std::optional<CompilationCache::AliasHit> FindByAlias(const std::string& alias, const ExecutionOptions& options,
                                                        bool* looked_in_saved);
  // Records `alias` for the entry under `key`, in memory and (with a
  // persistent cache) on disk.
  void SaveAlias(const std::string& alias, const std::string& key,
                 std::shared_ptr<const ProgramShapeProto> program_shape, const ExecutionOptions& options);
  // How a run starting now for `request` is stopped: at the earlier of the
  // request's deadline and max_run_seconds from now, or on its cancel.
  ExecutionControl RunControl(const RequestControl& request) const;
  // Makes the entry's result ExecutionOptions.shape_with_output_layout (a
  // copy at the root) when the options ask for one; INVALID_ARGUMENT when it
  // is not the result's shape up to layout. Padding, which only host literals
  // have, is left to the transfer.
  absl::Status ApplyOutputLayout(const ExecutionOptions& options, HloModule* module);
  // A request's debug options with the service's limits applied.
  absl::StatusOr<DebugOptions> EffectiveDebugOptions(const DebugOptions& requested) const;
  // The executable, sharing ownership with its session's entry. With
  // `last_run_ns`, also the entry's record of its last run time (valid while
  // the executable returned is held).
  absl::StatusOr<std::shared_ptr<Executable>> ResolveExecutable(Session& s, const ExecutionHandle& handle,
                                                                std::atomic<int64_t>** last_run_ns = nullptr) const;
  // The open session `s`, or NotFound naming it.
  absl::StatusOr<std::shared_ptr<Session>> OpenSessionOrError(SessionId s) const;
  // Drops the session's executables (outside its lock: an executable's
  // last reference may take a while to go).
  static void DropExecutables(Session& s);
  // Argument handles -> buffers checked against (and relaid into) the
  // parameters of `executable`, plus the quota the run takes. The handles
  // at `donated` positions are taken (consumed) last, once all else passed.
  absl::StatusOr<PreparedRun> PrepareRun(Session& s, std::shared_ptr<Executable> executable,
                                         const google::protobuf::RepeatedPtrField<GlobalDataHandle>& args,
                                         absl::Span<const int64_t> donated);
  // Runs `executable` on argument handles (checked against its signature)
  // as the only process on `device`; with `transfer_result`, a small
  // result comes back as a literal (in `output_layout` when given).
  absl::Status Run(Session& s, std::shared_ptr<Executable> executable,
                   const google::protobuf::RepeatedPtrField<GlobalDataHandle>& args,
                   absl::Span<const int64_t> donated, int64_t device,
                   bool transfer_result, const Shape* output_layout, ExecuteResponse* result,
                   const RequestControl& request);
  // `inline_result_charge` (async runs): receives the part of the run's
  // reservation that counted a result returned as a literal, so that the
  // literal stays charged to the session while it waits to be collected.
  absl::Status RunPrepared(Session& s, PreparedRun run, int64_t device, bool transfer_result,
                           const Shape* output_layout, ExecuteResponse* result, const RequestControl& request,
                           AllocationTracker::Reservation* inline_result_charge = nullptr);
  // One request of ExecuteParallel (the `index`-th), compiled through the
  // cache (its hit recorded in a new response of `result`) and checked
  // against its arguments, to run on `device`.
  absl::StatusOr<PreparedRun> PrepareParallelRequest(Session& s, const ExecuteGraphRequest& r, int64_t index,
                                                     int64_t device, const RequestControl& request,
                                                     ExecuteParallelResponse* result);
  // Registers ExecuteParallel's results as handles of the session, in the
  // responses' order, with the run's compute time.
  absl::Status RegisterParallelResults(SessionId s, std::vector<std::shared_ptr<DeviceBuffer>> outputs,
                                       int64_t compute_ns, ExecuteParallelResponse* result);
  // ExecuteParallel of a ClusterRun: this host's processes of a run across
  // the cluster's hosts.
  absl::Status ExecuteClusterRun(SessionId s, const ExecuteParallelRequest& arg, ExecuteParallelResponse* result,
                                 const RequestControl& request);
  // Its checks, compiles and run; `started` is set once the run began (its
  // communicator then reports a failure to the other hosts itself).
  absl::Status ExecuteClusterPart(SessionId s, const ExecuteParallelRequest& arg, ExecuteParallelResponse* result,
                                  const RequestControl& request, bool* started);
  // Stops and joins the async runs of `session` (all sessions: nullopt),
  // dropping them.
  void AbandonAsyncRuns(std::optional<SessionId> session);
  // The ordinal behind a device handle this service issued (INVALID_ARGUMENT
  // for another count or one out of range).
  absl::StatusOr<int64_t> DeviceOrdinal(const DeviceHandle& handle, absl::string_view what) const;
  // The device an ExecuteGraph-style request runs on (`fallback` when its
  // options name none).
  absl::StatusOr<int64_t> RequestDevice(const ExecutionOptions& options, int64_t fallback) const;
  DeviceFeeds Feeds(SessionId s, int64_t device);
  // The session's Send/Recv channels (CreateChannelHandle ids), shared by
  // all its runs, so computations running at the same time, or one after
  // another, exchange values; other sessions never see them.
  std::shared_ptr<collectives::ChannelTable> Channels(SessionId s);
  // Drops the session's queued feed values and channel values.
  void DropFeeds(SessionId s);
  // The longest a run's waits may take, from now, under `request`.
  absl::Duration WaitBound(const RequestControl& request) const;

  std::unique_ptr<Backend> backend_;
  const ServiceLimits limits_;
  // Set once, before serving; read by every request that names a device.
  std::shared_ptr<ClusterView> cluster_owner_;
  std::atomic<ClusterView*> cluster_{nullptr};  // null: not in a cluster
  ClusterView* cluster() const { return cluster_.load(std::memory_order_acquire); }
  AllocationTracker allocations_;
  CompilationCache cache_;
  std::unique_ptr<PersistentCache> persistent_cache_;  // null without cache_dir
  std::atomic<int64_t> persistent_loads_{0};          // executables loaded instead of compiled

  // Open sessions (their opening, closing and lookups by id or token; not
  // what they do), and feeds and channels (runs that use them).
  mutable absl::Mutex mutex_;
  SessionId next_session_ ABSL_GUARDED_BY(mutex_) = 1;
  absl::flat_hash_map<SessionId, std::shared_ptr<Session>> sessions_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::string, SessionId> session_by_token_ ABSL_GUARDED_BY(mutex_);
  std::atomic<int64_t> next_executable_{1};
  absl::flat_hash_map<std::pair<SessionId, int64_t>, DeviceFeeds> feeds_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<SessionId, std::shared_ptr<collectives::ChannelTable>> channels_ ABSL_GUARDED_BY(mutex_);

  absl::Mutex async_mutex_;
  int64_t next_async_ ABSL_GUARDED_BY(async_mutex_) = 1;
  absl::flat_hash_map<int64_t, std::shared_ptr<AsyncRun>> async_runs_ ABSL_GUARDED_BY(async_mutex_);

  // Cluster runs in progress on this host, by run id (a second request
  // with one of them is refused).
  absl::flat_hash_set<std::string> cluster_runs_ ABSL_GUARDED_BY(mutex_);

  std::atomic<int64_t> next_channel_{1};
  std::atomic<int64_t> compilations_{0};
  // Runs of ExecuteParallel, and of closed sessions (open sessions count
  // their own).
  std::atomic<int64_t> executions_{0};
};

// Cache-line aligned, as are its table and executable entries: written on
// every call of the session, and never on a line another session's writes.
struct alignas(64) Service::Session {
  Session(SessionId id, std::string client_name, std::string token,
          std::shared_ptr<AllocationTracker::SessionTable> table)
      : id(id), client_name(std::move(client_name)), token(std::move(token)), table(std::move(table)) {}

  const SessionId id;
  const std::string client_name;
  const std::string token;
  const std::shared_ptr<AllocationTracker::SessionTable> table;  // its buffers
  std::atomic<int64_t> last_active_ns{0};                        // Unix time, coarse
  // Cleared by CloseSession under `mutex`, so that nothing is added to
  // `executables` after the close dropped them.
  std::atomic<bool> open{true};
  mutable absl::Mutex mutex;
  absl::flat_hash_map<int64_t, std::shared_ptr<ExecutableEntry>> executables ABSL_GUARDED_BY(mutex);
  // Its runs (Execute, ExecuteGraph, ExecuteAsync), for GetServiceInfo;
  // added to the service's count when it closes.
  std::atomic<int64_t> executions{0};
};

// A ServiceInterface bound to one session of a Service; closes the session
// when destroyed if it opened it.
class SessionService : public ServiceInterface {
 public:
  SessionService(std::shared_ptr<Service> service, SessionId session, bool owns_session)
      : service_(std::move(service)),
        session_(session),
        record_(service_->FindSession(session)),
        owns_session_(owns_session) {}
  ~SessionService() override;

  SessionId session() const { return session_; }
  Service& service() const { return *service_; }

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
  void ReleaseHandle(const GlobalDataHandle& handle) override;
  absl::StatusOr<GlobalDataHandle> TransferLiteralToServer(const Literal& literal) override;
  absl::StatusOr<GlobalDataHandle> TransferHostArrayInProcess(const Shape& shape, const void* data,
                                                              std::shared_ptr<const void> owner,
                                                              bool* aliased) override;
  absl::StatusOr<Literal> TransferLiteralToClient(const GlobalDataHandle& handle,
                                                  const Shape* shape_with_layout) override;

 private:
  std::shared_ptr<Service> service_;
  SessionId session_;
  // The session's state, kept for the calls that run without the service's
  // session table (Execute, ReleaseHandle); null if it was not open.
  std::shared_ptr<Service::Session> record_;
  bool owns_session_;
  // TouchSession through the record.
  absl::Status Touch();
};

}  // namespace xla

#endif  // SERVICE_SERVICE_H_
