#include "backends/cpu/aot/aot_runtime.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "backends/cpu/runtime/cpu_thread_pool.h"

namespace xla {
namespace aot {

AlignedBuffer::AlignedBuffer(int64_t bytes) {
  // aligned_alloc wants a multiple of the alignment.
  const size_t size = (static_cast<size_t>(std::max<int64_t>(bytes, 1)) + 63) / 64 * 64;
  data_ = static_cast<char*>(std::aligned_alloc(64, size));
  if (data_ == nullptr) throw std::bad_alloc();
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

const void* ThreadPool(int threads) { return cpu::SharedThreadPoolDevice(threads); }

}  // namespace aot
}  // namespace xla

// Ahead-of-time code calls these instead of the service's stop checks
// (CompileAheadOfTime renames them): nothing stops an ahead-of-time run.
extern "C" bool __xla_aot_runtime_ShouldStop(const void*) { return false; }

extern "C" const volatile uint8_t* __xla_aot_runtime_StopFlag(const void*) {
  static const volatile uint8_t kNeverStops = 0;
  return &kNeverStops;
}
