// The runner's outfeed records (prints, probes, nested checks) end to end
// on both backends, on small files written for the test.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/conformance/runner.h"

namespace xla {
namespace conformance {
namespace {

class RunnerTest : public ::testing::TestWithParam<std::string> {
 protected:
  FileResult RunText(const std::string& name, const std::string& text) {
    const char* tmp = std::getenv("TEST_TMPDIR");
    const std::string root = tmp != nullptr ? tmp : "/tmp";
    std::ofstream(std::filesystem::path(root) / name) << text;
    RunOptions options;
    options.backend = GetParam();
    options.threads = 1;
    return RunFile(root, name, options);
  }
};

// A loop whose body probes, prints and checks on every iteration; a callee
// prints too. The CHECK lines are the prints in execution order, then the
// result.
constexpr char kLoop[] = R"(// RUN: stablehlo-translate --interpret %s | FileCheck %s
func.func @twice(%x: tensor<i64>) -> tensor<i64> {
  %y = stablehlo.add %x, %x : tensor<i64>
  interpreter.print %y : tensor<i64>
  func.return %y : tensor<i64>
}
func.func @main() -> tensor<i64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %two = stablehlo.constant dense<2> : tensor<i64>
  %i = stablehlo.while(%arg0 = %zero) : tensor<i64>
  cond {
    %c = stablehlo.compare LT, %arg0, %two : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %arg0, %one : tensor<i64>
    %p = interpreter.probe %n, probe_id = "n" : tensor<i64>
    interpreter.print %p : tensor<i64>
    check.expect_eq_const %p, dense<EXPECTED> : tensor<i64>
    stablehlo.return %p : tensor<i64>
  }
  %t = func.call @twice(%i) : (tensor<i64>) -> tensor<i64>
  check.expect_serialized_eq %two, probe_id = "n", iter = ITER : tensor<i64>
  func.return %t : tensor<i64>
}
// CHECK: %p = tensor<i64> {1}
// CHECK-NEXT: %p = tensor<i64> {2}
// CHECK-NEXT: %y = tensor<i64> {4}
// CHECK-NEXT: tensor<i64> {4}
)";

std::string Loop(const std::string& expected, const std::string& iter) {
  std::string text = kLoop;
  text.replace(text.find("EXPECTED"), 8, expected);
  text.replace(text.find("ITER"), 4, iter);
  return text;
}

TEST_P(RunnerTest, PrintsProbesAndNestedChecksInLoopsAndCallees) {
  // The nested check holds on both iterations only if it compares each
  // iteration's own value: use a check that every value satisfies.
  std::string text = Loop("0", "1");
  text.replace(text.find("check.expect_eq_const %p, dense<0> : tensor<i64>"),
               std::string("check.expect_eq_const %p, dense<0> : tensor<i64>").size(),
               "check.expect_eq %p, %n : tensor<i64>");
  FileResult r = RunText("loop_ok.mlir", text);
  EXPECT_TRUE(r.passed) << r.error;
}

TEST_P(RunnerTest, ANestedCheckFailsOnTheIterationThatBreaksIt) {
  FileResult r = RunText("loop_check.mlir", Loop("1", "1"));
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.error.find("loop_check.mlir:19:5: check failed"), std::string::npos) << r.error;
}

TEST_P(RunnerTest, AProbeIterationNeverReachedIsAnError) {
  FileResult wrong = RunText("loop_iter0.mlir", Loop("1", "0"));  // iteration 0 recorded 1, not 2
  EXPECT_FALSE(wrong.passed);
  FileResult missing = RunText("loop_iter5.mlir", Loop("1", "5"));
  EXPECT_FALSE(missing.passed);
  EXPECT_NE(missing.error.find("no value recorded for probe 'n' iteration 5"), std::string::npos) << missing.error;
}

INSTANTIATE_TEST_SUITE_P(Backends, RunnerTest, ::testing::Values("interpreter", "cpu"));

}  // namespace
}  // namespace conformance
}  // namespace xla
