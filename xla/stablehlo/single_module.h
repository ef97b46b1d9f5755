// One StableHLO program -> one HloModule, for the entry points that compile
// a single program (xla_run, hlo_opt, the service's Compile): the text must
// have exactly one entry point (`@main`, or its only function), and check
// ops are dropped so the entry returns exactly the function's results.
#ifndef XLA_STABLEHLO_SINGLE_MODULE_H_
#define XLA_STABLEHLO_SINGLE_MODULE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/hlo_module.h"

namespace xla {
namespace stablehlo {

// Errors are INVALID_ARGUMENT "filename:line:col: message".
absl::StatusOr<std::unique_ptr<HloModule>> ImportStableHloModule(absl::string_view text,
                                                                 const std::string& filename);

}  // namespace stablehlo
}  // namespace xla

#endif  // XLA_STABLEHLO_SINGLE_MODULE_H_
