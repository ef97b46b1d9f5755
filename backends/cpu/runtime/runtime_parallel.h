// Parallel loops of JIT code: the IR emitter outlines a large loop nest into
// a function over a range of its outermost dimension and calls this, which
// splits [0, n) into chunks run by the calling thread and helpers on the
// executable's thread pool (Eigen's cost model decides how many threads are
// worth it, and runs small loops on the calling thread alone). Chunks are
// claimed by guided self-scheduling: each takes a share of what is left, so
// they shrink towards the end, down to 1/kParallelForMinChunksPerThread of a
// thread's share.
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_PARALLEL_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_PARALLEL_H_

#include <cstdint>

// For loops of at least kAlignedChunksMinItems items, every range a body
// gets starts at a multiple of kParallelForChunkMultiple (chunks are whole
// multiples of it), so the emitter may tell LLVM so: vector loops over a
// chunk of a 1-D array then start on a vector-aligned element. (Fewer items
// are split finely instead: rounding would leave threads idle.)
constexpr int64_t kParallelForChunkMultiple = 16;
constexpr int64_t kParallelForMinChunksPerThread = 32;
constexpr int64_t kAlignedChunksMinItems = int64_t{1} << 14;

extern "C" {
// `device`: the Eigen::ThreadPoolDevice of the run, or null to run serially.
// `body(context, begin, end)` runs items [begin, end). The costs are per
// item: bytes read, bytes written and compute cycles.
void __xla_cpu_runtime_ParallelFor(const void* device, void (*body)(void* context, int64_t begin, int64_t end),
                                   void* context, int64_t n, double bytes_loaded, double bytes_stored,
                                   double cycles);
}

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_PARALLEL_H_
