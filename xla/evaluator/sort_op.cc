// Sort and TopK.
//
// Sort: each 1-D slice along the sort dimension is sorted as a permutation of
// its positions with std::stable_sort, the comparator evaluated on the
// scalars (lhs_0, rhs_0, lhs_1, rhs_1, ...) of the two positions; every
// operand is then permuted the same way. Unstable sorts are sorted stably
// too (any order of equal elements is allowed; this one is the CPU
// backend's). A comparator that is not a strict weak order gives some
// permutation, never an error.
//
// TopK: each row along the last dimension sorted stably, largest first (or
// smallest first), floats in the IEEE total order; its first k values and
// their positions.
#include <algorithm>
#include <numeric>
#include <vector>

#include "xla/evaluator/elementwise_kernels.h"
#include "xla/evaluator/evaluator_internal.h"
#include "xla/primitive_util.h"
#include "xla/shape_inference.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

absl::StatusOr<Literal> EvaluateSort(const HloInstruction& instruction, absl::Span<const Literal* const> operands,
                                     const ComputationRunner& run) {
  const HloComputation* comparator = instruction.to_apply();
  if (operands.empty() || comparator == nullptr || instruction.dimensions().size() != 1) {
    return InvalidArgument("HloEvaluator: %s: needs operands, one sort dimension and a comparator",
                           InstrLabel(instruction));
  }
  std::vector<const Shape*> shapes;
  for (const Literal* op : operands) shapes.push_back(&op->shape());
  const int64_t dimension = instruction.dimensions(0);
  ASSIGN_OR_RETURN(Shape inferred,
                   ShapeInference::InferSortShape(shapes, dimension, comparator->ComputeProgramShape()));
  if (!inferred.Compatible(instruction.shape())) {
    return InvalidArgument("HloEvaluator: %s: result %s does not match the operands' shapes %s",
                           InstrLabel(instruction), instruction.shape().ToString(), inferred.ToString());
  }
  const Shape& in = operands[0]->shape();
  const int64_t n = static_cast<int64_t>(operands.size());
  // Row-major slices: base = o * size * inner + i, elements `inner` apart.
  const int64_t size = in.dimensions(dimension);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dimension; ++d) outer *= in.dimensions(d);
  for (int64_t d = dimension + 1; d < in.rank(); ++d) inner *= in.dimensions(d);

  std::vector<Literal> out;
  std::vector<Literal> scalars;  // lhs_0, rhs_0, lhs_1, rhs_1, ...
  std::vector<const Literal*> args;
  for (int64_t i = 0; i < n; ++i) {
    out.emplace_back(RowMajorShape(operands[i]->shape()));
    for (int side = 0; side < 2; ++side) scalars.emplace_back(ShapeUtil::MakeScalarShape(operands[i]->element_type()));
  }
  for (const Literal& s : scalars) args.push_back(&s);

  absl::Status status = absl::OkStatus();
  std::vector<int64_t> perm(size);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < inner; ++k) {
      const int64_t base = o * size * inner + k;
      std::iota(perm.begin(), perm.end(), int64_t{0});
      std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
        if (!status.ok()) return false;
        for (int64_t i = 0; i < n; ++i) {
          scalars[2 * i].CopyElementFrom(*operands[i], base + a * inner, 0);
          scalars[2 * i + 1].CopyElementFrom(*operands[i], base + b * inner, 0);
        }
        absl::StatusOr<Literal> less = run(*comparator, args);
        if (!less.ok()) {
          status = less.status();
          return false;
        }
        return less->data<bool>()[0];
      });
      RETURN_IF_ERROR(status);
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < size; ++j) {
          out[i].CopyElementFrom(*operands[i], base + perm[j] * inner, base + j * inner);
        }
      }
    }
  }
  if (n == 1) return std::move(out[0]);
  return Literal::MakeTuple(std::move(out));
}

namespace {

// Positions [0, size) of the row at `row` of `data`, sorted stably by value,
// largest first when `largest` (floats by their total order).
template <typename T>
void SortRow(const T* data, int64_t size, bool largest, std::vector<int64_t>* perm) {
  auto key = [](T v) {
    if constexpr (primitive_util::is_float_v<T>) {
      return TotalOrderKey(v);
    } else {
      return v;
    }
  };
  std::iota(perm->begin(), perm->end(), int64_t{0});
  std::stable_sort(perm->begin(), perm->end(), [&](int64_t a, int64_t b) {
    return largest ? key(data[a]) > key(data[b]) : key(data[a]) < key(data[b]);
  });
}

}  // namespace

absl::StatusOr<Literal> EvaluateTopK(const HloInstruction& instruction, const Literal& operand) {
  const int64_t k = instruction.attributes().k();
  const bool largest = instruction.attributes().largest();
  ASSIGN_OR_RETURN(Shape inferred, ShapeInference::InferTopKShape(operand.shape(), k));
  if (!inferred.Compatible(instruction.shape())) {
    return InvalidArgument("HloEvaluator: %s: result %s does not match %s, the top %d of %s",
                           InstrLabel(instruction), instruction.shape().ToString(), inferred.ToString(), k,
                           operand.shape().ToString());
  }
  const Shape& in = operand.shape();
  const int64_t size = in.dimensions(in.rank() - 1);
  const int64_t rows = size == 0 ? 0 : ShapeUtil::ElementsIn(in) / size;
  Literal values(RowMajorShape(inferred.tuple_shapes(0)));
  Literal indices(RowMajorShape(inferred.tuple_shapes(1)));
  int32_t* index_data = indices.data<int32_t>().data();
  std::vector<int64_t> perm(size);
  for (int64_t r = 0; r < rows; ++r) {
    primitive_util::ArrayTypeSwitch(in.element_type(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (!primitive_util::is_complex_v<T>) {
        SortRow<T>(operand.data<T>().data() + r * size, size, largest, &perm);
      }
    });
    for (int64_t j = 0; j < k; ++j) {
      values.CopyElementFrom(operand, r * size + perm[j], r * k + j);
      index_data[r * k + j] = static_cast<int32_t>(perm[j]);
    }
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(values));
  elements.push_back(std::move(indices));
  return Literal::MakeTuple(std::move(elements));
}

}  // namespace evaluator_internal
}  // namespace xla
