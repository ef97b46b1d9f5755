// Predicates and small helpers the IrEmitter's files share (ir_emitter.cc,
// value_placement.cc, row_group_emitter.cc, dot_emitter.cc,
// scatter_emitter.cc): which instructions are plumbing or control flow, the
// per-element cost estimate, the loop over a reshape's operand, row
// prefetches. Internal to the emitter.
#ifndef BACKENDS_CPU_CODEGEN_IR_EMITTER_INTERNAL_H_
#define BACKENDS_CPU_CODEGEN_IR_EMITTER_INTERNAL_H_

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/elemental_ir_emitter.h"
#include "backends/cpu/codegen/loop_emitter.h"
#include "backends/cpu/codegen/parallel_loop_emitter.h"
#include "backends/cpu/transforms/emission_kinds.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu {
namespace ir_emitter_internal {

inline constexpr int64_t kAlignment = 64;

inline absl::Status NotImplemented(const HloInstruction& hlo, absl::string_view what) {
  return absl::UnimplementedError(
      absl::StrCat("CPU backend: ", what, " is not implemented yet (in ", hlo.ToString(), ")"));
}

// Elements each element of `hlo` reads from its operands: the reduced
// elements of a reduce, the contracted ones of a dot, else 1.
inline int64_t InnerWork(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kReduce && hlo.operand_count() > 0) {
    const int64_t out = std::max<int64_t>(ShapeUtil::ElementsIn(hlo.shape()), 1);
    return std::max<int64_t>(ShapeUtil::ElementsIn(hlo.operand(0)->shape()) / out, 1);
  }
  if (hlo.opcode() == HloOpcode::kDot) {
    int64_t k = 1;
    for (int64_t d : hlo.attributes().dot_dimension_numbers().lhs_contracting_dimensions()) {
      k *= hlo.operand(0)->shape().dimensions(d);
    }
    return std::max<int64_t>(k, 1);
  }
  if (hlo.opcode() == HloOpcode::kReduceWindow) {
    int64_t positions = 1;
    for (const WindowDimension& w : hlo.attributes().window().dimensions()) positions *= w.size();
    return std::max<int64_t>(positions, 1);
  }
  if (hlo.opcode() == HloOpcode::kConvolution) {
    const HloInstruction* kernel = hlo.operand(1);
    const int64_t out_features = hlo.shape().dimensions(
        hlo.attributes().convolution_dimension_numbers().output_feature_dimension());
    return std::max<int64_t>(ShapeUtil::ElementsIn(kernel->shape()) / std::max<int64_t>(out_features, 1), 1);
  }
  return 1;
}

// Rough size of the code one element of `hlo` becomes: one per operation of
// its fused computation (and reducer), more for the transcendental ones,
// which expand to polynomials.
inline int64_t CodeWeight(const HloInstruction& hlo) {
  switch (hlo.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
    case HloOpcode::kBitcast:
      return 0;
    case HloOpcode::kTanh:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kErf:
    case HloOpcode::kSin:
    case HloOpcode::kCos:
    case HloOpcode::kTan:
    case HloOpcode::kAtan2:
    case HloOpcode::kPower:
    case HloOpcode::kCbrt:
      return 8;
    default:
      break;
  }
  int64_t weight = 1;
  for (const HloComputation* called : hlo.called_computations()) {
    for (const HloInstruction* h : called->instructions()) weight += CodeWeight(*h);
  }
  return weight;
}

// A rough per-element cost for the parallel runtime's block sizes: the
// output written once, each operand read once per unit of inner work.
inline ElementCost EstimateElementCost(const HloInstruction& hlo) {
  ElementCost cost;
  const int64_t element_bytes = primitive_util::ByteWidth(hlo.shape().element_type());
  cost.bytes_stored = static_cast<double>(element_bytes);
  cost.bytes_loaded = static_cast<double>(element_bytes * std::max<int64_t>(hlo.operand_count(), 1));
  cost.cycles = 1;
  return cost;
}

// The operand of a reshape between row-major shapes, which moves no element
// in memory: the reshape's loop can run over the operand's indices, storing
// each element at its own linear position, instead of dividing every linear
// index back into the operand's dimensions (which keeps a loop that reads a
// strided slice, say, from vectorizing). Null for any other instruction.
inline const HloInstruction* RowMajorReshapeOperand(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kReshape) return nullptr;
  const HloInstruction* operand = hlo.operand(0);
  if (operand->shape().rank() == 0 || !ShapeUtil::HasDefaultLayout(operand->shape()) ||
      !ShapeUtil::HasDefaultLayout(hlo.shape())) {
    return nullptr;
  }
  return operand;
}

// The loop that fills `hlo`'s buffer: over the indices of `looped` (`hlo`,
// or `reshaped`, the operand of a reshape that moves no element), split by
// the operands of `concat` when `looped` reads one at its own index.
struct ElementLoop {
  ElementLoop(const HloInstruction& hlo, const HloInstruction* reshaped, ElementalIrEmitter& elemental)
      : hlo(hlo), reshaped(reshaped), looped(reshaped != nullptr ? reshaped : &hlo) {
    concat = elemental.SplittingConcatenate(looped);
    if (concat != nullptr) pieces = ConcatenatePieces(*concat);
  }

  // `hlo`'s element at `index` (an index of `looped`) in loop piece `piece`.
  absl::StatusOr<llvm::Value*> Element(ElementalIrEmitter& elemental, const IrIndex& index, int64_t piece) const {
    elemental.SetConcatenatePiece(concat, piece >= 0 ? index[pieces.dim] : nullptr, piece);
    return reshaped != nullptr ? elemental.EmitElement(reshaped, index) : elemental.GenerateElement(&hlo, index);
  }

  const HloInstruction& hlo;
  const HloInstruction* reshaped;
  const HloInstruction* looped;
  const HloInstruction* concat = nullptr;
  LoopPieces pieces;
};

// Prefetches row `row` of a row-major buffer of `row_bytes` per row, one
// cache line at a time (`write`: for a store that follows).
inline absl::Status EmitRowPrefetch(EmitContext& context, llvm::Value* base, llvm::Value* row, int64_t row_bytes,
                             bool write, const std::string& name) {
  llvm::IRBuilder<>* b = context.b;
  constexpr int64_t kCacheLine = 64;
  llvm::Value* row_start = b->CreateGEP(b->getInt8Ty(), base, b->CreateMul(row, b->getInt64(row_bytes)));
  return EmitForLoop(context, (row_bytes + kCacheLine - 1) / kCacheLine, name, [&](llvm::Value* line) {
    llvm::Value* address = b->CreateGEP(b->getInt8Ty(), row_start, b->CreateMul(line, b->getInt64(kCacheLine)));
    b->CreateIntrinsic(llvm::Intrinsic::prefetch, {address->getType()},
                       {address, b->getInt32(write ? 1 : 0), b->getInt32(3), b->getInt32(1)});
    return absl::OkStatus();
  });
}

inline void FlattenShape(const Shape& shape, std::vector<Shape>* leaves) {
  if (!shape.IsTuple()) {
    leaves->push_back(shape);
    return;
  }
  for (const Shape& s : shape.tuple_shapes()) FlattenShape(s, leaves);
}

}  // namespace ir_emitter_internal
}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_IR_EMITTER_INTERNAL_H_
