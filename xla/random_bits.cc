#include "xla/random_bits.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xla {
namespace {

uint32_t RotateLeft(uint32_t v, int distance) { return (v << distance) | (v >> (32 - distance)); }

std::array<uint32_t, 2> Split(uint64_t v) {
  return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
}
uint64_t Join(uint32_t low, uint32_t high) { return uint64_t{low} | (uint64_t{high} << 32); }

// Stores the low `bit_width` bits of `v` as element `i` of `out`.
void Store(void* out, int bit_width, int64_t i, uint64_t v) {
  switch (bit_width) {
    case 8: static_cast<uint8_t*>(out)[i] = static_cast<uint8_t>(v); break;
    case 16: static_cast<uint16_t*>(out)[i] = static_cast<uint16_t>(v); break;
    case 32: static_cast<uint32_t*>(out)[i] = static_cast<uint32_t>(v); break;
    default: static_cast<uint64_t*>(out)[i] = v; break;
  }
}

int64_t Product(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// THREE_FRY 32-bit (and narrower) outputs: the halves split of XLA's prng.
// Returns the number of blocks used.
int64_t ThreeFryWords(uint64_t key, uint64_t counter, absl::Span<const int64_t> dims, int bit_width, void* out) {
  const std::array<uint32_t, 2> k = Split(key);
  if (dims.empty()) {
    Store(out, bit_width, 0, ThreeFry2x32(Split(counter), k)[0]);
    return 1;
  }
  const int rank = static_cast<int>(dims.size());
  int split = -1;
  for (int d = 0; d < rank && split < 0; ++d) {
    if (dims[d] % 2 == 0) split = d;
  }
  if (split < 0) {
    for (int d = 0; d < rank; ++d) {
      if (split < 0 || dims[d] > dims[split]) split = d;
    }
  }
  std::vector<int64_t> half(dims.begin(), dims.end());
  half[split] = (dims[split] + 1) / 2;
  const int64_t blocks = Product(half);
  // Row-major strides of the output, to place each block's two words.
  std::vector<int64_t> stride(rank, 1);
  for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * dims[d + 1];
  std::vector<int64_t> index(rank, 0);  // of the half shape
  for (int64_t b = 0; b < blocks; ++b) {
    const std::array<uint32_t, 2> words = ThreeFry2x32(Split(counter + static_cast<uint64_t>(b)), k);
    int64_t base = 0;
    for (int d = 0; d < rank; ++d) base += (d == split ? 2 * index[d] : index[d]) * stride[d];
    Store(out, bit_width, base, words[0]);
    if (2 * index[split] + 1 < dims[split]) Store(out, bit_width, base + stride[split], words[1]);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < half[d]) break;
      index[d] = 0;
    }
  }
  return blocks;
}

// A 128-bit counter plus `n`, carried into the high half.
std::array<uint64_t, 2> Add128(std::array<uint64_t, 2> c, uint64_t n) {
  const uint64_t low = c[0] + n;
  return {low, low < c[0] ? c[1] + 1 : c[1]};
}

}  // namespace

std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> counter, std::array<uint32_t, 2> key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]};
  uint32_t x0 = counter[0] + ks[0], x1 = counter[1] + ks[1];
  // Five groups of four rounds, each followed by a key injection.
  for (int group = 0; group < 5; ++group) {
    for (int r = 0; r < 4; ++r) {
      x0 += x1;
      x1 = RotateLeft(x1, kRotations[(group % 2) * 4 + r]) ^ x0;
    }
    x0 += ks[(group + 1) % 3];
    x1 += ks[(group + 2) % 3] + static_cast<uint32_t>(group + 1);
  }
  return {x0, x1};
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> x, std::array<uint32_t, 2> key) {
  constexpr uint64_t kMultiplier0 = 0xD2511F53, kMultiplier1 = 0xCD9E8D57;
  constexpr uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = kMultiplier0 * x[0], p1 = kMultiplier1 * x[2];
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1], static_cast<uint32_t>(p0)};
    key = {key[0] + kWeyl0, key[1] + kWeyl1};
  }
  return x;
}

absl::Status CheckRandomBitsArguments(RandomAlgorithm algorithm, int64_t state_size, int bit_width) {
  if (bit_width != 8 && bit_width != 16 && bit_width != 32 && bit_width != 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("rng-bit-generator: output elements must have 8, 16, 32 or 64 bits, got ", bit_width));
  }
  switch (algorithm) {
    case RNG_THREE_FRY:
      if (state_size != 2) {
        return absl::InvalidArgumentError(
            absl::StrCat("rng-bit-generator: THREE_FRY needs a u64[2] state, got ", state_size, " elements"));
      }
      return absl::OkStatus();
    case RNG_DEFAULT:
    case RNG_PHILOX:
      if (state_size != 2 && state_size != 3) {
        return absl::InvalidArgumentError(
            absl::StrCat("rng-bit-generator: PHILOX needs a u64[2] or u64[3] state, got ", state_size, " elements"));
      }
      return absl::OkStatus();
    default:
      return absl::InvalidArgumentError(absl::StrCat("rng-bit-generator: unknown algorithm ", algorithm));
  }
}

absl::Status GenerateRandomBits(RandomAlgorithm algorithm, absl::Span<const uint64_t> state,
                                absl::Span<const int64_t> dims, int bit_width, void* out,
                                absl::Span<uint64_t> new_state) {
  if (absl::Status s = CheckRandomBitsArguments(algorithm, static_cast<int64_t>(state.size()), bit_width); !s.ok()) {
    return s;
  }
  if (new_state.size() != state.size()) return absl::InvalidArgumentError("rng-bit-generator: state size mismatch");
  const int64_t n = Product(dims);
  const uint64_t key = state[0];
  if (algorithm == RNG_THREE_FRY) {
    const uint64_t counter = state[1];
    int64_t blocks;
    if (bit_width == 64) {
      const std::array<uint32_t, 2> k = Split(key);
      for (int64_t i = 0; i < n; ++i) {
        const std::array<uint32_t, 2> w = ThreeFry2x32(Split(counter + static_cast<uint64_t>(i)), k);
        static_cast<uint64_t*>(out)[i] = Join(w[0], w[1]);
      }
      blocks = n;
    } else {
      blocks = ThreeFryWords(key, counter, dims, bit_width, out);
    }
    new_state[0] = key;
    new_state[1] = counter + static_cast<uint64_t>(blocks);
    return absl::OkStatus();
  }
  // PHILOX (and DEFAULT).
  const bool long_state = state.size() == 3;
  const std::array<uint64_t, 2> counter = long_state ? std::array<uint64_t, 2>{state[1], state[2]}
                                                     : std::array<uint64_t, 2>{state[1], state[0]};
  const std::array<uint32_t, 2> k = Split(key);
  const int64_t words = bit_width == 64 ? 2 * n : n;
  const int64_t blocks = (words + 3) / 4;
  for (int64_t b = 0; b < blocks; ++b) {
    const std::array<uint64_t, 2> c = Add128(counter, static_cast<uint64_t>(b));
    const std::array<uint32_t, 2> low = Split(c[0]), high = Split(c[1]);
    const std::array<uint32_t, 4> w = Philox4x32({low[0], low[1], high[0], high[1]}, k);
    if (bit_width == 64) {
      for (int j = 0; j < 2 && 2 * b + j < n; ++j) Store(out, 64, 2 * b + j, Join(w[2 * j], w[2 * j + 1]));
    } else {
      for (int j = 0; j < 4 && 4 * b + j < n; ++j) Store(out, bit_width, 4 * b + j, w[j]);
    }
  }
  const std::array<uint64_t, 2> next = Add128(counter, static_cast<uint64_t>(blocks));
  new_state[0] = key;
  new_state[1] = next[0];
  if (long_state) new_state[2] = next[1];
  return absl::OkStatus();
}

}  // namespace xla
