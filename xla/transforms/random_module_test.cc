// Random modules through the standard pipeline: random DAGs of elementwise
// and data-movement ops over f32[2,3] and s32[2,3] values (with splat
// constants such as 0, -0 and 1 to trigger the simplifier, duplicated
// subexpressions for CSE, calls, and counted while loops with invariant
// work), checked against the reference evaluator on inputs with -0, +-inf
// and NaN. Every module must verify after every pass and compute the same
// bits as before.
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/transforms/pass_registry.h"
#include "xla/transforms/transforms_test_util.h"

namespace xla {
namespace {

// Emits instructions "name = type[2,3] op(...)" into one computation.
class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  // A computation body over `inputs` (names of f32[2,3]/s32[2,3] values);
  // returns the lines and the name of the f32 result.
  std::string Body(std::vector<std::string> f32_values, std::vector<std::string> s32_values, int ops,
                   std::vector<std::string>* lines) {
    f32_ = std::move(f32_values);
    s32_ = std::move(s32_values);
    lines_ = lines;
    for (int k = 0; k < ops; ++k) Step();
    return f32_.back();
  }

  int Uniform(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string Fresh(const std::string& stem) { return absl::StrCat(stem, next_++); }

 private:
  std::string Pick(const std::vector<std::string>& pool) {
    // Prefer recent values so chains get deep.
    int n = static_cast<int>(pool.size());
    int back = std::min(n - 1, Uniform(4) == 0 ? Uniform(n) : Uniform(std::min(n, 3)));
    return pool[n - 1 - back];
  }

  std::string Emit(const std::string& type, const std::string& text) {
    std::string name = Fresh("v");
    lines_->push_back(absl::StrCat("  ", name, " = ", type, " ", text));
    return name;
  }

  std::string SplatConstant(bool is_float) {
    static const char* kFloats[] = {"0", "-0", "1", "2", "-1.5", "0.5"};
    static const char* kInts[] = {"0", "1", "-1", "3"};
    const std::string type = is_float ? "f32" : "s32";
    std::string value = is_float ? kFloats[Uniform(6)] : kInts[Uniform(4)];
    std::string scalar = Emit(type + "[]", absl::StrCat("constant(", value, ")"));
    if (Uniform(3) == 0) {
      std::vector<std::string> v(6, value);
      return Emit(type + "[2,3]", absl::StrCat("constant({{", v[0], ", ", v[1], ", ", v[2], "}, {", v[3], ", ",
                                                v[4], ", ", v[5], "}})"));
    }
    return Emit(type + "[2,3]", absl::StrCat("broadcast(", scalar, "), dimensions={}"));
  }

  void Step() {
    const bool is_float = Uniform(3) != 0;
    std::vector<std::string>& pool = is_float ? f32_ : s32_;
    const std::string t = is_float ? "f32[2,3]" : "s32[2,3]";
    const std::string ts = is_float ? "f32" : "s32";
    std::string result;
    switch (Uniform(18)) {
      case 0:
      case 1: {
        static const char* kOps[] = {"add", "subtract", "multiply", "maximum", "divide"};
        std::string op = kOps[Uniform(is_float ? 5 : 4)];
        std::string a = Pick(pool);
        std::string b = Uniform(2) ? SplatConstant(is_float) : Pick(pool);
        if (Uniform(2)) std::swap(a, b);
        result = Emit(t, absl::StrCat(op, "(", a, ", ", b, ")"));
        break;
      }
      case 2: {
        // Duplicate work for CSE.
        std::string a = Pick(pool), b = Pick(pool);
        std::string x = Emit(t, absl::StrCat("add(", a, ", ", b, ")"));
        std::string y = Emit(t, absl::StrCat("add(", b, ", ", a, ")"));
        result = Emit(t, absl::StrCat("multiply(", x, ", ", y, ")"));
        break;
      }
      case 3:
        result = Emit(t, absl::StrCat("negate(", Pick(pool), ")"));
        break;
      case 4: {
        std::string r1 = Emit(ts + "[6]", absl::StrCat("reshape(", Pick(pool), ")"));
        std::string r2 = Emit(ts + "[3,2]", absl::StrCat("reshape(", r1, ")"));
        std::string r3 = Uniform(2) ? Emit(ts + "[2,3]", absl::StrCat("transpose(", r2, "), dimensions={1,0}"))
                                    : Emit(ts + "[2,3]", absl::StrCat("reshape(", r2, ")"));
        result = r3;
        break;
      }
      case 5: {
        std::string a = Emit(ts + "[3,2]", absl::StrCat("transpose(", Pick(pool), "), dimensions={1,0}"));
        result = Emit(t, absl::StrCat("transpose(", a, "), dimensions={1,0}"));
        break;
      }
      case 6: {
        std::string zero = Emit(ts + "[]", "constant(0)");
        std::string pad = Uniform(2) ? "1_1x2_0" : "0_0x0_0";
        std::string padded_shape = pad == "1_1x2_0" ? "[4,5]" : "[2,3]";
        std::string p = Emit(ts + padded_shape, absl::StrCat("pad(", Pick(pool), ", ", zero, "), padding=", pad));
        if (pad == "1_1x2_0") {
          std::string s = Emit(ts + "[3,4]", absl::StrCat("slice(", p, "), slice={[0:3], [1:5]}"));
          result = Emit(t, absl::StrCat("slice(", s, "), slice={[1:3], [0:3]}"));
        } else {
          result = p;
        }
        break;
      }
      case 7: {
        const int k = Uniform(2);
        std::string row =
            Emit(ts + "[1,3]", absl::StrCat("slice(", Pick(pool), "), slice={[", k, ":", k + 1, "], [0:3]}"));
        std::string r = Emit(ts + "[3]", absl::StrCat("reshape(", row, ")"));
        result = Emit(t, absl::StrCat("broadcast(", r, "), dimensions={1}"));
        break;
      }
      case 8: {
        std::string b = Emit(ts + "[2,2,3]", absl::StrCat("broadcast(", Pick(pool), "), dimensions={1,2}"));
        std::string s = Emit(ts + "[1,2,3]", absl::StrCat("slice(", b, "), slice={[1:2], [0:2], [0:3]}"));
        result = Emit(t, absl::StrCat("reshape(", s, ")"));
        break;
      }
      case 9:
        result = Emit(t, absl::StrCat("reverse(", Pick(pool), "), dimensions={", Uniform(2), "}"));
        break;
      case 10: {
        std::string a = Emit(ts + "[2,1]", absl::StrCat("slice(", Pick(pool), "), slice={[0:2], [0:1]}"));
        std::string b = Emit(ts + "[2,2]", absl::StrCat("slice(", Pick(pool), "), slice={[0:2], [1:3]}"));
        result = Emit(t, absl::StrCat("concatenate(", a, ", ", b, "), dimensions={1}"));
        break;
      }
      case 11: {
        std::string a = Pick(pool), b = Pick(pool);
        std::string c = Emit("pred[2,3]", absl::StrCat("compare(", a, ", ", b, "), direction=LT"));
        std::string p = Uniform(2) ? c : Emit("pred[2,3]", absl::StrCat("broadcast(", Emit("pred[]", Uniform(2) ? "constant(true)" : "constant(false)"), "), dimensions={}"));
        result = Emit(t, absl::StrCat("select(", p, ", ", a, ", ", b, ")"));
        break;
      }
      case 12: {
        // Convert to the other type and back (exact for these small values
        // in one direction only: f32 -> s32 truncates, which is fine: the
        // pipeline must preserve whatever it computes).
        std::string other = is_float ? "s32[2,3]" : "f32[2,3]";
        std::string c = Emit(other, absl::StrCat("convert(", Pick(pool), ")"));
        result = Emit(t, absl::StrCat("convert(", c, ")"));
        if (Uniform(2)) result = Emit(t, absl::StrCat("convert(", result, ")"));
        break;
      }
      case 13: {
        std::string k = Emit(ts + "[]", absl::StrCat("constant(", Uniform(5), ")"));
        std::string k2 = Emit(ts + "[]", absl::StrCat("constant(", Uniform(5), ")"));
        std::string s = Emit(ts + "[]", absl::StrCat("multiply(", k, ", ", k2, ")"));
        std::string b = Emit(t, absl::StrCat("broadcast(", s, "), dimensions={}"));
        result = Emit(t, absl::StrCat("add(", Pick(pool), ", ", b, ")"));
        break;
      }
      case 14: {
        std::string zero = Emit(ts + "[]", "constant(0)");
        std::string r = Emit(ts + "[2]", absl::StrCat("reduce(", Pick(pool), ", ", zero, "), dimensions={1}, to_apply=",
                                                     is_float ? "add_f32" : "add_s32"));
        result = Emit(t, absl::StrCat("broadcast(", r, "), dimensions={0}"));
        break;
      }
      case 15: {
        std::string c = Emit(ts + "[3,3]", "constant({{1, 0, 2}, {0, 1, 0}, {-1, 0, 1}})");
        result = Emit(t, absl::StrCat("dot(", Pick(pool), ", ", c, "), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
        break;
      }
      default:
        if (is_float) {
          static const char* kUnary[] = {"exponential", "tanh", "abs", "sine", "floor"};
          result = Emit(t, absl::StrCat(kUnary[Uniform(5)], "(", Pick(pool), ")"));
        } else {
          result = Emit(t, absl::StrCat("abs(", Pick(pool), ")"));
        }
        break;
    }
    pool.push_back(result);
    if (!is_float && Uniform(2)) {
      f32_.push_back(Emit("f32[2,3]", absl::StrCat("convert(", result, ")")));
    }
  }

  std::mt19937 rng_;
  int next_ = 0;
  std::vector<std::string> f32_, s32_;
  std::vector<std::string>* lines_ = nullptr;
};

// Reducers every module carries (DCE removes them when unused).
constexpr char kReducers[] = R"(add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

)";

// A straight-line module, sometimes with a call.
std::string StraightLineModule(uint32_t seed) {
  Generator g(seed);
  std::string text = "HloModule random_" + std::to_string(seed) + "\n\n" + kReducers;
  std::vector<std::string> callee;
  bool with_call = g.Uniform(3) == 0;
  std::string callee_result;
  if (with_call) {
    callee = {"  c0 = f32[2,3] parameter(0)", "  c1 = s32[2,3] parameter(1)"};
    callee_result = g.Body({"c0"}, {"c1"}, 6, &callee);
    absl::StrAppend(&text, "helper {\n", absl::StrJoin(callee, "\n"), "\n  ROOT cr = f32[2,3] copy(", callee_result,
                    ")\n}\n\n");
  }
  std::vector<std::string> lines = {"  p0 = f32[2,3] parameter(0)", "  p1 = f32[2,3] parameter(1)",
                                    "  p2 = s32[2,3] parameter(2)"};
  std::vector<std::string> f32 = {"p0", "p1"};
  if (with_call) {
    lines.push_back("  called = f32[2,3] call(p1, p2), to_apply=helper");
    f32.push_back("called");
  }
  std::string result = g.Body(f32, {"p2"}, 14, &lines);
  absl::StrAppend(&text, "ENTRY main {\n", absl::StrJoin(lines, "\n"), "\n  ROOT out = f32[2,3] copy(", result,
                  ")\n}\n");
  return text;
}

// A counted loop acc = f(acc, w, i) with a random trip count 0..3; most of
// f depends only on w (invariant).
std::string LoopModule(uint32_t seed) {
  Generator g(seed);
  const int trips = g.Uniform(4);
  std::vector<std::string> body = {
      "  s = (s32[], f32[2,3], f32[2,3], s32[2,3]) parameter(0)",
      "  i = s32[] get-tuple-element(s), index=0",
      "  w = f32[2,3] get-tuple-element(s), index=1",
      "  acc = f32[2,3] get-tuple-element(s), index=2",
      "  k = s32[2,3] get-tuple-element(s), index=3",
  };
  std::string invariant = g.Body({"w"}, {"k"}, 8, &body);
  body.push_back(absl::StrCat("  acc1 = f32[2,3] add(acc, ", invariant, ")"));
  std::string mixed = g.Body({"acc1", invariant}, {"k"}, 4, &body);
  body.push_back("  one = s32[] constant(1)");
  body.push_back("  i1 = s32[] add(i, one)");
  body.push_back(absl::StrCat("  ROOT r = (s32[], f32[2,3], f32[2,3], s32[2,3]) tuple(i1, w, ", mixed, ", k)"));
  return absl::StrCat("HloModule loop_", seed, "\n\n", kReducers, R"(

cond {
  s = (s32[], f32[2,3], f32[2,3], s32[2,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant()",
                      trips, R"()
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
)",
                      absl::StrJoin(body, "\n"), R"(
}

ENTRY main {
  p0 = f32[2,3] parameter(0)
  p1 = f32[2,3] parameter(1)
  p2 = s32[2,3] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[2,3], f32[2,3], s32[2,3]) tuple(zero, p0, p1, p2)
  loop = (s32[], f32[2,3], f32[2,3], s32[2,3]) while(init), condition=cond, body=body
  ROOT out = f32[2,3] get-tuple-element(loop), index=2
}
)");
}

int64_t InstructionCount(const HloModule& module) {
  int64_t n = 0;
  for (const HloComputation* c : module.computations()) n += c->instruction_count();
  return n;
}

struct Totals {
  int64_t before = 0, after = 0, changed = 0, runs = 0;
};

// XLA_RANDOM_MODULE_SCALE=k runs k times as many seeds (for local fuzzing).
uint32_t Seeds(uint32_t base) {
  const char* scale = getenv("XLA_RANDOM_MODULE_SCALE");
  return scale != nullptr && atoi(scale) > 0 ? base * static_cast<uint32_t>(atoi(scale)) : base;
}

void CheckPipeline(const std::string& text, Totals* totals) {
  auto pipeline = CreateStandardHloPipeline();
  pipeline->set_verify_after_each_pass(true);
  testing::PassRun run = testing::RunPass(*pipeline, text);
  ASSERT_NE(run.module, nullptr) << text;
  totals->before += InstructionCount(*testing::ParseAndVerify(text));
  totals->after += InstructionCount(*run.module);
  totals->changed += run.changed;
  ++totals->runs;
  if (getenv("XLA_RANDOM_MODULE_DUMP") != nullptr) {
    std::cerr << "=== input\n" << text << "=== output\n" << run.module->ToString() << "\n";
  }
  absl::StatusOr<bool> again = pipeline->Run(run.module.get());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(*again) << "not a fixed point:\n" << run.module->ToString();
}

TEST(RandomModuleTest, StraightLineModules) {
  Totals totals;
  for (uint32_t seed = 1; seed <= Seeds(150); ++seed) {
    SCOPED_TRACE(seed);
    std::string text = StraightLineModule(seed);
    CheckPipeline(text, &totals);
    if (HasFailure()) {
      ADD_FAILURE() << "module:\n" << text;
      return;
    }
  }
  // The generator is built to give the passes work: most modules change and
  // shrink a lot.
  EXPECT_EQ(totals.changed, totals.runs);
  EXPECT_LT(totals.after * 2, totals.before) << totals.after << " of " << totals.before << " instructions left";
}

TEST(RandomModuleTest, LoopModules) {
  Totals totals;
  for (uint32_t seed = 1; seed <= Seeds(80); ++seed) {
    SCOPED_TRACE(seed);
    std::string text = LoopModule(seed);
    CheckPipeline(text, &totals);
    if (HasFailure()) {
      ADD_FAILURE() << "module:\n" << text;
      return;
    }
  }
  EXPECT_LT(totals.after * 2, totals.before) << totals.after << " of " << totals.before << " instructions left";
}

// Each pass on its own must also keep the values (the pipeline could hide a
// wrong rewrite behind a later pass that happens to undo it).
TEST(RandomModuleTest, EveryPassAloneKeepsValues) {
  for (uint32_t seed = 1; seed <= Seeds(40); ++seed) {
    SCOPED_TRACE(seed);
    for (const std::string& text : {StraightLineModule(seed), LoopModule(seed)}) {
      for (const HloPassInfo& info : RegisteredHloPasses()) {
        SCOPED_TRACE(info.name);
        std::unique_ptr<HloPass> pass = info.create();
        testing::RunPass(*pass, text);
      }
      if (HasFailure()) {
        ADD_FAILURE() << "module:\n" << text;
        return;
      }
    }
  }
}

}  // namespace
}  // namespace xla
