#include "backends/cpu/transforms/cpu_pipeline.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "backends/cpu/transforms/concatenate_splitting.h"
#include "backends/cpu/transforms/convolution_lowering.h"
#include "backends/cpu/transforms/cpu_fusion.h"
#include "backends/cpu/transforms/dot_canonicalization.h"
#include "backends/cpu/transforms/foreign_op_lowering.h"
#include "backends/cpu/transforms/linalg_canonicalization.h"
#include "backends/cpu/transforms/reduction_splitting.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/status_macros.h"
#include "xla/transforms/algebraic_simplifier.h"
#include "xla/transforms/all_reduce_combiner.h"
#include "xla/transforms/batch_norm_expander.h"
#include "xla/transforms/call_inliner.h"
#include "xla/transforms/common_subexpression_elimination.h"
#include "xla/transforms/constant_folding.h"
#include "xla/transforms/dead_code_elimination.h"
#include "xla/transforms/dimension_size_lowering.h"
#include "xla/transforms/hlo_pass_pipeline.h"
#include "xla/transforms/rng_expander.h"
#include "xla/transforms/topk_decomposer.h"
#include "xla/transforms/transpose_folding.h"
#include "xla/transforms/tuple_simplifier.h"
#include "xla/transforms/while_loop_invariant_code_motion.h"
#include "xla/transforms/while_loop_simplifier.h"

namespace xla {
namespace cpu {

namespace {

// The pipeline, top to bottom.
void BuildPipeline(HloPassPipeline& pipeline) {
  // rng becomes rng-bit-generator HLO keyed by each rng's name, so it runs
  // before anything renames or clones instructions (the evaluator keys the
  // same expansion by the same names).
  pipeline.AddPass<RngExpander>();
  pipeline.AddPass<CallInliner>();
  // Batch norm has no emitter: reduces, broadcasts and elementwise ops.
  pipeline.AddPass<BatchNormExpander>();
  // TopK has no emitter: a stable sort of (values, indices) and slices.
  pipeline.AddPass<TopkDecomposer>();
  // Float convolutions become dots (im2col) or fused elementwise sums
  // (depthwise) first, so simplification folds their constant kernels.
  pipeline.AddPass<ConvolutionLowering>();
  HloPassPipeline& simplify = pipeline.AddFixedPoint("simplification");
  simplify.AddPass<AlgebraicSimplifier>();
  simplify.AddPass<ConstantFolding>();
  simplify.AddPass<CommonSubexpressionElimination>();
  simplify.AddPass<TupleSimplifier>();
  simplify.AddPass<WhileLoopInvariantCodeMotion>();
  simplify.AddPass<WhileLoopSimplifier>();
  simplify.AddPass<DeadCodeElimination>();
  // Static shapes: get-dimension-size is a constant, set-dimension-size to
  // the (constant, after simplification) static size is its operand.
  pipeline.AddPass<DimensionSizeLowering>();
  // Opt-barriers and bitcasts of other compilers' optimized HLO become
  // instructions the emitter knows (after simplification, which the
  // barriers were there to hold back).
  pipeline.AddPass<ForeignOpLowering>();
  // The matmul runtime reads either orientation of each operand; dots it
  // cannot read in place get their operands rearranged once.
  pipeline.AddPass<TransposeFolding>();
  pipeline.AddPass<DotCanonicalization>();
  // Fft, triangular-solve and cholesky run in the runtime on row-major
  // f32/f64/c64/c128 buffers.
  pipeline.AddPass<LinalgCanonicalization>();
  // Large reductions into small results get a partition dimension threads
  // can split the work by.
  pipeline.AddPass<ReductionSplitting>();
  // Wide concatenates become trees (after simplification, which would
  // flatten them again).
  pipeline.AddPass<ConcatenateSplitting>();
  pipeline.AddPass<DeadCodeElimination>();
  // A step's gradient all-reduces as one: one rendezvous, and across hosts
  // one Gloo exchange of the small ones.
  pipeline.AddPass<AllReduceCombiner>();
  // What is generated inline and what gets a buffer, as fusion instructions
  // (the emitter follows them; buffer assignment places what they leave).
  pipeline.AddPass<CpuFusion>();
}

}  // namespace

void AddCpuHloPasses(HloPassPipeline* pipeline) { BuildPipeline(*pipeline); }

std::vector<std::string> CpuHloPassNames() {
  HloPassPipeline pipeline("cpu");
  BuildPipeline(pipeline);
  return pipeline.PassNames();
}

absl::Status DumpToFile(const DebugOptions& options, const std::string& file, const std::string& contents) {
  if (options.xla_dump_to().empty()) return absl::OkStatus();
  std::error_code ec;
  std::filesystem::create_directories(options.xla_dump_to(), ec);
  if (ec) return absl::InternalError(absl::StrCat("CPU backend: creating ", options.xla_dump_to(), ": ", ec.message()));
  const std::string path = absl::StrCat(options.xla_dump_to(), "/", file);
  std::ofstream out(path, std::ios::binary);
  out << contents;
  if (!out) return absl::InternalError(absl::StrCat("CPU backend: writing ", path));
  return absl::OkStatus();
}

absl::Status RunCpuHloPasses(HloModule* module, const DebugOptions& options, bool verify_each_pass,
                             std::function<absl::Status()> stop_check) {
  HloPassPipeline pipeline("cpu");
  BuildPipeline(pipeline);
  pipeline.set_verify_after_each_pass(verify_each_pass);
  pipeline.set_stop_check(std::move(stop_check));
  pipeline.ApplyDebugOptions(options);
  absl::Status dump_status = absl::OkStatus();
  int step = 0;
  if (!options.xla_dump_to().empty()) {
    // By value: the callback runs in pipeline.Run, after this block.
    pipeline.set_dump_callback([&, prefix = module->name()](absl::string_view pass, absl::string_view before,
                                                          absl::string_view after) {
      const std::string base = absl::StrFormat("%s.%04d.%s", prefix, step++, pass);
      if (dump_status.ok()) dump_status = DumpToFile(options, base + ".before.hlo", std::string(before));
      if (dump_status.ok()) dump_status = DumpToFile(options, base + ".after.hlo", std::string(after));
    });
  }
  absl::StatusOr<bool> changed = pipeline.Run(module);
  if (!changed.ok()) return changed.status();
  RETURN_IF_ERROR(dump_status);
  absl::Status verified = VerifyHloModule(*module);
  if (!verified.ok()) {
    return absl::InternalError(absl::StrCat("CPU backend: the module does not verify after the HLO passes: ",
                                            verified.message()));
  }
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace xla
