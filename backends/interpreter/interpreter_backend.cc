#include "backends/interpreter/interpreter_backend.h"

#include "absl/strings/str_cat.h"
#include "xla/custom_call/custom_call_invocation.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/status_macros.h"

namespace xla {

absl::StatusOr<std::shared_ptr<DeviceBuffer>> InterpreterExecutable::Execute(
    absl::Span<const std::shared_ptr<const DeviceBuffer>> arguments, const ExecutionControl* control) {
  std::vector<Literal> literals;
  literals.reserve(arguments.size());
  for (const auto& arg : arguments) literals.push_back(arg->ToLiteral());
  std::vector<const Literal*> ptrs;
  for (const Literal& l : literals) ptrs.push_back(&l);
  // A fresh evaluator per run keeps concurrent runs independent. The loop
  // bound turns a runaway While into an error instead of a hung service.
  HloEvaluator evaluator(/*max_loop_iterations=*/int64_t{1} << 24);
  if (control != nullptr) {
    evaluator.set_should_stop([control] { return control->ShouldStop(); });
    evaluator.set_stop_flag(control->stop_flag());
    evaluator.set_replica_context(control->replica_context());
  }
  absl::StatusOr<Literal> result = evaluator.Evaluate(module(), ptrs);
  // An error of the run's own (an infeed that timed out, a bad index) is
  // reported as it is; ABORTED is the evaluator stopping for the control.
  if (!result.ok() && result.status().code() != absl::StatusCode::kAborted) return result.status();
  if (control != nullptr && control->stopped()) {
    // Where the evaluation was when it stopped (a wait on the infeed, say).
    const absl::Status stop = control->StopStatus();
    if (result.ok()) return stop;
    return absl::Status(stop.code(), absl::StrCat(stop.message(), " (", result.status().message(), ")"));
  }
  if (!result.ok()) return result.status();
  return DeviceBuffer::FromLiteral(*result);
}

absl::StatusOr<std::unique_ptr<Executable>> InterpreterCompiler::Compile(std::unique_ptr<HloModule> module,
                                                                         const DebugOptions& options,
                                                                         const ExecutionControl* control) {
  if (control != nullptr) RETURN_IF_ERROR(control->CheckStop());
  // An unregistered custom-call target fails here, not when it runs.
  RETURN_IF_ERROR(CheckCustomCallTargets(*module));
  return std::make_unique<InterpreterExecutable>(std::move(module));
}

namespace {

// Registered at load time; priority 0 so a compiling backend becomes default.
const bool registered = [] {
  BackendRegistry::Register("interpreter", 0, []() -> absl::StatusOr<std::unique_ptr<Backend>> {
    return std::make_unique<InterpreterBackend>();
  });
  return true;
}();

}  // namespace
}  // namespace xla
