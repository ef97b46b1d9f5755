// ElementalIrEmitter, data movement (elemental_ir_emitter.h): the ops whose
// elements are operand elements at a mapped index (broadcast, transpose,
// slice, reverse, reshape, dynamic-slice, gather, with the clamped start
// indices of dynamic slices and gathers), iota, and the ops that choose
// between operands (concatenate, with its loop pieces, and pad).
#include "backends/cpu/codegen/elemental_ir_emitter.h"

#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "backends/cpu/codegen/elemental_ir_emitter_internal.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

using namespace elemental_internal;  // NOLINT: the elemental emitter's own helpers

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitBroadcastElement(const HloInstruction* hlo, const IrIndex& index) {
  IrIndex in(hlo->operand(0)->shape().rank());
  for (size_t i = 0; i < in.size(); ++i) in[i] = index[hlo->dimensions(i)];
  return EmitElement(hlo->operand(0), in);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitTransposeElement(const HloInstruction* hlo, const IrIndex& index) {
  const Shape& shape = hlo->shape();
  IrIndex in(shape.rank());
  for (int i = 0; i < shape.rank(); ++i) in[hlo->dimensions(i)] = index[i];
  return EmitElement(hlo->operand(0), in);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitSliceElement(const HloInstruction* hlo, const IrIndex& index) {
  const Shape& shape = hlo->shape();
  IrIndex in(shape.rank());
  for (int d = 0; d < shape.rank(); ++d) {
    const auto& sd = hlo->attributes().slice_dimensions(d);
    llvm::Value* v = sd.stride() == 1 ? index[d] : b_->CreateMul(index[d], b_->getInt64(sd.stride()), "", true, true);
    in[d] = sd.start() == 0 ? v : b_->CreateAdd(v, b_->getInt64(sd.start()), "", true, true);
  }
  return EmitElement(hlo->operand(0), in);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitReverseElement(const HloInstruction* hlo, const IrIndex& index) {
  const Shape& shape = hlo->shape();
  IrIndex in = index;
  for (int64_t d : hlo->dimensions()) in[d] = b_->CreateSub(b_->getInt64(shape.dimensions(d) - 1), index[d]);
  return EmitElement(hlo->operand(0), in);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitIotaElement(const HloInstruction* hlo, const IrIndex& index) {
  const PrimitiveType type = hlo->shape().element_type();
  if (type == PRED) return NotImplemented(*hlo, "iota on pred");
  return EmitConvert(S64, type, index[hlo->dimensions(0)]);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitDynamicSliceElement(const HloInstruction* hlo,
                                                                         const IrIndex& index) {
  const Shape& shape = hlo->shape();
  const Shape& in = hlo->operand(0)->shape();
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts, EmitClampedStarts(*hlo, 1, in, shape.dimensions()));
  IrIndex in_index(shape.rank());
  for (int d = 0; d < shape.rank(); ++d) in_index[d] = b_->CreateAdd(index[d], starts[d], "", true, true);
  return EmitElement(hlo->operand(0), in_index);
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalIrEmitter::EmitClampedStarts(const HloInstruction& hlo,
                                                                             int64_t first, const Shape& operand,
                                                                             absl::Span<const int64_t> sizes) {
  const int64_t rank = operand.rank();
  const int64_t n = hlo.operand_count() - first;
  // One start operand per dimension, or (as the evaluator also accepts) one
  // rank-1 vector of them.
  const bool vector = n == 1 && rank != 0 && hlo.operand(first)->shape().IsArray() &&
                      hlo.operand(first)->shape().rank() == 1;
  if (!vector && n != rank) return InvalidArgument("CPU backend: %s: expected %d start indices", hlo.name(), rank);
  std::vector<llvm::Value*> starts(rank);
  for (int64_t d = 0; d < rank; ++d) {
    const HloInstruction* s = hlo.operand(vector ? first : first + d);
    const PrimitiveType t = s->shape().element_type();
    if (!IsInt(t) || s->shape().rank() != (vector ? 1 : 0)) {
      return InvalidArgument("CPU backend: %s: start index %s is not an integral scalar", hlo.name(),
                             s->shape().ToString());
    }
    ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(s, vector ? IrIndex{b_->getInt64(d)} : IrIndex{}));
    starts[d] = EmitClampedIndex(v, t, operand.dimensions(d) - sizes[d]);
  }
  return starts;
}

llvm::Value* ElementalIrEmitter::EmitClampedIndex(llvm::Value* v, PrimitiveType type, int64_t hi) {
  if (type == U64) {
    // Values above INT64_MAX read as INT64_MAX (ReadIndexScalar).
    v = b_->CreateSelect(b_->CreateICmpSLT(v, b_->getInt64(0)), b_->getInt64(INT64_MAX), v);
  } else {
    v = b_->CreateIntCast(v, b_->getInt64Ty(), IsSigned(type));
  }
  v = b_->CreateSelect(b_->CreateICmpSLT(v, b_->getInt64(hi)), v, b_->getInt64(hi));
  return b_->CreateSelect(b_->CreateICmpSGT(v, b_->getInt64(0)), v, b_->getInt64(0));
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitReshapeElement(const HloInstruction* hlo, const IrIndex& index) {
  const Shape& out = hlo->shape();
  const Shape& in = hlo->operand(0)->shape();
  // Each input dimension a run of consecutive output dimensions (size-1
  // dimensions added or removed, a dimension split in several, as reduction
  // splitting does): its index from the run by multiply-adds, no division.
  IrIndex in_index(in.rank(), b_->getInt64(0));
  bool splits_only = true;
  int o = 0;
  for (int d = 0; splits_only && d < in.rank(); ++d) {
    const int64_t size = in.dimensions(d);
    int64_t covered = 1;
    llvm::Value* v = b_->getInt64(0);
    while (splits_only && o < out.rank() && (covered < size || out.dimensions(o) == 1)) {
      const int64_t next = out.dimensions(o);
      splits_only = next == 1 || covered * next <= size;
      if (next != 1) v = b_->CreateAdd(b_->CreateMul(v, b_->getInt64(next), "", true, true), index[o], "", true, true);
      covered *= next;
      ++o;
    }
    splits_only = splits_only && covered == size && size != 0;
    in_index[d] = v;
  }
  for (; splits_only && o < out.rank(); ++o) splits_only = out.dimensions(o) == 1;
  if (splits_only) return EmitElement(hlo->operand(0), in_index);
  // General case: through the row-major linear position.
  in_index.assign(in.rank(), b_->getInt64(0));
  llvm::Value* linear = b_->getInt64(0);
  for (int d = 0; d < out.rank(); ++d) {
    linear = b_->CreateAdd(b_->CreateMul(linear, b_->getInt64(out.dimensions(d)), "", true, true), index[d], "",
                           true, true);
  }
  for (int d = in.rank() - 1; d >= 0; --d) {
    llvm::Value* size = b_->getInt64(in.dimensions(d));
    in_index[d] = b_->CreateURem(linear, size);
    linear = b_->CreateUDiv(linear, size);
  }
  return EmitElement(hlo->operand(0), in_index);
}

LoopPieces ConcatenatePieces(const HloInstruction& hlo) {
  LoopPieces pieces;
  if (hlo.opcode() != HloOpcode::kConcatenate) return pieces;
  pieces.dim = hlo.dimensions(0);
  pieces.starts.push_back(0);
  for (const HloInstruction* operand : hlo.operands()) {
    pieces.starts.push_back(pieces.starts.back() + operand->shape().dimensions(pieces.dim));
  }
  return pieces;
}

const HloInstruction* ElementalIrEmitter::SplittingConcatenate(const HloInstruction* hlo) {
  if (hlo->opcode() == HloOpcode::kConcatenate) return hlo;
  if (!IsElementwise(hlo->opcode())) return nullptr;
  for (const HloInstruction* operand : hlo->operands()) {
    if (buffers_(operand) != nullptr || !ShapeUtil::SameDimensions(operand->shape(), hlo->shape())) continue;
    if (const HloInstruction* concat = SplittingConcatenate(operand)) return concat;
  }
  return nullptr;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitConcatenateElement(const HloInstruction* hlo,
                                                                        const IrIndex& index) {
  const int64_t dim = hlo->dimensions(0);
  if (hlo == piece_concat_ && index[dim] == piece_iv_) {
    const LoopPieces pieces = ConcatenatePieces(*hlo);
    IrIndex in = index;
    in[dim] = b_->CreateSub(index[dim], b_->getInt64(pieces.starts[piece_]), "", true, true);
    return EmitElement(hlo->operand(piece_), in);
  }
  // Which operand an index falls in: a compare per operand for a few
  // operands (the vectorizer turns them into selects); for more, a switch on
  // the operand number when the operands are equally long (what
  // concatenate-splitting makes), else a balanced tree of compares. A chain
  // of thousands of compares in a row loop is what made a wide concatenate's
  // compile time grow with its width (LLVM's loop passes walk every block).
  const int64_t n = hlo->operand_count();
  const std::vector<int64_t> starts = ConcatenatePieces(*hlo).starts;
  llvm::Function* fn = b_->GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b_->getContext();
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx, "concat.merge", fn);
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> incoming;
  // Operand i's element, at the current insertion point, then to `merge`.
  auto emit_operand = [&](int64_t i, llvm::Value* in_position) -> absl::Status {
    IrIndex in = index;
    in[dim] = in_position != nullptr ? in_position : b_->CreateSub(index[dim], b_->getInt64(starts[i]));
    ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(hlo->operand(i), in));
    incoming.push_back({v, b_->GetInsertBlock()});
    b_->CreateBr(merge);
    return absl::OkStatus();
  };
  constexpr int64_t kMaxCompareChain = 4;
  const int64_t size = hlo->operand(0)->shape().dimensions(dim);
  const bool equal_sizes = size > 0 && absl::c_all_of(hlo->operands(), [&](const HloInstruction* operand) {
    return operand->shape().dimensions(dim) == size;
  });
  if (n <= kMaxCompareChain) {
    for (int64_t i = 0; i < n; ++i) {
      if (i + 1 < n) {
        llvm::BasicBlock* here = llvm::BasicBlock::Create(ctx, "concat.operand", fn);
        llvm::BasicBlock* next = llvm::BasicBlock::Create(ctx, "concat.next", fn);
        b_->CreateCondBr(b_->CreateICmpSLT(index[dim], b_->getInt64(starts[i + 1])), here, next);
        b_->SetInsertPoint(here);
        RETURN_IF_ERROR(emit_operand(i, nullptr));
        b_->SetInsertPoint(next);
      } else {
        RETURN_IF_ERROR(emit_operand(i, nullptr));
      }
    }
  } else if (equal_sizes) {
    llvm::Value* size_value = b_->getInt64(size);
    llvm::Value* which = b_->CreateUDiv(index[dim], size_value, "concat.which");
    llvm::Value* position = b_->CreateURem(index[dim], size_value, "concat.position");
    // Operands that are buffers of one shape (the usual case): the switch
    // only picks the buffer, and one load reads it, so each operand costs
    // a block and a phi entry, not a load of its own.
    std::vector<llvm::Value*> bases;
    const Shape* load_shape = nullptr;
    for (const HloInstruction* operand : hlo->operands()) {
      llvm::Value* base = buffers_(operand);
      auto row = row_buffer_shapes_.find(operand);
      const Shape& shape = row != row_buffer_shapes_.end() ? row->second : operand->shape();
      if (base == nullptr || (load_shape != nullptr && shape != *load_shape)) {
        bases.clear();
        break;
      }
      load_shape = &shape;
      bases.push_back(base);
    }
    // One block per operand, chosen by the switch (the last operand is the
    // default: every index is in some operand).
    std::vector<llvm::BasicBlock*> blocks;
    for (int64_t i = 0; i < n; ++i) blocks.push_back(llvm::BasicBlock::Create(ctx, "concat.operand", fn));
    llvm::SwitchInst* choose = b_->CreateSwitch(which, blocks.back(), static_cast<unsigned>(n - 1));
    for (int64_t i = 0; i + 1 < n; ++i) choose->addCase(b_->getInt64(i), blocks[i]);
    if (!bases.empty()) {
      for (llvm::BasicBlock* block : blocks) llvm::BranchInst::Create(merge, block);
      b_->SetInsertPoint(merge);
      llvm::PHINode* base = b_->CreatePHI(b_->getPtrTy(), static_cast<unsigned>(n), "concat.base");
      for (int64_t i = 0; i < n; ++i) base->addIncoming(bases[i], blocks[i]);
      IrIndex in = index;
      in[dim] = position;
      return LoadElement(base, *load_shape, in);
    }
    for (int64_t i = 0; i < n; ++i) {
      b_->SetInsertPoint(blocks[i]);
      RETURN_IF_ERROR(emit_operand(i, position));
    }
  } else {
    // Operands [lo, hi) to choose from, with their blocks; an explicit stack
    // (the tree is only log2(n) deep, but no recursion is needed for it).
    struct Range {
      int64_t lo, hi;
      llvm::BasicBlock* block;
    };
    std::vector<Range> pending = {{0, n, b_->GetInsertBlock()}};
    while (!pending.empty()) {
      const Range range = pending.back();
      pending.pop_back();
      b_->SetInsertPoint(range.block);
      if (range.hi - range.lo == 1) {
        RETURN_IF_ERROR(emit_operand(range.lo, nullptr));
        continue;
      }
      const int64_t mid = range.lo + (range.hi - range.lo) / 2;
      llvm::BasicBlock* low = llvm::BasicBlock::Create(ctx, "concat.low", fn);
      llvm::BasicBlock* high = llvm::BasicBlock::Create(ctx, "concat.high", fn);
      b_->CreateCondBr(b_->CreateICmpSLT(index[dim], b_->getInt64(starts[mid])), low, high);
      pending.push_back({mid, range.hi, high});
      pending.push_back({range.lo, mid, low});
    }
  }
  b_->SetInsertPoint(merge);
  llvm::PHINode* phi = b_->CreatePHI(IrValueType(hlo->shape().element_type(), ctx), incoming.size());
  for (auto& [v, bb] : incoming) phi->addIncoming(v, bb);
  return phi;
}

bool ElementalIrEmitter::ReadsOnlyBuffers(const HloInstruction* hlo) {
  while (buffers_(hlo) == nullptr) {
    switch (hlo->opcode()) {
      case HloOpcode::kSlice: case HloOpcode::kTranspose: case HloOpcode::kReshape: case HloOpcode::kBroadcast:
      case HloOpcode::kConvert: case HloOpcode::kCopy: case HloOpcode::kReverse:
        hlo = hlo->operand(0);
        break;
      default:
        return false;
    }
  }
  return true;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitPadElement(const HloInstruction* hlo, const IrIndex& index) {
  const Shape& in_shape = hlo->operand(0)->shape();
  const auto& config = hlo->attributes().padding_config().dimensions();
  llvm::Value* inside = b_->getTrue();
  IrIndex in(in_shape.rank());
  for (int d = 0; d < in_shape.rank(); ++d) {
    const int64_t step = config[d].interior_padding() + 1;
    llvm::Value* t = b_->CreateSub(index[d], b_->getInt64(config[d].edge_padding_low()));
    inside = b_->CreateAnd(inside, b_->CreateICmpSGE(t, b_->getInt64(0)));
    if (step != 1) {
      inside = b_->CreateAnd(inside, b_->CreateICmpEQ(b_->CreateSRem(t, b_->getInt64(step)), b_->getInt64(0)));
      t = b_->CreateSDiv(t, b_->getInt64(step));
    }
    inside = b_->CreateAnd(inside, b_->CreateICmpSLT(t, b_->getInt64(in_shape.dimensions(d))));
    in[d] = t;
  }
  if (ReadsOnlyBuffers(hlo->operand(0)) && !ShapeUtil::HasZeroElements(in_shape)) {
    // Branch-free, so the loop around it vectorizes: the operand read at an
    // index clamped into range (loads from buffers cannot fault or cost
    // much), then the padding value selected outside.
    for (int d = 0; d < in_shape.rank(); ++d) {
      llvm::Value* low = b_->CreateSelect(b_->CreateICmpSGT(in[d], b_->getInt64(0)), in[d], b_->getInt64(0));
      const int64_t last = in_shape.dimensions(d) - 1;
      in[d] = b_->CreateSelect(b_->CreateICmpSLT(low, b_->getInt64(last)), low, b_->getInt64(last));
    }
    ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(hlo->operand(0), in));
    ASSIGN_OR_RETURN(llvm::Value * p, EmitElement(hlo->operand(1), {}));
    return b_->CreateSelect(inside, v, p);
  }
  llvm::Function* fn = b_->GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b_->getContext();
  llvm::BasicBlock* in_bb = llvm::BasicBlock::Create(ctx, "pad.operand", fn);
  llvm::BasicBlock* out_bb = llvm::BasicBlock::Create(ctx, "pad.value", fn);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx, "pad.merge", fn);
  b_->CreateCondBr(inside, in_bb, out_bb);
  b_->SetInsertPoint(in_bb);
  ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(hlo->operand(0), in));
  llvm::BasicBlock* v_end = b_->GetInsertBlock();
  b_->CreateBr(merge);
  b_->SetInsertPoint(out_bb);
  ASSIGN_OR_RETURN(llvm::Value * p, EmitElement(hlo->operand(1), {}));
  llvm::BasicBlock* p_end = b_->GetInsertBlock();
  b_->CreateBr(merge);
  b_->SetInsertPoint(merge);
  llvm::PHINode* phi = b_->CreatePHI(v->getType(), 2);
  phi->addIncoming(v, v_end);
  phi->addIncoming(p, p_end);
  return phi;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitGatherElement(const HloInstruction* hlo, const IrIndex& index) {
  const HloInstruction* operand = hlo->operand(0);
  const HloInstruction* indices = hlo->operand(1);
  const Shape& in_shape = operand->shape();
  const Shape& idx_shape = indices->shape();
  const GatherDimensionNumbers& dnums = hlo->attributes().gather_dimension_numbers();
  const auto& slice_sizes = hlo->attributes().gather_slice_sizes();
  const PrimitiveType idx_type = idx_shape.element_type();
  const int64_t ivd = dnums.index_vector_dim();
  if (!IsInt(idx_type) || slice_sizes.size() != in_shape.rank() || ivd < 0 || ivd > idx_shape.rank()) {
    return InvalidArgument("CPU backend: %s: malformed gather", hlo->name());
  }
  // Result dimensions split into offsets within the slice (walking the
  // operand's dimensions that are neither collapsed nor batching, in order)
  // and batch coordinates into start_indices (all its dimensions but ivd).
  std::vector<bool> is_offset(hlo->shape().rank(), false);
  for (int64_t d : dnums.offset_dims()) is_offset[d] = true;
  IrIndex in(in_shape.rank(), b_->getInt64(0)), idx_index(idx_shape.rank());
  int64_t next_idx_dim = 0, next_operand_dim = 0;
  auto skipped = [&](int64_t d) {
    return absl::c_linear_search(dnums.collapsed_slice_dims(), d) ||
           absl::c_linear_search(dnums.operand_batching_dims(), d);
  };
  for (int64_t d = 0; d < hlo->shape().rank(); ++d) {
    if (is_offset[d]) {
      while (skipped(next_operand_dim)) ++next_operand_dim;
      in[next_operand_dim++] = index[d];
    } else {
      if (next_idx_dim == ivd) ++next_idx_dim;
      idx_index[next_idx_dim++] = index[d];
    }
  }
  const int64_t vector_size = ivd == idx_shape.rank() ? 1 : idx_shape.dimensions(ivd);
  for (int64_t k = 0; k < vector_size; ++k) {
    if (ivd < idx_shape.rank()) idx_index[ivd] = b_->getInt64(k);
    ASSIGN_OR_RETURN(llvm::Value * v, EmitElement(indices, idx_index));
    const int64_t d = dnums.start_index_map(k);
    in[d] = b_->CreateAdd(in[d], EmitClampedIndex(v, idx_type, in_shape.dimensions(d) - slice_sizes[d]), "", true,
                          true);
  }
  for (int i = 0; i < dnums.operand_batching_dims_size(); ++i) {
    in[dnums.operand_batching_dims(i)] = idx_index[dnums.start_indices_batching_dims(i)];
  }
  return EmitElement(operand, in);
}

}  // namespace cpu
}  // namespace xla
