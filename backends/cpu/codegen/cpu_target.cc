#include "backends/cpu/codegen/cpu_target.h"

#include <map>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/X86TargetParser.h"

namespace xla {
namespace cpu {
namespace {

// Feature name -> enabled, ordered so the feature string is deterministic
// (it is part of compile-cache keys and dumps).
using FeatureMap = std::map<std::string, bool>;

// The host's, asked once: LLVM reads CPUID (and /proc/cpuinfo) on every
// query, which was 2% of a small module's compile.
const FeatureMap& HostFeatures() {
  static const FeatureMap* const features = [] {
    auto* out = new FeatureMap;
    for (const auto& entry : llvm::sys::getHostCPUFeatures()) (*out)[entry.getKey().str()] = entry.getValue();
    return out;
  }();
  return *features;
}

const std::string& HostCpuName() {
  static const std::string* const name = new std::string(llvm::sys::getHostCPUName().str());
  return *name;
}

std::string FeatureString(const FeatureMap& features) {
  std::vector<std::string> parts;
  for (const auto& [name, enabled] : features) parts.push_back(absl::StrCat(enabled ? "+" : "-", name));
  return absl::StrJoin(parts, ",");
}

// Features of system instructions (protection keys, enclaves, monitor/wait,
// cache and TLB management, shadow stacks, ...) that LLVM emits only for
// their intrinsics, which generated kernels never call. Hypervisors often
// hide them, so requiring them would refuse to run code that cannot fault.
constexpr absl::string_view kSystemOnlyFeatures[] = {
    "clflushopt", "clwb",     "clzero",  "cldemote", "enqcmd",   "fsgsbase", "hreset",    "invpcid",
    "kl",         "lwp",      "movdir64b", "movdiri", "mwaitx",  "pconfig",  "pku",       "ptwrite",
    "rdpid",      "rdpru",    "rdrnd",   "rdseed",   "serialize", "sgx",     "shstk",     "tsxldtrk",
    "uintr",      "waitpkg",  "wbnoinvd", "widekl",  "xsave",    "xsavec",   "xsaveopt",  "xsaves"};

bool IsSystemOnlyFeature(absl::string_view name) {
  return absl::c_linear_search(kSystemOnlyFeatures, name);
}

}  // namespace

std::string CpuTarget::Describe() const {
  if (is_host) return absl::StrCat("host (", cpu_name, ")");
  return cpu_name;
}

absl::StatusOr<CpuTarget> ResolveCpuTarget(absl::string_view spec) {
  std::pair<std::string, std::string> parts = absl::StrSplit(spec, absl::MaxSplits(':', 1));
  const std::string& cpu = parts.first;
  const std::string& adjustments = parts.second;
  CpuTarget target;
  FeatureMap features;
  if (cpu.empty() || cpu == "host") {
    target.cpu_name = HostCpuName();
    features = HostFeatures();
  } else {
    if (llvm::X86::parseArchX86(cpu, /*Only64Bit=*/true) == llvm::X86::CK_None) {
      return absl::InvalidArgumentError(absl::StrCat(
          "xla_cpu_target: unknown x86-64 CPU '", cpu,
          "' (use 'host' or an LLVM CPU name such as haswell, skylake-avx512, znver3, znver4)"));
    }
    target.cpu_name = cpu;
    target.is_host = false;
    llvm::SmallVector<llvm::StringRef, 64> names;
    llvm::X86::getFeaturesForCPU(cpu, names, /*NeedPlus=*/false);
    for (llvm::StringRef name : names) features[name.str()] = true;
  }
  for (absl::string_view item : absl::StrSplit(adjustments, ',', absl::SkipWhitespace())) {
    if (item.size() < 2 || (item[0] != '+' && item[0] != '-')) {
      return absl::InvalidArgumentError(
          absl::StrCat("xla_cpu_target: feature '", item, "' must be +name or -name (in '", spec, "')"));
    }
    features[std::string(item.substr(1))] = item[0] == '+';
    target.is_host = false;
  }
  target.features = FeatureString(features);
  return target;
}

std::vector<std::string> FeaturesMissingOnHost(const CpuTarget& target) {
  const FeatureMap& host = HostFeatures();
  std::vector<std::string> missing;
  for (absl::string_view item : absl::StrSplit(target.features, ',', absl::SkipEmpty())) {
    if (item[0] != '+') continue;
    const std::string name(item.substr(1));
    if (IsSystemOnlyFeature(name)) continue;
    // A feature the host does not report at all is one LLVM's CPU tables
    // add but the host query has no bit for (e.g. "64bit"): not missing.
    auto it = host.find(name);
    if (it != host.end() && !it->second) missing.push_back(name);
  }
  return missing;
}

}  // namespace cpu
}  // namespace xla
