#include "backends/host_memory_pool.h"

#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"

namespace xla {
namespace {

TEST(HostMemoryPoolTest, BlocksAreAlignedAndUsable) {
  HostMemoryPool pool(int64_t{64} << 20);
  for (int64_t bytes : {int64_t{1}, int64_t{63}, int64_t{65}, int64_t{4097}, int64_t{3} << 20}) {
    void* p = pool.Allocate(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % HostMemoryPool::kAlignment, 0u) << bytes;
    std::memset(p, 0xab, bytes);
    pool.Free(p, bytes);
  }
}

// Blocks of 2 MiB and more start on a huge-page boundary (so transparent
// huge pages can back them); smaller ones need not.
TEST(HostMemoryPoolTest, HugeBlocksAreHugePageAligned) {
  HostMemoryPool pool(0);
  for (int64_t bytes : {HostMemoryPool::kHugePageBytes, int64_t{5} << 20, (int64_t{16} << 20) + 4096}) {
    void* p = pool.Allocate(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % HostMemoryPool::kHugePageBytes, 0u) << bytes;
    std::memset(p, 0xcd, bytes);
    EXPECT_EQ(static_cast<unsigned char*>(p)[bytes - 1], 0xcd);
    pool.Free(p, bytes);
  }
}

TEST(HostMemoryPoolTest, LargeBlocksAreReusedForTheSameSize) {
  HostMemoryPool pool(int64_t{64} << 20);
  const int64_t bytes = int64_t{8} << 20;
  void* first = pool.Allocate(bytes);
  pool.Free(first, bytes);
  EXPECT_EQ(pool.cached_bytes(), bytes);
  void* again = pool.Allocate(bytes);
  EXPECT_EQ(again, first);
  EXPECT_EQ(pool.cached_bytes(), 0);
  // A different size does not get it.
  pool.Free(again, bytes);
  void* other = pool.Allocate(bytes * 2);
  EXPECT_NE(other, first);
  pool.Free(other, bytes * 2);
}

TEST(HostMemoryPoolTest, SmallBlocksAreNotCachedAndTheBoundHolds) {
  HostMemoryPool pool(int64_t{10} << 20);
  void* small = pool.Allocate(1000);
  pool.Free(small, 1000);
  EXPECT_EQ(pool.cached_bytes(), 0);
  const int64_t bytes = int64_t{4} << 20;
  void* a = pool.Allocate(bytes);
  void* b = pool.Allocate(bytes);
  void* c = pool.Allocate(bytes);
  pool.Free(a, bytes);
  pool.Free(b, bytes);
  pool.Free(c, bytes);  // over the 10 MiB bound: released
  EXPECT_EQ(pool.cached_bytes(), 2 * bytes);
}

}  // namespace
}  // namespace xla
