// IrEmitter's decisions on where values live: which instructions are
// materialized (get a buffer) and which are generated inline in their
// users' loops (fused), which dots take an elementwise epilogue, which
// materialized loops form row groups, and the arena offsets of the
// materialized values (buffer_assignment.h). These are the decisions the
// cpu_fusion pass and a BufferAssignment of their own are to take over.
#include "backends/cpu/codegen/ir_emitter.h"

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

using namespace ir_emitter_internal;  // NOLINT: the emitter's own helpers

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
  // Control flow (an array-valued conditional, say) writes its buffer from
  // its computations, never in a loop over its shape: it may not join a row
  // group (it would lose its buffer to one row of scratch).
  return it != materialize_.end() && it->second && !IsControlFlow(hlo) && !CanUseRuntimeMatMul(hlo) &&
         !epilogue_dot_.contains(&hlo) &&
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

}  // namespace cpu
}  // namespace xla
