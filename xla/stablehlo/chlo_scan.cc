// chlo.scan as a while loop, as upstream's chlo-legalize-to-stablehlo
// lowers it: the body region maps (input slices..., carries...) to
// (output slices..., new carries...); the loop walks the scan dimension
// (backwards when is_reverse), slicing every input at the position and
// writing every output there. Results: the stacked outputs, then the final
// carries.
#include "absl/strings/str_cat.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/emitter.h"
#include "xla/stablehlo/type_conversion.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {
namespace {

// `shape`'s dimensions with `dim` replaced by `size` (0: removed).
Shape WithDimension(const Shape& shape, int64_t dim, int64_t size) {
  std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  if (size == 0) {
    dims.erase(dims.begin() + dim);
  } else {
    dims[dim] = size;
  }
  return ShapeUtil::MakeShape(shape.element_type(), dims);
}

}  // namespace

absl::StatusOr<Values> Emitter::LowerScan(const Op& op, Scope& scope) {
  ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
  ASSIGN_OR_RETURN(int64_t num_inputs, IntAttr(op, {"num_inputs"}, static_cast<int64_t>(operands.size()) / 2));
  ASSIGN_OR_RETURN(int64_t dim, IntAttr(op, {"dimension"}));
  ASSIGN_OR_RETURN(bool reverse, BoolAttr(op, "is_reverse", false));
  if (op.regions.size() != 1) return OpError(op, "needs one body region");
  if (num_inputs < 1 || num_inputs > static_cast<int64_t>(operands.size())) {
    return OpError(op, "needs at least one input");
  }
  const Values inputs(operands.begin(), operands.begin() + num_inputs);
  const Values inits(operands.begin() + num_inputs, operands.end());
  const int64_t num_outputs = static_cast<int64_t>(op.num_results()) - static_cast<int64_t>(inits.size());
  if (num_outputs < 0) return OpError(op, "has fewer results than carries");
  const Shape& first = inputs[0]->shape();
  if (!first.IsArray() || dim < 0 || dim >= first.rank()) {
    return OpError(op, absl::StrCat("dimension ", dim, " is out of range for ", first.ToString()));
  }
  const int64_t length = first.dimensions(dim);
  for (HloInstruction* in : inputs) {
    if (!in->shape().IsArray() || in->shape().rank() != first.rank() || in->shape().dimensions(dim) != length) {
      return OpError(op, "every input needs the first input's rank and scan dimension size");
    }
  }
  std::vector<Shape> output_shapes;
  for (int64_t k = 0; k < num_outputs; ++k) {
    ASSIGN_OR_RETURN(Shape s, RequiredResultShape(op, k));
    if (!s.IsArray() || s.rank() <= dim || s.dimensions(dim) != length) {
      return OpError(op, absl::StrCat("result ", k, " must be an array with ", length, " positions along dimension ",
                                      dim));
    }
    output_shapes.push_back(s);
  }
  ASSIGN_OR_RETURN(HloComputation * body_fn, LowerReducerRegion(op, op.regions[0], scope, "scan"));
  if (static_cast<int64_t>(body_fn->num_parameters()) != num_inputs + static_cast<int64_t>(inits.size())) {
    return OpError(op, absl::StrCat("the body takes ", body_fn->num_parameters(), " arguments, expected ",
                                    num_inputs + static_cast<int64_t>(inits.size())));
  }

  // State: (position, inputs..., carries..., outputs...).
  Values state;
  state.push_back(AddConstant(scope, Literal::CreateR0<int64_t>(0)));
  state.insert(state.end(), inputs.begin(), inputs.end());
  state.insert(state.end(), inits.begin(), inits.end());
  for (const Shape& s : output_shapes) {
    HloInstruction* zero = AddConstant(scope, Literal::Zero(s.element_type()));
    HloInstructionProto broadcast;
    ASSIGN_OR_RETURN(HloInstruction * zeros, Emit(op, scope, HloOpcode::kBroadcast, {zero}, broadcast, {}, s));
    state.push_back(zeros);
  }
  HloInstruction* init_tuple = AddTuple(scope, state);
  const Shape state_shape = init_tuple->shape();
  const size_t carries_at = 1 + inputs.size(), outputs_at = carries_at + inits.size();

  auto scalar = [&](Scope& s, int64_t v) { return AddConstant(s, Literal::CreateR0<int64_t>(v)); };
  std::unique_ptr<HloComputation> cond = NewComputation("scan_cond");
  Scope cond_scope{&scope, cond.get()};
  {
    HloInstruction* param = cond->AddInstruction(HloInstruction::CreateParameter(0, state_shape, ""));
    HloInstructionProto lt;
    lt.set_comparison_direction("LT");
    ASSIGN_OR_RETURN(HloInstruction * more, Emit(op, cond_scope, HloOpcode::kCompare,
                                                 {AddGetTupleElement(cond_scope, param, 0), scalar(cond_scope, length)},
                                                 lt));
    cond->set_root_instruction(more);
  }
  std::unique_ptr<HloComputation> body = NewComputation("scan_body");
  Scope body_scope{&scope, body.get()};
  {
    HloInstruction* param = body->AddInstruction(HloInstruction::CreateParameter(0, state_shape, ""));
    Values elements = Untuple(body_scope, param);
    HloInstruction* i = elements[0];
    HloInstruction* position = i;
    if (reverse) {
      ASSIGN_OR_RETURN(position,
                       Emit(op, body_scope, HloOpcode::kSubtract, {scalar(body_scope, length - 1), i}));
    }
    // The start indices of a slice at `position` along `dim` of a rank-r array.
    auto starts = [&](int64_t rank) {
      Values s;
      for (int64_t d = 0; d < rank; ++d) s.push_back(d == dim ? position : scalar(body_scope, 0));
      return s;
    };
    Values args;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const Shape& in = inputs[k]->shape();
      Values ds_operands{elements[1 + k]};
      for (HloInstruction* s : starts(in.rank())) ds_operands.push_back(s);
      HloInstructionProto ds;
      for (int64_t d = 0; d < in.rank(); ++d) ds.add_dynamic_slice_sizes(d == dim ? 1 : in.dimensions(d));
      ASSIGN_OR_RETURN(HloInstruction * slice, Emit(op, body_scope, HloOpcode::kDynamicSlice, ds_operands, ds));
      ASSIGN_OR_RETURN(HloInstruction * element,
                       Emit(op, body_scope, HloOpcode::kReshape, {slice}, {}, {}, WithDimension(in, dim, 0)));
      args.push_back(element);
    }
    for (size_t k = 0; k < inits.size(); ++k) args.push_back(elements[carries_at + k]);
    ASSIGN_OR_RETURN(HloInstruction * call, Emit(op, body_scope, HloOpcode::kCall, args, {}, {body_fn}));
    Values results = call->shape().IsTuple() ? Untuple(body_scope, call) : Values{call};
    if (results.size() != static_cast<size_t>(num_outputs) + inits.size()) {
      return OpError(op, absl::StrCat("the body returns ", results.size(), " values, expected ",
                                      num_outputs + static_cast<int64_t>(inits.size())));
    }
    Values next;
    ASSIGN_OR_RETURN(HloInstruction * i_next, Emit(op, body_scope, HloOpcode::kAdd, {i, scalar(body_scope, 1)}));
    next.push_back(i_next);
    for (size_t k = 0; k < inputs.size(); ++k) next.push_back(elements[1 + k]);
    for (size_t k = 0; k < inits.size(); ++k) next.push_back(results[num_outputs + k]);
    for (int64_t k = 0; k < num_outputs; ++k) {
      const Shape& out = output_shapes[k];
      const Shape piece = WithDimension(out, dim, 1);
      ASSIGN_OR_RETURN(HloInstruction * update, Emit(op, body_scope, HloOpcode::kReshape, {results[k]}, {}, {}, piece));
      Values dus_operands{elements[outputs_at + k], update};
      for (HloInstruction* s : starts(out.rank())) dus_operands.push_back(s);
      ASSIGN_OR_RETURN(HloInstruction * written, Emit(op, body_scope, HloOpcode::kDynamicUpdateSlice, dus_operands));
      next.push_back(written);
    }
    body->set_root_instruction(AddTuple(body_scope, next));
  }
  HloComputation* cond_fn = hlo_->AddEmbeddedComputation(std::move(cond));
  HloComputation* loop_body = hlo_->AddEmbeddedComputation(std::move(body));
  ASSIGN_OR_RETURN(HloInstruction * loop, Emit(op, scope, HloOpcode::kWhile, {init_tuple}, {}, {cond_fn, loop_body}));
  Values all = Untuple(scope, loop);
  Values out(all.begin() + outputs_at, all.end());
  out.insert(out.end(), all.begin() + carries_at, all.begin() + outputs_at);
  return out;
}

}  // namespace stablehlo
}  // namespace xla
