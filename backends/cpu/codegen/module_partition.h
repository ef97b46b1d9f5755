// Splitting an emitted module into parts that are optimized and compiled on
// threads of their own (CpuJit::OptimizeToObjects), each part an object file
// the JIT links with the others.
//
// The IR emitter outlines loops into functions that the entry function
// passes by address to the runtime's ParallelFor: references that cross
// parts cost nothing at run time. Functions one calls directly stay with
// their callers, so no inlining is lost. A global goes with the functions
// that use it; a small constant used by several parts is copied into each,
// so its loads still fold; a large one lives in one part and the others
// refer to it.
#ifndef BACKENDS_CPU_CODEGEN_MODULE_PARTITION_H_
#define BACKENDS_CPU_CODEGEN_MODULE_PARTITION_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "llvm/IR/Module.h"

namespace xla {
namespace cpu {

// Parts are only made of at least this many IR instructions: below it the
// bitcode round trip and the thread cost more than the part's compile. An
// emitted instruction costs about 0.1 ms of LLVM (vectorized, interleaved
// and unrolled, it becomes many), a part's round trip and thread well under
// 1 ms: at 800, a 100-op chain (one row group and the entry's loops) was
// not split, and compiled 20% slower than in two parts.
inline constexpr int64_t kMinInstructionsPerPart = 200;

// A function with this attribute may go to another part than the functions
// that call it (a row group's chunks, row_group_emitter.cc): each call then
// crosses objects, and the callee is not inlined into its caller.
inline constexpr char kSeparablePartAttribute[] = "xla-separable-part";

// Constants of at most this many bytes used by several parts are copied.
inline constexpr uint64_t kMaxCopiedConstantBytes = 4096;

// Splits `module` into at most `max_parts` balanced parts (by instruction
// count) and returns how many, or 0 when the module is better compiled
// whole (too small, one group of functions, or constructs the split does not
// handle), leaving it as it was. Every part but the last is handed to
// `part_ready` as bitcode as soon as it is written, in order, so that it can
// be compiled while the next is made; `module` itself becomes the last part,
// in which what the other parts define is only declared (a copy less to
// write and read on the compile's critical path). Symbols that one part
// defines and another uses become external first (default visibility, not
// dso_local: the parts' objects may be linked far apart, so they reach each
// other through the GOT).
int PartitionModule(llvm::Module& module, int max_parts,
                    const std::function<void(int part, std::string bitcode)>& part_ready);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_MODULE_PARTITION_H_
