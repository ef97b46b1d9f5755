// CpuJit: one ORC LLJIT for one compiled module, targeting a CpuTarget
// (the host's CPU name and features, or a pinned one, cpu_target.h),
// optimizing (O3 unless asked otherwise) with the new pass manager before
// code generation, in parts on several threads when the module is large.
// Only the symbols registered here (the backend's runtime functions, the
// libm/libc functions LLVM lowers to, and libmvec's vector variants, see
// vector_math_library.h) resolve: nothing is looked up in the process by
// name.
#ifndef BACKENDS_CPU_CODEGEN_JIT_H_
#define BACKENDS_CPU_CODEGEN_JIT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "backends/execution_control.h"
#include "backends/cpu/codegen/cpu_target.h"
#include "backends/cpu/codegen/external_constants.h"
#include "backends/cpu/codegen/vector_math_library.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace xla {
namespace cpu {

class CpuJit {
 public:
  static absl::StatusOr<std::unique_ptr<CpuJit>> Create(const CpuTarget& target);

  // For modules about to be emitted: the triple, data layout, CPU compiled for.
  const llvm::DataLayout& data_layout() const { return data_layout_; }
  const std::string& triple() const { return triple_; }
  const std::string& cpu_name() const { return cpu_name_; }
  const std::string& cpu_features() const { return cpu_features_; }
  const CpuTarget& target() const { return target_; }

  // What a compile asks of optimization and code generation.
  struct CodegenRequest {
    // LLVM's O0..O3 pipeline, and its code generation level (0: fast
    // instruction selection and register allocation).
    int optimization_level = 3;
    // A module large enough is compiled in up to this many parts, each
    // optimized and compiled on a thread of its own (module_partition.h).
    int max_parts = 1;
    // A compile told to stop skips the optional LLVM passes left and
    // returns its StopStatus() before code generation.
    const ExecutionControl* control = nullptr;
    // Written when non-null: the optimized IR, the target's assembly, and
    // LLVM's report of the time each pass took (as -time-passes prints it);
    // of a module compiled in parts, the parts' one after another.
    std::string* optimized_ir = nullptr;
    std::string* assembly = nullptr;
    std::string* pass_timings = nullptr;
  };

  // Verifies `module` (owned by `context`), optimizes it and generates code:
  // ELF object files, one per part, to link together (AddObjects).
  absl::StatusOr<std::vector<std::string>> OptimizeToObjects(std::unique_ptr<llvm::LLVMContext> context,
                                                             std::unique_ptr<llvm::Module> module,
                                                             const CodegenRequest& request);

  // The same in one part: one object file (ahead-of-time compiles).
  absl::StatusOr<std::string> OptimizeToObject(llvm::Module& module, const CodegenRequest& request);

  // Links `objects` (from OptimizeToObjects, of this or another process of
  // the same build) into the JIT against the runtime's symbols and the
  // code's external constants (which must outlive the code), and returns the
  // address of `function`. `name`: the module's, which perf maps
  // (perf_map.h) put before each function's.
  absl::StatusOr<void*> AddObjects(const std::vector<std::string>& objects, const ExternalConstants& constants,
                                   const std::string& function, const std::string& name);

  // Assembly of `module` for the target (for dumps and tests).
  absl::StatusOr<std::string> EmitAssembly(llvm::Module& module);

 private:
  CpuJit() = default;
  // A target machine goes back to a process-wide pool of idle ones when its
  // compile is done with it (see MakeTargetMachine).
  struct ReturnToPool {
    std::string key;  // target and level
    void operator()(llvm::TargetMachine* machine) const;
  };
  using PooledTargetMachine = std::unique_ptr<llvm::TargetMachine, ReturnToPool>;
  // A target machine for one thread's code generation at `optimization_level`.
  absl::StatusOr<PooledTargetMachine> MakeTargetMachine(int optimization_level) const;
  // One module's (or part's) optimization and code generation on `machine`.
  absl::StatusOr<std::string> CompileOnePart(llvm::Module& module, llvm::TargetMachine& machine,
                                             const CodegenRequest& request, std::string* optimized_ir,
                                             std::string* assembly, std::string* pass_timings) const;
  absl::Status Optimize(llvm::Module& module, llvm::TargetMachine& machine, int optimization_level,
                        const ExecutionControl* control, std::string* pass_timings) const;
  // Code generation of `module` into an object file or assembly text.
  static absl::StatusOr<std::string> EmitFile(llvm::Module& module, llvm::TargetMachine& machine,
                                              llvm::CodeGenFileType type);

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  // What every target machine is made from (the JIT's own is in jit_).
  std::optional<llvm::orc::JITTargetMachineBuilder> machine_builder_;
  llvm::DataLayout data_layout_{""};
  CpuTarget target_;
  std::string triple_, cpu_name_, cpu_features_;
  VectorMathIsa vector_math_isa_;  // which libmvec variants calls get
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_JIT_H_
