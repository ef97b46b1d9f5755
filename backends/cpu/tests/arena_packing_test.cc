#include "backends/cpu/codegen/arena_packing.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

// No two buffers that are live at the same step may share a byte.
void ExpectNoConflicts(const std::vector<BufferInterval>& intervals, const ArenaLayout& layout, int64_t alignment) {
  ASSERT_EQ(layout.offsets.size(), intervals.size());
  for (size_t i = 0; i < intervals.size(); ++i) {
    EXPECT_EQ(layout.offsets[i] % alignment, 0);
    EXPECT_LE(layout.offsets[i] + intervals[i].bytes, layout.peak_bytes);
    for (size_t j = i + 1; j < intervals.size(); ++j) {
      const bool live_together = intervals[i].start <= intervals[j].end && intervals[j].start <= intervals[i].end;
      const bool share_bytes = layout.offsets[i] < layout.offsets[j] + std::max<int64_t>(intervals[j].bytes, 1) &&
                               layout.offsets[j] < layout.offsets[i] + std::max<int64_t>(intervals[i].bytes, 1);
      EXPECT_FALSE(live_together && share_bytes) << "buffers " << i << " and " << j;
    }
  }
}

TEST(ArenaPackingTest, ChainReusesTwoBuffers) {
  // a -> b -> c -> d, each read only by the next: two slots suffice.
  std::vector<BufferInterval> chain = {{0, 1, 1000}, {1, 2, 1000}, {2, 3, 1000}, {3, 4, 1000}};
  ArenaLayout layout = AssignArenaOffsets(chain, 64);
  ExpectNoConflicts(chain, layout, 64);
  EXPECT_EQ(layout.total_bytes, 4 * 1024);
  EXPECT_EQ(layout.peak_bytes, 2 * 1024);
  EXPECT_EQ(layout.offsets[0], layout.offsets[2]);
}

TEST(ArenaPackingTest, AnOutputNeverOverlapsAnOperandReadAtItsStep) {
  // b is defined at step 1, where a is last read.
  std::vector<BufferInterval> v = {{0, 1, 256}, {1, 1, 256}};
  ArenaLayout layout = AssignArenaOffsets(v, 64);
  EXPECT_NE(layout.offsets[0], layout.offsets[1]);
}

TEST(ArenaPackingTest, SmallBuffersFillHolesLeftByLargeOnes) {
  std::vector<BufferInterval> v = {{0, 2, 4096}, {3, 5, 1024}, {3, 5, 1024}, {1, 4, 64}};
  ArenaLayout layout = AssignArenaOffsets(v, 64);
  ExpectNoConflicts(v, layout, 64);
  EXPECT_EQ(layout.peak_bytes, 4096 + 64);
}

TEST(ArenaPackingTest, RandomIntervalsNeverConflict) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<BufferInterval> v;
    const int n = 1 + rng() % 60;
    for (int i = 0; i < n; ++i) {
      BufferInterval b;
      b.start = rng() % 40;
      b.end = b.start + rng() % 10;
      b.bytes = rng() % 3 == 0 ? 0 : 1 + rng() % 5000;
      v.push_back(b);
    }
    ArenaLayout layout = AssignArenaOffsets(v, 64);
    ExpectNoConflicts(v, layout, 64);
    EXPECT_LE(layout.peak_bytes, layout.total_bytes);
  }
}

TEST(ArenaPackingTest, Empty) {
  ArenaLayout layout = AssignArenaOffsets({}, 64);
  EXPECT_EQ(layout.peak_bytes, 0);
  EXPECT_TRUE(layout.offsets.empty());
}

}  // namespace
}  // namespace cpu
}  // namespace xla
