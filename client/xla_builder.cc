#include "client/xla_builder.h"

#include <algorithm>
#include <atomic>
#include <numeric>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

// Ids are unique across all builders of the process, so computations built
// by sub-builders can be merged into a parent without renumbering.
int64_t NextGlobalId() {
  static std::atomic<int64_t> next{1};
  return next.fetch_add(1);
}

// Shape inference takes pointers; `shapes` must outlive the result.
std::vector<const Shape*> Pointers(const std::vector<Shape>& shapes) {
  std::vector<const Shape*> ptrs;
  for (const Shape& s : shapes) ptrs.push_back(&s);
  return ptrs;
}

std::vector<int64_t> Iota64(int64_t n, int64_t start = 0) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

}  // namespace

XlaBuilder::XlaBuilder(std::string name) : name_(std::move(name)) {}

namespace {

// The called computations with names unique in the module (its verifier
// requires them; two sub-builders may well share a name, e.g. two
// CrossReplicaSums' "sum"): a name already taken, or the entry's, gets the
// computation's id as a suffix. Calls refer to computations by id.
std::vector<HloComputationProto> UniquelyNamed(const std::vector<HloComputationProto>& computations,
                                               const std::string& entry_name) {
  std::vector<HloComputationProto> out = computations;
  absl::flat_hash_set<std::string> taken = {entry_name};
  for (HloComputationProto& c : out) {
    if (!taken.insert(c.name()).second) {
      c.set_name(absl::StrCat(c.name(), ".", c.id()));
      taken.insert(c.name());
    }
  }
  return out;
}

}  // namespace

std::unique_ptr<XlaBuilder> XlaBuilder::CreateSubBuilder(const std::string& computation_name) {
  auto sub = std::make_unique<XlaBuilder>(computation_name);
  sub->parent_ = this;
  return sub;
}

XlaOp XlaBuilder::ReportError(const absl::Status& error) {
  if (first_error_.ok()) first_error_ = error;
  return XlaOp();
}

XlaOp XlaBuilder::ReportErrorOrReturn(const absl::StatusOr<XlaOp>& op) {
  if (!first_error_.ok()) return XlaOp();
  if (!op.ok()) return ReportError(op.status());
  return *op;
}

absl::Status XlaBuilder::CheckOperands(absl::Span<const XlaOp> operands) const {
  for (size_t i = 0; i < operands.size(); ++i) {
    const XlaOp& op = operands[i];
    if (op.builder_ == nullptr) return InvalidArgument("operand %d is an invalid (uninitialized or failed) XlaOp", i);
    if (op.builder_ != this) {
      return InvalidArgument("operand %d belongs to builder '%s', not to '%s'", i, op.builder_->name(), name_);
    }
    if (!index_by_id_.contains(op.handle_)) return InvalidArgument("operand %d has unknown handle %d", i, op.handle_);
  }
  return absl::OkStatus();
}

absl::StatusOr<const XlaBuilder::InstructionRecord*> XlaBuilder::Lookup(XlaOp op) const {
  RETURN_IF_ERROR(CheckOperands({op}));
  return &instructions_[index_by_id_.at(op.handle_)];
}

absl::StatusOr<Shape> XlaBuilder::GetShape(XlaOp op) const {
  ASSIGN_OR_RETURN(const InstructionRecord* rec, Lookup(op));
  return rec->shape;
}

absl::StatusOr<std::vector<Shape>> XlaBuilder::GetShapes(absl::Span<const XlaOp> ops) const {
  std::vector<Shape> shapes;
  for (XlaOp op : ops) {
    ASSIGN_OR_RETURN(Shape s, GetShape(op));
    shapes.push_back(std::move(s));
  }
  return shapes;
}

absl::StatusOr<XlaOp> XlaBuilder::AddInstruction(HloInstructionProto proto, HloOpcode opcode,
                                                 const Shape& shape, absl::Span<const XlaOp> operands) {
  if (built_) return FailedPrecondition("builder '%s' was already built", name_);
  RETURN_IF_ERROR(CheckOperands(operands));
  int64_t id = NextGlobalId();
  proto.set_id(id);
  proto.set_opcode(std::string(HloOpcodeString(opcode)));
  proto.set_name(absl::StrCat(proto.name().empty() ? HloOpcodeString(opcode) : proto.name(), ".", id));
  Shape with_layout = shape.has_layout() || !shape.IsArray() ? shape : ShapeUtil::WithDefaultLayout(shape);
  if (shape.IsTuple()) with_layout = ShapeUtil::WithDefaultLayout(shape);
  *proto.mutable_shape() = with_layout.ToProto();
  for (const XlaOp& op : operands) proto.add_operand_ids(op.handle_);
  index_by_id_[id] = instructions_.size();
  instructions_.push_back({std::move(proto), opcode, with_layout});
  return XlaOp(id, this);
}

absl::Status XlaBuilder::AddCalledComputation(const XlaComputation& computation, HloInstructionProto* proto,
                                              ProgramShape* program_shape) {
  if (computation.IsNull()) return InvalidArgument("called computation is empty (was it built?)");
  for (const HloComputationProto& c : computation.proto().computations()) {
    if (embedded_index_.contains(c.id())) continue;
    embedded_index_[c.id()] = embedded_.size();
    embedded_.push_back(c);
  }
  proto->add_called_computation_ids(computation.proto().entry_computation_id());
  ASSIGN_OR_RETURN(*program_shape, computation.GetProgramShape());
  return absl::OkStatus();
}

XlaOp XlaBuilder::Parameter(int64_t number, const Shape& shape, const std::string& name) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (number < 0) return InvalidArgument("Parameter: number %d is negative", number);
    if (parameters_.count(number)) {
      return InvalidArgument("Parameter: number %d is already used by '%s'", number,
                             parameters_[number].name());
    }
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
    RETURN_IF_ERROR(ShapeUtil::CheckNoPadding(shape, "Parameter"));
    HloInstructionProto proto;
    proto.set_parameter_number(number);
    // Names are unique module-wide, so sub-builders' "x" and "y" cannot
    // clash: AddInstruction appends the global id, as for other ops.
    proto.set_name(name.empty() ? absl::StrCat("p", number) : name);
    ASSIGN_OR_RETURN(XlaOp op, AddInstruction(proto, HloOpcode::kParameter, shape, {}));
    parameters_[number] = instructions_.back().proto;
    return op;
  }());
}

XlaOp XlaBuilder::ConstantLiteral(const Literal& literal) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(literal.shape()));
    HloInstructionProto proto;
    Shape shape = ShapeUtil::WithDefaultLayout(literal.shape());
    *proto.mutable_literal() = literal.RelayoutTo(shape).ToProto();
    return AddInstruction(proto, HloOpcode::kConstant, shape, {});
  }());
}

XlaOp XlaBuilder::UnaryOp(HloOpcode opcode, XlaOp operand) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferUnaryOpShape(opcode, s));
    return AddInstruction({}, opcode, out, {operand});
  }());
}

absl::StatusOr<XlaOp> XlaBuilder::BroadcastTo(XlaOp operand, const Shape& result,
                                              absl::Span<const int64_t> dims) {
  ASSIGN_OR_RETURN(Shape s, GetShape(operand));
  bool identity = s.rank() == result.rank();
  for (int i = 0; identity && i < s.rank(); ++i) identity = dims[i] == i;
  if (identity && s.dimensions() == result.dimensions()) return operand;
  std::vector<int64_t> kept_sizes, kept_dims;
  for (int i = 0; i < s.rank(); ++i) {
    if (s.dimensions(i) == result.dimensions(dims[i])) {
      kept_sizes.push_back(s.dimensions(i));
      kept_dims.push_back(dims[i]);
    }
  }
  XlaOp op = operand;
  if (static_cast<int>(kept_sizes.size()) != s.rank()) {
    // Degenerate (size-1) dimensions are dropped, then broadcast back.
    HloInstructionProto reshape;
    ASSIGN_OR_RETURN(op, AddInstruction(reshape, HloOpcode::kReshape,
                                        ShapeUtil::MakeShape(s.element_type(), kept_sizes), {op}));
  }
  HloInstructionProto bcast;
  for (int64_t d : kept_dims) bcast.add_dimensions(d);
  return AddInstruction(bcast, HloOpcode::kBroadcast, ShapeUtil::MakeShape(s.element_type(), result.dimensions()),
                        {op});
}

absl::StatusOr<XlaOp> XlaBuilder::AddBinary(HloOpcode opcode, XlaOp lhs, XlaOp rhs,
                                            absl::Span<const int64_t> broadcast_dimensions,
                                            std::optional<ComparisonDirection> direction,
                                            std::optional<ComparisonType> type) {
  ASSIGN_OR_RETURN(Shape ls, GetShape(lhs));
  ASSIGN_OR_RETURN(Shape rs, GetShape(rhs));
  ASSIGN_OR_RETURN(Shape out, ShapeInference::InferBinaryOpShape(opcode, ls, rs, broadcast_dimensions));
  // Map each operand's dimensions into the result's.
  auto mapping = [&](const Shape& s, const Shape& other) -> std::vector<int64_t> {
    if (s.rank() == out.rank()) return Iota64(s.rank());
    if (s.rank() == 0) return {};
    if (!broadcast_dimensions.empty() && s.rank() < other.rank()) {
      return {broadcast_dimensions.begin(), broadcast_dimensions.end()};
    }
    return Iota64(s.rank(), out.rank() - s.rank());
  };
  ASSIGN_OR_RETURN(XlaOp l, BroadcastTo(lhs, out, mapping(ls, rs)));
  ASSIGN_OR_RETURN(XlaOp r, BroadcastTo(rhs, out, mapping(rs, ls)));
  HloInstructionProto proto;
  if (direction.has_value()) {
    proto.set_comparison_direction(std::string(ComparisonDirectionString(*direction)));
    ComparisonType t = type.value_or(DefaultComparisonType(ls.element_type()));
    // The TotalOrder forms order floats totally; other types already are.
    if (t == ComparisonType::kTotalOrder && !primitive_util::IsFloatingPointType(ls.element_type())) {
      t = DefaultComparisonType(ls.element_type());
    }
    proto.set_comparison_type(std::string(ComparisonTypeString(t)));
    // Check the comparison type against the element type now, not at run time.
    Shape operand_shape = ShapeUtil::MakeShape(ls.element_type(), out.dimensions());
    const Shape* operand_shapes[] = {&operand_shape, &operand_shape};
    RETURN_IF_ERROR(
        ShapeInference::InferInstructionShape(opcode, proto, operand_shapes, {}, out).status());
  }
  return AddInstruction(proto, opcode, out, {l, r});
}

XlaOp XlaBuilder::BinaryOp(HloOpcode opcode, XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions,
                           std::optional<ComparisonDirection> direction, std::optional<ComparisonType> type) {
  return ReportErrorOrReturn(AddBinary(opcode, lhs, rhs, broadcast_dimensions, direction, type));
}

XlaOp XlaBuilder::TernaryOp(HloOpcode opcode, XlaOp a, XlaOp b, XlaOp c) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape as, GetShape(a));
    ASSIGN_OR_RETURN(Shape bs, GetShape(b));
    ASSIGN_OR_RETURN(Shape cs, GetShape(c));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferTernaryOpShape(opcode, as, bs, cs));
    XlaOp first = a;
    if (opcode == HloOpcode::kSelect && as.rank() == 0 && out.rank() > 0) {
      // A scalar predicate selects whole arrays: broadcast it.
      ASSIGN_OR_RETURN(first, BroadcastTo(a, out, {}));
    }
    return AddInstruction({}, opcode, out, {first, b, c});
  }());
}

XlaOp XlaBuilder::ConvertElementType(XlaOp operand, PrimitiveType type) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferConvertShape(s, type));
    return AddInstruction({}, HloOpcode::kConvert, out, {operand});
  }());
}

XlaOp XlaBuilder::BitcastConvertType(XlaOp operand, PrimitiveType type) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferBitcastConvertShape(s, type));
    return AddInstruction({}, HloOpcode::kBitcastConvert, out, {operand});
  }());
}

XlaOp XlaBuilder::ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferReducePrecisionShape(s, exponent_bits, mantissa_bits));
    HloInstructionProto proto;
    proto.set_exponent_bits(exponent_bits);
    proto.set_mantissa_bits(mantissa_bits);
    return AddInstruction(proto, HloOpcode::kReducePrecision, out, {operand});
  }());
}

XlaOp XlaBuilder::RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state, const Shape& shape) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape state, GetShape(initial_state));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferRngBitGeneratorShape(state, algorithm, shape));
    HloInstructionProto proto;
    proto.set_rng_algorithm(algorithm);
    return AddInstruction(proto, HloOpcode::kRngBitGenerator, out, {initial_state});
  }());
}

XlaOp XlaBuilder::Broadcast(XlaOp operand, absl::Span<const int64_t> sizes) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferBroadcastShape(s, sizes));
    HloInstructionProto proto;
    for (int i = 0; i < s.rank(); ++i) proto.add_dimensions(sizes.size() + i);
    return AddInstruction(proto, HloOpcode::kBroadcast, out, {operand});
  }());
}

XlaOp XlaBuilder::BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dim_size,
                                 absl::Span<const int64_t> broadcast_dimensions) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferBroadcastInDimShape(s, out_dim_size, broadcast_dimensions));
    return BroadcastTo(operand, out, broadcast_dimensions);
  }());
}

XlaOp XlaBuilder::Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferReshapeShape(s, new_sizes));
    return AddInstruction({}, HloOpcode::kReshape, out, {operand});
  }());
}

XlaOp XlaBuilder::Transpose(XlaOp operand, absl::Span<const int64_t> permutation) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferTransposeShape(s, permutation));
    HloInstructionProto proto;
    for (int64_t d : permutation) proto.add_dimensions(d);
    return AddInstruction(proto, HloOpcode::kTranspose, out, {operand});
  }());
}

XlaOp XlaBuilder::Rev(XlaOp operand, absl::Span<const int64_t> dimensions) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferReverseShape(s, dimensions));
    HloInstructionProto proto;
    for (int64_t d : dimensions) proto.add_dimensions(d);
    return AddInstruction(proto, HloOpcode::kReverse, out, {operand});
  }());
}

XlaOp XlaBuilder::Slice(XlaOp operand, absl::Span<const int64_t> start, absl::Span<const int64_t> limit,
                        absl::Span<const int64_t> strides) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferSliceShape(s, start, limit, strides));
    HloInstructionProto proto;
    for (size_t i = 0; i < start.size(); ++i) {
      auto* d = proto.add_slice_dimensions();
      d->set_start(start[i]);
      d->set_limit(limit[i]);
      d->set_stride(strides[i]);
    }
    return AddInstruction(proto, HloOpcode::kSlice, out, {operand});
  }());
}

XlaOp XlaBuilder::DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices,
                               absl::Span<const int64_t> slice_sizes) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    std::vector<Shape> index_shapes;
    std::vector<XlaOp> operands = {operand};
    for (XlaOp i : start_indices) {
      ASSIGN_OR_RETURN(Shape is, GetShape(i));
      index_shapes.push_back(is);
      operands.push_back(i);
    }
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferDynamicSliceShape(s, index_shapes, slice_sizes));
    HloInstructionProto proto;
    for (int64_t d : slice_sizes) proto.add_dynamic_slice_sizes(d);
    return AddInstruction(proto, HloOpcode::kDynamicSlice, out, operands);
  }());
}

XlaOp XlaBuilder::DynamicUpdateSlice(XlaOp operand, XlaOp update, absl::Span<const XlaOp> start_indices) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape us, GetShape(update));
    std::vector<Shape> index_shapes;
    std::vector<XlaOp> operands = {operand, update};
    for (XlaOp i : start_indices) {
      ASSIGN_OR_RETURN(Shape is, GetShape(i));
      index_shapes.push_back(is);
      operands.push_back(i);
    }
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferDynamicUpdateSliceShape(s, us, index_shapes));
    return AddInstruction({}, HloOpcode::kDynamicUpdateSlice, out, operands);
  }());
}

XlaOp XlaBuilder::ConcatInDim(absl::Span<const XlaOp> operands, int64_t dimension) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes(operands));
    std::vector<const Shape*> ptrs = Pointers(shapes);
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferConcatOpShape(ptrs, dimension));
    HloInstructionProto proto;
    proto.add_dimensions(dimension);
    return AddInstruction(proto, HloOpcode::kConcatenate, out, operands);
  }());
}

XlaOp XlaBuilder::Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& config) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(operand));
    ASSIGN_OR_RETURN(Shape ps, GetShape(padding_value));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferPadShape(s, ps, config));
    HloInstructionProto proto;
    *proto.mutable_padding_config() = config;
    return AddInstruction(proto, HloOpcode::kPad, out, {operand, padding_value});
  }());
}

XlaOp XlaBuilder::Tuple(absl::Span<const XlaOp> elements) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes(elements));
    std::vector<const Shape*> ptrs = Pointers(shapes);
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferTupleShape(ptrs));
    return AddInstruction({}, HloOpcode::kTuple, ShapeUtil::MakeTupleShape(shapes), elements);
  }());
}

XlaOp XlaBuilder::GetTupleElement(XlaOp tuple, int64_t index) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(tuple));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferGetTupleElementShape(s, index));
    HloInstructionProto proto;
    proto.set_tuple_index(index);
    return AddInstruction(proto, HloOpcode::kGetTupleElement, s.tuple_shapes(index), {tuple});
  }());
}

XlaOp XlaBuilder::Iota(const Shape& shape, int64_t iota_dimension) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferIotaShape(shape, iota_dimension));
    HloInstructionProto proto;
    proto.add_dimensions(iota_dimension);
    return AddInstruction(proto, HloOpcode::kIota, out, {});
  }());
}

XlaOp XlaBuilder::DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensionNumbers& dnums) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape ls, GetShape(lhs));
    ASSIGN_OR_RETURN(Shape rs, GetShape(rhs));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferDotOpShape(ls, rs, dnums));
    HloInstructionProto proto;
    *proto.mutable_dot_dimension_numbers() = dnums;
    return AddInstruction(proto, HloOpcode::kDot, out, {lhs, rhs});
  }());
}

XlaOp XlaBuilder::ConvGeneralDilated(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                                     absl::Span<const std::pair<int64_t, int64_t>> padding,
                                     absl::Span<const int64_t> lhs_dilation, absl::Span<const int64_t> rhs_dilation,
                                     const ConvolutionDimensionNumbers& dnums, int64_t feature_group_count,
                                     int64_t batch_group_count) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape ls, GetShape(lhs));
    ASSIGN_OR_RETURN(Shape rs, GetShape(rhs));
    const int64_t spatial = dnums.kernel_spatial_dimensions_size();
    auto check_size = [&](absl::string_view what, size_t size, bool may_be_empty) -> absl::Status {
      if (static_cast<int64_t>(size) == spatial || (may_be_empty && size == 0)) return absl::OkStatus();
      return InvalidArgument("Convolution: %s has %d entries but there are %d spatial dimensions", what, size,
                             spatial);
    };
    RETURN_IF_ERROR(check_size("window_strides", window_strides.size(), false));
    RETURN_IF_ERROR(check_size("padding", padding.size(), false));
    RETURN_IF_ERROR(check_size("lhs_dilation", lhs_dilation.size(), true));
    RETURN_IF_ERROR(check_size("rhs_dilation", rhs_dilation.size(), true));
    if (!rs.IsArray() || rs.rank() != spatial + 2) {
      return InvalidArgument("Convolution: rhs %s must be an array of rank %d", rs.ToString(), spatial + 2);
    }
    for (int64_t d : dnums.kernel_spatial_dimensions()) {
      if (d < 0 || d >= rs.rank()) {
        return InvalidArgument("Convolution: kernel spatial dimension %d is out of range for rhs %s", d,
                               rs.ToString());
      }
    }
    Window window;
    for (int64_t i = 0; i < spatial; ++i) {
      WindowDimension* w = window.add_dimensions();
      w->set_size(rs.dimensions(dnums.kernel_spatial_dimensions(i)));
      w->set_stride(window_strides[i]);
      w->set_padding_low(padding[i].first);
      w->set_padding_high(padding[i].second);
      w->set_base_dilation(lhs_dilation.empty() ? 1 : lhs_dilation[i]);
      w->set_window_dilation(rhs_dilation.empty() ? 1 : rhs_dilation[i]);
    }
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferConvolveShape(ls, rs, window, dnums, feature_group_count,
                                                                   batch_group_count));
    HloInstructionProto proto;
    *proto.mutable_window() = window;
    *proto.mutable_convolution_dimension_numbers() = dnums;
    proto.set_feature_group_count(feature_group_count);
    proto.set_batch_group_count(batch_group_count);
    return AddInstruction(proto, HloOpcode::kConvolution, out, {lhs, rhs});
  }());
}

XlaOp XlaBuilder::Gather(XlaOp operand, XlaOp start_indices, const GatherDimensionNumbers& dnums,
                         absl::Span<const int64_t> slice_sizes) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape os, GetShape(operand));
    ASSIGN_OR_RETURN(Shape is, GetShape(start_indices));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferGatherShape(os, is, dnums, slice_sizes));
    HloInstructionProto proto;
    *proto.mutable_gather_dimension_numbers() = dnums;
    for (int64_t s : slice_sizes) proto.add_gather_slice_sizes(s);
    return AddInstruction(proto, HloOpcode::kGather, out, {operand, start_indices});
  }());
}

ConvolutionDimensionNumbers XlaBuilder::CreateDefaultConvDimensionNumbers(int num_spatial_dims) {
  ConvolutionDimensionNumbers dnums;
  dnums.set_input_batch_dimension(0);
  dnums.set_input_feature_dimension(1);
  dnums.set_kernel_output_feature_dimension(0);
  dnums.set_kernel_input_feature_dimension(1);
  dnums.set_output_batch_dimension(0);
  dnums.set_output_feature_dimension(1);
  for (int i = 0; i < num_spatial_dims; ++i) {
    dnums.add_input_spatial_dimensions(i + 2);
    dnums.add_kernel_spatial_dimensions(i + 2);
    dnums.add_output_spatial_dimensions(i + 2);
  }
  return dnums;
}

namespace {

// Operands then init values, as Reduce and ReduceWindow take them.
absl::StatusOr<std::vector<XlaOp>> ReductionArguments(absl::string_view op, absl::Span<const XlaOp> operands,
                                                      absl::Span<const XlaOp> init_values) {
  if (operands.size() != init_values.size() || operands.empty()) {
    return InvalidArgument("%s: needs as many init values (%d) as operands (%d), at least one", op,
                           init_values.size(), operands.size());
  }
  std::vector<XlaOp> all(operands.begin(), operands.end());
  all.insert(all.end(), init_values.begin(), init_values.end());
  return all;
}

}  // namespace

XlaOp XlaBuilder::Reduce(absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
                         const XlaComputation& computation, absl::Span<const int64_t> dimensions) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<XlaOp> all, ReductionArguments("Reduce", operands, init_values));
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes(all));
    std::vector<const Shape*> ptrs = Pointers(shapes);
    HloInstructionProto proto;
    ProgramShape ps;
    RETURN_IF_ERROR(AddCalledComputation(computation, &proto, &ps));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferReduceShape(ptrs, dimensions, ps));
    for (int64_t d : dimensions) proto.add_dimensions(d);
    return AddInstruction(proto, HloOpcode::kReduce, out, all);
  }());
}

XlaOp XlaBuilder::ReduceWindow(absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
                               const XlaComputation& computation, const Window& window) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<XlaOp> all, ReductionArguments("ReduceWindow", operands, init_values));
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes(all));
    std::vector<const Shape*> ptrs = Pointers(shapes);
    HloInstructionProto proto;
    ProgramShape ps;
    RETURN_IF_ERROR(AddCalledComputation(computation, &proto, &ps));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferReduceWindowShape(ptrs, window, ps));
    *proto.mutable_window() = window;
    return AddInstruction(proto, HloOpcode::kReduceWindow, out, all);
  }());
}

XlaOp XlaBuilder::Scatter(absl::Span<const XlaOp> inputs, XlaOp scatter_indices, absl::Span<const XlaOp> updates,
                          const XlaComputation& update_computation, const ScatterDimensionNumbers& dnums,
                          bool indices_are_sorted, bool unique_indices) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (inputs.size() != updates.size() || inputs.empty()) {
      return InvalidArgument("Scatter: needs as many updates (%d) as inputs (%d), at least one", updates.size(),
                             inputs.size());
    }
    std::vector<XlaOp> all(inputs.begin(), inputs.end());
    all.push_back(scatter_indices);
    all.insert(all.end(), updates.begin(), updates.end());
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes(all));
    std::vector<const Shape*> ptrs = Pointers(shapes);
    HloInstructionProto proto;
    ProgramShape ps;
    RETURN_IF_ERROR(AddCalledComputation(update_computation, &proto, &ps));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferScatterShape(ptrs, dnums, ps));
    *proto.mutable_scatter_dimension_numbers() = dnums;
    proto.set_indices_are_sorted(indices_are_sorted);
    proto.set_unique_indices(unique_indices);
    return AddInstruction(proto, HloOpcode::kScatter, out, all);
  }());
}

XlaOp XlaBuilder::SelectAndScatter(XlaOp operand, const XlaComputation& select, const Window& window, XlaOp source,
                                   XlaOp init_value, const XlaComputation& scatter) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes({operand, source, init_value}));
    HloInstructionProto proto;
    ProgramShape select_shape, scatter_shape;
    RETURN_IF_ERROR(AddCalledComputation(select, &proto, &select_shape));
    RETURN_IF_ERROR(AddCalledComputation(scatter, &proto, &scatter_shape));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferSelectAndScatterShape(shapes[0], select_shape, window, shapes[1],
                                                                           shapes[2], scatter_shape));
    *proto.mutable_window() = window;
    return AddInstruction(proto, HloOpcode::kSelectAndScatter, out, {operand, source, init_value});
  }());
}

XlaOp XlaBuilder::Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator, int64_t dimension,
                       bool is_stable) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes(operands));
    std::vector<const Shape*> ptrs = Pointers(shapes);
    if (dimension == -1 && !shapes.empty()) dimension = shapes[0].rank() - 1;
    HloInstructionProto proto;
    ProgramShape ps;
    RETURN_IF_ERROR(AddCalledComputation(comparator, &proto, &ps));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferSortShape(ptrs, dimension, ps));
    proto.add_dimensions(dimension);
    proto.set_is_stable(is_stable);
    return AddInstruction(proto, HloOpcode::kSort, out, operands);
  }());
}

XlaOp XlaBuilder::TopK(XlaOp operand, int64_t k, bool largest) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes({operand}));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferTopKShape(shapes[0], k));
    HloInstructionProto proto;
    proto.set_k(k);
    proto.set_largest(largest);
    return AddInstruction(proto, HloOpcode::kTopK, out, {operand});
  }());
}

XlaOp XlaBuilder::Map(absl::Span<const XlaOp> operands, const XlaComputation& computation,
                      absl::Span<const int64_t> dimensions) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes(operands));
    std::vector<const Shape*> ptrs = Pointers(shapes);
    HloInstructionProto proto;
    ProgramShape ps;
    RETURN_IF_ERROR(AddCalledComputation(computation, &proto, &ps));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferMapShape(ptrs, ps, dimensions));
    for (int64_t d : dimensions) proto.add_dimensions(d);
    return AddInstruction(proto, HloOpcode::kMap, out, operands);
  }());
}

XlaOp XlaBuilder::Fft(XlaOp operand, FftType fft_type, absl::Span<const int64_t> fft_length) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape shape, GetShape(operand));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferFftShape(shape, fft_type, fft_length));
    HloInstructionProto proto;
    proto.set_fft_type(fft_type);
    for (int64_t l : fft_length) proto.add_fft_length(l);
    return AddInstruction(proto, HloOpcode::kFft, out, {operand});
  }());
}

XlaOp XlaBuilder::CustomCall(const std::string& target_name, absl::Span<const XlaOp> operands, const Shape& shape,
                             const std::string& opaque, bool has_side_effect, CustomCallApiVersion api_version,
                             const std::vector<Shape>* operand_shapes_with_layout) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes(operands));
    std::vector<const Shape*> ptrs;
    for (const Shape& s : shapes) ptrs.push_back(&s);
    HloInstructionProto proto;
    proto.set_custom_call_target(target_name);
    proto.set_backend_config(opaque);
    proto.set_custom_call_has_side_effect(has_side_effect);
    proto.set_custom_call_api_version(api_version);
    if (operand_shapes_with_layout != nullptr) {
      for (const Shape& s : *operand_shapes_with_layout) *proto.add_operand_shapes_with_layout() = s.ToProto();
    }
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferCustomCallShape(ptrs, proto, shape));
    return AddInstruction(proto, HloOpcode::kCustomCall, out, operands);
  }());
}

XlaOp XlaBuilder::TriangularSolve(XlaOp a, XlaOp b, const TriangularSolveOptions& options) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes({a, b}));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferTriangularSolveShape(shapes[0], shapes[1], options));
    HloInstructionProto proto;
    *proto.mutable_triangular_solve_options() = options;
    return AddInstruction(proto, HloOpcode::kTriangularSolve, out, {a, b});
  }());
}

XlaOp XlaBuilder::Cholesky(XlaOp a, bool lower) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape shape, GetShape(a));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferCholeskyShape(shape));
    HloInstructionProto proto;
    proto.mutable_cholesky_options()->set_lower(lower);
    return AddInstruction(proto, HloOpcode::kCholesky, out, {a});
  }());
}

XlaOp XlaBuilder::Call(const XlaComputation& computation, absl::Span<const XlaOp> operands) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes(operands));
    std::vector<const Shape*> ptrs = Pointers(shapes);
    HloInstructionProto proto;
    ProgramShape ps;
    RETURN_IF_ERROR(AddCalledComputation(computation, &proto, &ps));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferCallShape(ptrs, ps));
    return AddInstruction(proto, HloOpcode::kCall, out, operands);
  }());
}

XlaOp XlaBuilder::While(const XlaComputation& condition, const XlaComputation& body, XlaOp init) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(Shape s, GetShape(init));
    HloInstructionProto proto;
    ProgramShape cond_shape, body_shape;
    RETURN_IF_ERROR(AddCalledComputation(condition, &proto, &cond_shape));
    RETURN_IF_ERROR(AddCalledComputation(body, &proto, &body_shape));
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferWhileShape(cond_shape, body_shape, s));
    return AddInstruction(proto, HloOpcode::kWhile, out, {init});
  }());
}

XlaOp XlaBuilder::Conditional(XlaOp branch_index, absl::Span<const XlaComputation* const> branches,
                              absl::Span<const XlaOp> operands) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    if (branches.size() != operands.size()) {
      return InvalidArgument("Conditional: %d branch computations but %d branch operands", branches.size(),
                             operands.size());
    }
    ASSIGN_OR_RETURN(Shape index_shape, GetShape(branch_index));
    HloInstructionProto proto;
    std::vector<ProgramShape> branch_shapes(branches.size());
    std::vector<Shape> operand_shapes;
    std::vector<XlaOp> all = {branch_index};
    for (size_t i = 0; i < branches.size(); ++i) {
      RETURN_IF_ERROR(AddCalledComputation(*branches[i], &proto, &branch_shapes[i]));
      ASSIGN_OR_RETURN(Shape s, GetShape(operands[i]));
      operand_shapes.push_back(s);
      all.push_back(operands[i]);
    }
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferConditionalShape(index_shape, branch_shapes, operand_shapes));
    return AddInstruction(proto, HloOpcode::kConditional, out, all);
  }());
}

absl::StatusOr<ProgramShape> XlaBuilder::GetProgramShape() const {
  RETURN_IF_ERROR(first_error_);
  ProgramShape ps;
  int64_t expected = 0;
  for (const auto& [n, p] : parameters_) {
    if (n != expected) return InvalidArgument("builder '%s': parameter number %d is missing", name_, expected);
    ASSIGN_OR_RETURN(Shape s, ShapeUtil::FromProto(p.shape()));
    ps.parameters().push_back(s);
    ps.parameter_names().push_back(p.name());
    ++expected;
  }
  if (instructions_.empty()) return InvalidArgument("builder '%s' has no instructions", name_);
  ps.result() = instructions_.back().shape;
  return ps;
}

void XlaBuilder::SetUpAlias(std::vector<int64_t> output_index, int64_t param_number,
                            std::vector<int64_t> param_index, bool must_alias) {
  input_output_aliases_.push_back({std::move(output_index), param_number, std::move(param_index), must_alias});
}

absl::StatusOr<XlaComputation> XlaBuilder::DoBuild(int64_t root_id) {
  RETURN_IF_ERROR(first_error_);
  if (built_) return FailedPrecondition("builder '%s' was already built", name_);
  if (instructions_.empty()) return InvalidArgument("builder '%s' has no instructions to build", name_);
  ProgramShape ps;
  int64_t expected = 0;
  for (const auto& [n, p] : parameters_) {
    if (n != expected) {
      return InvalidArgument("builder '%s': parameter numbers must be 0..%d with none missing, but %d is missing",
                             name_, parameters_.size() - 1, expected);
    }
    ASSIGN_OR_RETURN(Shape s, ShapeUtil::FromProto(p.shape()));
    ps.parameters().push_back(s);
    ps.parameter_names().push_back(p.name());
    ++expected;
  }
  HloComputationProto entry;
  entry.set_name(name_);
  entry.set_id(NextGlobalId());
  entry.set_root_id(root_id);
  for (const InstructionRecord& r : instructions_) *entry.add_instructions() = r.proto;
  ps.result() = instructions_[index_by_id_.at(root_id)].shape;
  *entry.mutable_program_shape() = ps.ToProto();

  HloModuleProto module;
  module.set_name(name_);
  for (HloComputationProto& c : UniquelyNamed(embedded_, entry.name())) *module.add_computations() = std::move(c);
  *module.add_computations() = entry;
  module.set_entry_computation_name(name_);
  module.set_entry_computation_id(entry.id());
  *module.mutable_host_program_shape() = ps.ToProto();
  // Checked here so that a bad alias fails at Build, naming the builder.
  absl::Status aliases = CheckInputOutputAliases(input_output_aliases_, ps);
  if (!aliases.ok()) return AddErrorContext(aliases, absl::StrCat("builder '", name_, "'"));
  for (const InputOutputAlias& a : input_output_aliases_) *module.add_input_output_alias() = InputOutputAliasToProto(a);
  built_ = true;
  return XlaComputation(std::move(module));
}

absl::StatusOr<XlaComputation> XlaBuilder::Build() {
  RETURN_IF_ERROR(first_error_);
  if (instructions_.empty()) return InvalidArgument("builder '%s' has no instructions to build", name_);
  return DoBuild(instructions_.back().proto.id());
}

absl::StatusOr<XlaComputation> XlaBuilder::Build(XlaOp root) {
  RETURN_IF_ERROR(first_error_);
  RETURN_IF_ERROR(CheckOperands({root}));
  return DoBuild(root.handle_);
}

absl::StatusOr<XlaComputation> XlaBuilder::BuildConstantSubGraph(XlaOp root) {
  RETURN_IF_ERROR(first_error_);
  RETURN_IF_ERROR(CheckOperands({root}));
  // Collect the instructions `root` depends on; none may be a parameter.
  absl::flat_hash_set<int64_t> needed = {root.handle_};
  for (int64_t i = index_by_id_.at(root.handle_); i >= 0; --i) {
    const InstructionRecord& r = instructions_[i];
    if (!needed.contains(r.proto.id())) continue;
    if (r.opcode == HloOpcode::kParameter) {
      return InvalidArgument("ComputeConstant: the value depends on parameter '%s'", r.proto.name());
    }
    for (int64_t op : r.proto.operand_ids()) needed.insert(op);
  }
  HloComputationProto entry;
  entry.set_name(absl::StrCat(name_, "_constant"));
  entry.set_id(NextGlobalId());
  entry.set_root_id(root.handle_);
  for (const InstructionRecord& r : instructions_) {
    if (needed.contains(r.proto.id())) *entry.add_instructions() = r.proto;
  }
  ProgramShape ps;
  ps.result() = instructions_[index_by_id_.at(root.handle_)].shape;
  *entry.mutable_program_shape() = ps.ToProto();
  HloModuleProto module;
  module.set_name(entry.name());
  for (HloComputationProto& c : UniquelyNamed(embedded_, entry.name())) *module.add_computations() = std::move(c);
  *module.add_computations() = entry;
  module.set_entry_computation_name(entry.name());
  module.set_entry_computation_id(entry.id());
  *module.mutable_host_program_shape() = ps.ToProto();
  return XlaComputation(std::move(module));
}

// --- Free functions ---------------------------------------------------------------

namespace {

// Every free function dispatches through the builder of its first valid
// operand; an invalid operand means an earlier error that is already recorded.
XlaBuilder* BuilderOf(std::initializer_list<XlaOp> ops) {
  for (const XlaOp& op : ops) {
    if (op.builder() != nullptr) return op.builder();
  }
  return nullptr;
}

}  // namespace

XlaOp Parameter(XlaBuilder* b, int64_t n, const Shape& shape, const std::string& name) {
  return b->Parameter(n, shape, name);
}
XlaOp ConstantLiteral(XlaBuilder* b, const Literal& literal) { return b->ConstantLiteral(literal); }
XlaOp ConstantScalar(XlaBuilder* b, PrimitiveType type, double value) {
  if (!primitive_util::IsArrayType(type)) {
    return b->ReportError(InvalidArgument("ConstantScalar: %s is not an array element type",
                                          primitive_util::LowercaseName(type)));
  }
  Literal lit(ShapeUtil::MakeScalarShape(type));
  lit.SetFromDouble(0, value);
  return b->ConstantLiteral(lit);
}
#define SCALAR_FACTORY(NAME, FACTORY)                                                            \
  XlaOp NAME(XlaBuilder* b, PrimitiveType type) {                                                \
    if (!primitive_util::IsArrayType(type)) {                                                    \
      return b->ReportError(InvalidArgument(#NAME ": %s is not an array element type",           \
                                            primitive_util::LowercaseName(type)));               \
    }                                                                                            \
    return b->ConstantLiteral(Literal::FACTORY(type));                                           \
  }
SCALAR_FACTORY(Zero, Zero)
SCALAR_FACTORY(One, One)
SCALAR_FACTORY(MinValue, MinValue)
SCALAR_FACTORY(MaxValue, MaxValue)
#undef SCALAR_FACTORY

#define UNARY(NAME, OPCODE)                               \
  XlaOp NAME(XlaOp x) {                                   \
    if (x.builder() == nullptr) return XlaOp();           \
    return x.builder()->UnaryOp(HloOpcode::OPCODE, x);    \
  }
UNARY(Abs, kAbs)
UNARY(Cbrt, kCbrt)
UNARY(Ceil, kCeil)
UNARY(Clz, kClz)
UNARY(Cos, kCos)
UNARY(Erf, kErf)
UNARY(Exp, kExp)
UNARY(Expm1, kExpm1)
UNARY(Floor, kFloor)
UNARY(Imag, kImag)
UNARY(IsFinite, kIsFinite)
UNARY(Log, kLog)
UNARY(Log1p, kLog1p)
UNARY(Logistic, kLogistic)
UNARY(Neg, kNegate)
UNARY(Not, kNot)
UNARY(PopulationCount, kPopulationCount)
UNARY(Real, kReal)
UNARY(Round, kRoundNearestAfz)
UNARY(RoundNearestEven, kRoundNearestEven)
UNARY(Rsqrt, kRsqrt)
UNARY(Sign, kSign)
UNARY(Sin, kSin)
UNARY(Sqrt, kSqrt)
UNARY(Tan, kTan)
UNARY(Tanh, kTanh)
#undef UNARY

#define BINARY(NAME, OPCODE)                                                   \
  XlaOp NAME(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> bdims) {          \
    XlaBuilder* b = BuilderOf({lhs, rhs});                                     \
    if (b == nullptr) return XlaOp();                                          \
    return b->BinaryOp(HloOpcode::OPCODE, lhs, rhs, bdims);                    \
  }
BINARY(Add, kAdd)
BINARY(Sub, kSubtract)
BINARY(Mul, kMultiply)
BINARY(Div, kDivide)
BINARY(Rem, kRemainder)
BINARY(Pow, kPower)
BINARY(Max, kMaximum)
BINARY(Min, kMinimum)
BINARY(And, kAnd)
BINARY(Or, kOr)
BINARY(Xor, kXor)
BINARY(ShiftLeft, kShiftLeft)
BINARY(ShiftRightArithmetic, kShiftRightArithmetic)
BINARY(ShiftRightLogical, kShiftRightLogical)
BINARY(Atan2, kAtan2)
BINARY(Complex, kComplex)
#undef BINARY

XlaOp Compare(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> bdims, ComparisonDirection direction,
              ComparisonType type) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr) return XlaOp();
  return b->BinaryOp(HloOpcode::kCompare, lhs, rhs, bdims, direction, type);
}

#define COMPARE(NAME, DIR, TOTAL)                                                          \
  XlaOp NAME(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> bdims) {                      \
    XlaBuilder* b = BuilderOf({lhs, rhs});                                                 \
    if (b == nullptr) return XlaOp();                                                      \
    std::optional<ComparisonType> type;                                                    \
    if (TOTAL) type = ComparisonType::kTotalOrder;                                         \
    return b->BinaryOp(HloOpcode::kCompare, lhs, rhs, bdims, ComparisonDirection::DIR, type); \
  }
COMPARE(Eq, kEq, false)
COMPARE(Ne, kNe, false)
COMPARE(Ge, kGe, false)
COMPARE(Gt, kGt, false)
COMPARE(Le, kLe, false)
COMPARE(Lt, kLt, false)
COMPARE(EqTotalOrder, kEq, true)
COMPARE(NeTotalOrder, kNe, true)
COMPARE(GeTotalOrder, kGe, true)
COMPARE(GtTotalOrder, kGt, true)
COMPARE(LeTotalOrder, kLe, true)
COMPARE(LtTotalOrder, kLt, true)
#undef COMPARE

XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false) {
  XlaBuilder* b = BuilderOf({pred, on_true, on_false});
  if (b == nullptr) return XlaOp();
  return b->TernaryOp(HloOpcode::kSelect, pred, on_true, on_false);
}
XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max) {
  XlaBuilder* b = BuilderOf({min, operand, max});
  if (b == nullptr) return XlaOp();
  return b->TernaryOp(HloOpcode::kClamp, min, operand, max);
}
XlaOp ConvertElementType(XlaOp operand, PrimitiveType type) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->ConvertElementType(operand, type);
}
XlaOp BitcastConvertType(XlaOp operand, PrimitiveType type) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->BitcastConvertType(operand, type);
}
XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->ReducePrecision(operand, exponent_bits, mantissa_bits);
}
XlaOp RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state, const Shape& shape) {
  if (initial_state.builder() == nullptr) return XlaOp();
  return initial_state.builder()->RngBitGenerator(algorithm, initial_state, shape);
}
XlaOp Broadcast(XlaOp operand, absl::Span<const int64_t> sizes) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->Broadcast(operand, sizes);
}
XlaOp BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dim_size,
                     absl::Span<const int64_t> broadcast_dimensions) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->BroadcastInDim(operand, out_dim_size, broadcast_dimensions);
}
XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->Reshape(operand, new_sizes);
}
XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> dimensions, absl::Span<const int64_t> new_sizes) {
  if (operand.builder() == nullptr) return XlaOp();
  bool identity = true;
  for (size_t i = 0; i < dimensions.size(); ++i) identity &= dimensions[i] == static_cast<int64_t>(i);
  XlaOp t = identity ? operand : operand.builder()->Transpose(operand, dimensions);
  return Reshape(t, new_sizes);
}
XlaOp Collapse(XlaOp operand, absl::Span<const int64_t> dimensions) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  auto shape = b->GetShape(operand);
  if (!shape.ok()) return b->ReportError(shape.status());
  if (dimensions.empty()) return operand;
  for (size_t i = 0; i < dimensions.size(); ++i) {
    if (dimensions[i] < 0 || dimensions[i] >= shape->rank() || (i > 0 && dimensions[i] != dimensions[i - 1] + 1)) {
      return b->ReportError(InvalidArgument("Collapse: dimensions {%s} must be consecutive dimensions of %s",
                                            absl::StrJoin(dimensions, ","), shape->ToString()));
    }
  }
  std::vector<int64_t> new_sizes;
  for (int64_t d = 0; d < shape->rank(); ++d) {
    if (d > dimensions.front() && d <= dimensions.back()) {
      new_sizes.back() *= shape->dimensions(d);
    } else {
      new_sizes.push_back(shape->dimensions(d));
    }
  }
  return Reshape(operand, new_sizes);
}
XlaOp Transpose(XlaOp operand, absl::Span<const int64_t> permutation) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->Transpose(operand, permutation);
}
XlaOp Rev(XlaOp operand, absl::Span<const int64_t> dimensions) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->Rev(operand, dimensions);
}
XlaOp Slice(XlaOp operand, absl::Span<const int64_t> start, absl::Span<const int64_t> limit,
            absl::Span<const int64_t> strides) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->Slice(operand, start, limit, strides);
}
XlaOp SliceInDim(XlaOp operand, int64_t start_index, int64_t limit_index, int64_t stride, int64_t dimno) {
  XlaBuilder* b = operand.builder();
  if (b == nullptr) return XlaOp();
  auto shape = b->GetShape(operand);
  if (!shape.ok()) return b->ReportError(shape.status());
  if (dimno < 0 || dimno >= shape->rank()) {
    return b->ReportError(InvalidArgument("SliceInDim: dimension %d out of range for %s", dimno, shape->ToString()));
  }
  std::vector<int64_t> starts(shape->rank(), 0), limits = shape->dimensions(), strides(shape->rank(), 1);
  starts[dimno] = start_index;
  limits[dimno] = limit_index;
  strides[dimno] = stride;
  return b->Slice(operand, starts, limits, strides);
}
XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices, absl::Span<const int64_t> slice_sizes) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->DynamicSlice(operand, start_indices, slice_sizes);
}
XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update, absl::Span<const XlaOp> start_indices) {
  XlaBuilder* b = BuilderOf({operand, update});
  if (b == nullptr) return XlaOp();
  return b->DynamicUpdateSlice(operand, update, start_indices);
}
XlaOp ConcatInDim(XlaBuilder* b, absl::Span<const XlaOp> operands, int64_t dimension) {
  return b->ConcatInDim(operands, dimension);
}
XlaOp Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& config) {
  XlaBuilder* b = BuilderOf({operand, padding_value});
  if (b == nullptr) return XlaOp();
  return b->Pad(operand, padding_value, config);
}
XlaOp PadInDim(XlaOp operand, XlaOp padding_value, int64_t dimno, int64_t pad_lo, int64_t pad_hi) {
  XlaBuilder* b = BuilderOf({operand, padding_value});
  if (b == nullptr) return XlaOp();
  auto shape = b->GetShape(operand);
  if (!shape.ok()) return b->ReportError(shape.status());
  if (dimno < 0 || dimno >= shape->rank()) {
    return b->ReportError(InvalidArgument("PadInDim: dimension %d out of range for %s", dimno, shape->ToString()));
  }
  PaddingConfig config;
  for (int64_t d = 0; d < shape->rank(); ++d) {
    auto* dim = config.add_dimensions();
    if (d == dimno) {
      dim->set_edge_padding_low(pad_lo);
      dim->set_edge_padding_high(pad_hi);
    }
  }
  return b->Pad(operand, padding_value, config);
}
XlaOp Tuple(XlaBuilder* b, absl::Span<const XlaOp> elements) { return b->Tuple(elements); }
XlaOp GetTupleElement(XlaOp tuple, int64_t index) {
  if (tuple.builder() == nullptr) return XlaOp();
  return tuple.builder()->GetTupleElement(tuple, index);
}
XlaOp Iota(XlaBuilder* b, const Shape& shape, int64_t iota_dimension) { return b->Iota(shape, iota_dimension); }
XlaOp Iota(XlaBuilder* b, PrimitiveType type, int64_t size) {
  return b->Iota(ShapeUtil::MakeShape(type, {size}), 0);
}

XlaOp Dot(XlaOp lhs, XlaOp rhs) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr) return XlaOp();
  auto ls = b->GetShape(lhs);
  if (!ls.ok()) return b->ReportError(ls.status());
  auto rs = b->GetShape(rhs);
  if (!rs.ok()) return b->ReportError(rs.status());
  if (ls->rank() < 1 || ls->rank() > 2 || rs->rank() < 1 || rs->rank() > 2) {
    return b->ReportError(InvalidArgument(
        "Dot: operands must have rank 1 or 2 (use DotGeneral for others), got lhs %s, rhs %s", ls->ToString(),
        rs->ToString()));
  }
  DotDimensionNumbers dnums;
  dnums.add_lhs_contracting_dimensions(ls->rank() - 1);
  dnums.add_rhs_contracting_dimensions(0);
  return b->DotGeneral(lhs, rhs, dnums);
}
XlaOp DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensionNumbers& dnums) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr) return XlaOp();
  return b->DotGeneral(lhs, rhs, dnums);
}

std::vector<std::pair<int64_t, int64_t>> MakePadding(absl::Span<const int64_t> input_dimensions,
                                                     absl::Span<const int64_t> window_dimensions,
                                                     absl::Span<const int64_t> window_strides, Padding padding) {
  std::vector<std::pair<int64_t, int64_t>> out(input_dimensions.size(), {0, 0});
  if (padding == Padding::kValid) return out;
  for (size_t i = 0; i < out.size() && i < window_dimensions.size() && i < window_strides.size(); ++i) {
    const int64_t stride = std::max<int64_t>(window_strides[i], 1);
    const int64_t output = (input_dimensions[i] + stride - 1) / stride;
    const int64_t total = std::max<int64_t>((output - 1) * stride + window_dimensions[i] - input_dimensions[i], 0);
    out[i] = {total / 2, total - total / 2};
  }
  return out;
}

namespace {

// Conv's and ConvWithGeneralDimensions' padding from the operand shapes.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> PaddingFor(XlaBuilder* b, XlaOp lhs, XlaOp rhs,
                                                                    absl::Span<const int64_t> window_strides,
                                                                    Padding padding,
                                                                    const ConvolutionDimensionNumbers& dnums) {
  ASSIGN_OR_RETURN(Shape ls, b->GetShape(lhs));
  ASSIGN_OR_RETURN(Shape rs, b->GetShape(rhs));
  const int64_t spatial = dnums.input_spatial_dimensions_size();
  if (!ls.IsArray() || !rs.IsArray() || ls.rank() != spatial + 2 || rs.rank() != spatial + 2 ||
      dnums.kernel_spatial_dimensions_size() != spatial) {
    return InvalidArgument("Convolution: lhs %s and rhs %s must be arrays of rank %d", ls.ToString(), rs.ToString(),
                           spatial + 2);
  }
  std::vector<int64_t> in, window;
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t ld = dnums.input_spatial_dimensions(i), rd = dnums.kernel_spatial_dimensions(i);
    if (ld < 0 || ld >= ls.rank() || rd < 0 || rd >= rs.rank()) {
      return InvalidArgument("Convolution: spatial dimension %d is out of range", i);
    }
    in.push_back(ls.dimensions(ld));
    window.push_back(rs.dimensions(rd));
  }
  return MakePadding(in, window, window_strides, padding);
}

}  // namespace

XlaOp Conv(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
           int64_t feature_group_count, int64_t batch_group_count) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr) return XlaOp();
  auto rs = b->GetShape(rhs);
  if (!rs.ok()) return b->ReportError(rs.status());
  const int spatial = rs->IsArray() ? std::max(rs->rank() - 2, 0) : 0;
  return ConvWithGeneralDimensions(lhs, rhs, window_strides, padding,
                                   XlaBuilder::CreateDefaultConvDimensionNumbers(spatial), feature_group_count,
                                   batch_group_count);
}

XlaOp ConvWithGeneralPadding(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                             absl::Span<const std::pair<int64_t, int64_t>> padding, int64_t feature_group_count,
                             int64_t batch_group_count) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr) return XlaOp();
  auto rs = b->GetShape(rhs);
  if (!rs.ok()) return b->ReportError(rs.status());
  const int spatial = rs->IsArray() ? std::max(rs->rank() - 2, 0) : 0;
  return ConvGeneral(lhs, rhs, window_strides, padding, XlaBuilder::CreateDefaultConvDimensionNumbers(spatial),
                     feature_group_count, batch_group_count);
}

XlaOp ConvWithGeneralDimensions(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
                                const ConvolutionDimensionNumbers& dimension_numbers, int64_t feature_group_count,
                                int64_t batch_group_count) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr) return XlaOp();
  auto pads = PaddingFor(b, lhs, rhs, window_strides, padding, dimension_numbers);
  if (!pads.ok()) return b->ReportError(pads.status());
  return ConvGeneral(lhs, rhs, window_strides, *pads, dimension_numbers, feature_group_count, batch_group_count);
}

XlaOp ConvGeneral(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  const ConvolutionDimensionNumbers& dimension_numbers, int64_t feature_group_count,
                  int64_t batch_group_count) {
  return ConvGeneralDilated(lhs, rhs, window_strides, padding, {}, {}, dimension_numbers, feature_group_count,
                            batch_group_count);
}

XlaOp ConvGeneralDilated(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                         absl::Span<const int64_t> lhs_dilation, absl::Span<const int64_t> rhs_dilation,
                         const ConvolutionDimensionNumbers& dimension_numbers, int64_t feature_group_count,
                         int64_t batch_group_count) {
  XlaBuilder* b = BuilderOf({lhs, rhs});
  if (b == nullptr) return XlaOp();
  return b->ConvGeneralDilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                               feature_group_count, batch_group_count);
}

XlaOp SelectAndScatter(XlaOp operand, const XlaComputation& select, absl::Span<const int64_t> window_dimensions,
                       absl::Span<const int64_t> window_strides, Padding padding, XlaOp source, XlaOp init_value,
                       const XlaComputation& scatter) {
  XlaBuilder* b = BuilderOf({operand, source, init_value});
  if (b == nullptr) return XlaOp();
  auto shape = b->GetShape(operand);
  if (!shape.ok()) return b->ReportError(shape.status());
  if (!shape->IsArray()) return b->ReportError(InvalidArgument("SelectAndScatter: operand must be an array"));
  return SelectAndScatterWithGeneralPadding(operand, select, window_dimensions, window_strides,
                                            MakePadding(shape->dimensions(), window_dimensions, window_strides, padding),
                                            source, init_value, scatter);
}

XlaOp SelectAndScatterWithGeneralPadding(XlaOp operand, const XlaComputation& select,
                                         absl::Span<const int64_t> window_dimensions,
                                         absl::Span<const int64_t> window_strides,
                                         absl::Span<const std::pair<int64_t, int64_t>> padding, XlaOp source,
                                         XlaOp init_value, const XlaComputation& scatter) {
  XlaBuilder* b = BuilderOf({operand, source, init_value});
  if (b == nullptr) return XlaOp();
  const size_t rank = window_dimensions.size();
  if (window_strides.size() != rank || padding.size() != rank) {
    return b->ReportError(InvalidArgument(
        "SelectAndScatter: window_strides and padding need %d entries, got %d and %d", rank, window_strides.size(),
        padding.size()));
  }
  Window window;
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension* w = window.add_dimensions();
    w->set_size(window_dimensions[i]);
    w->set_stride(window_strides[i]);
    w->set_padding_low(padding[i].first);
    w->set_padding_high(padding[i].second);
    w->set_base_dilation(1);
    w->set_window_dilation(1);
  }
  return b->SelectAndScatter(operand, select, window, source, init_value, scatter);
}

XlaOp Scatter(XlaOp input, XlaOp scatter_indices, XlaOp updates, const XlaComputation& update_computation,
              const ScatterDimensionNumbers& dimension_numbers, bool indices_are_sorted, bool unique_indices) {
  XlaBuilder* b = BuilderOf({input, scatter_indices, updates});
  if (b == nullptr) return XlaOp();
  return b->Scatter({input}, scatter_indices, {updates}, update_computation, dimension_numbers, indices_are_sorted,
                    unique_indices);
}

XlaOp Scatter(absl::Span<const XlaOp> inputs, XlaOp scatter_indices, absl::Span<const XlaOp> updates,
              const XlaComputation& update_computation, const ScatterDimensionNumbers& dimension_numbers,
              bool indices_are_sorted, bool unique_indices) {
  XlaBuilder* b = scatter_indices.builder();
  if (b == nullptr) return XlaOp();
  return b->Scatter(inputs, scatter_indices, updates, update_computation, dimension_numbers, indices_are_sorted,
                    unique_indices);
}

XlaOp ReduceWindow(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
                   absl::Span<const int64_t> window_dimensions, absl::Span<const int64_t> window_strides,
                   Padding padding) {
  XlaBuilder* b = BuilderOf({operand, init_value});
  if (b == nullptr) return XlaOp();
  auto shape = b->GetShape(operand);
  if (!shape.ok()) return b->ReportError(shape.status());
  if (!shape->IsArray()) return b->ReportError(InvalidArgument("ReduceWindow: operand must be an array"));
  const std::vector<std::pair<int64_t, int64_t>> pads =
      MakePadding(shape->dimensions(), window_dimensions, window_strides, padding);
  return ReduceWindowWithGeneralPadding({operand}, {init_value}, computation, window_dimensions, window_strides, {},
                                        {}, pads);
}

XlaOp ReduceWindowWithGeneralPadding(absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
                                     const XlaComputation& computation,
                                     absl::Span<const int64_t> window_dimensions,
                                     absl::Span<const int64_t> window_strides,
                                     absl::Span<const int64_t> base_dilations,
                                     absl::Span<const int64_t> window_dilations,
                                     absl::Span<const std::pair<int64_t, int64_t>> padding) {
  if (operands.empty()) return XlaOp();
  XlaBuilder* b = operands[0].builder();
  if (b == nullptr) return XlaOp();
  const size_t rank = window_dimensions.size();
  auto sized = [rank](size_t size, bool may_be_empty) { return size == rank || (may_be_empty && size == 0); };
  if (!sized(window_strides.size(), true) || !sized(base_dilations.size(), true) ||
      !sized(window_dilations.size(), true) || !sized(padding.size(), true)) {
    return b->ReportError(InvalidArgument(
        "ReduceWindow: window_strides, base_dilations, window_dilations and padding need %d entries (or none), got "
        "%d, %d, %d and %d",
        rank, window_strides.size(), base_dilations.size(), window_dilations.size(), padding.size()));
  }
  Window window;
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension* w = window.add_dimensions();
    w->set_size(window_dimensions[i]);
    w->set_stride(window_strides.empty() ? 1 : window_strides[i]);
    w->set_base_dilation(base_dilations.empty() ? 1 : base_dilations[i]);
    w->set_window_dilation(window_dilations.empty() ? 1 : window_dilations[i]);
    w->set_padding_low(padding.empty() ? 0 : padding[i].first);
    w->set_padding_high(padding.empty() ? 0 : padding[i].second);
  }
  return b->ReduceWindow(operands, init_values, computation, window);
}

XlaOp Fft(XlaOp operand, FftType fft_type, absl::Span<const int64_t> fft_length) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->Fft(operand, fft_type, fft_length);
}

XlaOp TriangularSolve(XlaOp a, XlaOp b, bool left_side, bool lower, bool unit_diagonal,
                      TriangularSolveOptions::Transpose transpose_a) {
  XlaBuilder* builder = BuilderOf({a, b});
  if (builder == nullptr) return XlaOp();
  TriangularSolveOptions options;
  options.set_left_side(left_side);
  options.set_lower(lower);
  options.set_unit_diagonal(unit_diagonal);
  options.set_transpose_a(transpose_a);
  return builder->TriangularSolve(a, b, options);
}

XlaOp CustomCall(XlaBuilder* builder, const std::string& target_name, absl::Span<const XlaOp> operands,
                 const Shape& shape, const std::string& opaque, bool has_side_effect,
                 CustomCallApiVersion api_version) {
  return builder->CustomCall(target_name, operands, shape, opaque, has_side_effect, api_version, nullptr);
}

XlaOp CustomCallWithLayout(XlaBuilder* builder, const std::string& target_name, absl::Span<const XlaOp> operands,
                           const Shape& shape_with_layout, absl::Span<const Shape> operand_shapes_with_layout,
                           const std::string& opaque, bool has_side_effect, CustomCallApiVersion api_version) {
  const std::vector<Shape> layouts(operand_shapes_with_layout.begin(), operand_shapes_with_layout.end());
  return builder->CustomCall(target_name, operands, shape_with_layout, opaque, has_side_effect, api_version,
                             &layouts);
}

XlaOp Cholesky(XlaOp a, bool lower) {
  if (a.builder() == nullptr) return XlaOp();
  return a.builder()->Cholesky(a, lower);
}

XlaOp Gather(XlaOp input, XlaOp start_indices, const GatherDimensionNumbers& dimension_numbers,
             absl::Span<const int64_t> slice_sizes) {
  XlaBuilder* b = BuilderOf({input, start_indices});
  if (b == nullptr) return XlaOp();
  return b->Gather(input, start_indices, dimension_numbers, slice_sizes);
}

XlaOp Reduce(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
             absl::Span<const int64_t> dims) {
  XlaBuilder* b = BuilderOf({operand, init_value});
  if (b == nullptr) return XlaOp();
  return b->Reduce({operand}, {init_value}, computation, dims);
}
XlaOp Reduce(XlaBuilder* b, absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
             const XlaComputation& computation, absl::Span<const int64_t> dims) {
  return b->Reduce(operands, init_values, computation, dims);
}
XlaOp ReduceAll(XlaOp operand, XlaOp init_value, const XlaComputation& computation) {
  XlaBuilder* b = BuilderOf({operand, init_value});
  if (b == nullptr) return XlaOp();
  auto s = b->GetShape(operand);
  if (!s.ok()) return b->ReportError(s.status());
  return b->Reduce({operand}, {init_value}, computation, Iota64(s->rank()));
}
XlaOp Map(XlaBuilder* b, absl::Span<const XlaOp> operands, const XlaComputation& computation,
          absl::Span<const int64_t> dimensions) {
  return b->Map(operands, computation, dimensions);
}
XlaOp Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator, int64_t dimension,
           bool is_stable) {
  if (operands.empty() || operands[0].builder() == nullptr) return XlaOp();
  return operands[0].builder()->Sort(operands, comparator, dimension, is_stable);
}
XlaOp TopK(XlaOp operand, int64_t k, bool largest) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->TopK(operand, k, largest);
}
XlaOp Call(XlaBuilder* b, const XlaComputation& computation, absl::Span<const XlaOp> operands) {
  return b->Call(computation, operands);
}
XlaOp While(const XlaComputation& condition, const XlaComputation& body, XlaOp init) {
  if (init.builder() == nullptr) return XlaOp();
  return init.builder()->While(condition, body, init);
}
XlaOp Conditional(XlaOp predicate, XlaOp true_operand, const XlaComputation& true_computation,
                  XlaOp false_operand, const XlaComputation& false_computation) {
  XlaBuilder* b = BuilderOf({predicate, true_operand, false_operand});
  if (b == nullptr) return XlaOp();
  const XlaComputation* branches[] = {&true_computation, &false_computation};
  return b->Conditional(predicate, branches, {true_operand, false_operand});
}
XlaOp Conditional(XlaOp branch_index, absl::Span<const XlaComputation* const> branch_computations,
                  absl::Span<const XlaOp> branch_operands) {
  if (branch_index.builder() == nullptr) return XlaOp();
  return branch_index.builder()->Conditional(branch_index, branch_computations, branch_operands);
}

XlaOp operator+(XlaOp x, XlaOp y) { return Add(x, y); }
XlaOp operator-(XlaOp x, XlaOp y) { return Sub(x, y); }
XlaOp operator*(XlaOp x, XlaOp y) { return Mul(x, y); }
XlaOp operator/(XlaOp x, XlaOp y) { return Div(x, y); }
XlaOp operator-(XlaOp x) { return Neg(x); }

}  // namespace xla
