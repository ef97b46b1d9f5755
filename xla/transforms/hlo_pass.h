// HloPass: the interface of every HLO-to-HLO transformation. A pass is a
// small class with a name and Run(module), which returns whether it changed
// the module. Passes are combined in an HloPassPipeline (hlo_pass_pipeline.h)
// and wrapped in HloPassFix (hlo_pass_fix.h) when they enable each other.
#ifndef XLA_TRANSFORMS_HLO_PASS_H_
#define XLA_TRANSFORMS_HLO_PASS_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/hlo_module.h"

namespace xla {

class HloPass {
 public:
  virtual ~HloPass() = default;

  // Short, stable identifier ("dce", "algsimp"): used by hlo_opt --passes,
  // DebugOptions.xla_disable_hlo_passes and the dump hook.
  virtual absl::string_view name() const = 0;

  // Transforms `module` in place. Returns true when something changed; an
  // error leaves the module in an unspecified (but destructible) state.
  virtual absl::StatusOr<bool> Run(HloModule* module) = 0;

  // True for HloPassPipeline (and HloPassFix<HloPassPipeline>), so an outer
  // pipeline can hand its options down without RTTI.
  virtual bool IsPassPipeline() const { return false; }
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_HLO_PASS_H_
