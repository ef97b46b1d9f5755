// Values printed as the StableHLO reference interpreter prints them
// (`stablehlo-translate --interpret`), so a corpus file whose expectations
// are `// CHECK:` lines can be matched against our results with FileCheck:
//
//   tensor<2x2xi8> {        tensor<ui8> {1}        tensor<0xui8> {
//     [                                              []
//       [1, 2],                                    }
//       [3, 4]
//     ]
//   }
//
// Integers in decimal, floats as %e (1.000000e+00), pred as true/false,
// complex as [re, im].
#ifndef TESTS_CONFORMANCE_INTERPRETER_PRINTING_H_
#define TESTS_CONFORMANCE_INTERPRETER_PRINTING_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/literal.h"

namespace xla {
namespace conformance {

// `tensor<2xi32> {\n  [3, 3]\n}` (no trailing newline).
std::string PrintLikeInterpreter(const Literal& literal);

// Matches `output` against the `// CHECK:` / `CHECK-NEXT:` lines of
// `check_file` (FileCheck's library, prefix CHECK, as the corpus's RUN lines
// use it); the error holds FileCheck's diagnostics.
absl::Status MatchCheckLines(absl::string_view check_file, absl::string_view output, const std::string& filename);

}  // namespace conformance
}  // namespace xla

#endif  // TESTS_CONFORMANCE_INTERPRETER_PRINTING_H_
