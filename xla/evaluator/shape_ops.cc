// Data-movement ops: broadcast, reshape, transpose, reverse, slice,
// dynamic-slice, dynamic-update-slice, concatenate, pad, iota. They move
// elements without looking at their values, so they work on raw element
// bytes through StridedCopy (no per-type code except iota).
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/evaluator/elementwise_kernels.h"
#include "xla/evaluator/evaluator_internal.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

namespace {

absl::Status ExpectSameType(const HloInstruction& instruction, const Shape& operand, const Shape& result,
                            absl::string_view what) {
  if (operand.element_type() != result.element_type()) {
    return InvalidArgument("HloEvaluator: %s: %s type %s differs from the result type %s",
                           InstrLabel(instruction), what, primitive_util::LowercaseName(operand.element_type()),
                           primitive_util::LowercaseName(result.element_type()));
  }
  return absl::OkStatus();
}

// Common checks of single-operand data-movement ops.
absl::Status CheckUnaryMove(const HloInstruction& instruction, const Literal& operand) {
  RETURN_IF_ERROR(ExpectArray(instruction, instruction.shape(), "result"));
  RETURN_IF_ERROR(ExpectArray(instruction, operand.shape(), "operand"));
  return ExpectSameType(instruction, operand.shape(), instruction.shape(), "operand");
}

std::string DimsString(absl::Span<const int64_t> dims) { return absl::StrCat("{", absl::StrJoin(dims, ","), "}"); }

int ElementWidth(const Shape& shape) { return primitive_util::ByteWidth(shape.element_type()); }

// Start indices of dynamic-slice / dynamic-update-slice: `rank` scalar
// operands starting at operands[first], or (older form) one rank-1 array.
// Each start is clamped into [0, dim - size].
absl::StatusOr<std::vector<int64_t>> ReadClampedStarts(const HloInstruction& instruction,
                                                      absl::Span<const Literal* const> operands,
                                                      int64_t first, const Shape& operand_shape,
                                                      absl::Span<const int64_t> sizes) {
  const int64_t rank = operand_shape.rank();
  std::vector<int64_t> starts(rank, 0);
  const int64_t n = static_cast<int64_t>(operands.size()) - first;
  if (n == 1 && operands[first]->shape().IsArray() && operands[first]->shape().rank() == 1 && rank != 0) {
    const Literal& v = *operands[first];
    if (v.shape().dimensions(0) != rank || !primitive_util::IsIntegralType(v.element_type())) {
      return InvalidArgument("HloEvaluator: %s: start index vector %s does not match operand rank %d",
                             InstrLabel(instruction), v.shape().ToString(), rank);
    }
    for (int64_t d = 0; d < rank; ++d) {
      Literal s(ShapeUtil::MakeScalarShape(v.element_type()));
      s.CopyElementFrom(v, d, 0);
      ASSIGN_OR_RETURN(starts[d], ReadIndexScalar(instruction, s, "start index"));
    }
  } else {
    if (n != rank) {
      return InvalidArgument("HloEvaluator: %s: expected %d start indices, got %d", InstrLabel(instruction), rank,
                             n);
    }
    for (int64_t d = 0; d < rank; ++d) {
      ASSIGN_OR_RETURN(starts[d], ReadIndexScalar(instruction, *operands[first + d], "start index"));
    }
  }
  for (int64_t d = 0; d < rank; ++d) {
    int64_t hi = operand_shape.dimensions(d) - sizes[d];
    starts[d] = std::max<int64_t>(0, std::min<int64_t>(starts[d], hi));
  }
  return starts;
}

}  // namespace

absl::StatusOr<Literal> EvaluateBroadcast(const HloInstruction& instruction, const Literal& operand) {
  RETURN_IF_ERROR(CheckUnaryMove(instruction, operand));
  const Shape& shape = instruction.shape();
  const Shape& in = operand.shape();
  absl::Span<const int64_t> dims = instruction.dimensions();
  if (static_cast<int64_t>(dims.size()) != in.rank()) {
    return InvalidArgument("HloEvaluator: %s: dimensions %s must have one entry per operand dimension (%s)",
                           InstrLabel(instruction), DimsString(dims), in.ToString());
  }
  std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  std::vector<int64_t> src_strides(shape.rank(), 0);
  std::vector<bool> used(shape.rank(), false);
  for (int64_t i = 0; i < in.rank(); ++i) {
    int64_t d = dims[i];
    if (d < 0 || d >= shape.rank() || used[d]) {
      return InvalidArgument("HloEvaluator: %s: invalid or repeated broadcast dimension %d for result %s",
                             InstrLabel(instruction), d, shape.ToString());
    }
    used[d] = true;
    if (in.dimensions(i) == shape.dimensions(d)) {
      src_strides[d] = in_strides[i];
    } else if (in.dimensions(i) != 1) {
      return InvalidArgument("HloEvaluator: %s: operand dimension %d (size %d) does not match result dimension "
                             "%d (size %d)",
                             InstrLabel(instruction), i, in.dimensions(i), d, shape.dimensions(d));
    }
  }
  Literal out(RowMajorShape(shape));
  StridedCopy(ElementWidth(shape), operand.untyped_data(), 0, src_strides, out.untyped_data(), 0,
              RowMajorStrides(shape.dimensions()), shape.dimensions());
  return out;
}

absl::StatusOr<Literal> EvaluateReshape(const HloInstruction& instruction, const Literal& operand) {
  RETURN_IF_ERROR(CheckUnaryMove(instruction, operand));
  const Shape& shape = instruction.shape();
  if (ShapeUtil::ElementsIn(shape) != operand.element_count()) {
    return InvalidArgument("HloEvaluator: %s: cannot reshape %s to %s (element counts differ)",
                           InstrLabel(instruction), operand.shape().ToString(), shape.ToString());
  }
  return operand.Reshape(shape.dimensions());
}

absl::StatusOr<Literal> EvaluateTranspose(const HloInstruction& instruction, const Literal& operand) {
  RETURN_IF_ERROR(CheckUnaryMove(instruction, operand));
  const Shape& shape = instruction.shape();
  const Shape& in = operand.shape();
  absl::Span<const int64_t> perm = instruction.dimensions();
  if (static_cast<int64_t>(perm.size()) != in.rank() || shape.rank() != in.rank()) {
    return InvalidArgument("HloEvaluator: %s: permutation %s does not match operand %s", InstrLabel(instruction),
                           DimsString(perm), in.ToString());
  }
  std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  std::vector<int64_t> src_strides(in.rank());
  std::vector<bool> used(in.rank(), false);
  for (int64_t i = 0; i < in.rank(); ++i) {
    int64_t p = perm[i];
    if (p < 0 || p >= in.rank() || used[p]) {
      return InvalidArgument("HloEvaluator: %s: %s is not a permutation", InstrLabel(instruction), DimsString(perm));
    }
    used[p] = true;
  }
  for (int64_t i = 0; i < in.rank(); ++i) {
    int64_t p = perm[i];
    if (shape.dimensions(i) != in.dimensions(p)) {
      return InvalidArgument("HloEvaluator: %s: result %s is not operand %s permuted by %s",
                             InstrLabel(instruction), shape.ToString(), in.ToString(), DimsString(perm));
    }
    src_strides[i] = in_strides[p];
  }
  Literal out(RowMajorShape(shape));
  StridedCopy(ElementWidth(shape), operand.untyped_data(), 0, src_strides, out.untyped_data(), 0,
              RowMajorStrides(shape.dimensions()), shape.dimensions());
  return out;
}

absl::StatusOr<Literal> EvaluateReverse(const HloInstruction& instruction, const Literal& operand) {
  RETURN_IF_ERROR(CheckUnaryMove(instruction, operand));
  const Shape& shape = instruction.shape();
  const Shape& in = operand.shape();
  RETURN_IF_ERROR(ExpectSameDims(instruction, in, shape, "operand"));
  std::vector<int64_t> src_strides = RowMajorStrides(in.dimensions());
  std::vector<bool> used(in.rank(), false);
  int64_t offset = 0;
  for (int64_t d : instruction.dimensions()) {
    if (d < 0 || d >= in.rank() || used[d]) {
      return InvalidArgument("HloEvaluator: %s: invalid or repeated dimension %d for operand %s",
                             InstrLabel(instruction), d, in.ToString());
    }
    used[d] = true;
    if (in.dimensions(d) > 0) offset += (in.dimensions(d) - 1) * src_strides[d];
    src_strides[d] = -src_strides[d];
  }
  Literal out(RowMajorShape(shape));
  StridedCopy(ElementWidth(shape), operand.untyped_data(), offset, src_strides, out.untyped_data(), 0,
              RowMajorStrides(shape.dimensions()), shape.dimensions());
  return out;
}

absl::StatusOr<Literal> EvaluateSlice(const HloInstruction& instruction, const Literal& operand) {
  RETURN_IF_ERROR(CheckUnaryMove(instruction, operand));
  const Shape& shape = instruction.shape();
  const Shape& in = operand.shape();
  const auto& sd = instruction.attributes().slice_dimensions();
  if (sd.size() != in.rank() || shape.rank() != in.rank()) {
    return InvalidArgument("HloEvaluator: %s: %d slice dimensions for operand %s", InstrLabel(instruction),
                           sd.size(), in.ToString());
  }
  std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  std::vector<int64_t> src_strides(in.rank());
  int64_t offset = 0;
  for (int64_t d = 0; d < in.rank(); ++d) {
    int64_t start = sd[d].start(), limit = sd[d].limit(), stride = sd[d].stride();
    if (start < 0 || limit < start || limit > in.dimensions(d) || stride < 1) {
      return InvalidArgument("HloEvaluator: %s: invalid slice [%d:%d:%d] of dimension %d (size %d)",
                             InstrLabel(instruction), start, limit, stride, d, in.dimensions(d));
    }
    int64_t size = (limit - start + stride - 1) / stride;
    if (size != shape.dimensions(d)) {
      return InvalidArgument("HloEvaluator: %s: slice [%d:%d:%d] has %d elements but result dimension %d is %d",
                             InstrLabel(instruction), start, limit, stride, size, d, shape.dimensions(d));
    }
    offset += start * in_strides[d];
    src_strides[d] = in_strides[d] * stride;
  }
  Literal out(RowMajorShape(shape));
  StridedCopy(ElementWidth(shape), operand.untyped_data(), offset, src_strides, out.untyped_data(), 0,
              RowMajorStrides(shape.dimensions()), shape.dimensions());
  return out;
}

absl::StatusOr<Literal> EvaluateDynamicSlice(const HloInstruction& instruction,
                                             absl::Span<const Literal* const> operands) {
  if (operands.empty()) return InvalidArgument("HloEvaluator: %s: no operand", InstrLabel(instruction));
  const Literal& operand = *operands[0];
  RETURN_IF_ERROR(CheckUnaryMove(instruction, operand));
  const Shape& shape = instruction.shape();
  const Shape& in = operand.shape();
  if (shape.rank() != in.rank()) {
    return InvalidArgument("HloEvaluator: %s: result %s and operand %s differ in rank", InstrLabel(instruction),
                           shape.ToString(), in.ToString());
  }
  const auto& sizes_attr = instruction.attributes().dynamic_slice_sizes();
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (shape.dimensions(d) > in.dimensions(d) ||
        (!sizes_attr.empty() && (sizes_attr.size() != in.rank() || sizes_attr[d] != shape.dimensions(d)))) {
      return InvalidArgument("HloEvaluator: %s: slice sizes of result %s do not fit operand %s",
                             InstrLabel(instruction), shape.ToString(), in.ToString());
    }
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                   ReadClampedStarts(instruction, operands, 1, in, shape.dimensions()));
  std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  int64_t offset = 0;
  for (int64_t d = 0; d < in.rank(); ++d) offset += starts[d] * in_strides[d];
  Literal out(RowMajorShape(shape));
  StridedCopy(ElementWidth(shape), operand.untyped_data(), offset, in_strides, out.untyped_data(), 0,
              RowMajorStrides(shape.dimensions()), shape.dimensions());
  return out;
}

absl::StatusOr<Literal> EvaluateDynamicUpdateSlice(const HloInstruction& instruction,
                                                   absl::Span<const Literal* const> operands) {
  if (operands.size() < 2) return InvalidArgument("HloEvaluator: %s: needs operand and update", InstrLabel(instruction));
  const Literal& operand = *operands[0];
  const Literal& update = *operands[1];
  RETURN_IF_ERROR(CheckUnaryMove(instruction, operand));
  RETURN_IF_ERROR(ExpectSameDims(instruction, operand.shape(), instruction.shape(), "operand"));
  RETURN_IF_ERROR(ExpectArray(instruction, update.shape(), "update"));
  RETURN_IF_ERROR(ExpectSameType(instruction, update.shape(), instruction.shape(), "update"));
  const Shape& in = operand.shape();
  const Shape& up = update.shape();
  if (up.rank() != in.rank()) {
    return InvalidArgument("HloEvaluator: %s: update %s and operand %s differ in rank", InstrLabel(instruction),
                           up.ToString(), in.ToString());
  }
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (up.dimensions(d) > in.dimensions(d)) {
      return InvalidArgument("HloEvaluator: %s: update %s does not fit in operand %s", InstrLabel(instruction),
                             up.ToString(), in.ToString());
    }
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> starts, ReadClampedStarts(instruction, operands, 2, in, up.dimensions()));
  Literal out = operand;
  std::vector<int64_t> out_strides = RowMajorStrides(in.dimensions());
  int64_t offset = 0;
  for (int64_t d = 0; d < in.rank(); ++d) offset += starts[d] * out_strides[d];
  StridedCopy(ElementWidth(in), update.untyped_data(), 0, RowMajorStrides(up.dimensions()), out.untyped_data(),
              offset, out_strides, up.dimensions());
  return out;
}

absl::StatusOr<Literal> EvaluateConcatenate(const HloInstruction& instruction,
                                            absl::Span<const Literal* const> operands) {
  const Shape& shape = instruction.shape();
  RETURN_IF_ERROR(ExpectArray(instruction, shape, "result"));
  if (instruction.dimensions().size() != 1 || operands.empty()) {
    return InvalidArgument("HloEvaluator: %s: needs one dimension and at least one operand",
                           InstrLabel(instruction));
  }
  const int64_t dim = instruction.dimensions(0);
  if (dim < 0 || dim >= shape.rank()) {
    return InvalidArgument("HloEvaluator: %s: dimension %d out of range for %s", InstrLabel(instruction), dim,
                           shape.ToString());
  }
  int64_t total = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& s = operands[i]->shape();
    RETURN_IF_ERROR(ExpectArray(instruction, s, "operand"));
    RETURN_IF_ERROR(ExpectSameType(instruction, s, shape, "operand"));
    bool ok = s.rank() == shape.rank();
    for (int64_t d = 0; ok && d < s.rank(); ++d) {
      if (d != dim && s.dimensions(d) != shape.dimensions(d)) ok = false;
    }
    if (!ok) {
      return InvalidArgument("HloEvaluator: %s: operand %d %s does not fit result %s along dimension %d",
                             InstrLabel(instruction), i, s.ToString(), shape.ToString(), dim);
    }
    total += s.dimensions(dim);
  }
  if (total != shape.dimensions(dim)) {
    return InvalidArgument("HloEvaluator: %s: operands sum to %d along dimension %d but the result has %d",
                           InstrLabel(instruction), total, dim, shape.dimensions(dim));
  }
  Literal out(RowMajorShape(shape));
  std::vector<int64_t> out_strides = RowMajorStrides(shape.dimensions());
  int64_t pos = 0;
  for (const Literal* op : operands) {
    const Shape& s = op->shape();
    StridedCopy(ElementWidth(shape), op->untyped_data(), 0, RowMajorStrides(s.dimensions()), out.untyped_data(),
                pos * out_strides[dim], out_strides, s.dimensions());
    pos += s.dimensions(dim);
  }
  return out;
}

absl::StatusOr<Literal> EvaluatePad(const HloInstruction& instruction, const Literal& operand,
                                    const Literal& padding_value) {
  RETURN_IF_ERROR(CheckUnaryMove(instruction, operand));
  const Shape& shape = instruction.shape();
  const Shape& in = operand.shape();
  RETURN_IF_ERROR(ExpectArray(instruction, padding_value.shape(), "padding value"));
  RETURN_IF_ERROR(ExpectSameType(instruction, padding_value.shape(), shape, "padding value"));
  if (padding_value.shape().rank() != 0) {
    return InvalidArgument("HloEvaluator: %s: padding value must be a scalar, got %s", InstrLabel(instruction),
                           padding_value.shape().ToString());
  }
  const auto& config = instruction.attributes().padding_config().dimensions();
  if (config.size() != in.rank() || shape.rank() != in.rank()) {
    return InvalidArgument("HloEvaluator: %s: padding config has %d dimensions for operand %s",
                           InstrLabel(instruction), config.size(), in.ToString());
  }
  // Operand index i lands at low + i * (interior + 1); keep those inside.
  std::vector<int64_t> first(in.rank()), count(in.rank());
  std::vector<int64_t> out_strides = RowMajorStrides(shape.dimensions());
  std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  std::vector<int64_t> dst_strides(in.rank());
  int64_t src_offset = 0, dst_offset = 0;
  for (int64_t d = 0; d < in.rank(); ++d) {
    const int64_t lo = config[d].edge_padding_low(), hi = config[d].edge_padding_high();
    const int64_t interior = config[d].interior_padding();
    const int64_t n = in.dimensions(d);
    const int64_t size = lo + hi + n + (n > 0 ? (n - 1) * interior : 0);
    if (interior < 0 || size < 0 || size != shape.dimensions(d)) {
      return InvalidArgument("HloEvaluator: %s: padding (low %d, high %d, interior %d) of dimension %d (size %d) "
                             "does not give result dimension %d",
                             InstrLabel(instruction), lo, hi, interior, d, n, shape.dimensions(d));
    }
    const int64_t step = interior + 1;
    // first valid i: lo + i*step >= 0  -> i >= ceil(-lo / step)
    int64_t f = lo >= 0 ? 0 : (-lo + step - 1) / step;
    // last valid i: lo + i*step < size -> i <= (size - 1 - lo) / step
    int64_t last = size - 1 - lo < 0 ? -1 : std::min<int64_t>(n - 1, (size - 1 - lo) / step);
    first[d] = f;
    count[d] = std::max<int64_t>(0, last - f + 1);
    src_offset += f * in_strides[d];
    dst_offset += (lo + f * step) * out_strides[d];
    dst_strides[d] = step * out_strides[d];
  }
  ASSIGN_OR_RETURN(Literal out, Literal::BroadcastScalar(padding_value, RowMajorShape(shape)));
  StridedCopy(ElementWidth(shape), operand.untyped_data(), src_offset, in_strides, out.untyped_data(), dst_offset,
              dst_strides, count);
  return out;
}

absl::StatusOr<Literal> EvaluateIota(const HloInstruction& instruction) {
  const Shape& shape = instruction.shape();
  RETURN_IF_ERROR(ExpectArray(instruction, shape, "result"));
  if (instruction.dimensions().size() != 1 || instruction.dimensions(0) < 0 ||
      instruction.dimensions(0) >= shape.rank()) {
    return InvalidArgument("HloEvaluator: %s: iota dimension %s is not a dimension of %s", InstrLabel(instruction),
                           DimsString(instruction.dimensions()), shape.ToString());
  }
  if (shape.element_type() == PRED) {
    return InvalidArgument("HloEvaluator: %s: iota is not defined for pred", InstrLabel(instruction));
  }
  const int64_t dim = instruction.dimensions(0);
  Literal out(RowMajorShape(shape));
  const int64_t n = out.element_count();
  if (n == 0) return out;
  std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
  const int64_t stride = strides[dim], size = shape.dimensions(dim);
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = decltype(tag);
    auto o = out.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = (i / stride) % size;
      if constexpr (primitive_util::is_complex_v<T>) {
        o[i] = T(static_cast<typename T::value_type>(v), 0);
      } else if constexpr (primitive_util::is_float_v<T>) {
        o[i] = static_cast<T>(static_cast<float>(v));
        if constexpr (std::is_same_v<T, double>) o[i] = static_cast<double>(v);
      } else {
        o[i] = static_cast<T>(v);
      }
    }
  });
  return out;
}

}  // namespace evaluator_internal
}  // namespace xla
