// HloPassPipeline: an ordered list of passes run one after another, itself a
// pass (so pipelines nest, and HloPassFix<HloPassPipeline> is a fixed-point
// group). A backend lists its pipeline in one function, top to bottom:
//
//   HloPassPipeline pipeline("cpu");
//   pipeline.set_verify_after_each_pass(true);
//   pipeline.AddPass<CallInliner>();
//   HloPassPipeline& simplify = pipeline.AddFixedPoint("simplification");
//   simplify.AddPass<AlgebraicSimplifier>();
//   simplify.AddPass<ConstantFolding>();
//   pipeline.AddPass<DeadCodeElimination>();
//
// Options (verification, the dump hook, disabled pass names) set on the
// outermost pipeline apply to nested ones at Run time.
#ifndef XLA_TRANSFORMS_HLO_PASS_PIPELINE_H_
#define XLA_TRANSFORMS_HLO_PASS_PIPELINE_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "proto/xla.pb.h"
#include "xla/transforms/hlo_pass.h"
#include "xla/transforms/hlo_pass_fix.h"

namespace xla {

class HloPassPipeline : public HloPass {
 public:
  // Called around every leaf pass that runs (not for nested pipelines, whose
  // own passes are reported instead): the pass name and the module text
  // before and after it. A pass may run more than once (fixed-point groups),
  // so a dumper should number what it writes.
  using DumpCallback =
      std::function<void(absl::string_view pass_name, absl::string_view before, absl::string_view after)>;

  explicit HloPassPipeline(std::string name) : name_(std::move(name)) {}

  absl::string_view name() const override { return name_; }
  bool IsPassPipeline() const override { return true; }

  // Appends a pass constructed from `args`; returns it for further setup.
  template <typename T, typename... Args>
  T& AddPass(Args&&... args) {
    auto pass = std::make_unique<T>(std::forward<Args>(args)...);
    T& ref = *pass;
    passes_.push_back(std::move(pass));
    return ref;
  }
  // Appends an already built pass (e.g. one made by name, pass_registry.h).
  HloPass& AddOwnedPass(std::unique_ptr<HloPass> pass) {
    passes_.push_back(std::move(pass));
    return *passes_.back();
  }
  // Appends a nested pipeline that is rerun until none of its passes changes
  // the module (at most `max_iterations` rounds); add passes to the result.
  HloPassPipeline& AddFixedPoint(std::string name, int max_iterations = kDefaultFixedPointIterations);

  // Runs HloVerifier on the input and after every leaf pass; a failure is an
  // error naming the pass that produced the invalid module.
  void set_verify_after_each_pass(bool verify) { verify_ = verify; }
  bool verify_after_each_pass() const { return verify_; }

  void set_dump_callback(DumpCallback callback) { dump_ = std::move(callback); }
  // Runs before every leaf pass; an error ends the pipeline with it (how a
  // compile past its deadline or cancelled stops between passes).
  void set_stop_check(std::function<absl::Status()> check) { stop_check_ = std::move(check); }

  // Passes (or nested pipelines) with one of these names are skipped.
  void set_disabled_pass_names(std::vector<std::string> names) { disabled_ = std::move(names); }
  const std::vector<std::string>& disabled_pass_names() const { return disabled_; }
  // Takes xla_disable_hlo_passes and xla_disable_all_hlo_passes.
  void ApplyDebugOptions(const DebugOptions& options);

  // Leaf pass names in the order they would run (fixed-point groups listed
  // once), for --help texts and tests.
  std::vector<std::string> PassNames() const;

  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool IsDisabled(absl::string_view pass_name) const;
  // Copies this pipeline's options into a nested one before it runs.
  void PropagateOptionsTo(HloPassPipeline* nested) const;

  std::string name_;
  std::vector<std::unique_ptr<HloPass>> passes_;
  bool verify_ = false;
  // Nested pipelines skip the input check: the outer one did it.
  bool verify_input_ = true;
  bool disable_all_ = false;
  DumpCallback dump_;
  std::function<absl::Status()> stop_check_;
  std::vector<std::string> disabled_;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_HLO_PASS_PIPELINE_H_
