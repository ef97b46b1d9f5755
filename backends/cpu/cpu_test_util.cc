#include "backends/cpu/cpu_test_util.h"

#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu_test {

std::unique_ptr<Backend> CpuBackendOrDie() {
  auto backend = BackendRegistry::Create("cpu");
  EXPECT_TRUE(backend.ok()) << backend.status();
  return std::move(backend).value();
}

void CompareWithEvaluator(const std::string& text, const std::vector<Literal>& args, const ErrorSpec& tolerance) {
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(&a);
  auto expected = HloEvaluator().Evaluate(**module, arg_ptrs);
  ASSERT_TRUE(expected.ok()) << expected.status();

  auto executable = CpuBackendOrDie()->compiler()->Compile(std::move(*module), DebugOptions());
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<std::shared_ptr<const DeviceBuffer>> buffers;
  for (const Literal& a : args) {
    auto b = DeviceBuffer::FromLiteral(a);
    ASSERT_TRUE(b.ok()) << b.status();
    buffers.push_back(*b);
  }
  auto result = (*executable)->Execute(buffers);
  ASSERT_TRUE(result.ok()) << result.status();
  Literal actual = (*result)->ToLiteral();
  EXPECT_EQ(actual.shape().ToString(true), expected->shape().ToString(true));
  absl::Status cmp = literal_comparison::Near(*expected, actual, tolerance);
  EXPECT_TRUE(cmp.ok()) << cmp << "\nexpected: " << expected->ToString().substr(0, 2000)
                        << "\nactual:   " << actual.ToString().substr(0, 2000);
}

}  // namespace cpu_test
}  // namespace xla
