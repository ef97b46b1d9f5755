// xla_aot: ahead-of-time compilation. Compiles an HLO text or StableHLO text
// module for a CPU and writes an object/header pair that links directly
// into another program (the 2017 overview's AOT promise):
//
//   xla_aot --name=NAME --out=DIR [--xla_cpu_target=CPU] [--threads=N] FILE.hlo|FILE.mlir
//
// DIR/NAME.o holds the code (one exported function, xla_aot_NAME);
// DIR/NAME.h declares class NAME, which runs it on the caller's buffers.
// The program links NAME.o with //backends/cpu/aot:aot_runtime only: no
// service, LLVM or protobuf at run time.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "backends/cpu/aot/aot_header.h"
#include "backends/cpu/cpu_compiler.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/stablehlo/single_module.h"
#include "xla/status_macros.h"

ABSL_FLAG(std::string, name, "", "The class (and file) name: a C identifier.");
ABSL_FLAG(std::string, out, ".", "Directory NAME.o and NAME.h are written to.");
ABSL_FLAG(std::string, xla_cpu_target, "host",
          "CPU to compile for: host, or an LLVM CPU name (x86-64-v3, haswell, znver4, ...) optionally followed by "
          ":+feature,-feature. The program using the object must run on such a CPU.");
ABSL_FLAG(int, xla_backend_optimization_level, 3,
          "How much the code is optimized: 0 (fastest compile, slowest code) to 3.");
ABSL_FLAG(int, threads, 1, "Worker threads the code splits its loops over (1: the calling thread only).");

namespace xla {
namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return absl::UnavailableError("cannot write " + path);
  return absl::OkStatus();
}

absl::Status Run(const std::string& path) {
  const std::string name = absl::GetFlag(FLAGS_name);
  if (!IsIdentifier(name)) return InvalidArgument("--name='%s' is not a C identifier", name);
  if (absl::GetFlag(FLAGS_threads) < 1) return InvalidArgument("--threads wants a positive count");
  std::ifstream file(path);
  if (!file) return absl::NotFoundError("cannot read " + path);
  std::stringstream text;
  text << file.rdbuf();
  std::unique_ptr<HloModule> module;
  if (absl::EndsWith(path, ".mlir")) {
    ASSIGN_OR_RETURN(module, stablehlo::ImportStableHloModule(text.str(), path));
  } else {
    ASSIGN_OR_RETURN(module, ParseHloModule(text.str()));
  }
  RETURN_IF_ERROR(VerifyHloModule(*module));
  DebugOptions options;
  options.set_xla_cpu_target(absl::GetFlag(FLAGS_xla_cpu_target));
  options.set_xla_cpu_threads(absl::GetFlag(FLAGS_threads));
  options.set_xla_backend_optimization_level(absl::GetFlag(FLAGS_xla_backend_optimization_level));
  const std::string symbol = "xla_aot_" + name;
  ASSIGN_OR_RETURN(cpu::AotCompilation compiled, cpu::CompileAheadOfTime(std::move(module), options, symbol));
  aot::AotHeaderInfo header;
  header.name = name;
  header.symbol = symbol;
  header.source = path.substr(path.find_last_of('/') + 1);
  header.target = compiled.target;
  header.program_shape = compiled.program_shape;
  header.arena_bytes = compiled.arena_bytes;
  header.threads = compiled.threads;
  const std::string dir = absl::GetFlag(FLAGS_out);
  RETURN_IF_ERROR(WriteFile(dir + "/" + name + ".o", compiled.object_code));
  RETURN_IF_ERROR(WriteFile(dir + "/" + name + ".h", aot::AotHeader(header)));
  std::cerr << "xla_aot: wrote " << dir << "/" << name << ".o (" << compiled.object_code.size() << " bytes) and "
            << name << ".h for " << compiled.target << "\n";
  return absl::OkStatus();
}

}  // namespace
}  // namespace xla

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "usage: xla_aot --name=NAME --out=DIR [--xla_cpu_target=CPU] [--threads=N] FILE.hlo|FILE.mlir");
  std::vector<char*> files = absl::ParseCommandLine(argc, argv);
  if (files.size() != 2) {
    std::cerr << absl::ProgramUsageMessage() << "\n";
    return 1;
  }
  absl::Status status = xla::Run(files[1]);
  if (!status.ok()) {
    std::cerr << "xla_aot: " << status << "\n";
    return 1;
  }
  return 0;
}
