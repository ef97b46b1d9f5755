// chlo.ragged_dot with a ragged non-contracting lhs dimension and a group
// dimension in rhs (upstream's mode 1, what mixture-of-experts layers use):
// rows of lhs along the ragged dimension are split into consecutive groups
// of group_sizes[g] rows, and the rows of group g are multiplied by rhs's
// group g. Decomposed as one dot_general per group, each result kept on its
// group's rows (the groups are disjoint, so a select, not a sum); rows past
// the last group are zero, as upstream's decomposition gives.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/emitter.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {

absl::StatusOr<Values> Emitter::LowerRaggedDot(const Op& op, Scope& scope) {
  RETURN_IF_ERROR(ExpectOperands(op, 3));
  ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
  HloInstruction* lhs = operands[0];
  HloInstruction* rhs = operands[1];
  HloInstruction* group_sizes = operands[2];
  const Attr* s = FindAttr(op, {"ragged_dot_dimension_numbers"});
  if (s == nullptr || s->kind != Attr::kStruct) return OpError(op, "needs ragged_dot_dimension_numbers = #chlo.ragged_dot<...>");
  auto ints = [&](const char* key) -> absl::StatusOr<std::vector<int64_t>> {
    const Attr* a = s->Find(key);
    if (a == nullptr) return std::vector<int64_t>();
    return IntList(*a);
  };
  ASSIGN_OR_RETURN(std::vector<int64_t> lhs_batch, ints("lhs_batching_dimensions"));
  ASSIGN_OR_RETURN(std::vector<int64_t> rhs_batch, ints("rhs_batching_dimensions"));
  ASSIGN_OR_RETURN(std::vector<int64_t> lhs_contracting, ints("lhs_contracting_dimensions"));
  ASSIGN_OR_RETURN(std::vector<int64_t> rhs_contracting, ints("rhs_contracting_dimensions"));
  ASSIGN_OR_RETURN(std::vector<int64_t> lhs_ragged, ints("lhs_ragged_dimensions"));
  ASSIGN_OR_RETURN(std::vector<int64_t> rhs_group, ints("rhs_group_dimensions"));
  const Shape& ls = lhs->shape();
  const Shape& rs = rhs->shape();
  if (!ls.IsArray() || !rs.IsArray() || !group_sizes->shape().IsArray()) return OpError(op, "takes arrays");
  auto contains = [](const std::vector<int64_t>& v, int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); };
  if (lhs_ragged.size() != 1 || rhs_group.size() != 1 || contains(lhs_contracting, lhs_ragged[0]) ||
      contains(lhs_batch, lhs_ragged[0])) {
    return OpError(op, "supported: one ragged lhs dimension that is neither batching nor contracting, and one rhs "
                       "group dimension (ragged contracting or batch dimensions are not)");
  }
  const int64_t ragged = lhs_ragged[0], group_dim = rhs_group[0];
  if (ragged < 0 || ragged >= ls.rank() || group_dim < 0 || group_dim >= rs.rank() || contains(rhs_batch, group_dim) ||
      contains(rhs_contracting, group_dim)) {
    return OpError(op, "the ragged and group dimensions must be in range and not batching or contracting");
  }
  const int64_t groups = rs.dimensions(group_dim);
  if (group_sizes->shape().rank() != 1 || group_sizes->shape().dimensions(0) != groups ||
      !primitive_util::IsIntegralType(group_sizes->shape().element_type())) {
    return OpError(op, absl::StrCat("group_sizes must be an integer vector of the ", groups, " groups, got ",
                                    group_sizes->shape().ToString()));
  }
  ASSIGN_OR_RETURN(Shape result, RequiredResultShape(op, 0));

  // rhs without its group dimension: the dimension numbers shift past it.
  HloInstructionProto dot_attrs;
  DotDimensionNumbers* dn = dot_attrs.mutable_dot_dimension_numbers();
  auto shifted = [&](int64_t d) { return d > group_dim ? d - 1 : d; };
  for (int64_t d : lhs_batch) dn->add_lhs_batch_dimensions(d);
  for (int64_t d : rhs_batch) dn->add_rhs_batch_dimensions(shifted(d));
  for (int64_t d : lhs_contracting) dn->add_lhs_contracting_dimensions(d);
  for (int64_t d : rhs_contracting) dn->add_rhs_contracting_dimensions(shifted(d));
  std::vector<int64_t> group_rhs_dims;
  for (int64_t d = 0; d < rs.rank(); ++d) {
    if (d != group_dim) group_rhs_dims.push_back(rs.dimensions(d));
  }
  const Shape group_rhs_shape = ShapeUtil::MakeShape(rs.element_type(), group_rhs_dims);
  // The ragged dimension's place in the dot's result: after the batch
  // dimensions, among lhs's free dimensions in order.
  int64_t result_dim = static_cast<int64_t>(lhs_batch.size());
  for (int64_t d = 0; d < ragged; ++d) {
    if (!contains(lhs_batch, d) && !contains(lhs_contracting, d)) ++result_dim;
  }
  if (result_dim >= result.rank()) return OpError(op, "the result type does not fit the dimension numbers");

  auto slice = [&](HloInstruction* x, int64_t dim, int64_t start, int64_t limit) {
    HloInstructionProto attrs;
    for (int64_t d = 0; d < x->shape().rank(); ++d) {
      auto* sd = attrs.add_slice_dimensions();
      sd->set_start(d == dim ? start : 0);
      sd->set_limit(d == dim ? limit : x->shape().dimensions(d));
      sd->set_stride(1);
    }
    return Emit(op, scope, HloOpcode::kSlice, {x}, attrs);
  };
  const Shape position_shape = ShapeUtil::MakeShape(S64, result.dimensions());
  HloInstructionProto iota_attrs;
  iota_attrs.add_dimensions(result_dim);
  ASSIGN_OR_RETURN(HloInstruction * position, Emit(op, scope, HloOpcode::kIota, {}, iota_attrs, {}, position_shape));
  ASSIGN_OR_RETURN(HloInstruction * sizes, Emit(op, scope, HloOpcode::kConvert, {group_sizes}, {}, {},
                                                ShapeUtil::MakeShape(S64, {groups})));
  auto broadcast = [&](HloInstruction* scalar, const Shape& shape) {
    return Emit(op, scope, HloOpcode::kBroadcast, {scalar}, {}, {}, shape);
  };
  auto compare = [&](const char* direction, HloInstruction* a, HloInstruction* b) {
    HloInstructionProto attrs;
    attrs.set_comparison_direction(direction);
    return Emit(op, scope, HloOpcode::kCompare, {a, b}, attrs);
  };
  ASSIGN_OR_RETURN(HloInstruction * acc, broadcast(AddConstant(scope, Literal::Zero(result.element_type())), result));
  HloInstruction* begin = AddConstant(scope, Literal::CreateR0<int64_t>(0));
  for (int64_t g = 0; g < groups; ++g) {
    ASSIGN_OR_RETURN(HloInstruction * rhs_slice, slice(rhs, group_dim, g, g + 1));
    ASSIGN_OR_RETURN(HloInstruction * rhs_g, Emit(op, scope, HloOpcode::kReshape, {rhs_slice}, {}, {}, group_rhs_shape));
    ASSIGN_OR_RETURN(HloInstruction * dot, Emit(op, scope, HloOpcode::kDot, {lhs, rhs_g}, dot_attrs, {}, result));
    ASSIGN_OR_RETURN(HloInstruction * size_slice, slice(sizes, 0, g, g + 1));
    ASSIGN_OR_RETURN(HloInstruction * size, Emit(op, scope, HloOpcode::kReshape, {size_slice}, {}, {},
                                                 ShapeUtil::MakeScalarShape(S64)));
    ASSIGN_OR_RETURN(HloInstruction * end, Emit(op, scope, HloOpcode::kAdd, {begin, size}));
    ASSIGN_OR_RETURN(HloInstruction * begins, broadcast(begin, position_shape));
    ASSIGN_OR_RETURN(HloInstruction * ends, broadcast(end, position_shape));
    ASSIGN_OR_RETURN(HloInstruction * after_begin, compare("GE", position, begins));
    ASSIGN_OR_RETURN(HloInstruction * before_end, compare("LT", position, ends));
    ASSIGN_OR_RETURN(HloInstruction * in_group, Emit(op, scope, HloOpcode::kAnd, {after_begin, before_end}));
    ASSIGN_OR_RETURN(acc, Emit(op, scope, HloOpcode::kSelect, {in_group, dot, acc}));
    begin = end;
  }
  return Values{acc};
}

}  // namespace stablehlo
}  // namespace xla
