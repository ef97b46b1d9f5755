// HloEvaluator: the reference semantics of every op (the executable
// definition the backends are tested against). Straightforward loops over
// Literals; clarity over speed. An instance keeps per-call caches: use one
// instance per thread.
#ifndef XLA_EVALUATOR_HLO_EVALUATOR_H_
#define XLA_EVALUATOR_HLO_EVALUATOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/collectives/replica_context.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_module.h"
#include "xla/literal.h"

namespace xla {

class HloEvaluator {
 public:
  // `max_loop_iterations` bounds every While (negative: unbounded), so a
  // runaway loop becomes an error instead of a hang.
  explicit HloEvaluator(int64_t max_loop_iterations = -1) : max_loop_iterations_(max_loop_iterations) {}
  // Asked before every While iteration; true ends the evaluation (ABORTED).
  void set_should_stop(std::function<bool()> should_stop) { should_stop_ = std::move(should_stop); }
  // Read before every instruction (of every computation, reducers applied
  // per element included); nonzero ends the evaluation (ABORTED). Not owned.
  void set_stop_flag(const std::atomic<uint8_t>* stop_flag) { stop_flag_ = stop_flag; }
  // The process this evaluation runs as (replica and partition ids, feed
  // queues, the rendezvous of the collectives); null: process (0, 0) of a
  // 1 x 1 run without feed queues. Not owned.
  void set_replica_context(collectives::ReplicaContext* context) { replica_context_ = context; }

  // Runs the entry computation. Arguments must match the parameter shapes
  // (layouts may differ); the result is in the root's layout.
  absl::StatusOr<Literal> Evaluate(const HloModule& module, absl::Span<const Literal* const> args);
  absl::StatusOr<Literal> Evaluate(const HloComputation& computation,
                                   absl::Span<const Literal* const> args);
  // One instruction on given operand values (for constant folding).
  absl::StatusOr<Literal> EvaluateInstruction(const HloInstruction& instruction,
                                              absl::Span<const Literal* const> operands);

 private:
  // Evaluates `computation` on arguments held in row-major layout (checked
  // against the parameters); the result is row-major too.
  absl::StatusOr<Literal> EvaluateRowMajor(const HloComputation& computation,
                                           absl::Span<const Literal* const> args);
  absl::StatusOr<Literal> EvaluateSteps(const HloComputation& computation,
                                        absl::Span<const Literal* const> args);
  // One instruction other than a parameter, on row-major operand values.
  absl::StatusOr<Literal> Dispatch(const HloInstruction& instruction,
                                   absl::Span<const Literal* const> operands);
  absl::StatusOr<Literal> EvaluateWhile(const HloInstruction& instruction, const Literal& init);
  absl::StatusOr<Literal> EvaluateConditional(const HloInstruction& instruction,
                                              absl::Span<const Literal* const> operands);

  // The evaluation order of a computation with operand positions and the
  // values to free after each step; built once per computation per public
  // call (the IR may change between calls, never during one).
  struct Plan;
  absl::StatusOr<const Plan*> GetPlan(const HloComputation& computation);

  int64_t max_loop_iterations_;
  std::function<bool()> should_stop_;
  const std::atomic<uint8_t>* stop_flag_ = nullptr;
  collectives::ReplicaContext* replica_context_ = nullptr;
  absl::flat_hash_map<const HloComputation*, std::shared_ptr<const Plan>> plans_;
  // Nesting of called computations; bounded so a cyclic hand-built module
  // gives an error instead of a stack overflow.
  int call_depth_ = 0;
};

}  // namespace xla

#endif  // XLA_EVALUATOR_HLO_EVALUATOR_H_
