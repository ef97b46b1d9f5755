#include "backends/cpu/codegen/perf_map.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "absl/strings/str_format.h"
#include "llvm/ExecutionEngine/JITLink/JITLink.h"

namespace xla {
namespace cpu {

namespace {

// Appends lines to this process's map file; one lock for all JITs.
void AppendToPerfMap(const std::string& lines) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  const std::string path = absl::StrFormat("/tmp/perf-%d.map", getpid());
  if (FILE* f = std::fopen(path.c_str(), "a")) {
    std::fwrite(lines.data(), 1, lines.size(), f);
    std::fclose(f);
  }
}

class PerfMapPlugin : public llvm::orc::ObjectLinkingLayer::Plugin {
 public:
  void modifyPassConfig(llvm::orc::MaterializationResponsibility&, llvm::jitlink::LinkGraph&,
                        llvm::jitlink::PassConfiguration& config) override {
    // Local functions are reached through anonymous symbols of their code
    // blocks, so pruning would drop their names: keep them (the code stays
    // either way).
    config.PrePrunePasses.push_back([](llvm::jitlink::LinkGraph& g) -> llvm::Error {
      for (llvm::jitlink::Symbol* symbol : g.defined_symbols()) {
        if (symbol->hasName() && symbol->isCallable()) symbol->setLive(true);
      }
      return llvm::Error::success();
    });
    config.PostFixupPasses.push_back([](llvm::jitlink::LinkGraph& g) -> llvm::Error {
      // The graph is named after the object buffer, which CpuJit::AddObject
      // names after the module.
      const std::string module = g.getName();
      std::string lines;
      for (llvm::jitlink::Symbol* symbol : g.defined_symbols()) {
        if (!symbol->hasName() || !symbol->isCallable() || symbol->getSize() == 0) continue;
        absl::StrAppendFormat(&lines, "%x %x %s:%s\n", symbol->getAddress().getValue(), symbol->getSize(), module,
                              symbol->getName().str());
      }
      AppendToPerfMap(lines);
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility&) override { return llvm::Error::success(); }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey, llvm::orc::ResourceKey) override {}
};

}  // namespace

bool PerfMapRequested() {
  const char* value = std::getenv("XLA_CPU_PERF_MAP");
  return value != nullptr && *value != '\0' && std::string(value) != "0";
}

std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> MakePerfMapPlugin() {
  return std::make_unique<PerfMapPlugin>();
}

}  // namespace cpu
}  // namespace xla
