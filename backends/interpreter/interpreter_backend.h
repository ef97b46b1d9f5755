// The interpreter backend: "compiles" by keeping the verified module and
// runs it with the reference HloEvaluator. The oracle for other backends.
#ifndef BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_
#define BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_

#include <memory>
#include <string>

#include "backends/backend.h"

namespace xla {

class InterpreterExecutable : public Executable {
 public:
  using Executable::Executable;
  // The interpreter keeps the module; its proto size is the executable's size.
  int64_t SizeInBytes() const override { return module().ToProto().ByteSizeLong(); }
  absl::StatusOr<std::shared_ptr<DeviceBuffer>> Execute(
      absl::Span<const std::shared_ptr<const DeviceBuffer>> arguments,
      const ExecutionControl* control = nullptr) override;
};

class InterpreterCompiler : public Compiler {
 public:
  absl::StatusOr<std::unique_ptr<Executable>> Compile(std::unique_ptr<HloModule> module,
                                                      const DebugOptions& options,
                                                      const ExecutionControl* control = nullptr) override;
};

class InterpreterBackend : public Backend {
 public:
  const std::string& name() const override { return name_; }
  Compiler* compiler() override { return &compiler_; }
  TransferManager* transfer_manager() override { return &transfer_manager_; }

 private:
  std::string name_ = "interpreter";
  InterpreterCompiler compiler_;
  TransferManager transfer_manager_;
};

}  // namespace xla

#endif  // BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_
