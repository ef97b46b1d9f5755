// Sort's runtime: JIT code calls it once per 1-D slice along the sort
// dimension, with the operands' slices (already copied into the result
// buffers, sorted in place) and the comparator it emitted.
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_SORT_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_SORT_H_

#include <cstdint>

constexpr int64_t kSortComparesPerStopCheck = 4096;

extern "C" {
// The comparator: `values` holds 2N pointers, to lhs and rhs of operand 0,
// then of operand 1, ...; it writes whether lhs goes before rhs.
using XlaSortComparator = void (*)(bool* result, const void* const* values);

// Sorts a slice of `length` positions of `num_operands` operands together:
// operand i's element at position j is `element_bytes[i]` bytes at
// bases[i] + j * byte_strides[i]. One operand of 1, 2, 4 or 8-byte elements
// is sorted by value; otherwise the positions are sorted as an index
// permutation by `less_than` on their elements, then every operand is
// permuted. The sort is stable, also for a sort with is_stable = false,
// where any order of equal elements is allowed (so the result is the
// reference evaluator's): std::sort's unguarded loops can run past the slice under a
// comparator that is not a strict weak order (LE, say), which a program may
// hold; std::stable_sort never does.
// `stop` (may be null): the run's stop flag (runtime_stop.h), read every
// kSortComparesPerStopCheck comparisons; once it is set the slice is left
// partly sorted.
void __xla_cpu_runtime_SortSlice(int64_t length, int64_t num_operands, void* const* bases,
                                 const int64_t* byte_strides, const int64_t* element_bytes,
                                 XlaSortComparator less_than, const volatile uint8_t* stop);
}

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_SORT_H_
