#include "tests/conformance/runner.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "backends/backend.h"
#include "backends/execution_control.h"
#include "backends/replicated_execution.h"
#include "xla/collectives/replica_context.h"
#include "tests/conformance/check_evaluation.h"
#include "tests/conformance/interpreter_printing.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/stablehlo/importer.h"
#include "xla/status_macros.h"

namespace xla {
namespace conformance {
namespace {

using stablehlo::CheckSpec;
using stablehlo::EntryPoint;

bool IsDtypeToken(absl::string_view t) {
  for (absl::string_view p : {"any", "float", "bfloat", "int", "uint", "bool", "complex"}) {
    if (absl::StartsWith(t, p) && (t == "any" || t == "bool" || absl::ascii_isdigit(t.back()))) return true;
  }
  return false;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The arguments `tests/interpret/api_input_arguments.mlir` is run with
// (its RUN line's --args).
std::vector<Literal> ArgumentsFor(const std::string& relative) {
  std::vector<Literal> args;
  if (absl::EndsWith(relative, "api_input_arguments.mlir")) {
    args.push_back(Literal::CreateR1<int32_t>({1, 1}));
    args.push_back(Literal::CreateR1<int32_t>({2, 2}));
  }
  return args;
}

// The outfeed records (InstrumentSite) of one entry point, in the order
// they were sent.
using Records = std::vector<Literal>;

// Compiles and runs one module as a single process; returns its outputs
// (the elements of the result tuple) and appends what it sent to the
// outfeed to `records` when the module is instrumented.
absl::StatusOr<std::vector<Literal>> RunModule(Backend* backend, std::unique_ptr<HloModule> module,
                                               const std::string& name, const std::vector<Literal>& args,
                                               const RunOptions& options, const EntryPoint& entry,
                                               Records* records) {
  RETURN_IF_ERROR(VerifyHloModule(*module));
  const bool instrumented = entry.instrumented_modules.count(module->name()) > 0;
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable,
                   backend->compiler()->Compile(std::move(module), DebugOptions()));
  const ProgramShape program = executable->program_shape();
  if (program.parameters().size() != args.size()) {
    return absl::InvalidArgumentError(absl::StrCat("@", name, " takes ", program.parameters().size(),
                                                   " arguments; the corpus calls entry points with ", args.size()));
  }
  std::vector<std::shared_ptr<const DeviceBuffer>> buffers;
  for (const Literal& arg : args) {
    ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> b, backend->transfer_manager()->TransferLiteralToDevice(arg));
    buffers.push_back(std::move(b));
  }
  ExecutionControl control(absl::Now() + absl::Seconds(options.timeout_seconds));
  collectives::ReplicaContext process;  // (0, 0) of 1 x 1: the outfeed queue
  control.set_replica_context(&process);
  ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> result, executable->Execute(buffers, &control));
  ASSIGN_OR_RETURN(Literal literal, backend->transfer_manager()->TransferLiteralFromDevice(*result));
  while (instrumented && process.outfeed().size() > 0) {
    ASSIGN_OR_RETURN(Literal record, process.outfeed().Pop("outfeed", absl::ZeroDuration()));
    records->push_back(std::move(record));
  }
  if (!literal.shape().IsTuple()) return absl::InternalError("the entry's result is not a tuple");
  return std::move(literal).DecomposeTuple();
}

// One interpreter.run_parallel: the programs of the grid run concurrently,
// one thread per process, on the operands in row-major process order; the
// processes' results are concatenated in the same order.
absl::StatusOr<std::vector<Literal>> RunStage(Backend* backend, stablehlo::ParallelStage& stage,
                                              std::vector<Literal> operands, const RunOptions& options,
                                              const EntryPoint& entry, Records* records) {
  std::vector<Literal> infeed;
  for (std::unique_ptr<HloModule>& m : stage.infeed) {
    const std::string name = m->name();
    ASSIGN_OR_RETURN(std::vector<Literal> value, RunModule(backend, std::move(m), name, {}, options, entry, records));
    if (value.size() != 1) return absl::InternalError(absl::StrCat("infeed function @", name, " returned no value"));
    infeed.push_back(std::move(value[0]));
  }
  std::map<std::string, std::unique_ptr<Executable>> executables;
  for (auto& [name, module] : stage.modules) {
    RETURN_IF_ERROR(VerifyHloModule(*module));
    ASSIGN_OR_RETURN(executables[name], backend->compiler()->Compile(std::move(module), DebugOptions()));
  }
  std::vector<ProcessRun> runs(stage.programs.size());
  size_t next = 0;
  for (size_t p = 0; p < runs.size(); ++p) {
    runs[p].executable = executables.at(stage.programs[p]).get();
    const size_t n = runs[p].executable->program_shape().parameters().size();
    if (next + n > operands.size()) return absl::InternalError("run_parallel: too few operands");
    for (size_t k = 0; k < n; ++k) runs[p].arguments.push_back(std::move(operands[next++]));
    for (const Literal& v : infeed) runs[p].infeed.push_back(v);
  }
  ReplicatedRunOptions run_options;
  run_options.num_replicas = stage.num_replicas;
  run_options.num_partitions = stage.num_partitions;
  run_options.timeout = absl::Seconds(options.timeout_seconds);
  ASSIGN_OR_RETURN(std::vector<ProcessResult> results, ExecuteReplicated(*backend, std::move(runs), run_options));
  std::vector<Literal> out;
  for (size_t p = 0; p < results.size(); ++p) {
    ProcessResult& r = results[p];
    if (!r.result.shape().IsTuple()) return absl::InternalError("a program's result is not a tuple");
    // Each process's records in turn, in process order (the reference
    // interpreter does not interleave the prints of its threads either).
    if (entry.instrumented_modules.count(stage.programs[p]) > 0) {
      for (Literal& record : r.outfeed) records->push_back(std::move(record));
    }
    for (Literal& v : std::move(r.result).DecomposeTuple()) out.push_back(std::move(v));
  }
  if (static_cast<int64_t>(out.size()) != stage.num_results) {
    return absl::InternalError(absl::StrCat("run_parallel: ", out.size(), " results, expected ", stage.num_results));
  }
  return out;
}

// Runs one entry point (and its run_parallel stages); returns its outputs
// and its outfeed records.
absl::StatusOr<std::vector<Literal>> RunEntry(Backend* backend, EntryPoint& entry, const std::vector<Literal>& args,
                                              const RunOptions& options, Records* records) {
  ASSIGN_OR_RETURN(std::vector<Literal> outputs,
                   RunModule(backend, std::move(entry.module), entry.name, args, options, entry, records));
  for (stablehlo::ParallelStage& stage : entry.stages) {
    if (static_cast<int64_t>(outputs.size()) < stage.num_operands) {
      return absl::InternalError("run_parallel: its operands are missing");
    }
    std::vector<Literal> operands(std::make_move_iterator(outputs.begin()),
                                  std::make_move_iterator(outputs.begin() + stage.num_operands));
    ASSIGN_OR_RETURN(std::vector<Literal> next,
                     RunStage(backend, stage, std::move(operands), options, entry, records));
    for (size_t k = stage.num_operands; k < outputs.size(); ++k) next.push_back(std::move(outputs[k]));
    ASSIGN_OR_RETURN(outputs,
                     RunModule(backend, std::move(stage.continuation), entry.name, next, options, entry, records));
  }
  return outputs;
}

absl::Status RunFileOrError(const std::string& root, const std::string& relative, Backend* backend,
                            const RunOptions& options, FileResult* result) {
  // An absolute `relative` (a file named on the command line) ignores root.
  ASSIGN_OR_RETURN(std::string text, ReadFile((std::filesystem::path(root) / relative).string()));
  result->run_disabled = absl::StrContains(text, "// RUN-DISABLED");
  // The expectations of printing.mlir and api_input_arguments.mlir are
  // FileCheck lines over what the interpreter prints (sign.mlir's stray
  // CHECK-LABELs are ignored: its check ops decide).
  const bool has_check_lines = absl::StrContains(text, "// CHECK:") && !absl::EndsWith(relative, "sign.mlir");
  std::string printed;
  stablehlo::ImportOptions import;
  import.split_input_file = stablehlo::WantsSplitInputFile(text);
  ASSIGN_OR_RETURN(std::vector<stablehlo::ImportedChunk> chunks, stablehlo::ImportStableHlo(text, relative, import));
  const std::vector<Literal> args = ArgumentsFor(relative);
  bool strict = true;
  for (stablehlo::ImportedChunk& chunk : chunks) {
    for (EntryPoint& entry : chunk.entries) {
      Records records;
      absl::StatusOr<std::vector<Literal>> outputs = RunEntry(backend, entry, args, options, &records);
      if (!outputs.ok()) {
        return absl::Status(outputs.status().code(),
                            absl::StrCat(entry.location, ": @", entry.name, ": ", outputs.status().message()));
      }
      auto output = [&](int64_t i) -> const Literal* {
        return i >= 0 && i < static_cast<int64_t>(outputs->size()) ? &(*outputs)[i] : nullptr;
      };
      // The records in the order they were sent: the interpreter prints
      // interpreter.print values as they run (then the entry point's
      // results); probes keep every execution's value.
      std::map<std::string, std::vector<Literal>> probes;
      std::vector<std::pair<const CheckSpec*, std::vector<Literal>>> nested_checks;
      for (Literal& record : records) {
        const Shape& shape = record.shape();
        if (!shape.IsTuple() || shape.tuple_shapes_size() < 2 || shape.tuple_shapes(0).element_type() != S32 ||
            shape.tuple_shapes(0).rank() != 0) {
          return absl::InternalError(absl::StrCat("@", entry.name, ": malformed outfeed record ", shape.ToString()));
        }
        std::vector<Literal> parts = std::move(record).DecomposeTuple();
        const int64_t site = parts[0].GetAsInt64(0);
        if (site < 0 || site >= static_cast<int64_t>(entry.sites.size())) {
          return absl::InternalError(absl::StrCat("@", entry.name, ": outfeed record of unknown site ", site));
        }
        const stablehlo::InstrumentSite& s = entry.sites[site];
        switch (s.kind) {
          case stablehlo::InstrumentSite::kPrint:
            if (has_check_lines) absl::StrAppend(&printed, s.name, " = ", PrintLikeInterpreter(parts[1]), "\n");
            break;
          case stablehlo::InstrumentSite::kProbe:
            probes[s.name].push_back(std::move(parts[1]));
            break;
          case stablehlo::InstrumentSite::kCheck:
            nested_checks.emplace_back(&s.check, std::move(parts));
            break;
        }
      }
      if (has_check_lines) {
        for (int64_t i = 0; i < entry.num_results; ++i) {
          if (const Literal* v = output(i)) absl::StrAppend(&printed, PrintLikeInterpreter(*v), "\n");
        }
      }
      // `values(i)` is the check's operand i (outputs or a record's elements).
      auto evaluate = [&](const CheckSpec& check, auto values) -> absl::Status {
        const Literal* actual = values(check.actual_output);
        const Literal* expected =
            check.expected_literal.has_value() ? &*check.expected_literal : values(check.expected_output);
        if (check.kind == CheckSpec::kSerializedEq) {
          auto it = probes.find(check.probe_id);
          if (it == probes.end() || check.probe_iter < 0 ||
              check.probe_iter >= static_cast<int64_t>(it->second.size())) {
            return absl::FailedPreconditionError(absl::StrCat(check.location, ": no value recorded for probe '",
                                                              check.probe_id, "' iteration ", check.probe_iter));
          }
          expected = &it->second[check.probe_iter];
        }
        if (actual == nullptr || expected == nullptr) {
          return absl::InternalError(absl::StrCat(check.location, ": check output missing"));
        }
        CheckVerdict verdict = EvaluateCheck(check, *actual, *expected);
        strict &= verdict.strict_pass;
        if (!verdict.pass) {
          return absl::FailedPreconditionError(absl::StrCat(check.location, ": check failed: ", verdict.message));
        }
        return absl::OkStatus();
      };
      for (const CheckSpec& check : entry.checks) RETURN_IF_ERROR(evaluate(check, output));
      for (const auto& [check, values] : nested_checks) {
        auto element = [&values = values](int64_t i) -> const Literal* {
          return i >= 0 && i < static_cast<int64_t>(values.size()) ? &values[i] : nullptr;
        };
        RETURN_IF_ERROR(evaluate(*check, element));
      }
    }
  }
  result->strict_passed = strict;
  if (has_check_lines) RETURN_IF_ERROR(MatchCheckLines(text, printed, relative));
  return absl::OkStatus();
}

}  // namespace

std::string OpFamily(const std::string& relative) {
  std::string base = std::filesystem::path(relative).stem().string();
  if (!absl::StrContains(relative, "testdata/")) return base;
  std::vector<std::string> tokens = absl::StrSplit(base, '_');
  std::vector<std::string> name;
  for (const std::string& t : tokens) {
    if (IsDtypeToken(t)) break;
    name.push_back(t);
  }
  return name.empty() ? base : absl::StrJoin(name, "_");
}

absl::StatusOr<std::vector<std::string>> ListCorpus(const std::string& root) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) return absl::NotFoundError(absl::StrCat(root, " is not a folder"));
  std::vector<std::string> files;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".mlir") {
      files.push_back(std::filesystem::relative(it->path(), root).string());
    }
  }
  if (ec) return absl::InternalError(absl::StrCat("listing ", root, ": ", ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

FileResult RunFile(const std::string& root, const std::string& relative, const RunOptions& options,
                   Backend* backend) {
  FileResult result;
  result.path = relative;
  result.family = OpFamily(relative);
  const absl::Time start = absl::Now();
  absl::Status status = RunFileOrError(root, relative, backend, options, &result);
  result.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  result.passed = status.ok();
  if (!status.ok()) {
    result.strict_passed = false;
    result.error = std::string(status.message());
  }
  return result;
}

FileResult RunFile(const std::string& root, const std::string& relative, const RunOptions& options) {
  absl::StatusOr<std::unique_ptr<Backend>> backend = BackendRegistry::Create(options.backend);
  if (!backend.ok()) {
    FileResult r;
    r.path = relative;
    r.family = OpFamily(relative);
    r.error = std::string(backend.status().message());
    return r;
  }
  return RunFile(root, relative, options, backend->get());
}

std::vector<FileResult> RunFiles(const std::string& root, const std::vector<std::string>& files,
                                 const RunOptions& options) {
  std::vector<FileResult> results(files.size());
  std::atomic<size_t> next{0};
  auto worker = [&]() {
    // One backend per thread: compilers need not be thread-safe.
    absl::StatusOr<std::unique_ptr<Backend>> backend = BackendRegistry::Create(options.backend);
    for (size_t i = next++; i < files.size(); i = next++) {
      if (!backend.ok()) {
        results[i].path = files[i];
        results[i].family = OpFamily(files[i]);
        results[i].error = std::string(backend.status().message());
        continue;
      }
      results[i] = RunFile(root, files[i], options, backend->get());
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, options.threads); ++t) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  return results;
}

}  // namespace conformance
}  // namespace xla
