#include "tests/conformance/ratchet.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xla {
namespace conformance {

absl::StatusOr<std::map<std::string, std::string>> LoadExpectedFailures(const std::string& file) {
  std::ifstream in(file);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", file));
  std::map<std::string, std::string> out;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    absl::string_view l = absl::StripAsciiWhitespace(line);
    if (l.empty() || l[0] == '#') continue;
    size_t colon = l.find(": ");
    if (colon == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(file, ":", number, ": expected 'path: reason'"));
    }
    std::string path(l.substr(0, colon));
    std::string reason(absl::StripAsciiWhitespace(l.substr(colon + 2)));
    if (reason.empty()) return absl::InvalidArgumentError(absl::StrCat(file, ":", number, ": the reason is empty"));
    if (!out.emplace(path, reason).second) {
      return absl::InvalidArgumentError(absl::StrCat(file, ":", number, ": ", path, " is listed twice"));
    }
  }
  return out;
}

RatchetReport CompareWithExpected(const std::vector<FileResult>& results,
                                  const std::map<std::string, std::string>& expected) {
  RatchetReport report;
  for (const FileResult& r : results) {
    const bool listed = expected.count(r.path) > 0;
    if (!r.passed && !listed) report.regressions.push_back(absl::StrCat(r.path, ": ", r.error));
    if (r.passed && listed) report.newly_passing.push_back(r.path);
  }
  return report;
}

std::string FormatExpectedFailures(const std::vector<FileResult>& results, const std::string& backend) {
  std::string out = absl::StrCat(
      "# Conformance files expected to fail on the ", backend,
      " backend, one reason per file (the\n"
      "# first error). tests/conformance fails if a file not listed here fails, or\n"
      "# if a listed file passes (take it off the list). Regenerate with\n"
      "# tools/xla conformance --backend=", backend, " --write_expected.\n");
  for (const FileResult& r : results) {
    if (r.passed) continue;
    std::string reason = absl::StrReplaceAll(r.error, {{"\n", " "}, {"\r", " "}});
    // The location inside the file is noise in a reason; keep the message.
    if (absl::StartsWith(reason, r.path + ":")) {
      size_t at = reason.find(": ", r.path.size() + 1);
      if (at != std::string::npos) reason = reason.substr(at + 2);
    }
    if (reason.size() > 240) reason = reason.substr(0, 240) + "...";
    if (reason.empty()) reason = "failed";
    absl::StrAppend(&out, r.path, ": ", reason, "\n");
  }
  return out;
}

std::string FormatSummary(const std::vector<FileResult>& results, const std::string& backend, double wall_seconds) {
  std::map<std::string, std::pair<int, int>> families;  // passed, total
  int passed = 0, strict = 0, disabled = 0, disabled_passed = 0;
  for (const FileResult& r : results) {
    auto& f = families[r.family];
    f.second++;
    if (r.passed) {
      f.first++;
      passed++;
    }
    if (r.strict_passed) strict++;
    if (r.run_disabled) {
      disabled++;
      if (r.passed) disabled_passed++;
    }
  }
  std::string out = absl::StrFormat("%-32s %7s %7s\n", "op family", "passed", "files");
  for (const auto& [name, counts] : families) {
    absl::StrAppendFormat(&out, "%-32s %7d %7d%s\n", name, counts.first, counts.second,
                          counts.first == 0 ? "  (none pass)" : "");
  }
  absl::StrAppendFormat(&out, "strict mode (no expect_close tolerance fallback): %d passed\n", strict);
  absl::StrAppendFormat(&out, "RUN-DISABLED upstream: %d of %d pass\n", disabled_passed, disabled);
  absl::StrAppendFormat(&out, "wall time: %.1f s\n", wall_seconds);
  absl::StrAppendFormat(&out, "conformance[%s]: %d passed, %d failed\n", backend, passed,
                        static_cast<int>(results.size()) - passed);
  return out;
}

}  // namespace conformance
}  // namespace xla
