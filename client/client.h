// Client: the application's view of an execution service (in-process or
// remote). Moves literals to and from the service, compiles computations,
// and executes them on handles.
#ifndef CLIENT_CLIENT_H_
#define CLIENT_CLIENT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
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
  // Compiles (through the service's cache) and runs.
  absl::StatusOr<std::unique_ptr<GlobalData>> Execute(const XlaComputation& computation,
                                                      absl::Span<GlobalData* const> arguments,
                                                      const ExecutionOptions* options = nullptr,
                                                      ExecutionProfile* profile = nullptr);
  absl::StatusOr<Literal> ExecuteAndTransfer(const XlaComputation& computation,
                                             absl::Span<GlobalData* const> arguments,
                                             const ExecutionOptions* options = nullptr,
                                             ExecutionProfile* profile = nullptr);
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

  ServiceInterface* service_;
};

}  // namespace xla

#endif  // CLIENT_CLIENT_H_
