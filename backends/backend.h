// The interfaces every backend implements: Compiler (HloModule ->
// Executable), Executable (runs on DeviceBuffers), TransferManager (Literal
// <-> DeviceBuffer), and Backend (the three together, under a name), plus a
// registry that backends add themselves to when linked in.
#ifndef BACKENDS_BACKEND_H_
#define BACKENDS_BACKEND_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "backends/device_buffer.h"
#include "backends/execution_control.h"
#include "proto/xla.pb.h"
#include "xla/hlo/hlo_module.h"
#include "xla/literal.h"

namespace xla {

class Executable {
 public:
  explicit Executable(std::unique_ptr<HloModule> module);
  // An executable without its module (loaded from the service's persistent
  // cache): the entry's name and program shape (layouts included) are all
  // the service needs to check and run calls.
  Executable(std::string entry_name, ProgramShape program_shape);
  virtual ~Executable() = default;

  // Runs the entry computation. Arguments have been checked against the
  // entry's parameter shapes by the caller. Thread-safe: many runs may
  // proceed at once. With `control`, a run past its deadline (or cancelled)
  // stops at the next loop check and returns its StopStatus().
  virtual absl::StatusOr<std::shared_ptr<DeviceBuffer>> Execute(
      absl::Span<const std::shared_ptr<const DeviceBuffer>> arguments, const ExecutionControl* control = nullptr) = 0;
  // Execute with donated arguments: `donated` is empty or has one entry per
  // argument, non-null where the caller gives up that argument's buffer (it
  // holds the only reference and drops it after the run). A backend that
  // honours an input_output_alias in place writes the result leaf into the
  // donated buffer; the default runs as Execute (results in fresh buffers).
  virtual absl::StatusOr<std::shared_ptr<DeviceBuffer>> ExecuteWithDonations(
      absl::Span<const std::shared_ptr<const DeviceBuffer>> arguments,
      absl::Span<const std::shared_ptr<DeviceBuffer>> donated, const ExecutionControl* control = nullptr) {
    return Execute(arguments, control);
  }
  // The module's input_output_aliases (xla/hlo/input_output_alias.h); kept
  // for executables loaded without their module.
  const std::vector<InputOutputAlias>& input_output_aliases() const { return input_output_aliases_; }
  void set_input_output_aliases(std::vector<InputOutputAlias> aliases) { input_output_aliases_ = std::move(aliases); }

  // The compiled module; only for executables made by Compile.
  bool has_module() const { return module_ != nullptr; }
  const HloModule& module() const { return *module_; }
  // The entry computation's name and program shape, with the layouts the
  // code reads its parameters in and writes its result in.
  const std::string& entry_name() const { return entry_name_; }
  const ProgramShape& program_shape() const { return program_shape_; }
  virtual int64_t SizeInBytes() const { return 0; }
  // Bytes one run allocates besides its arguments and its result (the CPU
  // backend's arena: its working set, from buffer assignment), or nullopt
  // when the backend cannot tell (the service then bounds it by every
  // instruction's value).
  virtual std::optional<int64_t> ScratchBytesPerRun() const { return std::nullopt; }
  // Whether a run may read a replica context (infeed, outfeed, send/recv,
  // collectives, replica and partition ids: IsDistributedOpcode); a run of
  // one that does not needs none set up. True when unknown (no module).
  bool uses_replica_context() const { return uses_replica_context_; }

 private:
  std::unique_ptr<HloModule> module_;
  bool uses_replica_context_ = true;
  std::string entry_name_;
  ProgramShape program_shape_;
  std::vector<InputOutputAlias> input_output_aliases_;
};

class Compiler {
 public:
  virtual ~Compiler() = default;
  // `module` has passed the HloVerifier. With `control`, a compile past its
  // deadline (or cancelled) stops at its next check (between HLO passes,
  // between emitted instructions, before each LLVM pass and before code
  // generation) and returns its StopStatus().
  virtual absl::StatusOr<std::unique_ptr<Executable>> Compile(std::unique_ptr<HloModule> module,
                                                              const DebugOptions& options,
                                                              const ExecutionControl* control = nullptr) = 0;

  // Executables that outlive the process (the service's persistent cache,
  // service/persistent_cache.h). A backend that supports them overrides all
  // three.
  //
  // What an executable compiled now with `options` depends on besides the
  // module and the options: the target CPU and its features, the compiler's
  // build. Part of the persistent cache's key. Empty: this backend's
  // executables are not saved (the default).
  virtual absl::StatusOr<std::string> PersistentKey(const DebugOptions& options) { return std::string(); }
  // The bytes LoadExecutable turns back into `executable`, in a process of
  // the same build. FailedPrecondition for an executable that cannot be
  // saved (one holding addresses of this process).
  virtual absl::StatusOr<std::string> SerializeExecutable(const Executable& executable);
  // `bytes` from SerializeExecutable. Bytes for another target than
  // `options` asks for, or malformed, give an error; never a crash.
  // `bytes` stay valid while `bytes_owner` lives: the executable may keep
  // it and use parts of `bytes` in place (a model's weights) instead of
  // copying them.
  virtual absl::StatusOr<std::unique_ptr<Executable>> LoadExecutable(absl::string_view bytes,
                                                                     std::shared_ptr<const void> bytes_owner,
                                                                     const DebugOptions& options);
};

class TransferManager {
 public:
  virtual ~TransferManager() = default;
  virtual absl::StatusOr<std::shared_ptr<DeviceBuffer>> TransferLiteralToDevice(const Literal& literal);
  virtual absl::StatusOr<Literal> TransferLiteralFromDevice(const DeviceBuffer& buffer);
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const std::string& name() const = 0;
  virtual Compiler* compiler() = 0;
  virtual TransferManager* transfer_manager() = 0;
};

// Backends register a factory under their name at static-initialization time.
class BackendRegistry {
 public:
  using Factory = std::function<absl::StatusOr<std::unique_ptr<Backend>>()>;
  // `priority`: the highest-priority registered backend is the default.
  static void Register(const std::string& name, int priority, Factory factory);
  static absl::StatusOr<std::unique_ptr<Backend>> Create(const std::string& name);
  static std::vector<std::string> Names();
  static std::string DefaultName();
};

}  // namespace xla

#endif  // BACKENDS_BACKEND_H_
