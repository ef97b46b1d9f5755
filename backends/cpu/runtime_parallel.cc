#include "backends/cpu/runtime_parallel.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"

namespace {

// One parallel loop, shared by the calling thread and the helper tasks it
// schedules. A helper may start after the loop is over (the pool was busy or
// its thread was asleep): it owns the state through a shared_ptr and reaches
// the caller's body and context only through a chunk it claimed, and every
// chunk is claimed before the caller returns.
struct ParallelLoop {
  void (*body)(void* context, int64_t begin, int64_t end);
  void* context;
  int64_t n = 0;
  int64_t chunk = 0;
  int64_t chunks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
};

void RunChunks(ParallelLoop& loop) {
  for (int64_t c; (c = loop.next.fetch_add(1, std::memory_order_relaxed)) < loop.chunks;) {
    const int64_t begin = c * loop.chunk;
    loop.body(loop.context, begin, std::min(loop.n, begin + loop.chunk));
    loop.done.fetch_add(1, std::memory_order_release);
  }
}

}  // namespace

// The caller works from the first moment instead of waiting for woken pool
// threads (a sleeping worker takes tens of microseconds to wake, more in a
// VM), helpers take chunks when they get to run, and the caller then waits
// only for chunks already running, which it spins on: they are short.
extern "C" void __xla_cpu_runtime_ParallelFor(const void* device,
                                              void (*body)(void* context, int64_t begin, int64_t end),
                                              void* context, int64_t n, double bytes_loaded, double bytes_stored,
                                              double cycles) {
  if (n <= 0) return;
  const auto* pool = static_cast<const Eigen::ThreadPoolDevice*>(device);
  const int threads =
      pool == nullptr ? 1
                      : Eigen::TensorCostModel<Eigen::ThreadPoolDevice>::numThreads(
                            static_cast<double>(n), Eigen::TensorOpCost(bytes_loaded, bytes_stored, cycles),
                            pool->numThreads());
  if (threads <= 1) {
    body(context, 0, n);
    return;
  }
  // A few chunks per thread, so uneven progress (a helper that starts late,
  // a core shared with another process) evens out.
  constexpr int64_t kChunksPerThread = 4;
  auto loop = std::make_shared<ParallelLoop>();
  loop->body = body;
  loop->context = context;
  loop->n = n;
  loop->chunk = (n + threads * kChunksPerThread - 1) / (threads * kChunksPerThread);
  if (n >= kAlignedChunksMinItems) {
    loop->chunk = (loop->chunk + kParallelForChunkMultiple - 1) / kParallelForChunkMultiple * kParallelForChunkMultiple;
  }
  loop->chunks = (n + loop->chunk - 1) / loop->chunk;
  for (int i = 1; i < threads; ++i) pool->getPool()->Schedule([loop] { RunChunks(*loop); });
  RunChunks(*loop);
  while (loop->done.load(std::memory_order_acquire) < loop->chunks) std::this_thread::yield();
}
