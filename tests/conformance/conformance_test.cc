// The conformance ratchet on the shared corpus: every backend's failures
// must be exactly the files of its expected-failures list. Skips (with a
// message) when the corpus folder is absent.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/conformance/ratchet.h"
#include "tests/conformance/runner.h"

namespace xla {
namespace conformance {
namespace {

std::string CorpusDir() {
  const char* env = std::getenv("XLA_SHARED_DIR");
  return std::string(env != nullptr && env[0] != '\0' ? env : "/work/shared") + "/conformance/stablehlo";
}

void RunRatchet(const std::string& backend) {
  const std::string root = CorpusDir();
  if (!std::filesystem::is_directory(root)) GTEST_SKIP() << root << " not found (set XLA_SHARED_DIR)";
  absl::StatusOr<std::vector<std::string>> files = ListCorpus(root);
  ASSERT_TRUE(files.ok()) << files.status();
  RunOptions options;
  options.backend = backend;
  options.threads = std::max(2u, std::thread::hardware_concurrency());
  const absl::Time start = absl::Now();
  std::vector<FileResult> results = RunFiles(root, *files, options);
  std::cout << FormatSummary(results, backend, absl::ToDoubleSeconds(absl::Now() - start));
  auto expected = LoadExpectedFailures("tests/conformance/expected_failures_" + backend + ".txt");
  ASSERT_TRUE(expected.ok()) << expected.status();
  RatchetReport report = CompareWithExpected(results, *expected);
  for (const std::string& r : report.regressions) ADD_FAILURE() << "regression: " << r;
  for (const std::string& p : report.newly_passing) {
    ADD_FAILURE() << "now passes, take it off expected_failures_" << backend << ".txt: " << p;
  }
}

TEST(ConformanceTest, Interpreter) { RunRatchet("interpreter"); }
TEST(ConformanceTest, Cpu) { RunRatchet("cpu"); }

}  // namespace
}  // namespace conformance
}  // namespace xla
