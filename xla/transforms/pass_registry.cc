#include "xla/transforms/pass_registry.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/status_macros.h"
#include "xla/transforms/algebraic_simplifier.h"
#include "xla/transforms/all_reduce_combiner.h"
#include "xla/transforms/batch_norm_expander.h"
#include "xla/transforms/call_inliner.h"
#include "xla/transforms/common_subexpression_elimination.h"
#include "xla/transforms/constant_folding.h"
#include "xla/transforms/dead_code_elimination.h"
#include "xla/transforms/dimension_size_lowering.h"
#include "xla/transforms/rng_expander.h"
#include "xla/transforms/topk_decomposer.h"
#include "xla/transforms/transpose_folding.h"
#include "xla/transforms/tuple_simplifier.h"
#include "xla/transforms/while_loop_invariant_code_motion.h"
#include "xla/transforms/while_loop_simplifier.h"

namespace xla {
namespace {

template <typename T>
HloPassInfo Info(std::string description) {
  return HloPassInfo{std::string(T().name()), std::move(description),
                     [] { return std::unique_ptr<HloPass>(new T()); }};
}

}  // namespace

const std::vector<HloPassInfo>& RegisteredHloPasses() {
  static const auto* passes = new std::vector<HloPassInfo>{
      Info<CallInliner>("inline every call"),
      Info<AlgebraicSimplifier>("exact algebraic identities (x+0, x*1, reshape of reshape, slice of slice, ...)"),
      Info<ConstantFolding>("evaluate instructions whose operands are all constants"),
      Info<TupleSimplifier>("gte(tuple(...)) and tuple(gte(x, 0..n-1)) shortcuts"),
      Info<WhileLoopSimplifier>("remove while loops that run 0 or 1 times"),
      Info<WhileLoopInvariantCodeMotion>("hoist loop-invariant work out of while bodies"),
      Info<CommonSubexpressionElimination>("merge identical instructions"),
      Info<DeadCodeElimination>("remove unused instructions and computations"),
      Info<TopkDecomposer>("topk as a stable sort of (values, iota) and slices of its first k"),
      Info<RngExpander>("rng as rng-bit-generator THREE_FRY bits and the uniform/normal transforms (seed: rng_seed)"),
      Info<BatchNormExpander>("batch-norm-training/-inference/-grad as reduces, broadcasts and rsqrt"),
      Info<DimensionSizeLowering>("get-dimension-size as a constant, set-dimension-size to the static size as its operand"),
      Info<TransposeFolding>("dots read transposed operands in place (dot(transpose(a), b) -> dot(a, b))"),
      Info<AllReduceCombiner>("independent all-reduces that agree (groups, reduction, type) as one all-reduce"),
  };
  return *passes;
}

absl::StatusOr<std::unique_ptr<HloPass>> CreateHloPass(absl::string_view name) {
  if (name == "standard") return std::unique_ptr<HloPass>(CreateStandardHloPipeline());
  std::vector<std::string> names = {"standard"};
  for (const HloPassInfo& info : RegisteredHloPasses()) {
    if (info.name == name) return info.create();
    names.push_back(info.name);
  }
  return NotFound("unknown pass '%s' (known: %s)", name, absl::StrJoin(names, ", "));
}

void AddStandardHloPasses(HloPassPipeline* pipeline) {
  pipeline->AddPass<CallInliner>();
  HloPassPipeline& simplification = pipeline->AddFixedPoint("simplification");
  simplification.AddPass<AlgebraicSimplifier>();
  simplification.AddPass<ConstantFolding>();
  simplification.AddPass<TupleSimplifier>();
  simplification.AddPass<WhileLoopSimplifier>();
  simplification.AddPass<WhileLoopInvariantCodeMotion>();
  simplification.AddPass<CommonSubexpressionElimination>();
  simplification.AddPass<DeadCodeElimination>();
}

std::unique_ptr<HloPassPipeline> CreateStandardHloPipeline() {
  auto pipeline = std::make_unique<HloPassPipeline>("standard");
  AddStandardHloPasses(pipeline.get());
  return pipeline;
}

}  // namespace xla
