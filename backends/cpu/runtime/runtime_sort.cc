#include "backends/cpu/runtime/runtime_sort.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "backends/cpu/runtime/runtime_stop.h"

namespace {

// Thrown by a comparison once the stop flag is set: the only way out of
// std::stable_sort early (its buffers are freed on the way out).
struct Stopped {};

// Wraps `less(a, b)` with a read of the stop flag every
// kSortComparesPerStopCheck comparisons. The count lives outside: the sort
// copies its comparator into every sub-sort, and a count in each copy would
// start over there and never reach zero.
template <typename Less>
class StoppableLess {
 public:
  StoppableLess(Less less, const volatile uint8_t* stop, int64_t* compares_to_check)
      : less_(less), stop_(stop), compares_to_check_(compares_to_check) {}
  template <typename T>
  bool operator()(const T& a, const T& b) {
    if (--*compares_to_check_ == 0) {
      if (xla::cpu::StopRequested(stop_)) throw Stopped{};
      *compares_to_check_ = kSortComparesPerStopCheck;
    }
    return less_(a, b);
  }

 private:
  Less less_;
  const volatile uint8_t* stop_;
  int64_t* compares_to_check_;
};

// One operand of a plain element size: its values are sorted themselves
// (no index permutation to allocate, fill and apply). A strided slice is
// sorted in a contiguous copy.
template <typename Word>
void SortValues(int64_t length, char* base, int64_t byte_stride, XlaSortComparator less_than,
                const volatile uint8_t* stop) {
  auto less = [less_than](const Word& a, const Word& b) {
    const void* values[2] = {&a, &b};
    bool result = false;
    less_than(&result, values);
    return result;
  };
  int64_t compares_to_check = kSortComparesPerStopCheck;
  StoppableLess<decltype(less)> stoppable(less, stop, &compares_to_check);
  if (byte_stride == sizeof(Word)) {
    Word* begin = reinterpret_cast<Word*>(base);
    std::stable_sort(begin, begin + length, stoppable);
    return;
  }
  std::unique_ptr<Word[]> contiguous(new Word[length]);
  for (int64_t j = 0; j < length; ++j) std::memcpy(&contiguous[j], base + j * byte_stride, sizeof(Word));
  std::stable_sort(contiguous.get(), contiguous.get() + length, stoppable);
  for (int64_t j = 0; j < length; ++j) std::memcpy(base + j * byte_stride, &contiguous[j], sizeof(Word));
}

// Several operands (or an unusual element size): the positions are sorted
// as a permutation of `Index` (32 bits where the length allows, half the
// memory of 64), then every operand is permuted.
template <typename Index>
void SortByPermutation(int64_t length, int64_t num_operands, void* const* bases, const int64_t* byte_strides,
                       const int64_t* element_bytes, XlaSortComparator less_than, const volatile uint8_t* stop) {
  std::unique_ptr<Index[]> perm(new Index[length]);
  std::iota(perm.get(), perm.get() + length, Index{0});
  if (xla::cpu::StopRequested(stop)) return;
  absl::InlinedVector<const void*, 8> values(2 * num_operands);
  auto at = [&](int64_t i, int64_t j) { return static_cast<char*>(bases[i]) + j * byte_strides[i]; };
  auto less = [&](Index a, Index b) {
    for (int64_t i = 0; i < num_operands; ++i) {
      values[2 * i] = at(i, a);
      values[2 * i + 1] = at(i, b);
    }
    bool result = false;
    less_than(&result, values.data());
    return result;
  };
  int64_t compares_to_check = kSortComparesPerStopCheck;
  std::stable_sort(perm.get(), perm.get() + length, StoppableLess<decltype(less)>(less, stop, &compares_to_check));
  std::vector<char> sorted;
  for (int64_t i = 0; i < num_operands; ++i) {
    if (xla::cpu::StopRequested(stop)) return;
    const int64_t bytes = element_bytes[i];
    sorted.resize(length * bytes);
    for (int64_t j = 0; j < length; ++j) std::memcpy(sorted.data() + j * bytes, at(i, perm[j]), bytes);
    for (int64_t j = 0; j < length; ++j) std::memcpy(at(i, j), sorted.data() + j * bytes, bytes);
  }
}

}  // namespace

extern "C" void __xla_cpu_runtime_SortSlice(int64_t length, int64_t num_operands, void* const* bases,
                                            const int64_t* byte_strides, const int64_t* element_bytes,
                                            XlaSortComparator less_than, const volatile uint8_t* stop) {
  if (length <= 1 || num_operands <= 0 || xla::cpu::StopRequested(stop)) return;
  try {
    if (num_operands == 1) {
      char* base = static_cast<char*>(bases[0]);
      switch (element_bytes[0]) {
        case 1: return SortValues<uint8_t>(length, base, byte_strides[0], less_than, stop);
        case 2: return SortValues<uint16_t>(length, base, byte_strides[0], less_than, stop);
        case 4: return SortValues<uint32_t>(length, base, byte_strides[0], less_than, stop);
        case 8: return SortValues<uint64_t>(length, base, byte_strides[0], less_than, stop);
        default: break;
      }
    }
    if (length <= std::numeric_limits<uint32_t>::max()) {
      SortByPermutation<uint32_t>(length, num_operands, bases, byte_strides, element_bytes, less_than, stop);
    } else {
      SortByPermutation<int64_t>(length, num_operands, bases, byte_strides, element_bytes, less_than, stop);
    }
  } catch (const Stopped&) {
  }
}
