// CpuExecutable: a module compiled to native code by the CPU backend. Holds
// the JIT (and so the code) alive; each run allocates the result buffers and
// one scratch arena and calls the entry function (ABI in ir_emitter.h).
#ifndef BACKENDS_CPU_CPU_EXECUTABLE_H_
#define BACKENDS_CPU_CPU_EXECUTABLE_H_

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cpu/codegen/buffer_assignment.h"
#include "backends/cpu/codegen/external_constants.h"
#include "backends/cpu/codegen/jit.h"
#include "xla/custom_call/custom_call_invocation.h"

namespace xla {
namespace cpu {

class CpuExecutable : public Executable {
 public:
  using EntryFunction = void (*)(void** params, void** results, char* arena, const void* device,
                                 const void* control);

  // `threads`: the workers each run uses (the shared pool of that size).
  // `features_missing_on_host`: what the code's target has and this host
  // lacks (cpu_target.h); if any, Execute refuses instead of crashing.
  // `objects`: the object files the JIT linked (what the persistent cache
  // saves; one per part of a module compiled in parts).
  CpuExecutable(std::unique_ptr<HloModule> module, std::unique_ptr<CpuJit> jit, EntryFunction entry,
                int64_t arena_bytes, std::string optimized_ir, int threads,
                std::vector<std::string> features_missing_on_host = {},
                std::vector<std::unique_ptr<CustomCallInvocation>> custom_calls = {},
                std::vector<std::string> objects = {}, std::unique_ptr<ExternalConstants> constants = nullptr);
  // An executable loaded from its object code (CpuCompiler::LoadExecutable):
  // no module, no IR.
  CpuExecutable(std::string module_name, std::string entry_name, ProgramShape program_shape,
                std::unique_ptr<CpuJit> jit, EntryFunction entry, int64_t arena_bytes, int threads,
                std::vector<std::string> objects, std::unique_ptr<ExternalConstants> constants);

  absl::StatusOr<std::shared_ptr<DeviceBuffer>> Execute(
      absl::Span<const std::shared_ptr<const DeviceBuffer>> arguments,
      const ExecutionControl* control = nullptr) override;
  // A result leaf of in_place_results() whose parameter's argument is
  // donated (in the result leaf's layout, in memory of its own) is written
  // into the donated buffer, which becomes that leaf of the result.
  absl::StatusOr<std::shared_ptr<DeviceBuffer>> ExecuteWithDonations(
      absl::Span<const std::shared_ptr<const DeviceBuffer>> arguments,
      absl::Span<const std::shared_ptr<DeviceBuffer>> donated, const ExecutionControl* control = nullptr) override;
  // The input_output_aliases the code honours in place (buffer assignment).
  const std::vector<InPlaceResult>& in_place_results() const { return in_place_results_; }
  void set_in_place_results(std::vector<InPlaceResult> results) { in_place_results_ = std::move(results); }
  // The code and its IR text; the arena is charged per run (ScratchBytesPerRun).
  int64_t SizeInBytes() const override;
  std::optional<int64_t> ScratchBytesPerRun() const override { return arena_bytes_; }

  // The LLVM IR after optimization, when the compile kept it
  // (DebugOptions.xla_cpu_keep_optimized_ir; for tests and tools).
  const std::string& optimized_ir() const { return optimized_ir_; }
  // Bytes of the arena each run allocates (the values that are not fused).
  int64_t arena_bytes() const { return arena_bytes_; }
  int threads() const { return threads_; }
  const std::string& module_name() const { return module_name_; }
  const CpuTarget& target() const { return jit_->target(); }
  const std::vector<std::string>& objects() const { return objects_; }
  // The constants the code refers to (null: none).
  const ExternalConstants* constants() const { return constants_.get(); }
  // Whether the code holds addresses of this process (bound custom calls):
  // then it cannot be saved and loaded elsewhere.
  bool holds_process_addresses() const { return !custom_calls_.empty(); }

 private:
  std::string module_name_;
  // Destroyed after the code that reads them.
  std::unique_ptr<ExternalConstants> constants_;
  std::unique_ptr<CpuJit> jit_;
  EntryFunction entry_;
  int64_t arena_bytes_;
  std::string optimized_ir_;
  int threads_;
  std::vector<std::string> objects_;
  const void* device_;  // Eigen::ThreadPoolDevice, or null for one thread
  std::vector<std::string> features_missing_on_host_;
  // The bound custom calls whose addresses the code holds.
  std::vector<std::unique_ptr<CustomCallInvocation>> custom_calls_;
  std::vector<InPlaceResult> in_place_results_;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CPU_EXECUTABLE_H_
