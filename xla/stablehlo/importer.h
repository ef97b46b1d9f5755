// StableHLO MLIR text -> HloModules. A file is one module, or several
// independent `// -----` chunks; each chunk has entry points (`@main` alone
// when defined, else every function in textual order), each imported as
// its own HloModule whose entry takes the function's arguments.
//
// Check ops (`check.*`, `stablehlo.custom_call @check.*`) at the top level
// of an entry function become extra outputs: the entry computation returns
// tuple(results..., check operands...) and `checks` says how to compare
// them (see tests/conformance). Ops that run any number of times (every
// `interpreter.print` and `interpreter.probe`, and checks nested in control
// flow, callees or run_parallel programs) send one outfeed record per
// execution instead (InstrumentSite).
//
// Errors are "file:line:col: message"; the importer never crashes on bad
// input.
#ifndef XLA_STABLEHLO_IMPORTER_H_
#define XLA_STABLEHLO_IMPORTER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/hlo_module.h"
#include "xla/literal.h"

namespace xla {
namespace stablehlo {

struct CheckSpec {
  enum Kind { kEq, kAlmostEq, kClose, kSerializedEq };
  Kind kind = kEq;
  // `stablehlo.custom_call @check.*` (the only form with expect_close's
  // absolute-tolerance fallback).
  bool custom_call_form = false;
  double tolerance = 1e-4;   // kAlmostEq
  int64_t max_ulp = 1;       // kClose
  int64_t min_ulp = 0;       // kClose
  std::string probe_id;      // kSerializedEq
  int64_t probe_iter = 0;    // kSerializedEq
  // Output index (in the entry's result tuple) of the actual value, and of
  // the expected value when it is computed (else `expected_literal`).
  int64_t actual_output = -1;
  int64_t expected_output = -1;
  std::optional<Literal> expected_literal;
  std::string location;  // "file:line:col" of the check op
};

// A print, probe or nested check site. Each execution of it sends the
// outfeed record tuple(s32[] site, operands...), where `site` indexes
// EntryPoint::sites; the records of one computation are ordered by a token
// chain (program order). A module with records may not also use
// stablehlo.outfeed (the two would share the queue): the importer rejects
// that.
struct InstrumentSite {
  enum Kind { kPrint, kProbe, kCheck };
  Kind kind = kPrint;
  // kPrint: the operand as written ("%0", printed as "%0 = <value>", as
  // the reference interpreter does); kProbe: the probe_id.
  std::string name;
  // kCheck: actual_output/expected_output index the record's elements.
  CheckSpec check;
};

// `interpreter.run_parallel`: a grid of num_replicas x num_partitions
// processes, each running one function of the module as its own program,
// concurrently. The module before the stage returns (the run's operands,
// then the values the rest of the entry function uses); each process takes
// the next operands in row-major process order (as many as its program has
// parameters); the results of all processes, concatenated in the same
// order, and those carried values are the parameters of `continuation`,
// the rest of the entry function.
struct ParallelStage {
  std::string location;
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  std::vector<std::string> programs;  // function per process, row-major
  // Each function as a module whose entry returns a tuple of its results.
  std::map<std::string, std::unique_ptr<HloModule>> modules;
  // `infeed = [@f, ...]`: modules returning one value each (a one-element
  // tuple), queued in order on every process's infeed.
  std::vector<std::unique_ptr<HloModule>> infeed;
  int64_t num_operands = 0;
  int64_t num_results = 0;
  std::unique_ptr<HloModule> continuation;
};

struct EntryPoint {
  std::string name;
  std::string location;
  // The entry function, or with run_parallel stages its part before the
  // first stage (the last stage's continuation then returns the outputs).
  std::unique_ptr<HloModule> module;
  std::vector<ParallelStage> stages;
  // The function's own results come first in the entry's result tuple.
  int64_t num_results = 0;
  std::vector<CheckSpec> checks;
  std::vector<InstrumentSite> sites;
  // The modules (by HloModule name: the entry, run_parallel programs and
  // infeed functions, continuations) whose outfeeds are all records.
  std::set<std::string> instrumented_modules;
};

struct ImportedChunk {
  std::string location;  // where the chunk starts
  std::vector<EntryPoint> entries;
};

struct ImportOptions {
  // Split at `// -----` lines (the RUN line's -split-input-file).
  bool split_input_file = false;
  // Check ops become outputs (true) or are dropped (false: the entry
  // returns exactly the function's results, as xla_run wants).
  bool checks_as_outputs = true;
};

// Imports every chunk; the first error fails the whole file.
absl::StatusOr<std::vector<ImportedChunk>> ImportStableHlo(absl::string_view text, const std::string& filename,
                                                           const ImportOptions& options = {});

// The `// -----` chunks of `text` as [begin, end) offsets (one chunk when
// the file is not split).
std::vector<std::pair<size_t, size_t>> SplitInputFile(absl::string_view text);

// True if a `// RUN:` line of `text` passes -split-input-file.
bool WantsSplitInputFile(absl::string_view text);

}  // namespace stablehlo
}  // namespace xla

#endif  // XLA_STABLEHLO_IMPORTER_H_
