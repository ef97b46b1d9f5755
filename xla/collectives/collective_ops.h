// The collective ops as one process runs them: the data a process sends,
// what it receives, and how the received pieces combine, on row-major
// array bytes. The evaluator and the CPU runtime both call RunCollective,
// so the backends agree by construction; only all-reduce's reducer is the
// caller's (the evaluator runs the reducer computation, the CPU backend an
// emitted function).
//
// all-reduce folds the group's contributions in group order:
// acc = x[g0]; acc = f(acc, x[g1]); ... (float sums round in that order),
// unless the communicator reduces natively (a group across hosts with a
// sum, product, minimum or maximum: GlooCommunicator says in which order).
// all-gather concatenates them along `dimension` in group order.
// reduce-scatter folds like all-reduce and keeps the group member's part:
// the fold split along `dimension` into group-size parts, part
// index_of(self, group). all-to-all with a dimension (split and concat
// dimension are one, as in XLA's HLO) splits each operand along it into
// group-size parts and sends part j to member j; a member's result is the
// parts it received, concatenated along the dimension in group order. The
// tuple form (no dimension) has one operand per member: operand j goes to
// member j, and result j is what member j sent.
// collective-permute: a process that is the target of a pair receives its
// source's operand, any other gets zeros. collective-broadcast: every
// member of a group receives the group's first member's operand; a process
// in no group gets zeros.
#ifndef XLA_COLLECTIVES_COLLECTIVE_OPS_H_
#define XLA_COLLECTIVES_COLLECTIVE_OPS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/hlo.pb.h"
#include "xla/collectives/replica_context.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_opcode.h"
#include "xla/shape.h"

namespace xla {
namespace collectives {

// Everything a process needs to take part in one collective instruction,
// independent of the IR (the CPU backend embeds it in its code as the
// serialized proto of ToProto).
struct CollectiveOp {
  HloOpcode opcode = HloOpcode::kAllReduce;
  std::string name;               // the instruction's (module-unique) name
  std::vector<Shape> operands;    // row-major arrays
  std::vector<Shape> results;     // the result's leaves, row-major arrays
  std::vector<std::vector<int64_t>> replica_groups;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  int64_t channel_id = 0;
  bool use_global_device_ids = false;
  int64_t dimension = 0;  // all-gather, reduce-scatter, all-to-all
  bool has_dimension = false;  // all-to-all: array form (else the tuple form)
  // all-reduce, reduce-scatter: to_apply when it is a sum, product, minimum
  // or maximum of its two parameters (a transport may then reduce natively).
  ReductionKind reduction = ReductionKind::kNone;

  // The instruction's attributes and shapes (operand shapes in
  // operand_shapes_with_layout).
  static HloInstructionProto ToProto(const HloInstruction& instruction);
  static absl::StatusOr<CollectiveOp> FromProto(const HloInstructionProto& proto);
  static absl::StatusOr<CollectiveOp> FromInstruction(const HloInstruction& instruction);
};

// The channel of a send, recv, send-done or recv-done: its channel_id, or
// for a -done op that has none, its operand's (the send or recv it ends).
int64_t TransferChannel(const HloInstruction& instruction);

// Combines `count` elements of operand `operand`: accumulator[i] =
// f(accumulator[i], other[i]).
using Combiner = std::function<absl::Status(int64_t operand, void* accumulator, const void* other, int64_t count)>;

// Runs `op` as process context->self(): sends its part, waits for the
// others (the rendezvous' timeout bounds the wait) and writes the result
// leaves. `context` may be null (a single process). `combine` is used by
// all-reduce and reduce-scatter only.
absl::Status RunCollective(ReplicaContext* context, const CollectiveOp& op, absl::Span<const void* const> operands,
                           absl::Span<void* const> results, const Combiner& combine);

}  // namespace collectives
}  // namespace xla

#endif  // XLA_COLLECTIVES_COLLECTIVE_OPS_H_
