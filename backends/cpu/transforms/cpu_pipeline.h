// The CPU backend's HLO pass pipeline, listed in order in one function, run
// by CpuCompiler before IR emission. Honors DebugOptions
// xla_disable_hlo_passes / xla_disable_all_hlo_passes, optionally verifies
// the module after every pass, and with xla_dump_to writes the HLO before and after
// each pass that runs into that directory, and CpuCompiler adds the LLVM IR
// before and after optimization (<module>.ir-no-opt.ll, <module>.ir-opt.ll)
// and the buffer assignment (<module>.buffer-assignment.txt). The last pass
// is cpu-fusion, so `hlo_opt --passes=cpu` prints the fused module the
// emitter compiles.
#ifndef BACKENDS_CPU_TRANSFORMS_CPU_PIPELINE_H_
#define BACKENDS_CPU_TRANSFORMS_CPU_PIPELINE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/xla.pb.h"
#include "xla/hlo/hlo_module.h"
#include "xla/transforms/hlo_pass_pipeline.h"

namespace xla {
namespace cpu {

// HloVerifier checks the input and the module after every pass when
// `verify_each_pass` (the default in builds with assertions, which tests
// use), and the final module always: code is never generated from a module
// that does not verify.
#ifdef NDEBUG
inline constexpr bool kVerifyEachCpuPass = false;
#else
inline constexpr bool kVerifyEachCpuPass = true;
#endif
// `stop_check`, when given, runs before every pass; an error ends the
// pipeline with it (a compile past its deadline).
absl::Status RunCpuHloPasses(HloModule* module, const DebugOptions& options,
                             bool verify_each_pass = kVerifyEachCpuPass,
                             std::function<absl::Status()> stop_check = nullptr);

// Appends the CPU pipeline's passes, in order, to `pipeline`: what
// RunCpuHloPasses runs (hlo_opt --passes=cpu reproduces it).
void AddCpuHloPasses(HloPassPipeline* pipeline);

// Pass names in the order they run (for tests and --help texts).
std::vector<std::string> CpuHloPassNames();

// Writes `contents` to DIR/<file> when options.xla_dump_to is set.
absl::Status DumpToFile(const DebugOptions& options, const std::string& file, const std::string& contents);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TRANSFORMS_CPU_PIPELINE_H_
