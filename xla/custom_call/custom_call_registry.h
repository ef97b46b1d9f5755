// The host functions that custom-call instructions may call: registered by
// name through the C++ API by the application that links this system (or
// by an operator-named plugin, custom_call_plugin.h), in the style of XLA's
// typed FFI: the handler gets its operands' and results' buffers (array
// leaves of the operand and result shapes, tuples flattened depth-first,
// tokens skipped, row-major) and the instruction's attributes, and returns
// an absl::Status that becomes the execution's status.
//
// Both backends call the same handler: the interpreter from the evaluator,
// the CPU backend from JIT code through a runtime entry holding the
// handler resolved when the module was compiled. Names are never looked up
// as symbols (no dlsym of instruction text): a target that is not in the
// registry is a compile-time error.
//
// Entries are never removed, so a handler pointer stays valid for the life
// of the process (compiled executables hold it).
#ifndef XLA_CUSTOM_CALL_CUSTOM_CALL_REGISTRY_H_
#define XLA_CUSTOM_CALL_CUSTOM_CALL_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "proto/xla_data.pb.h"
#include "xla/custom_call/custom_call_attributes.h"
#include "xla/primitive_util.h"
#include "xla/status_macros.h"

namespace xla {

// One row-major array buffer. `Data` is `const void` for operands, `void`
// for results.
//
// Everything a plugin calls is inline here or virtual (CustomCallRegistrar),
// so a plugin links no generated proto code of its own (which would clash
// with the host's registration of the same .proto files).
template <typename Data>
struct CustomCallBuffer {
  PrimitiveType element_type = PRIMITIVE_TYPE_INVALID;
  absl::Span<const int64_t> dimensions;
  Data* data = nullptr;
  // The element type's lowercase name ("f32"), for messages.
  absl::string_view element_type_name;

  int64_t element_count() const {
    int64_t n = 1;
    for (int64_t d : dimensions) n *= d;
    return n;
  }
  // The elements as T; an error when T is not the element type.
  template <typename T>
  absl::StatusOr<absl::Span<std::conditional_t<std::is_const_v<Data>, const T, T>>> typed() const {
    if (primitive_util::NativeToPrimitiveType<T>() != element_type) {
      return InvalidArgument("custom-call buffer holds %s elements, not the type asked for (PrimitiveType %d)",
                             element_type_name.empty() ? "other" : element_type_name,
                             static_cast<int>(primitive_util::NativeToPrimitiveType<T>()));
    }
    using Element = std::conditional_t<std::is_const_v<Data>, const T, T>;
    return absl::Span<Element>(static_cast<Element*>(data), static_cast<size_t>(element_count()));
  }
};
using CustomCallOperand = CustomCallBuffer<const void>;
using CustomCallResult = CustomCallBuffer<void>;

// Must be thread-safe: runs of one executable may overlap.
using CustomCallHandler = std::function<absl::Status(absl::Span<const CustomCallOperand> operands,
                                                     absl::Span<const CustomCallResult> results,
                                                     const CustomCallAttributes& attributes)>;

// Where targets are registered (the plugin interface sees only this).
class CustomCallRegistrar {
 public:
  virtual ~CustomCallRegistrar() = default;
  // InvalidArgument for an empty name or handler, AlreadyExists for a name
  // that is taken.
  virtual absl::Status Register(const std::string& target_name, CustomCallHandler handler) = 0;
};

class CustomCallRegistry : public CustomCallRegistrar {
 public:
  // The process's registry, which both backends and the service use.
  static CustomCallRegistry& Global();

  absl::Status Register(const std::string& target_name, CustomCallHandler handler) override;
  // nullptr when the name is not registered. The pointer stays valid.
  const CustomCallHandler* Find(absl::string_view target_name) const;
  std::vector<std::string> Names() const;  // sorted

 private:
  mutable absl::Mutex mu_;
  absl::node_hash_map<std::string, CustomCallHandler> handlers_ ABSL_GUARDED_BY(mu_);
};

// Registers `handler` under `name` in the global registry when the
// enclosing binary is loaded; a failure (e.g. a duplicate) aborts startup.
#define XLA_REGISTER_CUSTOM_CALL(name, handler) \
  XLA_REGISTER_CUSTOM_CALL_IMPL(__COUNTER__, name, handler)
#define XLA_REGISTER_CUSTOM_CALL_IMPL(counter, name, handler) \
  XLA_REGISTER_CUSTOM_CALL_IMPL2(counter, name, handler)
#define XLA_REGISTER_CUSTOM_CALL_IMPL2(counter, name, handler)                                       \
  [[maybe_unused]] static const bool xla_custom_call_registered_##counter =                       \
      ::xla::custom_call_internal::RegisterOrDie(name, handler)

namespace custom_call_internal {
bool RegisterOrDie(const std::string& name, CustomCallHandler handler);
}  // namespace custom_call_internal

}  // namespace xla

#endif  // XLA_CUSTOM_CALL_CUSTOM_CALL_REGISTRY_H_
