#include "xla/analysis/hlo_cost_analysis.h"

#include <algorithm>
#include <string>

#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_opcode.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

// Elements of an array shape, or of a tuple's first element (variadic
// reduce and reduce-window results: every element has the same dimensions).
int64_t Elements(const Shape& shape) {
  if (shape.IsTuple()) return shape.tuple_shapes_size() == 0 ? 0 : Elements(shape.tuple_shapes(0));
  return ShapeUtil::ElementsIn(shape);
}

int64_t WindowTaps(const Window& window) {
  int64_t taps = 1;
  for (const WindowDimension& d : window.dimensions()) taps *= d.size();
  return taps;
}

int64_t DotFlops(const HloInstruction& dot) {
  int64_t contracted = 1;
  for (int64_t d : dot.attributes().dot_dimension_numbers().lhs_contracting_dimensions()) {
    contracted *= dot.operand(0)->shape().dimensions(d);
  }
  return 2 * Elements(dot.shape()) * contracted;
}

// The kernel's input-feature dimension already holds the features of one
// group (input features / feature_group_count).
int64_t ConvolutionFlops(const HloInstruction& conv) {
  const ConvolutionDimensionNumbers& d = conv.attributes().convolution_dimension_numbers();
  const Shape& kernel = conv.operand(1)->shape();
  int64_t taps = kernel.dimensions(d.kernel_input_feature_dimension());
  for (int64_t s : d.kernel_spatial_dimensions()) taps *= kernel.dimensions(s);
  return 2 * Elements(conv.shape()) * taps;
}

void Merge(const HloCost& from, HloCost* into) {
  for (const auto& [opcode, count] : from.not_counted) into->not_counted[opcode] += count;
}

void AddInstruction(const HloInstruction& hlo, HloCost* cost) {
  auto called = [&](int i) { return AnalyzeHloCost(*hlo.called_computations()[i]); };
  // `per` applications of called computation `i`.
  auto apply = [&](int i, int64_t per) {
    HloCost c = called(i);
    cost->flops += per * c.flops;
    Merge(c, cost);
  };
  auto not_counted = [&] { ++cost->not_counted[std::string(HloOpcodeString(hlo.opcode()))]; };
  const HloOpcode op = hlo.opcode();
  if (IsElementwise(op) && op != HloOpcode::kCopy) {
    cost->flops += Elements(hlo.shape());
    return;
  }
  switch (op) {
    case HloOpcode::kDot:
      cost->flops += DotFlops(hlo);
      return;
    case HloOpcode::kConvolution:
      cost->flops += ConvolutionFlops(hlo);
      return;
    case HloOpcode::kReduce:
      apply(0, Elements(hlo.operand(0)->shape()));
      return;
    case HloOpcode::kReduceWindow:
      apply(0, Elements(hlo.shape()) * WindowTaps(hlo.attributes().window()));
      return;
    case HloOpcode::kMap:
      apply(0, Elements(hlo.shape()));
      return;
    case HloOpcode::kScatter:  // operands: inputs..., indices, updates...
      apply(0, Elements(hlo.operand(hlo.operand_count() - 1)->shape()));
      return;
    case HloOpcode::kSelectAndScatter: {  // operand, source, init; [select, scatter]
      const int64_t source = Elements(hlo.operand(1)->shape());
      apply(0, source * WindowTaps(hlo.attributes().window()));
      apply(1, source);
      return;
    }
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
      apply(0, 1);
      return;
    case HloOpcode::kWhile:
      apply(0, 1);
      apply(1, 1);
      not_counted();
      return;
    case HloOpcode::kConditional: {
      HloCost costliest;
      for (int i = 0; i < static_cast<int>(hlo.called_computations().size()); ++i) {
        HloCost c = called(i);
        if (i == 0 || c.flops > costliest.flops) costliest.flops = c.flops;
        Merge(c, &costliest);
      }
      cost->flops += costliest.flops;
      Merge(costliest, cost);
      not_counted();
      return;
    }
    case HloOpcode::kSort:
    case HloOpcode::kFft:
    case HloOpcode::kCustomCall:
    case HloOpcode::kCholesky:
    case HloOpcode::kTriangularSolve:
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kBatchNormGrad:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kTopK:
    case HloOpcode::kAllReduce:
    case HloOpcode::kReduceScatter:
      not_counted();
      return;
    default:  // data movement, control and bookkeeping: no arithmetic
      return;
  }
}

}  // namespace

HloCost AnalyzeHloCost(const HloComputation& computation) {
  HloCost cost;
  for (const HloInstruction* instruction : computation.instructions()) AddInstruction(*instruction, &cost);
  return cost;
}

HloCost AnalyzeHloCost(const HloModule& module) { return AnalyzeHloCost(*module.entry_computation()); }

}  // namespace xla
