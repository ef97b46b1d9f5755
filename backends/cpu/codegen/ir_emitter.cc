#include "backends/cpu/codegen/ir_emitter.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/alias_analysis.h"
#include "backends/cpu/codegen/buffer_assignment.h"
#include "backends/cpu/transforms/matmul_plan.h"
#include "backends/cpu/codegen/parallel_loop_emitter.h"
#include "backends/cpu/codegen/reduction_emitter.h"
#include "backends/cpu/codegen/row_fusion.h"
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

namespace {

constexpr int64_t kAlignment = 64;

absl::Status NotImplemented(const HloInstruction& hlo, absl::string_view what) {
  return absl::UnimplementedError(
      absl::StrCat("CPU backend: ", what, " is not implemented yet (in ", hlo.ToString(), ")"));
}

bool HasStorageOfItsOwn(const HloInstruction& hlo) {
  return hlo.opcode() == HloOpcode::kParameter || hlo.opcode() == HloOpcode::kConstant;
}

bool IsPlumbing(const HloInstruction& hlo) {
  return hlo.opcode() == HloOpcode::kTuple || hlo.opcode() == HloOpcode::kGetTupleElement;
}

// A select of whole tuples by a scalar pred is a branch between copies.
bool IsControlFlow(const HloInstruction& hlo) {
  return hlo.opcode() == HloOpcode::kWhile || hlo.opcode() == HloOpcode::kConditional ||
         hlo.opcode() == HloOpcode::kCall || (hlo.opcode() == HloOpcode::kSelect && hlo.shape().IsTuple());
}

// A variadic reduce, reduce-window or scatter: its result is a tuple with
// one array per operand.
bool IsTupleReduce(const HloInstruction& hlo) {
  return (hlo.opcode() == HloOpcode::kReduce || hlo.opcode() == HloOpcode::kReduceWindow ||
          hlo.opcode() == HloOpcode::kScatter) &&
         hlo.shape().IsTuple();
}

// Elements each element of `hlo` reads from its operands: the reduced
// elements of a reduce, the contracted ones of a dot, else 1.
int64_t InnerWork(const HloInstruction& hlo) {
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

// A rough per-element cost for the parallel runtime's block sizes: the
// output written once, each operand read once per unit of inner work.
ElementCost EstimateElementCost(const HloInstruction& hlo) {
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
const HloInstruction* RowMajorReshapeOperand(const HloInstruction& hlo) {
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
absl::Status EmitRowPrefetch(llvm::IRBuilder<>* b, llvm::Value* base, llvm::Value* row, int64_t row_bytes,
                             bool write, const std::string& name) {
  constexpr int64_t kCacheLine = 64;
  llvm::Value* row_start = b->CreateGEP(b->getInt8Ty(), base, b->CreateMul(row, b->getInt64(row_bytes)));
  return EmitForLoop(b, (row_bytes + kCacheLine - 1) / kCacheLine, name, [&](llvm::Value* line) {
    llvm::Value* address = b->CreateGEP(b->getInt8Ty(), row_start, b->CreateMul(line, b->getInt64(kCacheLine)));
    b->CreateIntrinsic(llvm::Intrinsic::prefetch, {address->getType()},
                       {address, b->getInt32(write ? 1 : 0), b->getInt32(3), b->getInt32(1)});
    return absl::OkStatus();
  });
}

void FlattenShape(const Shape& shape, std::vector<Shape>* leaves) {
  if (!shape.IsTuple()) {
    leaves->push_back(shape);
    return;
  }
  for (const Shape& s : shape.tuple_shapes()) FlattenShape(s, leaves);
}

}  // namespace

bool IrEmitter::CanUseRuntimeMatMul(const HloInstruction& hlo) const { return PlanRuntimeMatMul(hlo).has_value(); }

absl::Status IrEmitter::CheckInstruction(const HloInstruction& hlo) {
  if (IsTupleReduce(hlo)) {
    for (const Shape& s : hlo.shape().tuple_shapes()) {
      if (!s.IsArray()) return NotImplemented(hlo, absl::StrCat(HloOpcodeString(hlo.opcode()), " with a nested tuple result"));
      RETURN_IF_ERROR(CheckSupportedElementType(s.element_type(), hlo));
    }
  } else if (hlo.shape().IsTuple() && !IsPlumbing(hlo) && !IsControlFlow(hlo) &&
             hlo.opcode() != HloOpcode::kParameter) {
    return NotImplemented(hlo, absl::StrCat(HloOpcodeString(hlo.opcode()), " producing a tuple"));
  }
  if (hlo.shape().IsToken()) return NotImplemented(hlo, "token");
  if (hlo.shape().IsArray()) RETURN_IF_ERROR(CheckSupportedElementType(hlo.shape().element_type(), hlo));
  if (!IsPlumbing(hlo) && !HasStorageOfItsOwn(hlo) && !IsFusibleOpcode(hlo.opcode()) && !IsControlFlow(hlo) &&
      hlo.opcode() != HloOpcode::kReduce && hlo.opcode() != HloOpcode::kDot &&
      hlo.opcode() != HloOpcode::kConvolution && hlo.opcode() != HloOpcode::kReduceWindow &&
      hlo.opcode() != HloOpcode::kScatter && hlo.opcode() != HloOpcode::kSelectAndScatter &&
      hlo.opcode() != HloOpcode::kDynamicUpdateSlice) {
    return NotImplemented(hlo, HloOpcodeString(hlo.opcode()));
  }
  return absl::OkStatus();
}

absl::Status IrEmitter::AssignSlots(const HloComputation& computation, ResultCopies* result_copies) {
  int64_t num_param_leaves = 0;
  std::vector<ValueTree*> arena_leaves;  // offsets placed by liveness at the end
  const HloInstruction* root = computation.root_instruction();
  std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  // Instructions reachable from the root; others are not emitted.
  absl::flat_hash_set<const HloInstruction*> reachable;
  std::function<void(const HloInstruction*)> mark = [&](const HloInstruction* h) {
    if (!reachable.insert(h).second) return;
    for (const HloInstruction* o : h->operands()) mark(o);
  };
  mark(root);

  // Uses. An operand used twice by one user counts twice, except by an
  // elementwise user when the operand is small straight-line arithmetic:
  // the user reads all its operands at the same index, so the two copies it
  // generates (d in d*d, a square in a variance or an MSE loss) are one
  // value, which LLVM's CSE computes once. Straight-line: no branches or
  // loops to merge (concatenate, pad, dynamic-slice, map); small: at most
  // kMaxRepeatedSize instructions counted with repeats, so a chain of
  // squarings, whose copies double at every step, is still materialized
  // every few steps. Values never fused (parameters, dots, reduces) count
  // as one load.
  constexpr int64_t kMaxRepeatedSize = 32;
  absl::flat_hash_map<const HloInstruction*, int64_t> repeated_size;
  for (const HloInstruction* h : order) {
    int64_t size = 1;
    if (h->opcode() == HloOpcode::kConcatenate || h->opcode() == HloOpcode::kPad ||
        h->opcode() == HloOpcode::kDynamicSlice || h->opcode() == HloOpcode::kMap ||
        h->opcode() == HloOpcode::kGather) {
      size = kMaxRepeatedSize + 1;
    } else if (IsFusibleOpcode(h->opcode()) && h->opcode() != HloOpcode::kConstant) {
      for (const HloInstruction* o : h->operands()) size = std::min(size + repeated_size[o], kMaxRepeatedSize + 1);
    }
    repeated_size[h] = size;
  }
  absl::flat_hash_map<const HloInstruction*, int64_t> uses;
  for (const HloInstruction* h : order) {
    if (!reachable.contains(h)) continue;
    RETURN_IF_ERROR(CheckInstruction(*h));
    absl::flat_hash_set<const HloInstruction*> counted;
    for (const HloInstruction* o : h->operands()) {
      if (IsElementwise(h->opcode()) && repeated_size[o] <= kMaxRepeatedSize && !counted.insert(o).second) continue;
      ++uses[o];
    }
  }
  for (const HloInstruction* h : order) {
    if (!reachable.contains(h) || !h->shape().IsArray() || HasStorageOfItsOwn(*h) || IsPlumbing(*h)) continue;
    materialize_[h] = !IsFusibleOpcode(h->opcode()) || uses[h] > 1 || h == root;
  }
  for (const HloInstruction* h : order) {
    if (!reachable.contains(h)) continue;
    // Tuple elements need a buffer; dot, convolution, reduce-window and
    // scatter operands are read many times each (and by the runtime for
    // f32/f64 dots), so they are not recomputed inline.
    if (h->opcode() == HloOpcode::kTuple || h->opcode() == HloOpcode::kDot ||
        h->opcode() == HloOpcode::kConvolution || h->opcode() == HloOpcode::kReduceWindow ||
        h->opcode() == HloOpcode::kScatter || h->opcode() == HloOpcode::kSelectAndScatter || IsControlFlow(*h)) {
      for (const HloInstruction* o : h->operands()) {
        if (materialize_.contains(o)) materialize_[o] = true;
      }
    }
  }
  FindMatMulEpilogues(order, reachable);

  // Value trees. Parameters first, so their leaves are numbered in order.
  std::function<std::shared_ptr<ValueTree>(const Shape&, const HloInstruction*)> param_tree =
      [&](const Shape& shape, const HloInstruction* producer) {
        auto tree = std::make_shared<ValueTree>();
        tree->shape = shape;
        if (shape.IsTuple()) {
          tree->is_tuple = true;
          for (const Shape& s : shape.tuple_shapes()) tree->elements.push_back(param_tree(s, nullptr));
        } else {
          tree->slot = {Slot::kParam, num_param_leaves++};
          tree->producer = producer;
        }
        return tree;
      };
  for (const HloInstruction* p : computation.parameter_instructions()) {
    if (!p->shape().IsArray() && !p->shape().IsTuple()) return NotImplemented(*p, "non-array parameter");
    trees_[p] = param_tree(p->shape(), p);
  }
  for (const HloInstruction* h : order) {
    if (!reachable.contains(h) || h->opcode() == HloOpcode::kParameter) continue;
    if (h->opcode() == HloOpcode::kTuple) {
      auto tree = std::make_shared<ValueTree>();
      tree->is_tuple = true;
      tree->shape = h->shape();
      for (const HloInstruction* o : h->operands()) tree->elements.push_back(trees_.at(o));
      trees_[h] = tree;
    } else if (h->opcode() == HloOpcode::kGetTupleElement) {
      const auto& operand = trees_.at(h->operand(0));
      if (!operand->is_tuple || h->tuple_index() < 0 || h->tuple_index() >= operand->elements.size()) {
        return InvalidArgument("CPU backend: %s: bad tuple index", h->name());
      }
      trees_[h] = operand->elements[h->tuple_index()];
    } else if (IsControlFlow(*h) || IsTupleReduce(*h)) {
      // Its own arena leaves (written by the emitted control flow).
      std::function<std::shared_ptr<ValueTree>(const Shape&)> arena_tree = [&](const Shape& shape) {
        auto tree = std::make_shared<ValueTree>();
        tree->shape = shape;
        if (shape.IsTuple()) {
          tree->is_tuple = true;
          for (const Shape& s : shape.tuple_shapes()) tree->elements.push_back(arena_tree(s));
        } else {
          tree->slot = {Slot::kArena, 0};  // offset placed below
          tree->producer = h;
          arena_leaves.push_back(tree.get());
        }
        return tree;
      };
      trees_[h] = arena_tree(h->shape());
    } else {
      auto tree = std::make_shared<ValueTree>();
      tree->shape = h->shape();
      tree->producer = h;
      if (h->opcode() == HloOpcode::kConstant) tree->slot = {Slot::kGlobal, 0};
      trees_[h] = tree;
    }
  }

  // Result leaves: computed directly into the result buffer when possible.
  int64_t next_result = 0;
  absl::flat_hash_set<const ValueTree*> in_results;
  std::function<void(const std::shared_ptr<ValueTree>&, const Shape&)> assign =
      [&](const std::shared_ptr<ValueTree>& tree, const Shape& result_shape) {
        if (tree->is_tuple) {
          for (size_t i = 0; i < tree->elements.size(); ++i) assign(tree->elements[i], result_shape.tuple_shapes(i));
          return;
        }
        const int64_t leaf = next_result++;
        const HloInstruction* p = tree->producer;
        const bool pending = tree->slot.kind == Slot::kNone && p != nullptr && materialize_.contains(p) &&
                             materialize_.at(p);
        if (pending && !in_results.contains(tree.get()) && tree->shape == result_shape) {
          tree->slot = {Slot::kResult, leaf};
          in_results.insert(tree.get());
        } else {
          result_copies->copies.push_back({leaf, tree});
          result_copies->shapes.push_back(result_shape);
        }
      };
  assign(trees_.at(root), root->shape());

  // Everything else that is materialized goes into the arena.
  for (const HloInstruction* h : order) {
    if (!materialize_.contains(h) || !materialize_.at(h)) continue;
    ValueTree* tree = trees_.at(h).get();
    if (tree->slot.kind != Slot::kNone) continue;
    tree->slot = {Slot::kArena, 0};
    arena_leaves.push_back(tree);
  }
  const size_t first_group = FindComputationRowGroups(order);
  PlaceArenaLeaves(computation, order, arena_leaves, first_group);
  return absl::OkStatus();
}

void IrEmitter::FindMatMulEpilogues(const std::vector<HloInstruction*>& order,
                                    const absl::flat_hash_set<const HloInstruction*>& reachable) {
  // The one instruction using `h` (possibly as several of its operands).
  auto only_user = [&](const HloInstruction* h) -> const HloInstruction* {
    const HloInstruction* user = nullptr;
    for (const HloInstruction* u : h->users()) {
      if (!reachable.contains(u)) continue;
      if (user != nullptr && user != u) return nullptr;
      user = u;
    }
    return user;
  };
  for (const HloInstruction* dot : order) {
    // The epilogue's blocks are [row, column] ranges of one [m, n] matrix:
    // no batch, and one rhs free dimension (the result's last, the column);
    // the lhs free dimensions (e.g. [batch, sequence] of a projection) are
    // the rows.
    if (!reachable.contains(dot) || !CanUseRuntimeMatMul(*dot)) continue;
    const auto& numbers = dot->attributes().dot_dimension_numbers();
    const size_t rhs_free = DotFreeDimensions(dot->operand(1)->shape().rank(), numbers.rhs_batch_dimensions(),
                                              numbers.rhs_contracting_dimensions())
                                .size();
    if (numbers.lhs_batch_dimensions_size() != 0 || rhs_free != 1 || dot->shape().rank() < 2) continue;
    auto dot_materialized = materialize_.find(dot);
    if (dot_materialized == materialize_.end() || !dot_materialized->second) continue;
    // Up the chain of fused elementwise consumers (each used once) to the
    // materialized one. Elementwise ops of the dot's dimensions read it at
    // the index they compute, so each block can be finished on its own.
    const HloInstruction* end = only_user(dot);
    while (end != nullptr) {
      auto m = materialize_.find(end);
      if (!IsElementwise(end->opcode()) || m == materialize_.end() || !end->shape().IsArray() ||
          end->shape().dimensions() != dot->shape().dimensions()) {
        end = nullptr;
      } else if (m->second) {
        break;
      } else {
        end = only_user(end);
      }
    }
    // Written into the end's buffer: the same element type and layout.
    if (end == nullptr || end->shape() != dot->shape() || epilogue_dot_.contains(end)) continue;
    epilogue_dot_[end] = dot;
    materialize_[dot] = false;
  }
}

bool IrEmitter::IsLoopEmitted(const HloInstruction& hlo) const {
  auto it = materialize_.find(&hlo);
  return it != materialize_.end() && it->second && !CanUseRuntimeMatMul(hlo) && !epilogue_dot_.contains(&hlo) &&
         hlo.opcode() != HloOpcode::kDynamicUpdateSlice && hlo.opcode() != HloOpcode::kScatter &&
         hlo.opcode() != HloOpcode::kSelectAndScatter &&
         !KeepsMinorDimension(hlo) &&
         !ShapeUtil::HasZeroElements(hlo.shape());
}

size_t IrEmitter::FindComputationRowGroups(const std::vector<HloInstruction*>& order) {
  const size_t first_group = row_groups_.size();
  std::vector<const HloInstruction*> emitted;
  for (const HloInstruction* h : order) {
    if (!trees_.contains(h)) continue;
    const bool materialized = materialize_.contains(h) && materialize_.at(h);
    if (IsControlFlow(*h) || IsTupleReduce(*h) || materialized) emitted.push_back(h);
  }
  std::vector<RowGroup> groups = FindRowGroups(
      emitted, [this](const HloInstruction* h) { return IsLoopEmitted(*h); },
      [this](const HloInstruction* h) {
        auto it = materialize_.find(h);
        return it != materialize_.end() && !it->second;
      });
  for (RowGroup& group : groups) {
    for (const HloInstruction* m : group.members) row_group_of_[m] = row_groups_.size();
    row_groups_.push_back(std::move(group));
  }
  FindRowScratchMembers(emitted, first_group);
  return first_group;
}

void IrEmitter::FindRowScratchMembers(const std::vector<const HloInstruction*>& emitted, size_t first_group) {
  // Members read outside their group (by other emitted instructions, through
  // fused operands, or as part of the result) need their whole buffer.
  absl::flat_hash_set<const HloInstruction*> read_outside;
  std::function<void(const HloInstruction*, int64_t)> read = [&](const HloInstruction* o, int64_t group) {
    auto m = materialize_.find(o);
    // Through fused operands and tuple plumbing to the buffers read.
    if ((m != materialize_.end() && !m->second) || IsPlumbing(*o)) {
      for (const HloInstruction* oo : o->operands()) read(oo, group);
      return;
    }
    auto g = row_group_of_.find(o);
    if (g != row_group_of_.end() && static_cast<int64_t>(g->second) != group) read_outside.insert(o);
  };
  for (const HloInstruction* h : emitted) {
    auto g = row_group_of_.find(h);
    const int64_t group = g != row_group_of_.end() ? static_cast<int64_t>(g->second) : -1;
    for (const HloInstruction* o : h->operands()) read(o, group);
  }
  if (!emitted.empty()) read(emitted.front()->parent()->root_instruction(), -1);
  for (const auto& [m, group] : row_group_of_) {
    if (group < first_group) continue;  // an enclosing computation's
    const ValueTree& tree = *trees_.at(m);
    const int64_t row_bytes = ShapeUtil::ByteSizeOfElements(m->shape()) / row_groups_[group].rows;
    // Only arena values (never results, which the root reads) with small
    // rows: one row lives on the stack of the loop that computes it.
    if (tree.slot.kind == Slot::kArena && !read_outside.contains(m) && row_bytes <= kMaxRowScratchBytes) {
      row_scratch_.insert(m);
    }
  }
}

absl::Status IrEmitter::EmitRowGroup(const RowGroup& group) {
  ElementCost cost;
  cost.bytes_loaded = cost.bytes_stored = cost.cycles = 0;
  int64_t total_work = 0;
  std::string name = "rows";
  for (const HloInstruction* m : group.members) {
    const double per_row = static_cast<double>(ShapeUtil::ElementsIn(m->shape()) / group.rows);
    const ElementCost c = EstimateElementCost(*m);
    cost.bytes_loaded += c.bytes_loaded * per_row;
    cost.bytes_stored += c.bytes_stored * per_row;
    cost.cycles += c.cycles * per_row * InnerWork(*m);
    total_work += ShapeUtil::ElementsIn(m->shape()) * InnerWork(*m);
    absl::StrAppend(&name, ".", m->name());
  }
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
  absl::flat_hash_set<const HloInstruction*> members(group.members.begin(), group.members.end());
  absl::flat_hash_set<const HloInstruction*> seen;
  auto add_stream = [&](const HloInstruction* h, bool write) {
    if (!h->shape().IsArray() || h->shape().rank() == 0 || !seen.insert(h).second) return;
    if (h->shape().dimensions(RowDimension(h->shape())) != group.rows) return;
    const int64_t row_bytes = ShapeUtil::ByteSizeOfElements(h->shape()) / group.rows;
    if (row_bytes >= kMinPrefetchRowBytes && row_bytes <= kMaxPrefetchRowBytes) {
      streams.push_back({h, row_bytes, write});
    }
  };
  std::function<void(const HloInstruction*)> add_reads = [&](const HloInstruction* o) {
    auto it = materialize_.find(o);
    if (it != materialize_.end() && !it->second) {  // fused: generated inline
      for (const HloInstruction* oo : o->operands()) add_reads(oo);
    } else if (!members.contains(o)) {
      add_stream(o, /*write=*/false);
    }
  };
  for (const HloInstruction* m : group.members) {
    // Rows of a streaming result are written around the cache (non-temporal
    // stores): fetching them first would read each line from memory for
    // nothing (softmax: a third of its memory traffic).
    if (!row_scratch_.contains(m) && !IsStreamingBuffer(addresses_.at(m))) add_stream(m, /*write=*/true);
    for (const HloInstruction* o : m->operands()) add_reads(o);
  }
  // Per row, not per element: the range runs over rows.
  return EmitParallelRange(
      &b_, device_, group.rows, name, cost, total_work,
      [&](llvm::Value* begin, llvm::Value* end, const ValueRemap& remap) -> absl::Status {
        // Scratch rows: a stack array per member, in the function that runs
        // the rows (so each worker has its own).
        absl::flat_hash_map<const HloInstruction*, llvm::Value*> scratch;
        absl::flat_hash_map<const HloInstruction*, Shape> row_shapes;
        llvm::Function* fn = b_.GetInsertBlock()->getParent();
        llvm::IRBuilder<> entry_builder(&fn->getEntryBlock(), fn->getEntryBlock().begin());
        for (const HloInstruction* m : group.members) {
          if (!row_scratch_.contains(m)) continue;
          Shape row_shape = m->shape();
          (*row_shape.mutable_dimensions())[RowDimension(row_shape)] = 1;
          llvm::AllocaInst* alloca = entry_builder.CreateAlloca(
              IrStorageType(m->shape().element_type(), module_->getContext()),
              b_.getInt64(std::max<int64_t>(ShapeUtil::ElementsIn(row_shape), 1)), m->name() + ".row");
          alloca->setAlignment(llvm::Align(kAlignment));
          scratch[m] = alloca;
          row_shapes[m] = row_shape;
        }
        ElementalIrEmitter local(&b_, module_, [&](const HloInstruction* h) {
          auto it = scratch.find(h);
          return it != scratch.end() ? it->second : remap(BufferOf(h));
        });
        for (const auto& [m, row_shape] : row_shapes) local.SetRowBuffer(m, row_shape);
        return EmitForLoop(&b_, begin, end, name + ".row", [&](llvm::Value* row) -> absl::Status {
          // The next row (the last one again at the end: always in bounds).
          llvm::Value* next = b_.CreateAdd(row, b_.getInt64(1));
          next = b_.CreateSelect(b_.CreateICmpSLT(next, b_.getInt64(group.rows)), next, row);
          // Issued after the first member, which streams this row in (on
          // softmax: 1.2-1.4x faster than at the start of the row, where
          // the prefetches compete with this row's own loads).
          auto prefetch = [&](const RowStream& stream) {
            llvm::Value* base = remap(stream.write ? addresses_.at(stream.value) : BufferOf(stream.value));
            return EmitRowPrefetch(&b_, base, next, stream.row_bytes, stream.write,
                                   stream.value->name() + ".prefetch");
          };
          for (const HloInstruction* m : group.members) {
            if (m == group.members[1]) {
              for (const RowStream& stream : streams) RETURN_IF_ERROR(prefetch(stream));
            }
            const bool in_scratch = scratch.contains(m);
            // As in EmitInstruction, a reshape that moves no element loops
            // over its operand's indices (when its rows are the operand's).
            const HloInstruction* reshaped = in_scratch ? nullptr : RowMajorReshapeOperand(*m);
            if (reshaped != nullptr && reshaped->shape().dimensions(RowDimension(reshaped->shape())) != group.rows) {
              reshaped = nullptr;
            }
            const ElementLoop loop(*m, reshaped, local);
            const Shape& shape = in_scratch ? row_shapes.at(m) : loop.looped->shape();
            const int64_t row_dim = RowDimension(loop.looped->shape());
            // Every dimension but the rows' (major ones of size 1 loop once).
            std::vector<int64_t> inner;
            for (int64_t d : shape.layout().minor_to_major()) {
              if (d != row_dim) inner.push_back(d);
            }
            llvm::Value* out = in_scratch ? scratch.at(m) : remap(addresses_.at(m));
            RETURN_IF_ERROR(EmitLoopNest(&b_, shape.dimensions(), inner, m->name(), loop.pieces,
                                         [&](const IrIndex& inner_index, int64_t piece) -> absl::Status {
                                           IrIndex index = inner_index;
                                           index[row_dim] = row;
                                           ASSIGN_OR_RETURN(llvm::Value * v, loop.Element(local, index, piece));
                                           local.StoreElement(v, out, shape, index);
                                           return absl::OkStatus();
                                         }));
          }
          return absl::OkStatus();
        });
      });
}

void IrEmitter::PlaceArenaLeaves(const HloComputation& computation, const std::vector<HloInstruction*>& order,
                                 std::vector<ValueTree*> arena_leaves, size_t first_group) {
  // Row-scratch members live on the stack of their group's loop.
  arena_leaves.erase(std::remove_if(arena_leaves.begin(), arena_leaves.end(),
                                    [&](ValueTree* leaf) {
                                      if (leaf->producer == nullptr || !row_scratch_.contains(leaf->producer)) {
                                        return false;
                                      }
                                      leaf->slot = {};
                                      return true;
                                    }),
                     arena_leaves.end());
  // Steps: instructions in emission order; the result copies come last.
  absl::flat_hash_map<const HloInstruction*, int64_t> step;
  for (size_t i = 0; i < order.size(); ++i) step[order[i]] = static_cast<int64_t>(i);
  const int64_t last_step = static_cast<int64_t>(order.size());
  // A row group's members interleave: each is defined when the group starts
  // and reads until it ends.
  absl::flat_hash_map<const HloInstruction*, int64_t> def_step, read_step;
  for (size_t g = first_group; g < row_groups_.size(); ++g) {
    const RowGroup& group = row_groups_[g];
    for (const HloInstruction* m : group.members) {
      def_step[m] = step.at(group.members.front());
      read_step[m] = step.at(group.members.back());
    }
  }
  auto defined_at = [&](const HloInstruction* h) {
    auto it = def_step.find(h);
    return it != def_step.end() ? it->second : step.at(h);
  };
  auto reads_at = [&](const HloInstruction* h) {
    auto it = read_step.find(h);
    return it != read_step.end() ? it->second : step.at(h);
  };
  absl::flat_hash_map<const ValueTree*, int64_t> last_read;
  std::function<void(const ValueTree&, int64_t)> read_tree = [&](const ValueTree& tree, int64_t at) {
    if (tree.is_tuple) {
      for (const auto& e : tree.elements) read_tree(*e, at);
      return;
    }
    int64_t& end = last_read[&tree];
    end = std::max(end, at);
  };
  // What an emitted instruction reads: its operands' buffers, looking
  // through operands fused into its loop.
  std::function<void(const HloInstruction*, int64_t)> read = [&](const HloInstruction* o, int64_t at) {
    auto m = materialize_.find(o);
    if (m != materialize_.end() && !m->second) {
      for (const HloInstruction* oo : o->operands()) read(oo, at);
      return;
    }
    if (auto t = trees_.find(o); t != trees_.end()) read_tree(*t->second, at);
  };
  for (const HloInstruction* h : order) {
    if (!trees_.contains(h)) continue;
    const bool emitted = IsControlFlow(*h) || IsTupleReduce(*h) || (materialize_.contains(h) && materialize_.at(h));
    if (!emitted) continue;
    for (const HloInstruction* o : h->operands()) read(o, reads_at(h));
  }
  read_tree(*trees_.at(computation.root_instruction()), last_step);

  std::vector<BufferInterval> intervals;
  for (const ValueTree* leaf : arena_leaves) {
    BufferInterval interval;
    interval.start = leaf->producer != nullptr ? defined_at(leaf->producer) : 0;
    interval.end = std::max(interval.start, last_read.contains(leaf) ? last_read.at(leaf) : interval.start);
    interval.bytes = ShapeUtil::ByteSizeOfElements(leaf->shape);
    intervals.push_back(interval);
  }
  const ArenaLayout layout = AssignArenaOffsets(intervals, kAlignment);
  // Nested computations, emitted later, are placed above this one's peak.
  const int64_t base = arena_bytes_;
  arena_bytes_ = base + layout.peak_bytes;
  absl::StrAppend(&buffer_assignment_, "computation ", computation.name(), ": arena [", base, ", ", arena_bytes_,
                  "), ", layout.peak_bytes, " bytes for ", intervals.size(), " buffers of ", layout.total_bytes,
                  " bytes\n");
  for (size_t i = 0; i < arena_leaves.size(); ++i) {
    ValueTree* leaf = arena_leaves[i];
    leaf->slot = {Slot::kArena, base + layout.offsets[i], intervals[i].bytes};
    absl::StrAppend(&buffer_assignment_, "  ", leaf->producer != nullptr ? leaf->producer->name() : "?", " ",
                    leaf->shape.ToString(true), " ", intervals[i].bytes, " bytes at ", leaf->slot.index,
                    ", live [", intervals[i].start, ", ", intervals[i].end, "]\n");
  }
}

llvm::BasicBlock* IrEmitter::AbortBlock() {
  if (abort_block_ == nullptr) {
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    abort_block_ = llvm::BasicBlock::Create(module_->getContext(), "stopped", fn);
    llvm::IRBuilder<> builder(abort_block_);
    builder.CreateRetVoid();
  }
  return abort_block_;
}

IrEmitter::Slot IrEmitter::NewArenaSlot(int64_t bytes) {
  const int64_t reserved = (std::max<int64_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  Slot slot{Slot::kArena, arena_bytes_, reserved};
  arena_bytes_ += reserved;
  return slot;
}

absl::StatusOr<std::vector<llvm::Value*>> IrEmitter::LeafAddresses(const ValueTree& tree) {
  std::vector<llvm::Value*> out;
  if (tree.is_tuple) {
    for (const auto& e : tree.elements) {
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> sub, LeafAddresses(*e));
      out.insert(out.end(), sub.begin(), sub.end());
    }
    return out;
  }
  auto it = leaf_addresses_.find(&tree);
  if (it == leaf_addresses_.end()) return Internal("CPU backend: a control-flow operand leaf has no buffer");
  out.push_back(it->second);
  return out;
}

absl::Status IrEmitter::EmitCopy(llvm::Value* src, const Shape& src_shape, llvm::Value* dst, const Shape& dst_shape,
                                 const std::string& name) {
  ElementalIrEmitter elemental(&b_, module_, [](const HloInstruction*) { return nullptr; });
  return EmitLoopNestForShape(&b_, dst_shape, name, [&](const IrIndex& index) {
    elemental.StoreElement(elemental.LoadElement(src, src_shape, index), dst, dst_shape, index);
    return absl::OkStatus();
  });
}

llvm::Value* IrEmitter::SlotAddress(const Slot& slot, const HloInstruction* hlo) {
  switch (slot.kind) {
    case Slot::kParam:
      return param_leaves_.at(slot.index);
    case Slot::kResult:
      return result_leaves_.at(slot.index);
    case Slot::kArena: {
      llvm::Value* address = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), arena_, slot.index, hlo ? hlo->name() : "");
      MarkBufferRegion(address, BufferRegion::Arena(slot.index, slot.index + slot.bytes));
      return address;
    }
    case Slot::kGlobal: {
      const Literal& literal = hlo->literal();
      llvm::Type* elem = IrStorageType(literal.element_type(), module_->getContext());
      int64_t n = literal.element_count();
      if (primitive_util::IsComplexType(literal.element_type())) {
        // Constant data arrays hold scalars: complex as interleaved parts.
        elem = elem->getStructElementType(0);
        n *= 2;
      }
      llvm::Constant* init = llvm::ConstantDataArray::getRaw(
          llvm::StringRef(static_cast<const char*>(literal.untyped_data()), literal.size_bytes()), n, elem);
      auto* global = new llvm::GlobalVariable(*module_, init->getType(), /*isConstant=*/true,
                                              llvm::GlobalValue::PrivateLinkage, init, hlo->name());
      global->setAlignment(llvm::Align(kAlignment));
      global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
      return global;
    }
    case Slot::kNone:
      return nullptr;
  }
  return nullptr;
}

llvm::Value* IrEmitter::BufferOf(const HloInstruction* hlo) {
  auto it = addresses_.find(hlo);
  if (it == addresses_.end()) return nullptr;
  // Constants with one element are immediates.
  if (hlo->opcode() == HloOpcode::kConstant && ShapeUtil::ElementsIn(hlo->shape()) == 1) return nullptr;
  return it->second;
}

absl::Status IrEmitter::EmitRuntimeMatMul(const HloInstruction& dot, const HloInstruction* epilogue) {
  const std::optional<MatMulPlan> plan = PlanRuntimeMatMul(dot);
  if (!plan.has_value()) return Internal("CPU backend: %s: not a runtime matmul", dot.name());
  const int64_t m = plan->m, n = plan->n, k = plan->k, batch = plan->batch;
  const bool transpose_lhs = plan->transpose_lhs, transpose_rhs = plan->transpose_rhs;
  const bool f32 = dot.shape().element_type() == F32;
  llvm::Type* elem = f32 ? b_.getFloatTy() : b_.getDoubleTy();
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::FunctionCallee matmul = module_->getOrInsertFunction(
      f32 ? "__xla_cpu_runtime_MatMulF32" : "__xla_cpu_runtime_MatMulF64",
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, ptr, ptr, i64, i64, i64, i32, i32, ptr, ptr}, false));
  llvm::Value* device = device_ != nullptr ? device_ : llvm::ConstantPointerNull::get(b_.getPtrTy());
  llvm::Value* out = addresses_.at(epilogue != nullptr ? epilogue : &dot);
  llvm::Value* a = addresses_.at(dot.operand(0));
  llvm::Value* bm = addresses_.at(dot.operand(1));
  llvm::Value* epilogue_fn = llvm::ConstantPointerNull::get(b_.getPtrTy());
  llvm::Value* epilogue_context = llvm::ConstantPointerNull::get(b_.getPtrTy());
  if (epilogue != nullptr) {
    // epilogue(captured, out, row_begin, row_end, col_begin, col_end): the
    // epilogue's expression over the block, the dot's values read from the
    // block itself (each element is read before it is overwritten).
    const std::string name = epilogue->name() + ".epilogue";
    ASSIGN_OR_RETURN(
        OutlinedFunction fn,
        EmitOutlinedFunction(
            &b_, name, {ptr, i64, i64, i64, i64},
            [&](llvm::Function* function, const ValueRemap& remap) -> absl::Status {
              function->addParamAttr(1, llvm::Attribute::NoAlias);  // the only access to its buffer
              llvm::Value* block = function->getArg(1);
              ElementalIrEmitter local(&b_, module_, [&](const HloInstruction* h) {
                return h == &dot ? block : remap(BufferOf(h));
              });
              const std::vector<int64_t>& dims = epilogue->shape().dimensions();
              return EmitForLoop(&b_, function->getArg(2), function->getArg(3), name + ".row", [&](llvm::Value* row) {
                // The row's index in the leading (lhs free) dimensions, row-major.
                IrIndex index(dims.size());
                llvm::Value* rest = row;
                for (size_t d = dims.size() - 1; d-- > 0;) {
                  index[d] = d == 0 ? rest : b_.CreateURem(rest, b_.getInt64(dims[d]));
                  if (d > 0) rest = b_.CreateUDiv(rest, b_.getInt64(dims[d]));
                }
                return EmitForLoop(&b_, function->getArg(4), function->getArg(5), name + ".col",
                                   [&](llvm::Value* col) -> absl::Status {
                                     index.back() = col;
                                     ASSIGN_OR_RETURN(llvm::Value * v, local.GenerateElement(epilogue, index));
                                     local.StoreElement(v, block, epilogue->shape(), index);
                                     return absl::OkStatus();
                                   });
              });
            }));
    epilogue_fn = fn.function;
    epilogue_context = fn.captured;
  }
  return EmitForLoop(&b_, batch, dot.name() + ".batch", [&](llvm::Value* i) {
    auto at = [&](llvm::Value* base, int64_t size) {
      return b_.CreateInBoundsGEP(elem, base, {b_.CreateMul(i, b_.getInt64(size))});
    };
    b_.CreateCall(matmul, {device, at(out, m * n), at(a, m * k), at(bm, k * n), b_.getInt64(m), b_.getInt64(n),
                           b_.getInt64(k), b_.getInt32(transpose_lhs), b_.getInt32(transpose_rhs), epilogue_fn,
                           epilogue_context});
    return absl::OkStatus();
  });
}

absl::Status IrEmitter::EmitInstruction(const HloInstruction& hlo, ElementalIrEmitter& elemental) {
  if (ShapeUtil::HasZeroElements(hlo.shape())) return absl::OkStatus();
  if (auto it = epilogue_dot_.find(&hlo); it != epilogue_dot_.end()) return EmitRuntimeMatMul(*it->second, &hlo);
  if (CanUseRuntimeMatMul(hlo)) return EmitRuntimeMatMul(hlo);
  if (hlo.opcode() == HloOpcode::kDynamicUpdateSlice) return EmitDynamicUpdateSlice(hlo, elemental);
  if (hlo.opcode() == HloOpcode::kScatter) return EmitScatter(hlo);
  if (hlo.opcode() == HloOpcode::kSelectAndScatter) return EmitSelectAndScatter(hlo);
  llvm::Value* out = addresses_.at(&hlo);
  if (KeepsMinorDimension(hlo)) {
    return EmitMinorKeepingReduce(&b_, module_, device_, threads_, hlo, out,
                                  [this](const HloInstruction* h) { return BufferOf(h); });
  }
  ElementalIrEmitter probe(&b_, module_, [this](const HloInstruction* h) { return BufferOf(h); });
  const ElementLoop loop(hlo, RowMajorReshapeOperand(hlo), probe);
  return EmitParallelLoopNest(
      &b_, device_, loop.looped->shape(), hlo.name(), EstimateElementCost(hlo), InnerWork(hlo), loop.pieces,
      [&](const IrIndex& index, int64_t piece, const ValueRemap& remap) -> absl::Status {
        // Buffers are read through `remap`: the loop may be outlined.
        ElementalIrEmitter local(&b_, module_, [&](const HloInstruction* h) { return remap(BufferOf(h)); });
        ASSIGN_OR_RETURN(llvm::Value * v, loop.Element(local, index, piece));
        local.StoreElement(v, remap(out), loop.looped->shape(), index);
        return absl::OkStatus();
      });
}

absl::Status IrEmitter::EmitVariadicReduce(const HloInstruction& hlo) {
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> out, LeafAddresses(*trees_.at(&hlo)));
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
  return EmitParallelLoopNest(
      &b_, device_, first, hlo.name(), cost, inner_work,
      [&](const IrIndex& index, const ValueRemap& remap) -> absl::Status {
        // Buffers are read through `remap`: the loop may be outlined.
        ElementalIrEmitter local(&b_, module_, [&](const HloInstruction* h) { return remap(BufferOf(h)); });
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> v, window ? local.EmitVariadicReduceWindowElement(&hlo, index)
                                                             : local.EmitVariadicReduceElement(&hlo, index));
        if (v.size() != out.size()) return Internal("CPU backend: %s: reducer arity mismatch", hlo.name());
        for (size_t i = 0; i < out.size(); ++i) {
          local.StoreElement(local.RoundToType(shapes[i].element_type(), v[i]), remap(out[i]), shapes[i], index);
        }
        return absl::OkStatus();
      });
}

absl::Status IrEmitter::EmitDynamicUpdateSlice(const HloInstruction& hlo, ElementalIrEmitter& elemental) {
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
  llvm::Value* out = addresses_.at(&hlo);
  // The operand, then the update window over it (the output buffer is never
  // the operand's: it is a fresh arena or result slot).
  RETURN_IF_ERROR(EmitLoopNestForShape(&b_, shape, hlo.name() + ".copy", [&](const IrIndex& index) -> absl::Status {
    ASSIGN_OR_RETURN(llvm::Value * v, elemental.EmitElement(operand, index));
    elemental.StoreElement(v, out, shape, index);
    return absl::OkStatus();
  }));
  if (ShapeUtil::HasZeroElements(update->shape())) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts,
                   elemental.EmitClampedStarts(hlo, 2, shape, update->shape().dimensions()));
  return EmitLoopNestForShape(&b_, update->shape(), hlo.name() + ".update",
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

absl::Status IrEmitter::EmitScatter(const HloInstruction& hlo) {
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
  std::vector<llvm::Value*> out;
  if (hlo.shape().IsTuple()) {
    ASSIGN_OR_RETURN(out, LeafAddresses(*trees_.at(&hlo)));
  } else {
    out.push_back(addresses_.at(&hlo));
  }
  if (static_cast<int64_t>(out.size()) != n) return Internal("CPU backend: %s: bad scatter leaves", hlo.name());
  // The operands first (the output buffers are never the operands').
  for (int64_t i = 0; i < n; ++i) {
    const Shape& result = result_shape(i);
    const HloInstruction* operand = hlo.operand(i);
    RETURN_IF_ERROR(EmitParallelLoopNest(
        &b_, device_, result, absl::StrCat(hlo.name(), ".copy", i), EstimateElementCost(*operand), 1,
        [&](const IrIndex& index, const ValueRemap& remap) -> absl::Status {
          ElementalIrEmitter local(&b_, module_, [&](const HloInstruction* h) { return remap(BufferOf(h)); });
          ASSIGN_OR_RETURN(llvm::Value * v, local.EmitElement(operand, index));
          local.StoreElement(v, remap(out[i]), result, index);
          return absl::OkStatus();
        }));
  }
  if (ShapeUtil::HasZeroElements(up)) return absl::OkStatus();
  const ShapeInference::ScatterUpdateDimensions map = ShapeInference::MapScatterUpdateDimensions(dnums, up.rank());
  const std::vector<int64_t>& window_operand_dim = map.operand_dim;
  const std::vector<int64_t>& scatter_index_dim = map.index_dim;
  const int64_t vector_size = ivd == idx.rank() ? 1 : idx.dimensions(ivd);
  const bool signed_index = primitive_util::IsSignedIntegralType(idx.element_type());
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
  const int64_t bands = threads_ > 1 && updates >= kMinParallelWork ? std::min<int64_t>(threads_, band_extent) : 1;
  ElementCost band_cost;
  band_cost.bytes_loaded = static_cast<double>(updates) * 2 * primitive_util::ByteWidth(up.element_type()) / bands;
  band_cost.bytes_stored = static_cast<double>(updates) * primitive_util::ByteWidth(up.element_type()) / bands;
  band_cost.cycles = static_cast<double>(updates) * 4;
  return EmitParallelRange(
      &b_, device_, bands, hlo.name() + ".update", band_cost, bands > 1 ? updates * bands : 0,
      [&](llvm::Value* begin, llvm::Value* end, const ValueRemap& remap) -> absl::Status {
        ElementalIrEmitter local(&b_, module_, [&](const HloInstruction* h) { return remap(BufferOf(h)); });
        std::vector<llvm::Value*> outs;
        for (int64_t i = 0; i < n; ++i) outs.push_back(remap(out[i]));
        // This call's rows of the band dimension: [begin, end) * extent / bands.
        auto band_bound = [&](llvm::Value* item) {
          return b_.CreateUDiv(b_.CreateMul(item, b_.getInt64(band_extent)), b_.getInt64(bands));
        };
        llvm::Value* band_lo = band_bound(begin);
        llvm::Value* band_hi = band_bound(end);
        return EmitLoopNest(
            &b_, std::vector<int64_t>(up.dimensions().begin(), up.dimensions().end()), row_major,
            hlo.name() + ".update", [&](const IrIndex& u) -> absl::Status {
              IrIndex target(shape.rank(), b_.getInt64(0)), idx_index(idx.rank());
              for (int64_t d = 0; d < up.rank(); ++d) {
                if (window_operand_dim[d] >= 0) {
                  target[window_operand_dim[d]] = u[d];
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
                target[d] = b_.CreateAdd(target[d], v);
              }
              for (int i = 0; i < dnums.input_batching_dims_size(); ++i) {
                const int64_t d = dnums.input_batching_dims(i);
                target[d] = b_.CreateAdd(target[d], idx_index[dnums.scatter_indices_batching_dims(i)]);
              }
              llvm::Value* valid = b_.getTrue();
              for (int64_t d = 0; d < shape.rank(); ++d) {
                valid = b_.CreateAnd(valid, b_.CreateICmpULT(target[d], b_.getInt64(shape.dimensions(d))));
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

absl::Status IrEmitter::EmitSelectAndScatter(const HloInstruction& hlo) {
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
  llvm::Value* out = addresses_.at(&hlo);
  const int64_t type_bytes = primitive_util::ByteWidth(shape.element_type());
  ElementCost init_cost;
  init_cost.bytes_loaded = 0;
  init_cost.bytes_stored = static_cast<double>(type_bytes);
  RETURN_IF_ERROR(EmitParallelLoopNest(&b_, device_, shape, hlo.name() + ".init", init_cost, 1,
                                       [&](const IrIndex& index, const ValueRemap& remap) -> absl::Status {
                                         ElementalIrEmitter local(&b_, module_, [&](const HloInstruction* h) {
                                           return remap(BufferOf(h));
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
  return EmitParallelRange(
      &b_, device_, items, hlo.name() + ".source", item_cost, source_elements * window_elements,
      [&](llvm::Value* begin, llvm::Value* end, const ValueRemap& remap) -> absl::Status {
        // Buffers are read through `remap`: the range may be outlined.
        ElementalIrEmitter elemental(&b_, module_, [&](const HloInstruction* h) { return remap(BufferOf(h)); });
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
              EmitLoopNest(&b_, sizes, row_major, hlo.name() + ".window", [&](const IrIndex& k) -> absl::Status {
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
        if (split < 0) return EmitLoopNest(&b_, source_dims, row_major, hlo.name() + ".source", select_and_scatter);
        std::vector<int64_t> others;
        for (int64_t d : row_major) {
          if (d != split) others.push_back(d);
        }
        return EmitForLoop(&b_, begin, end, hlo.name() + ".split", [&](llvm::Value* i) {
          return EmitLoopNest(&b_, source_dims, others, hlo.name() + ".source", [&](const IrIndex& inner) {
            IrIndex s = inner;
            s[split] = i;
            return select_and_scatter(s);
          });
        });
      });
}

absl::Status IrEmitter::EmitEntryFunction(const HloComputation& computation, const std::string& name) {
  llvm::LLVMContext& ctx = module_->getContext();
  llvm::Type* ptr = b_.getPtrTy();
  auto* fn_type = llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, ptr, ptr, ptr}, false);
  llvm::Function* fn = llvm::Function::Create(fn_type, llvm::GlobalValue::ExternalLinkage, name, module_);
  fn->setDoesNotThrow();
  for (int i = 0; i < 3; ++i) fn->addParamAttr(i, llvm::Attribute::NoAlias);
  if (threads_ > 1) {
    device_ = fn->getArg(3);
    device_->setName("device");
  }
  control_ = fn->getArg(4);
  control_->setName("control");
  params_ = fn->getArg(0);
  results_ = fn->getArg(1);
  arena_ = fn->getArg(2);
  params_->setName("params");
  results_->setName("results");
  arena_->setName("arena");
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::vector<Shape> param_shapes, result_shapes;
  for (const HloInstruction* p : computation.parameter_instructions()) FlattenShape(p->shape(), &param_shapes);
  FlattenShape(computation.root_instruction()->shape(), &result_shapes);
  std::vector<llvm::Value*> params, results;
  // Every leaf buffer is a HostMemoryPool block of its own: 64-byte aligned.
  llvm::MDNode* aligned = llvm::MDNode::get(
      module_->getContext(), {llvm::ConstantAsMetadata::get(b_.getInt64(HostMemoryPool::kAlignment))});
  for (size_t i = 0; i < param_shapes.size(); ++i) {
    auto* load = b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, params_, i), absl::StrCat("param", i));
    load->setMetadata(llvm::LLVMContext::MD_align, aligned);
    params.push_back(load);
    MarkBufferRegion(params.back(), BufferRegion::Param(i));
  }
  for (size_t i = 0; i < result_shapes.size(); ++i) {
    auto* load = b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, results_, i), absl::StrCat("result", i));
    load->setMetadata(llvm::LLVMContext::MD_align, aligned);
    results.push_back(load);
    MarkBufferRegion(results.back(), BufferRegion::Result(i));
    if (ShapeUtil::ByteSizeOfElements(result_shapes[i]) >= kMinStreamingResultBytes) MarkStreamingBuffer(load);
  }
  RETURN_IF_ERROR(EmitComputation(computation, std::move(params), std::move(results)));
  b_.CreateRetVoid();
  AttachAliasScopes(*module_);
  return absl::OkStatus();
}

absl::Status IrEmitter::EmitComputation(const HloComputation& computation, std::vector<llvm::Value*> params,
                                        std::vector<llvm::Value*> results) {
  std::vector<llvm::Value*> saved_params = std::move(param_leaves_), saved_results = std::move(result_leaves_);
  param_leaves_ = std::move(params);
  result_leaves_ = std::move(results);
  std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  // A computation emitted again (e.g. shared by two whiles) starts afresh.
  std::function<void(const ValueTree&)> forget = [&](const ValueTree& tree) {
    leaf_addresses_.erase(&tree);
    for (const auto& e : tree.elements) forget(*e);
  };
  for (const HloInstruction* h : order) {
    if (auto it = trees_.find(h); it != trees_.end()) forget(*it->second);
    trees_.erase(h);
    materialize_.erase(h);
    epilogue_dot_.erase(h);
    addresses_.erase(h);
    row_group_of_.erase(h);
    row_scratch_.erase(h);
  }
  ResultCopies result_copies;
  RETURN_IF_ERROR(AssignSlots(computation, &result_copies));

  // Base addresses of every array value, once, before the loops.
  for (const HloInstruction* h : order) {
    auto it = trees_.find(h);
    if (it == trees_.end() || it->second->is_tuple) continue;
    if (llvm::Value* address = SlotAddress(it->second->slot, h)) addresses_[h] = address;
  }
  // Leaves reached through get-tuple-element (of parameters or of control
  // flow) share the address of the leaf.
  std::function<void(const ValueTree&)> leaves = [&](const ValueTree& tree) {
    if (tree.is_tuple) {
      for (const auto& e : tree.elements) leaves(*e);
    } else if (tree.slot.kind != Slot::kNone && !leaf_addresses_.contains(&tree)) {
      leaf_addresses_[&tree] = SlotAddress(tree.slot, tree.producer);
    }
  };
  for (const HloInstruction* h : order) {
    auto it = trees_.find(h);
    if (it == trees_.end()) continue;
    const ValueTree* tree = it->second.get();
    if (!tree->is_tuple && addresses_.contains(h)) {
      leaf_addresses_.emplace(tree, addresses_.at(h));
    } else {
      leaves(*tree);
    }
    if (!tree->is_tuple && !addresses_.contains(h) && leaf_addresses_.contains(tree)) {
      addresses_[h] = leaf_addresses_.at(tree);
    }
  }

  ElementalIrEmitter elemental(&b_, module_, [this](const HloInstruction* h) { return BufferOf(h); });
  const int64_t emitted_loops = absl::c_count_if(order, [&](const HloInstruction* h) {
    auto it = materialize_.find(h);
    return it != materialize_.end() && it->second;
  });
  ScopedOutlineAllRanges outline(emitted_loops > kMaxInlineLoops);
  for (const HloInstruction* h : order) {
    if (!trees_.contains(h)) continue;  // unreachable
    if (IsControlFlow(*h)) {
      RETURN_IF_ERROR(EmitControlFlow(*h));
      continue;
    }
    if (IsTupleReduce(*h)) {
      RETURN_IF_ERROR(h->opcode() == HloOpcode::kScatter ? EmitScatter(*h) : EmitVariadicReduce(*h));
      continue;
    }
    auto it = materialize_.find(h);
    if (it == materialize_.end() || !it->second) continue;
    if (auto group = row_group_of_.find(h); group != row_group_of_.end()) {
      // The whole group is emitted at its first member.
      const RowGroup& row_group = row_groups_[group->second];
      if (row_group.members.front() == h) RETURN_IF_ERROR(EmitRowGroup(row_group));
      continue;
    }
    RETURN_IF_ERROR(EmitInstruction(*h, elemental));
  }
  // Result leaves held elsewhere (parameters, constants, repeated values).
  for (size_t i = 0; i < result_copies.copies.size(); ++i) {
    const auto& [leaf, tree] = result_copies.copies[i];
    auto src = leaf_addresses_.find(tree.get());
    if (src == leaf_addresses_.end()) return Internal("CPU backend: result leaf %d has no buffer", leaf);
    RETURN_IF_ERROR(EmitCopy(src->second, tree->shape, result_leaves_.at(leaf), result_copies.shapes[i],
                             absl::StrCat("copy", leaf)));
  }
  param_leaves_ = std::move(saved_params);
  result_leaves_ = std::move(saved_results);
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace xla
