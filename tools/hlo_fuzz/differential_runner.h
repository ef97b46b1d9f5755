// Runs one HLO text module on the reference interpreter and on the CPU
// backend (with 1 worker thread and with N), on the same deterministic
// arguments (fuzz_arguments.h), and compares the results with the error
// model's per-output tolerances (precision_analysis.h, output_comparison.h).
#ifndef TOOLS_HLO_FUZZ_DIFFERENTIAL_RUNNER_H_
#define TOOLS_HLO_FUZZ_DIFFERENTIAL_RUNNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tools/hlo_fuzz/output_comparison.h"

namespace xla {
namespace hlo_fuzz {

enum class Verdict {
  kMatch,               // every compared output agreed
  kMismatch,            // the CPU backend computed other values (or shape/layout)
  kCpuFailure,          // the CPU backend failed to compile or run it (e.g. Unimplemented)
  kInvalidModule,       // the parser or verifier rejected it (a generator bug if generated)
  kInterpreterFailure,  // the interpreter could not run it (nothing to compare with)
};

absl::string_view VerdictName(Verdict verdict);

struct RunOptions {
  uint64_t arg_seed = 1;
  int threads = 2;         // the multi-threaded run's xla_cpu_threads
  bool single_thread = true;  // also run (first) with xla_cpu_threads=1
  // Literal texts ("f32[2] {1, nan}") of every argument, instead of ones
  // made from arg_seed (a regression can state the values it needs).
  std::vector<std::string> argument_texts;
};

struct RunResult {
  Verdict verdict = Verdict::kMatch;
  std::string detail;   // the first difference or the error, with the thread count
  int cpu_threads = 0;  // the run that showed it
  ComparisonCounts counts;  // of the last comparison made
};

RunResult RunDifferential(absl::string_view text, const RunOptions& options);

// A saved module's run options, from comment lines of its text:
//   // hlo_fuzz: arg_seed=S threads=N
//   // hlo_fuzz: arg=f32[2] {1, nan}      (one line per argument, in order)
// (fields missing there keep their `defaults`).
RunOptions RunOptionsFromText(absl::string_view text, RunOptions defaults = RunOptions());
// That comment line for `options`.
std::string RunOptionsComment(const RunOptions& options);

}  // namespace hlo_fuzz
}  // namespace xla

#endif  // TOOLS_HLO_FUZZ_DIFFERENTIAL_RUNNER_H_
