// Client: the application's view of an execution service (in-process or
// remote). Moves literals to and from the service, compiles computations,
// and executes them on handles.
#ifndef CLIENT_CLIENT_H_
#define CLIENT_CLIENT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "client/global_data.h"
#include "client/xla_computation.h"
#include "proto/xla.pb.h"
#include "xla/literal.h"
#include "xla/service_interface.h"

namespace xla {

class Client {
 public:
  explicit Client(ServiceInterface* service) : service_(service) {}
  virtual ~Client() = default;

  absl::StatusOr<std::unique_ptr<GlobalData>> TransferToServer(const Literal& literal);
  // The 2017 overview's TransferInProcess: with the service in this process,
  // hands it the host array at `data` (`shape`'s memory image: its layout,
  // padding included) without copying when the layout is not padded and
  // `data` is 64-byte aligned; the service then reads the caller's memory,
  // keeps `owner` alive while the handle's buffer lives, and the memory must
  // not change meanwhile. Otherwise it copies once. `aliased` (optional)
  // says which happened; a null `owner` means the caller keeps the memory
  // alive itself. A remote service gives FAILED_PRECONDITION.
  absl::StatusOr<std::unique_ptr<GlobalData>> TransferInProcess(const Shape& shape, const void* data,
                                                                std::shared_ptr<const void> owner,
                                                                bool* aliased = nullptr);
  // The same for a literal the caller shares (aliased when its bytes happen
  // to be aligned).
  absl::StatusOr<std::unique_ptr<GlobalData>> TransferInProcess(std::shared_ptr<const Literal> literal,
                                                                bool* aliased = nullptr);
  // The literal behind `data`, optionally in the layout of `shape_with_layout`.
  absl::StatusOr<Literal> TransferToClient(const GlobalData& data, const Shape* shape_with_layout = nullptr);

  // Compiles for the given argument shapes (empty: the computation's own).
  // Here and in Execute(computation), a nonzero ExecutionOptions.seed becomes
  // the module's rng_seed (unless it has one), the seed of its rng ops.
  absl::StatusOr<ExecutionHandle> Compile(const XlaComputation& computation,
                                          absl::Span<const Shape> argument_shapes = {},
                                          const ExecutionOptions* options = nullptr,
                                          bool* cache_hit = nullptr);
  // Compiles HLO text (for clients without a builder).
  absl::StatusOr<ExecutionHandle> CompileHloText(const std::string& hlo_text,
                                                 const ExecutionOptions* options = nullptr);
  // Compiles StableHLO MLIR text with one entry point (`@main`, or its only
  // function); check ops are dropped. Import errors are INVALID_ARGUMENT
  // "stablehlo_text:LINE:COL: message".
  absl::StatusOr<ExecutionHandle> CompileStableHlo(const std::string& stablehlo_text,
                                                   const ExecutionOptions* options = nullptr);
  absl::StatusOr<std::unique_ptr<GlobalData>> Execute(const ExecutionHandle& executable,
                                                      absl::Span<GlobalData* const> arguments,
                                                      ExecutionProfile* profile = nullptr);
  // Execute, consuming the arguments at `donated` positions: a result leaf
  // the computation aliases to such a parameter (XlaBuilder::SetUpAlias)
  // may be written into the argument's buffer instead of a new one. On
  // success their GlobalData are released (the handles are gone); the
  // service refuses a donation whose buffer another handle or run holds.
  absl::StatusOr<std::unique_ptr<GlobalData>> ExecuteDonating(const ExecutionHandle& executable,
                                                              absl::Span<GlobalData* const> arguments,
                                                              absl::Span<const int64_t> donated,
                                                              ExecutionProfile* profile = nullptr);
  // Compiles (through the service's cache) and runs.
  absl::StatusOr<std::unique_ptr<GlobalData>> Execute(const XlaComputation& computation,
                                                      absl::Span<GlobalData* const> arguments,
                                                      const ExecutionOptions* options = nullptr,
                                                      ExecutionProfile* profile = nullptr);
  // Execute and TransferToClient in one request: a result of up to 1 MiB
  // comes back with the response (ExecuteRequest.transfer_result), a larger
  // one is fetched after it (a second call).
  absl::StatusOr<Literal> ExecuteAndTransfer(const XlaComputation& computation,
                                             absl::Span<GlobalData* const> arguments,
                                             const ExecutionOptions* options = nullptr,
                                             ExecutionProfile* profile = nullptr);
  absl::StatusOr<Literal> ExecuteAndTransfer(const ExecutionHandle& executable,
                                             absl::Span<GlobalData* const> arguments,
                                             ExecutionProfile* profile = nullptr);
  // Starts a run and returns at once (the arguments are checked first);
  // WaitForExecution gives its result, once. A run not waited for stops
  // when the session closes.
  absl::StatusOr<AsyncExecutionHandle> ExecuteAsync(const ExecutionHandle& executable,
                                                    absl::Span<GlobalData* const> arguments);
  // Waits at most `timeout` (zero: no bound but the call's) for the run;
  // DEADLINE_EXCEEDED leaves it running and `execution` valid.
  absl::StatusOr<std::unique_ptr<GlobalData>> WaitForExecution(const AsyncExecutionHandle& execution,
                                                               absl::Duration timeout = absl::ZeroDuration(),
                                                               ExecutionProfile* profile = nullptr);
  // N distinct host devices of the service (INVALID_ARGUMENT beyond what it has).
  absl::StatusOr<std::vector<DeviceHandle>> GetDeviceHandles(int64_t device_count);
  // A new channel for Send/Recv (unique within the service). The session's
  // runs share its channels: a value sent by one computation is received by
  // another running at the same time (ExecuteParallel) or later, in FIFO order.
  absl::StatusOr<ChannelHandle> CreateChannelHandle(
      ChannelHandle::ChannelType type = ChannelHandle::DEVICE_TO_DEVICE);

  // One computation on one device, for ExecuteParallel. `execution_options`
  // names the device (device_handles, at most one) and, for a replicated
  // run, num_replicas / num_partitions.
  struct ComputationInstance {
    // The program, or (computation null) `executable`.
    const XlaComputation* computation = nullptr;
    std::vector<GlobalData*> arguments;
    ExecutionOptions execution_options;
    // A handle Compile returned on this service, which a run then neither
    // sends nor looks up.
    ExecutionHandle executable;
    // Positions in `arguments` the run consumes (as ExecuteDonating).
    std::vector<int64_t> donated_arguments;
  };
  // Runs the computations at once, each on its device, and returns one
  // result per computation. Either all are single-process runs, or they
  // are the R * P processes (replica-major) of one replicated run whose
  // collectives exchange data; one failing process fails the whole call.
  // With `cluster_run`, the computations are this service's processes of
  // a run across a cluster's hosts (ClusterClient::ExecuteReplicated).
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> ExecuteParallel(
      absl::Span<const ComputationInstance> computations, std::vector<ExecutionProfile>* profiles = nullptr,
      const ClusterRun* cluster_run = nullptr);
  // Why instance i of an ExecuteParallel call cannot be sent (OK if it can):
  // ClusterClient checks every host's part before sending any, since hosts
  // that got theirs would wait for the one that did not.
  static absl::Status CheckInstance(const ComputationInstance& c, size_t i);

  // Appends `literal` to the device's infeed queue (device 0 when null):
  // that device's runs take it, in FIFO order, now or later.
  absl::Status TransferToInfeed(const Literal& literal, const DeviceHandle* device = nullptr);
  // The oldest value outfed on the device (0 when null), waiting up to
  // `timeout` (zero: the service's default) for one; DEADLINE_EXCEEDED if
  // none comes. `shape_with_layout`, when given, is the shape the value
  // must have (a mismatch is an error and leaves the value queued).
  absl::StatusOr<Literal> TransferFromOutfeed(const Shape* shape_with_layout, const DeviceHandle* device = nullptr,
                                              absl::Duration timeout = absl::ZeroDuration());

  absl::Status UnregisterExecutable(const ExecutionHandle& executable);

  // Releases the buffer behind `data` now; a second call is NotFound.
  absl::Status Unregister(const GlobalData& data);
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> DeconstructTuple(const GlobalData& data);
  absl::StatusOr<Shape> GetShape(const GlobalData& data);
  absl::StatusOr<ProgramShape> GetComputationShape(const XlaComputation& computation);
  // Evaluates a parameter-free computation (XlaBuilder::BuildConstantSubGraph).
  absl::StatusOr<Literal> ComputeConstant(const XlaComputation& computation,
                                          const Layout* output_layout = nullptr);
  absl::StatusOr<GetServiceInfoResponse> GetServiceInfo();

  ServiceInterface* service() const { return service_; }

 private:
  // Sends `request` (which carries its program) with `options`.
  absl::StatusOr<ExecutionHandle> CompileProgram(CompileRequest request, const ExecutionOptions* options);
  // The result of a transfer_result execution: the literal the response
  // carries, or the one its handle names (fetched, then released).
  absl::StatusOr<Literal> ResultLiteral(const ExecuteResponse& response, const Shape* shape_with_layout);

  ServiceInterface* service_;
};

}  // namespace xla

#endif  // CLIENT_CLIENT_H_
