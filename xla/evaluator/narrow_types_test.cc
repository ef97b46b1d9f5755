// The evaluator on S2/S4/U2/U4 and the small floats, against values worked
// out by hand: integer ops wrap to the type's width (two's complement), a
// logical right shift sees only the width's bits, an arithmetic one the
// width's top bit; small floats compute in f32 and round back once.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"

namespace xla {
namespace {

// Evaluates `op` (an HLO opcode name, with attributes after a comma if any)
// on constant operands given as literal text; gives the result's text.
std::string Eval(const std::string& result_shape, const std::string& op, const std::vector<std::string>& operands) {
  std::string body;
  std::vector<std::string> names;
  for (size_t i = 0; i < operands.size(); ++i) {
    const std::string& text = operands[i];
    const size_t space = text.find(' ');
    absl::StrAppend(&body, "  c", i, " = ", text.substr(0, space), " constant(", text.substr(space + 1), ")\n");
    names.push_back(absl::StrCat("c", i));
  }
  std::string opname = op, attrs;
  if (size_t comma = op.find(','); comma != std::string::npos) {
    opname = op.substr(0, comma);
    attrs = op.substr(comma);
  }
  const std::string text = absl::StrCat("HloModule m\nENTRY e {\n", body, "  ROOT r = ", result_shape, " ", opname,
                                        "(", absl::StrJoin(names, ", "), ")", attrs, "\n}\n");
  auto module = ParseHloModule(text);
  if (!module.ok()) return absl::StrCat("parse error: ", module.status().message(), "\n", text);
  auto result = HloEvaluator().Evaluate(**module, {});
  if (!result.ok()) return absl::StrCat("error: ", result.status().message());
  return result->ToString();
}

TEST(NarrowIntTest, S4WrapsToFourBits) {
  EXPECT_EQ(Eval("s4[4]", "add", {"s4[4] {7, -8, 3, -1}", "s4[4] {1, -1, 5, -1}"}), "s4[4] {-8, 7, -8, -2}");
  EXPECT_EQ(Eval("s4[4]", "subtract", {"s4[4] {-8, 7, 0, -1}", "s4[4] {1, -1, -8, 7}"}), "s4[4] {7, -8, -8, -8}");
  EXPECT_EQ(Eval("s4[4]", "multiply", {"s4[4] {4, -3, 7, -8}", "s4[4] {4, 3, 7, -1}"}), "s4[4] {0, 7, 1, -8}");
  EXPECT_EQ(Eval("s4[4]", "negate", {"s4[4] {-8, 7, 0, 1}"}), "s4[4] {-8, -7, 0, -1}");
  EXPECT_EQ(Eval("s4[2]", "abs", {"s4[2] {-8, -3}"}), "s4[2] {-8, 3}");
  EXPECT_EQ(Eval("s4[4]", "not", {"s4[4] {0, -1, 7, -8}"}), "s4[4] {-1, 0, -8, 7}");
  // Amounts are unsigned: -1 is 15 >= 4.
  EXPECT_EQ(Eval("s4[4]", "shift-left", {"s4[4] {1, 3, -1, 5}", "s4[4] {3, 1, 4, -1}"}), "s4[4] {-8, 6, 0, 0}");
  EXPECT_EQ(Eval("s4[4]", "shift-right-logical", {"s4[4] {-8, -1, 7, -1}", "s4[4] {1, 3, 1, 4}"}),
            "s4[4] {4, 1, 3, 0}");
  EXPECT_EQ(Eval("s4[4]", "shift-right-arithmetic", {"s4[4] {-8, 7, -1, 5}", "s4[4] {1, 2, 3, 7}"}),
            "s4[4] {-4, 1, -1, 0}");
  EXPECT_EQ(Eval("s4[4]", "popcnt", {"s4[4] {-1, -8, 7, 5}"}), "s4[4] {4, 1, 3, 2}");
  EXPECT_EQ(Eval("s4[4]", "count-leading-zeros", {"s4[4] {1, -1, 0, 4}"}), "s4[4] {3, 0, 4, 1}");
  // INT_MIN / -1 = INT_MIN, x / 0 = -1, truncation toward zero.
  EXPECT_EQ(Eval("s4[4]", "divide", {"s4[4] {-8, 7, 5, -7}", "s4[4] {-1, 0, -2, 2}"}), "s4[4] {-8, -1, -2, -3}");
  EXPECT_EQ(Eval("s4[4]", "remainder", {"s4[4] {-8, 7, 5, -7}", "s4[4] {-1, 0, -2, 2}"}), "s4[4] {0, 7, 1, -1}");
  EXPECT_EQ(Eval("s4[3]", "power", {"s4[3] {3, -2, 2}", "s4[3] {2, 3, -1}"}), "s4[3] {-7, -8, 0}");
  EXPECT_EQ(Eval("pred[3]", "compare, direction=LT", {"s4[3] {-8, 7, -1}", "s4[3] {7, -8, 0}"}),
            "pred[3] {true, false, true}");
  EXPECT_EQ(Eval("s4[2]", "maximum", {"s4[2] {-8, 3}", "s4[2] {-1, 7}"}), "s4[2] {-1, 7}");
  // Wide unsigned comparisons keep their order (the narrow types' path must
  // not read them as signed).
  EXPECT_EQ(Eval("pred[1]", "compare, direction=GT", {"u64[1] {18446744073709551615}", "u64[1] {1}"}),
            "pred[1] {true}");
}

TEST(NarrowIntTest, U4WrapsToFourBits) {
  EXPECT_EQ(Eval("u4[3]", "add", {"u4[3] {15, 8, 3}", "u4[3] {1, 8, 4}"}), "u4[3] {0, 0, 7}");
  EXPECT_EQ(Eval("u4[2]", "subtract", {"u4[2] {0, 3}", "u4[2] {1, 5}"}), "u4[2] {15, 14}");
  EXPECT_EQ(Eval("u4[2]", "multiply", {"u4[2] {5, 15}", "u4[2] {4, 15}"}), "u4[2] {4, 1}");
  EXPECT_EQ(Eval("u4[3]", "not", {"u4[3] {0, 5, 15}"}), "u4[3] {15, 10, 0}");
  EXPECT_EQ(Eval("u4[3]", "negate", {"u4[3] {1, 0, 8}"}), "u4[3] {15, 0, 8}");
  EXPECT_EQ(Eval("u4[3]", "shift-left", {"u4[3] {15, 1, 3}", "u4[3] {1, 3, 4}"}), "u4[3] {14, 8, 0}");
  EXPECT_EQ(Eval("u4[3]", "shift-right-logical", {"u4[3] {15, 8, 12}", "u4[3] {1, 3, 4}"}), "u4[3] {7, 1, 0}");
  // The top bit of the four is the sign an arithmetic shift copies.
  EXPECT_EQ(Eval("u4[4]", "shift-right-arithmetic", {"u4[4] {8, 15, 7, 12}", "u4[4] {1, 2, 1, 8}"}),
            "u4[4] {12, 15, 3, 15}");
  EXPECT_EQ(Eval("u4[3]", "popcnt", {"u4[3] {15, 8, 0}"}), "u4[3] {4, 1, 0}");
  EXPECT_EQ(Eval("u4[3]", "count-leading-zeros", {"u4[3] {1, 15, 0}"}), "u4[3] {3, 0, 4}");
  EXPECT_EQ(Eval("u4[2]", "divide", {"u4[2] {15, 7}", "u4[2] {0, 2}"}), "u4[2] {15, 3}");
  EXPECT_EQ(Eval("pred[2]", "compare, direction=GT", {"u4[2] {15, 0}", "u4[2] {8, 1}"}), "pred[2] {true, false}");
}

TEST(NarrowIntTest, TwoBitTypes) {
  EXPECT_EQ(Eval("s2[3]", "add", {"s2[3] {1, -2, 1}", "s2[3] {1, -1, -2}"}), "s2[3] {-2, 1, -1}");
  EXPECT_EQ(Eval("s2[2]", "not", {"s2[2] {0, -2}"}), "s2[2] {-1, 1}");
  EXPECT_EQ(Eval("s2[2]", "multiply", {"s2[2] {-2, 1}", "s2[2] {-1, -2}"}), "s2[2] {-2, -2}");
  // Two bits set is 2, which s2 holds as -2.
  EXPECT_EQ(Eval("s2[2]", "popcnt", {"s2[2] {-1, -2}"}), "s2[2] {-2, 1}");
  EXPECT_EQ(Eval("u2[2]", "add", {"u2[2] {3, 2}", "u2[2] {1, 3}"}), "u2[2] {0, 1}");
  EXPECT_EQ(Eval("u2[2]", "not", {"u2[2] {1, 3}"}), "u2[2] {2, 0}");
  EXPECT_EQ(Eval("u2[2]", "negate", {"u2[2] {1, 2}"}), "u2[2] {3, 2}");
  EXPECT_EQ(Eval("u2[2]", "shift-right-arithmetic", {"u2[2] {2, 1}", "u2[2] {1, 1}"}), "u2[2] {3, 0}");
}

TEST(NarrowIntTest, ConvertIotaReduceAndDot) {
  EXPECT_EQ(Eval("s4[5]", "convert", {"f32[5] {-100, 100, 3.7, -3.7, nan}"}), "s4[5] {-8, 7, 3, -3, 0}");
  EXPECT_EQ(Eval("s4[3]", "convert", {"s32[3] {17, -9, 8}"}), "s4[3] {1, 7, -8}");
  EXPECT_EQ(Eval("u2[2]", "convert", {"s4[2] {-1, 6}"}), "u2[2] {3, 2}");
  EXPECT_EQ(Eval("f32[2]", "convert", {"u4[2] {15, 8}"}), "f32[2] {15, 8}");
  const char* iota = R"(
HloModule m
ENTRY e {
  ROOT i = s4[10] iota(), iota_dimension=0
})";
  auto module = ParseHloModule(iota);
  ASSERT_TRUE(module.ok()) << module.status();
  auto r = HloEvaluator().Evaluate(**module, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToString(), "s4[10] {0, 1, 2, 3, 4, 5, 6, 7, -8, -7}");
  const char* reduce = R"(
HloModule m
add {
  a = u4[] parameter(0)
  b = u4[] parameter(1)
  ROOT s = u4[] add(a, b)
}
ENTRY e {
  x = u4[5] constant({15, 9, 1, 2, 3})
  z = u4[] constant(0)
  ROOT r = u4[] reduce(x, z), dimensions={0}, to_apply=add
})";
  module = ParseHloModule(reduce);
  ASSERT_TRUE(module.ok()) << module.status();
  r = HloEvaluator().Evaluate(**module, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToString(), "u4[] 14");  // 30 mod 16
  EXPECT_EQ(Eval("s4[1,1]", "dot, lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                 {"s4[1,3] {{7, 7, -8}}", "s4[3,1] {{1}, {2}, {1}}"}),
            "s4[1,1] {{-3}}");  // 7 + 14 - 8 = 13 = -3 in four bits
}

TEST(SmallFloatEvalTest, ArithmeticRoundsOnceToTheType) {
  // 1 + 0.0625 = 1.0625, a tie in f8e4m3fn: even, 1.
  EXPECT_EQ(Eval("f8e4m3fn[2]", "add", {"f8e4m3fn[2] {1, 448}", "f8e4m3fn[2] {0.0625, 448}"}),
            "f8e4m3fn[2] {1, nan}");
  EXPECT_EQ(Eval("f8e5m2[2]", "multiply", {"f8e5m2[2] {40000, 3}", "f8e5m2[2] {2, 0.5}"}), "f8e5m2[2] {inf, 1.5}");
  EXPECT_EQ(Eval("f4e2m1fn[3]", "add", {"f4e2m1fn[3] {6, 1.5, -3}", "f4e2m1fn[3] {6, 1, 0.5}"}),
            "f4e2m1fn[3] {6, 2, -2}");  // 12 saturates; 2.5 ties to 2; -2.5 ties to -2
  EXPECT_EQ(Eval("f8e4m3fnuz[2]", "negate", {"f8e4m3fnuz[2] {0, 1}"}), "f8e4m3fnuz[2] {0, -1}");
  EXPECT_EQ(Eval("f8e4m3fn[2]", "convert", {"f32[2] {465, -0.1}"}), "f8e4m3fn[2] {nan, -0.1}");
  EXPECT_EQ(Eval("f6e3m2fn[1]", "convert", {"f8e4m3fn[1] {448}"}), "f6e3m2fn[1] {28}");
  EXPECT_EQ(Eval("f32[2]", "convert", {"f8e8m0fnu[2] {0.125, 4}"}), "f32[2] {0.125, 4}");
  EXPECT_EQ(Eval("pred[2]", "compare, direction=LT", {"f8e5m2[2] {-0, 1}", "f8e5m2[2] {0, 1}"}),
            "pred[2] {false, false}");
  EXPECT_EQ(Eval("pred[2]", "compare, direction=LT, type=TOTALORDER", {"f8e5m2[2] {-0, 1}", "f8e5m2[2] {0, 1}"}),
            "pred[2] {true, false}");
  EXPECT_EQ(Eval("u8[2]", "bitcast-convert", {"f8e4m3fn[2] {1, -448}"}), "u8[2] {56, 254}");
  EXPECT_EQ(Eval("s4[2]", "bitcast-convert", {"f4e2m1fn[2] {-6, 1}"}), "s4[2] {-1, 2}");
}

}  // namespace
}  // namespace xla
