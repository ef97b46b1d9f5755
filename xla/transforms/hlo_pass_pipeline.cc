#include "xla/transforms/hlo_pass_pipeline.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/status_macros.h"

namespace xla {

HloPassPipeline& HloPassPipeline::AddFixedPoint(std::string name, int max_iterations) {
  auto& fix = AddPass<HloPassFix<HloPassPipeline>>(std::move(name));
  fix.set_max_iterations(max_iterations);
  return fix;
}

void HloPassPipeline::ApplyDebugOptions(const DebugOptions& options) {
  for (const std::string& name : options.xla_disable_hlo_passes()) disabled_.push_back(name);
  disable_all_ = options.xla_disable_all_hlo_passes();
}

std::vector<std::string> HloPassPipeline::PassNames() const {
  std::vector<std::string> names;
  for (const auto& pass : passes_) {
    if (pass->IsPassPipeline()) {
      for (std::string& n : static_cast<const HloPassPipeline&>(*pass).PassNames()) names.push_back(std::move(n));
    } else {
      names.emplace_back(pass->name());
    }
  }
  return names;
}

bool HloPassPipeline::IsDisabled(absl::string_view pass_name) const {
  return std::find(disabled_.begin(), disabled_.end(), pass_name) != disabled_.end();
}

void HloPassPipeline::PropagateOptionsTo(HloPassPipeline* nested) const {
  nested->verify_ = verify_;
  nested->verify_input_ = false;
  nested->dump_ = dump_;
  nested->stop_check_ = stop_check_;
  for (const std::string& name : disabled_) {
    if (!nested->IsDisabled(name)) nested->disabled_.push_back(name);
  }
}

absl::StatusOr<bool> HloPassPipeline::Run(HloModule* module) {
  if (module == nullptr) return InvalidArgument("pipeline '%s': null module", name_);
  if (disable_all_) return false;
  if (verify_ && verify_input_) {
    absl::Status input_ok = VerifyHloModule(*module);
    if (!input_ok.ok()) {
      return AddErrorContext(input_ok, absl::StrCat("pipeline '", name_, "': the input module is invalid"));
    }
  }
  bool changed = false;
  for (const auto& pass : passes_) {
    if (IsDisabled(pass->name())) continue;
    if (pass->IsPassPipeline()) {
      auto* nested = static_cast<HloPassPipeline*>(pass.get());
      PropagateOptionsTo(nested);
      // The nested pipeline verifies after each of its own passes.
      ASSIGN_OR_RETURN(bool nested_changed, nested->Run(module));
      changed |= nested_changed;
      continue;
    }
    if (stop_check_) RETURN_IF_ERROR(stop_check_());
    std::string before;
    if (dump_) before = module->ToString();
    absl::StatusOr<bool> pass_changed = pass->Run(module);
    if (!pass_changed.ok()) {
      return AddErrorContext(pass_changed.status(), absl::StrCat("pass '", pass->name(), "'"));
    }
    if (dump_) dump_(pass->name(), before, module->ToString());
    if (verify_) {
      absl::Status ok = VerifyHloModule(*module);
      if (!ok.ok()) {
        return AddErrorContext(ok, absl::StrCat("HLO verification failed after pass '", pass->name(), "'"));
      }
    }
    changed |= *pass_changed;
  }
  return changed;
}

}  // namespace xla
