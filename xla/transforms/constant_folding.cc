#include "xla/transforms/constant_folding.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "xla/evaluator/hlo_evaluator.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

bool ContainsToken(const Shape& shape) {
  if (shape.IsToken()) return true;
  for (const Shape& s : shape.tuple_shapes()) {
    if (ContainsToken(s)) return true;
  }
  return false;
}

// Work of a dot (result elements times the contracted size), a convolution
// (result elements times the kernel elements per output feature), a
// reduce-window (result elements times the window's positions) or a sort
// (its comparisons): what evaluating it at compile time costs.
double MultiplyAdds(const HloInstruction* i) {
  if (i->opcode() == HloOpcode::kSort) {
    // About n log2(slice) comparator calls, each a computation the evaluator
    // runs on scalar literals: counted as kMultiplyAddsPerComparison.
    constexpr double kMultiplyAddsPerComparison = 64;
    const Shape& s = i->operand(0)->shape();
    if (!s.IsArray() || i->dimensions().size() != 1 || i->dimensions(0) < 0 || i->dimensions(0) >= s.rank()) return 0;
    const double size = static_cast<double>(s.dimensions(static_cast<int>(i->dimensions(0))));
    return static_cast<double>(ShapeUtil::ElementsIn(s)) * std::ceil(std::log2(std::max(size, 2.0))) *
           kMultiplyAddsPerComparison;
  }
  if (i->opcode() == HloOpcode::kReduceWindow) {
    double positions = 1;
    for (const WindowDimension& w : i->attributes().window().dimensions()) positions *= static_cast<double>(w.size());
    const Shape& first = i->shape().IsTuple() && i->shape().tuple_shapes_size() > 0 ? i->shape().tuple_shapes(0)
                                                                                      : i->shape();
    return first.IsArray() ? static_cast<double>(ShapeUtil::ElementsIn(first)) * positions : 0;
  }
  const Shape& lhs = i->operand(0)->shape();
  const Shape& rhs = i->operand(1)->shape();
  if (!lhs.IsArray() || !rhs.IsArray() || !i->shape().IsArray()) return 0;
  if (i->opcode() == HloOpcode::kDot) {
    double contracted = 1;
    for (int64_t d : i->attributes().dot_dimension_numbers().lhs_contracting_dimensions()) {
      if (d >= 0 && d < lhs.rank()) contracted *= static_cast<double>(lhs.dimensions(static_cast<int>(d)));
    }
    return static_cast<double>(ShapeUtil::ElementsIn(i->shape())) * contracted;
  }
  const auto& dnums = i->attributes().convolution_dimension_numbers();
  const int64_t out_feature = dnums.output_feature_dimension();
  const double out_features = out_feature >= 0 && out_feature < i->shape().rank()
                                  ? std::max<double>(static_cast<double>(i->shape().dimensions(out_feature)), 1)
                                  : 1;
  return static_cast<double>(ShapeUtil::ElementsIn(i->shape())) * static_cast<double>(ShapeUtil::ElementsIn(rhs)) /
         out_features;
}

bool ShouldFold(const HloInstruction* i, const ConstantFoldingOptions& options) {
  switch (i->opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kBroadcast:
    case HloOpcode::kTuple:
    case HloOpcode::kWhile:
    case HloOpcode::kIota:
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kAfterAll:
      return false;
    default:
      break;
  }
  if (i->operand_count() == 0) return false;
  for (const HloInstruction* op : i->operands()) {
    if (!IsKnownConstant(op)) return false;
  }
  if (ContainsToken(i->shape())) return false;
  if (TotalElementCount(i->shape()) > options.max_result_elements) return false;
  if ((i->opcode() == HloOpcode::kDot || i->opcode() == HloOpcode::kConvolution ||
       i->opcode() == HloOpcode::kReduceWindow || i->opcode() == HloOpcode::kSort) &&
      MultiplyAdds(i) > static_cast<double>(options.max_multiply_adds)) {
    return false;
  }
  return !HasSideEffect(i);
}

}  // namespace

absl::StatusOr<bool> ConstantFolding::Run(HloModule* module) {
  NameUniquer names(*module);
  HloEvaluator evaluator(/*max_loop_iterations=*/0);
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    bool computation_changed = false;
    // Operands first, so a chain of ops on constants folds in one sweep.
    for (HloInstruction* i : computation->MakeInstructionPostOrder()) {
      if (!ShouldFold(i, options_)) continue;
      std::vector<const Literal*> operands;
      for (const HloInstruction* op : i->operands()) operands.push_back(&op->literal());
      absl::StatusOr<Literal> value = evaluator.EvaluateInstruction(*i, operands);
      if (!value.ok()) continue;  // not evaluable here (e.g. an op outside the evaluator's slice)
      HloInstruction* constant = MakeConstant(computation, &names, value->RelayoutTo(i->shape()));
      *constant->mutable_shape() = i->shape();
      ASSIGN_OR_RETURN(bool replaced, ReplaceInstruction(i, constant));
      if (!replaced) {
        RETURN_IF_ERROR(computation->RemoveInstruction(constant));
        continue;
      }
      computation_changed = true;
    }
    if (computation_changed) computation->RestoreTopologicalOrder();
    changed |= computation_changed;
  }
  return changed;
}

}  // namespace xla
