// CpuJit: one ORC LLJIT for one compiled module, targeting a CpuTarget
// (the host's CPU name and features, or a pinned one, cpu_target.h),
// optimizing at O3 with the new pass manager
// before code generation. Only the symbols registered here (the backend's
// runtime functions, the libm/libc functions LLVM lowers to, and libmvec's
// vector variants, see vector_math_library.h) resolve: nothing is looked up
// in the process by name.
#ifndef BACKENDS_CPU_CODEGEN_JIT_H_
#define BACKENDS_CPU_CODEGEN_JIT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "backends/execution_control.h"
#include "backends/cpu/codegen/cpu_target.h"
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

  // Runs the O3 pipeline on `module` (owned by `context`), compiles it to
  // an object file (CompileToObject), adds that to the JIT (AddObject) and
  // returns the address of `function`. Optimized IR is written to
  // *optimized_ir, the target's assembly to *assembly, LLVM's report of the
  // time each pass took (as -time-passes prints it) to *pass_timings, and the
  // object file's bytes to *object_code, when they are non-null.
  // With `control`, a compile told to stop skips the optional LLVM passes
  // left and returns its StopStatus() before code generation.
  absl::StatusOr<void*> AddModule(std::unique_ptr<llvm::LLVMContext> context, std::unique_ptr<llvm::Module> module,
                                  const std::string& function, std::string* optimized_ir = nullptr,
                                  std::string* assembly = nullptr, const ExecutionControl* control = nullptr,
                                  std::string* pass_timings = nullptr, std::string* object_code = nullptr);

  // AddModule's steps before linking: verifies `module`, runs the O3
  // pipeline and returns the object file (ahead-of-time compiles stop here).
  absl::StatusOr<std::string> OptimizeToObject(llvm::Module& module, std::string* optimized_ir = nullptr,
                                               std::string* assembly = nullptr,
                                               const ExecutionControl* control = nullptr,
                                               std::string* pass_timings = nullptr);

  // An ELF object file of the optimized `module` for the target (which
  // consumes the module's IR).
  absl::StatusOr<std::string> CompileToObject(llvm::Module& module);

  // Links `object_code` (from CompileToObject, of this or another process
  // of the same build) into the JIT against the runtime's symbols and
  // returns the address of `function`. `name`: the module's, which perf
  // maps (perf_map.h) put before each function's.
  absl::StatusOr<void*> AddObject(absl::string_view object_code, const std::string& function,
                                  const std::string& name);

  // Assembly of `module` for the target (for dumps and tests).
  absl::StatusOr<std::string> EmitAssembly(llvm::Module& module);

 private:
  CpuJit() = default;
  absl::Status Optimize(llvm::Module& module, const ExecutionControl* control, std::string* pass_timings);
  // Code generation of `module` into an object file or assembly text.
  absl::StatusOr<std::string> EmitFile(llvm::Module& module, llvm::CodeGenFileType type);

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::unique_ptr<llvm::TargetMachine> target_machine_;
  llvm::DataLayout data_layout_{""};
  CpuTarget target_;
  std::string triple_, cpu_name_, cpu_features_;
  VectorMathIsa vector_math_isa_;  // which libmvec variants calls get
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_JIT_H_
