// conformance: runs a StableHLO conformance corpus (a folder laid out like
// ../shared/conformance/stablehlo) on a backend and prints per-op-family
// totals and "conformance[BACKEND]: N passed, M failed".
//
//   conformance [--backend=interpreter] [--threads=N] [--failures_out=FILE]
//               [--expected_failures=FILE [--write_expected]] [DIR|FILE.mlir...]
//
// With --expected_failures the exit status is 1 on a regression or on a
// listed file that now passes; --write_expected rewrites the list instead.
#include <fstream>
#include <iostream>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "tests/conformance/ratchet.h"
#include "tests/conformance/runner.h"

ABSL_FLAG(std::string, backend, "interpreter", "Backend to run on (interpreter, cpu).");
ABSL_FLAG(int, threads, 0, "Files run in parallel (0: the hardware threads).");
ABSL_FLAG(std::string, failures_out, "", "Write every failing file with its first error here.");
ABSL_FLAG(std::string, expected_failures, "", "The ratchet list to compare with (or to write).");
ABSL_FLAG(bool, write_expected, false,
          "Rewrite --expected_failures (default tests/conformance/expected_failures_BACKEND.txt) from this "
          "run's failures.");
ABSL_FLAG(double, timeout_seconds, 60, "A run taking longer fails.");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Runs StableHLO conformance files; see tests/conformance/README.md.");
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  std::string root;
  std::vector<std::string> files;
  if (positional.size() < 2) {
    const char* env = std::getenv("XLA_SHARED_DIR");
    root = std::string(env != nullptr && env[0] != '\0' ? env : "/work/shared") + "/conformance/stablehlo";
  } else if (positional.size() == 2 && !absl::EndsWith(positional[1], ".mlir")) {
    root = positional[1];
  } else {
    // Single files: relative to the current folder.
    root = ".";
    for (size_t i = 1; i < positional.size(); ++i) files.push_back(positional[i]);
  }
  if (files.empty()) {
    absl::StatusOr<std::vector<std::string>> listed = xla::conformance::ListCorpus(root);
    if (!listed.ok()) {
      std::cerr << "conformance: " << listed.status().message() << "\n";
      return 1;
    }
    files = *listed;
  }
  xla::conformance::RunOptions options;
  options.backend = absl::GetFlag(FLAGS_backend);
  options.threads = absl::GetFlag(FLAGS_threads);
  if (options.threads <= 0) options.threads = std::max(1u, std::thread::hardware_concurrency());
  options.timeout_seconds = absl::GetFlag(FLAGS_timeout_seconds);
  const absl::Time start = absl::Now();
  std::vector<xla::conformance::FileResult> results = xla::conformance::RunFiles(root, files, options);
  const double wall = absl::ToDoubleSeconds(absl::Now() - start);
  std::cout << xla::conformance::FormatSummary(results, options.backend, wall);
  if (!absl::GetFlag(FLAGS_failures_out).empty()) {
    std::ofstream out(absl::GetFlag(FLAGS_failures_out));
    for (const auto& r : results) {
      if (!r.passed) out << r.path << ": " << r.error << "\n";
    }
  }
  std::string expected_file = absl::GetFlag(FLAGS_expected_failures);
  if (expected_file.empty() && absl::GetFlag(FLAGS_write_expected)) {
    expected_file = "tests/conformance/expected_failures_" + options.backend + ".txt";
  }
  if (expected_file.empty()) return 0;
  if (absl::GetFlag(FLAGS_write_expected)) {
    std::ofstream out(expected_file);
    out << xla::conformance::FormatExpectedFailures(results, options.backend);
    std::cout << "conformance: wrote " << expected_file << "\n";
    return 0;
  }
  auto expected = xla::conformance::LoadExpectedFailures(expected_file);
  if (!expected.ok()) {
    std::cerr << "conformance: " << expected.status().message() << "\n";
    return 1;
  }
  xla::conformance::RatchetReport report = xla::conformance::CompareWithExpected(results, *expected);
  for (const auto& r : report.regressions) std::cout << "REGRESSION " << r << "\n";
  for (const auto& p : report.newly_passing) std::cout << "NOW PASSES (take it off the list) " << p << "\n";
  return report.regressions.empty() && report.newly_passing.empty() ? 0 : 1;
}
