// Shape inference: the one place that decides each op's result shape and
// rejects invalid operands/attributes. The builder calls it while building
// (errors surface at Build()), and the HloVerifier calls it again on
// every instruction that arrives at the service.
//
// Error messages name the op, the operand, and the offending values, e.g.
// "Dot: lhs contracting dimension 1 has size 3 but rhs contracting dimension
// 0 has size 4 (lhs f32[2,3], rhs f32[4,5])".
#ifndef XLA_SHAPE_INFERENCE_H_
#define XLA_SHAPE_INFERENCE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/hlo.pb.h"
#include "proto/xla_data.pb.h"
#include "xla/hlo/hlo_opcode.h"
#include "xla/shape.h"

namespace xla {

class ShapeInference {
 public:
  // HLO-level inference for any opcode of the implemented slice: operands'
  // shapes, the instruction's typed attributes (dimensions, slice bounds,
  // padding config, dot dimension numbers, comparison direction, tuple index,
  // parameter/constant excluded), and the program shapes of its called
  // computations in order. HLO-level binary ops need equal dimensions
  // (broadcasts are explicit instructions). Opcodes outside the slice return
  // Unimplemented naming the opcode. Returned shapes carry no layout.
  // `declared_shape` is the instruction's own shape, needed only by ops whose
  // result is an attribute of the instruction (broadcast, reshape, iota,
  // convert, bitcast-convert, bitcast, constant, parameter); it is checked,
  // not trusted.
  static absl::StatusOr<Shape> InferInstructionShape(HloOpcode opcode,
                                                     const HloInstructionProto& attributes,
                                                     absl::Span<const Shape* const> operand_shapes,
                                                     absl::Span<const ProgramShape* const> called,
                                                     const Shape& declared_shape);

  // --- Pieces the builder uses directly -------------------------------------
  static absl::StatusOr<Shape> InferUnaryOpShape(HloOpcode opcode, const Shape& operand);
  // Element-wise binary op with the client-level implicit broadcasting rules
  // of the operation-semantics document: equal shapes, a scalar operand, or
  // `broadcast_dimensions` mapping the lower-rank operand into the higher
  // one, followed by degenerate (size-1) dimension broadcasting. Comparisons
  // (kCompare) give PRED; kComplex gives the complex type.
  static absl::StatusOr<Shape> InferBinaryOpShape(HloOpcode opcode, const Shape& lhs, const Shape& rhs,
                                                  absl::Span<const int64_t> broadcast_dimensions);
  static absl::StatusOr<Shape> InferTernaryOpShape(HloOpcode opcode, const Shape& a, const Shape& b,
                                                   const Shape& c);  // select, clamp
  static absl::StatusOr<Shape> InferConvertShape(const Shape& operand, PrimitiveType new_type);
  static absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand, PrimitiveType new_type);
  // Bitcast: the declared shape is the result; operand and result are arrays
  // of the same byte size (element types may differ, but not to or from pred).
  static absl::StatusOr<Shape> InferBitcastShape(const Shape& operand, const Shape& declared_shape);
  // Fusion: the operands match the fused computation's parameters (layouts
  // ignored); the result is the fused computation's root shape.
  static absl::StatusOr<Shape> InferFusionShape(absl::Span<const Shape* const> operands, const ProgramShape& fused);
  // Broadcast(operand, sizes): new major dimensions `sizes` prepended.
  static absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand, absl::Span<const int64_t> sizes);
  // BroadcastInDim / HLO broadcast: operand dimension i maps to output
  // dimension dims[i]; sizes must match or be 1 in the operand.
  static absl::StatusOr<Shape> InferBroadcastInDimShape(const Shape& operand,
                                                        absl::Span<const int64_t> out_dimensions,
                                                        absl::Span<const int64_t> broadcast_dimensions);
  static absl::StatusOr<Shape> InferReshapeShape(const Shape& operand, absl::Span<const int64_t> new_sizes);
  static absl::StatusOr<Shape> InferTransposeShape(const Shape& operand, absl::Span<const int64_t> permutation);
  static absl::StatusOr<Shape> InferReverseShape(const Shape& operand, absl::Span<const int64_t> dimensions);
  static absl::StatusOr<Shape> InferSliceShape(const Shape& operand, absl::Span<const int64_t> starts,
                                               absl::Span<const int64_t> limits,
                                               absl::Span<const int64_t> strides);
  static absl::StatusOr<Shape> InferDynamicSliceShape(const Shape& operand,
                                                      absl::Span<const Shape> start_index_shapes,
                                                      absl::Span<const int64_t> slice_sizes);
  static absl::StatusOr<Shape> InferDynamicUpdateSliceShape(const Shape& operand, const Shape& update,
                                                            absl::Span<const Shape> start_index_shapes);
  static absl::StatusOr<Shape> InferConcatOpShape(absl::Span<const Shape* const> operands, int64_t dimension);
  static absl::StatusOr<Shape> InferPadShape(const Shape& operand, const Shape& padding_value,
                                             const PaddingConfig& padding_config);
  static absl::StatusOr<Shape> InferTupleShape(absl::Span<const Shape* const> elements);
  static absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple, int64_t index);
  // (state, output): a u64[2] state for THREE_FRY, u64[2] or u64[3] for
  // PHILOX/DEFAULT; an integer or float output of 8 to 64 bits.
  static absl::StatusOr<Shape> InferRngBitGeneratorShape(const Shape& state, RandomAlgorithm algorithm,
                                                         const Shape& output);
  // --- shape_inference_more_ops.cc ---
  // Rng (RngUniform/RngNormal): scalars a and b (mu and sigma) of the output
  // shape's element type; uniform: pred, integer or float; normal: float.
  static absl::StatusOr<Shape> InferRngShape(const Shape& a, const Shape& b, RandomDistribution distribution,
                                             const Shape& shape);
  // Batch norm: a float operand, feature_index in [0, rank), the per-feature
  // vectors rank 1 of the feature dimension's size and the operand's type.
  // Training and grad: (operand shape, [F], [F]); inference: operand shape.
  static absl::StatusOr<Shape> InferBatchNormTrainingShape(const Shape& operand, const Shape& scale,
                                                           const Shape& offset, int64_t feature_index);
  static absl::StatusOr<Shape> InferBatchNormInferenceShape(const Shape& operand, const Shape& scale,
                                                            const Shape& offset, const Shape& mean,
                                                            const Shape& variance, int64_t feature_index);
  static absl::StatusOr<Shape> InferBatchNormGradShape(const Shape& operand, const Shape& scale, const Shape& mean,
                                                       const Shape& variance, const Shape& grad_output,
                                                       int64_t feature_index);
  // get-dimension-size: s32[]; set-dimension-size: the operand's shape (size
  // an s32 scalar); dimension in [0, rank).
  static absl::StatusOr<Shape> InferGetDimensionSizeShape(const Shape& operand, int64_t dimension);
  static absl::StatusOr<Shape> InferSetDimensionSizeShape(const Shape& operand, const Shape& size,
                                                          int64_t dimension);
  // exponent_bits >= 1, mantissa_bits >= 0, a floating-point operand.
  static absl::StatusOr<Shape> InferReducePrecisionShape(const Shape& operand, int64_t exponent_bits,
                                                         int64_t mantissa_bits);
  static absl::StatusOr<Shape> InferIotaShape(const Shape& shape, int64_t iota_dimension);
  // Dot/DotGeneral. Result: batch dims, lhs free dims, rhs free dims.
  static absl::StatusOr<Shape> InferDotOpShape(const Shape& lhs, const Shape& rhs,
                                               const DotDimensionNumbers& dnums);
  // Gather: slices of `operand` at the start positions held in
  // `start_indices`. Result: the batch dimensions of start_indices (all but
  // index_vector_dim) with the offset dimensions (the operand's dimensions
  // that are neither collapsed nor batching, sized by slice_sizes) placed at
  // offset_dims.
  static absl::StatusOr<Shape> InferGatherShape(const Shape& operand, const Shape& start_indices,
                                                const GatherDimensionNumbers& dnums,
                                                absl::Span<const int64_t> slice_sizes);
  // Dot's and convolution's result element type for operands of
  // `operand_type` when the instruction declares `declared_shape`: mixed
  // precision (XLA's preferred_element_type; StableHLO's dot_general and
  // convolution constrain only the result type), e.g. f32 from bf16 or s32
  // from s8, takes the declared type if it is of the operands' kind (float
  // or integer); anything else is the operand type. The operands are
  // converted to the result type, or to f32 for an f16/bf16 result, and
  // accumulate there (the evaluator's definition).
  static PrimitiveType AccumulatingResultType(PrimitiveType operand_type, const Shape& declared_shape);
  // Convolution (ConvGeneralDilated): window sizes equal the kernel's spatial
  // sizes; group counts are at least 1 (not both above 1).
  static absl::StatusOr<Shape> InferConvolveShape(const Shape& lhs, const Shape& rhs, const Window& window,
                                                  const ConvolutionDimensionNumbers& dnums,
                                                  int64_t feature_group_count, int64_t batch_group_count);
  // Reduce over `dimensions` of N operands with N init values (operands then
  // inits, in `arg_shapes`); the reducer takes 2N scalars and returns N
  // (a tuple when N > 1).
  static absl::StatusOr<Shape> InferReduceShape(absl::Span<const Shape* const> arg_shapes,
                                                absl::Span<const int64_t> dimensions,
                                                const ProgramShape& to_apply);
  // ReduceWindow of N operands with N init values (in `arg_shapes`), one
  // window dimension per operand dimension, and a reducer as for Reduce.
  static absl::StatusOr<Shape> InferReduceWindowShape(absl::Span<const Shape* const> arg_shapes,
                                                      const Window& window, const ProgramShape& to_apply);
  // For each dimension of a scatter's updates: the operand dimension it
  // walks (an update window dimension: the operand's dimensions that are
  // neither inserted nor batching, in order) in `operand_dim`, or the
  // scatter_indices dimension it indexes (all but index_vector_dim, in
  // order) in `index_dim`; -1 in the other. For dimension numbers that
  // InferScatterShape accepted.
  struct ScatterUpdateDimensions {
    std::vector<int64_t> operand_dim, index_dim;
  };
  static ScatterUpdateDimensions MapScatterUpdateDimensions(const ScatterDimensionNumbers& dnums,
                                                            int64_t update_rank);
  // Scatter of N operands (then scatter_indices, then N updates in
  // `arg_shapes`); the combiner takes (current..., update...) as a reducer.
  static absl::StatusOr<Shape> InferScatterShape(absl::Span<const Shape* const> arg_shapes,
                                                 const ScatterDimensionNumbers& dnums, const ProgramShape& to_apply);
  // SelectAndScatter(operand, source, init) with computations select
  // (T, T) -> pred and scatter (T, T) -> T; windows without dilation.
  static absl::StatusOr<Shape> InferSelectAndScatterShape(const Shape& operand, const ProgramShape& select,
                                                          const Window& window, const Shape& source,
                                                          const Shape& init_value, const ProgramShape& scatter);
  // Sort of N operands of one set of dimensions along `dimension`; the
  // comparator takes 2N scalars (lhs and rhs of operand 0, then of operand
  // 1, ...) and returns pred[]. Result: the operand's shape, or a tuple of
  // the operands' shapes when N > 1.
  static absl::StatusOr<Shape> InferSortShape(absl::Span<const Shape* const> operands, int64_t dimension,
                                              const ProgramShape& comparator);
  // TopK: the k largest (or smallest) elements of each row along the last
  // dimension and their s32 positions: (T[..., k], s32[..., k]).
  static absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k);
  // Fft: FFT/IFFT keep a complex operand's shape; RFFT takes f32/f64 to
  // c64/c128 with the innermost dimension fft_length/2+1; IRFFT takes that
  // half spectrum back to a real innermost dimension of fft_length. The
  // operand's innermost size(fft_length) (1 to 3) dimensions are the
  // transformed ones and equal fft_length (IRFFT's innermost: the half).
  static absl::StatusOr<Shape> InferFftShape(const Shape& operand, FftType fft_type,
                                             absl::Span<const int64_t> fft_length);
  // TriangularSolve: a [..., M, M] and b [..., M, K] (left_side) or
  // [..., K, M] of one floating-point or complex type and equal batch
  // dimensions; the result is b's shape.
  static absl::StatusOr<Shape> InferTriangularSolveShape(const Shape& a, const Shape& b,
                                                         const TriangularSolveOptions& options);
  // Cholesky: a batch of square floating-point or complex matrices; same shape.
  static absl::StatusOr<Shape> InferCholeskyShape(const Shape& a);
  // CustomCall: the result is the declared shape (arrays, tuples, tokens),
  // checked to be valid; the target is named; operand layout constraints,
  // when given, are one per operand, compatible with it and laid out.
  // Whether the target exists is the backends' compile-time check
  // (xla/custom_call), not a property of shapes.
  static absl::StatusOr<Shape> InferCustomCallShape(absl::Span<const Shape* const> operands,
                                                    const HloInstructionProto& attrs, const Shape& declared_shape);
  static absl::StatusOr<Shape> InferMapShape(absl::Span<const Shape* const> operands,
                                             const ProgramShape& to_apply,
                                             absl::Span<const int64_t> dimensions);
  static absl::StatusOr<Shape> InferCallShape(absl::Span<const Shape* const> arg_shapes,
                                              const ProgramShape& to_apply);
  static absl::StatusOr<Shape> InferWhileShape(const ProgramShape& condition, const ProgramShape& body,
                                               const Shape& init);
  // Predicated form: branch_index is PRED and there are 2 branches; indexed
  // form: S32 and N >= 1 branches. Each branch takes its own operand.
  static absl::StatusOr<Shape> InferConditionalShape(const Shape& branch_index,
                                                     absl::Span<const ProgramShape> branches,
                                                     absl::Span<const Shape> branch_operands);

  // --- Tokens, side effects and collectives (shape_inference_distributed.cc) --
  // after-all (tokens -> token), replica-id and partition-id (u32[]),
  // infeed (token -> declared (value, token)), outfeed ((value, token) ->
  // token), all-reduce, all-gather, reduce-scatter, all-to-all,
  // collective-permute, collective-broadcast, send ((value, token) ->
  // (value, u32[], token)), send-done (-> token), recv (token -> declared
  // (value, u32[], token)) and recv-done (-> (value, token))
  // (IsDistributedOpcode); any other opcode is an internal error.
  static absl::StatusOr<Shape> InferDistributedShape(HloOpcode opcode, const HloInstructionProto& attrs,
                                                     absl::Span<const Shape* const> operands,
                                                     absl::Span<const ProgramShape* const> called,
                                                     const Shape& declared_shape);
};

}  // namespace xla

#endif  // XLA_SHAPE_INFERENCE_H_
