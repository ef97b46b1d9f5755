#include "xla/custom_call/custom_call_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace xla {

CustomCallRegistry& CustomCallRegistry::Global() {
  static auto* registry = new CustomCallRegistry();
  return *registry;
}

absl::Status CustomCallRegistry::Register(const std::string& target_name, CustomCallHandler handler) {
  if (target_name.empty()) return InvalidArgument("custom-call registry: a target needs a name");
  if (!handler) return InvalidArgument("custom-call registry: target '%s' has no handler", target_name);
  absl::MutexLock lock(&mu_);
  if (!handlers_.emplace(target_name, std::move(handler)).second) {
    return absl::AlreadyExistsError(
        absl::StrCat("custom-call registry: target '", target_name, "' is already registered"));
  }
  return absl::OkStatus();
}

const CustomCallHandler* CustomCallRegistry::Find(absl::string_view target_name) const {
  absl::MutexLock lock(&mu_);
  auto it = handlers_.find(target_name);
  return it == handlers_.end() ? nullptr : &it->second;  // node_hash_map: stable
}

std::vector<std::string> CustomCallRegistry::Names() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, handler] : handlers_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

namespace custom_call_internal {

bool RegisterOrDie(const std::string& name, CustomCallHandler handler) {
  absl::Status s = CustomCallRegistry::Global().Register(name, std::move(handler));
  if (!s.ok()) {
    std::fprintf(stderr, "XLA_REGISTER_CUSTOM_CALL: %s\n", std::string(s.message()).c_str());
    std::abort();
  }
  return true;
}

}  // namespace custom_call_internal
}  // namespace xla
