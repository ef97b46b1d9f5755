// Linux perf's map file for JIT code: with XLA_CPU_PERF_MAP=1 in the
// environment, every function the CPU backend links (each module's entry
// function and its outlined parallel-loop bodies, named after their fusions)
// is appended to /tmp/perf-<pid>.map as "<start> <size> <module>:<function>",
// the format `perf report` reads to name samples in anonymous executable
// memory. Off by default: the file grows with every compile, and code of
// freed executables may later be reused at the same addresses.
#ifndef BACKENDS_CPU_CODEGEN_PERF_MAP_H_
#define BACKENDS_CPU_CODEGEN_PERF_MAP_H_

#include <memory>

#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"

namespace xla {
namespace cpu {

// Whether XLA_CPU_PERF_MAP asks for the map (set, and not "0").
bool PerfMapRequested();

// A JITLink plugin that records the callable symbols of each linked graph
// once their addresses are final.
std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> MakePerfMapPlugin();

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_PERF_MAP_H_
