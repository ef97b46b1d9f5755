// The backend-independent passes by name (for hlo_opt --passes and tests),
// and the standard simplification pipeline built from them.
#ifndef XLA_TRANSFORMS_PASS_REGISTRY_H_
#define XLA_TRANSFORMS_PASS_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/transforms/hlo_pass.h"
#include "xla/transforms/hlo_pass_pipeline.h"

namespace xla {

struct HloPassInfo {
  std::string name;         // what HloPass::name() returns
  std::string description;  // one line for --help
  std::function<std::unique_ptr<HloPass>()> create;
};

// Every pass of xla/transforms/, in the order of the standard pipeline.
const std::vector<HloPassInfo>& RegisteredHloPasses();

// A new instance of the pass called `name`, or "standard" for the standard
// pipeline; NotFound listing the valid names otherwise.
absl::StatusOr<std::unique_ptr<HloPass>> CreateHloPass(absl::string_view name);

// Appends the standard backend-independent optimization passes to
// `pipeline`, in order:
//   call-inliner                        (calls first: the rest sees one body)
//   fixed point "simplification" of
//     algsimp, constant-folding, tuple-simplifier, while-simplifier,
//     while-licm, cse, dce
void AddStandardHloPasses(HloPassPipeline* pipeline);

// A pipeline named "standard" holding AddStandardHloPasses.
std::unique_ptr<HloPassPipeline> CreateStandardHloPipeline();

}  // namespace xla

#endif  // XLA_TRANSFORMS_PASS_REGISTRY_H_
