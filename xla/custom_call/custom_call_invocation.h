// A custom-call instruction bound to its registered handler when a module
// is compiled: the target's handler, the shapes of the operand and result
// leaves, and the parsed attributes. Both backends invoke it with one
// pointer per array leaf (row-major); the handler's error comes back as
// "custom call 'target' (instruction name): message" with its code.
#ifndef XLA_CUSTOM_CALL_CUSTOM_CALL_INVOCATION_H_
#define XLA_CUSTOM_CALL_CUSTOM_CALL_INVOCATION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/custom_call/custom_call_attributes.h"
#include "xla/custom_call/custom_call_registry.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_module.h"
#include "xla/shape.h"

namespace xla {

class CustomCallInvocation {
 public:
  // NotFound naming the target when it is not registered; InvalidArgument
  // for a malformed typed-FFI backend_config.
  static absl::StatusOr<std::unique_ptr<CustomCallInvocation>> Bind(
      const HloInstruction& hlo, const CustomCallRegistry& registry = CustomCallRegistry::Global());

  // `operands`/`results`: the data of each array leaf of the operands (in
  // operand order) and of the result, as operand_leaves()/result_leaves().
  absl::Status Invoke(const void* const* operands, void* const* results) const;

  const std::string& target() const { return target_; }
  const std::vector<Shape>& operand_leaves() const { return operand_leaves_; }
  const std::vector<Shape>& result_leaves() const { return result_leaves_; }

 private:
  CustomCallInvocation() = default;

  std::string target_, instruction_;
  const CustomCallHandler* handler_ = nullptr;
  std::vector<Shape> operand_leaves_, result_leaves_;
  CustomCallAttributes attributes_;
};

// The array leaves of `shape`, depth-first (tokens have no storage).
void CustomCallArrayLeaves(const Shape& shape, std::vector<Shape>* out);

// Every custom-call of `module` binds (its target is registered and its
// attributes parse): what a backend checks before it compiles, so that an
// unknown target is a compile-time error.
absl::Status CheckCustomCallTargets(const HloModule& module,
                                    const CustomCallRegistry& registry = CustomCallRegistry::Global());

}  // namespace xla

#endif  // XLA_CUSTOM_CALL_CUSTOM_CALL_INVOCATION_H_
