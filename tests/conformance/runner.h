// The conformance runner: imports a corpus file, compiles and runs every
// entry point of every chunk on a backend, and evaluates its checks
// (../shared/conformance/README.md). A file passes only if every chunk
// imports, every entry point runs, and every check holds.
#ifndef TESTS_CONFORMANCE_RUNNER_H_
#define TESTS_CONFORMANCE_RUNNER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace xla {
namespace conformance {

struct FileResult {
  std::string path;      // relative to the corpus root
  std::string family;    // op family (testdata: the primitive; interpret: the file)
  bool passed = false;
  bool strict_passed = false;  // without expect_close's tolerance fallback
  bool run_disabled = false;   // has a RUN-DISABLED line upstream
  std::string error;           // the first error or failing check
  double seconds = 0;
};

struct RunOptions {
  std::string backend = "interpreter";
  int threads = 2;
  // A run taking longer fails (runaway loops).
  double timeout_seconds = 60;
};

// Every *.mlir under `root` (recursively), sorted, relative to `root`.
absl::StatusOr<std::vector<std::string>> ListCorpus(const std::string& root);

// Runs one file (`relative` under `root`).
FileResult RunFile(const std::string& root, const std::string& relative, const RunOptions& options);

// Runs all `files` on `options.threads` threads; results in `files` order.
std::vector<FileResult> RunFiles(const std::string& root, const std::vector<std::string>& files,
                                 const RunOptions& options);

// testdata/scatter_add_float32_...mlir -> "scatter_add";
// tests/interpret/abs.mlir -> "abs".
std::string OpFamily(const std::string& relative);

}  // namespace conformance
}  // namespace xla

#endif  // TESTS_CONFORMANCE_RUNNER_H_
