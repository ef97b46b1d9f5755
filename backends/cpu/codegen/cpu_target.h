// CpuTarget: the CPU the JIT compiles for. By default the host; a pinned
// target (DebugOptions.xla_cpu_target, xla_run's and the daemon's
// --xla_cpu_target) makes the generated code independent of the machine,
// so IR tests read the same vector width on every host and the AVX2 and
// AVX-512 code paths can both be compiled anywhere and run wherever the
// host has their features.
//
// Spec syntax: "" or "host"; an LLVM x86 CPU name ("haswell",
// "skylake-avx512", "znver4", ...); either followed by ":" and a
// comma-separated feature list that adjusts it ("haswell:-fma",
// "host:-avx512f").
#ifndef BACKENDS_CPU_CODEGEN_CPU_TARGET_H_
#define BACKENDS_CPU_CODEGEN_CPU_TARGET_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla {
namespace cpu {

struct CpuTarget {
  std::string cpu_name;  // LLVM's name of the CPU ("znver4")
  std::string features;  // every feature, "+avx2,+fma,-avx512f,..."
  bool is_host = true;   // the host's own name and features, unadjusted

  // "znver4" or "host (icelake-server)", plus adjustments, for messages.
  std::string Describe() const;
};

// The target `spec` names, with its complete feature list; InvalidArgument
// for an unknown CPU or a malformed feature.
absl::StatusOr<CpuTarget> ResolveCpuTarget(absl::string_view spec);

// The features `target` enables that the host lacks: code compiled for it
// may use instructions this host cannot execute unless this is empty.
std::vector<std::string> FeaturesMissingOnHost(const CpuTarget& target);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_CPU_TARGET_H_
