#include "xla/transforms/algebraic_simplifier.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

using testing::Expr;
using testing::RootExpr;
using testing::RunPass;

// A module whose entry takes p0: T[4] and p1: T[4] and returns `body`'s ROOT.
std::string Binary(const std::string& type, const std::string& body) {
  return absl::StrReplaceAll(R"(
HloModule m
ENTRY main {
  p0 = T[4] parameter(0)
  p1 = T[4] parameter(1)
)" + body + "\n}\n",
                             {{"T[", type + "["}, {"T[]", type + "[]"}});
}

std::string Simplified(const std::string& text, AlgebraicSimplifierOptions options = {}) {
  AlgebraicSimplifier pass(options);
  testing::PassRun run = RunPass(pass, text);
  return run.module ? RootExpr(*run.module) : "<failed>";
}

// --- Arithmetic ------------------------------------------------------------

TEST(AlgebraicSimplifierTest, IntegerAddZeroBothSides) {
  EXPECT_EQ(Simplified(Binary("s32", R"(
  z = s32[] constant(0)
  bz = s32[4] broadcast(z), dimensions={}
  ROOT r = s32[4] add(p0, bz))")),
            "parameter(0)");
  EXPECT_EQ(Simplified(Binary("s32", R"(
  z = s32[4] constant({0, 0, 0, 0})
  ROOT r = s32[4] add(z, p1))")),
            "parameter(1)");
}

TEST(AlgebraicSimplifierTest, FloatAddPositiveZeroIsKeptByDefault) {
  // -0 + +0 is +0: not an identity under IEEE semantics.
  const std::string text = Binary("f32", R"(
  z = f32[] constant(0)
  bz = f32[4] broadcast(z), dimensions={}
  ROOT r = f32[4] add(p0, bz))");
  EXPECT_EQ(Simplified(text), "add(parameter(0), broadcast{}(constant(0)))");
  AlgebraicSimplifierOptions loose;
  loose.allow_signed_zero_changes = true;
  AlgebraicSimplifier pass(loose);
  auto module = testing::ParseAndVerify(text);
  ASSERT_NE(module, nullptr);
  ASSERT_TRUE(pass.Run(module.get()).value());
  EXPECT_EQ(RootExpr(*module), "parameter(0)");
}

TEST(AlgebraicSimplifierTest, FloatAddNegativeZeroIsAnIdentity) {
  EXPECT_EQ(Simplified(Binary("f32", R"(
  z = f32[] constant(-0)
  bz = f32[4] broadcast(z), dimensions={}
  ROOT r = f32[4] add(bz, p0))")),
            "parameter(0)");
  EXPECT_EQ(Simplified(Binary("bf16", R"(
  z = bf16[] constant(-0)
  bz = bf16[4] broadcast(z), dimensions={}
  ROOT r = bf16[4] add(p1, bz))")),
            "parameter(1)");
}

TEST(AlgebraicSimplifierTest, SubtractPositiveZero) {
  EXPECT_EQ(Simplified(Binary("f64", R"(
  z = f64[4] constant({0, 0, 0, 0})
  ROOT r = f64[4] subtract(p0, z))")),
            "parameter(0)");
  // x - (-0) is x + 0: kept for floats.
  EXPECT_EQ(Simplified(Binary("f32", R"(
  z = f32[4] constant({-0, -0, -0, -0})
  ROOT r = f32[4] subtract(p0, z))")),
            "subtract(parameter(0), constant({-0, -0, -0, -0}))");
  // 0 - x is a negation, not x.
  EXPECT_EQ(Simplified(Binary("s32", R"(
  z = s32[4] constant({0, 0, 0, 0})
  ROOT r = s32[4] subtract(z, p0))")),
            "subtract(constant({0, 0, 0, 0}), parameter(0))");
}

TEST(AlgebraicSimplifierTest, MultiplyAndDivideByOne) {
  EXPECT_EQ(Simplified(Binary("f32", R"(
  one = f32[] constant(1)
  b = f32[4] broadcast(one), dimensions={}
  ROOT r = f32[4] multiply(b, p0))")),
            "parameter(0)");
  EXPECT_EQ(Simplified(Binary("u8", R"(
  one = u8[] constant(1)
  b = u8[4] broadcast(one), dimensions={}
  ROOT r = u8[4] multiply(p1, b))")),
            "parameter(1)");
  EXPECT_EQ(Simplified(Binary("f16", R"(
  one = f16[4] constant({1, 1, 1, 1})
  ROOT r = f16[4] divide(p0, one))")),
            "parameter(0)");
  EXPECT_EQ(Simplified(Binary("s64", R"(
  one = s64[] constant(1)
  b = s64[4] broadcast(one), dimensions={}
  ROOT r = s64[4] divide(p0, b))")),
            "parameter(0)");
  // 1 / x is not x.
  EXPECT_EQ(Simplified(Binary("f32", R"(
  one = f32[4] constant({1, 1, 1, 1})
  ROOT r = f32[4] divide(one, p0))")),
            "divide(constant({1, 1, 1, 1}), parameter(0))");
}

TEST(AlgebraicSimplifierTest, MultiplyByZeroOnlyForIntegers) {
  EXPECT_EQ(Simplified(Binary("s32", R"(
  z = s32[] constant(0)
  b = s32[4] broadcast(z), dimensions={}
  ROOT r = s32[4] multiply(p0, b))")),
            "broadcast{}(constant(0))");
  // NaN * 0, inf * 0 and -1 * 0 are not +0.
  EXPECT_EQ(Simplified(Binary("f32", R"(
  z = f32[] constant(0)
  b = f32[4] broadcast(z), dimensions={}
  ROOT r = f32[4] multiply(p0, b))")),
            "multiply(parameter(0), broadcast{}(constant(0)))");
}

TEST(AlgebraicSimplifierTest, ComplexIsLeftAlone) {
  // (a+bi)*(1+0i) turns inf*0 into NaN in the cross terms: not an identity.
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p0 = c64[2] parameter(0)
  one = c64[2] constant({(1, 0), (1, 0)})
  ROOT r = c64[2] multiply(p0, one)
})"),
            "multiply(parameter(0), constant({(1, 0), (1, 0)}))");
}

TEST(AlgebraicSimplifierTest, NonSplatConstantsAreNotIdentities) {
  EXPECT_EQ(Simplified(Binary("s32", R"(
  c = s32[4] constant({0, 0, 1, 0})
  ROOT r = s32[4] add(p0, c))")),
            "add(parameter(0), constant({0, 0, 1, 0}))");
}

TEST(AlgebraicSimplifierTest, ElidedConstantsAreUnknown) {
  // constant({...}) holds placeholder zeros: never treat them as zero.
  EXPECT_EQ(Simplified(Binary("s32", R"(
  c = s32[4] constant({...})
  ROOT r = s32[4] add(p0, c))")),
            "add(parameter(0), constant({0, 0, 0, 0}))");
}

TEST(AlgebraicSimplifierTest, DoubleNegation) {
  EXPECT_EQ(Simplified(Binary("f32", R"(
  n1 = f32[4] negate(p0)
  ROOT n2 = f32[4] negate(n1))")),
            "parameter(0)");
}

TEST(AlgebraicSimplifierTest, SelectWithConstantPredicate) {
  EXPECT_EQ(Simplified(Binary("f32", R"(
  t = pred[] constant(true)
  bt = pred[4] broadcast(t), dimensions={}
  ROOT r = f32[4] select(bt, p0, p1))")),
            "parameter(0)");
  EXPECT_EQ(Simplified(Binary("f32", R"(
  f = pred[4] constant({false, false, false, false})
  ROOT r = f32[4] select(f, p0, p1))")),
            "parameter(1)");
  EXPECT_EQ(Simplified(Binary("f32", R"(
  m = pred[4] constant({false, true, false, false})
  ROOT r = f32[4] select(m, p0, p1))")),
            "select(constant({false, true, false, false}), parameter(0), parameter(1))");
  EXPECT_EQ(Simplified(Binary("f32", R"(
  c = pred[4] compare(p0, p1), direction=LT
  ROOT r = f32[4] select(c, p1, p1))")),
            "parameter(1)");
}

TEST(AlgebraicSimplifierTest, NoOpConvert) {
  EXPECT_EQ(Simplified(Binary("f32", R"(
  ROOT c = f32[4] convert(p0))")),
            "parameter(0)");
  EXPECT_EQ(Simplified(Binary("f32", R"(
  ROOT c = f64[4] convert(p0))")),
            "convert(parameter(0))");
}

// --- Shape ops -------------------------------------------------------------

TEST(AlgebraicSimplifierTest, ReshapeOfReshapeAndIdentityReshape) {
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[2,3,4] parameter(0)
  a = f32[6,4] reshape(p)
  b = f32[24] reshape(a)
  ROOT c = f32[4,6] reshape(b)
})"),
            "reshape(parameter(0))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  a = f32[6] reshape(p)
  ROOT b = f32[2,3] reshape(a)
})"),
            "parameter(0)");
}

TEST(AlgebraicSimplifierTest, TransposeOfTransposeComposes) {
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[2,3,4] parameter(0)
  a = f32[3,4,2] transpose(p), dimensions={1,2,0}
  ROOT b = f32[4,3,2] transpose(a), dimensions={1,0,2}
})"),
            "transpose{2,1,0}(parameter(0))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[2,3,4] parameter(0)
  a = f32[3,4,2] transpose(p), dimensions={1,2,0}
  ROOT b = f32[2,3,4] transpose(a), dimensions={2,0,1}
})"),
            "parameter(0)");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  ROOT t = f32[2,3] transpose(p), dimensions={0,1}
})"),
            "parameter(0)");
}

TEST(AlgebraicSimplifierTest, BroadcastOfBroadcastComposes) {
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  a = f32[2,3] broadcast(p), dimensions={1}
  ROOT b = f32[2,5,3] broadcast(a), dimensions={0,2}
})"),
            "broadcast{2}(parameter(0))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[] parameter(0)
  a = f32[3] broadcast(p), dimensions={}
  ROOT b = f32[2,3] broadcast(a), dimensions={1}
})"),
            "broadcast{}(parameter(0))");
}

// A keepdims reshape ([n] -> [n,1], as JAX writes softmax's max and sum)
// between a value and its broadcast: the broadcast reads the value itself.
TEST(AlgebraicSimplifierTest, BroadcastOfADegenerateReshape) {
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  r = f32[4,1] reshape(p)
  ROOT b = f32[4,6] broadcast(r), dimensions={0,1}
})"),
            "broadcast{0}(parameter(0))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  r = f32[1,2,1,3] reshape(p)
  ROOT b = f32[5,2,7,3] broadcast(r), dimensions={0,1,2,3}
})"),
            "broadcast{1,3}(parameter(0))");
  // Not only size-1 dimensions: the reshape stays.
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[6] parameter(0)
  r = f32[2,3] reshape(p)
  ROOT b = f32[2,3,4] broadcast(r), dimensions={0,1}
})"),
            "broadcast{0,1}(reshape(parameter(0)))");
}

TEST(AlgebraicSimplifierTest, IdentityBroadcast) {
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  ROOT b = f32[2,3] broadcast(p), dimensions={0,1}
})"),
            "parameter(0)");
}

TEST(AlgebraicSimplifierTest, TransposeOfBroadcastBecomesBroadcast) {
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  a = f32[2,3] broadcast(p), dimensions={1}
  ROOT t = f32[3,2] transpose(a), dimensions={1,0}
})"),
            "broadcast{0}(parameter(0))");
  // It would need an unsorted broadcast (a hidden transpose of p): kept.
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  a = f32[2,3,4] broadcast(p), dimensions={0,1}
  ROOT t = f32[3,2,4] transpose(a), dimensions={1,0,2}
})"),
            "transpose{1,0,2}(broadcast{0,1}(parameter(0)))");
}

TEST(AlgebraicSimplifierTest, ShapeOpsOfScalarBroadcasts) {
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[] parameter(0)
  a = f32[2,3] broadcast(p), dimensions={}
  ROOT r = f32[6] reshape(a)
})"),
            "broadcast{}(parameter(0))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[] parameter(0)
  a = f32[2,3] broadcast(p), dimensions={}
  ROOT t = f32[3,2] transpose(a), dimensions={1,0}
})"),
            "broadcast{}(parameter(0))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[] parameter(0)
  a = f32[8] broadcast(p), dimensions={}
  ROOT s = f32[3] slice(a), slice={[1:7:2]}
})"),
            "broadcast{}(parameter(0))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[] parameter(0)
  a = f32[8] broadcast(p), dimensions={}
  ROOT r = f32[8] reverse(a), dimensions={0}
})"),
            "broadcast{}(parameter(0))");
}

TEST(AlgebraicSimplifierTest, ShapeOpsOfSplatConstants) {
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  c = f32[6] constant({2, 2, 2, 2, 2, 2})
  ROOT r = f32[2,3] reshape(c)
})"),
            "broadcast{}(constant(2))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  c = s32[2,2] constant({{7, 7}, {7, 7}})
  ROOT t = s32[2,2] transpose(c), dimensions={1,0}
})"),
            "broadcast{}(constant(7))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  c = f32[2] constant({-0, -0})
  ROOT b = f32[3,2] broadcast(c), dimensions={1}
})"),
            "broadcast{}(constant(-0))");
  // A scalar constant reshaped to one element is just a constant.
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  c = f32[] constant(3)
  ROOT r = f32[1,1] reshape(c)
})"),
            "constant({{3}})");
  // Not a splat: left for constant folding.
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  c = f32[2] constant({1, 2})
  ROOT r = f32[2,1] reshape(c)
})"),
            "reshape(constant({1, 2}))");
}

TEST(AlgebraicSimplifierTest, SliceOfSliceComposes) {
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[20,8] parameter(0)
  a = f32[8,8] slice(p), slice={[2:18:2], [0:8]}
  ROOT b = f32[3,3] slice(a), slice={[1:8:3], [2:5]}
})"),
            "slice[4:17:6,2:5:1](parameter(0))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[5,6] parameter(0)
  ROOT s = f32[5,6] slice(p), slice={[0:5], [0:6]}
})"),
            "parameter(0)");
}

TEST(AlgebraicSimplifierTest, IdentityPadReverseConcatenate) {
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[3,4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3,4] pad(p, z), padding=0_0x0_0
})"),
            "parameter(0)");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[3,1] parameter(0)
  ROOT r = f32[3,1] reverse(p), dimensions={1}
})"),
            "parameter(0)");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[3,2] parameter(0)
  ROOT r = f32[3,2] reverse(p), dimensions={0}
})"),
            "reverse{0}(parameter(0))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[3,4] parameter(0)
  ROOT r = f32[3,4] concatenate(p), dimensions={1}
})"),
            "parameter(0)");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[3,4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4,4] pad(p, z), padding=1_0x0_0
})"),
            "pad(parameter(0), constant(0))");
}

TEST(AlgebraicSimplifierTest, SliceOfBroadcastAndOfPad) {
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  b = f32[4,2,3] broadcast(p), dimensions={2}
  ROOT s = f32[1,2,3] slice(b), slice={[1:2], [0:2], [0:3]}
})"),
            "broadcast{2}(parameter(0))");
  // The operand's own dimension is cut: kept.
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  b = f32[4,3] broadcast(p), dimensions={1}
  ROOT s = f32[4,2] slice(b), slice={[0:4], [1:3]}
})"),
            "slice[0:4:1,1:3:1](broadcast{1}(parameter(0)))");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  z = f32[] constant(0)
  q = f32[5,4] pad(p, z), padding=1_2x0_1
  ROOT s = f32[2,3] slice(q), slice={[1:3], [0:3]}
})"),
            "parameter(0)");
  EXPECT_EQ(Simplified(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  z = f32[] constant(0)
  q = f32[5,4] pad(p, z), padding=1_2x0_1
  ROOT s = f32[2,3] slice(q), slice={[2:4], [0:3]}
})"),
            "slice[2:4:1,0:3:1](pad(parameter(0), constant(0)))");
}

// --- Driver ----------------------------------------------------------------

TEST(AlgebraicSimplifierTest, ReportsNoChangeWhenNothingApplies) {
  testing::PassRun run = RunPass<AlgebraicSimplifier>(Binary("f32", R"(
  ROOT r = f32[4] add(p0, p1))"));
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
}

TEST(AlgebraicSimplifierTest, RemovesWhatTheRewriteLeftDead) {
  testing::PassRun run = RunPass<AlgebraicSimplifier>(R"(
HloModule m
ENTRY main {
  p = f32[2,3] parameter(0)
  a = f32[3,2] transpose(p), dimensions={1,0}
  b = f32[2,3] transpose(a), dimensions={1,0}
  one = f32[] constant(1)
  bone = f32[2,3] broadcast(one), dimensions={}
  ROOT m = f32[2,3] multiply(b, bone)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(run.module->entry_computation()->instruction_count(), 1);
  EXPECT_EQ(RootExpr(*run.module), "parameter(0)");
}

TEST(AlgebraicSimplifierTest, KeepsTheRootLayout) {
  // The root's {0,1} layout is the entry's result layout; p is {1,0}.
  testing::PassRun run = RunPass<AlgebraicSimplifier>(R"(
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  a = f32[3,2]{1,0} transpose(p), dimensions={1,0}
  ROOT b = f32[2,3]{0,1} transpose(a), dimensions={1,0}
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_FALSE(run.changed);
  // Not at the root: layouts of intermediate values are free.
  run = RunPass<AlgebraicSimplifier>(R"(
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  a = f32[3,2]{1,0} transpose(p), dimensions={1,0}
  b = f32[2,3]{0,1} transpose(a), dimensions={1,0}
  ROOT n = f32[2,3]{1,0} negate(b)
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(RootExpr(*run.module), "negate(parameter(0))");
}

TEST(AlgebraicSimplifierTest, SimplifiesEmbeddedComputations) {
  testing::PassRun run = RunPass<AlgebraicSimplifier>(R"(
HloModule m
add_zero {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  z = s32[] constant(0)
  yz = s32[] add(y, z)
  ROOT s = s32[] add(x, yz)
}
ENTRY main {
  p = s32[4,3] parameter(0)
  init = s32[] constant(0)
  ROOT r = s32[4] reduce(p, init), dimensions={1}, to_apply=add_zero
})");
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(Expr(run.module->GetComputationByName("add_zero")->root_instruction()),
            "add(parameter(0), parameter(1))");
}

}  // namespace
}  // namespace xla
