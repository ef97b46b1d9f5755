#include "service/compilation_cache.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace {

constexpr char kProgram[] = R"(
HloModule axpy

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  y = f32[4,8]{1,0} parameter(1)
  alpha = f32[] constant(2.5)
  scaled = f32[4,8]{1,0} broadcast(alpha), dimensions={}
  ax = f32[4,8]{1,0} multiply(scaled, x)
  sum = f32[4,8]{1,0} add(ax, y)
  zero = f32[] constant(0)
  ROOT r = f32[4]{0} reduce(sum, zero), dimensions={1}, to_apply=add
}
)";

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

std::string Key(const HloModule& module, const DebugOptions& options = DebugOptions(),
                const std::string& backend = "cpu") {
  return CompilationCache::Fingerprint(module, options, backend);
}

TEST(CompilationCacheFingerprintTest, NamesDoNotChangeTheKey) {
  std::unique_ptr<HloModule> original = Parse(kProgram);
  const std::string renamed_text = absl::StrReplaceAll(
      kProgram, {{"axpy", "other"}, {"add {", "plus {"}, {"to_apply=add", "to_apply=plus"}, {"scaled", "s2"},
                 {"sum", "total"}, {"main", "start"}});
  ASSERT_NE(renamed_text, kProgram);
  std::unique_ptr<HloModule> renamed = Parse(renamed_text);
  ASSERT_NE(original, nullptr);
  ASSERT_NE(renamed, nullptr);
  EXPECT_EQ(Key(*original), Key(*renamed));
}

TEST(CompilationCacheFingerprintTest, IdsDoNotChangeTheKey) {
  absl::StatusOr<HloModuleProto> proto = ParseHloModuleToProto(kProgram);
  ASSERT_TRUE(proto.ok()) << proto.status();
  // The same program as another builder numbers it: every id and every
  // reference to one moved by 1000.
  HloModuleProto shifted = *proto;
  shifted.set_entry_computation_id(shifted.entry_computation_id() + 1000);
  for (HloComputationProto& computation : *shifted.mutable_computations()) {
    computation.set_id(computation.id() + 1000);
    computation.set_root_id(computation.root_id() + 1000);
    for (HloInstructionProto& instruction : *computation.mutable_instructions()) {
      instruction.set_id(instruction.id() + 1000);
      for (int64_t& id : *instruction.mutable_operand_ids()) id += 1000;
      for (int64_t& id : *instruction.mutable_called_computation_ids()) id += 1000;
    }
  }
  absl::StatusOr<std::unique_ptr<HloModule>> a = HloModule::CreateFromProto(*proto);
  absl::StatusOr<std::unique_ptr<HloModule>> b = HloModule::CreateFromProto(shifted);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(Key(**a), Key(**b));
}

TEST(CompilationCacheFingerprintTest, MeaningChangesTheKey) {
  std::unique_ptr<HloModule> original = Parse(kProgram);
  ASSERT_NE(original, nullptr);
  const std::string key = Key(*original);
  const std::string changes[][2] = {
      {"constant(2.5)", "constant(2.25)"},                                           // a constant's value
      {"x = f32[4,8]{1,0} parameter(0)", "x = f32[4,8]{0,1} parameter(0)"},           // a layout
      {"multiply(scaled, x)", "multiply(x, scaled)"},                                 // operand order
      {"ROOT s = f32[] add(a, b)", "ROOT s = f32[] maximum(a, b)"},                   // a called computation
      {"f32[4]{0} reduce(sum, zero), dimensions={1}",
       "f32[8]{0} reduce(sum, zero), dimensions={0}"},                                // an attribute, and its shape
  };
  for (const auto& [from, to] : changes) {
    const std::string text = absl::StrReplaceAll(kProgram, {{from, to}});
    ASSERT_NE(text, kProgram) << from;
    std::unique_ptr<HloModule> changed = Parse(text);
    ASSERT_NE(changed, nullptr) << to;
    EXPECT_NE(Key(*changed), key) << "changed " << from << " to " << to;
  }
  DebugOptions options;
  options.set_xla_cpu_threads(3);
  EXPECT_NE(Key(*original, options), key);
  EXPECT_NE(Key(*original, DebugOptions(), "interpreter"), key);
}

// A module whose serialization is over 1 MiB (digested as a tree of blocks):
// one changed element of its constant changes the key.
TEST(CompilationCacheFingerprintTest, LargeConstantsAreKeyedByEveryElement) {
  auto module_with = [](int changed_element) {
    std::string values;
    for (int i = 0; i < 300000; ++i) absl::StrAppend(&values, i == 0 ? "" : ", ", i == changed_element ? 7 : 1);
    return Parse(absl::StrCat("HloModule big\n\nENTRY main {\n  x = f32[300000]{0} parameter(0)\n",
                              "  c = f32[300000]{0} constant({", values, "})\n",
                              "  ROOT r = f32[300000]{0} add(x, c)\n}\n"));
  };
  std::unique_ptr<HloModule> a = module_with(-1);
  std::unique_ptr<HloModule> b = module_with(299999);
  std::unique_ptr<HloModule> a_again = module_with(-1);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(a_again, nullptr);
  EXPECT_NE(Key(*a), Key(*b));
  EXPECT_EQ(Key(*a), Key(*a_again));
}

}  // namespace
}  // namespace xla
