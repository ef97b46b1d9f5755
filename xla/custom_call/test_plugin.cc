// A custom-call plugin for the tests (custom_call_test, the daemon test):
// "test_plugin.negate" writes -x for each f32 element of its one operand.
// The entry point is the one custom_call_plugin.h describes.
#include "absl/status/status.h"
#include "xla/custom_call/custom_call_registry.h"
#include "xla/status_macros.h"

namespace {

absl::Status Negate(absl::Span<const xla::CustomCallOperand> operands, absl::Span<const xla::CustomCallResult> results,
                    const xla::CustomCallAttributes&) {
  if (operands.size() != 1 || results.size() != 1) {
    return xla::InvalidArgument("negate takes one operand and one result");
  }
  ASSIGN_OR_RETURN(auto in, operands[0].typed<float>());
  ASSIGN_OR_RETURN(auto out, results[0].typed<float>());
  if (in.size() != out.size()) return xla::InvalidArgument("negate: operand and result sizes differ");
  for (size_t i = 0; i < in.size(); ++i) out[i] = -in[i];
  return absl::OkStatus();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void XlaRegisterCustomCalls(xla::CustomCallRegistrar* registrar,
                                                                              absl::Status* status) {
  *status = registrar->Register("test_plugin.negate", Negate);
}
