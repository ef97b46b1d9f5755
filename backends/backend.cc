#include "backends/backend.h"

#include <map>

#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "xla/status_macros.h"

namespace xla {

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
