// Liveness-based placement of a computation's intermediate buffers in the
// run's arena (the heap simulator of buffer_assignment.h): buffers whose
// live ranges do not overlap may share bytes.
// Placement is "largest first, lowest fitting offset" (as XLA's heap
// simulator does by default), which packs well for the few-large-many-small
// mix of real models.
#ifndef BACKENDS_CPU_CODEGEN_ARENA_PACKING_H_
#define BACKENDS_CPU_CODEGEN_ARENA_PACKING_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace xla {
namespace cpu {

// A buffer live from the step that writes it (`start`) through the last
// step that reads it (`end`, inclusive). Steps are positions in emission
// order; a buffer read at step s is never given to a buffer defined at s
// (an instruction's output never overlaps its own operands).
struct BufferInterval {
  int64_t start = 0;
  int64_t end = 0;
  int64_t bytes = 0;
};

struct ArenaLayout {
  std::vector<int64_t> offsets;  // per interval, multiples of `alignment`
  int64_t peak_bytes = 0;        // arena bytes needed
  int64_t total_bytes = 0;       // what one buffer each would take
};

ArenaLayout AssignArenaOffsets(absl::Span<const BufferInterval> intervals, int64_t alignment);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_ARENA_PACKING_H_
