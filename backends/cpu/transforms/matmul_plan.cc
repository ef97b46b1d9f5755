#include "backends/cpu/transforms/matmul_plan.h"

#include <vector>

#include "absl/algorithm/container.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu {
namespace {

// One operand as a matrix: its free and contracting blocks in physical order.
struct OperandMatrix {
  int64_t free_elements = 1;
  // Contracting pair indices in physical order.
  std::vector<int64_t> contracting_order;
  bool contracting_first = false;  // the contracting block is the major one
};

std::optional<OperandMatrix> AsMatrix(const Shape& shape, absl::Span<const int64_t> batch,
                                      absl::Span<const int64_t> contracting) {
  const auto& minor_to_major = shape.layout().minor_to_major();
  std::vector<int64_t> physical(minor_to_major.rbegin(), minor_to_major.rend());  // major first
  const size_t nb = batch.size();
  for (size_t i = 0; i < nb; ++i) {
    if (physical[i] != batch[i]) return std::nullopt;
  }
  OperandMatrix matrix;
  int64_t last_free = -1;
  int blocks = 0;
  bool previous_contracting = false;
  for (size_t p = nb; p < physical.size(); ++p) {
    const int64_t d = physical[p];
    auto pair = absl::c_find(contracting, d);
    const bool is_contracting = pair != contracting.end();
    if (p == nb || is_contracting != previous_contracting) {
      if (++blocks > 2) return std::nullopt;  // the blocks interleave
      if (p == nb) matrix.contracting_first = is_contracting;
    }
    previous_contracting = is_contracting;
    if (is_contracting) {
      matrix.contracting_order.push_back(pair - contracting.begin());
    } else {
      if (d < last_free) return std::nullopt;  // free dimensions out of the result's order
      last_free = d;
      matrix.free_elements *= shape.dimensions(d);
    }
  }
  return matrix;
}

}  // namespace

std::vector<int64_t> DotFreeDimensions(int64_t rank, absl::Span<const int64_t> batch,
                                       absl::Span<const int64_t> contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (!absl::c_linear_search(batch, d) && !absl::c_linear_search(contracting, d)) free.push_back(d);
  }
  return free;
}

std::optional<MatMulPlan> PlanRuntimeMatMul(const HloInstruction& dot) {
  if (dot.opcode() != HloOpcode::kDot) return std::nullopt;
  const PrimitiveType type = dot.shape().element_type();
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  if ((type != F32 && type != F64) || lhs.element_type() != type || rhs.element_type() != type) return std::nullopt;
  if (!ShapeUtil::HasDefaultLayout(dot.shape())) return std::nullopt;
  const auto& numbers = dot.attributes().dot_dimension_numbers();
  const int nb = numbers.lhs_batch_dimensions_size();
  if (numbers.rhs_batch_dimensions_size() != nb ||
      numbers.lhs_contracting_dimensions_size() != numbers.rhs_contracting_dimensions_size()) {
    return std::nullopt;
  }
  // Batches are consecutive [m, n] blocks of the result: leading batch
  // dimensions, in order, on both sides.
  for (int i = 0; i < nb; ++i) {
    if (numbers.lhs_batch_dimensions(i) != i || numbers.rhs_batch_dimensions(i) != i) return std::nullopt;
  }
  std::optional<OperandMatrix> a = AsMatrix(lhs, numbers.lhs_batch_dimensions(), numbers.lhs_contracting_dimensions());
  std::optional<OperandMatrix> b = AsMatrix(rhs, numbers.rhs_batch_dimensions(), numbers.rhs_contracting_dimensions());
  if (!a.has_value() || !b.has_value() || a->contracting_order != b->contracting_order) return std::nullopt;
  MatMulPlan plan;
  for (int i = 0; i < nb; ++i) plan.batch *= lhs.dimensions(i);
  for (int64_t d : numbers.lhs_contracting_dimensions()) plan.k *= lhs.dimensions(d);
  if (plan.k == 0) return std::nullopt;
  plan.m = a->free_elements;
  plan.n = b->free_elements;
  // Dot products are loops: the runtime would compute each batch item in a
  // call of its own, one after another on one thread; the loops run the
  // items in parallel, each sum vectorized.
  if (plan.m == 1 && plan.n == 1) return std::nullopt;
  plan.transpose_lhs = a->contracting_first;
  plan.transpose_rhs = !b->contracting_first;
  return plan;
}

}  // namespace cpu
}  // namespace xla
