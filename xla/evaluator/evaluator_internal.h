// Internal pieces of HloEvaluator, split by op family. Not part of the
// public API: include hlo_evaluator.h instead.
//
// Convention: every Literal passed to or returned from these functions holds
// its array data in row-major (default) order; the HloEvaluator relayouts
// arguments on the way in and the root result on the way out. Each function
// validates the instruction's attributes against the operand shapes before
// touching memory, so a malformed instruction gives an error, never a crash.
#ifndef XLA_EVALUATOR_EVALUATOR_INTERNAL_H_
#define XLA_EVALUATOR_EVALUATOR_INTERNAL_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/collectives/replica_context.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/literal.h"
#include "xla/shape.h"

namespace xla {
namespace evaluator_internal {

// Evaluates a called computation on row-major arguments; gives a row-major
// result. Supplied by HloEvaluator so reduce/map can call their reducers.
using ComputationRunner =
    std::function<absl::StatusOr<Literal>(const HloComputation&, absl::Span<const Literal* const>)>;

// --- Small shared helpers (evaluator_util.cc) ---------------------------------

// Whether the evaluation running on this thread was told to stop (its
// HloEvaluator's stop flag, installed by ScopedStopFlag around Evaluate).
// The long loops of single ops (reduce, reduce-window, dot, convolution)
// ask it per output element or row and leave early; the partial result is
// never used, since the evaluation then fails.
bool StopRequested();
class ScopedStopFlag {
 public:
  explicit ScopedStopFlag(const std::atomic<uint8_t>* flag);
  ~ScopedStopFlag();
  ScopedStopFlag(const ScopedStopFlag&) = delete;
  ScopedStopFlag& operator=(const ScopedStopFlag&) = delete;

 private:
  const std::atomic<uint8_t>* previous_;
};

// "opcode 'name'" for error messages.
std::string InstrLabel(const HloInstruction& instruction);
// The array shape `shape` without layout (row-major), same type and dims.
Shape RowMajorShape(const Shape& shape);
// Row-major strides (in elements) of `dims`.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);
// The type dot and convolution accumulate `result_type` in: f32 for f16,
// bf16 and the small floats (rounded once at the end), s32/u32 for the
// narrow integers (wrapped to their width at the end), else the type itself.
PrimitiveType AccumulationType(PrimitiveType result_type);
// Error unless `shape` is an array shape.
absl::Status ExpectArray(const HloInstruction& instruction, const Shape& shape, absl::string_view what);
// Error unless `operand` has the same dimensions as `expected`.
absl::Status ExpectSameDims(const HloInstruction& instruction, const Shape& operand,
                            const Shape& expected, absl::string_view what);
// Reads an integral (or pred) scalar as int64, saturating unsigned values
// above INT64_MAX (used for dynamic indices, which are clamped anyway).
absl::StatusOr<int64_t> ReadIndexScalar(const HloInstruction& instruction, const Literal& scalar,
                                        absl::string_view what);

// Copies elements of width `width` bytes: for every index i of `dims`
// (row-major), dst[dst_offset + sum(i*dst_strides)] = src[src_offset +
// sum(i*src_strides)]. Strides and offsets are in elements; strides may be
// zero (broadcast) or negative (reverse).
void StridedCopy(int width, const void* src, int64_t src_offset, absl::Span<const int64_t> src_strides,
                 void* dst, int64_t dst_offset, absl::Span<const int64_t> dst_strides,
                 absl::Span<const int64_t> dims);

// --- Elementwise (elementwise_ops.cc) ---------------------------------------
absl::StatusOr<Literal> EvaluateUnary(const HloInstruction& instruction, const Literal& operand);
absl::StatusOr<Literal> EvaluateBinary(const HloInstruction& instruction, const Literal& lhs,
                                       const Literal& rhs);
absl::StatusOr<Literal> EvaluateCompare(const HloInstruction& instruction, const Literal& lhs,
                                        const Literal& rhs);
absl::StatusOr<Literal> EvaluateSelect(const HloInstruction& instruction, const Literal& pred,
                                       const Literal& on_true, const Literal& on_false);
// Rounds each element to exponent_bits/mantissa_bits (reduce_precision.h).
absl::StatusOr<Literal> EvaluateReducePrecision(const HloInstruction& instruction, const Literal& operand);
absl::StatusOr<Literal> EvaluateClamp(const HloInstruction& instruction, const Literal& min,
                                      const Literal& operand, const Literal& max);

// --- Shape ops (shape_ops.cc) -------------------------------------------------
absl::StatusOr<Literal> EvaluateBroadcast(const HloInstruction& instruction, const Literal& operand);
absl::StatusOr<Literal> EvaluateReshape(const HloInstruction& instruction, const Literal& operand);
absl::StatusOr<Literal> EvaluateTranspose(const HloInstruction& instruction, const Literal& operand);
absl::StatusOr<Literal> EvaluateReverse(const HloInstruction& instruction, const Literal& operand);
absl::StatusOr<Literal> EvaluateSlice(const HloInstruction& instruction, const Literal& operand);
absl::StatusOr<Literal> EvaluateDynamicSlice(const HloInstruction& instruction,
                                             absl::Span<const Literal* const> operands);
absl::StatusOr<Literal> EvaluateDynamicUpdateSlice(const HloInstruction& instruction,
                                                   absl::Span<const Literal* const> operands);
absl::StatusOr<Literal> EvaluateConcatenate(const HloInstruction& instruction,
                                            absl::Span<const Literal* const> operands);
absl::StatusOr<Literal> EvaluatePad(const HloInstruction& instruction, const Literal& operand,
                                    const Literal& padding_value);
absl::StatusOr<Literal> EvaluateIota(const HloInstruction& instruction);

// --- Dot (dot_op.cc) ----------------------------------------------------------
absl::StatusOr<Literal> EvaluateDot(const HloInstruction& instruction, const Literal& lhs,
                                    const Literal& rhs);

// --- Gather and scatter (gather_op.cc), convolution (convolution_op.cc) -------
absl::StatusOr<Literal> EvaluateGather(const HloInstruction& instruction, const Literal& operand,
                                       const Literal& start_indices);
absl::StatusOr<Literal> EvaluateConvolution(const HloInstruction& instruction, const Literal& lhs,
                                            const Literal& rhs);
absl::StatusOr<Literal> EvaluateScatter(const HloInstruction& instruction, absl::Span<const Literal* const> operands,
                                        const ComputationRunner& run);

// --- rng-bit-generator (rng_bit_generator_op.cc) -------------------------------
absl::StatusOr<Literal> EvaluateRngBitGenerator(const HloInstruction& instruction, const Literal& state);
// rng: the rng-expander's HLO for this instruction, evaluated (rng_op.cc).
absl::StatusOr<Literal> EvaluateRng(const HloInstruction& rng, const Literal& a, const Literal& b);
// batch-norm-training/-inference/-grad in double, rounded once (batch_norm_op.cc).
absl::StatusOr<Literal> EvaluateBatchNorm(const HloInstruction& instruction, absl::Span<const Literal* const> operands);
// get-/set-dimension-size on static shapes (dimension_size_op.cc); the set
// size must equal the dimension: smaller is Unimplemented, larger an error.
absl::Status CheckSetDimensionSize(const HloInstruction& instruction, const Shape& operand, int64_t size);
absl::StatusOr<Literal> EvaluateDimensionSize(const HloInstruction& instruction,
                                              absl::Span<const Literal* const> operands);
// --- Fft (fft_op.cc), TriangularSolve and Cholesky (linalg_ops.cc) ------------
absl::StatusOr<Literal> EvaluateFft(const HloInstruction& instruction, const Literal& operand);
absl::StatusOr<Literal> EvaluateTriangularSolve(const HloInstruction& instruction, const Literal& a,
                                                const Literal& b);
absl::StatusOr<Literal> EvaluateCholesky(const HloInstruction& instruction, const Literal& a);

// --- CustomCall (custom_call_op.cc): the registered handler -------------------
absl::StatusOr<Literal> EvaluateCustomCall(const HloInstruction& instruction,
                                           absl::Span<const Literal* const> operands);

// --- Reduce and map (reduce_op.cc) ---------------------------------------------
absl::StatusOr<Literal> EvaluateReduce(const HloInstruction& instruction,
                                       absl::Span<const Literal* const> operands,
                                       const ComputationRunner& run);
absl::StatusOr<Literal> EvaluateReduceWindow(const HloInstruction& instruction,
                                             absl::Span<const Literal* const> operands,
                                             const ComputationRunner& run);
absl::StatusOr<Literal> EvaluateSelectAndScatter(const HloInstruction& instruction,
                                                 absl::Span<const Literal* const> operands,
                                                 const ComputationRunner& run);
absl::StatusOr<Literal> EvaluateMap(const HloInstruction& instruction,
                                    absl::Span<const Literal* const> operands,
                                    const ComputationRunner& run);

// --- Sort and top-k (sort_op.cc) -----------------------------------------------
absl::StatusOr<Literal> EvaluateSort(const HloInstruction& instruction, absl::Span<const Literal* const> operands,
                                     const ComputationRunner& run);
absl::StatusOr<Literal> EvaluateTopK(const HloInstruction& instruction, const Literal& operand);
// --- Tokens, I/O and collectives (distributed_ops.cc) ----------------------------
// after-all, replica-id, partition-id, infeed, outfeed, all-reduce,
// all-gather, collective-permute, collective-broadcast.
// `context` may be null (process (0, 0) of a 1 x 1 run, no feed queues).
absl::StatusOr<Literal> EvaluateDistributed(const HloInstruction& instruction,
                                            absl::Span<const Literal* const> operands,
                                            collectives::ReplicaContext* context, const ComputationRunner& run);

}  // namespace evaluator_internal
}  // namespace xla

#endif  // XLA_EVALUATOR_EVALUATOR_INTERNAL_H_
