// The runtime an ahead-of-time compiled module (tools/xla aot) links with:
// its scratch arena, its thread pool, and (by linking this library) the
// runtime functions the code calls (backends/cpu/runtime: parallel-for,
// matmul, sort, FFT, linear algebra, math helpers) and the never-stopping
// stop checks. No service, LLVM or protobuf. The generated NAME.h includes
// this header.
#ifndef BACKENDS_CPU_AOT_AOT_RUNTIME_H_
#define BACKENDS_CPU_AOT_AOT_RUNTIME_H_

#include <cstddef>
#include <cstdint>

namespace xla {
namespace aot {

// The entry function's ABI (backends/cpu/codegen/ir_emitter.h): array
// leaves of the parameters and of the result, depth-first; the arena;
// the thread pool (null: one thread); the control (null ahead of time).
using EntryFunction = void (*)(void** params, void** results, char* arena, const void* device,
                               const void* control);

// A 64-byte-aligned block of `bytes` (at least 1), freed with the object.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(int64_t bytes);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  char* data() const { return data_; }

 private:
  char* data_;
};

// The process's shared pool of `threads` workers, as the entry function's
// device argument (null for threads <= 1: the calling thread runs it all).
const void* ThreadPool(int threads);

}  // namespace aot
}  // namespace xla

#endif  // BACKENDS_CPU_AOT_AOT_RUNTIME_H_
