#include "xla/transforms/hlo_rewrite_util.h"

#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

TEST(HloRewriteUtilTest, SplatValues) {
  auto module = testing::ParseAndVerify(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[3] constant({2, 2, 2})
  b = f32[3] constant({2, 2, 3})
  z = f32[] constant(-0)
  bz = f32[2,2] broadcast(z), dimensions={}
  e = f32[3] constant({...})
  empty = f32[0] constant({})
  ROOT t = (f32[2], f32[3], f32[3], f32[2,2], f32[3], f32[0]) tuple(p, a, b, bz, e, empty)
})");
  ASSERT_NE(module, nullptr);
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_FALSE(GetSplatValue(root->operand(0)).has_value());
  ASSERT_TRUE(GetSplatValue(root->operand(1)).has_value());
  EXPECT_EQ(GetSplatValue(root->operand(1))->GetAsDouble(0), 2);
  EXPECT_TRUE(IsSplatValue(root->operand(1), 2));
  EXPECT_FALSE(GetSplatValue(root->operand(2)).has_value());
  EXPECT_TRUE(IsSplatValue(root->operand(3), -0.0));
  EXPECT_FALSE(IsSplatValue(root->operand(3), 0.0));
  EXPECT_FALSE(IsKnownConstant(root->operand(4)));
  EXPECT_FALSE(GetSplatValue(root->operand(4)).has_value());
  EXPECT_FALSE(GetSplatValue(root->operand(5)).has_value());
}

TEST(HloRewriteUtilTest, NameUniquerAvoidsEveryNameOfTheModule) {
  auto module = testing::ParseAndVerify(R"(
HloModule m
f {
  add = f32[] parameter(0)
  ROOT add.1 = f32[] negate(add)
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT add.2 = f32[] call(p), to_apply=f
})");
  ASSERT_NE(module, nullptr);
  NameUniquer names(*module);
  EXPECT_EQ(names.GetUniqueName("fresh"), "fresh");
  EXPECT_EQ(names.GetUniqueName("fresh"), "fresh.1");
  EXPECT_EQ(names.GetUniqueName("add"), "add.3");
  EXPECT_EQ(names.GetUniqueName("add.1"), "add.4");
  EXPECT_EQ(names.GetUniqueName("p"), "p.1");
}

TEST(HloRewriteUtilTest, RemoveComputationsKeepsTheRest) {
  auto module = testing::ParseAndVerify(R"(
HloModule m, some_attribute=kept
unused {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}
ENTRY main {
  p = f32[2]{0} parameter(0)
  ROOT e = f32[2]{0} exponential(p)
})");
  ASSERT_NE(module, nullptr);
  const std::string entry_text = module->entry_computation()->ToString();
  ASSERT_TRUE(RemoveComputations(module.get(), {module->GetComputationByName("unused")}).ok());
  EXPECT_EQ(module->computations().size(), 1u);
  EXPECT_EQ(module->entry_computation()->ToString(), entry_text);
  EXPECT_EQ(module->entry_computation()->parent(), module.get());
  EXPECT_TRUE(VerifyHloModule(*module).ok());
  EXPECT_FALSE(RemoveComputations(module.get(), {module->entry_computation()}).ok());
}

TEST(HloRewriteUtilTest, SideEffectsPropagateThroughCalls) {
  auto module = ParseHloModule(R"(
HloModule m
noisy {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  ROOT r = f32[] rng(lo, hi), distribution=rng_uniform
}
quiet {
  ROOT c = f32[] constant(1)
}
ENTRY main {
  a = f32[] call(), to_apply=noisy
  b = f32[] call(), to_apply=quiet
  ROOT t = (f32[], f32[]) tuple(a, b)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_TRUE(HasSideEffect(root->operand(0)));
  EXPECT_FALSE(HasSideEffect(root->operand(1)));
  EXPECT_FALSE(IsDead(root->operand(0)));
}

}  // namespace
}  // namespace xla
