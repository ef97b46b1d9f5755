// Instructions that update a copy of an operand in place: dynamic-update-
// slice, scatter (in the evaluator's order; large ones in bands) and
// select-and-scatter (parallel along dimensions its windows do not span).
#include "backends/cpu/codegen/scatter_emitter.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/alias_analysis.h"
#include "backends/cpu/codegen/buffer_assignment.h"
#include "backends/cpu/codegen/ir_emitter_internal.h"
#include "backends/cpu/transforms/matmul_plan.h"
#include "backends/cpu/codegen/parallel_loop_emitter.h"
#include "backends/cpu/codegen/reduction_emitter.h"
#include "backends/cpu/transforms/row_fusion.h"
#include "backends/cpu/codegen/streaming_stores.h"
#include "backends/host_memory_pool.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Intrinsics.h"
#include "xla/primitive_util.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

using namespace ir_emitter_internal;  // NOLINT: the emitter's own helpers

absl::Status ScatterEmitter::EmitDynamicUpdateSlice(const HloInstruction& hlo, ElementalIrEmitter& elemental) {
  const HloInstruction* operand = hlo.operand(0);
  const HloInstruction* update = hlo.operand(1);
  const Shape& shape = hlo.shape();
  if (!update->shape().IsArray() || update->shape().rank() != shape.rank() ||
      update->shape().element_type() != shape.element_type() || operand->shape().dimensions() != shape.dimensions()) {
    return InvalidArgument("CPU backend: %s: bad dynamic-update-slice shapes", hlo.name());
  }
  for (int d = 0; d < shape.rank(); ++d) {
    if (update->shape().dimensions(d) > shape.dimensions(d)) {
      return InvalidArgument("CPU backend: %s: update does not fit the operand", hlo.name());
    }
  }
  ASSIGN_OR_RETURN(llvm::Value * out, buffers_.AddressOf(&hlo));
  // The operand, then the update window over it (the output buffer is never
  // the operand's: it is a fresh arena or result slot).
  RETURN_IF_ERROR(EmitLoopNestForShape(ctx_, shape, hlo.name() + ".copy", [&](const IrIndex& index) -> absl::Status {
    ASSIGN_OR_RETURN(llvm::Value * v, elemental.EmitElement(operand, index));
    elemental.StoreElement(v, out, shape, index);
    return absl::OkStatus();
  }));
  if (ShapeUtil::HasZeroElements(update->shape())) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts,
                   elemental.EmitClampedStarts(hlo, 2, shape, update->shape().dimensions()));
  return EmitLoopNestForShape(ctx_, update->shape(), hlo.name() + ".update",
                              [&](const IrIndex& index) -> absl::Status {
                                ASSIGN_OR_RETURN(llvm::Value * v, elemental.EmitElement(update, index));
                                IrIndex at(index.size());
                                for (size_t d = 0; d < index.size(); ++d) {
                                  at[d] = b_.CreateAdd(index[d], starts[d], "", true, true);
                                }
                                elemental.StoreElement(v, out, shape, at);
                                return absl::OkStatus();
                              });
}

absl::StatusOr<std::vector<llvm::Value*>> ScatterEmitter::CopyOperandsIntoResults(const HloInstruction& hlo,
                                                                                 int64_t n) {
  std::vector<llvm::Value*> out;
  if (hlo.shape().IsTuple()) {
    ASSIGN_OR_RETURN(out, buffers_.LeafAddressesOf(&hlo));
  } else {
    ASSIGN_OR_RETURN(llvm::Value * only, buffers_.AddressOf(&hlo));
    out.push_back(only);
  }
  if (static_cast<int64_t>(out.size()) != n) return Internal("CPU backend: %s: bad result leaves", hlo.name());
  for (int64_t i = 0; i < n; ++i) {
    const Shape& result = hlo.shape().IsTuple() ? hlo.shape().tuple_shapes(i) : hlo.shape();
    const HloInstruction* operand = hlo.operand(i);
    RETURN_IF_ERROR(EmitParallelLoopNest(ctx_, result, absl::StrCat(hlo.name(), ".copy", i), EstimateElementCost(*operand), 1,
        [&](const IrIndex& index, const ValueRemap& remap) -> absl::Status {
          ElementalIrEmitter local(ctx_, [&](const HloInstruction* h) { return remap(buffers_.BufferOf(h)); });
          ASSIGN_OR_RETURN(llvm::Value * v, local.EmitElement(operand, index));
          local.StoreElement(v, remap(out[i]), result, index);
          return absl::OkStatus();
        }));
  }
  return out;
}

absl::Status ScatterEmitter::EmitScatter(const HloInstruction& hlo) {
  const int64_t n = hlo.operand_count() / 2;
  const HloInstruction* indices = hlo.operand(n);
  const Shape& idx = indices->shape();
  const Shape& up = hlo.operand(n + 1)->shape();
  const Shape& shape = hlo.operand(0)->shape();
  // Result i's shape, with the layout its buffer has.
  auto result_shape = [&hlo](int64_t i) -> const Shape& {
    return hlo.shape().IsTuple() ? hlo.shape().tuple_shapes(i) : hlo.shape();
  };
  const ScatterDimensionNumbers& dnums = hlo.attributes().scatter_dimension_numbers();
  const int64_t ivd = dnums.index_vector_dim();
  if (n < 1 || hlo.operand_count() != 2 * n + 1 || !idx.IsArray() || !up.IsArray() || ivd < 0 || ivd > idx.rank()) {
    return InvalidArgument("CPU backend: %s: malformed scatter", hlo.name());
  }
  // The operands first (the output buffers are never the operands').
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> out, CopyOperandsIntoResults(hlo, n));
  if (ShapeUtil::HasZeroElements(up)) return absl::OkStatus();
  const ShapeInference::ScatterUpdateDimensions map = ShapeInference::MapScatterUpdateDimensions(dnums, up.rank());
  const std::vector<int64_t>& window_operand_dim = map.operand_dim;
  const std::vector<int64_t>& scatter_index_dim = map.index_dim;
  const int64_t vector_size = ivd == idx.rank() ? 1 : idx.dimensions(ivd);
  const bool signed_index = primitive_util::IsSignedIntegralType(idx.element_type());
  // An update window even partly outside the operand is skipped whole (XLA's
  // semantics, as the evaluator): its start must lie in [0, dim - extent].
  std::vector<int64_t> window_size(shape.rank(), 1);
  for (int64_t d = 0; d < up.rank(); ++d) {
    if (window_operand_dim[d] >= 0) window_size[window_operand_dim[d]] = up.dimensions(d);
  }
  // Updates are applied in row-major order, so colliding updates combine in
  // the evaluator's order. Large scatters run on the pool in bands of the
  // operand's major dimension: each worker goes through all updates and
  // applies those whose target is in its band, so every operand element is
  // still updated by one thread, in that order. The bands' dimension is the
  // most-major one with more than one row (MajorRangeLevel).
  std::vector<int64_t> row_major(up.rank());
  for (int64_t d = 0; d < up.rank(); ++d) row_major[d] = up.rank() - 1 - d;
  const int64_t updates = ShapeUtil::ElementsIn(up);
  const int64_t band_dim =
      shape.rank() > 0 ? result_shape(0).layout().minor_to_major(MajorRangeLevel(result_shape(0))) : -1;
  const int64_t band_extent = band_dim >= 0 ? shape.dimensions(band_dim) : 1;
  const int64_t bands = ctx_.threads > 1 && updates >= kMinParallelWork ? std::min<int64_t>(ctx_.threads, band_extent) : 1;
  ElementCost band_cost;
  band_cost.bytes_loaded = static_cast<double>(updates) * 2 * primitive_util::ByteWidth(up.element_type()) / bands;
  band_cost.bytes_stored = static_cast<double>(updates) * primitive_util::ByteWidth(up.element_type()) / bands;
  band_cost.cycles = static_cast<double>(updates) * 4;
  return EmitParallelRange(ctx_, bands, hlo.name() + ".update", band_cost, bands > 1 ? updates * bands : 0,
      [&](llvm::Value* begin, llvm::Value* end, const ValueRemap& remap) -> absl::Status {
        ElementalIrEmitter local(ctx_, [&](const HloInstruction* h) { return remap(buffers_.BufferOf(h)); });
        std::vector<llvm::Value*> outs;
        for (int64_t i = 0; i < n; ++i) outs.push_back(remap(out[i]));
        // This call's rows of the band dimension: [begin, end) * extent / bands.
        auto band_bound = [&](llvm::Value* item) {
          return b_.CreateUDiv(b_.CreateMul(item, b_.getInt64(band_extent)), b_.getInt64(bands));
        };
        llvm::Value* band_lo = band_bound(begin);
        llvm::Value* band_hi = band_bound(end);
        return EmitLoopNest(
            ctx_, std::vector<int64_t>(up.dimensions().begin(), up.dimensions().end()), row_major,
            hlo.name() + ".update", [&](const IrIndex& u) -> absl::Status {
              IrIndex start(shape.rank(), b_.getInt64(0)), offset(shape.rank(), b_.getInt64(0));
              IrIndex idx_index(idx.rank());
              for (int64_t d = 0; d < up.rank(); ++d) {
                if (window_operand_dim[d] >= 0) {
                  offset[window_operand_dim[d]] = u[d];
                } else {
                  idx_index[scatter_index_dim[d]] = u[d];
                }
              }
              // Start indices bounded to +-2^62 (anything that far is
              // invalid) so the sums cannot wrap into range; u64 above
              // INT64_MAX reads as far.
              constexpr int64_t kFar = int64_t{1} << 62;
              for (int64_t k = 0; k < vector_size; ++k) {
                if (ivd < idx.rank()) idx_index[ivd] = b_.getInt64(k);
                ASSIGN_OR_RETURN(llvm::Value * v, local.EmitElement(indices, idx_index));
                v = b_.CreateIntCast(v, b_.getInt64Ty(), signed_index);
                if (idx.element_type() == U64) {
                  v = b_.CreateSelect(b_.CreateICmpSLT(v, b_.getInt64(0)), b_.getInt64(kFar), v);
                }
                v = b_.CreateSelect(b_.CreateICmpSGT(v, b_.getInt64(kFar)), b_.getInt64(kFar), v);
                v = b_.CreateSelect(b_.CreateICmpSLT(v, b_.getInt64(-kFar)), b_.getInt64(-kFar), v);
                const int64_t d = dnums.scatter_dims_to_operand_dims(k);
                start[d] = b_.CreateAdd(start[d], v);
              }
              for (int i = 0; i < dnums.input_batching_dims_size(); ++i) {
                const int64_t d = dnums.input_batching_dims(i);
                start[d] = b_.CreateAdd(start[d], idx_index[dnums.scatter_indices_batching_dims(i)]);
              }
              llvm::Value* valid = b_.getTrue();
              IrIndex target(shape.rank());
              for (int64_t d = 0; d < shape.rank(); ++d) {
                const int64_t last_start = shape.dimensions(d) - window_size[d];
                // Unsigned: a negative start is far out too.
                valid = last_start < 0 ? b_.getFalse()
                                       : b_.CreateAnd(valid, b_.CreateICmpULE(start[d], b_.getInt64(last_start)));
                target[d] = b_.CreateAdd(start[d], offset[d]);
              }
              if (band_dim >= 0) {
                // In range, so unsigned compares against the band's bounds.
                valid = b_.CreateAnd(valid, b_.CreateICmpUGE(target[band_dim], band_lo));
                valid = b_.CreateAnd(valid, b_.CreateICmpULT(target[band_dim], band_hi));
              }
              llvm::Function* fn = b_.GetInsertBlock()->getParent();
              llvm::BasicBlock* apply = llvm::BasicBlock::Create(b_.getContext(), "scatter.apply", fn);
              llvm::BasicBlock* next = llvm::BasicBlock::Create(b_.getContext(), "scatter.next", fn);
              b_.CreateCondBr(valid, apply, next);
              b_.SetInsertPoint(apply);
              std::vector<llvm::Value*> args(2 * n);
              for (int64_t i = 0; i < n; ++i) {
                args[i] = local.LoadElement(outs[i], result_shape(i), target);
                ASSIGN_OR_RETURN(args[n + i], local.EmitElement(hlo.operand(n + 1 + i), u));
              }
              ASSIGN_OR_RETURN(std::vector<llvm::Value*> combined,
                               local.EmitScalarComputationValues(*hlo.to_apply(), args, /*reassociate=*/false));
              if (static_cast<int64_t>(combined.size()) != n) {
                return Internal("CPU backend: %s: update computation arity mismatch", hlo.name());
              }
              for (int64_t i = 0; i < n; ++i) {
                const Shape& result = result_shape(i);
                local.StoreElement(local.RoundToType(result.element_type(), combined[i]), outs[i], result, target);
              }
              b_.CreateBr(next);
              b_.SetInsertPoint(next);
              return absl::OkStatus();
            });
      });
}

absl::Status ScatterEmitter::EmitSelectAndScatter(const HloInstruction& hlo) {
  const HloInstruction* operand = hlo.operand(0);
  const HloInstruction* source = hlo.operand(1);
  const Shape& shape = hlo.shape();
  const Shape& in = operand->shape();
  const auto& called = hlo.called_computations();
  const Window& window = hlo.attributes().window();
  if (hlo.operand_count() != 3 || called.size() != 2 || window.dimensions_size() != in.rank() ||
      source->shape().rank() != in.rank()) {
    return InvalidArgument("CPU backend: %s: malformed select-and-scatter", hlo.name());
  }
  ASSIGN_OR_RETURN(llvm::Value * out, buffers_.AddressOf(&hlo));
  const int64_t type_bytes = primitive_util::ByteWidth(shape.element_type());
  ElementCost init_cost;
  init_cost.bytes_loaded = 0;
  init_cost.bytes_stored = static_cast<double>(type_bytes);
  RETURN_IF_ERROR(EmitParallelLoopNest(ctx_, shape, hlo.name() + ".init", init_cost, 1,
                                       [&](const IrIndex& index, const ValueRemap& remap) -> absl::Status {
                                         ElementalIrEmitter local(ctx_, [&](const HloInstruction* h) {
                                           return remap(buffers_.BufferOf(h));
                                         });
                                         ASSIGN_OR_RETURN(llvm::Value * init, local.EmitElement(hlo.operand(2), {}));
                                         local.StoreElement(init, remap(out), shape, index);
                                         return absl::OkStatus();
                                       }));
  if (ShapeUtil::HasZeroElements(source->shape()) || ShapeUtil::HasZeroElements(in)) return absl::OkStatus();
  const int64_t rank = in.rank();
  std::vector<int64_t> sizes(rank), row_major(rank);
  int64_t window_elements = 1;
  for (int64_t d = 0; d < rank; ++d) {
    sizes[d] = window.dimensions(d).size();
    row_major[d] = rank - 1 - d;
    window_elements *= sizes[d];
  }
  // A dimension along which windows are single positions that do not move
  // off the source's index (size 1, stride 1, no padding: a pooling's batch
  // or feature dimension): source elements of different indices there
  // select and update different output elements, so those indices run in
  // parallel, each one's updates still in row-major order.
  int64_t split = -1;
  for (int64_t d = 0; d < rank && split < 0; ++d) {
    const WindowDimension& w = window.dimensions(d);
    if (w.size() == 1 && w.stride() == 1 && w.padding_low() == 0 && w.padding_high() == 0 &&
        source->shape().dimensions(d) == in.dimensions(d) && in.dimensions(d) >= 2) {
      split = d;
    }
  }
  const int64_t items = split >= 0 ? in.dimensions(split) : 1;
  const int64_t source_elements = ShapeUtil::ElementsIn(source->shape());
  ElementCost item_cost;  // per index of the split dimension
  item_cost.bytes_loaded = static_cast<double>(source_elements / items) * (window_elements + 2) * type_bytes;
  item_cost.bytes_stored = static_cast<double>(source_elements / items) * type_bytes;
  item_cost.cycles = static_cast<double>(source_elements / items) * window_elements * 4;
  std::vector<int64_t> source_dims(source->shape().dimensions().begin(), source->shape().dimensions().end());
  return EmitParallelRange(ctx_, items, hlo.name() + ".source", item_cost, source_elements * window_elements,
      [&](llvm::Value* begin, llvm::Value* end, const ValueRemap& remap) -> absl::Status {
        // Buffers are read through `remap`: the range may be outlined.
        ElementalIrEmitter elemental(ctx_, [&](const HloInstruction* h) { return remap(buffers_.BufferOf(h)); });
        llvm::Value* out_base = remap(out);
        ASSIGN_OR_RETURN(llvm::Value * init, elemental.EmitElement(hlo.operand(2), {}));
        // The selection: whether there is one, its value and its index (in
        // the function running the range, so each worker has its own).
        llvm::Type* value_type = init->getType();
        llvm::Function* function = b_.GetInsertBlock()->getParent();
        llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
        llvm::AllocaInst* has = entry.CreateAlloca(b_.getInt1Ty(), nullptr, "sel.has");
        llvm::AllocaInst* value = entry.CreateAlloca(value_type, nullptr, "sel.value");
        std::vector<llvm::AllocaInst*> at(rank);
        for (int64_t d = 0; d < rank; ++d) at[d] = entry.CreateAlloca(b_.getInt64Ty(), nullptr, "sel.at");
        auto select_and_scatter = [&](const IrIndex& s) -> absl::Status {
          b_.CreateStore(b_.getFalse(), has);
          b_.CreateStore(init, value);
          for (int64_t d = 0; d < rank; ++d) b_.CreateStore(b_.getInt64(0), at[d]);
          // The first position inside the operand is selected, then each
          // later one for which select(selected, candidate) is false.
          RETURN_IF_ERROR(
              EmitLoopNest(ctx_, sizes, row_major, hlo.name() + ".window", [&](const IrIndex& k) -> absl::Status {
                llvm::Value* inside = b_.getTrue();
                IrIndex pos(rank);
                for (int64_t d = 0; d < rank; ++d) {
                  const WindowDimension& w = window.dimensions(d);
                  pos[d] = b_.CreateSub(b_.CreateAdd(b_.CreateMul(s[d], b_.getInt64(w.stride())), k[d]),
                                        b_.getInt64(w.padding_low()));
                  inside = b_.CreateAnd(inside, b_.CreateICmpULT(pos[d], b_.getInt64(in.dimensions(d))));
                }
                llvm::Function* fn = b_.GetInsertBlock()->getParent();
                llvm::BasicBlock* consider = llvm::BasicBlock::Create(b_.getContext(), "sel.consider", fn);
                llvm::BasicBlock* next = llvm::BasicBlock::Create(b_.getContext(), "sel.next", fn);
                b_.CreateCondBr(inside, consider, next);
                b_.SetInsertPoint(consider);
                ASSIGN_OR_RETURN(llvm::Value * candidate, elemental.EmitElement(operand, pos));
                llvm::Value* current = b_.CreateLoad(value_type, value);
                ASSIGN_OR_RETURN(llvm::Value * keep, elemental.EmitScalarComputation(*called[0], {current, candidate},
                                                                                   /*reassociate=*/false));
                llvm::Value* had = b_.CreateLoad(b_.getInt1Ty(), has);
                llvm::Value* take = b_.CreateOr(b_.CreateNot(had), b_.CreateNot(keep));
                b_.CreateStore(b_.CreateSelect(take, candidate, current), value);
                for (int64_t d = 0; d < rank; ++d) {
                  b_.CreateStore(b_.CreateSelect(take, pos[d], b_.CreateLoad(b_.getInt64Ty(), at[d])), at[d]);
                }
                b_.CreateStore(b_.getTrue(), has);
                b_.CreateBr(next);
                b_.SetInsertPoint(next);
                return absl::OkStatus();
              }));
          llvm::Function* fn = b_.GetInsertBlock()->getParent();
          llvm::BasicBlock* apply = llvm::BasicBlock::Create(b_.getContext(), "sel.apply", fn);
          llvm::BasicBlock* done = llvm::BasicBlock::Create(b_.getContext(), "sel.done", fn);
          b_.CreateCondBr(b_.CreateLoad(b_.getInt1Ty(), has), apply, done);
          b_.SetInsertPoint(apply);
          IrIndex target(rank);
          for (int64_t d = 0; d < rank; ++d) target[d] = b_.CreateLoad(b_.getInt64Ty(), at[d]);
          llvm::Value* old_value = elemental.LoadElement(out_base, shape, target);
          ASSIGN_OR_RETURN(llvm::Value * update, elemental.EmitElement(source, s));
          ASSIGN_OR_RETURN(llvm::Value * combined, elemental.EmitScalarComputation(*called[1], {old_value, update},
                                                                                 /*reassociate=*/false));
          elemental.StoreElement(elemental.RoundToType(shape.element_type(), combined), out_base, shape, target);
          b_.CreateBr(done);
          b_.SetInsertPoint(done);
          return absl::OkStatus();
        };
        // Source elements in row-major order (the evaluator's order for
        // scatters into the same element), the split dimension's indices
        // [begin, end) outermost.
        if (split < 0) return EmitLoopNest(ctx_, source_dims, row_major, hlo.name() + ".source", select_and_scatter);
        std::vector<int64_t> others;
        for (int64_t d : row_major) {
          if (d != split) others.push_back(d);
        }
        return EmitForLoop(ctx_, begin, end, hlo.name() + ".split", [&](llvm::Value* i) {
          return EmitLoopNest(ctx_, source_dims, others, hlo.name() + ".source", [&](const IrIndex& inner) {
            IrIndex s = inner;
            s[split] = i;
            return select_and_scatter(s);
          });
        });
      });
}

}  // namespace cpu
}  // namespace xla
