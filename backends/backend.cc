#include "backends/backend.h"

#include <map>

#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "xla/status_macros.h"

namespace xla {

Executable::Executable(std::unique_ptr<HloModule> module) : module_(std::move(module)) {
  const HloComputation* entry = module_->entry_computation();
  entry_name_ = entry->name();
  program_shape_ = entry->ComputeProgramShape();
  input_output_aliases_ = module_->input_output_aliases();
  uses_replica_context_ = false;
  for (const HloComputation* computation : module_->computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (IsDistributedOpcode(instruction->opcode())) uses_replica_context_ = true;
    }
  }
}

Executable::Executable(std::string entry_name, ProgramShape program_shape)
    : entry_name_(std::move(entry_name)), program_shape_(std::move(program_shape)) {}

absl::StatusOr<std::string> Compiler::SerializeExecutable(const Executable&) {
  return absl::UnimplementedError("this backend's executables cannot be saved");
}

absl::StatusOr<std::unique_ptr<Executable>> Compiler::LoadExecutable(absl::string_view, std::shared_ptr<const void>,
                                                                     const DebugOptions&) {
  return absl::UnimplementedError("this backend's executables cannot be loaded");
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> TransferManager::TransferLiteralToDevice(const Literal& literal) {
  return DeviceBuffer::FromLiteral(literal);
}

absl::StatusOr<Literal> TransferManager::TransferLiteralFromDevice(const DeviceBuffer& buffer) {
  return buffer.ToLiteral();
}

namespace {

struct Entry {
  int priority;
  BackendRegistry::Factory factory;
};

absl::Mutex registry_mutex(absl::kConstInit);
std::map<std::string, Entry>& Registry() ABSL_EXCLUSIVE_LOCKS_REQUIRED(registry_mutex) {
  static auto* registry = new std::map<std::string, Entry>();
  return *registry;
}

}  // namespace

void BackendRegistry::Register(const std::string& name, int priority, Factory factory) {
  absl::MutexLock lock(&registry_mutex);
  Registry()[name] = Entry{priority, std::move(factory)};
}

absl::StatusOr<std::unique_ptr<Backend>> BackendRegistry::Create(const std::string& name) {
  Factory factory;
  {
    absl::MutexLock lock(&registry_mutex);
    auto it = Registry().find(name);
    if (it == Registry().end()) {
      std::vector<std::string> names;
      for (const auto& [n, e] : Registry()) names.push_back(n);
      return NotFound("unknown backend '%s' (available: %s)", name, absl::StrJoin(names, ", "));
    }
    factory = it->second.factory;
  }
  return factory();
}

std::vector<std::string> BackendRegistry::Names() {
  absl::MutexLock lock(&registry_mutex);
  std::vector<std::string> names;
  for (const auto& [n, e] : Registry()) names.push_back(n);
  return names;
}

std::string BackendRegistry::DefaultName() {
  absl::MutexLock lock(&registry_mutex);
  std::string best;
  int best_priority = -1;
  for (const auto& [n, e] : Registry()) {
    if (e.priority > best_priority) {
      best = n;
      best_priority = e.priority;
    }
  }
  return best;
}

}  // namespace xla
