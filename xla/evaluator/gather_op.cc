// Gather: every result element is one element of the operand, at the start
// position read from start_indices (clamped so the whole slice fits) plus the
// element's offset within its slice. Operand batching dimensions take the
// matching start_indices batch coordinate.
//
// Scatter, gather's inverse: the result starts as the operands; then, for
// every update element in row-major order, the operand index it maps to
// (start from scatter_indices, not clamped, plus the window offset) is
// combined with it, current value first: out = f(out, update). An update
// window that lies even partly outside the operand is skipped whole, as XLA
// does (its evaluator and backends) and the corpus expects; the operation-
// semantics text would apply the in-bounds elements (docs/ops.md).
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "xla/evaluator/evaluator_internal.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

namespace {

// An integral start index as int64; u64 values above INT64_MAX saturate
// (they are clamped into the operand anyway).
int64_t IndexAt(const Literal& indices, int64_t linear) {
  if (indices.element_type() == U64) {
    const uint64_t v = indices.data<uint64_t>()[linear];
    return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                                          : static_cast<int64_t>(v);
  }
  return indices.GetAsInt64(linear);
}

}  // namespace

absl::StatusOr<Literal> EvaluateGather(const HloInstruction& instruction, const Literal& operand,
                                       const Literal& start_indices) {
  const Shape& shape = instruction.shape();
  const GatherDimensionNumbers& dnums = instruction.attributes().gather_dimension_numbers();
  const auto& slice_sizes = instruction.attributes().gather_slice_sizes();
  ASSIGN_OR_RETURN(Shape inferred,
                   ShapeInference::InferGatherShape(operand.shape(), start_indices.shape(), dnums, slice_sizes));
  if (!ShapeUtil::SameDimensions(inferred, shape) || inferred.element_type() != shape.element_type()) {
    return InvalidArgument("HloEvaluator: %s: result %s does not match the gather's shape %s",
                           InstrLabel(instruction), shape.ToString(), inferred.ToString());
  }
  const Shape& in = operand.shape();
  const Shape& idx = start_indices.shape();
  const int64_t ivd = dnums.index_vector_dim();
  const std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  const std::vector<int64_t> idx_strides = RowMajorStrides(idx.dimensions());
  const int64_t index_vector_size = ivd == idx.rank() ? 1 : idx.dimensions(ivd);

  // Result dimension -> role: an offset dimension walks operand dimension
  // offset_operand_dim[k]; a batch dimension is start_indices dimension
  // batch_index_dim[j] (all of start_indices' dimensions but ivd, in order).
  std::vector<bool> is_offset(shape.rank(), false);
  for (int64_t d : dnums.offset_dims()) is_offset[d] = true;
  std::vector<int64_t> offset_operand_dim;
  for (int64_t d = 0; d < in.rank(); ++d) {
    const auto& c = dnums.collapsed_slice_dims();
    const auto& b = dnums.operand_batching_dims();
    if (std::find(c.begin(), c.end(), d) == c.end() && std::find(b.begin(), b.end(), d) == b.end()) {
      offset_operand_dim.push_back(d);
    }
  }
  std::vector<int64_t> batch_index_dim;
  for (int64_t d = 0; d < idx.rank(); ++d) {
    if (d != ivd) batch_index_dim.push_back(d);
  }

  Literal out(RowMajorShape(shape));
  const int width = primitive_util::ByteWidth(shape.element_type());
  const int64_t count = ShapeUtil::ElementsIn(shape);
  const char* src = static_cast<const char*>(operand.untyped_data());
  char* dst = static_cast<char*>(out.untyped_data());
  std::vector<int64_t> index(shape.rank(), 0), idx_index(idx.rank(), 0), start(in.rank()), offsets(in.rank());
  for (int64_t linear = 0; linear < count; ++linear) {
    // Offsets within the slice, and batch coordinates into start_indices.
    size_t next_batch = 0, next_offset = 0;
    std::fill(start.begin(), start.end(), 0);
    std::fill(offsets.begin(), offsets.end(), 0);
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (is_offset[d]) {
        offsets[offset_operand_dim[next_offset++]] = index[d];
      } else {
        idx_index[batch_index_dim[next_batch++]] = index[d];
      }
    }
    for (int64_t k = 0; k < index_vector_size; ++k) {
      if (ivd < idx.rank()) idx_index[ivd] = k;
      int64_t idx_linear = 0;
      for (int64_t d = 0; d < idx.rank(); ++d) idx_linear += idx_index[d] * idx_strides[d];
      const int64_t d = dnums.start_index_map(k);
      const int64_t hi = in.dimensions(d) - slice_sizes[d];
      start[d] = std::clamp<int64_t>(IndexAt(start_indices, idx_linear), 0, hi);
    }
    for (int i = 0; i < dnums.operand_batching_dims_size(); ++i) {
      start[dnums.operand_batching_dims(i)] = idx_index[dnums.start_indices_batching_dims(i)];
    }
    int64_t in_linear = 0;
    for (int64_t d = 0; d < in.rank(); ++d) in_linear += (start[d] + offsets[d]) * in_strides[d];
    std::memcpy(dst + linear * width, src + in_linear * width, width);
    // Next result index, row-major.
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

absl::StatusOr<Literal> EvaluateScatter(const HloInstruction& instruction, absl::Span<const Literal* const> operands,
                                        const ComputationRunner& run) {
  const HloComputation* combiner = instruction.to_apply();
  if (combiner == nullptr || combiner->root_instruction() == nullptr) {
    return InvalidArgument("HloEvaluator: %s: needs an update computation", InstrLabel(instruction));
  }
  const ScatterDimensionNumbers& dnums = instruction.attributes().scatter_dimension_numbers();
  std::vector<const Shape*> arg_shapes;
  for (const Literal* op : operands) arg_shapes.push_back(&op->shape());
  ASSIGN_OR_RETURN(Shape inferred,
                   ShapeInference::InferScatterShape(arg_shapes, dnums, combiner->ComputeProgramShape()));
  if (!inferred.Compatible(instruction.shape())) {
    return InvalidArgument("HloEvaluator: %s: result %s does not match the scatter's shape %s",
                           InstrLabel(instruction), instruction.shape().ToString(), inferred.ToString());
  }
  const int64_t n = operands.size() / 2;
  const Literal& indices = *operands[n];
  const Shape& in = operands[0]->shape();
  const Shape& idx = indices.shape();
  const Shape& up = operands[n + 1]->shape();
  const int64_t ivd = dnums.index_vector_dim();
  const int64_t vector_size = ivd == idx.rank() ? 1 : idx.dimensions(ivd);
  const std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  const std::vector<int64_t> idx_strides = RowMajorStrides(idx.dimensions());
  const ShapeInference::ScatterUpdateDimensions map = ShapeInference::MapScatterUpdateDimensions(dnums, up.rank());
  const std::vector<int64_t>& window_operand_dim = map.operand_dim;
  const std::vector<int64_t>& scatter_index_dim = map.index_dim;

  std::vector<Literal> results;
  for (int64_t i = 0; i < n; ++i) results.push_back(*operands[i]);
  std::vector<Literal> args;
  for (int64_t i = 0; i < 2 * n; ++i) args.emplace_back(ShapeUtil::MakeScalarShape(operands[i % n]->element_type()));
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(&a);
  // The update window's extent in each operand dimension (1 where inserted
  // or batching).
  std::vector<int64_t> window_size(in.rank(), 1);
  for (int64_t d = 0; d < up.rank(); ++d) {
    if (window_operand_dim[d] >= 0) window_size[window_operand_dim[d]] = up.dimensions(d);
  }
  const int64_t count = ShapeUtil::ElementsIn(up);
  std::vector<int64_t> u(up.rank(), 0), idx_index(idx.rank(), 0), start(in.rank()), offset(in.rank());
  for (int64_t linear = 0; linear < count; ++linear) {
    std::fill(start.begin(), start.end(), 0);
    std::fill(offset.begin(), offset.end(), 0);
    for (int64_t d = 0; d < up.rank(); ++d) {
      if (window_operand_dim[d] >= 0) {
        offset[window_operand_dim[d]] = u[d];
      } else {
        idx_index[scatter_index_dim[d]] = u[d];
      }
    }
    for (int64_t k = 0; k < vector_size; ++k) {
      if (ivd < idx.rank()) idx_index[ivd] = k;
      int64_t idx_linear = 0;
      for (int64_t d = 0; d < idx.rank(); ++d) idx_linear += idx_index[d] * idx_strides[d];
      // Bounded so the sums cannot overflow: anything this far out is invalid.
      constexpr int64_t kFar = int64_t{1} << 62;
      start[dnums.scatter_dims_to_operand_dims(k)] += std::clamp(IndexAt(indices, idx_linear), -kFar, kFar);
    }
    for (int i = 0; i < dnums.input_batching_dims_size(); ++i) {
      start[dnums.input_batching_dims(i)] += idx_index[dnums.scatter_indices_batching_dims(i)];
    }
    // The whole window must fit.
    bool valid = true;
    int64_t out_linear = 0;
    for (int64_t d = 0; d < in.rank() && valid; ++d) {
      valid = start[d] >= 0 && start[d] <= in.dimensions(d) - window_size[d];
      // Only in bounds: an index far out (up to 2^62) times a stride would overflow.
      if (valid) out_linear += (start[d] + offset[d]) * in_strides[d];
    }
    if (valid) {
      for (int64_t i = 0; i < n; ++i) {
        args[i].CopyElementFrom(results[i], out_linear, 0);
        args[n + i].CopyElementFrom(*operands[n + 1 + i], linear, 0);
      }
      ASSIGN_OR_RETURN(Literal value, run(*combiner, arg_ptrs));
      for (int64_t i = 0; i < n; ++i) {
        results[i].CopyElementFrom(n == 1 ? value : value.tuple_elements()[i], 0, out_linear);
      }
    }
    for (int64_t d = up.rank() - 1; d >= 0; --d) {
      if (++u[d] < up.dimensions(d)) break;
      u[d] = 0;
    }
  }
  if (n == 1) return std::move(results[0]);
  return Literal::MakeTuple(std::move(results));
}

}  // namespace evaluator_internal
}  // namespace xla
