// hlo_fuzz: differential fuzzing of the CPU backend against the interpreter.
//
//   hlo_fuzz [--seconds=N] [--modules=M] [--seed=S] [--out_dir=DIR]
//   hlo_fuzz --file=FINDING.hlo [--shrink]
//
// Module i is generated from seed S+i and run with arguments from the same
// seed, on the CPU backend with 1 thread and with 2 or 3 (alternating), and
// on the interpreter. Mismatches and CPU compile/run failures are shrunk and
// written to DIR as .hlo files (with a `// hlo_fuzz: arg_seed=... threads=...`
// line that reproduces them). Ends with
//   hlo_fuzz: tried T modules, M mismatches, C compile failures
// and exits 1 if there was any mismatch.
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/marshalling.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "tools/hlo_fuzz/differential_runner.h"
#include "tools/hlo_fuzz/module_generator.h"
#include "tools/hlo_fuzz/shrinker.h"
#include "xla/hlo/hlo_parser.h"

ABSL_FLAG(int64_t, seconds, 0, "Stop after this many seconds (0: no time limit).");
ABSL_FLAG(int64_t, modules, 0, "Stop after this many modules (0: no limit; with neither limit, 100 modules).");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the first module; module i uses seed + i (for its arguments too).");
ABSL_FLAG(std::string, out_dir, "/tmp/hlo_fuzz", "Where shrunk findings are written (created if missing).");
ABSL_FLAG(bool, shrink, true, "Shrink findings before writing them.");
ABSL_FLAG(int64_t, shrink_seconds, 90, "Time budget for shrinking one finding.");
ABSL_FLAG(int64_t, max_shrinks, 30, "Shrink at most this many findings (later ones are written unshrunk).");
ABSL_FLAG(std::string, file, "",
          "Run this .hlo file instead of generated modules (its `// hlo_fuzz:` line gives the argument seed and "
          "thread count), print the verdict, and with --shrink write the shrunk module to --out_dir.");
ABSL_FLAG(bool, print_modules, false, "Print every generated module to stderr.");
ABSL_FLAG(std::vector<std::string>, exclude, {},
          "Op families not to generate, comma-separated (conditional, while, call, gather, scatter, reduce, "
          "reduce-window, dot, convolution, pad, ...; unary-float, unary-int, binary-float, binary-int): to look "
          "past a known bug.");

namespace xla {
namespace hlo_fuzz {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The opcodes of a module's entry (sorted): findings that shrink to the same
// set are most likely the same bug, and are written once.
std::string OpcodeSignature(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return text;
  std::set<std::string> ops;
  for (const HloInstruction* i : (*module)->entry_computation()->instructions()) {
    if (i->opcode() != HloOpcode::kParameter) ops.insert(std::string(HloOpcodeString(i->opcode())));
  }
  return absl::StrJoin(ops, ",");
}

class Fuzzer {
 public:
  // Shrinks (when asked) and writes one finding; returns the file written.
  std::string Record(const std::string& kind, uint64_t seed, const std::string& text, const RunResult& result,
                     const RunOptions& options) {
    std::string final_text = text;
    RunResult final_result = result;
    if (absl::GetFlag(FLAGS_shrink) && shrinks_ < absl::GetFlag(FLAGS_max_shrinks) &&
        (result.verdict == Verdict::kMismatch || result.verdict == Verdict::kCpuFailure)) {
      ++shrinks_;
      ShrinkOptions so;
      so.arg_seed = options.arg_seed;
      so.time_limit = absl::Seconds(absl::GetFlag(FLAGS_shrink_seconds));
      absl::StatusOr<ShrinkResult> shrunk = ShrinkModule(text, SameFinding(result, options), so);
      if (shrunk.ok()) {
        final_text = shrunk->text;
        final_result = RunDifferential(final_text, options);
        std::cerr << "hlo_fuzz: shrunk " << shrunk->instructions_before << " -> " << shrunk->instructions_after
                  << " instructions (" << shrunk->candidates << " variants tried)\n";
      } else {
        std::cerr << "hlo_fuzz: shrinking failed: " << shrunk.status() << "\n";
      }
    }
    // CPU failures are told apart by their message (without the instruction),
    // mismatches by the ops left after shrinking.
    std::string signature = kind + ":" + OpcodeSignature(final_text);
    if (result.verdict == Verdict::kCpuFailure) {
      signature = kind + ":";
      for (char c : result.detail.substr(0, result.detail.find(" (in "))) {
        if (!std::isdigit(static_cast<unsigned char>(c))) signature += c;
      }
    }
    if (!written_.insert(signature).second) {
      std::cerr << "hlo_fuzz: (same ops as an earlier " << kind << ", not written again)\n";
      return "";
    }
    const std::string dir = absl::GetFlag(FLAGS_out_dir);
    std::system(absl::StrCat("mkdir -p '", dir, "'").c_str());
    const std::string path = absl::StrCat(dir, "/", kind, "_", seed, ".hlo");
    std::ofstream out(path);
    out << "// hlo_fuzz " << kind << " (generated from seed " << seed << "): " << final_result.detail << "\n"
        << RunOptionsComment(options) << "\n"
        << final_text;
    return path;
  }

 private:
  int shrinks_ = 0;
  std::set<std::string> written_;
};

int RunFile(const std::string& path) {
  const std::string text = ReadFile(path);
  if (text.empty()) {
    std::cerr << "hlo_fuzz: cannot read '" << path << "'\n";
    return 1;
  }
  const RunOptions options = RunOptionsFromText(text);
  const RunResult result = RunDifferential(text, options);
  std::cout << "hlo_fuzz: " << path << ": " << VerdictName(result.verdict)
            << (result.detail.empty() ? "" : ": " + result.detail) << "\n";
  if (result.verdict == Verdict::kMismatch || result.verdict == Verdict::kCpuFailure) {
    if (absl::GetFlag(FLAGS_shrink)) {
      Fuzzer fuzzer;
      const std::string out = fuzzer.Record(std::string(VerdictName(result.verdict)), options.arg_seed, text,
                                            result, options);
      if (!out.empty()) std::cout << "hlo_fuzz: wrote " << out << "\n";
    }
    return 1;
  }
  return result.verdict == Verdict::kMatch ? 0 : 1;
}

int Fuzz() {
  const int64_t seconds = absl::GetFlag(FLAGS_seconds);
  int64_t max_modules = absl::GetFlag(FLAGS_modules);
  if (seconds == 0 && max_modules == 0) max_modules = 100;
  const absl::Time start = absl::Now();
  const absl::Time deadline = seconds > 0 ? start + absl::Seconds(seconds) : absl::InfiniteFuture();
  absl::Time next_report = start + absl::Seconds(10);
  std::map<Verdict, int64_t> verdicts;
  int64_t tried = 0, compared = 0, skipped = 0;
  Fuzzer fuzzer;
  for (uint64_t seed = absl::GetFlag(FLAGS_seed); absl::Now() < deadline && (max_modules == 0 || tried < max_modules);
       ++seed) {
    GeneratorOptions generator_options;
    for (const std::string& op : absl::GetFlag(FLAGS_exclude)) generator_options.excluded_ops.insert(op);
    const GeneratedModule module = GenerateModule(seed, generator_options);
    if (absl::GetFlag(FLAGS_print_modules)) std::cerr << "// seed " << seed << "\n" << module.text << "\n";
    RunOptions options;
    options.arg_seed = seed;
    options.threads = 2 + static_cast<int>(seed % 2);
    const RunResult result = RunDifferential(module.text, options);
    ++tried;
    ++verdicts[result.verdict];
    compared += result.counts.compared;
    skipped += result.counts.skipped;
    if (result.verdict != Verdict::kMatch) {
      std::cerr << "hlo_fuzz: seed " << seed << ": " << VerdictName(result.verdict) << ": "
                << result.detail.substr(0, 600) << "\n";
      const std::string path = fuzzer.Record(std::string(VerdictName(result.verdict)), seed, module.text, result,
                                             options);
      if (!path.empty()) std::cerr << "hlo_fuzz: wrote " << path << "\n";
    }
    if (absl::Now() >= next_report) {
      next_report = absl::Now() + absl::Seconds(10);
      std::cerr << "hlo_fuzz: " << tried << " modules in " << absl::ToInt64Seconds(absl::Now() - start) << " s, "
                << verdicts[Verdict::kMismatch] << " mismatches, " << verdicts[Verdict::kCpuFailure]
                << " compile failures\n";
    }
  }
  std::cout << "hlo_fuzz: outputs compared " << compared << ", not comparable (error model) " << skipped << "\n";
  if (verdicts[Verdict::kInvalidModule] > 0 || verdicts[Verdict::kInterpreterFailure] > 0) {
    std::cout << "hlo_fuzz: " << verdicts[Verdict::kInvalidModule] << " invalid modules (generator bugs), "
              << verdicts[Verdict::kInterpreterFailure] << " interpreter failures\n";
  }
  std::cout << "hlo_fuzz: tried " << tried << " modules, " << verdicts[Verdict::kMismatch] << " mismatches, "
            << verdicts[Verdict::kCpuFailure] << " compile failures\n";
  return verdicts[Verdict::kMismatch] > 0 ? 1 : 0;
}

}  // namespace
}  // namespace hlo_fuzz
}  // namespace xla

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Differential fuzzer: random HLO modules on the CPU backend (1 and 2-3 threads) against the "
      "interpreter.\nusage: hlo_fuzz [--seconds=N] [--modules=M] [--seed=S] [--out_dir=DIR]\n"
      "       hlo_fuzz --file=FINDING.hlo [--shrink]");
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() != 1) {
    std::cerr << "hlo_fuzz: unexpected argument '" << positional[1] << "' (see --help)\n";
    return 2;
  }
  if (!absl::GetFlag(FLAGS_file).empty()) return xla::hlo_fuzz::RunFile(absl::GetFlag(FLAGS_file));
  return xla::hlo_fuzz::Fuzz();
}
