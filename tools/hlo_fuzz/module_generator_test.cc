// The generator: deterministic per seed, every module parses and verifies,
// every op family and feature shows up, modules stay small, and the error
// model leaves almost every output comparable.
#include "tools/hlo_fuzz/module_generator.h"

#include <iostream>
#include <map>

#include "gtest/gtest.h"
#include "tools/hlo_fuzz/fuzz_arguments.h"
#include "tools/hlo_fuzz/precision_analysis.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"

namespace xla {
namespace hlo_fuzz {
namespace {

constexpr int kSeeds = 2000;

TEST(ModuleGeneratorTest, SameSeedSameModule) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    EXPECT_EQ(GenerateModule(seed).text, GenerateModule(seed).text) << seed;
    EXPECT_NE(GenerateModule(seed).text, GenerateModule(seed + 1).text) << seed;
  }
}

TEST(ModuleGeneratorTest, EveryModuleParsesAndVerifies) {
  int failures = 0;
  for (uint64_t seed = 1; seed <= kSeeds && failures < 5; ++seed) {
    const GeneratedModule m = GenerateModule(seed);
    auto module = ParseHloModule(m.text);
    if (!module.ok()) {
      ++failures;
      ADD_FAILURE() << "seed " << seed << ": " << module.status() << "\n" << m.text;
      continue;
    }
    absl::Status verified = VerifyHloModule(**module);
    if (!verified.ok()) {
      ++failures;
      ADD_FAILURE() << "seed " << seed << ": " << verified << "\n" << m.text;
    }
  }
}

TEST(ModuleGeneratorTest, CoversEveryOpFamilyAndFeature) {
  std::map<std::string, int> totals;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    for (const auto& [what, n] : GenerateModule(seed).counts) totals[what] += n;
  }
  const char* kRequired[] = {
      // elementwise
      "abs", "negate", "sign", "floor", "ceil", "round-nearest-even", "round-nearest-afz", "sqrt", "rsqrt",
      "exponential", "log", "tanh", "logistic", "is-finite", "not", "popcnt", "count-leading-zeros", "add",
      "subtract", "multiply", "divide", "remainder", "power", "maximum", "minimum", "and", "or", "xor",
      "shift-left", "shift-right-arithmetic", "shift-right-logical", "atan2", "compare", "select", "clamp",
      "convert",
      // data movement
      "broadcast", "reshape", "transpose", "slice", "reverse", "concatenate", "pad", "iota", "dynamic-slice",
      "dynamic-update-slice",
      // structured
      "gather", "scatter", "reduce", "reduce-window", "dot", "convolution",
      // control flow
      "while", "conditional", "call", "tuple", "get-tuple-element", "parameter", "constant",
      // features
      "layout:non-default", "dim:0", "dim:1", "multi-use", "root-tuple", "approximate", "reduce:variadic",
      "reduce:several-dims", "reduce-window:variadic", "conditional:indexed", "conditional:pred", "pad:negative",
      "pad:interior", "slice:strided", "dot:batch", "dot:outer", "dot:mixed-precision", "convolution:grouped", "select:scalar-pred",
      "clamp:scalar-bounds", "compare:totalorder", "reducer:assign", "reducer:argmax", "large-module",
      "convert:f32->s32", "convert:s32->f32"};
  std::string table;
  for (const auto& [what, n] : totals) table += what + "=" + std::to_string(n) + " ";
  std::cout << "op and feature counts over " << kSeeds << " modules: " << table << "\n";
  for (const char* what : kRequired) {
    EXPECT_GE(totals[what], 5) << what << " is (almost) never generated";
  }
  // Conversions between every kind of type: float -> int (saturation edge
  // cases), int -> float, float -> float both ways, int -> int, to pred.
  auto is_float = [](const std::string& t) { return t == "f16" || t == "bf16" || t == "f32" || t == "f64"; };
  std::map<std::string, int> kinds;
  for (const auto& [what, n] : totals) {
    if (what.rfind("convert:", 0) != 0) continue;
    const size_t arrow = what.find("->");
    const std::string from = what.substr(8, arrow - 8), to = what.substr(arrow + 2);
    const std::string kind =
        to == "pred" ? "to-pred" : std::string(is_float(from) ? "float" : "int") + "->" + (is_float(to) ? "float" : "int");
    kinds[kind] += n;
  }
  for (const char* kind : {"float->int", "int->float", "float->float", "int->int", "to-pred"}) {
    EXPECT_GE(kinds[kind], 20) << kind << " conversions are (almost) never generated";
  }
}

TEST(ModuleGeneratorTest, ModulesStaySmall) {
  int64_t total = 0, largest = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    auto module = ParseHloModule(GenerateModule(seed).text);
    ASSERT_TRUE(module.ok()) << seed;
    int64_t n = 0;
    for (const HloComputation* c : (*module)->computations()) n += c->instruction_count();
    total += n;
    largest = std::max(largest, n);
  }
  std::cout << "instructions per module: mean " << total / kSeeds << ", largest " << largest << "\n";
  EXPECT_LT(total / kSeeds, 40);
  EXPECT_LT(largest, 150);
}

// The error model must leave almost every output comparable on the
// arguments the runner uses (the generator avoids ops it cannot bound).
TEST(ModuleGeneratorTest, AlmostEveryOutputIsComparable) {
  int64_t leaves = 0, unusable = 0, exact = 0;
  for (uint64_t seed = 1; seed <= 500; ++seed) {
    auto module = ParseHloModule(GenerateModule(seed).text);
    ASSERT_TRUE(module.ok());
    const std::vector<Literal> args = MakeArguments(**module, seed);
    auto precision = AnalyzeOutputPrecision(**module, args);
    ASSERT_TRUE(precision.ok()) << precision.status();
    for (const Precision& p : *precision) {
      ++leaves;
      unusable += p.unusable;
      exact += p.exact();
    }
  }
  std::cout << leaves << " outputs: " << exact << " exact, " << unusable << " not comparable\n";
  EXPECT_LT(unusable * 20, leaves);
  EXPECT_GT(exact * 2, leaves);
}

}  // namespace
}  // namespace hlo_fuzz
}  // namespace xla
