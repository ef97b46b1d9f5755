#include "backends/cpu/runtime/runtime_sort.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "backends/cpu/runtime/runtime_stop.h"

extern "C" void __xla_cpu_runtime_SortSlice(int64_t length, int64_t num_operands, void* const* bases,
                                            const int64_t* byte_strides, const int64_t* element_bytes,
                                            XlaSortComparator less_than, const volatile uint8_t* stop) {
  if (length <= 1 || num_operands <= 0 || xla::cpu::StopRequested(stop)) return;
  std::vector<int64_t> perm(length);
  std::iota(perm.begin(), perm.end(), int64_t{0});
  absl::InlinedVector<const void*, 8> values(2 * num_operands);
  auto at = [&](int64_t i, int64_t j) { return static_cast<char*>(bases[i]) + j * byte_strides[i]; };
  // A stop leaves std::stable_sort by an exception from the comparison (its
  // buffers are freed on the way out): there is no other way out early.
  struct Stopped {};
  int64_t compares_to_check = kSortComparesPerStopCheck;
  try {
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      if (--compares_to_check == 0) {
        if (xla::cpu::StopRequested(stop)) throw Stopped{};
        compares_to_check = kSortComparesPerStopCheck;
      }
      for (int64_t i = 0; i < num_operands; ++i) {
        values[2 * i] = at(i, a);
        values[2 * i + 1] = at(i, b);
      }
      bool result = false;
      less_than(&result, values.data());
      return result;
    });
  } catch (const Stopped&) {
    return;
  }
  std::vector<char> sorted;
  for (int64_t i = 0; i < num_operands; ++i) {
    const int64_t bytes = element_bytes[i];
    sorted.resize(length * bytes);
    for (int64_t j = 0; j < length; ++j) std::memcpy(sorted.data() + j * bytes, at(i, perm[j]), bytes);
    for (int64_t j = 0; j < length; ++j) std::memcpy(at(i, j), sorted.data() + j * bytes, bytes);
  }
}
