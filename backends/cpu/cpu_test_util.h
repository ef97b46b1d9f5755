// Shared by the CPU backend's differential tests: run one module on the
// CPU backend and on the reference evaluator, and compare the results.
#ifndef BACKENDS_CPU_CPU_TEST_UTIL_H_
#define BACKENDS_CPU_CPU_TEST_UTIL_H_

#include <memory>
#include <vector>

#include "backends/backend.h"
#include "xla/literal.h"
#include "xla/literal_comparison.h"

namespace xla {
namespace cpu_test {

std::unique_ptr<Backend> CpuBackendOrDie();

// Evaluates `text` with HloEvaluator and runs it on the CPU backend with the
// same arguments, then checks the result shapes (with layouts) are equal and
// the values are within `tolerance` (gtest failures name the module).
void CompareWithEvaluator(const std::string& text, const std::vector<Literal>& args, const ErrorSpec& tolerance);

}  // namespace cpu_test
}  // namespace xla

#endif  // BACKENDS_CPU_CPU_TEST_UTIL_H_
