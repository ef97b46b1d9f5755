// Dot (general): batch and contracting dimensions from DotDimensionNumbers.
// Result dimensions: batch dims, then lhs free dims, then rhs free dims.
//
// Both operands are first converted to the accumulation type (f32 for f16,
// bf16 and f32 results; the result type otherwise) and permuted to
// [batch, free, contract] / [batch, contract, free] row-major arrays; each
// result element is then the sum over the contracting index in ascending
// order, rounded to the result type at the end. Integer dots wrap.
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/evaluator/elementwise_kernels.h"
#include "xla/evaluator/evaluator_internal.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

namespace {

// Copy of `lit` with dimension i of the result being dimension order[i].
Literal Permute(const Literal& lit, absl::Span<const int64_t> order) {
  const Shape& s = lit.shape();
  std::vector<int64_t> in_strides = RowMajorStrides(s.dimensions());
  std::vector<int64_t> dims(order.size()), src_strides(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    dims[i] = s.dimensions(order[i]);
    src_strides[i] = in_strides[order[i]];
  }
  Literal out(ShapeUtil::MakeShape(s.element_type(), dims));
  StridedCopy(primitive_util::ByteWidth(s.element_type()), lit.untyped_data(), 0, src_strides,
              out.untyped_data(), 0, RowMajorStrides(dims), dims);
  return out;
}

struct SideDims {
  std::vector<int64_t> batch, contracting, free;
};

absl::StatusOr<SideDims> ClassifyDims(const HloInstruction& instruction, const Shape& shape,
                                      const google::protobuf::RepeatedField<int64_t>& batch,
                                      const google::protobuf::RepeatedField<int64_t>& contracting,
                                      absl::string_view side) {
  SideDims out;
  std::vector<bool> used(shape.rank(), false);
  auto take = [&](int64_t d, std::vector<int64_t>* list) -> absl::Status {
    if (d < 0 || d >= shape.rank() || used[d]) {
      return InvalidArgument("HloEvaluator: %s: %s dimension %d is out of range or repeated (%s %s)",
                             InstrLabel(instruction), side, d, side, shape.ToString());
    }
    used[d] = true;
    list->push_back(d);
    return absl::OkStatus();
  };
  for (int64_t d : batch) RETURN_IF_ERROR(take(d, &out.batch));
  for (int64_t d : contracting) RETURN_IF_ERROR(take(d, &out.contracting));
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (!used[d]) out.free.push_back(d);
  }
  return out;
}

int64_t Product(const Shape& shape, absl::Span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= shape.dimensions(d);
  return p;
}

template <typename A>
void DotLoop(const Literal& lhs, const Literal& rhs, Literal* out, int64_t B, int64_t M, int64_t K, int64_t N) {
  auto l = lhs.data<A>();
  auto r = rhs.data<A>();
  auto o = out->data<A>();
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t m = 0; m < M; ++m) {
      if (StopRequested()) return;  // the evaluation fails; the rows left are never read
      A* acc = o.data() + (b * M + m) * N;
      for (int64_t n = 0; n < N; ++n) acc[n] = A(0);
      for (int64_t k = 0; k < K; ++k) {
        const A lv = l[(b * M + m) * K + k];
        const A* rp = r.data() + (b * K + k) * N;
        if constexpr (std::is_same_v<A, bool>) {
          if (lv) {
            for (int64_t n = 0; n < N; ++n) acc[n] = acc[n] || rp[n];
          }
        } else if constexpr (is_int_v<A>) {
          for (int64_t n = 0; n < N; ++n) acc[n] = WrapAdd(acc[n], WrapMul(lv, rp[n]));
        } else {
          for (int64_t n = 0; n < N; ++n) acc[n] += lv * rp[n];
        }
      }
    }
  }
}

}  // namespace

absl::StatusOr<Literal> EvaluateDot(const HloInstruction& instruction, const Literal& lhs, const Literal& rhs) {
  const Shape& shape = instruction.shape();
  RETURN_IF_ERROR(ExpectArray(instruction, shape, "result"));
  RETURN_IF_ERROR(ExpectArray(instruction, lhs.shape(), "lhs"));
  RETURN_IF_ERROR(ExpectArray(instruction, rhs.shape(), "rhs"));
  const DotDimensionNumbers& dnums = instruction.attributes().dot_dimension_numbers();
  if (dnums.lhs_batch_dimensions_size() != dnums.rhs_batch_dimensions_size() ||
      dnums.lhs_contracting_dimensions_size() != dnums.rhs_contracting_dimensions_size()) {
    return InvalidArgument("HloEvaluator: %s: lhs and rhs must have as many batch and contracting dimensions",
                           InstrLabel(instruction));
  }
  ASSIGN_OR_RETURN(SideDims ld, ClassifyDims(instruction, lhs.shape(), dnums.lhs_batch_dimensions(),
                                             dnums.lhs_contracting_dimensions(), "lhs"));
  ASSIGN_OR_RETURN(SideDims rd, ClassifyDims(instruction, rhs.shape(), dnums.rhs_batch_dimensions(),
                                             dnums.rhs_contracting_dimensions(), "rhs"));
  std::vector<int64_t> expected_dims;
  for (size_t i = 0; i < ld.batch.size(); ++i) {
    int64_t a = lhs.shape().dimensions(ld.batch[i]), b = rhs.shape().dimensions(rd.batch[i]);
    if (a != b) {
      return InvalidArgument("HloEvaluator: %s: lhs batch dimension %d has size %d but rhs batch dimension %d has "
                             "size %d (lhs %s, rhs %s)",
                             InstrLabel(instruction), ld.batch[i], a, rd.batch[i], b, lhs.shape().ToString(),
                             rhs.shape().ToString());
    }
    expected_dims.push_back(a);
  }
  for (size_t i = 0; i < ld.contracting.size(); ++i) {
    int64_t a = lhs.shape().dimensions(ld.contracting[i]), b = rhs.shape().dimensions(rd.contracting[i]);
    if (a != b) {
      return InvalidArgument("HloEvaluator: %s: lhs contracting dimension %d has size %d but rhs contracting "
                             "dimension %d has size %d (lhs %s, rhs %s)",
                             InstrLabel(instruction), ld.contracting[i], a, rd.contracting[i], b,
                             lhs.shape().ToString(), rhs.shape().ToString());
    }
  }
  for (int64_t d : ld.free) expected_dims.push_back(lhs.shape().dimensions(d));
  for (int64_t d : rd.free) expected_dims.push_back(rhs.shape().dimensions(d));
  if (expected_dims != shape.dimensions()) {
    return InvalidArgument("HloEvaluator: %s: result %s does not match the dot dimensions [%s]",
                           InstrLabel(instruction), shape.ToString(), absl::StrJoin(expected_dims, ","));
  }

  const PrimitiveType result_type = shape.element_type();
  const PrimitiveType acc_type = AccumulationType(result_type);
  for (const Literal* op : {&lhs, &rhs}) {
    PrimitiveType t = op->element_type();
    if (primitive_util::IsComplexType(t) != primitive_util::IsComplexType(result_type) ||
        (t == PRED) != (result_type == PRED)) {
      return InvalidArgument("HloEvaluator: %s: operand type %s cannot produce result type %s",
                             InstrLabel(instruction), primitive_util::LowercaseName(t),
                             primitive_util::LowercaseName(result_type));
    }
  }
  Literal lc, rc;
  const Literal* lp = &lhs;
  const Literal* rp = &rhs;
  if (lhs.element_type() != acc_type) {
    ASSIGN_OR_RETURN(lc, lhs.Convert(acc_type));
    lp = &lc;
  }
  if (rhs.element_type() != acc_type) {
    ASSIGN_OR_RETURN(rc, rhs.Convert(acc_type));
    rp = &rc;
  }

  std::vector<int64_t> lorder, rorder;
  lorder.insert(lorder.end(), ld.batch.begin(), ld.batch.end());
  lorder.insert(lorder.end(), ld.free.begin(), ld.free.end());
  lorder.insert(lorder.end(), ld.contracting.begin(), ld.contracting.end());
  rorder.insert(rorder.end(), rd.batch.begin(), rd.batch.end());
  rorder.insert(rorder.end(), rd.contracting.begin(), rd.contracting.end());
  rorder.insert(rorder.end(), rd.free.begin(), rd.free.end());
  Literal lt = Permute(*lp, lorder);
  Literal rt = Permute(*rp, rorder);
  const int64_t B = Product(lhs.shape(), ld.batch);
  const int64_t M = Product(lhs.shape(), ld.free);
  const int64_t K = Product(lhs.shape(), ld.contracting);
  const int64_t N = Product(rhs.shape(), rd.free);

  Literal acc(ShapeUtil::MakeShape(acc_type, shape.dimensions()));
  primitive_util::ArrayTypeSwitch(acc_type, [&](auto tag) {
    using A = decltype(tag);
    if constexpr (!is_small_float_v<A> && !is_int_n_v<A>) DotLoop<A>(lt, rt, &acc, B, M, K, N);
  });
  if (acc_type != result_type) return acc.Convert(result_type);
  return acc;
}

}  // namespace evaluator_internal
}  // namespace xla
