#include "xla/random_bits.h"

#include <array>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace xla {
namespace {

// Known-answer vectors of Random123 (the generators' reference
// implementation), which JAX's tests also use for Threefry-2x32.
TEST(RandomBitsTest, ThreeFryKnownAnswers) {
  EXPECT_EQ(ThreeFry2x32({0, 0}, {0, 0}), (std::array<uint32_t, 2>{0x6b200159, 0x99ba4efe}));
  EXPECT_EQ(ThreeFry2x32({0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (std::array<uint32_t, 2>{0x1cb996fc, 0xbb002be7}));
  EXPECT_EQ(ThreeFry2x32({0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}),
            (std::array<uint32_t, 2>{0xc4923a9c, 0x483df7a0}));
}

TEST(RandomBitsTest, PhiloxKnownAnswers) {
  EXPECT_EQ(Philox4x32({0, 0, 0, 0}, {0, 0}), (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// 64-bit THREE_FRY: element i is the block of counter + i, low word first;
// the counter advances by the element count.
TEST(RandomBitsTest, ThreeFry64BitLayoutAndState) {
  const uint64_t key = 0x0000000400000001, counter = 0x0000000100000000;
  std::vector<uint64_t> out(6);
  std::vector<uint64_t> next(2);
  ASSERT_TRUE(GenerateRandomBits(RNG_THREE_FRY, {key, counter}, {2, 3}, 64, out.data(), absl::MakeSpan(next)).ok());
  for (int i = 0; i < 6; ++i) {
    const std::array<uint32_t, 2> w = ThreeFry2x32({static_cast<uint32_t>(counter + i), static_cast<uint32_t>((counter + i) >> 32)}, {1, 4});
    EXPECT_EQ(out[i], uint64_t{w[0]} | (uint64_t{w[1]} << 32)) << i;
  }
  EXPECT_EQ(next, (std::vector<uint64_t>{key, counter + 6}));
}

// 32-bit THREE_FRY: split along the first even dimension; block h gives
// elements 2h and 2h + 1 along it. [3, 4] splits dimension 1: blocks over
// [3, 2], block (r, c) -> elements (r, 2c), (r, 2c + 1).
TEST(RandomBitsTest, ThreeFry32BitSplitsTheFirstEvenDimension) {
  std::vector<uint32_t> out(12);
  std::vector<uint64_t> next(2);
  ASSERT_TRUE(GenerateRandomBits(RNG_THREE_FRY, {7, 100}, {3, 4}, 32, out.data(), absl::MakeSpan(next)).ok());
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 2; ++c) {
      const std::array<uint32_t, 2> w = ThreeFry2x32({static_cast<uint32_t>(100 + r * 2 + c), 0}, {7, 0});
      EXPECT_EQ(out[r * 4 + 2 * c], w[0]);
      EXPECT_EQ(out[r * 4 + 2 * c + 1], w[1]);
    }
  }
  EXPECT_EQ(next[1], 106u);
  // All odd: the largest dimension (5) splits into 3 blocks, the last half
  // used; u16 takes the low bits.
  std::vector<uint16_t> narrow(15);
  ASSERT_TRUE(GenerateRandomBits(RNG_THREE_FRY, {7, 0}, {3, 5}, 16, narrow.data(), absl::MakeSpan(next)).ok());
  EXPECT_EQ(next[1], 9u);  // 3 x 3 blocks
  const std::array<uint32_t, 2> last = ThreeFry2x32({8, 0}, {7, 0});  // block (2, 2)
  EXPECT_EQ(narrow[2 * 5 + 4], static_cast<uint16_t>(last[0]));
  // A scalar: word 0 of block 0.
  uint32_t scalar = 0;
  ASSERT_TRUE(GenerateRandomBits(RNG_THREE_FRY, {7, 0}, {}, 32, &scalar, absl::MakeSpan(next)).ok());
  EXPECT_EQ(scalar, ThreeFry2x32({0, 0}, {7, 0})[0]);
  EXPECT_EQ(next[1], 1u);
}

// PHILOX: four words per block in order; the 128-bit counter carries; a
// u64[2] state is (key, counter low) with the key as the counter's high half.
TEST(RandomBitsTest, PhiloxWordsAndCounter) {
  std::vector<uint32_t> out(6);
  std::vector<uint64_t> next(3);
  const uint64_t low = 0xffffffffffffffff;
  ASSERT_TRUE(GenerateRandomBits(RNG_PHILOX, {5, low, 9}, {6}, 32, out.data(), absl::MakeSpan(next)).ok());
  const auto b0 = Philox4x32({0xffffffff, 0xffffffff, 9, 0}, {5, 0});
  const auto b1 = Philox4x32({0, 0, 10, 0}, {5, 0});  // the carry into the high half
  EXPECT_EQ(out, (std::vector<uint32_t>{b0[0], b0[1], b0[2], b0[3], b1[0], b1[1]}));
  EXPECT_EQ(next, (std::vector<uint64_t>{5, 1, 10}));

  std::vector<uint64_t> wide(3);
  std::vector<uint64_t> next2(2);
  ASSERT_TRUE(GenerateRandomBits(RNG_PHILOX, {5, 2}, {3}, 64, wide.data(), absl::MakeSpan(next2)).ok());
  const auto c0 = Philox4x32({2, 0, 5, 0}, {5, 0});
  const auto c1 = Philox4x32({3, 0, 5, 0}, {5, 0});
  EXPECT_EQ(wide, (std::vector<uint64_t>{uint64_t{c0[0]} | uint64_t{c0[1]} << 32, uint64_t{c0[2]} | uint64_t{c0[3]} << 32,
                                         uint64_t{c1[0]} | uint64_t{c1[1]} << 32}));
  EXPECT_EQ(next2, (std::vector<uint64_t>{5, 4}));
}

TEST(RandomBitsTest, BadArguments) {
  std::vector<uint64_t> next(3);
  uint32_t out = 0;
  EXPECT_FALSE(GenerateRandomBits(RNG_THREE_FRY, {1, 2, 3}, {}, 32, &out, absl::MakeSpan(next)).ok());
  EXPECT_FALSE(GenerateRandomBits(RNG_PHILOX, {1}, {}, 32, &out, absl::MakeSpan(next).subspan(0, 1)).ok());
  EXPECT_FALSE(CheckRandomBitsArguments(RNG_PHILOX, 2, 1).ok());
  EXPECT_FALSE(CheckRandomBitsArguments(static_cast<RandomAlgorithm>(9), 2, 32).ok());
  EXPECT_TRUE(CheckRandomBitsArguments(RNG_DEFAULT, 3, 8).ok());
}

}  // namespace
}  // namespace xla
