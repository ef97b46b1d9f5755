// __xla_cpu_runtime_ParallelFor on its own: every item runs exactly once,
// whatever the pool size, the cost and the state of the pool; the caller
// never waits for helpers that have not started, and helpers that start
// after the loop is over do not touch it.
#include "backends/cpu/runtime/runtime_parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"

namespace {

// Counts how often each item ran and on how many distinct threads.
struct Counts {
  explicit Counts(int64_t n) : hits(n) {}
  std::vector<std::atomic<int>> hits;
  std::atomic<int64_t> calls{0};
  absl::Mutex mu;
  std::vector<std::pair<int64_t, int64_t>> ranges ABSL_GUARDED_BY(mu);
};

void CountRange(void* context, int64_t begin, int64_t end) {
  auto* counts = static_cast<Counts*>(context);
  ASSERT_LE(begin, end);
  // The emitter tells LLVM that ranges of long loops start at multiples of
  // this.
  if (counts->hits.size() >= static_cast<size_t>(kAlignedChunksMinItems)) {
    ASSERT_EQ(begin % kParallelForChunkMultiple, 0) << begin;
  }
  counts->calls.fetch_add(1);
  {
    absl::MutexLock lock(&counts->mu);
    counts->ranges.emplace_back(begin, end);
  }
  for (int64_t i = begin; i < end; ++i) counts->hits[i].fetch_add(1);
}

void ExpectEachItemOnce(const Counts& counts) {
  for (size_t i = 0; i < counts.hits.size(); ++i) ASSERT_EQ(counts.hits[i].load(), 1) << "item " << i;
}

constexpr double kExpensive = 1e6;  // cycles per item: always worth all threads

TEST(RuntimeParallelTest, EveryItemRunsOnceForAnyPoolAndSize) {
  for (int threads : {2, 3, 8}) {
    Eigen::ThreadPool pool(threads);
    Eigen::ThreadPoolDevice device(&pool, threads);
    for (int64_t n : {1, 2, 7, 64, 1000, 100003}) {
      SCOPED_TRACE(testing::Message() << "threads=" << threads << " n=" << n);
      Counts counts(n);
      __xla_cpu_runtime_ParallelFor(&device, CountRange, &counts, n, 4, 4, kExpensive);
      ExpectEachItemOnce(counts);
      // Every chunk but the last is at least 1/32 of a thread's share.
      EXPECT_LE(counts.calls.load(), std::min<int64_t>(n, kParallelForMinChunksPerThread * threads + 1));
    }
  }
}

// Two expensive items on two threads are two chunks (one per thread), and a
// long loop's chunks are whole multiples of kParallelForChunkMultiple.
TEST(RuntimeParallelTest, FewExpensiveItemsStillSpreadAndLongLoopsAlign) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  Counts two(2);
  __xla_cpu_runtime_ParallelFor(&device, CountRange, &two, 2, 4, 4, kExpensive);
  ExpectEachItemOnce(two);
  EXPECT_EQ(two.calls.load(), 2);
  const int64_t n = kAlignedChunksMinItems + 5;
  Counts many(n);
  __xla_cpu_runtime_ParallelFor(&device, CountRange, &many, n, 4, 4, kExpensive);
  ExpectEachItemOnce(many);
  EXPECT_GE(many.calls.load(), 2);
}

// Guided scheduling: in claim order (which is the order of their begins),
// chunks never grow, the first is 1/(2 * threads) of the loop, and all but
// the last are at least 1/32 of a thread's share (the last is at most that).
TEST(RuntimeParallelTest, ChunksShrinkTowardsTheEnd) {
  for (int threads : {2, 4}) {
    SCOPED_TRACE(testing::Message() << "threads=" << threads);
    Eigen::ThreadPool pool(threads);
    Eigen::ThreadPoolDevice device(&pool, threads);
    const int64_t n = int64_t{1} << 20;
    Counts counts(n);
    __xla_cpu_runtime_ParallelFor(&device, CountRange, &counts, n, 4, 4, kExpensive);
    ExpectEachItemOnce(counts);
    absl::MutexLock lock(&counts.mu);
    std::vector<std::pair<int64_t, int64_t>>& ranges = counts.ranges;
    std::sort(ranges.begin(), ranges.end());
    ASSERT_GE(ranges.size(), 2 * threads);
    EXPECT_EQ(ranges.front().second - ranges.front().first, n / (2 * threads));
    const int64_t min_chunk = n / (threads * kParallelForMinChunksPerThread);
    for (size_t i = 1; i < ranges.size(); ++i) {
      const int64_t size = ranges[i].second - ranges[i].first;
      EXPECT_LE(size, ranges[i - 1].second - ranges[i - 1].first) << "chunk " << i;
      if (i + 1 < ranges.size()) EXPECT_GE(size, min_chunk) << "chunk " << i;
    }
    EXPECT_LE(ranges.back().second - ranges.back().first, min_chunk);
  }
}

TEST(RuntimeParallelTest, CheapOrSerialLoopsRunInOneCallOnTheCaller) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  Counts cheap(100);
  __xla_cpu_runtime_ParallelFor(&device, CountRange, &cheap, 100, 4, 4, 1);
  ExpectEachItemOnce(cheap);
  EXPECT_EQ(cheap.calls.load(), 1);
  Counts serial(1000);
  __xla_cpu_runtime_ParallelFor(nullptr, CountRange, &serial, 1000, 4, 4, kExpensive);
  ExpectEachItemOnce(serial);
  EXPECT_EQ(serial.calls.load(), 1);
  __xla_cpu_runtime_ParallelFor(&device, CountRange, nullptr, 0, 4, 4, kExpensive);  // nothing to run
}

TEST(RuntimeParallelTest, BusyPoolDoesNotStallTheCallerAndLateHelpersStayOut) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  // Both pool threads blocked: the caller must run every chunk itself.
  absl::Notification release;
  std::atomic<int> blocked{0};
  for (int i = 0; i < 2; ++i) {
    pool.Schedule([&] {
      blocked.fetch_add(1);
      release.WaitForNotification();
    });
  }
  while (blocked.load() < 2) std::this_thread::yield();
  {
    Counts counts(5000);
    __xla_cpu_runtime_ParallelFor(&device, CountRange, &counts, 5000, 4, 4, kExpensive);
    ExpectEachItemOnce(counts);
  }  // `counts` is gone; its helper tasks are still queued.
  Counts after(10);
  release.Notify();
  // The queued helpers run now and find nothing to do; a later loop on the
  // same pool is unaffected.
  __xla_cpu_runtime_ParallelFor(&device, CountRange, &after, 10, 4, 4, kExpensive);
  ExpectEachItemOnce(after);
}

// A body that itself runs a parallel loop on the same pool (nested
// computations) completes: nobody blocks on a queue the pool cannot drain.
struct Nested {
  Eigen::ThreadPoolDevice* device;
  std::vector<std::unique_ptr<Counts>> inner;
};

void RunInner(void* context, int64_t begin, int64_t end) {
  auto* nested = static_cast<Nested*>(context);
  for (int64_t i = begin; i < end; ++i) {
    __xla_cpu_runtime_ParallelFor(nested->device, CountRange, nested->inner[i].get(), 300, 4, 4, kExpensive);
  }
}

TEST(RuntimeParallelTest, NestedLoopsOnTheSamePoolComplete) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  Nested nested{&device, {}};
  for (int i = 0; i < 16; ++i) nested.inner.push_back(std::make_unique<Counts>(300));
  __xla_cpu_runtime_ParallelFor(&device, RunInner, &nested, 16, 4, 4, kExpensive);
  for (const auto& counts : nested.inner) ExpectEachItemOnce(*counts);
}

}  // namespace
