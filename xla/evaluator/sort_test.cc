// Tests of the evaluator's sort and topk, by hand-computed values.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/base/casts.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"

namespace xla {
namespace {

absl::StatusOr<Literal> EvalText(const std::string& text, std::vector<const Literal*> args) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return HloEvaluator().Evaluate(**module, args);
}

#define EXPECT_LITERAL(expr, expected)                      \
  do {                                                      \
    absl::StatusOr<Literal> _r = (expr);                    \
    ASSERT_TRUE(_r.ok()) << _r.status();                    \
    EXPECT_EQ(*_r, (expected)) << "got " << _r->ToString(); \
  } while (0)

Literal Tuple(Literal a, Literal b) {
  std::vector<Literal> elements;
  elements.push_back(std::move(a));
  elements.push_back(std::move(b));
  return Literal::MakeTuple(std::move(elements));
}

// One sort of `operands` (HLO text of the parameters' shapes) with
// comparator body `compare` over parameters a, b (operand 0) and c, d
// (operand 1).
std::string SortModule(const std::vector<std::string>& types, const std::string& shape, int64_t dimension,
                       const std::string& compare, bool stable = false) {
  std::string comparator = "cmp {\n";
  std::string params, operands, result;
  const char* names[] = {"a", "b", "c", "d"};
  for (size_t i = 0; i < types.size(); ++i) {
    for (int side = 0; side < 2; ++side) {
      comparator += "  " + std::string(names[2 * i + side]) + " = " + types[i] + "[] parameter(" +
                    std::to_string(2 * i + side) + ")\n";
    }
    params += "  p" + std::to_string(i) + " = " + types[i] + shape + " parameter(" + std::to_string(i) + ")\n";
    operands += (i ? ", p" : "p") + std::to_string(i);
    result += (i ? ", " : "") + types[i] + shape;
  }
  if (types.size() > 1) result = "(" + result + ")";
  comparator += "  ROOT r = pred[] " + compare + "\n}\n";
  return "HloModule s\n" + comparator + "ENTRY e {\n" + params + "  ROOT s = " + result + " sort(" + operands +
         "), dimensions={" + std::to_string(dimension) + "}" + (stable ? ", is_stable=true" : "") +
         ", to_apply=cmp\n}\n";
}

TEST(SortTest, OneOperandAscendingAndDescending) {
  Literal x = Literal::CreateR1<float>({3, -1, 2, 0.5f, -7});
  EXPECT_LITERAL(EvalText(SortModule({"f32"}, "[5]", 0, "compare(a, b), direction=LT"), {&x}),
                 Literal::CreateR1<float>({-7, -1, 0.5f, 2, 3}));
  EXPECT_LITERAL(EvalText(SortModule({"f32"}, "[5]", 0, "compare(a, b), direction=GT"), {&x}),
                 Literal::CreateR1<float>({3, 2, 0.5f, -1, -7}));
}

TEST(SortTest, EachDimensionOfAMatrix) {
  Literal x = Literal::CreateR2<int32_t>({{3, 1, 2}, {0, 5, 4}});
  // Along dimension 1: each row sorted.
  EXPECT_LITERAL(EvalText(SortModule({"s32"}, "[2,3]", 1, "compare(a, b), direction=LT"), {&x}),
                 (Literal::CreateR2<int32_t>({{1, 2, 3}, {0, 4, 5}})));
  // Along dimension 0: each column sorted.
  EXPECT_LITERAL(EvalText(SortModule({"s32"}, "[2,3]", 0, "compare(a, b), direction=LT"), {&x}),
                 (Literal::CreateR2<int32_t>({{0, 1, 2}, {3, 5, 4}})));
}

TEST(SortTest, ValuesFollowTheirKeysAndEqualKeysKeepTheirOrder) {
  Literal keys = Literal::CreateR1<int32_t>({2, 1, 2, 1, 0});
  Literal values = Literal::CreateR1<float>({10, 20, 30, 40, 50});
  const std::string by_key = "compare(a, b), direction=LT";
  EXPECT_LITERAL(EvalText(SortModule({"s32", "f32"}, "[5]", 0, by_key, /*stable=*/true), {&keys, &values}),
                 Tuple(Literal::CreateR1<int32_t>({0, 1, 1, 2, 2}), Literal::CreateR1<float>({50, 20, 40, 10, 30})));
  // An unstable sort is sorted stably too (any order of equal keys is allowed).
  EXPECT_LITERAL(EvalText(SortModule({"s32", "f32"}, "[5]", 0, by_key), {&keys, &values}),
                 Tuple(Literal::CreateR1<int32_t>({0, 1, 1, 2, 2}), Literal::CreateR1<float>({50, 20, 40, 10, 30})));
  // Descending by key, equal keys still in their first order.
  EXPECT_LITERAL(EvalText(SortModule({"s32", "f32"}, "[5]", 0, "compare(a, b), direction=GT", true),
                          {&keys, &values}),
                 Tuple(Literal::CreateR1<int32_t>({2, 2, 1, 1, 0}), Literal::CreateR1<float>({10, 30, 20, 40, 50})));
  // The comparator may read the second operand: by value, descending.
  EXPECT_LITERAL(EvalText(SortModule({"s32", "f32"}, "[5]", 0, "compare(c, d), direction=GT"), {&keys, &values}),
                 Tuple(Literal::CreateR1<int32_t>({0, 1, 2, 1, 2}), Literal::CreateR1<float>({50, 40, 30, 20, 10})));
}

TEST(SortTest, TheInterpreterTestsStableExample) {
  // stablehlo/tests/interpret/sort.mlir: sorted along dimension 0 by
  // operand 0, descending.
  Literal a = Literal::CreateR2<int64_t>({{1, 2, 3}, {3, 2, 1}});
  Literal b = Literal::CreateR2<int64_t>({{3, 2, 1}, {1, 2, 3}});
  EXPECT_LITERAL(EvalText(SortModule({"s64", "s64"}, "[2,3]", 0, "compare(a, b), direction=GT", true), {&a, &b}),
                 Tuple(Literal::CreateR2<int64_t>({{3, 2, 3}, {1, 2, 1}}),
                       Literal::CreateR2<int64_t>({{1, 2, 1}, {3, 2, 3}})));
}

TEST(SortTest, TotalOrderComparatorPlacesNaNsAndSignedZeros) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Literal x = Literal::CreateR1<float>({nan, 1, -0.0f, -nan, 0.0f, -inf});
  auto r = EvalText(SortModule({"f32"}, "[6]", 0, "compare(a, b), direction=LT, type=TOTALORDER"), {&x});
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<uint32_t> expected = {absl::bit_cast<uint32_t>(-nan), absl::bit_cast<uint32_t>(-inf),
                                          absl::bit_cast<uint32_t>(-0.0f), absl::bit_cast<uint32_t>(0.0f),
                                          absl::bit_cast<uint32_t>(1.0f), absl::bit_cast<uint32_t>(nan)};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(absl::bit_cast<uint32_t>(r->data<float>()[i]), expected[i]) << i;
}

TEST(SortTest, PredAndComplexOperands) {
  Literal p = Literal::CreateR1<bool>({true, false, true, false});
  EXPECT_LITERAL(EvalText(SortModule({"pred"}, "[4]", 0, "compare(a, b), direction=LT"), {&p}),
                 Literal::CreateR1<bool>({false, false, true, true}));
  // Complex values by their real parts (a comparator of the caller's choice).
  Literal c = Literal::CreateR1<complex64>({{1, 5}, {3, -1}, {2, 0}});
  const std::string text = R"(HloModule s
cmp {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ra = f32[] real(a)
  rb = f32[] real(b)
  ROOT r = pred[] compare(ra, rb), direction=GT
}
ENTRY e {
  p = c64[3] parameter(0)
  ROOT s = c64[3] sort(p), dimensions={0}, to_apply=cmp
})";
  EXPECT_LITERAL(EvalText(text, {&c}), Literal::CreateR1<complex64>({{3, -1}, {2, 0}, {1, 5}}));
}

TEST(SortTest, BadComparatorIsAnError) {
  Literal x = Literal::CreateR1<float>({1, 2});
  const std::string text = R"(HloModule s
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  p = f32[2] parameter(0)
  ROOT s = f32[2] sort(p), dimensions={0}, to_apply=cmp
})";
  auto r = EvalText(text, {&x});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("must return pred[]"), std::string::npos) << r.status();
}

std::string TopKModule(const std::string& type, const std::string& shape, int64_t k, const std::string& out,
                       bool largest = true) {
  return "HloModule t\nENTRY e {\n  p = " + type + shape + " parameter(0)\n  ROOT t = (" + type + out + ", s32" +
         out + ") topk(p), k=" + std::to_string(k) + (largest ? "" : ", largest=false") + "\n}\n";
}

TEST(TopKTest, FloatsInTotalOrder) {
  // The corpus's top_k_float32_5: +NaN > inf > 3 > -inf > -NaN.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Literal x = Literal::CreateR1<float>({inf, nan, -nan, -inf, 3});
  auto r = EvalText(TopKModule("f32", "[5]", 5, "[5]"), {&x});
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<float> values = {nan, inf, 3, -inf, -nan};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(absl::bit_cast<uint32_t>(r->tuple_elements()[0].data<float>()[i]), absl::bit_cast<uint32_t>(values[i]));
  }
  EXPECT_EQ(r->tuple_elements()[1], Literal::CreateR1<int32_t>({1, 0, 4, 3, 2}));
  // Smallest first.
  r = EvalText(TopKModule("f32", "[5]", 2, "[2]", /*largest=*/false), {&x});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tuple_elements()[1], Literal::CreateR1<int32_t>({2, 3}));
}

TEST(TopKTest, EqualValuesByPositionAndRows) {
  // The corpus's top_k_int32_6.
  Literal x = Literal::CreateR1<int32_t>({5, 7, 5, 8, 8, 5});
  EXPECT_LITERAL(EvalText(TopKModule("s32", "[6]", 3, "[3]"), {&x}),
                 Tuple(Literal::CreateR1<int32_t>({8, 8, 7}), Literal::CreateR1<int32_t>({3, 4, 1})));
  EXPECT_LITERAL(EvalText(TopKModule("s32", "[6]", 4, "[4]", false), {&x}),
                 Tuple(Literal::CreateR1<int32_t>({5, 5, 5, 7}), Literal::CreateR1<int32_t>({0, 2, 5, 1})));
  Literal m = Literal::CreateR2<uint8_t>({{1, 9, 4}, {200, 0, 200}});
  EXPECT_LITERAL(EvalText(TopKModule("u8", "[2,3]", 2, "[2,2]"), {&m}),
                 Tuple(Literal::CreateR2<uint8_t>({{9, 4}, {200, 200}}), Literal::CreateR2<int32_t>({{1, 2}, {0, 2}})));
  Literal p = Literal::CreateR1<bool>({false, true, false, true});
  EXPECT_LITERAL(EvalText(TopKModule("pred", "[4]", 3, "[3]"), {&p}),
                 Tuple(Literal::CreateR1<bool>({true, true, false}), Literal::CreateR1<int32_t>({1, 3, 0})));
}

}  // namespace
}  // namespace xla
