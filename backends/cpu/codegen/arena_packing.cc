#include "backends/cpu/codegen/arena_packing.h"

#include <algorithm>
#include <numeric>

namespace xla {
namespace cpu {

ArenaLayout AssignArenaOffsets(absl::Span<const BufferInterval> intervals, int64_t alignment) {
  ArenaLayout layout;
  const size_t n = intervals.size();
  layout.offsets.assign(n, 0);
  std::vector<int64_t> sizes(n);
  for (size_t i = 0; i < n; ++i) {
    sizes[i] = (std::max<int64_t>(intervals[i].bytes, 1) + alignment - 1) / alignment * alignment;
    layout.total_bytes += sizes[i];
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b]) return sizes[a] > sizes[b];
    return intervals[a].start < intervals[b].start;
  });
  // Placed buffers whose live ranges overlap the one being placed, by offset.
  std::vector<size_t> placed;
  std::vector<std::pair<int64_t, int64_t>> busy;  // [offset, offset + size)
  for (size_t i : order) {
    busy.clear();
    for (size_t j : placed) {
      if (intervals[j].start <= intervals[i].end && intervals[i].start <= intervals[j].end) {
        busy.push_back({layout.offsets[j], layout.offsets[j] + sizes[j]});
      }
    }
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (begin - offset >= sizes[i]) break;
      offset = std::max(offset, end);
    }
    layout.offsets[i] = offset;
    layout.peak_bytes = std::max(layout.peak_bytes, offset + sizes[i]);
    placed.push_back(i);
  }
  return layout;
}

}  // namespace cpu
}  // namespace xla
