// The CPU backend: compiles HLO to native code for the host with LLVM ORC
// (cpu_compiler.h) and runs it on host buffers. Registers itself as "cpu"
// when linked in.
#ifndef BACKENDS_CPU_CPU_BACKEND_H_
#define BACKENDS_CPU_CPU_BACKEND_H_

#include <string>

#include "backends/backend.h"
#include "backends/cpu/cpu_compiler.h"

namespace xla {
namespace cpu {

class CpuBackend : public Backend {
 public:
  const std::string& name() const override { return name_; }
  Compiler* compiler() override { return &compiler_; }
  TransferManager* transfer_manager() override { return &transfer_manager_; }

 private:
  std::string name_ = "cpu";
  CpuCompiler compiler_;
  TransferManager transfer_manager_;  // host buffers: the default transfers
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CPU_BACKEND_H_
