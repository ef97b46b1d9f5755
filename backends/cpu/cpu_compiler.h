// CpuCompiler: HloModule -> native code for the host CPU. Emits the entry
// computation as one LLVM function (ir_emitter.h), optimizes it at O3 and
// JIT-compiles it with ORC (jit.h). Anything outside the implemented slice
// is an Unimplemented error at compile time, never a wrong answer and never
// a fallback to the interpreter.
#ifndef BACKENDS_CPU_CPU_COMPILER_H_
#define BACKENDS_CPU_CPU_COMPILER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "backends/backend.h"

namespace xla {
namespace cpu {

class CpuCompiler : public Compiler {
 public:
  absl::StatusOr<std::unique_ptr<Executable>> Compile(std::unique_ptr<HloModule> module,
                                                      const DebugOptions& options,
                                                      const ExecutionControl* control = nullptr) override;

  // Saved executables are the object code and the entry's signature
  // (saved_executable.h), keyed by the build id, LLVM's version, the
  // resolved target CPU and features, and the thread count.
  absl::StatusOr<std::string> PersistentKey(const DebugOptions& options) override;
  absl::StatusOr<std::string> SerializeExecutable(const Executable& executable) override;
  absl::StatusOr<std::unique_ptr<Executable>> LoadExecutable(absl::string_view bytes,
                                                              std::shared_ptr<const void> bytes_owner,
                                                              const DebugOptions& options) override;
};

// Ahead-of-time compilation (tools/xla_aot): the module as a relocatable
// object whose one exported function is `symbol`, with the entry ABI of
// ir_emitter.h and the control argument null. It links into another
// program with the ahead-of-time runtime (backends/cpu/aot) only.
// Collectives, infeed/outfeed, custom calls and host transfers are
// Unimplemented (they need the service).
struct AotCompilation {
  std::string object_code;
  ProgramShape program_shape;  // with the layouts the code reads and writes
  int64_t arena_bytes = 0;
  int threads = 1;
  std::string target;  // the CPU and features it was compiled for
};
absl::StatusOr<AotCompilation> CompileAheadOfTime(std::unique_ptr<HloModule> module, const DebugOptions& options,
                                                  const std::string& symbol);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CPU_COMPILER_H_
