// ConvolutionLowering ("convolution-lowering", CPU pipeline): rewrites float
// convolutions into ops the backend already makes fast, so they never run
// as the elemental loop (one output element at a time over its window):
//
// The input under one kernel position, [batch, out spatial..., features],
// is a strided slice of one dilated and padded copy of the input (in that
// dimension order); for depthwise convolutions without lhs dilation, a
// strided slice of the input itself padded with zeros only where the window
// hangs over an edge (no copy: measured 1.7x faster on 112x112x64).
//
// - Grouped by features like a depthwise convolution (feature_group_count =
//   input features, one input feature per group): for each kernel position,
//   that input times the position's weights (broadcast, repeated for a
//   channel multiplier), summed over positions in row-major order. One fused
//   elementwise loop; f16/bf16 computed in f32.
// - Ungrouped (feature and batch group counts 1): im2col. The inputs of all
//   kernel positions are concatenated along features into patches [batch,
//   out spatial..., positions x features] (one fused loop), and the kernel,
//   reversed where the window says so, becomes [positions x features, out
//   features]. One dot then computes the result on the matmul runtime, and a
//   transpose puts it into the convolution's dimension order.
// - Ungrouped with a kernel beyond kMaxKernelPositions positions (a weight
//   gradient's: the kernel is the output gradient), or grouped by batch (a
//   depthwise convolution's weight gradient), with at most that many output
//   positions: one dot per output position, of the input window under it
//   ([batch, positions x features]) and the kernel matrix, batched over the
//   batch groups; the products are concatenated over output positions.
//
// Both keep the document's semantics: padding and dilation holes are zeros
// that take part in the products. Sums run in another order than the
// evaluator's (im2col through the matmul runtime), so float results round
// differently. Mixed precision into f32/f64 (f32 from bf16 operands) converts
// the operands to the result type first. Left as they are (the elemental
// loop): integer and complex convolutions, mixed precision into f16/bf16, other feature groupings, empty results and
// kernels, kernels and outputs both of more than kMaxKernelPositions
// positions (depthwise kernels: more than kMaxDepthwisePositions), and im2col
// patches (or windows) above kMaxPatchBytes (memory over speed).
#ifndef BACKENDS_CPU_TRANSFORMS_CONVOLUTION_LOWERING_H_
#define BACKENDS_CPU_TRANSFORMS_CONVOLUTION_LOWERING_H_

#include <cstdint>

#include "xla/transforms/hlo_pass.h"

namespace xla {
namespace cpu {

class ConvolutionLowering : public HloPass {
 public:
  static constexpr int64_t kMaxPatchBytes = int64_t{1} << 30;
  // Each kernel position (im2col) or output position (one dot each) becomes
  // a few instructions.
  static constexpr int64_t kMaxKernelPositions = 1024;
  // A depthwise sum has one term per position in one fused expression.
  static constexpr int64_t kMaxDepthwisePositions = 64;

  absl::string_view name() const override { return "convolution-lowering"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TRANSFORMS_CONVOLUTION_LOWERING_H_
