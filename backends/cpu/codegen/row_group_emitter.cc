// IrEmitter::EmitRowGroup: one loop over the rows a row group's members
// share (row_fusion.h), computing each member's row in turn, with row
// scratch on the stack and prefetches of the streamed rows.
#include "backends/cpu/codegen/ir_emitter.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/alias_analysis.h"
#include "backends/cpu/codegen/buffer_assignment.h"
#include "backends/cpu/transforms/cpu_fusion.h"
#include "backends/cpu/codegen/ir_emitter_internal.h"
#include "backends/cpu/codegen/module_partition.h"
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

namespace {

// Where a row group's members split into chunks emitted as functions of
// their own (EmitRowGroup): the start of each chunk and the end, {0,
// members} for one chunk. Only when parts of the module are compiled on
// several threads, and only a group too long to be balanced against the
// rest of its computation (`computation_weight`, CodeWeight summed over
// what it emits): a chain of 100 ops was one 16-member group and a few
// loops, its part twice the others' compile time. Chunks are small enough
// to spread over the parts.
std::vector<size_t> RowGroupChunks(const std::vector<const HloInstruction*>& members, int threads,
                                   int64_t computation_weight) {
  constexpr int64_t kMinChunkedWeight = 64;
  constexpr int64_t kMinChunkWeight = 12;
  std::vector<int64_t> weights;
  int64_t total = 0;
  for (const HloInstruction* m : members) {
    weights.push_back(CodeWeight(*m));
    total += weights.back();
  }
  if (threads < 2 || total < kMinChunkedWeight || total * 2 * threads < computation_weight) {
    return {0, members.size()};
  }
  const int64_t chunk_weight = std::max<int64_t>(kMinChunkWeight, computation_weight / (2 * threads));
  std::vector<size_t> starts = {0};
  int64_t in_chunk = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    if (in_chunk >= chunk_weight) {
      starts.push_back(i);
      in_chunk = 0;
    }
    in_chunk += weights[i];
  }
  starts.push_back(members.size());
  return starts;
}

}  // namespace

absl::Status IrEmitter::EmitRowGroup(const HloInstruction& fusion) {
  const std::vector<const HloInstruction*> members = RowGroupMembers(fusion);
  if (members.size() < 2 || !members.front()->shape().IsArray() || members.front()->shape().rank() == 0) {
    return Internal("CPU backend: %s: a row group needs two or more array members", fusion.name());
  }
  const int64_t rows = members.front()->shape().dimensions(RowDimension(members.front()->shape()));
  // What each member computes: its fused root (emitted into the member's
  // buffer), or the member itself.
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> computed;
  for (const HloInstruction* m : members) {
    const HloInstruction* root = m->opcode() == HloOpcode::kFusion ? m->called_computations().front()->root_instruction() : m;
    computed[m] = root;
    if (!root->shape().IsArray() || root->shape().rank() == 0 ||
        root->shape().dimensions(RowDimension(root->shape())) != rows) {
      return Internal("CPU backend: %s: member %s does not have the group's %d rows", fusion.name(), m->name(), rows);
    }
    if (auto it = addresses_.find(m); it != addresses_.end()) {
      llvm::Value* address = it->second;  // (inserting may move the map's elements)
      addresses_[root] = address;
    }
  }
  ElementCost cost;
  cost.bytes_loaded = cost.bytes_stored = cost.cycles = 0;
  int64_t total_work = 0;
  std::string name = "rows";
  for (const HloInstruction* m : members) {
    const HloInstruction& root = *computed.at(m);
    const double per_row = static_cast<double>(ShapeUtil::ElementsIn(root.shape()) / rows);
    const ElementCost c = EstimateElementCost(root);
    cost.bytes_loaded += c.bytes_loaded * per_row;
    cost.bytes_stored += c.bytes_stored * per_row;
    cost.cycles += c.cycles * per_row * InnerWork(root);
    total_work += ShapeUtil::ElementsIn(root.shape()) * InnerWork(root);
    absl::StrAppend(&name, ".", root.name());
  }
  auto in_scratch = [&](const HloInstruction* m) { return trees_.at(m)->slot.kind == Slot::kRowScratch; };
  // Buffers streamed row by row: the members' own buffers (written) and the
  // buffers their fused expressions read whose layout-major dimension has
  // the group's extent (read, presumably row by row). Each row starts a new
  // short stream, and a row's compute keeps the next row's loads out of the
  // out-of-order window, so the next row is prefetched while this one is
  // computed.
  struct RowStream {
    const HloInstruction* value;
    int64_t row_bytes;
    bool write;
  };
  std::vector<RowStream> streams;
  const absl::flat_hash_set<const HloInstruction*> member_set(members.begin(), members.end());
  absl::flat_hash_set<const HloInstruction*> seen;
  auto add_stream = [&](const HloInstruction* h, bool write) {
    if (!h->shape().IsArray() || h->shape().rank() == 0 || !seen.insert(h).second) return;
    if (h->shape().dimensions(RowDimension(h->shape())) != rows) return;
    const int64_t row_bytes = ShapeUtil::ByteSizeOfElements(h->shape()) / rows;
    if (row_bytes >= kMinPrefetchRowBytes && row_bytes <= kMaxPrefetchRowBytes) {
      streams.push_back({h, row_bytes, write});
    }
  };
  std::function<void(const HloInstruction*)> add_reads = [&](const HloInstruction* o) {
    o = Resolve(o);
    if (member_set.contains(o)) return;
    if (!addresses_.contains(o)) {  // fused: generated inline
      for (const HloInstruction* oo : o->operands()) add_reads(oo);
    } else {
      add_stream(o, /*write=*/false);
    }
  };
  for (const HloInstruction* m : members) {
    // Rows of a streaming result are written around the cache (non-temporal
    // stores): fetching them first would read each line from memory for
    // nothing (softmax: a third of its memory traffic).
    if (!in_scratch(m) && !IsStreamingBuffer(addresses_.at(m))) add_stream(m, /*write=*/true);
    for (const HloInstruction* o : computed.at(m)->operands()) add_reads(o);
  }
  // Per row, not per element: the range runs over rows.
  return EmitParallelRange(ctx_, rows, name, cost, total_work,
      [&](llvm::Value* begin, llvm::Value* end, const ValueRemap& remap) -> absl::Status {
        const std::vector<size_t> chunk_starts = RowGroupChunks(members, ctx_.threads, ctx_.computation_code_weight);
        // Scratch rows: a stack array per member, in the function that runs
        // the rows (so each worker has its own).
        absl::flat_hash_map<const HloInstruction*, llvm::Value*> scratch;
        absl::flat_hash_map<const HloInstruction*, Shape> row_shapes;
        llvm::Function* fn = b_.GetInsertBlock()->getParent();
        llvm::IRBuilder<> entry_builder(&fn->getEntryBlock(), fn->getEntryBlock().begin());
        for (const HloInstruction* m : members) {
          if (!in_scratch(m)) continue;
          Shape row_shape = m->shape();
          (*row_shape.mutable_dimensions())[RowDimension(row_shape)] = 1;
          llvm::AllocaInst* alloca = entry_builder.CreateAlloca(
              IrStorageType(m->shape().element_type(), module_->getContext()),
              b_.getInt64(std::max<int64_t>(ShapeUtil::ElementsIn(row_shape), 1)), computed.at(m)->name() + ".row");
          alloca->setAlignment(llvm::Align(kAlignment));
          // Its own region when chunks (below) see it through pointers;
          // otherwise LLVM knows the alloca, and the module's regions stay
          // few (alias_analysis.cc attaches none past kMaxRegions).
          if (chunk_starts.size() > 2) {
            MarkBufferRegion(alloca, BufferRegion::RowScratch(ctx_.row_scratch_regions++));
          }
          scratch[m] = alloca;
          row_shapes[m] = row_shape;
        }
        // Members [first, last) for row `row`, reading buffers and scratch
        // through `chunk_remap` (the identity unless they are a chunk's).
        auto emit_members = [&](size_t first, size_t last, llvm::Value* row,
                                const ValueRemap& chunk_remap) -> absl::Status {
          ElementalIrEmitter local(ctx_, [&](const HloInstruction* h) {
            auto it = scratch.find(Resolve(h));
            return chunk_remap(it != scratch.end() ? it->second : remap(BufferOf(h)));
          });
          // Scratch is read as one row, by the member or, inside a member's
          // fused computation, by the parameter standing for it.
          for (const HloInstruction* m : members) {
            if (m->opcode() != HloOpcode::kFusion) continue;
            for (const HloInstruction* p : m->called_computations().front()->parameter_instructions()) {
              if (auto it = row_shapes.find(Resolve(p)); it != row_shapes.end()) local.SetRowBuffer(p, it->second);
            }
          }
          for (const auto& [m, row_shape] : row_shapes) local.SetRowBuffer(m, row_shape);
          // The next row (the last one again at the end: always in bounds).
          llvm::Value* next = b_.CreateAdd(row, b_.getInt64(1));
          next = b_.CreateSelect(b_.CreateICmpSLT(next, b_.getInt64(rows)), next, row);
          // Issued after the first member, which streams this row in (on
          // softmax: 1.2-1.4x faster than at the start of the row, where
          // the prefetches compete with this row's own loads).
          auto prefetch = [&](const RowStream& stream) {
            llvm::Value* base =
                chunk_remap(remap(stream.write ? addresses_.at(stream.value) : BufferOf(stream.value)));
            return EmitRowPrefetch(ctx_, base, next, stream.row_bytes, stream.write,
                                   stream.value->name() + ".prefetch");
          };
          for (size_t i = first; i < last; ++i) {
            const HloInstruction* m = members[i];
            if (i == 1) {
              for (const RowStream& stream : streams) RETURN_IF_ERROR(prefetch(stream));
            }
            const bool to_scratch = scratch.contains(m);
            const HloInstruction& root = *computed.at(m);
            // As in EmitElementLoop, a reshape that moves no element loops
            // over its operand's indices (when its rows are the operand's).
            const HloInstruction* reshaped = to_scratch ? nullptr : RowMajorReshapeOperand(root);
            if (reshaped != nullptr && reshaped->shape().dimensions(RowDimension(reshaped->shape())) != rows) {
              reshaped = nullptr;
            }
            const ElementLoop loop(root, reshaped, local);
            const Shape& shape = to_scratch ? row_shapes.at(m) : loop.looped->shape();
            const int64_t row_dim = RowDimension(loop.looped->shape());
            // Every dimension but the rows' (major ones of size 1 loop once).
            std::vector<int64_t> inner;
            for (int64_t d : shape.layout().minor_to_major()) {
              if (d != row_dim) inner.push_back(d);
            }
            llvm::Value* out = chunk_remap(to_scratch ? scratch.at(m) : remap(addresses_.at(m)));
            RETURN_IF_ERROR(EmitLoopNest(ctx_, shape.dimensions(), inner, root.name(), loop.pieces,
                                         [&](const IrIndex& inner_index, int64_t piece) -> absl::Status {
                                           IrIndex index = inner_index;
                                           index[row_dim] = row;
                                           ASSIGN_OR_RETURN(llvm::Value * v, loop.Element(local, index, piece));
                                           local.StoreElement(v, out, shape, index);
                                           return absl::OkStatus();
                                         }));
          }
          return absl::OkStatus();
        };
        // A long group's row in chunks of members, each chunk a function
        // that may be compiled in another module part, on another thread
        // (module_partition.h): made before the row loop, so that their
        // captured arrays are filled once, not per row.
        std::vector<OutlinedFunction> chunks;
        for (size_t c = 0; chunk_starts.size() > 2 && c + 1 < chunk_starts.size(); ++c) {
          ASSIGN_OR_RETURN(OutlinedFunction chunk,
                           EmitOutlinedFunction(ctx_, absl::StrCat(name, ".chunk", c), {b_.getInt64Ty()},
                                                [&](llvm::Function* chunk_fn, const ValueRemap& chunk_remap) {
                                                  // Before it is compared with twins (kernel_sharing.h).
                                                  chunk_fn->addFnAttr(kSeparablePartAttribute);
                                                  chunk_fn->addFnAttr(llvm::Attribute::NoInline);
                                                  return emit_members(chunk_starts[c], chunk_starts[c + 1],
                                                                      chunk_fn->getArg(1), chunk_remap);
                                                }));
          chunks.push_back(chunk);
        }
        const ValueRemap identity = [](llvm::Value* v) { return v; };
        return EmitForLoop(ctx_, begin, end, name + ".row", [&](llvm::Value* row) -> absl::Status {
          if (chunks.empty()) return emit_members(0, members.size(), row, identity);
          // The chunks' loops run inside this one: an outer loop to
          // EmitForLoop (a stop check per row, no vectorizer hints).
          ++ctx_.loops_emitted;
          for (const OutlinedFunction& chunk : chunks) b_.CreateCall(chunk.function, {chunk.captured, row});
          return absl::OkStatus();
        });
      });
}

}  // namespace cpu
}  // namespace xla
