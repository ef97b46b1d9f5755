// The conformance corpus's check semantics (../shared/conformance/README.md
// section 3): bit-exact equality, almost-equal with a relative tolerance,
// ULP closeness with the custom_call form's absolute-tolerance fallback,
// and the non-finite rule. Complex values compare their real and imaginary
// parts separately.
#ifndef TESTS_CONFORMANCE_CHECK_EVALUATION_H_
#define TESTS_CONFORMANCE_CHECK_EVALUATION_H_

#include <string>

#include "xla/literal.h"
#include "xla/stablehlo/importer.h"

namespace xla {
namespace conformance {

struct CheckVerdict {
  bool pass = false;
  // The verdict without expect_close's tolerance fallback (diagnostic).
  bool strict_pass = false;
  std::string message;  // why it failed: the first failing element
};

CheckVerdict EvaluateCheck(const stablehlo::CheckSpec& check, const Literal& actual, const Literal& expected);

// ULP distance of two floats of `type` given as bit patterns (-0 and +0
// are one value).
int64_t UlpDistance(uint64_t a_bits, uint64_t e_bits, int bit_width);

}  // namespace conformance
}  // namespace xla

#endif  // TESTS_CONFORMANCE_CHECK_EVALUATION_H_
