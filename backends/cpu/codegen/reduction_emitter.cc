#include "backends/cpu/codegen/reduction_emitter.h"

#include <algorithm>
#include <vector>

#include "backends/cpu/codegen/ir_emitter_internal.h"
#include "backends/cpu/codegen/loop_emitter.h"
#include "backends/cpu/codegen/parallel_loop_emitter.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

namespace {

// Output bytes of one tile: updated once per reduced index, so kept in L2.
constexpr int64_t kTileBytes = 64 * 1024;
// Output bytes of the smallest share of work a thread gets.
constexpr int64_t kMinChunkBytes = 1024;

}  // namespace

absl::Status ReductionEmitter::EmitMinorKeepingReduce(const HloInstruction& hlo) {
  EmitContext& context = ctx_;
  llvm::IRBuilder<>* b = context.b;
  const int threads = context.threads;
  ASSIGN_OR_RETURN(llvm::Value * out, buffers_.AddressOf(&hlo));
  if (!KeepsMinorDimension(hlo)) {
    return Internal("CPU backend: %s is not a reduce keeping the minor dimension", hlo.name());
  }
  const HloInstruction* operand = hlo.operand(0);
  const Shape& in_shape = operand->shape();
  const Shape& shape = hlo.shape();
  const PrimitiveType type = shape.element_type();
  std::vector<bool> reduced(in_shape.rank(), false);
  for (int64_t d : hlo.dimensions()) {
    if (d < 0 || d >= in_shape.rank()) return InvalidArgument("CPU backend: %s: bad reduce dimension", hlo.name());
    reduced[d] = true;
  }
  std::vector<int64_t> red_sizes, kept_dims;
  int64_t red_count = 1;
  for (int d = 0; d < in_shape.rank(); ++d) {
    if (reduced[d]) {
      red_sizes.push_back(in_shape.dimensions(d));
      red_count *= in_shape.dimensions(d);
    } else {
      kept_dims.push_back(d);
    }
  }
  if (static_cast<int64_t>(kept_dims.size()) != shape.rank()) {
    return InvalidArgument("CPU backend: %s: reduce result rank does not match", hlo.name());
  }
  // Row-major order over the reduced dimensions, as the evaluator folds.
  std::vector<int64_t> red_order(red_sizes.size());
  for (size_t i = 0; i < red_order.size(); ++i) red_order[i] = red_order.size() - 1 - i;

  const std::vector<int64_t>& dims = shape.dimensions();
  const auto& minor_to_major = shape.layout().minor_to_major();
  // Rows of the most-major dimension of more than one row (a batch of one
  // is skipped); the major ones before it have index 0.
  const int outer_level = MajorRangeLevel(shape);
  const int64_t outer_dim = minor_to_major[outer_level];
  const int64_t outer_count = dims[outer_dim];
  const std::vector<int64_t> inner_minor_to_major(minor_to_major.begin(), minor_to_major.begin() + outer_level);
  const int64_t elements = ShapeUtil::ElementsIn(shape);
  const int64_t row_elements = outer_count > 0 ? elements / outer_count : 0;
  const int64_t out_bytes = primitive_util::ByteWidth(type);
  const int64_t in_bytes = primitive_util::ByteWidth(in_shape.element_type());
  // Rows of the outermost dimension per tile.
  const int64_t tile_rows = std::max<int64_t>(1, kTileBytes / std::max<int64_t>(row_elements * out_bytes, 1));

  // The parallel split gives each worker one contiguous share of the output
  // rows (at least kMinChunkBytes): each reduced index then reads runs that
  // long, which the hardware prefetcher streams well (many short runs at a
  // large stride halved the bandwidth).
  const int64_t row_bytes = std::max<int64_t>(row_elements * out_bytes, 1);
  const int64_t chunk_rows = std::min<int64_t>(
      std::max<int64_t>(outer_count, 1),
      std::max<int64_t>({int64_t{1}, (outer_count + threads - 1) / std::max(threads, 1),
                         kMinChunkBytes / row_bytes}));
  const int64_t chunks = outer_count > 0 ? (outer_count + chunk_rows - 1) / chunk_rows : 0;
  ElementCost chunk_cost;  // per chunk of rows of the outermost output dimension
  chunk_cost.bytes_loaded = static_cast<double>(chunk_rows * row_elements * red_count * in_bytes);
  chunk_cost.bytes_stored = static_cast<double>(chunk_rows * row_elements * out_bytes);
  chunk_cost.cycles = static_cast<double>(chunk_rows * row_elements * std::max<int64_t>(red_count, 1));

  // Loops over the output rows [begin, end), inner dimensions in layout order.
  auto for_each_element = [&](llvm::Value* begin, llvm::Value* end, const std::string& name,
                              const std::function<absl::Status(const IrIndex&)>& body) {
    return EmitForLoop(context, begin, end, name + ".outer", [&](llvm::Value* row) {
      return EmitLoopNest(context, dims, inner_minor_to_major, name, [&](const IrIndex& inner) {
        IrIndex index = inner;
        for (int level = outer_level + 1; level < shape.rank(); ++level) index[minor_to_major[level]] = b->getInt64(0);
        index[outer_dim] = row;
        return body(index);
      });
    });
  };

  return EmitParallelRange(
      context, chunks, hlo.name(), chunk_cost, elements * std::max<int64_t>(red_count, 1),
      [&](llvm::Value* first_chunk, llvm::Value* end_chunk, const ValueRemap& remap) -> absl::Status {
        llvm::Value* begin = b->CreateMul(first_chunk, b->getInt64(chunk_rows), "", true, true);
        llvm::Value* end = b->CreateBinaryIntrinsic(
            llvm::Intrinsic::smin, b->CreateMul(end_chunk, b->getInt64(chunk_rows), "", true, true),
            b->getInt64(outer_count));
        // Buffers are read through `remap`: the range may be outlined.
        ElementalIrEmitter elemental(context, [&](const HloInstruction* h) { return remap(buffers_.BufferOf(h)); });
        llvm::Value* out_base = remap(out);
        ASSIGN_OR_RETURN(llvm::Value * init, elemental.EmitElement(hlo.operand(1), {}));
        init = elemental.RoundToType(type, init);
        // One tile of rows [lo, hi): fill, then fold every reduced index in.
        auto emit_tile = [&](llvm::Value* lo, llvm::Value* hi) -> absl::Status {
          RETURN_IF_ERROR(for_each_element(lo, hi, hlo.name() + ".init", [&](const IrIndex& index) {
            elemental.StoreElement(init, out_base, shape, index);
            return absl::OkStatus();
          }));
          return EmitLoopNest(context, red_sizes, red_order, hlo.name() + ".reduced", [&](const IrIndex& red) {
            return for_each_element(lo, hi, hlo.name() + ".kept", [&](const IrIndex& index) -> absl::Status {
              IrIndex full(in_shape.rank());
              size_t kept = 0, r = 0;
              for (int d = 0; d < in_shape.rank(); ++d) full[d] = reduced[d] ? red[r++] : index[kept++];
              ASSIGN_OR_RETURN(llvm::Value * x, elemental.EmitElement(operand, full));
              llvm::Value* acc = elemental.LoadElement(out_base, shape, index);
              ASSIGN_OR_RETURN(llvm::Value * v,
                               elemental.EmitScalarComputation(*hlo.to_apply(), {acc, x}, /*reassociate=*/false));
              // As GenerateElement rounds the register value: exact in memory.
              elemental.StoreElement(elemental.RoundToType(type, v), out_base, shape, index);
              return absl::OkStatus();
            });
          });
        };
        if (tile_rows >= outer_count) return emit_tile(begin, end);
        llvm::Value* tiles = b->CreateUDiv(b->CreateAdd(b->CreateSub(end, begin), b->getInt64(tile_rows - 1)),
                                           b->getInt64(tile_rows));
        return EmitForLoop(context, b->getInt64(0), tiles, hlo.name() + ".tile", [&](llvm::Value* tile) {
          llvm::Value* lo = b->CreateAdd(begin, b->CreateMul(tile, b->getInt64(tile_rows), "", true, true), "", true,
                                         true);
          llvm::Value* hi = b->CreateBinaryIntrinsic(llvm::Intrinsic::smin,
                                                     b->CreateAdd(lo, b->getInt64(tile_rows), "", true, true), end);
          return emit_tile(lo, hi);
        });
      });
}

using ir_emitter_internal::InnerWork;

absl::Status ReductionEmitter::EmitVariadicReduce(const HloInstruction& hlo) {
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> out, buffers_.LeafAddressesOf(&hlo));
  const auto& shapes = hlo.shape().tuple_shapes();
  if (out.size() != shapes.size() || shapes.empty()) return Internal("CPU backend: %s: bad reduce leaves", hlo.name());
  const Shape& first = shapes[0];
  if (ShapeUtil::HasZeroElements(first)) return absl::OkStatus();
  // Per result index: every input's reduced elements read, one value of
  // each result written.
  ElementCost cost;
  cost.bytes_loaded = cost.bytes_stored = 0;
  cost.cycles = 1;
  const int64_t inputs = static_cast<int64_t>(shapes.size());
  for (int64_t i = 0; i < inputs; ++i) {
    cost.bytes_loaded += primitive_util::ByteWidth(hlo.operand(i)->shape().element_type());
    cost.bytes_stored += primitive_util::ByteWidth(shapes[i].element_type());
  }
  const bool window = hlo.opcode() == HloOpcode::kReduceWindow;
  const int64_t inner_work =
      window ? InnerWork(hlo)
             : std::max<int64_t>(
                   ShapeUtil::ElementsIn(hlo.operand(0)->shape()) / std::max<int64_t>(ShapeUtil::ElementsIn(first), 1),
                   1);
  // Loop in the first element's layout; every element has the same dims.
  return EmitParallelLoopNest(ctx_, first, hlo.name(), cost, inner_work,
      [&](const IrIndex& index, const ValueRemap& remap) -> absl::Status {
        // Buffers are read through `remap`: the loop may be outlined.
        ElementalIrEmitter local(ctx_, [&](const HloInstruction* h) { return remap(buffers_.BufferOf(h)); });
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> v, window ? local.EmitVariadicReduceWindowElement(&hlo, index)
                                                             : local.EmitVariadicReduceElement(&hlo, index));
        if (v.size() != out.size()) return Internal("CPU backend: %s: reducer arity mismatch", hlo.name());
        for (size_t i = 0; i < out.size(); ++i) {
          local.StoreElement(local.RoundToType(shapes[i].element_type(), v[i]), remap(out[i]), shapes[i], index);
        }
        return absl::OkStatus();
      });
}

}  // namespace cpu
}  // namespace xla
