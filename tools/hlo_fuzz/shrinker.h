// Shrinks a failing HLO module: repeatedly tries a smaller variant and keeps
// it while `still_fails` holds, until no variant is accepted (or the budget
// runs out). Variants, at the proto level:
//  - drop an output of the entry's root tuple (or unwrap a 1-tuple);
//  - replace a value by a new parameter of its shape, or by a constant
//    holding the interpreter's value of it (entry computation);
//  - bypass an op: its users take an operand of the same shape instead
//    (unary ops, and binary ones through either operand);
//  - in called computations, bypass ops or replace them by zeros;
//  - shrink a parameter's dimension (to 1, 0 or one less), re-inferring the
//    entry's shapes (variants whose attributes no longer fit are dropped).
// Dead instructions, unused parameters and computations nothing calls are
// removed after each change. Every variant is verified before it is tried.
#ifndef TOOLS_HLO_FUZZ_SHRINKER_H_
#define TOOLS_HLO_FUZZ_SHRINKER_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tools/hlo_fuzz/differential_runner.h"

namespace xla {
namespace hlo_fuzz {

// True when the module text still shows the failure being shrunk.
using StillFails = std::function<bool(const std::string& text)>;

struct ShrinkOptions {
  int max_candidates = 3000;  // calls of still_fails
  absl::Duration time_limit = absl::Minutes(5);
  uint64_t arg_seed = 1;  // the arguments whose interpreter values become constants
};

struct ShrinkResult {
  std::string text;  // the smallest failing module found (printed by HloModule::ToString)
  int candidates = 0;
  int accepted = 0;
  int64_t instructions_before = 0;
  int64_t instructions_after = 0;
};

absl::StatusOr<ShrinkResult> ShrinkModule(const std::string& text, const StillFails& still_fails,
                                          const ShrinkOptions& options = ShrinkOptions());

// still_fails for a differential-runner finding: the same verdict again
// (for CPU failures, also the same status code and first words of the error).
StillFails SameFinding(const RunResult& original, const RunOptions& options);

}  // namespace hlo_fuzz
}  // namespace xla

#endif  // TOOLS_HLO_FUZZ_SHRINKER_H_
