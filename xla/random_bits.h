// The bit streams of rng-bit-generator, exactly XLA's, so programs that JAX
// exported with their expected values give the same numbers here. XLA
// defines them in HLO (its RngBitGeneratorExpander and prng library); this is
// the same arithmetic on scalars:
//
// THREE_FRY (state u64[2] = [key, counter]): Threefry-2x32 with 20 rounds
//   (Salmon et al., SC 2011). 64-bit outputs: element i (row-major) is the
//   block of counter + i, low word first. 32-bit outputs: the shape is split
//   in halves along its first even dimension (else its largest), each block
//   giving the elements 2h and 2h + 1 of that dimension; a scalar takes the
//   first word of block 0. Narrower outputs: the low bits of the 32-bit
//   stream. The counter advances by the number of blocks used.
// PHILOX (state u64[3] = [key, counter low, counter high], or u64[2] =
//   [key, counter], whose 128-bit counter is (low = state[1], high =
//   state[0]) as XLA's expander reads it): Philox-4x32 with 10 rounds. 32-bit
//   outputs are the four words of block 0, then of block 1, ...; 64-bit
//   outputs two per block (words 0|1 and 2|3); narrower: low bits of the
//   32-bit stream. The 128-bit counter advances by the number of blocks; a
//   u64[2] state keeps only its low half.
// DEFAULT is PHILOX, the algorithm XLA's CPU backend chooses.
// Float outputs are the bits of the unsigned stream of their width.
#ifndef XLA_RANDOM_BITS_H_
#define XLA_RANDOM_BITS_H_

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "proto/xla_data.pb.h"

namespace xla {

// One Threefry-2x32 (20 rounds) block and one Philox-4x32 (10 rounds) block.
std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> counter, std::array<uint32_t, 2> key);
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// Checks the state size for `algorithm` and the output width (8, 16, 32 or
// 64 bits).
absl::Status CheckRandomBitsArguments(RandomAlgorithm algorithm, int64_t state_size, int bit_width);

// Fills `out` (row-major elements of `dims`, `bit_width` bits each, little
// endian) and writes the next state (same size as `state`) to `new_state`.
absl::Status GenerateRandomBits(RandomAlgorithm algorithm, absl::Span<const uint64_t> state,
                                absl::Span<const int64_t> dims, int bit_width, void* out,
                                absl::Span<uint64_t> new_state);

}  // namespace xla

#endif  // XLA_RANDOM_BITS_H_
