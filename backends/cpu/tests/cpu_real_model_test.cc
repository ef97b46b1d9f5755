// The real-model modules of ../shared/benchmarks/hlo (GraphSAGE: gathers and
// dots; SSD MobileNet: 47 convolutions, depthwise and pointwise, in bf16) on
// the CPU backend against the reference evaluator. Their weight constants
// are elided in the files (they parse as zeros), so each all-zero float
// constant gets random weights first, which makes every layer matter. Skips
// with a message when the folder is absent (XLA_SHARED_DIR overrides
// /work/shared).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_parser.h"
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

}  // namespace
}  // namespace cpu
}  // namespace xla
