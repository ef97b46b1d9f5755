// XlaBuilder: builds an XlaComputation (an HloModuleProto) from the operations
// of the operation-semantics document. Every op runs shape inference as it is
// added; the first error is recorded and returned by Build() (ops added after
// an error yield invalid XlaOps), as the document describes.
#ifndef CLIENT_XLA_BUILDER_H_
#define CLIENT_XLA_BUILDER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "client/xla_computation.h"
#include "xla/hlo/input_output_alias.h"
#include "proto/hlo.pb.h"
#include "xla/hlo/comparison.h"
#include "xla/hlo/hlo_opcode.h"
#include "xla/literal.h"
#include "xla/shape.h"

namespace xla {

class XlaBuilder;

// Conv's short-hand padding: kSame pads (with zeros) so each spatial output
// has ceil(input / stride) elements, more padding high than low when the
// total is odd; kValid does not pad.
enum class Padding { kSame, kValid };

// A handle to an instruction inside one XlaBuilder.
class XlaOp {
 public:
  XlaOp() = default;
  bool valid() const { return builder_ != nullptr && handle_ >= 0; }
  XlaBuilder* builder() const { return builder_; }
  int64_t handle() const { return handle_; }

 private:
  friend class XlaBuilder;
  XlaOp(int64_t handle, XlaBuilder* builder) : handle_(handle), builder_(builder) {}
  int64_t handle_ = -1;
  XlaBuilder* builder_ = nullptr;
};

class XlaBuilder {
 public:
  explicit XlaBuilder(std::string name);
  XlaBuilder(const XlaBuilder&) = delete;
  XlaBuilder& operator=(const XlaBuilder&) = delete;

  const std::string& name() const { return name_; }

  // A builder for a nested computation (reducer, loop body, ...).
  std::unique_ptr<XlaBuilder> CreateSubBuilder(const std::string& computation_name);

  // Builds with the last added op as root (or `root`). Returns the first
  // error if any op failed. The builder can't be used after Build().
  absl::StatusOr<XlaComputation> Build();
  absl::StatusOr<XlaComputation> Build(XlaOp root);
  // A computation of `root` alone; fails if it depends on parameters.
  absl::StatusOr<XlaComputation> BuildConstantSubGraph(XlaOp root);

  absl::StatusOr<Shape> GetShape(XlaOp op) const;
  absl::StatusOr<ProgramShape> GetProgramShape() const;
  absl::Status first_error() const { return first_error_; }

  // The result's leaf at `output_index` may share the buffer of parameter
  // `param_number`'s leaf at `param_index` (same element type and
  // dimensions; checked at Build): a run given that argument donated writes
  // the leaf in place where the backend can (xla/hlo/input_output_alias.h).
  // `must_alias`: runs must donate it. Entry computations only.
  void SetUpAlias(std::vector<int64_t> output_index, int64_t param_number, std::vector<int64_t> param_index,
                  bool must_alias = false);

  // Records `error` (if it is the first) and returns an invalid op.
  XlaOp ReportError(const absl::Status& error);
  XlaOp ReportErrorOrReturn(const absl::StatusOr<XlaOp>& op);

  // --- Implementation hooks for the free functions below -----------------------
  XlaOp Parameter(int64_t number, const Shape& shape, const std::string& name);
  XlaOp ConstantLiteral(const Literal& literal);
  XlaOp UnaryOp(HloOpcode opcode, XlaOp operand);
  XlaOp BinaryOp(HloOpcode opcode, XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions,
                 std::optional<ComparisonDirection> direction = std::nullopt,
                 std::optional<ComparisonType> type = std::nullopt);
  XlaOp TernaryOp(HloOpcode opcode, XlaOp a, XlaOp b, XlaOp c);
  XlaOp ConvertElementType(XlaOp operand, PrimitiveType type);
  XlaOp BitcastConvertType(XlaOp operand, PrimitiveType type);
  XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits);
  XlaOp RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state, const Shape& shape);
  XlaOp Broadcast(XlaOp operand, absl::Span<const int64_t> sizes);
  XlaOp BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dim_size,
                       absl::Span<const int64_t> broadcast_dimensions);
  XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes);
  XlaOp Transpose(XlaOp operand, absl::Span<const int64_t> permutation);
  XlaOp Rev(XlaOp operand, absl::Span<const int64_t> dimensions);
  XlaOp Slice(XlaOp operand, absl::Span<const int64_t> start, absl::Span<const int64_t> limit,
              absl::Span<const int64_t> strides);
  XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices,
                     absl::Span<const int64_t> slice_sizes);
  XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update, absl::Span<const XlaOp> start_indices);
  XlaOp ConcatInDim(absl::Span<const XlaOp> operands, int64_t dimension);
  XlaOp Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& config);
  XlaOp Tuple(absl::Span<const XlaOp> elements);
  XlaOp GetTupleElement(XlaOp tuple, int64_t index);
  XlaOp Iota(const Shape& shape, int64_t iota_dimension);
  XlaOp DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensionNumbers& dnums);
  XlaOp ConvGeneralDilated(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                           absl::Span<const std::pair<int64_t, int64_t>> padding,
                           absl::Span<const int64_t> lhs_dilation, absl::Span<const int64_t> rhs_dilation,
                           const ConvolutionDimensionNumbers& dnums, int64_t feature_group_count,
                           int64_t batch_group_count);
  XlaOp Gather(XlaOp operand, XlaOp start_indices, const GatherDimensionNumbers& dnums,
               absl::Span<const int64_t> slice_sizes);
  // Dimension numbers of Conv/ConvWithGeneralPadding: lhs [batch, feature,
  // spatial...], rhs [output feature, input feature, spatial...], result
  // [batch, feature, spatial...].
  static ConvolutionDimensionNumbers CreateDefaultConvDimensionNumbers(int num_spatial_dims);
  XlaOp Reduce(absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
               const XlaComputation& computation, absl::Span<const int64_t> dimensions);
  XlaOp ReduceWindow(absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
                     const XlaComputation& computation, const Window& window);
  XlaOp Scatter(absl::Span<const XlaOp> inputs, XlaOp scatter_indices, absl::Span<const XlaOp> updates,
                const XlaComputation& update_computation, const ScatterDimensionNumbers& dnums,
                bool indices_are_sorted, bool unique_indices);
  XlaOp SelectAndScatter(XlaOp operand, const XlaComputation& select, const Window& window, XlaOp source,
                         XlaOp init_value, const XlaComputation& scatter);
  XlaOp Map(absl::Span<const XlaOp> operands, const XlaComputation& computation,
            absl::Span<const int64_t> dimensions);
  XlaOp Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator, int64_t dimension,
             bool is_stable);
  XlaOp TopK(XlaOp operand, int64_t k, bool largest);
  XlaOp Fft(XlaOp operand, FftType fft_type, absl::Span<const int64_t> fft_length);
  XlaOp TriangularSolve(XlaOp a, XlaOp b, const TriangularSolveOptions& options);
  XlaOp Cholesky(XlaOp a, bool lower);
  XlaOp CustomCall(const std::string& target_name, absl::Span<const XlaOp> operands, const Shape& shape,
                   const std::string& opaque, bool has_side_effect, CustomCallApiVersion api_version,
                   const std::vector<Shape>* operand_shapes_with_layout);
  XlaOp Call(const XlaComputation& computation, absl::Span<const XlaOp> operands);
  XlaOp While(const XlaComputation& condition, const XlaComputation& body, XlaOp init);
  XlaOp Conditional(XlaOp branch_index, absl::Span<const XlaComputation* const> branches,
                    absl::Span<const XlaOp> operands);
  // Tokens, I/O and collectives (xla_builder_distributed.cc), also rng,
  // batch norm, dimension sizes and composite calls
  // (xla_builder_more_ops.cc): `opcode` on `operands` with `attrs`, the
  // optional called computation `reducer` and the result shape of
  // ShapeInference::InferInstructionShape (`declared`: infeed's,
  // all-gather's and rng's result).
  XlaOp DistributedOp(HloOpcode opcode, absl::Span<const XlaOp> operands, HloInstructionProto attrs,
                      const XlaComputation* reducer = nullptr, const Shape& declared = Shape());

 private:
  struct InstructionRecord {
    HloInstructionProto proto;
    HloOpcode opcode;
    Shape shape;
  };

  // Validates that every operand belongs to this builder and is valid.
  absl::Status CheckOperands(absl::Span<const XlaOp> operands) const;
  absl::StatusOr<const InstructionRecord*> Lookup(XlaOp op) const;
  absl::StatusOr<std::vector<Shape>> GetShapes(absl::Span<const XlaOp> ops) const;
  // Adds an instruction with `shape` (default layout is set) and operands.
  absl::StatusOr<XlaOp> AddInstruction(HloInstructionProto proto, HloOpcode opcode, const Shape& shape,
                                       absl::Span<const XlaOp> operands);
  // Copies `computation`'s computations into this builder (deduplicated)
  // and appends its entry to the proto's called computations.
  absl::Status AddCalledComputation(const XlaComputation& computation, HloInstructionProto* proto,
                                    ProgramShape* program_shape);
  // Broadcasts `operand` (mapped by `dims` into result dims) up to `result`
  // dimensions, dropping degenerate dims first (implicit broadcasting).
  absl::StatusOr<XlaOp> BroadcastTo(XlaOp operand, const Shape& result, absl::Span<const int64_t> dims);
  absl::StatusOr<XlaOp> AddBinary(HloOpcode opcode, XlaOp lhs, XlaOp rhs,
                                  absl::Span<const int64_t> broadcast_dimensions,
                                  std::optional<ComparisonDirection> direction,
                                  std::optional<ComparisonType> type);
  absl::StatusOr<XlaComputation> DoBuild(int64_t root_id);

  std::string name_;
  std::vector<InstructionRecord> instructions_;
  absl::flat_hash_map<int64_t, int64_t> index_by_id_;  // instruction id -> index
  std::map<int64_t, HloInstructionProto> parameters_;  // by number
  // Embedded computations, callees before callers, deduplicated by id.
  std::vector<HloComputationProto> embedded_;
  absl::flat_hash_map<int64_t, int> embedded_index_;
  absl::Status first_error_;
  std::vector<InputOutputAlias> input_output_aliases_;
  bool built_ = false;
  XlaBuilder* parent_ = nullptr;
};

// --- Free functions: the builder API of the operation-semantics document ------

XlaOp Parameter(XlaBuilder* builder, int64_t parameter_number, const Shape& shape, const std::string& name);
XlaOp ConstantLiteral(XlaBuilder* builder, const Literal& literal);
template <typename T> XlaOp ConstantR0(XlaBuilder* builder, T value) {
  return ConstantLiteral(builder, Literal::CreateR0<T>(value));
}
template <typename T> XlaOp ConstantR1(XlaBuilder* builder, absl::Span<const T> values) {
  return ConstantLiteral(builder, Literal::CreateR1<T>(values));
}
template <typename T> XlaOp ConstantR1(XlaBuilder* builder, std::initializer_list<T> values) {
  return ConstantLiteral(builder, Literal::CreateR1<T>(values));
}
template <typename T>
XlaOp ConstantR2(XlaBuilder* builder, std::initializer_list<std::initializer_list<T>> values) {
  return ConstantLiteral(builder, Literal::CreateR2<T>(values));
}
// Scalar `value` converted to `type`.
XlaOp ConstantScalar(XlaBuilder* builder, PrimitiveType type, double value);
XlaOp Zero(XlaBuilder* builder, PrimitiveType type);
XlaOp One(XlaBuilder* builder, PrimitiveType type);
XlaOp MinValue(XlaBuilder* builder, PrimitiveType type);
XlaOp MaxValue(XlaBuilder* builder, PrimitiveType type);

// Element-wise unary functions.
XlaOp Abs(XlaOp x);
XlaOp Cbrt(XlaOp x);
XlaOp Ceil(XlaOp x);
XlaOp Clz(XlaOp x);
XlaOp Cos(XlaOp x);
XlaOp Erf(XlaOp x);
XlaOp Exp(XlaOp x);
XlaOp Expm1(XlaOp x);
XlaOp Floor(XlaOp x);
XlaOp Imag(XlaOp x);
XlaOp IsFinite(XlaOp x);
XlaOp Log(XlaOp x);
XlaOp Log1p(XlaOp x);
XlaOp Logistic(XlaOp x);
XlaOp Neg(XlaOp x);
XlaOp Not(XlaOp x);
XlaOp PopulationCount(XlaOp x);
XlaOp Real(XlaOp x);
XlaOp Round(XlaOp x);
XlaOp RoundNearestEven(XlaOp x);
XlaOp Rsqrt(XlaOp x);
XlaOp Sign(XlaOp x);
XlaOp Sin(XlaOp x);
XlaOp Sqrt(XlaOp x);
XlaOp Tan(XlaOp x);
XlaOp Tanh(XlaOp x);

// Element-wise binary arithmetic; `broadcast_dimensions` for different ranks.
XlaOp Add(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Sub(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Mul(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Div(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Rem(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Pow(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Max(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Min(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp And(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Or(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Xor(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftLeft(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftRightArithmetic(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftRightLogical(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Atan2(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Complex(XlaOp real, XlaOp imag, absl::Span<const int64_t> broadcast_dimensions = {});

// Comparisons (result PRED). The TotalOrder forms order floats as
// -NaN < -Inf < -Finite < -0 < +0 < +Finite < +Inf < +NaN.
XlaOp Eq(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Ne(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Ge(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Gt(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Le(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Lt(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp EqTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp NeTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp GeTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp GtTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp LeTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp LtTotalOrder(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Compare(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions,
              ComparisonDirection direction, ComparisonType type);

XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false);
XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max);
XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_element_type);
XlaOp BitcastConvertType(XlaOp operand, PrimitiveType new_element_type);
// Rounds to a float format of `exponent_bits` and `mantissa_bits` and back
// (ties to even; out of range: signed infinity or signed zero).
XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits);
// Random bits of `shape` from `initial_state` (u64[2] for THREE_FRY, u64[2]
// or u64[3] for PHILOX): a tuple (new state, bits), XLA's bit streams
// (xla/random_bits.h).
XlaOp RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state, const Shape& shape);

XlaOp Broadcast(XlaOp operand, absl::Span<const int64_t> broadcast_sizes);
XlaOp BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dim_size,
                     absl::Span<const int64_t> broadcast_dimensions);
XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes);
// Transposes by `dimensions` (the order to collapse in) then reshapes.
XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> dimensions, absl::Span<const int64_t> new_sizes);
// Merges the consecutive `dimensions` into one.
XlaOp Collapse(XlaOp operand, absl::Span<const int64_t> dimensions);
XlaOp Transpose(XlaOp operand, absl::Span<const int64_t> permutation);
XlaOp Rev(XlaOp operand, absl::Span<const int64_t> dimensions);
XlaOp Slice(XlaOp operand, absl::Span<const int64_t> start_indices, absl::Span<const int64_t> limit_indices,
            absl::Span<const int64_t> strides);
XlaOp SliceInDim(XlaOp operand, int64_t start_index, int64_t limit_index, int64_t stride, int64_t dimno);
XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices, absl::Span<const int64_t> slice_sizes);
XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update, absl::Span<const XlaOp> start_indices);
XlaOp ConcatInDim(XlaBuilder* builder, absl::Span<const XlaOp> operands, int64_t dimension);
XlaOp Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& padding_config);
// Pads dimension `dimno` by low/high (interior 0).
XlaOp PadInDim(XlaOp operand, XlaOp padding_value, int64_t dimno, int64_t pad_lo, int64_t pad_hi);
XlaOp Tuple(XlaBuilder* builder, absl::Span<const XlaOp> elements);
XlaOp GetTupleElement(XlaOp tuple, int64_t index);
XlaOp Iota(XlaBuilder* builder, const Shape& shape, int64_t iota_dimension);
XlaOp Iota(XlaBuilder* builder, PrimitiveType type, int64_t size);

// Dot: vector.vector, matrix.vector, matrix.matrix (contract lhs's last
// dimension with rhs's first).
XlaOp Dot(XlaOp lhs, XlaOp rhs);
XlaOp DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensionNumbers& dimension_numbers);

// Convolution (see the operation-semantics document). Conv and
// ConvWithGeneralPadding use the default dimension numbers; the others take
// them. Empty dilation spans mean no dilation.
XlaOp Conv(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
           int64_t feature_group_count = 1, int64_t batch_group_count = 1);
XlaOp ConvWithGeneralPadding(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                             absl::Span<const std::pair<int64_t, int64_t>> padding,
                             int64_t feature_group_count = 1, int64_t batch_group_count = 1);
XlaOp ConvWithGeneralDimensions(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
                                const ConvolutionDimensionNumbers& dimension_numbers,
                                int64_t feature_group_count = 1, int64_t batch_group_count = 1);
XlaOp ConvGeneral(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  const ConvolutionDimensionNumbers& dimension_numbers, int64_t feature_group_count = 1,
                  int64_t batch_group_count = 1);
XlaOp ConvGeneralDilated(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                         absl::Span<const int64_t> lhs_dilation, absl::Span<const int64_t> rhs_dilation,
                         const ConvolutionDimensionNumbers& dimension_numbers, int64_t feature_group_count = 1,
                         int64_t batch_group_count = 1);
// The (low, high) padding `padding` means for inputs and windows of these
// spatial sizes and strides.
std::vector<std::pair<int64_t, int64_t>> MakePadding(absl::Span<const int64_t> input_dimensions,
                                                     absl::Span<const int64_t> window_dimensions,
                                                     absl::Span<const int64_t> window_strides, Padding padding);

// ReduceWindow (see the operation-semantics document): padding positions
// hold the init value. Empty strides, dilations or padding mean 1, 1 and 0.
XlaOp ReduceWindow(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
                   absl::Span<const int64_t> window_dimensions, absl::Span<const int64_t> window_strides,
                   Padding padding);
XlaOp ReduceWindowWithGeneralPadding(absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
                                     const XlaComputation& computation,
                                     absl::Span<const int64_t> window_dimensions,
                                     absl::Span<const int64_t> window_strides,
                                     absl::Span<const int64_t> base_dilations,
                                     absl::Span<const int64_t> window_dilations,
                                     absl::Span<const std::pair<int64_t, int64_t>> padding);

// SelectAndScatter (see the operation-semantics document): in each window
// of `operand` the element `select` picks receives the window's `source`
// element through `scatter`; every other element is `init_value`.
XlaOp SelectAndScatter(XlaOp operand, const XlaComputation& select, absl::Span<const int64_t> window_dimensions,
                       absl::Span<const int64_t> window_strides, Padding padding, XlaOp source, XlaOp init_value,
                       const XlaComputation& scatter);
XlaOp SelectAndScatterWithGeneralPadding(XlaOp operand, const XlaComputation& select,
                                         absl::Span<const int64_t> window_dimensions,
                                         absl::Span<const int64_t> window_strides,
                                         absl::Span<const std::pair<int64_t, int64_t>> padding, XlaOp source,
                                         XlaOp init_value, const XlaComputation& scatter);

// Scatter (see the operation-semantics document): update elements that map
// outside the input are skipped; the rest combine in row-major order of the
// updates, current value first.
XlaOp Scatter(XlaOp input, XlaOp scatter_indices, XlaOp updates, const XlaComputation& update_computation,
              const ScatterDimensionNumbers& dimension_numbers, bool indices_are_sorted = false,
              bool unique_indices = false);
XlaOp Scatter(absl::Span<const XlaOp> inputs, XlaOp scatter_indices, absl::Span<const XlaOp> updates,
              const XlaComputation& update_computation, const ScatterDimensionNumbers& dimension_numbers,
              bool indices_are_sorted = false, bool unique_indices = false);

// Gather (see the operation-semantics document).
XlaOp Gather(XlaOp input, XlaOp start_indices, const GatherDimensionNumbers& dimension_numbers,
             absl::Span<const int64_t> slice_sizes);

XlaOp Reduce(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
             absl::Span<const int64_t> dimensions_to_reduce);
XlaOp Reduce(XlaBuilder* builder, absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
             const XlaComputation& computation, absl::Span<const int64_t> dimensions_to_reduce);
// Reduce over every dimension.
XlaOp ReduceAll(XlaOp operand, XlaOp init_value, const XlaComputation& computation);
XlaOp Map(XlaBuilder* builder, absl::Span<const XlaOp> operands, const XlaComputation& computation,
          absl::Span<const int64_t> dimensions);
// Sort (see the operation-semantics document): sorts the operands (of one
// set of dimensions) together along `dimension` (-1: the last). `comparator`
// takes 2N scalars, lhs and rhs of operand 0, then of operand 1, ..., and
// returns pred[], whether lhs goes before rhs. The result is the operand, or
// a tuple of the sorted operands.
XlaOp Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator, int64_t dimension = -1,
           bool is_stable = false);
// TopK: the tuple (values, s32 indices) of the k largest (`largest`) or
// smallest elements of each row along the last dimension, in that order;
// floats in the IEEE total order (-NaN < -inf < ... < -0 < +0 < ... < +NaN),
// equal values by position.
XlaOp TopK(XlaOp operand, int64_t k, bool largest = true);
XlaOp Call(XlaBuilder* builder, const XlaComputation& computation, absl::Span<const XlaOp> operands);
XlaOp While(const XlaComputation& condition, const XlaComputation& body, XlaOp init);
XlaOp Conditional(XlaOp predicate, XlaOp true_operand, const XlaComputation& true_computation,
                  XlaOp false_operand, const XlaComputation& false_computation);
XlaOp Conditional(XlaOp branch_index, absl::Span<const XlaComputation* const> branch_computations,
                  absl::Span<const XlaOp> branch_operands);

// Fft (see the operation-semantics document): FFT/IFFT (complex to complex,
// IFFT scaled by 1/N), RFFT (real to the half spectrum, innermost dimension
// fft_length/2+1) and IRFFT (back) over the innermost size(fft_length)
// dimensions, 1 to 3 of them.
XlaOp Fft(XlaOp operand, FftType fft_type, absl::Span<const int64_t> fft_length);
// TriangularSolve: x with op(a) x = b (left_side) or x op(a) = b, reading
// only the `lower` or upper triangle of a (not its diagonal when
// unit_diagonal); op(a) is a, its transpose or its adjoint.
XlaOp TriangularSolve(XlaOp a, XlaOp b, bool left_side, bool lower, bool unit_diagonal,
                      TriangularSolveOptions::Transpose transpose_a);
// Cholesky: l with a = l l^H (lower) or u with a = u^H u, from that triangle
// of a; the other triangle of the result is zero, and a matrix that is not
// positive definite (a pivot whose square root is NaN) gives all NaNs.
XlaOp Cholesky(XlaOp a, bool lower);
// CustomCall: calls the host function registered under `target_name` in
// the CustomCallRegistry (xla/custom_call) with the operands' array leaves,
// filling the leaves of the declared result `shape`. `opaque` is the
// backend_config: a string the handler reads itself, or with
// API_VERSION_TYPED_FFI a dictionary of typed attributes
// ("{scale = 2.0 : f32}"). An unregistered target fails at compile time.
// Every custom call is kept by the passes (`has_side_effect` is recorded).
XlaOp CustomCall(XlaBuilder* builder, const std::string& target_name, absl::Span<const XlaOp> operands,
                 const Shape& shape, const std::string& opaque = "", bool has_side_effect = false,
                 CustomCallApiVersion api_version = API_VERSION_ORIGINAL);
// As CustomCall, with one layout constraint per operand (handlers see
// row-major buffers, so other layouts are rejected when compiling).
XlaOp CustomCallWithLayout(XlaBuilder* builder, const std::string& target_name, absl::Span<const XlaOp> operands,
                           const Shape& shape_with_layout, absl::Span<const Shape> operand_shapes_with_layout,
                           const std::string& opaque = "", bool has_side_effect = false,
                           CustomCallApiVersion api_version = API_VERSION_ORIGINAL);
// --- Random numbers, batch norm, dimension sizes, composites --------------------
// (xla_builder_more_ops.cc; built on DistributedOp, the shape-inferred hook)
// Uniform numbers in [a, b) of `shape` (pred, 8- to 64-bit integers, f16,
// bf16, f32, f64); b <= a gives a everywhere. Normal numbers N(mu, sigma)
// (f16, bf16, f32, f64). a/b and mu/sigma are scalars of shape's element
// type. Values depend on the module's rng seed and the instruction (see
// xla/transforms/rng_expansion.h).
XlaOp RngUniform(XlaOp a, XlaOp b, const Shape& shape);
XlaOp RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape);
// The 2017 document's Bernoulli draw: 1 with probability `mean` (a float
// scalar), else 0, in `shape`'s integer (or pred) element type (u32 in the
// document): convert(RngUniform(0, 1) < mean).
XlaOp RngBernoulli(XlaOp mean, const Shape& shape);
// Batch normalization over every dimension but `feature_index`
// (operation-semantics.md): training gives (normalized, batch mean, batch
// variance), grad gives (grad_operand, grad_scale, grad_offset).
XlaOp BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset, float epsilon, int64_t feature_index);
XlaOp BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean, XlaOp variance, float epsilon,
                         int64_t feature_index);
XlaOp BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp mean, XlaOp variance, XlaOp grad_output, float epsilon,
                    int64_t feature_index);
// The size of `dimension` (s32[]); SetDimensionSize with static shapes: the
// size must equal the dimension (a smaller one would make it dynamic, which
// is Unimplemented; a larger one is an error), the result is the operand.
XlaOp GetDimensionSize(XlaOp operand, int64_t dimension);
XlaOp SetDimensionSize(XlaOp operand, XlaOp size, int64_t dimension);
// A call of `computation` (the composite's decomposition) that keeps the
// composite's name, attributes (their text, e.g. "{k = 1 : i32}") and version
// as frontend attributes composite.name / composite.attributes /
// composite.version, as XLA marks its composite calls. It runs the call.
XlaOp CompositeCall(XlaBuilder* builder, const XlaComputation& computation, absl::Span<const XlaOp> operands,
                    const std::string& name, const std::string& attributes = "{}", int64_t version = 0);
// The operand itself (any shape, tuples included), but no pass moves
// computation across it: everything feeding it is computed before anything
// that uses its result.
XlaOp OptimizationBarrier(XlaOp operand);
// --- Tokens, side effects and collectives (xla_builder_distributed.cc) ----------
// A token joining `tokens` (none: a fresh token, as CreateToken).
XlaOp AfterAll(XlaBuilder* builder, absl::Span<const XlaOp> tokens);
XlaOp CreateToken(XlaBuilder* builder);
// (value of `shape`, token): the next value of this device's infeed queue.
XlaOp InfeedWithToken(XlaOp token, const Shape& shape, const std::string& config = "");
// Appends `operand` to this device's outfeed queue; returns a token.
XlaOp OutfeedWithToken(XlaOp operand, XlaOp token, const Shape& shape_with_layout, const std::string& config = "");
// This process's replica / partition id (u32 scalar).
XlaOp ReplicaId(XlaBuilder* builder);
XlaOp PartitionId(XlaBuilder* builder);
// Collectives between the processes of a replicated run. `replica_groups`
// empty: one group of every replica; `channel_id` > 0 with
// `use_global_device_ids` reads the groups as flattened process ids (see
// xla/collectives/process_groups.h).
XlaOp AllReduce(XlaOp operand, const XlaComputation& computation, absl::Span<const ReplicaGroup> replica_groups = {},
                int64_t channel_id = 0, bool use_global_device_ids = false);
// Sum over the replicas (AllReduce with an add).
XlaOp CrossReplicaSum(XlaOp operand, absl::Span<const ReplicaGroup> replica_groups = {});
// Concatenates the group's operands along `all_gather_dimension`;
// `shard_count` is the group size.
XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension, int64_t shard_count,
                absl::Span<const ReplicaGroup> replica_groups = {}, int64_t channel_id = 0,
                bool use_global_device_ids = false);
XlaOp CollectivePermute(XlaOp operand, absl::Span<const std::pair<int64_t, int64_t>> source_target_pairs,
                        int64_t channel_id = 0);
XlaOp CollectiveBroadcast(XlaOp operand, absl::Span<const ReplicaGroup> replica_groups, int64_t channel_id = 0);
// Splits `operand` along `split_dimension` into `split_count` parts (the
// group size), sends part j to group member j and concatenates what it
// receives along `concat_dimension`, in group order. With split ==
// concat dimension one all-to-all; otherwise, as XLA's builder does, a
// reshape that makes the parts a dimension, an all-to-all along it, and a
// transpose and reshape that concatenate. `channel_id` > 0 reads the groups
// as partition ids.
XlaOp AllToAll(XlaOp operand, int64_t split_dimension, int64_t concat_dimension, int64_t split_count,
               absl::Span<const ReplicaGroup> replica_groups = {}, int64_t channel_id = 0);
// XLA's tuple form: one operand per group member, all of one shape; operand
// j goes to member j and result j is what member j sent.
XlaOp AllToAllTuple(absl::Span<const XlaOp> operands, absl::Span<const ReplicaGroup> replica_groups = {},
                    int64_t channel_id = 0);
// AllReduce, then member i of the group keeps part i of the result split
// along `scatter_dimension` into `shard_count` (the group size) parts. A
// tuple operand reduce-scatters each element.
XlaOp ReduceScatter(XlaOp operand, const XlaComputation& computation, int64_t scatter_dimension, int64_t shard_count,
                    absl::Span<const ReplicaGroup> replica_groups = {}, int64_t channel_id = 0,
                    bool use_global_device_ids = false);
// Send / Recv over a channel (a handle from CreateChannelHandle; the run's
// ChannelTable, xla/collectives/channel_table.h). Send appends `operand` to
// the channel and returns send-done's token; Recv returns recv-done's
// (value of `shape`, token), waiting for a value up to the run's timeout.
// The handle's type must be DEVICE_TO_DEVICE; SendToHost needs
// DEVICE_TO_HOST and RecvFromHost HOST_TO_DEVICE (is_host_transfer).
XlaOp SendWithToken(XlaOp operand, XlaOp token, const ChannelHandle& handle);
XlaOp RecvWithToken(XlaOp token, const Shape& shape, const ChannelHandle& handle);
XlaOp SendToHost(XlaOp operand, XlaOp token, const Shape& shape_with_layout, const ChannelHandle& handle);
XlaOp RecvFromHost(XlaOp token, const Shape& shape, const ChannelHandle& handle);

// Operators for readable client code.
XlaOp operator+(XlaOp x, XlaOp y);
XlaOp operator-(XlaOp x, XlaOp y);
XlaOp operator*(XlaOp x, XlaOp y);
XlaOp operator/(XlaOp x, XlaOp y);
XlaOp operator-(XlaOp x);

}  // namespace xla

#endif  // CLIENT_XLA_BUILDER_H_
