#include "xla/transforms/hlo_pass_pipeline.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/transforms/hlo_pass_fix.h"
#include "xla/transforms/pass_registry.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

constexpr char kModule[] = R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  ROOT e = f32[4] exponential(n)
}
)";

// Records its runs in a shared log; reports a change the first `changes` times.
class RecordingPass : public HloPass {
 public:
  RecordingPass(std::string name, std::vector<std::string>* log, int changes = 0)
      : name_(std::move(name)), log_(log), changes_(changes) {}
  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule*) override {
    log_->push_back(name_);
    if (changes_ > 0) {
      --changes_;
      return true;
    }
    return false;
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  int changes_;
};

// Breaks the module: gives the root a wrong shape.
class BreakingPass : public HloPass {
 public:
  absl::string_view name() const override { return "breaker"; }
  absl::StatusOr<bool> Run(HloModule* module) override {
    *module->entry_computation()->root_instruction()->mutable_shape() = ShapeUtil::MakeShape(F32, {5});
    return true;
  }
};

class FailingPass : public HloPass {
 public:
  absl::string_view name() const override { return "failing"; }
  absl::StatusOr<bool> Run(HloModule*) override { return absl::InternalError("boom"); }
};

// Renames the root so the module text changes.
class RenamingPass : public HloPass {
 public:
  absl::string_view name() const override { return "rename"; }
  absl::StatusOr<bool> Run(HloModule* module) override {
    module->entry_computation()->root_instruction()->set_name("renamed");
    return true;
  }
};

TEST(HloPassPipelineTest, RunsPassesInOrderAndOrsTheirChanges) {
  auto module = testing::ParseAndVerify(kModule);
  ASSERT_NE(module, nullptr);
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<RecordingPass>("a", &log);
  pipeline.AddPass<RecordingPass>("b", &log, 1);
  pipeline.AddPass<RecordingPass>("c", &log);
  EXPECT_TRUE(pipeline.Run(module.get()).value());
  EXPECT_EQ(log, (std::vector<std::string>{"a", "b", "c"}));
  log.clear();
  EXPECT_FALSE(pipeline.Run(module.get()).value());
  EXPECT_EQ(pipeline.PassNames(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(HloPassPipelineTest, FixedPointRerunsUntilNoChange) {
  auto module = testing::ParseAndVerify(kModule);
  ASSERT_NE(module, nullptr);
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<RecordingPass>("first", &log);
  HloPassPipeline& fix = pipeline.AddFixedPoint("fix");
  fix.AddPass<RecordingPass>("x", &log, 2);
  fix.AddPass<RecordingPass>("y", &log, 1);
  pipeline.AddPass<RecordingPass>("last", &log);
  EXPECT_TRUE(pipeline.Run(module.get()).value());
  // Rounds 1 and 2 change something, round 3 does not.
  EXPECT_EQ(log, (std::vector<std::string>{"first", "x", "y", "x", "y", "x", "y", "last"}));
  EXPECT_EQ(pipeline.PassNames(), (std::vector<std::string>{"first", "x", "y", "last"}));
}

TEST(HloPassPipelineTest, FixedPointStopsAtTheCap) {
  auto module = testing::ParseAndVerify(kModule);
  ASSERT_NE(module, nullptr);
  std::vector<std::string> log;
  HloPassFix<RecordingPass> always("always", &log, 1000);
  always.set_max_iterations(4);
  EXPECT_TRUE(always.Run(module.get()).value());
  EXPECT_EQ(log.size(), 4u);
  EXPECT_EQ(always.last_iteration_count(), 4);
}

TEST(HloPassPipelineTest, DisabledPassesAreSkippedAlsoInNestedPipelines) {
  auto module = testing::ParseAndVerify(kModule);
  ASSERT_NE(module, nullptr);
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<RecordingPass>("a", &log);
  HloPassPipeline& fix = pipeline.AddFixedPoint("fix");
  fix.AddPass<RecordingPass>("b", &log);
  fix.AddPass<RecordingPass>("c", &log);
  DebugOptions options;
  options.add_xla_disable_hlo_passes("a");
  options.add_xla_disable_hlo_passes("c");
  pipeline.ApplyDebugOptions(options);
  ASSERT_TRUE(pipeline.Run(module.get()).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"b"}));

  log.clear();
  pipeline.set_disabled_pass_names({"fix"});
  ASSERT_TRUE(pipeline.Run(module.get()).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"a"}));

  log.clear();
  DebugOptions all;
  all.set_xla_disable_all_hlo_passes(true);
  pipeline.ApplyDebugOptions(all);
  EXPECT_FALSE(pipeline.Run(module.get()).value());
  EXPECT_TRUE(log.empty());
}

TEST(HloPassPipelineTest, VerifierNamesTheBrokenPass) {
  auto module = testing::ParseAndVerify(kModule);
  ASSERT_NE(module, nullptr);
  HloPassPipeline pipeline("p");
  pipeline.set_verify_after_each_pass(true);
  HloPassPipeline& nested = pipeline.AddFixedPoint("nested");
  nested.AddPass<BreakingPass>();
  absl::StatusOr<bool> result = pipeline.Run(module.get());
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::StrContains(result.status().message(), "after pass 'breaker'")) << result.status();
}

TEST(HloPassPipelineTest, WithoutVerificationTheBrokenModuleGoesThrough) {
  auto module = testing::ParseAndVerify(kModule);
  ASSERT_NE(module, nullptr);
  HloPassPipeline pipeline("p");
  pipeline.AddPass<BreakingPass>();
  EXPECT_TRUE(pipeline.Run(module.get()).ok());
}

TEST(HloPassPipelineTest, RejectsAnInvalidInputWhenVerifying) {
  auto module = testing::ParseAndVerify(kModule);
  ASSERT_NE(module, nullptr);
  BreakingPass().Run(module.get()).value();
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.set_verify_after_each_pass(true);
  pipeline.AddPass<RecordingPass>("a", &log);
  absl::StatusOr<bool> result = pipeline.Run(module.get());
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::StrContains(result.status().message(), "input module is invalid")) << result.status();
  EXPECT_TRUE(log.empty());
}

TEST(HloPassPipelineTest, PassErrorsNameThePass) {
  auto module = testing::ParseAndVerify(kModule);
  ASSERT_NE(module, nullptr);
  HloPassPipeline pipeline("p");
  pipeline.AddPass<FailingPass>();
  absl::StatusOr<bool> result = pipeline.Run(module.get());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(result.status().message(), "pass 'failing': boom")) << result.status();
}

TEST(HloPassPipelineTest, DumpHookSeesEveryLeafPassWithTextBeforeAndAfter) {
  auto module = testing::ParseAndVerify(kModule);
  ASSERT_NE(module, nullptr);
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<RecordingPass>("a", &log);
  HloPassPipeline& fix = pipeline.AddFixedPoint("fix", /*max_iterations=*/2);
  fix.AddPass<RenamingPass>();
  struct Event {
    std::string pass, before, after;
  };
  std::vector<Event> events;
  pipeline.set_dump_callback([&](absl::string_view pass, absl::string_view before, absl::string_view after) {
    events.push_back({std::string(pass), std::string(before), std::string(after)});
  });
  ASSERT_TRUE(pipeline.Run(module.get()).ok());
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].pass, "a");
  EXPECT_EQ(events[0].before, events[0].after);
  EXPECT_EQ(events[1].pass, "rename");
  EXPECT_TRUE(absl::StrContains(events[1].before, "ROOT %e ="));
  EXPECT_TRUE(absl::StrContains(events[1].after, "ROOT %renamed ="));
  EXPECT_EQ(events[2].pass, "rename");
}

TEST(PassRegistryTest, EveryRegisteredPassByName) {
  for (const HloPassInfo& info : RegisteredHloPasses()) {
    absl::StatusOr<std::unique_ptr<HloPass>> pass = CreateHloPass(info.name);
    ASSERT_TRUE(pass.ok()) << info.name;
    EXPECT_EQ((*pass)->name(), info.name);
    EXPECT_FALSE(info.description.empty());
  }
  EXPECT_EQ(RegisteredHloPasses().size(), 14u);
  absl::StatusOr<std::unique_ptr<HloPass>> standard = CreateHloPass("standard");
  ASSERT_TRUE(standard.ok());
  EXPECT_TRUE((*standard)->IsPassPipeline());
  absl::StatusOr<std::unique_ptr<HloPass>> bad = CreateHloPass("nope");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "unknown pass 'nope' (known: standard, call-inliner"));
}

TEST(PassRegistryTest, StandardPipelineListsItsPasses) {
  auto pipeline = CreateStandardHloPipeline();
  EXPECT_EQ(pipeline->PassNames(),
            (std::vector<std::string>{"call-inliner", "algsimp", "constant-folding", "tuple-simplifier",
                                      "while-simplifier", "while-licm", "cse", "dce"}));
}

}  // namespace
}  // namespace xla
