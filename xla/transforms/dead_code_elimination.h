// DeadCodeElimination ("dce"): removes instructions whose values nobody uses
// (not the root, no users), and embedded computations that nothing reachable
// from the entry calls. Parameters and side-effecting instructions (and
// instructions calling computations with side effects) are always kept.
//
// Removing a computation rebuilds the module (see RemoveComputations in
// hlo_rewrite_util.h): pointers into the module are invalid afterwards.
#ifndef XLA_TRANSFORMS_DEAD_CODE_ELIMINATION_H_
#define XLA_TRANSFORMS_DEAD_CODE_ELIMINATION_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {

class DeadCodeElimination : public HloPass {
 public:
  // With `remove_dead_computations` false only instructions are removed.
  explicit DeadCodeElimination(bool remove_dead_computations = true)
      : remove_dead_computations_(remove_dead_computations) {}

  absl::string_view name() const override { return "dce"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool remove_dead_computations_;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_DEAD_CODE_ELIMINATION_H_
