#include "backends/cpu/runtime/runtime_random.h"

#include "absl/types/span.h"
#include "xla/random_bits.h"

extern "C" void __xla_cpu_runtime_RngBitGenerator(int32_t algorithm, const uint64_t* state, int64_t state_size,
                                                  const int64_t* dims, int64_t rank, int32_t bit_width, void* out,
                                                  uint64_t* new_state) {
  if (!xla::RandomAlgorithm_IsValid(algorithm)) return;
  xla::GenerateRandomBits(static_cast<xla::RandomAlgorithm>(algorithm),
                          absl::MakeConstSpan(state, static_cast<size_t>(state_size)),
                          absl::MakeConstSpan(dims, static_cast<size_t>(rank)), bit_width, out,
                          absl::MakeSpan(new_state, static_cast<size_t>(state_size)))
      .IgnoreError();
}
