#include "xla/custom_call/custom_call_plugin.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace xla {

absl::Status LoadCustomCallPlugin(const std::string& path, CustomCallRegistrar& registrar) {
  // RTLD_LOCAL: the plugin's symbols do not leak into later lookups.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat("custom-call plugin '", path, "' does not load: ", why == nullptr ? "unknown error" : why));
  }
  // The one fixed name a plugin exports (never a name from a computation).
  auto entry = reinterpret_cast<CustomCallPluginEntry>(dlsym(library, kCustomCallPluginEntry));
  if (entry == nullptr) {
    dlclose(library);
    return absl::FailedPreconditionError(
        absl::StrCat("custom-call plugin '", path, "' does not export ", kCustomCallPluginEntry));
  }
  absl::Status status;
  entry(&registrar, &status);
  if (!status.ok()) {
    // Handlers it registered before failing point into it: keep it loaded.
    return absl::Status(status.code(), absl::StrCat("custom-call plugin '", path, "': ", status.message()));
  }
  return absl::OkStatus();
}

}  // namespace xla
