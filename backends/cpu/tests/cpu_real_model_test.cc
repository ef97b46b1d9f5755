// The real-model modules of ../shared/benchmarks/hlo (GraphSAGE: gathers and
// dots; SSD MobileNet: 47 convolutions, depthwise and pointwise, in bf16) on
// the CPU backend against the reference evaluator. Their weight constants
// are elided in the files (they parse as zeros), so each all-zero float
// constant gets random weights first, which makes every layer matter. Skips
// with a message when the folder is absent (XLA_SHARED_DIR overrides
// /work/shared).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_parser.h"
#include "absl/strings/match.h"
#include "backends/cpu/cpu_compiler.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu {
namespace {

std::string SharedDir() {
  const char* env = std::getenv("XLA_SHARED_DIR");
  return env != nullptr && env[0] != '\0' ? env : "/work/shared";
}

bool IsAllZero(const Literal& literal) {
  for (int64_t i = 0; i < ShapeUtil::ElementsIn(literal.shape()); ++i) {
    if (literal.GetAsDouble(i) != 0) return false;
  }
  return true;
}

// The module of `file` with random weights in [-scale, scale] in place of
// its elided (all-zero) float constants.
std::unique_ptr<HloModule> WithRandomWeights(const std::string& file, double scale) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  auto module = ParseHloModule(text.str());
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  std::mt19937_64 rng(1);
  int replaced = 0;
  for (HloComputation* c : (*module)->computations()) {
    for (HloInstruction* i : c->instructions()) {
      if (i->opcode() != HloOpcode::kConstant || !i->shape().IsArray() ||
          !primitive_util::IsFloatingPointType(i->shape().element_type()) ||
          ShapeUtil::ElementsIn(i->shape()) < 2 || !IsAllZero(i->literal())) {
        continue;
      }
      i->set_literal(cpu_test::RandomLiteral(i->shape(), rng, scale));
      ++replaced;
    }
  }
  EXPECT_GT(replaced, 0) << file << ": no elided weights found";
  std::printf("%s: %d weight constants randomized\n", file.c_str(), replaced);
  return std::move(*module);
}

void CompareModule(const std::string& name, double weight_scale, double input_range, const ErrorSpec& tolerance) {
  const std::string file = SharedDir() + "/benchmarks/hlo/" + name;
  if (!std::ifstream(file)) GTEST_SKIP() << file << " not found (set XLA_SHARED_DIR to the shared folder)";
  std::unique_ptr<HloModule> module = WithRandomWeights(file, weight_scale);
  ASSERT_NE(module, nullptr);
  std::mt19937_64 rng(7);
  std::vector<Literal> args;
  for (const HloInstruction* p : module->entry_computation()->parameter_instructions()) {
    args.push_back(cpu_test::RandomLiteral(p->shape(), rng, input_range, /*small=*/100));
  }
  cpu_test::CompareWithEvaluator(std::move(module), args, tolerance);
}

TEST(CpuRealModelTest, GraphSageMatchesTheEvaluator) {
  CompareModule("graphsage_tf.hlo", 0.1, 1.0, ErrorSpec{1e-5, 1e-5});
}

TEST(CpuRealModelTest, SsdMobileNetMatchesTheEvaluator) {
  // bf16 activations: the convolutions sum in another order (im2col dots,
  // fused depthwise sums), so results may round to a neighbouring bf16
  // value at any layer and the difference grows through the network.
  CompareModule("ssd_mobilenet_tf.hlo", 0.1, 1.0, ErrorSpec{5e-3, 5e-3});
}

// --xla_dump_to shows what the backend decided for a real model: the fused
// HLO (loop fusions, matmul epilogues, row groups) and the buffer
// assignment (parameter and result leaves, arena offsets, live ranges).
TEST(CpuRealModelTest, SsdMobileNetDumpShowsFusionsAndBufferAssignment) {
  const std::string file = SharedDir() + "/benchmarks/hlo/ssd_mobilenet_tf.hlo";
  if (!std::ifstream(file)) GTEST_SKIP() << file << " not found (set XLA_SHARED_DIR to the shared folder)";
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  auto module = ParseHloModule(text.str());
  ASSERT_TRUE(module.ok()) << module.status();
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/ssd_dump";
  DebugOptions options;
  options.set_xla_dump_to(dir);
  auto executable = CpuCompiler().Compile(std::move(*module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::string fused, assignment;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    std::ifstream f(entry.path());
    std::stringstream contents;
    contents << f.rdbuf();
    if (absl::EndsWith(name, ".cpu-fusion.after.hlo")) fused = contents.str();
    if (absl::EndsWith(name, ".buffer-assignment.txt")) assignment = contents.str();
  }
  ASSERT_FALSE(fused.empty()) << "no cpu-fusion dump in " << dir;
  ASSERT_FALSE(assignment.empty()) << "no buffer assignment dump in " << dir;
  auto count = [](const std::string& haystack, const std::string& needle) {
    int64_t n = 0;
    for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
    return n;
  };
  // The 1x1 convolutions become dots with their bias and ReLU6 as epilogue;
  // the depthwise ones and the activations become loop fusions.
  EXPECT_GT(count(fused, "kind=kLoop"), 20) << fused.substr(0, 2000);
  EXPECT_GT(count(fused, "kind=kOutput"), 5);
  EXPECT_GT(count(fused, "kind=kRowGroup"), 0);
  EXPECT_NE(assignment.find("parameter leaf 0"), std::string::npos);
  EXPECT_NE(assignment.find("result leaf 0"), std::string::npos);
  EXPECT_GT(count(assignment, "live ["), 50) << assignment.substr(0, 2000);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
