// Non-temporal stores for large results: an entry result of at least
// kMinStreamingResultBytes is written once and handed back to the client,
// so caching it only costs a read of each line before it is written (the
// write-allocate) and evicts data the run still needs. Its base pointer is
// marked when emitted (MarkStreamingBuffer); after LLVM's optimizations
// (vectorization, alignment inference), vector stores into marked buffers
// that are aligned to their size become non-temporal (vmovntps), and each
// function that has such stores fences them (sfence) before returning, so
// they are visible to the thread that waits for the function's work.
#ifndef BACKENDS_CPU_CODEGEN_STREAMING_STORES_H_
#define BACKENDS_CPU_CODEGEN_STREAMING_STORES_H_

#include <cstdint>

#include "llvm/IR/Module.h"
#include "llvm/IR/Value.h"

namespace xla {
namespace cpu {

constexpr int64_t kMinStreamingResultBytes = int64_t{8} << 20;

// Marks `base` (the load of a buffer's address; copies made for outlined
// functions keep the mark, see CopyStreamingMark) as a streaming buffer.
void MarkStreamingBuffer(llvm::Value* base);
// `copy` holds the same pointer as `base`: it gets base's mark, if any.
void CopyStreamingMark(llvm::Value* base, llvm::Value* copy);

// Whether `pointer` points into a buffer marked by MarkStreamingBuffer.
bool IsStreamingBuffer(const llvm::Value* pointer);

// Turns the qualifying stores of an optimized module into non-temporal ones
// and fences them; returns how many stores were changed.
int64_t MakeStreamingStoresNonTemporal(llvm::Module& module);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_STREAMING_STORES_H_
