// Convolution (ConvGeneralDilated), as the StableHLO specification defines
// it: lhs is dilated by lhs_dilate and padded with zeros (negative padding
// crops; the zeros take part in the products, so an infinite weight over
// padding gives NaN, as the document's "inserting those zero values" says), the
// kernel is dilated by rhs_dilate (and reversed where window_reversal is
// set), and each result element is the sum over kernel positions and the
// kernel's input features of lhs * rhs. Feature groups split lhs features
// and kernel output features into contiguous groups; batch groups split the
// lhs batch and the kernel output features likewise.
//
// Operands are converted to the accumulation type first (f32 for f16/bf16
// results, the result type otherwise; the result type may differ from the
// operands', as in s32 convolution(s8, s8)), as Dot does; the sum runs over kernel
// positions in row-major order, input features innermost, and is rounded to
// the result type at the end. Integer sums wrap.
#include <algorithm>
#include <vector>

#include "xla/evaluator/elementwise_kernels.h"
#include "xla/evaluator/evaluator_internal.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

namespace {

// Everything the inner loop needs, in element strides of row-major operands.
struct ConvGeometry {
  int64_t spatial = 0;
  std::vector<int64_t> out_dims, out_spatial_dim;  // result dims; result dim of spatial i
  std::vector<int64_t> in_size, in_stride;          // per spatial i: lhs size and stride
  std::vector<int64_t> k_size, k_stride;            // per spatial i: kernel size and stride
  std::vector<int64_t> stride, pad_low, base_dilation, window_dilation;
  std::vector<bool> reversal;
  int64_t out_batch_dim = 0, out_feature_dim = 0;
  int64_t in_batch_stride = 0, in_feature_stride = 0, k_in_stride = 0, k_out_stride = 0;
  int64_t batch_per_group = 0, kernel_in = 0, out_per_feature_group = 0, out_per_batch_group = 0;
};

template <typename A>
void ConvLoop(const ConvGeometry& g, const A* lhs, const A* rhs, A* out) {
  const int64_t count = ShapeUtil::ElementsIn(ShapeUtil::MakeShape(F32, g.out_dims));
  int64_t kernel_positions = 1;
  for (int64_t s : g.k_size) kernel_positions *= s;
  std::vector<int64_t> index(g.out_dims.size(), 0), k(g.spatial, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    if (StopRequested()) return;  // the evaluation fails; the elements left are never read
    const int64_t oz = index[g.out_feature_dim];
    const int64_t feature_group = oz / g.out_per_feature_group;
    const int64_t batch_group = oz / g.out_per_batch_group;
    const int64_t in_batch = batch_group * g.batch_per_group + index[g.out_batch_dim];
    // Offsets, not pointers: a position in the padding is outside the input
    // (and an empty input has no data pointer), so only `inside` reads.
    const int64_t lhs_base = in_batch * g.in_batch_stride + feature_group * g.kernel_in * g.in_feature_stride;
    const int64_t rhs_base = oz * g.k_out_stride;
    A acc = A(0);
    std::fill(k.begin(), k.end(), 0);
    for (int64_t p = 0; p < kernel_positions; ++p) {
      int64_t lhs_offset = 0, rhs_offset = 0;
      bool inside = true;
      for (int64_t i = 0; i < g.spatial; ++i) {
        const int64_t pos = index[g.out_spatial_dim[i]] * g.stride[i] - g.pad_low[i] + k[i] * g.window_dilation[i];
        if (pos < 0 || pos % g.base_dilation[i] != 0 || pos / g.base_dilation[i] >= g.in_size[i]) inside = false;
        lhs_offset += pos / g.base_dilation[i] * g.in_stride[i];
        rhs_offset += (g.reversal[i] ? g.k_size[i] - 1 - k[i] : k[i]) * g.k_stride[i];
      }
      const int64_t l = lhs_base + lhs_offset;
      const int64_t r = rhs_base + rhs_offset;
      for (int64_t iz = 0; iz < g.kernel_in; ++iz) {
        // Padding and dilation holes are zeros of the input (0 x inf is NaN).
        const A lv = inside ? lhs[l + iz * g.in_feature_stride] : A(0);
        const A rv = rhs[r + iz * g.k_in_stride];
        if constexpr (is_int_v<A>) {
          acc = WrapAdd(acc, WrapMul(lv, rv));
        } else {
          acc += lv * rv;
        }
      }
      for (int64_t i = g.spatial - 1; i >= 0; --i) {
        if (++k[i] < g.k_size[i]) break;
        k[i] = 0;
      }
    }
    out[linear] = acc;
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < g.out_dims[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

absl::StatusOr<Literal> EvaluateConvolution(const HloInstruction& instruction, const Literal& lhs,
                                            const Literal& rhs) {
  const Shape& shape = instruction.shape();
  const HloInstructionProto& attrs = instruction.attributes();
  const ConvolutionDimensionNumbers& dnums = attrs.convolution_dimension_numbers();
  const int64_t fgc = attrs.feature_group_count() == 0 ? 1 : attrs.feature_group_count();
  const int64_t bgc = attrs.batch_group_count() == 0 ? 1 : attrs.batch_group_count();
  ASSIGN_OR_RETURN(Shape inferred,
                   ShapeInference::InferConvolveShape(lhs.shape(), rhs.shape(), attrs.window(), dnums, fgc, bgc));
  // Mixed precision: the declared result type may be wider than the operands'.
  inferred.set_element_type(ShapeInference::AccumulatingResultType(inferred.element_type(), shape));
  if (!ShapeUtil::SameDimensions(inferred, shape) || inferred.element_type() != shape.element_type()) {
    return InvalidArgument("HloEvaluator: %s: result %s does not match the convolution's shape %s",
                           InstrLabel(instruction), shape.ToString(), inferred.ToString());
  }
  const PrimitiveType result_type = shape.element_type();
  const PrimitiveType acc_type = AccumulationType(result_type);
  ASSIGN_OR_RETURN(Literal l, lhs.Convert(acc_type));
  ASSIGN_OR_RETURN(Literal r, rhs.Convert(acc_type));

  ConvGeometry g;
  g.spatial = dnums.input_spatial_dimensions_size();
  g.out_dims.assign(shape.dimensions().begin(), shape.dimensions().end());
  const std::vector<int64_t> in_strides = RowMajorStrides(lhs.shape().dimensions());
  const std::vector<int64_t> k_strides = RowMajorStrides(rhs.shape().dimensions());
  for (int64_t i = 0; i < g.spatial; ++i) {
    const WindowDimension& w = attrs.window().dimensions(i);
    g.out_spatial_dim.push_back(dnums.output_spatial_dimensions(i));
    g.in_size.push_back(lhs.shape().dimensions(dnums.input_spatial_dimensions(i)));
    g.in_stride.push_back(in_strides[dnums.input_spatial_dimensions(i)]);
    g.k_size.push_back(rhs.shape().dimensions(dnums.kernel_spatial_dimensions(i)));
    g.k_stride.push_back(k_strides[dnums.kernel_spatial_dimensions(i)]);
    g.stride.push_back(w.stride());
    g.pad_low.push_back(w.padding_low());
    g.base_dilation.push_back(w.base_dilation());
    g.window_dilation.push_back(w.window_dilation());
    g.reversal.push_back(w.window_reversal());
  }
  g.out_batch_dim = dnums.output_batch_dimension();
  g.out_feature_dim = dnums.output_feature_dimension();
  g.in_batch_stride = in_strides[dnums.input_batch_dimension()];
  g.in_feature_stride = in_strides[dnums.input_feature_dimension()];
  g.k_in_stride = k_strides[dnums.kernel_input_feature_dimension()];
  g.k_out_stride = k_strides[dnums.kernel_output_feature_dimension()];
  const int64_t kernel_out = rhs.shape().dimensions(dnums.kernel_output_feature_dimension());
  g.kernel_in = rhs.shape().dimensions(dnums.kernel_input_feature_dimension());
  g.batch_per_group = lhs.shape().dimensions(dnums.input_batch_dimension()) / bgc;
  g.out_per_feature_group = kernel_out / fgc;
  g.out_per_batch_group = kernel_out / bgc;

  Literal acc(ShapeUtil::MakeShape(acc_type, shape.dimensions()));
  if (ShapeUtil::ElementsIn(acc.shape()) > 0) {
    primitive_util::ArrayTypeSwitch(acc_type, [&](auto tag) {
      using A = decltype(tag);
      if constexpr (!is_small_float_v<A> && !is_int_n_v<A> && !std::is_same_v<A, bool>) {
        ConvLoop<A>(g, l.data<A>().data(), r.data<A>().data(), acc.data<A>().data());
      }
    });
  }
  if (acc_type != result_type) return acc.Convert(result_type);
  return acc;
}

}  // namespace evaluator_internal
}  // namespace xla
