// HloPassFix<T>: runs pass T (often an HloPassPipeline) again and again until
// it reports no change, at most `max_iterations` times. Passes that enable
// each other (algebraic simplification exposing constants to fold, folding
// exposing tuples to simplify, ...) go in one fixed-point group.
#ifndef XLA_TRANSFORMS_HLO_PASS_FIX_H_
#define XLA_TRANSFORMS_HLO_PASS_FIX_H_

#include <utility>

#include "xla/status_macros.h"
#include "xla/transforms/hlo_pass.h"

namespace xla {

inline constexpr int kDefaultFixedPointIterations = 25;

template <typename T>
class HloPassFix : public T {
 public:
  template <typename... Args>
  explicit HloPassFix(Args&&... args) : T(std::forward<Args>(args)...) {}

  // The cap keeps a pair of passes that undo each other from looping
  // forever; reaching it is not an error (the module is still valid).
  void set_max_iterations(int n) { max_iterations_ = n; }
  int max_iterations() const { return max_iterations_; }
  // Iterations the last Run took (the last one reports no change unless the
  // cap was hit).
  int last_iteration_count() const { return last_iterations_; }

  absl::StatusOr<bool> Run(HloModule* module) override {
    bool changed = false;
    last_iterations_ = 0;
    while (last_iterations_ < max_iterations_) {
      ++last_iterations_;
      ASSIGN_OR_RETURN(bool changed_this_time, T::Run(module));
      if (!changed_this_time) break;
      changed = true;
    }
    return changed;
  }

 private:
  int max_iterations_ = kDefaultFixedPointIterations;
  int last_iterations_ = 0;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_HLO_PASS_FIX_H_
