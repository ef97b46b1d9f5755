#include "tools/hlo_fuzz/differential_runner.h"

#include <functional>
#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "backends/backend.h"
#include "tools/hlo_fuzz/fuzz_arguments.h"
#include "tools/hlo_fuzz/precision_analysis.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace hlo_fuzz {
namespace {

// A run longer than this is stopped (a miscompiled loop must not hang the
// fuzzer); it then counts as a CPU failure.
constexpr absl::Duration kRunDeadline = absl::Seconds(20);

Backend& GetBackend(const std::string& name) {
  // One instance per backend for the process: creating them is not free.
  static auto* cpu = BackendRegistry::Create("cpu")->release();
  static auto* interpreter = BackendRegistry::Create("interpreter")->release();
  return name == "cpu" ? *cpu : *interpreter;
}

// Aliases every result leaf to the first parameter left of its shape and
// layout (input_output_alias), unless the module has aliases of its own:
// a run donating every argument then tests buffer assignment's in-place
// results on every generated program.
void AliasResultsToParameters(HloModule* module) {
  if (!module->input_output_aliases().empty()) return;
  const HloComputation& entry = *module->entry_computation();
  std::vector<bool> taken(entry.num_parameters(), false);
  std::vector<int64_t> index;
  std::function<void(const Shape&)> visit = [&](const Shape& shape) {
    if (shape.IsTuple()) {
      for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
        index.push_back(i);
        visit(shape.tuple_shapes(i));
        index.pop_back();
      }
      return;
    }
    for (int64_t p = 0; p < entry.num_parameters(); ++p) {
      const Shape& param = entry.parameter_instruction(p)->shape();
      if (taken[p] || !param.IsArray() || !param.Compatible(shape) || !ShapeUtil::SameLayouts(param, shape)) continue;
      taken[p] = true;
      module->mutable_input_output_aliases().push_back({index, p, {}, false});
      return;
    }
  };
  visit(entry.root_instruction()->shape());
}

absl::StatusOr<Literal> CompileAndRun(Backend& backend, const HloModule& module, const std::vector<Literal>& args,
                                      const DebugOptions& options, bool* compile_failed, bool donate = false) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> copy, module.Clone());
  if (donate) AliasResultsToParameters(copy.get());
  absl::StatusOr<std::unique_ptr<Executable>> executable = backend.compiler()->Compile(std::move(copy), options);
  if (!executable.ok()) {
    *compile_failed = true;
    return executable.status();
  }
  std::vector<std::shared_ptr<const DeviceBuffer>> buffers;
  std::vector<std::shared_ptr<DeviceBuffer>> donated;
  for (const Literal& a : args) {
    ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> b, DeviceBuffer::FromLiteral(a));
    if (donate) donated.push_back(b);
    buffers.push_back(std::move(b));
  }
  ExecutionControl control(absl::Now() + kRunDeadline);
  ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> result,
                   (*executable)->ExecuteWithDonations(buffers, donated, &control));
  return result->ToLiteral();
}

}  // namespace

absl::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kMatch: return "match";
    case Verdict::kMismatch: return "mismatch";
    case Verdict::kCpuFailure: return "cpu-failure";
    case Verdict::kInvalidModule: return "invalid-module";
    case Verdict::kInterpreterFailure: return "interpreter-failure";
  }
  return "?";
}

RunResult RunDifferential(absl::string_view text, const RunOptions& options) {
  RunResult result;
  auto fail = [&](Verdict v, std::string detail, int threads = 0) {
    result.verdict = v;
    result.detail = std::move(detail);
    result.cpu_threads = threads;
    return result;
  };
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return fail(Verdict::kInvalidModule, absl::StrCat("parse: ", module.status().message()));
  if (absl::Status s = VerifyHloModule(**module); !s.ok()) {
    return fail(Verdict::kInvalidModule, absl::StrCat("verify: ", s.message()));
  }
  std::vector<Literal> args;
  if (options.argument_texts.empty()) {
    args = MakeArguments(**module, options.arg_seed);
  } else {
    const auto& params = (*module)->entry_computation()->parameter_instructions();
    if (params.size() != options.argument_texts.size()) {
      return fail(Verdict::kInvalidModule, absl::StrCat(options.argument_texts.size(), " arguments given for ",
                                                       params.size(), " parameters"));
    }
    for (size_t i = 0; i < params.size(); ++i) {
      absl::StatusOr<Literal> arg = Literal::Parse(options.argument_texts[i]);
      if (!arg.ok() || !arg->shape().Compatible(params[i]->shape())) {
        return fail(Verdict::kInvalidModule,
                    absl::StrCat("argument ", i, " '", options.argument_texts[i], "' does not fit parameter ",
                                 params[i]->shape().ToString(true)));
      }
      args.push_back(arg->RelayoutTo(params[i]->shape()));
    }
  }

  bool compile_failed = false;
  absl::StatusOr<Literal> expected =
      CompileAndRun(GetBackend("interpreter"), **module, args, DebugOptions(), &compile_failed);
  if (!expected.ok()) return fail(Verdict::kInterpreterFailure, std::string(expected.status().ToString()));
  absl::StatusOr<std::vector<Precision>> leaves = AnalyzeOutputPrecision(**module, args);
  if (!leaves.ok()) return fail(Verdict::kInterpreterFailure, std::string(leaves.status().ToString()));

  std::vector<int> thread_counts;
  if (options.single_thread) thread_counts.push_back(1);
  thread_counts.push_back(options.threads);
  for (int threads : thread_counts) {
    DebugOptions debug;
    debug.set_xla_cpu_threads(threads);
    compile_failed = false;
    // The last run aliases the results to the parameters and donates every
    // argument (results written in place where buffer assignment allows).
    const bool donate = threads == thread_counts.back();
    absl::StatusOr<Literal> actual =
        CompileAndRun(GetBackend("cpu"), **module, args, debug, &compile_failed, donate);
    const std::string run = absl::StrCat("threads=", threads, donate ? ", arguments donated" : "");
    if (!actual.ok()) {
      return fail(Verdict::kCpuFailure,
                  absl::StrCat(compile_failed ? "compile" : "run", " (", run, "): ", actual.status().ToString()),
                  threads);
    }
    result.counts = ComparisonCounts();
    absl::Status cmp = CompareOutputs(*expected, *actual, *leaves, &result.counts);
    if (!cmp.ok()) return fail(Verdict::kMismatch, absl::StrCat(run, ": ", cmp.message()), threads);
  }
  return result;
}

RunOptions RunOptionsFromText(absl::string_view text, RunOptions defaults) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, "// hlo_fuzz:")) continue;
    line = absl::StripLeadingAsciiWhitespace(line);
    if (absl::ConsumePrefix(&line, "arg=")) {
      defaults.argument_texts.push_back(std::string(line));
      continue;
    }
    for (absl::string_view field : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      uint64_t value;
      if (absl::ConsumePrefix(&field, "arg_seed=") && absl::SimpleAtoi(field, &value)) defaults.arg_seed = value;
      if (absl::ConsumePrefix(&field, "threads=") && absl::SimpleAtoi(field, &value)) {
        defaults.threads = static_cast<int>(value);
      }
    }
  }
  return defaults;
}

std::string RunOptionsComment(const RunOptions& options) {
  return absl::StrCat("// hlo_fuzz: arg_seed=", options.arg_seed, " threads=", options.threads);
}

}  // namespace hlo_fuzz
}  // namespace xla
