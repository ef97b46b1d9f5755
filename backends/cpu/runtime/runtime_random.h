// rng-bit-generator's runtime entry: XLA's THREE_FRY/PHILOX bit streams
// (xla/random_bits.h, the evaluator's own definition) into an output buffer.
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_RANDOM_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_RANDOM_H_

#include <cstdint>

extern "C" {
// `algorithm` is a RandomAlgorithm; `state` has `state_size` u64s and
// `new_state` room for as many; `out` holds the row-major elements of
// `dims` (`rank` of them), `bit_width` bits each. The compiler has checked
// the arguments (shape inference); invalid ones leave the outputs untouched.
void __xla_cpu_runtime_RngBitGenerator(int32_t algorithm, const uint64_t* state, int64_t state_size,
                                       const int64_t* dims, int64_t rank, int32_t bit_width, void* out,
                                       uint64_t* new_state);
}

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_RANDOM_H_
