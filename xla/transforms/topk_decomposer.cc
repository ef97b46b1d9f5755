#include "xla/transforms/topk_decomposer.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

// A computation name not yet in `module`.
std::string UniqueComputationName(const HloModule& module, const std::string& base) {
  std::string name = base;
  for (int i = 1; module.GetComputationByName(name) != nullptr; ++i) name = absl::StrCat(base, ".", i);
  return name;
}

// (lhs_value, rhs_value, lhs_index, rhs_index) -> lhs_value > rhs_value
// (< when not largest), added to `module` before `caller`.
absl::StatusOr<HloComputation*> MakeComparator(HloModule* module, const HloComputation* caller, NameUniquer* names,
                                               PrimitiveType type, bool largest) {
  HloComputation* c = module->AddEmbeddedComputationBefore(
      std::make_unique<HloComputation>(UniqueComputationName(*module, "topk_comparator")), caller);
  const Shape value = ShapeUtil::MakeScalarShape(type);
  const Shape index = ShapeUtil::MakeScalarShape(S32);
  std::vector<HloInstruction*> params;
  for (int64_t p = 0; p < 4; ++p) {
    params.push_back(AddInstructionWithUniqueName(
        c, HloInstruction::CreateParameter(p, p < 2 ? value : index, ""), names, absl::StrCat("p", p)));
  }
  HloInstructionProto attrs;
  attrs.set_comparison_direction(largest ? "GT" : "LT");
  if (primitive_util::IsFloatingPointType(type)) attrs.set_comparison_type("TOTALORDER");
  ASSIGN_OR_RETURN(HloInstruction * compare,
                   MakeInstruction(c, names, HloOpcode::kCompare, ShapeUtil::MakeScalarShape(PRED),
                                   {params[0], params[1]}, attrs));
  c->set_root_instruction(compare);
  return c;
}

absl::StatusOr<bool> Decompose(HloComputation* computation, NameUniquer* names, HloInstruction* topk) {
  HloInstruction* operand = topk->mutable_operand(0);
  const Shape& in = operand->shape();
  const Shape& out = topk->shape();
  if (!in.IsArray() || in.rank() < 1 || !out.IsTuple() || out.tuple_shapes_size() != 2) return false;
  const int64_t last = in.rank() - 1;
  const int64_t k = topk->attributes().k();
  ASSIGN_OR_RETURN(HloComputation * comparator, MakeComparator(computation->parent(), computation, names,
                                                               in.element_type(), topk->attributes().largest()));
  Shape iota_shape = in;
  iota_shape.set_element_type(S32);
  HloInstructionProto iota_attrs;
  iota_attrs.add_dimensions(last);
  ASSIGN_OR_RETURN(HloInstruction * iota, MakeInstruction(computation, names, HloOpcode::kIota, iota_shape, {}, iota_attrs));
  HloInstructionProto sort_attrs;
  sort_attrs.add_dimensions(last);
  sort_attrs.set_is_stable(true);
  ASSIGN_OR_RETURN(HloInstruction * sort,
                   MakeInstruction(computation, names, HloOpcode::kSort, ShapeUtil::MakeTupleShape({in, iota_shape}),
                                   {operand, iota}, sort_attrs, {comparator}));
  std::vector<HloInstruction*> parts;
  for (int64_t i = 0; i < 2; ++i) {
    const Shape& sorted_shape = i == 0 ? in : iota_shape;
    HloInstruction* sorted = AddInstructionWithUniqueName(
        computation, HloInstruction::CreateGetTupleElement(sorted_shape, sort, i), names, "sorted");
    HloInstructionProto slice;
    for (int64_t d = 0; d <= last; ++d) {
      auto* sd = slice.add_slice_dimensions();
      sd->set_start(0);
      sd->set_limit(d == last ? k : in.dimensions(d));
      sd->set_stride(1);
    }
    ASSIGN_OR_RETURN(HloInstruction * part,
                     MakeInstruction(computation, names, HloOpcode::kSlice, out.tuple_shapes(i), {sorted}, slice));
    parts.push_back(part);
  }
  HloInstruction* tuple = AddInstructionWithUniqueName(computation, HloInstruction::CreateTuple(parts), names, "topk");
  *tuple->mutable_shape() = out;
  return ReplaceInstruction(topk, tuple);
}

}  // namespace

absl::StatusOr<bool> TopkDecomposer::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kTopK, Decompose);
}

}  // namespace xla
