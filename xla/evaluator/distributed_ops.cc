// Tokens, side-effecting I/O and the collectives in the evaluator. The
// process this evaluation is (replica and partition ids), its feed queues
// and the rendezvous come from the ReplicaContext the caller set; without
// one the evaluation is process (0, 0) of a 1 x 1 run with empty queues.
// The collectives' data movement is xla/collectives/collective_ops.h (the
// CPU runtime runs the same code); all-reduce's and reduce-scatter's
// reducer computation is applied here element by element, in group order.
// Send appends its value to its channel in the context's ChannelTable and
// never waits; recv only starts (its value is zeros), recv-done takes the
// channel's oldest value, waiting up to the run's timeout.
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/collectives/collective_ops.h"
#include "xla/evaluator/evaluator_internal.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {
namespace {

// The caller's stop (the run's deadline or cancel, as the evaluator's stop
// flag) ends waits on queues and channels; the backend reports the stop.
absl::Status RunStopped() {
  return StopRequested() ? absl::AbortedError("HloEvaluator: stopped by the caller") : absl::OkStatus();
}

absl::StatusOr<Literal> EvaluateCollective(const HloInstruction& instruction, absl::Span<const Literal* const> operands,
                                           collectives::ReplicaContext* context, const ComputationRunner& run) {
  ASSIGN_OR_RETURN(collectives::CollectiveOp op, collectives::CollectiveOp::FromInstruction(instruction));
  // The evaluator's values are row-major whatever the declared layouts.
  for (Shape& s : op.operands) s = RowMajorShape(s);
  for (Shape& s : op.results) s = RowMajorShape(s);
  std::vector<const void*> in;
  for (const Literal* l : operands) in.push_back(l->untyped_data());
  std::vector<Literal> results;
  for (const Shape& s : op.results) results.emplace_back(s);
  std::vector<void*> out;
  for (Literal& l : results) out.push_back(l.untyped_data());
  collectives::Combiner combine = [&](int64_t i, void* acc, const void* other, int64_t count) -> absl::Status {
    if (instruction.called_computations().size() != 1 || instruction.called_computations()[0] == nullptr) {
      return InvalidArgument("HloEvaluator: %s needs a reducer computation", InstrLabel(instruction));
    }
    const HloComputation& reducer = *instruction.called_computations()[0];
    const Shape scalar = ShapeUtil::MakeScalarShape(op.operands[i].element_type());
    const int64_t width = ShapeUtil::ByteSizeOfElements(scalar);
    Literal a(scalar), b(scalar);
    for (int64_t k = 0; k < count; ++k) {
      std::memcpy(a.untyped_data(), static_cast<char*>(acc) + k * width, width);
      std::memcpy(b.untyped_data(), static_cast<const char*>(other) + k * width, width);
      const Literal* args[] = {&a, &b};
      ASSIGN_OR_RETURN(Literal r, run(reducer, args));
      if (!r.shape().Compatible(scalar)) {
        return InvalidArgument("HloEvaluator: %s: the reducer returned %s, not %s", InstrLabel(instruction),
                               r.shape().ToString(), scalar.ToString());
      }
      std::memcpy(static_cast<char*>(acc) + k * width, r.untyped_data(), width);
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(collectives::RunCollective(context, op, in, out, combine));
  if (!instruction.shape().IsTuple()) return std::move(results[0]);
  return Literal::MakeTuple(std::move(results));
}

}  // namespace

absl::StatusOr<Literal> EvaluateDistributed(const HloInstruction& instruction,
                                            absl::Span<const Literal* const> operands,
                                            collectives::ReplicaContext* context, const ComputationRunner& run) {
  switch (instruction.opcode()) {
    case HloOpcode::kAfterAll:
      return Literal::CreateToken();
    case HloOpcode::kReplicaId:
      return Literal::CreateR0<uint32_t>(context ? static_cast<uint32_t>(context->self().replica) : 0);
    case HloOpcode::kPartitionId:
      return Literal::CreateR0<uint32_t>(context ? static_cast<uint32_t>(context->self().partition) : 0);
    case HloOpcode::kInfeed: {
      const Shape& value_shape = instruction.shape().tuple_shapes(0);
      if (context == nullptr) {
        return FailedPrecondition("HloEvaluator: %s: this run has no infeed queue", InstrLabel(instruction));
      }
      ASSIGN_OR_RETURN(Literal value, context->PopInfeed(InstrLabel(instruction), RunStopped));
      if (!value.shape().Compatible(value_shape)) {
        return InvalidArgument("HloEvaluator: %s expects %s but the infeed queue held %s", InstrLabel(instruction),
                               value_shape.ToString(), value.shape().ToString());
      }
      std::vector<Literal> parts;
      parts.push_back(std::move(value));
      parts.push_back(Literal::CreateToken());
      return Literal::MakeTuple(std::move(parts));
    }
    case HloOpcode::kOutfeed:
      if (context == nullptr) {
        return FailedPrecondition("HloEvaluator: %s: this run has no outfeed queue", InstrLabel(instruction));
      }
      context->outfeed().Push(*operands[0]);
      return Literal::CreateToken();
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectiveBroadcast:
      return EvaluateCollective(instruction, operands, context, run);
    case HloOpcode::kSend:
    case HloOpcode::kRecv: {
      if (context == nullptr || context->channels() == nullptr) {
        return FailedPrecondition("HloEvaluator: %s: this run has no channel table", InstrLabel(instruction));
      }
      std::vector<Literal> parts;
      if (instruction.opcode() == HloOpcode::kSend) {
        context->channels()->Send(collectives::TransferChannel(instruction), *operands[0]);
        parts.push_back(*operands[0]);
      } else {
        parts.emplace_back(instruction.shape().tuple_shapes(0));
      }
      parts.push_back(Literal::CreateR0<uint32_t>(0));
      parts.push_back(Literal::CreateToken());
      return Literal::MakeTuple(std::move(parts));
    }
    case HloOpcode::kSendDone:
      return Literal::CreateToken();
    case HloOpcode::kRecvDone: {
      if (context == nullptr || context->channels() == nullptr) {
        return FailedPrecondition("HloEvaluator: %s: this run has no channel table", InstrLabel(instruction));
      }
      const Shape& value_shape = instruction.shape().tuple_shapes(0);
      ASSIGN_OR_RETURN(Literal value, context->Recv(collectives::TransferChannel(instruction), InstrLabel(instruction), RunStopped));
      if (!value.shape().Compatible(value_shape)) {
        return InvalidArgument("HloEvaluator: %s expects %s but the channel held %s", InstrLabel(instruction),
                               value_shape.ToString(), value.shape().ToString());
      }
      std::vector<Literal> parts;
      parts.push_back(std::move(value));
      parts.push_back(Literal::CreateToken());
      return Literal::MakeTuple(std::move(parts));
    }
    default:
      return Internal("HloEvaluator: %s is not a distributed op", InstrLabel(instruction));
  }
}

}  // namespace evaluator_internal
}  // namespace xla
