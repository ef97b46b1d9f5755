// The shrinker on synthetic "failures" (a predicate on the module text), so
// the test does not depend on a CPU backend bug being present.
#include "tools/hlo_fuzz/shrinker.h"

#include "gtest/gtest.h"
#include "tools/hlo_fuzz/module_generator.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace hlo_fuzz {
namespace {

int64_t InstructionCount(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return -1;
  int64_t n = 0;
  for (const HloComputation* c : (*module)->computations()) n += c->instruction_count();
  return n;
}

constexpr char kModule[] = R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p0 = f32[4,5] parameter(0)
  p1 = f32[4,5] parameter(1)
  p2 = s32[3] parameter(2)
  x = f32[4,5] multiply(p0, p1)
  y = f32[4,5] exponential(x)
  z = f32[4,5] negate(y)
  w = f32[5,4] transpose(z), dimensions={1,0}
  r = f32[5] reduce(w, c), dimensions={1}, to_apply=add
  c = f32[] constant(0)
  i = s32[3] add(p2, p2)
  j = s32[3] reverse(i), dimensions={0}
  ROOT out = (f32[5], s32[3], f32[4,5]) tuple(r, j, x)
}
)";

TEST(ShrinkerTest, KeepsOnlyWhatTheFailureNeeds) {
  // "Fails" while there is an exponential.
  auto fails = [](const std::string& text) { return text.find(" exponential(") != std::string::npos; };
  ASSERT_TRUE(fails(kModule));
  auto result = ShrinkModule(kModule, fails);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(fails(result->text)) << result->text;
  // A parameter and the exponential are all that is needed.
  EXPECT_LE(InstructionCount(result->text), 2) << result->text;
  EXPECT_EQ(result->text.find("reduce"), std::string::npos) << result->text;
  EXPECT_EQ(result->text.find("tuple"), std::string::npos) << result->text;
  EXPECT_GT(result->accepted, 0);
}

TEST(ShrinkerTest, ShrinksDimensions) {
  // "Fails" while there is a transpose (of any size).
  auto fails = [](const std::string& text) { return text.find(" transpose(") != std::string::npos; };
  auto result = ShrinkModule(kModule, fails);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(fails(result->text));
  EXPECT_EQ(result->text.find("f32[4,5]"), std::string::npos) << result->text;
  EXPECT_LE(InstructionCount(result->text), 2) << result->text;
}

TEST(ShrinkerTest, KeepsTwoInteractingOps) {
  // "Fails" only while a reverse reads an add.
  auto fails = [](const std::string& text) {
    const size_t entry = text.find("ENTRY");
    const size_t add = text.find(" add(", entry);
    const size_t reverse = text.find(" reverse(", entry);
    return entry != std::string::npos && add != std::string::npos && reverse != std::string::npos && add < reverse;
  };
  ASSERT_TRUE(fails(kModule));
  auto result = ShrinkModule(kModule, fails);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(fails(result->text)) << result->text;
  EXPECT_LE(InstructionCount(result->text), 4) << result->text;
}

TEST(ShrinkerTest, ShrinksGeneratedModules) {
  // Straight-line generated modules "fail" while they have a dynamic-slice;
  // most shrink to a few instructions (the dynamic-slice, its operand and
  // start indices), and none grows.
  auto fails = [](const std::string& t) { return t.find(" dynamic-slice(") != std::string::npos; };
  int tried = 0, small = 0;
  for (uint64_t seed = 1; tried < 6 && seed < 1000; ++seed) {
    const std::string text = GenerateModule(seed).text;
    if (!fails(text) || text.find("while(") != std::string::npos || text.find("conditional(") != std::string::npos ||
        text.find("call(") != std::string::npos || InstructionCount(text) < 12) {
      continue;
    }
    ++tried;
    auto result = ShrinkModule(text, fails);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(fails(result->text)) << "seed " << seed << ":\n" << result->text;
    EXPECT_LE(InstructionCount(result->text), InstructionCount(text));
    small += InstructionCount(result->text) <= 6;
  }
  EXPECT_EQ(tried, 6);
  EXPECT_GE(small, 4);
}

TEST(ShrinkerTest, RespectsTheCandidateBudget) {
  int calls = 0;
  auto fails = [&](const std::string&) {
    ++calls;
    return true;
  };
  ShrinkOptions options;
  options.max_candidates = 3;
  auto result = ShrinkModule(kModule, fails, options);
  ASSERT_TRUE(result.ok());
  EXPECT_LE(calls, 3);
}

}  // namespace
}  // namespace hlo_fuzz
}  // namespace xla
