// xla_run: runs an HLO text module on a backend and prints the result as
// literal text on stdout (and nothing else there; messages go to stderr).
//
//   xla_run [--backend=NAME] [--arg=LITERAL]... FILE.hlo|FILE.mlir
//
// A .mlir file is StableHLO text, imported by xla/stablehlo; it must have
// one entry point (`@main`, or its only function); check ops are dropped.
//
// Arguments not given are generated deterministically from the parameter
// shapes. Bad input exits with status 1 and a message naming the problem.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/client_library.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"
#include "xla/literal_comparison.h"
#include "xla/status_macros.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/single_module.h"

ABSL_FLAG(std::string, backend, "", "Backend to run on (default: the service's default backend).");
ABSL_FLAG(std::string, compare, "",
          "Also run on this backend (e.g. interpreter) with the same arguments and print the largest "
          "absolute difference to stderr; exits 1 if the results' shapes differ.");

ABSL_FLAG(int, repeat, 0,
          "Run the compiled executable this many more times (arguments already on the service) and print "
          "the best and median execution time to stderr; for profiling, not a benchmark figure.");
ABSL_FLAG(bool, print_result, true, "Print the result literal to stdout.");
ABSL_FLAG(int, xla_cpu_threads, 0,
          "Worker threads of the CPU backend (0: the cores in this process's CPU affinity mask).");
ABSL_FLAG(std::string, xla_cpu_target, "host",
          "CPU the CPU backend compiles for: host, an LLVM CPU name (haswell, skylake-avx512, znver4, ...), "
          "optionally followed by ':' and feature adjustments (haswell:-fma). Code for a CPU whose features "
          "this host lacks compiles (see --xla_dump_to) but does not run.");
ABSL_FLAG(int, xla_backend_optimization_level, 3,
          "How much the backend optimizes the generated code: 0 (fastest compile, for debugging) to 3.");
ABSL_FLAG(std::string, xla_cache_dir, "",
          "Directory of saved executables: a program compiled before (by this build, for this CPU) is loaded "
          "from it instead of compiled, and new ones are saved there. Empty: none.");
ABSL_FLAG(std::string, xla_dump_to, "",
          "Directory to dump the compilation into: HLO before/after each pass, buffer assignment, LLVM IR "
          "before/after optimization, LLVM's time per pass (NAME.llvm-pass-timings.txt), the compile's phases "
          "(NAME.compile-phases.txt), assembly.");

namespace xla {
namespace {

// Deterministic, varied values: small integers, quarter steps for floats,
// alternating predicates. Same shape, same values, on every run.
Literal GenerateArgument(const Shape& shape) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) elements.push_back(GenerateArgument(s));
    return Literal::MakeTuple(std::move(elements));
  }
  Literal literal(shape);
  if (!shape.IsArray()) return literal;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    PrimitiveType t = shape.element_type();
    double v;
    if (t == PRED) {
      v = i % 2;
    } else if (primitive_util::IsUnsignedIntegralType(t)) {
      v = i % 11;
    } else if (primitive_util::IsSignedIntegralType(t)) {
      v = i % 11 - 5;
    } else {
      v = (i % 17) * 0.25 - 2.0;
    }
    literal.SetFromDouble(i, v);
  }
  return literal;
}

// Compiles `text` on `backend` and runs it on `args`.
absl::StatusOr<Literal> RunOn(const std::string& backend, const std::string& text, const std::vector<Literal>& args) {
  ServiceOptions service_options;
  service_options.backend = backend;
  service_options.cache_dir = absl::GetFlag(FLAGS_xla_cache_dir);
  ASSIGN_OR_RETURN(LocalClient * client, ClientLibrary::GetOrCreateLocalClient(service_options));
  ExecutionOptions options;
  options.mutable_debug_options()->set_xla_cpu_threads(absl::GetFlag(FLAGS_xla_cpu_threads));
  options.mutable_debug_options()->set_xla_dump_to(absl::GetFlag(FLAGS_xla_dump_to));
  options.mutable_debug_options()->set_xla_cpu_target(absl::GetFlag(FLAGS_xla_cpu_target));
  options.mutable_debug_options()->set_xla_backend_optimization_level(
      absl::GetFlag(FLAGS_xla_backend_optimization_level));
  ASSIGN_OR_RETURN(ExecutionHandle executable, client->CompileHloText(text, &options));
  std::vector<std::unique_ptr<GlobalData>> data;
  std::vector<GlobalData*> arg_ptrs;
  for (const Literal& arg : args) {
    ASSIGN_OR_RETURN(std::unique_ptr<GlobalData> d, client->TransferToServer(arg));
    arg_ptrs.push_back(d.get());
    data.push_back(std::move(d));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<GlobalData> result, client->Execute(executable, arg_ptrs));
  if (const int repeat = absl::GetFlag(FLAGS_repeat); repeat > 0) {
    std::vector<double> micros;
    for (int i = 0; i < repeat; ++i) {
      const absl::Time start = absl::Now();
      ASSIGN_OR_RETURN(std::unique_ptr<GlobalData> again, client->Execute(executable, arg_ptrs));
      micros.push_back(absl::ToDoubleMicroseconds(absl::Now() - start));
    }
    std::sort(micros.begin(), micros.end());
    std::cerr << "xla_run: " << (backend.empty() ? "default backend" : backend) << ": " << repeat
              << " executions: best " << micros.front() << " us, median " << micros[micros.size() / 2] << " us\n";
  }
  return client->TransferToClient(*result);
}

int Fail(const std::string& message) {
  std::cerr << "xla_run: " << message << "\n";
  return 1;
}

int Run(const std::string& path, const std::vector<std::string>& arg_texts) {
  std::ifstream file(path);
  if (!file) return Fail("cannot read '" + path + "'");
  std::stringstream buffer;
  buffer << file.rdbuf();
  std::string text = buffer.str();
  if (absl::EndsWith(path, ".mlir")) {
    // StableHLO: imported, then handed on as HLO text like any .hlo file.
    absl::StatusOr<std::unique_ptr<HloModule>> imported = stablehlo::ImportStableHloModule(text, path);
    if (!imported.ok()) return Fail(std::string(imported.status().message()));
    text = (*imported)->ToString();
  }

  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return Fail(path + ": " + std::string(module.status().message()));
  ProgramShape program_shape = (*module)->entry_computation()->ComputeProgramShape();
  if (!arg_texts.empty() && arg_texts.size() != program_shape.parameters().size()) {
    return Fail("the entry computation takes " + std::to_string(program_shape.parameters().size()) +
                " arguments but " + std::to_string(arg_texts.size()) + " --arg were given");
  }
  std::vector<Literal> args;
  for (size_t i = 0; i < program_shape.parameters().size(); ++i) {
    const Shape& shape = program_shape.parameters()[i];
    if (arg_texts.empty()) {
      args.push_back(GenerateArgument(shape));
      continue;
    }
    absl::StatusOr<Literal> lit = Literal::Parse(arg_texts[i]);
    if (!lit.ok()) lit = Literal::ParseValue(arg_texts[i], shape);  // value without a shape prefix
    if (!lit.ok()) return Fail("--arg " + std::to_string(i) + ": " + std::string(lit.status().message()));
    if (!lit->shape().Compatible(shape)) {
      return Fail("--arg " + std::to_string(i) + " has shape " + lit->shape().ToString() + " but parameter " +
                  std::to_string(i) + " is " + shape.ToString());
    }
    args.push_back(std::move(*lit));
  }

  absl::StatusOr<Literal> result = RunOn(absl::GetFlag(FLAGS_backend), text, args);
  if (!result.ok()) return Fail(path + ": " + std::string(result.status().message()));
  if (absl::GetFlag(FLAGS_print_result)) std::cout << result->ToString() << "\n";
  if (!absl::GetFlag(FLAGS_compare).empty()) {
    absl::StatusOr<Literal> reference = RunOn(absl::GetFlag(FLAGS_compare), text, args);
    if (!reference.ok()) {
      return Fail("--compare=" + absl::GetFlag(FLAGS_compare) + ": " + std::string(reference.status().message()));
    }
    absl::StatusOr<double> diff = literal_comparison::MaxAbsDifference(*reference, *result);
    if (!diff.ok()) return Fail("results differ in shape: " + std::string(diff.status().message()));
    std::cerr << "xla_run: largest absolute difference from " << absl::GetFlag(FLAGS_compare) << ": " << *diff
              << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace xla

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Runs an HLO text module and prints the result literal.\n"
      "usage: xla_run [--backend=NAME] [--compare=NAME] [--arg=LITERAL]... FILE.hlo|FILE.mlir\n"
      "  --arg=LITERAL  an argument as literal text, e.g. --arg='f32[2] {1, 2}', once per parameter\n"
      "                 in order; when none are given, arguments are generated deterministically.");
  // --arg may repeat and literal text contains commas, so it is taken out
  // before Abseil parses the remaining flags.
  std::vector<std::string> arg_texts;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (absl::StartsWith(a, "--arg=")) {
      arg_texts.push_back(a.substr(6));
    } else if (a == "--arg" && i + 1 < argc) {
      arg_texts.push_back(argv[++i]);
    } else {
      rest.push_back(argv[i]);
    }
  }
  std::vector<char*> positional = absl::ParseCommandLine(static_cast<int>(rest.size()), rest.data());
  if (positional.size() != 2) {
    std::cerr << "usage: xla_run [--backend=NAME] [--arg=LITERAL]... FILE.hlo (see --help)\n";
    return 1;
  }
  return xla::Run(positional[1], arg_texts);
}
