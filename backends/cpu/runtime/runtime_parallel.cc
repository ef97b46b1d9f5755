#include "backends/cpu/runtime/runtime_parallel.h"

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
// the caller's body and context only through a range it claimed, and every
// item is claimed before the caller returns.
struct ParallelLoop {
  void (*body)(void* context, int64_t begin, int64_t end);
  void* context;
  int64_t n = 0;
  int threads = 1;
  int64_t min_chunk = 1;
  int64_t multiple = 1;  // every range but the last is a multiple of it
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};  // items finished
};

// Guided self-scheduling: each claim takes 1/(2 * threads) of what is left,
// but at least min_chunk. Early ranges are long (few claims), the last ones
// short, so threads that started late or ran slower (a core shared with
// another process) still finish together.
void RunChunks(ParallelLoop& loop) {
  int64_t begin = loop.next.load(std::memory_order_relaxed);
  while (begin < loop.n) {
    int64_t size = std::max(loop.min_chunk, (loop.n - begin) / (2 * loop.threads));
    size = (size + loop.multiple - 1) / loop.multiple * loop.multiple;
    const int64_t end = std::min(loop.n, begin + size);
    if (!loop.next.compare_exchange_weak(begin, end, std::memory_order_relaxed)) continue;
    loop.body(loop.context, begin, end);
    loop.done.fetch_add(end - begin, std::memory_order_release);
    begin = loop.next.load(std::memory_order_relaxed);
  }
}

}  // namespace

// The caller works from the first moment instead of waiting for woken pool
// threads (a sleeping worker takes tens of microseconds to wake, more in a
// VM), helpers take chunks when they get to run, and the caller then waits
// only for chunks already running, which it spins on: by then they are the
// short ones.
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
  auto loop = std::make_shared<ParallelLoop>();
  loop->body = body;
  loop->context = context;
  loop->n = n;
  loop->threads = threads;
  loop->min_chunk = std::max<int64_t>(1, n / (threads * kParallelForMinChunksPerThread));
  if (n >= kAlignedChunksMinItems) loop->multiple = kParallelForChunkMultiple;
  for (int i = 1; i < threads; ++i) pool->getPool()->Schedule([loop] { RunChunks(*loop); });
  RunChunks(*loop);
  while (loop->done.load(std::memory_order_acquire) < n) std::this_thread::yield();
}
