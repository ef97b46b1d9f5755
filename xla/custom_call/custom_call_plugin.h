// Custom-call plugins: shared libraries that an operator names (the
// daemon's --custom_call_plugin flag) and that add targets to a registry.
// A plugin exports exactly one entry point, with C linkage:
//
//   extern "C" void XlaRegisterCustomCalls(xla::CustomCallRegistrar* registrar,
//                                          absl::Status* status);
//
// which registers its handlers through `registrar` and sets `status` on
// failure. Nothing else in the library is ever looked up: instruction text
// never names a symbol. Plugins stay loaded for the life of the process.
#ifndef XLA_CUSTOM_CALL_CUSTOM_CALL_PLUGIN_H_
#define XLA_CUSTOM_CALL_CUSTOM_CALL_PLUGIN_H_

#include <string>

#include "absl/status/status.h"
#include "xla/custom_call/custom_call_registry.h"

namespace xla {

inline constexpr char kCustomCallPluginEntry[] = "XlaRegisterCustomCalls";
using CustomCallPluginEntry = void (*)(CustomCallRegistrar* registrar, absl::Status* status);

// Loads `path` and runs its entry point against `registrar`. Errors name
// the path: a library that does not load, lacks the entry point, or whose
// registration fails (e.g. a target that is already registered).
absl::Status LoadCustomCallPlugin(const std::string& path, CustomCallRegistrar& registrar);

}  // namespace xla

#endif  // XLA_CUSTOM_CALL_CUSTOM_CALL_PLUGIN_H_
