// hlo_opt: runs HLO passes on an HLO text module and prints the result.
//
//   hlo_opt [--passes=dce,cse,algsimp,...] [--fixed_point] [--verify=false]
//           [--dump_passes] FILE.hlo|FILE.mlir|-
//
// A .mlir file is StableHLO text, imported by xla/stablehlo before the passes
// run; it must have one entry point (`@main`, or its only function).
//
// Without --passes the standard pipeline runs (xla/transforms/pass_registry.h).
// The module is verified before the first pass and after every pass; an
// invalid module or a failing pass exits with status 1 and a message naming
// the pass. The result goes to stdout, everything else to stderr.
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/stablehlo/single_module.h"
#include "xla/transforms/hlo_pass_pipeline.h"
#include "backends/cpu/codegen/buffer_assignment.h"
#include "backends/cpu/transforms/cpu_pipeline.h"
#include "xla/transforms/pass_registry.h"

ABSL_FLAG(std::string, passes, "standard",
          "Comma-separated passes to run in order (see the list in --help); 'standard' is the default pipeline.");
ABSL_FLAG(bool, fixed_point, false, "Repeat the pass list until no pass changes the module (at most 25 rounds).");
ABSL_FLAG(bool, verify, true, "Verify the module before the first pass and after every pass.");
ABSL_FLAG(bool, buffer_assignment, false,
          "After the passes, print to stderr where the CPU backend would place every value (its BufferAssignment, "
          "as --xla_dump_to writes it); for a module the cpu pipeline has fused (--passes=cpu).");
ABSL_FLAG(bool, dump_passes, false,
          "Print the module after every pass that changed it to stderr, headed by the pass name.");

namespace xla {
namespace {

int Fail(const std::string& message) {
  std::cerr << "hlo_opt: " << message << "\n";
  return 1;
}

std::string UsageText() {
  std::string text =
      "Runs HLO passes on an HLO text module (or a StableHLO .mlir file, imported first) and prints the\n"
      "resulting module.\n"
      "usage: hlo_opt [--passes=NAME,...] [--fixed_point] [--verify=false] [--dump_passes] FILE.hlo|FILE.mlir|-\n"
      "passes:\n"
      "  standard              the standard pipeline: call-inliner, then a fixed point of the others\n"
      "  cpu                   the CPU backend's pipeline, as its compiler runs it before code generation\n";
  for (const HloPassInfo& info : RegisteredHloPasses()) {
    std::string name = info.name;
    name.resize(std::max<size_t>(name.size() + 1, 22), ' ');
    absl::StrAppend(&text, "  ", name, info.description, "\n");
  }
  return text;
}

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  std::stringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  buffer << file.rdbuf();
  return buffer.str();
}

int Run(const std::string& path) {
  absl::StatusOr<std::string> text = ReadInput(path);
  if (!text.ok()) return Fail(std::string(text.status().message()));
  absl::StatusOr<std::unique_ptr<HloModule>> module;
  if (absl::EndsWith(path, ".mlir")) {
    // The importer's errors already start with "PATH:LINE:COL:".
    module = stablehlo::ImportStableHloModule(*text, path);
    if (!module.ok()) return Fail(std::string(module.status().message()));
  } else {
    module = ParseHloModule(*text);
    if (!module.ok()) return Fail(absl::StrCat(path, ": ", module.status().message()));
  }

  HloPassPipeline list("hlo_opt");
  HloPassPipeline* pipeline = &list;
  if (absl::GetFlag(FLAGS_fixed_point)) pipeline = &list.AddFixedPoint("hlo_opt-fixed-point");
  for (absl::string_view name : absl::StrSplit(absl::GetFlag(FLAGS_passes), ',', absl::SkipWhitespace())) {
    name = absl::StripAsciiWhitespace(name);
    if (name == "cpu") {
      auto cpu_pipeline = std::make_unique<HloPassPipeline>("cpu");
      cpu::AddCpuHloPasses(cpu_pipeline.get());
      pipeline->AddOwnedPass(std::move(cpu_pipeline));
      continue;
    }
    absl::StatusOr<std::unique_ptr<HloPass>> pass = CreateHloPass(name);
    if (!pass.ok()) return Fail(std::string(pass.status().message()));
    pipeline->AddOwnedPass(std::move(*pass));
  }
  list.set_verify_after_each_pass(absl::GetFlag(FLAGS_verify));
  if (absl::GetFlag(FLAGS_dump_passes)) {
    list.set_dump_callback([](absl::string_view pass, absl::string_view before, absl::string_view after) {
      if (before == after) {
        std::cerr << "// pass " << pass << ": no change\n";
      } else {
        std::cerr << "// after pass " << pass << ":\n" << after << "\n";
      }
    });
  }
  absl::StatusOr<bool> changed = list.Run(module->get());
  if (!changed.ok()) return Fail(std::string(changed.status().message()));
  std::cout << (*module)->ToString();
  if (absl::GetFlag(FLAGS_buffer_assignment)) {
    absl::StatusOr<std::unique_ptr<cpu::BufferAssignment>> assignment = cpu::BufferAssignment::Run(**module);
    if (!assignment.ok()) return Fail(std::string(assignment.status().message()));
    std::cerr << (*assignment)->ToString();
  }
  return 0;
}

}  // namespace
}  // namespace xla

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(xla::UsageText());
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() != 2) {
    std::cerr << "usage: hlo_opt [--passes=NAME,...] [--fixed_point] [--verify=false] [--dump_passes] [--buffer_assignment] FILE.hlo|FILE.mlir|-"
                 " (see --help)\n";
    return 1;
  }
  return xla::Run(positional[1]);
}
