#include "backends/cpu/transforms/convolution_lowering.h"

#include <algorithm>
#include <vector>

#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace cpu {
namespace {

Shape RowMajor(PrimitiveType type, absl::Span<const int64_t> dims) {
  return ShapeUtil::WithDefaultLayout(ShapeUtil::MakeShape(type, dims));
}

void AddSliceDimension(HloInstructionProto* slice, int64_t start, int64_t limit, int64_t stride) {
  auto* d = slice->add_slice_dimensions();
  d->set_start(start);
  d->set_limit(limit);
  d->set_stride(stride);
}

bool IsIdentity(absl::Span<const int64_t> permutation) {
  for (size_t i = 0; i < permutation.size(); ++i) {
    if (permutation[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// Builds the replacement of one convolution in its computation.
class Lowering {
 public:
  Lowering(HloComputation* computation, NameUniquer* names, HloInstruction* conv)
      : computation_(computation),
        names_(names),
        conv_(conv),
        dnums_(conv->attributes().convolution_dimension_numbers()),
        window_(conv->attributes().window()),
        spatial_(dnums_.input_spatial_dimensions_size()) {
    for (int64_t i = 0; i < spatial_; ++i) {
      out_sizes_.push_back(conv->shape().dimensions(dnums_.output_spatial_dimensions(i)));
      kernel_sizes_.push_back(conv->operand(1)->shape().dimensions(dnums_.kernel_spatial_dimensions(i)));
      positions_ *= kernel_sizes_.back();
    }
    batch_ = conv->operand(0)->shape().dimensions(dnums_.input_batch_dimension());
    in_features_ = conv->operand(0)->shape().dimensions(dnums_.input_feature_dimension());
    out_features_ = conv->shape().dimensions(dnums_.output_feature_dimension());
  }

  // Depthwise: sum over kernel positions of slice(input) * weights.
  absl::StatusOr<HloInstruction*> Depthwise(PrimitiveType compute_type) {
    const int64_t multiplier = out_features_ / in_features_;
    ASSIGN_OR_RETURN(std::vector<HloInstruction*> inputs, WindowInputs(compute_type, /*shared_copy=*/false));
    // Weights as [positions, out features].
    ASSIGN_OR_RETURN(HloInstruction * kernel, KernelAsMatrix(compute_type));
    std::vector<int64_t> out_dims = CanonicalOutputDims();
    HloInstruction* sum = nullptr;
    for (int64_t p = 0; p < positions_; ++p) {
      HloInstruction* x = inputs[p];
      if (multiplier > 1) {
        // Input feature g feeds out features g*m .. g*m + m - 1.
        std::vector<int64_t> wide = out_dims;
        wide.back() = in_features_;
        wide.push_back(multiplier);
        HloInstructionProto broadcast;
        for (int64_t d = 0; d <= spatial_ + 1; ++d) broadcast.add_dimensions(d);
        ASSIGN_OR_RETURN(x, Make(HloOpcode::kBroadcast, RowMajor(compute_type, wide), {x}, broadcast));
        ASSIGN_OR_RETURN(x, Make(HloOpcode::kReshape, RowMajor(compute_type, out_dims), {x}));
      }
      HloInstructionProto row;
      AddSliceDimension(&row, p, p + 1, 1);
      AddSliceDimension(&row, 0, out_features_, 1);
      ASSIGN_OR_RETURN(HloInstruction * w, Make(HloOpcode::kSlice, RowMajor(compute_type, {1, out_features_}),
                                                {kernel}, row));
      ASSIGN_OR_RETURN(w, Make(HloOpcode::kReshape, RowMajor(compute_type, {out_features_}), {w}));
      HloInstructionProto along_features;
      along_features.add_dimensions(spatial_ + 1);
      ASSIGN_OR_RETURN(w, Make(HloOpcode::kBroadcast, RowMajor(compute_type, out_dims), {w}, along_features));
      ASSIGN_OR_RETURN(HloInstruction * term, Make(HloOpcode::kMultiply, RowMajor(compute_type, out_dims), {x, w}));
      if (sum == nullptr) {
        sum = term;
      } else {
        ASSIGN_OR_RETURN(sum, Make(HloOpcode::kAdd, RowMajor(compute_type, out_dims), {sum, term}));
      }
    }
    const PrimitiveType type = conv_->shape().element_type();
    if (compute_type != type) {
      ASSIGN_OR_RETURN(sum, Make(HloOpcode::kConvert, RowMajor(type, out_dims), {sum}));
    }
    return ToOutputOrder(sum);
  }

  // im2col: patches [batch, out spatial..., positions x features] times the
  // kernel as [positions x features, out features].
  absl::StatusOr<HloInstruction*> Im2col() {
    const PrimitiveType type = conv_->shape().element_type();
    // The patches loop copies from one padded copy: measured faster than
    // concatenating per-position edge windows (each a select per element).
    ASSIGN_OR_RETURN(std::vector<HloInstruction*> slices, WindowInputs(type, /*shared_copy=*/true));
    std::vector<int64_t> patch_dims = CanonicalOutputDims();
    patch_dims.back() = positions_ * in_features_;
    HloInstruction* patches = slices[0];
    if (slices.size() > 1) {
      HloInstructionProto along_features;
      along_features.add_dimensions(spatial_ + 1);
      ASSIGN_OR_RETURN(patches, Make(HloOpcode::kConcatenate, RowMajor(type, patch_dims), slices, along_features));
    }
    ASSIGN_OR_RETURN(HloInstruction * kernel, KernelAsMatrix(type));
    HloInstructionProto dot;
    dot.mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(spatial_ + 1);
    dot.mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(0);
    ASSIGN_OR_RETURN(HloInstruction * product,
                     Make(HloOpcode::kDot, RowMajor(type, CanonicalOutputDims()), {patches, kernel}, dot));
    return ToOutputOrder(product);
  }

  // One dot per output position: the input window under it, [batch, kernel
  // spatial..., features] reshaped to [batch, positions x features], times
  // the kernel matrix gives that position's [batch, out features]; the
  // products are concatenated over output positions. For kernels with more
  // positions than im2col takes, such as a weight gradient's (the kernel is
  // the output gradient, the output the few positions of a filter).
  // With batch groups (StableHLO's: group i convolves batch elements
  // [i*b, (i+1)*b) with output features [i*o, (i+1)*o), and the results are
  // concatenated along features), each dot is batched over the groups.
  absl::StatusOr<HloInstruction*> PerOutputPosition(int64_t batch_groups) {
    const PrimitiveType type = conv_->shape().element_type();
    const int64_t groups = batch_groups, group_batch = batch_ / groups, group_out = out_features_ / groups;
    ASSIGN_OR_RETURN(HloInstruction * input, TransposedInput(type));
    ASSIGN_OR_RETURN(input, Padded(input, type));
    ASSIGN_OR_RETURN(HloInstruction * kernel, KernelAsMatrix(type));
    const int64_t depth = positions_ * in_features_;
    std::vector<int64_t> window_dims = {batch_};
    window_dims.insert(window_dims.end(), kernel_sizes_.begin(), kernel_sizes_.end());
    window_dims.push_back(in_features_);
    HloInstructionProto dot;
    std::vector<int64_t> lhs_dims = {batch_, depth}, product_dims = {batch_, out_features_};
    if (groups > 1) {
      // The kernel as [groups, depth, group out features].
      ASSIGN_OR_RETURN(kernel, Make(HloOpcode::kReshape, RowMajor(type, {depth, groups, group_out}), {kernel}));
      HloInstructionProto groups_first;
      for (int64_t d : {1, 0, 2}) groups_first.add_dimensions(d);
      ASSIGN_OR_RETURN(kernel,
                       Make(HloOpcode::kTranspose, RowMajor(type, {groups, depth, group_out}), {kernel}, groups_first));
      dot.mutable_dot_dimension_numbers()->add_lhs_batch_dimensions(0);
      dot.mutable_dot_dimension_numbers()->add_rhs_batch_dimensions(0);
      dot.mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(2);
      dot.mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(1);
      lhs_dims = {groups, group_batch, depth};
      product_dims = {groups, group_batch, group_out};
    } else {
      dot.mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(1);
      dot.mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(0);
    }
    std::vector<HloInstruction*> products;
    int64_t out_positions = 1;
    for (int64_t size : out_sizes_) out_positions *= size;
    for (int64_t o = 0; o < out_positions; ++o) {
      const std::vector<int64_t> at = Unflatten(o, out_sizes_);
      HloInstructionProto slice;
      AddSliceDimension(&slice, 0, batch_, 1);
      for (int64_t i = 0; i < spatial_; ++i) {
        const WindowDimension& w = window_.dimensions(i);
        const int64_t start = at[i] * w.stride();
        AddSliceDimension(&slice, start, start + (kernel_sizes_[i] - 1) * w.window_dilation() + 1,
                          w.window_dilation());
      }
      AddSliceDimension(&slice, 0, in_features_, 1);
      ASSIGN_OR_RETURN(HloInstruction * x, Make(HloOpcode::kSlice, RowMajor(type, window_dims), {input}, slice));
      ASSIGN_OR_RETURN(x, Make(HloOpcode::kReshape, RowMajor(type, lhs_dims), {x}));
      ASSIGN_OR_RETURN(x, Make(HloOpcode::kDot, RowMajor(type, product_dims), {x, kernel}, dot));
      if (groups > 1) {  // [group batch, groups, group out features]
        HloInstructionProto batch_first;
        for (int64_t d : {1, 0, 2}) batch_first.add_dimensions(d);
        ASSIGN_OR_RETURN(x, Make(HloOpcode::kTranspose, RowMajor(type, {group_batch, groups, group_out}), {x},
                                 batch_first));
      }
      ASSIGN_OR_RETURN(x, Make(HloOpcode::kReshape, RowMajor(type, {group_batch, 1, out_features_}), {x}));
      products.push_back(x);
    }
    HloInstruction* all = products[0];
    if (products.size() > 1) {
      HloInstructionProto along_positions;
      along_positions.add_dimensions(1);
      ASSIGN_OR_RETURN(all, Make(HloOpcode::kConcatenate, RowMajor(type, {group_batch, out_positions, out_features_}),
                                 products, along_positions));
    }
    std::vector<int64_t> out_dims = CanonicalOutputDims();
    out_dims[0] = group_batch;
    ASSIGN_OR_RETURN(all, Make(HloOpcode::kReshape, RowMajor(type, out_dims), {all}));
    return ToOutputOrder(all);
  }

 private:
  // Row-major position p of an array of `sizes` as coordinates.
  static std::vector<int64_t> Unflatten(int64_t p, absl::Span<const int64_t> sizes) {
    std::vector<int64_t> at(sizes.size());
    for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
      at[i] = p % sizes[i];
      p /= sizes[i];
    }
    return at;
  }

  absl::StatusOr<HloInstruction*> Make(HloOpcode opcode, const Shape& shape,
                                       absl::Span<HloInstruction* const> operands, HloInstructionProto attrs = {}) {
    return MakeInstruction(computation_, names_, opcode, shape, operands, std::move(attrs));
  }

  // [batch, out spatial..., out features].
  std::vector<int64_t> CanonicalOutputDims() const {
    std::vector<int64_t> dims = {batch_};
    dims.insert(dims.end(), out_sizes_.begin(), out_sizes_.end());
    dims.push_back(out_features_);
    return dims;
  }

  // The input under each kernel position (row-major over positions):
  // [batch, out spatial..., features] in `type`. Without lhs dilation or
  // `shared_copy` each is its own slice of the input, padded only where the
  // window hangs over the edge, so nothing is materialized (a padded copy
  // shared by all positions is written and read again); otherwise strided
  // slices of one dilated and padded copy.
  absl::StatusOr<std::vector<HloInstruction*>> WindowInputs(PrimitiveType type, bool shared_copy) {
    ASSIGN_OR_RETURN(HloInstruction * input, TransposedInput(type));
    bool dilated = shared_copy;
    for (const WindowDimension& w : window_.dimensions()) dilated |= w.base_dilation() != 1;
    if (dilated) {
      ASSIGN_OR_RETURN(input, Padded(input, type));
    }
    std::vector<HloInstruction*> inputs;
    for (int64_t p = 0; p < positions_; ++p) {
      ASSIGN_OR_RETURN(HloInstruction * x, dilated ? WindowSlice(input, p, type) : EdgeWindow(input, p, type));
      inputs.push_back(x);
    }
    return inputs;
  }

  // Kernel position p's coordinates.
  std::vector<int64_t> KernelPosition(int64_t p) const { return Unflatten(p, kernel_sizes_); }

  // Without lhs dilation: output o reads input o*stride + k*dilation -
  // pad_low; the outputs where that is inside the input are a strided slice,
  // the others padding zeros on either side.
  absl::StatusOr<HloInstruction*> EdgeWindow(HloInstruction* input, int64_t p, PrimitiveType type) {
    const std::vector<int64_t> k = KernelPosition(p);
    HloInstructionProto slice, pad;
    auto add_pad = [&pad](int64_t low, int64_t high) {
      auto* d = pad.mutable_padding_config()->add_dimensions();
      d->set_edge_padding_low(low);
      d->set_edge_padding_high(high);
    };
    std::vector<int64_t> sliced_dims = {batch_};
    AddSliceDimension(&slice, 0, batch_, 1);
    add_pad(0, 0);
    bool whole = true, padded = false;
    for (int64_t i = 0; i < spatial_; ++i) {
      const WindowDimension& w = window_.dimensions(i);
      const int64_t in = input->shape().dimensions(1 + i), out = out_sizes_[i], s = w.stride();
      const int64_t shift = k[i] * w.window_dilation() - w.padding_low();  // input index of output 0
      // First and last outputs whose input index is in [0, in).
      const int64_t first = shift >= 0 ? 0 : (-shift + s - 1) / s;
      const int64_t last = in - 1 - shift < 0 ? -1 : std::min(out - 1, (in - 1 - shift) / s);
      const int64_t count = std::max<int64_t>(last - first + 1, 0);
      if (count == 0) {
        AddSliceDimension(&slice, 0, 0, 1);
        add_pad(out, 0);
      } else {
        AddSliceDimension(&slice, first * s + shift, last * s + shift + 1, s);
        add_pad(first, out - 1 - last);
      }
      sliced_dims.push_back(count);
      whole &= count == in && first == 0 && count == out && (s == 1 || out == 1) && shift == 0;
      padded |= count != out;
    }
    AddSliceDimension(&slice, 0, in_features_, 1);
    add_pad(0, 0);
    sliced_dims.push_back(in_features_);
    if (whole) return input;
    ASSIGN_OR_RETURN(HloInstruction * x, Make(HloOpcode::kSlice, RowMajor(type, sliced_dims), {input}, slice));
    if (!padded) return x;
    std::vector<int64_t> dims = CanonicalOutputDims();
    dims.back() = in_features_;
    HloInstruction* zero = MakeConstant(computation_, names_, Literal::Zero(type));
    return Make(HloOpcode::kPad, RowMajor(type, dims), {x, zero}, pad);
  }

  // The input as [batch, spatial..., features] in `type`.
  absl::StatusOr<HloInstruction*> TransposedInput(PrimitiveType type) {
    std::vector<int64_t> order = {dnums_.input_batch_dimension()};
    for (int64_t i = 0; i < spatial_; ++i) order.push_back(dnums_.input_spatial_dimensions(i));
    order.push_back(dnums_.input_feature_dimension());
    return Reordered(conv_->mutable_operand(0), order, type);
  }

  // `x` with dimension i being x's dimension order[i], row-major, in `type`.
  absl::StatusOr<HloInstruction*> Reordered(HloInstruction* x, absl::Span<const int64_t> order, PrimitiveType type) {
    std::vector<int64_t> dims;
    for (int64_t d : order) dims.push_back(x->shape().dimensions(d));
    if (!IsIdentity(order) || !ShapeUtil::HasDefaultLayout(x->shape())) {
      HloInstructionProto transpose;
      for (int64_t d : order) transpose.add_dimensions(d);
      ASSIGN_OR_RETURN(x, Make(HloOpcode::kTranspose, RowMajor(x->shape().element_type(), dims), {x}, transpose));
    }
    if (x->shape().element_type() != type) {
      ASSIGN_OR_RETURN(x, Make(HloOpcode::kConvert, RowMajor(type, dims), {x}));
    }
    return x;
  }

  // `x` ([batch, spatial..., features]) dilated and padded (negative padding
  // crops) as the window says.
  absl::StatusOr<HloInstruction*> Padded(HloInstruction* x, PrimitiveType type) {
    std::vector<int64_t> dims(x->shape().dimensions().begin(), x->shape().dimensions().end());
    HloInstructionProto pad;
    bool padded = false;
    pad.mutable_padding_config()->add_dimensions();  // batch
    for (int64_t i = 0; i < spatial_; ++i) {
      const WindowDimension& w = window_.dimensions(i);
      auto* d = pad.mutable_padding_config()->add_dimensions();
      d->set_edge_padding_low(w.padding_low());
      d->set_edge_padding_high(w.padding_high());
      d->set_interior_padding(w.base_dilation() - 1);
      padded |= w.padding_low() != 0 || w.padding_high() != 0 || w.base_dilation() != 1;
      const int64_t dilated = dims[1 + i] == 0 ? 0 : (dims[1 + i] - 1) * w.base_dilation() + 1;
      dims[1 + i] = dilated + w.padding_low() + w.padding_high();
    }
    pad.mutable_padding_config()->add_dimensions();  // features
    if (!padded) return x;
    HloInstruction* zero = MakeConstant(computation_, names_, Literal::Zero(type));
    return Make(HloOpcode::kPad, RowMajor(type, dims), {x, zero}, pad);
  }

  // The input under kernel position p (row-major over kernel positions):
  // [batch, out spatial..., features].
  absl::StatusOr<HloInstruction*> WindowSlice(HloInstruction* input, int64_t p, PrimitiveType type) {
    const std::vector<int64_t> k = KernelPosition(p);
    HloInstructionProto slice;
    AddSliceDimension(&slice, 0, batch_, 1);
    bool whole = true;
    for (int64_t i = 0; i < spatial_; ++i) {
      const WindowDimension& w = window_.dimensions(i);
      const int64_t start = k[i] * w.window_dilation();
      const int64_t limit = start + (out_sizes_[i] - 1) * w.stride() + 1;
      AddSliceDimension(&slice, start, limit, w.stride());
      whole &= start == 0 && limit == input->shape().dimensions(1 + i) && (w.stride() == 1 || out_sizes_[i] == 1);
    }
    AddSliceDimension(&slice, 0, in_features_, 1);
    if (whole) return input;
    std::vector<int64_t> dims = CanonicalOutputDims();
    dims.back() = in_features_;
    return Make(HloOpcode::kSlice, RowMajor(type, dims), {input}, slice);
  }

  // The kernel, reversed where the window says so, as [positions x input
  // features, out features] in `type`.
  absl::StatusOr<HloInstruction*> KernelAsMatrix(PrimitiveType type) {
    HloInstruction* w = conv_->mutable_operand(1);
    HloInstructionProto reverse;
    for (int64_t i = 0; i < spatial_; ++i) {
      if (window_.dimensions(i).window_reversal()) reverse.add_dimensions(dnums_.kernel_spatial_dimensions(i));
    }
    if (reverse.dimensions_size() > 0) {
      ASSIGN_OR_RETURN(w, Make(HloOpcode::kReverse, w->shape(), {w}, reverse));
    }
    std::vector<int64_t> order;
    for (int64_t i = 0; i < spatial_; ++i) order.push_back(dnums_.kernel_spatial_dimensions(i));
    order.push_back(dnums_.kernel_input_feature_dimension());
    order.push_back(dnums_.kernel_output_feature_dimension());
    ASSIGN_OR_RETURN(w, Reordered(w, order, type));
    const int64_t rows = positions_ * w->shape().dimensions(spatial_);
    return Make(HloOpcode::kReshape, RowMajor(type, {rows, w->shape().dimensions(spatial_ + 1)}), {w});
  }

  // `canonical` ([batch, out spatial..., out features], row-major) in the
  // convolution's dimension order and layout.
  absl::StatusOr<HloInstruction*> ToOutputOrder(HloInstruction* canonical) {
    std::vector<int64_t> permutation(spatial_ + 2);
    permutation[dnums_.output_batch_dimension()] = 0;
    for (int64_t i = 0; i < spatial_; ++i) permutation[dnums_.output_spatial_dimensions(i)] = 1 + i;
    permutation[dnums_.output_feature_dimension()] = spatial_ + 1;
    if (IsIdentity(permutation)) {
      if (ShapeUtil::HasDefaultLayout(conv_->shape())) return canonical;
      return Make(HloOpcode::kCopy, conv_->shape(), {canonical});
    }
    HloInstructionProto transpose;
    for (int64_t d : permutation) transpose.add_dimensions(d);
    return Make(HloOpcode::kTranspose, conv_->shape(), {canonical}, transpose);
  }

  HloComputation* computation_;
  NameUniquer* names_;
  HloInstruction* conv_;
  const ConvolutionDimensionNumbers& dnums_;
  const Window& window_;
  const int64_t spatial_;
  std::vector<int64_t> out_sizes_, kernel_sizes_;
  int64_t positions_ = 1;
  int64_t batch_ = 0, in_features_ = 0, out_features_ = 0;
};

absl::StatusOr<bool> Lower(HloComputation* computation, NameUniquer* names, HloInstruction* conv) {
  const PrimitiveType type = conv->shape().element_type();
  if (type != F32 && type != F64 && type != F16 && type != BF16) return false;
  // Mixed precision into f32/f64 (f32 from bf16): the operands are converted
  // to the result type (exactly) on the way in. Into f16/bf16 the evaluator
  // converts them to f32, which the im2col dot in the result type would not.
  const bool mixed = conv->operand(0)->shape().element_type() != type;
  if (mixed && (type == F16 || type == BF16)) return false;
  if (ShapeUtil::ElementsIn(conv->shape()) == 0 || ShapeUtil::ElementsIn(conv->operand(0)->shape()) == 0) {
    return false;
  }
  const HloInstructionProto& attrs = conv->attributes();
  const auto& dnums = attrs.convolution_dimension_numbers();
  const int64_t feature_groups = attrs.feature_group_count() == 0 ? 1 : attrs.feature_group_count();
  const int64_t batch_groups = attrs.batch_group_count() == 0 ? 1 : attrs.batch_group_count();
  // im2col makes one instruction or more per kernel position, the lowering
  // by output positions a few per output position: kernels and outputs
  // beyond kMaxKernelPositions positions (and empty kernels) stay an
  // elemental loop.
  int64_t positions = 1, out_positions = 1;
  for (int64_t d : dnums.kernel_spatial_dimensions()) positions *= conv->operand(1)->shape().dimensions(d);
  for (int64_t d : dnums.output_spatial_dimensions()) out_positions *= conv->shape().dimensions(d);
  if (positions == 0 || ShapeUtil::ElementsIn(conv->operand(1)->shape()) == 0) return false;
  const bool by_kernel_position = positions <= ConvolutionLowering::kMaxKernelPositions && batch_groups == 1;
  if (!by_kernel_position && out_positions > ConvolutionLowering::kMaxKernelPositions) return false;
  const int64_t in_features = conv->operand(0)->shape().dimensions(dnums.input_feature_dimension());
  const int64_t kernel_in = conv->operand(1)->shape().dimensions(dnums.kernel_input_feature_dimension());
  Lowering lowering(computation, names, conv);
  HloInstruction* replacement = nullptr;
  if (feature_groups > 1 && feature_groups == in_features && kernel_in == 1 && by_kernel_position) {
    // The sum is one fused expression, emitted recursively: bounded depth.
    if (positions > ConvolutionLowering::kMaxDepthwisePositions) return false;
    const bool small_float = type == F16 || type == BF16;
    ASSIGN_OR_RETURN(replacement, lowering.Depthwise(small_float ? F32 : type));
  } else if (feature_groups == 1) {
    const int64_t out_features = conv->shape().dimensions(dnums.output_feature_dimension());
    // im2col's patches, or the windows the lowering by output positions
    // copies (as many bytes): the input under the kernel at every output
    // position.
    const double patch_bytes = static_cast<double>(out_positions) *
                               conv->operand(0)->shape().dimensions(dnums.input_batch_dimension()) * positions *
                               in_features * primitive_util::ByteWidth(type);
    if (out_features == 0 || patch_bytes > ConvolutionLowering::kMaxPatchBytes) return false;
    if (by_kernel_position) {
      ASSIGN_OR_RETURN(replacement, lowering.Im2col());
    } else {
      ASSIGN_OR_RETURN(replacement, lowering.PerOutputPosition(batch_groups));
    }
  } else {
    return false;
  }
  return ReplaceInstruction(conv, replacement);
}

}  // namespace

absl::StatusOr<bool> ConvolutionLowering::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kConvolution, Lower);
}

}  // namespace cpu
}  // namespace xla
