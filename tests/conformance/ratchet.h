// The expected-failures ratchet: a checked-in list of the corpus files that
// fail on a backend, one reason per file ("path: reason" lines, `#`
// comments). A failure not on the list is a regression; a listed file that
// passes must be taken off the list. Both fail the conformance test.
#ifndef TESTS_CONFORMANCE_RATCHET_H_
#define TESTS_CONFORMANCE_RATCHET_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/conformance/runner.h"

namespace xla {
namespace conformance {

// path -> reason.
absl::StatusOr<std::map<std::string, std::string>> LoadExpectedFailures(const std::string& file);

struct RatchetReport {
  std::vector<std::string> regressions;     // "path: error"
  std::vector<std::string> newly_passing;   // listed, but passed
};

RatchetReport CompareWithExpected(const std::vector<FileResult>& results,
                                  const std::map<std::string, std::string>& expected);

// The list for `results` (their failures with their first error as the
// reason), with a header comment.
std::string FormatExpectedFailures(const std::vector<FileResult>& results, const std::string& backend);

// Per-op-family totals, the strict-mode and RUN-DISABLED summaries, and the
// final "conformance[BACKEND]: N passed, M failed" line.
std::string FormatSummary(const std::vector<FileResult>& results, const std::string& backend, double wall_seconds);

}  // namespace conformance
}  // namespace xla

#endif  // TESTS_CONFORMANCE_RATCHET_H_
