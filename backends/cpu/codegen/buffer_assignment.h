// BufferAssignment: where every value of a fused module (cpu_fusion.h)
// lives while the module runs, computed before any IR is emitted; the
// emitter (ir_emitter.h) only reads it.
//
// Per computation emitted as code (the entry, and the computations control
// flow runs), every value reachable from the root gets a tree of slots
// (one per array leaf):
//
//   parameter leaf N  the N-th array leaf of the computation's parameters;
//   result leaf N     written straight into the N-th result leaf (the root's
//                     leaves, when of the result's shape, each leaf once);
//   constant          the literal, a global of the module (one-element
//                     constants are immediates and have no buffer);
//   arena [b, e)      bytes of the run's scratch arena, shared by values
//                     whose live ranges (steps in emission order) do not
//                     overlap (arena_packing.h);
//   row scratch       a row-group member no one outside its group reads:
//                     one row of it, on the stack of the loop over rows.
//
// Control-flow instructions also get an arena slot for their temporaries,
// live only while they run.
//
// Tuples and get-tuple-element share their elements' slots (aliasing, no
// copy); result leaves that are parameters, constants or a value already in
// another result leaf are copied at the end (result_copies). Each
// computation's arena bytes lie above those of the computations assigned
// before it, so a while body's values never overlap its caller's.
#ifndef BACKENDS_CPU_CODEGEN_BUFFER_ASSIGNMENT_H_
#define BACKENDS_CPU_CODEGEN_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_module.h"
#include "xla/shape.h"

namespace xla {
namespace cpu {

// Where an array value lives.
struct BufferSlot {
  enum Kind { kNone, kParam, kResult, kArena, kGlobal, kRowScratch };
  Kind kind = kNone;
  int64_t index = 0;  // param/result leaf number or arena offset
  int64_t bytes = 0;  // arena: bytes the slot spans
};

// The slots of a value: one for an array, a tree for a tuple.
struct ValueTree {
  BufferSlot slot;
  Shape shape;
  // The array instruction whose value the leaf holds (its name names the
  // buffer); null for tuples.
  const HloInstruction* producer = nullptr;
  std::vector<std::shared_ptr<ValueTree>> elements;
  bool is_tuple = false;
};

// The shapes of a value's array leaves, depth-first.
std::vector<Shape> LeafShapes(const ValueTree& tree);

// A result leaf held elsewhere, copied into the result at the end.
struct ResultCopy {
  int64_t leaf = 0;
  std::shared_ptr<const ValueTree> source;
  Shape shape;  // the result leaf's shape (its layout may differ)
};

// A result leaf the entry's code may write into the buffer of an entry
// parameter when the caller donates that argument: an input_output_alias
// the assignment can honour in place (BufferAssignment::in_place_results).
struct InPlaceResult {
  int64_t result_leaf = 0;
  int64_t parameter = 0;
};

struct ComputationBuffers {
  const HloComputation* computation = nullptr;
  // Every value reachable from the root, and the members of its row-group
  // fusions (instructions of the fused computations).
  absl::flat_hash_map<const HloInstruction*, std::shared_ptr<const ValueTree>> values;
  std::vector<ResultCopy> result_copies;
  int64_t arena_begin = 0, arena_end = 0;
  // The arena buffers (for printing): leaf, live range, unrounded bytes.
  struct ArenaBuffer {
    const ValueTree* leaf;
    int64_t start, end;
  };
  std::vector<ArenaBuffer> arena_buffers;
  int64_t unshared_bytes = 0;  // what one buffer each would take
  // Arena slots the control-flow instructions use while they run: argument
  // leaves relaid to a called computation's parameter layouts, a while's
  // next state and predicate, branch results in another layout
  // (control_flow_emitter.cc takes them in that order).
  absl::flat_hash_map<const HloInstruction*, BufferSlot> control_flow_scratch;

  // The value of `hlo` (must be one of `values`).
  const ValueTree& ValueOf(const HloInstruction* hlo) const { return *values.at(hlo); }
};

class BufferAssignment {
 public:
  // Assigns every computation emitted as code; errors on values the CPU
  // backend cannot hold (tokens, non-array parameters, bad tuple indices).
  static absl::StatusOr<std::unique_ptr<BufferAssignment>> Run(const HloModule& module);

  // The computation's buffers, or null when it is not emitted as code.
  const ComputationBuffers* ForComputation(const HloComputation& computation) const;
  // The arena a run needs, 64-byte aligned.
  int64_t arena_bytes() const { return arena_bytes_; }
  // The module's input_output_aliases the code honours in place: the result
  // leaf is written directly by one instruction, no instruction reads the
  // parameter after it, and it reads the parameter only at the element it
  // writes (an elementwise op or loop fusion over it, or an all-reduce of
  // it, which reads its whole operand first), in the same layout. Others
  // are runs like any (the result in a buffer of its own).
  const std::vector<InPlaceResult>& in_place_results() const { return in_place_results_; }
  // Every computation's slots, one value per line (for --xla_dump_to).
  std::string ToString() const;

 private:
  absl::Status AssignComputation(const HloComputation& computation);
  void FindInPlaceResults(const HloModule& module);

  std::vector<std::unique_ptr<ComputationBuffers>> computations_;
  absl::flat_hash_map<const HloComputation*, const ComputationBuffers*> by_computation_;
  int64_t arena_bytes_ = 0;
  std::vector<InPlaceResult> in_place_results_;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_BUFFER_ASSIGNMENT_H_
