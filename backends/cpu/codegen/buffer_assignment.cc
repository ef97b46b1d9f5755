#include "backends/cpu/codegen/buffer_assignment.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/input_output_alias.h"
#include "backends/cpu/codegen/arena_packing.h"
#include "backends/cpu/codegen/ir_emitter_internal.h"
#include "backends/cpu/transforms/cpu_fusion.h"
#include "backends/cpu/transforms/emission_kinds.h"
#include "backends/cpu/transforms/row_fusion.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

namespace {

using ir_emitter_internal::FlattenShape;
using ir_emitter_internal::kAlignment;

// Row-group members whose rows are at most this large live one row at a
// time on the stack when no one outside the group reads them.
constexpr int64_t kMaxRowScratchBytes = 64 * 1024;

int64_t Aligned(int64_t bytes) { return (std::max<int64_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment; }

// The temporaries control_flow_emitter.cc takes for `hlo`, in bytes
// (`operand_leaves(i)`: the leaf shapes of operand i's value).
int64_t ControlFlowScratchBytes(const HloInstruction& hlo,
                                const std::function<std::vector<Shape>(int64_t)>& operand_leaves) {
  int64_t bytes = 0;
  // Leaves in `have` layouts passed to parameter `number` of `computation`.
  auto relaid = [&](const std::vector<Shape>& have, const HloComputation& computation, int64_t number) {
    if (number >= computation.num_parameters()) return;
    std::vector<Shape> want;
    FlattenShape(computation.parameter_instruction(number)->shape(), &want);
    for (size_t j = 0; j < have.size() && j < want.size(); ++j) {
      if (!(have[j] == want[j])) bytes += Aligned(ShapeUtil::ByteSizeOfElements(want[j]));
    }
  };
  auto into_out = [&](const HloComputation& computation) {
    const Shape& root = computation.root_instruction()->shape();
    if (root == hlo.shape()) return;
    std::vector<Shape> root_leaves;
    FlattenShape(root, &root_leaves);
    for (const Shape& s : root_leaves) bytes += Aligned(ShapeUtil::ByteSizeOfElements(s));
  };
  std::vector<Shape> out;
  FlattenShape(hlo.shape(), &out);
  switch (hlo.opcode()) {
    case HloOpcode::kCall:
      for (int64_t k = 0; k < hlo.operand_count(); ++k) relaid(operand_leaves(k), *hlo.to_apply(), k);
      into_out(*hlo.to_apply());
      break;
    case HloOpcode::kWhile:
      for (const Shape& s : out) bytes += Aligned(ShapeUtil::ByteSizeOfElements(s));
      bytes += Aligned(1);  // the predicate
      relaid(out, *hlo.while_condition(), 0);
      relaid(out, *hlo.while_body(), 0);
      break;
    case HloOpcode::kConditional: {
      const auto branches = hlo.branch_computations();
      for (size_t i = 0; i < branches.size() && static_cast<int64_t>(i) + 1 < hlo.operand_count(); ++i) {
        relaid(operand_leaves(static_cast<int64_t>(i) + 1), *branches[i], 0);
        into_out(*branches[i]);
      }
      break;
    }
    default:
      break;
  }
  return bytes;
}

std::string SlotString(const BufferSlot& slot) {
  switch (slot.kind) {
    case BufferSlot::kParam:
      return absl::StrCat("parameter leaf ", slot.index);
    case BufferSlot::kResult:
      return absl::StrCat("result leaf ", slot.index);
    case BufferSlot::kArena:
      return absl::StrCat("arena [", slot.index, ", ", slot.index + slot.bytes, ")");
    case BufferSlot::kGlobal:
      return "constant";
    case BufferSlot::kRowScratch:
      return "row scratch";
    case BufferSlot::kNone:
      return "immediate";
  }
  return "?";
}

}  // namespace

std::vector<Shape> LeafShapes(const ValueTree& tree) {
  if (!tree.is_tuple) return {tree.shape};
  std::vector<Shape> shapes;
  for (const auto& e : tree.elements) {
    std::vector<Shape> sub = LeafShapes(*e);
    shapes.insert(shapes.end(), sub.begin(), sub.end());
  }
  return shapes;
}

const ComputationBuffers* BufferAssignment::ForComputation(const HloComputation& computation) const {
  auto it = by_computation_.find(&computation);
  return it == by_computation_.end() ? nullptr : it->second;
}

absl::StatusOr<std::unique_ptr<BufferAssignment>> BufferAssignment::Run(const HloModule& module) {
  auto assignment = std::unique_ptr<BufferAssignment>(new BufferAssignment());
  if (module.entry_computation() == nullptr) return InvalidArgument("CPU backend: the module has no entry");
  // Depth first from the entry: a computation's arena lies above its
  // caller's. A computation run by several instructions is assigned once
  // (no computation runs while another instance of itself is live).
  std::function<absl::Status(const HloComputation&)> assign = [&](const HloComputation& c) -> absl::Status {
    if (assignment->by_computation_.contains(&c)) return absl::OkStatus();
    RETURN_IF_ERROR(assignment->AssignComputation(c));
    for (const HloInstruction* h : c.MakeInstructionPostOrder()) {
      if (h->opcode() != HloOpcode::kWhile && h->opcode() != HloOpcode::kConditional &&
          h->opcode() != HloOpcode::kCall) {
        continue;
      }
      for (const HloComputation* called : h->called_computations()) RETURN_IF_ERROR(assign(*called));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(assign(*module.entry_computation()));
  assignment->FindInPlaceResults(module);
  return assignment;
}

namespace {

bool TreeContains(const ValueTree& tree, const ValueTree* leaf) {
  if (&tree == leaf) return true;
  for (const auto& e : tree.elements) {
    if (TreeContains(*e, leaf)) return true;
  }
  return false;
}

void CollectLeaves(const ValueTree& tree, std::vector<const ValueTree*>* leaves) {
  if (!tree.is_tuple) {
    leaves->push_back(&tree);
    return;
  }
  for (const auto& e : tree.elements) CollectLeaves(*e, leaves);
}

// Whether every value `fused` computes from its parameters `from` is
// elementwise of them (no reshape, broadcast, slice, reduction...): output
// element i then reads their elements i only.
bool OnlyElementwiseOf(const std::vector<const HloInstruction*>& from) {
  std::vector<const HloInstruction*> pending = from;
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!pending.empty()) {
    const HloInstruction* h = pending.back();
    pending.pop_back();
    for (const HloInstruction* user : h->users()) {
      if (!seen.insert(user).second) continue;
      if (!IsElementwise(user->opcode())) return false;
      pending.push_back(user);
    }
  }
  return true;
}

// Whether `hlo` (a plain instruction or a loop fusion, of the parameter's
// shape and layout `shape`) reads its operands `reads` only at the element
// it writes.
bool ElementwiseOfOperands(const HloInstruction& hlo, const std::vector<int64_t>& reads, const Shape& shape) {
  if (!hlo.shape().IsArray() || !hlo.shape().Compatible(shape) || !ShapeUtil::SameLayouts(hlo.shape(), shape)) {
    return false;
  }
  if (IsElementwise(hlo.opcode())) return true;  // element i from the operands' elements i
  if (!IsFusionOfKind(hlo, kLoopFusion)) return false;
  const HloComputation& fused = *hlo.called_computations().front();
  std::vector<const HloInstruction*> from;
  for (int64_t i : reads) from.push_back(fused.parameter_instruction(i));
  return OnlyElementwiseOf(from);
}

// Whether `writer`, whose operands include the parameter leaf `param`, may
// write `result` (one of its array results) over `param` as it goes: it
// reads each element of the parameter only at the position it writes, and
// before writing it, or reads the whole operand before writing any result.
bool ReadsOnlyWhereItWrites(const HloInstruction& writer, const ValueTree* param, const ValueTree* result,
                            const ComputationBuffers& buffers) {
  std::vector<int64_t> reads;
  for (int64_t i = 0; i < writer.operand_count(); ++i) {
    if (&buffers.ValueOf(writer.operand(i)) == param) reads.push_back(i);
  }
  if (writer.opcode() == HloOpcode::kAllReduce) {
    // The collective runtime copies its operand out (in process) or reduces
    // in place (across hosts) before it writes the result.
    return writer.shape().IsArray() && writer.operand_count() == 1 && reads.size() == 1;
  }
  if (!IsFusionOfKind(writer, kRowGroupFusion)) return ElementwiseOfOperands(writer, reads, param->shape);
  // A row group runs its members row by row, in order: the members reading
  // the parameter must each read it elementwise, and none may come after
  // the member writing the result (it would read rows already overwritten).
  const HloComputation& group = *writer.called_computations().front();
  absl::flat_hash_set<const HloInstruction*> from;
  for (int64_t i : reads) from.insert(group.parameter_instruction(i));
  bool past_writer = false;
  for (const HloInstruction* member : RowGroupMembers(writer)) {
    std::vector<int64_t> member_reads;
    for (int64_t i = 0; i < member->operand_count(); ++i) {
      if (from.contains(member->operand(i))) member_reads.push_back(i);
    }
    if (!member_reads.empty() && (past_writer || !ElementwiseOfOperands(*member, member_reads, param->shape))) {
      return false;
    }
    past_writer |= member == result->producer;
  }
  // Nothing else in the group (values generated inline) reads it.
  for (const HloInstruction* p : from) {
    for (const HloInstruction* user : p->users()) {
      const std::vector<const HloInstruction*> members = RowGroupMembers(writer);
      if (std::find(members.begin(), members.end(), user) == members.end()) return false;
    }
  }
  return past_writer;
}

}  // namespace

void BufferAssignment::FindInPlaceResults(const HloModule& module) {
  const HloComputation& entry = *module.entry_computation();
  const ComputationBuffers* buffers = ForComputation(entry);
  if (buffers == nullptr || module.input_output_aliases().empty()) return;
  const HloInstruction* root = entry.root_instruction();
  std::vector<const ValueTree*> result_leaves;
  CollectLeaves(buffers->ValueOf(root), &result_leaves);
  const std::vector<HloInstruction*> order = entry.MakeInstructionPostOrder();
  const absl::flat_hash_set<const HloInstruction*> reachable = entry.LiveInstructions();
  for (const InputOutputAlias& alias : module.input_output_aliases()) {
    // Parameters of the entry are whole buffers; a tuple parameter's leaf
    // is not donated on its own.
    if (!alias.parameter_index.empty() || alias.parameter >= entry.num_parameters()) continue;
    const HloInstruction* parameter = entry.parameter_instruction(alias.parameter);
    if (!parameter->shape().IsArray()) continue;
    const ValueTree* param = &buffers->ValueOf(parameter);
    if (!ShapeUtil::TryGetSubshape(root->shape(), alias.output_index).ok()) continue;  // the verifier refuses it
    const int64_t leaf = LeafNumber(root->shape(), alias.output_index);
    if (leaf < 0 || leaf >= static_cast<int64_t>(result_leaves.size())) continue;
    const ValueTree* result = result_leaves[leaf];
    // Written straight into the result by its instruction (not copied there
    // at the end), in the parameter's layout, and not also a result copy's
    // source at the end.
    if (result->slot.kind != BufferSlot::kResult || result->slot.index != leaf) continue;
    if (!result->shape.Compatible(parameter->shape()) || !ShapeUtil::SameLayouts(result->shape, parameter->shape())) {
      continue;
    }
    bool copied_at_end = false;
    for (const ResultCopy& copy : buffers->result_copies) copied_at_end |= TreeContains(*copy.source, param);
    if (copied_at_end) continue;
    // The instruction that writes the leaf, and every reader of the
    // parameter: all before it, or it alone reading in place.
    const HloInstruction* writer = nullptr;
    for (const HloInstruction* h : order) {
      auto it = buffers->values.find(h);
      if (it == buffers->values.end()) continue;
      if ((!it->second->is_tuple && it->second.get() == result && result->producer == h) ||
          (IsFusionOfKind(*h, kRowGroupFusion) && TreeContains(*it->second, result))) {
        writer = h;
        break;
      }
    }
    if (writer == nullptr) continue;
    bool safe = true;
    bool after_writer = false;
    for (const HloInstruction* h : order) {
      if (h == writer) after_writer = true;
      if (!reachable.contains(h) || HasStorageOfItsOwn(*h) || IsPlumbing(*h)) continue;
      bool reads = false;
      for (const HloInstruction* o : h->operands()) reads |= TreeContains(buffers->ValueOf(o), param);
      if (!reads) continue;
      if (h == writer) {
        safe &= ReadsOnlyWhereItWrites(*h, param, result, *buffers);
      } else if (after_writer) {
        safe = false;
      }
    }
    if (safe) in_place_results_.push_back({leaf, alias.parameter});
  }
}

absl::Status BufferAssignment::AssignComputation(const HloComputation& computation) {
  auto buffers = std::make_unique<ComputationBuffers>();
  buffers->computation = &computation;
  // Built mutable here; the result exposes them const.
  absl::flat_hash_map<const HloInstruction*, std::shared_ptr<ValueTree>> values;
  const HloInstruction* root = computation.root_instruction();
  const std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  // Side effects run whether or not the root needs them.
  const absl::flat_hash_set<const HloInstruction*> reachable = computation.LiveInstructions();
  // Steps: positions in emission order; the result copies come last.
  absl::flat_hash_map<const HloInstruction*, int64_t> step;
  for (size_t i = 0; i < order.size(); ++i) step[order[i]] = static_cast<int64_t>(i);
  const int64_t last_step = static_cast<int64_t>(order.size());

  // Leaves to place in the arena, with the step that defines each.
  std::vector<std::pair<ValueTree*, int64_t>> arena_leaves;
  // Leaves written by the instruction that defines them; they may become
  // result leaves.
  std::function<std::shared_ptr<ValueTree>(const Shape&, const HloInstruction*, bool)> new_tree =
      [&](const Shape& shape, const HloInstruction* producer, bool may_be_result) {
        auto tree = std::make_shared<ValueTree>();
        tree->shape = shape;
        if (shape.IsTuple()) {
          tree->is_tuple = true;
          for (const Shape& s : shape.tuple_shapes()) tree->elements.push_back(new_tree(s, producer, may_be_result));
          return tree;
        }
        tree->producer = producer;
        if (!may_be_result) {
          tree->slot.kind = BufferSlot::kArena;  // offset placed below
          arena_leaves.push_back({tree.get(), step.at(producer)});
        }
        return tree;
      };

  // Parameters first, so their leaves are numbered in order.
  int64_t num_param_leaves = 0;
  std::function<std::shared_ptr<ValueTree>(const Shape&, const HloInstruction*)> param_tree =
      [&](const Shape& shape, const HloInstruction* producer) {
        auto tree = std::make_shared<ValueTree>();
        tree->shape = shape;
        if (shape.IsTuple()) {
          tree->is_tuple = true;
          for (const Shape& s : shape.tuple_shapes()) tree->elements.push_back(param_tree(s, producer));
        } else {
          tree->slot = {BufferSlot::kParam, num_param_leaves++};
          tree->producer = producer;
        }
        return tree;
      };
  for (const HloInstruction* p : computation.parameter_instructions()) {
    if (!p->shape().IsArray() && !p->shape().IsTuple() && !p->shape().IsToken()) {
      return absl::UnimplementedError(
          absl::StrCat("CPU backend: non-array parameter is not implemented yet (in ", p->ToString(), ")"));
    }
    values[p] = param_tree(p->shape(), p);
  }
  // Row-group members no one outside reads: their trees.
  std::vector<std::pair<ValueTree*, const HloInstruction*>> inner_members;
  for (const HloInstruction* h : order) {
    if (!reachable.contains(h) || h->opcode() == HloOpcode::kParameter) continue;
    if (h->opcode() == HloOpcode::kTuple) {
      auto tree = std::make_shared<ValueTree>();
      tree->is_tuple = true;
      tree->shape = h->shape();
      for (const HloInstruction* o : h->operands()) {
        tree->elements.push_back(values.at(o));
      }
      values[h] = tree;
    } else if (h->opcode() == HloOpcode::kGetTupleElement) {
      const auto& operand = values.at(h->operand(0));
      if (!operand->is_tuple || h->tuple_index() < 0 ||
          h->tuple_index() >= static_cast<int64_t>(operand->elements.size())) {
        return InvalidArgument("CPU backend: %s: bad tuple index", h->name());
      }
      values[h] = operand->elements[h->tuple_index()];
    } else if (IsFusionOfKind(*h, kRowGroupFusion)) {
      // Outputs: the root tuple's elements, each produced by a member; they
      // may be result leaves. Other members: one row, or an arena buffer
      // live only while the group runs.
      const HloInstruction* tuple = h->called_computations().front()->root_instruction();
      if (tuple->opcode() != HloOpcode::kTuple || tuple->operand_count() != static_cast<int64_t>(h->shape().tuple_shapes_size())) {
        return Internal("CPU backend: %s: a row group's root must be a tuple of its outputs", h->name());
      }
      auto tree = std::make_shared<ValueTree>();
      tree->is_tuple = true;
      tree->shape = h->shape();
      for (const HloInstruction* output : tuple->operands()) {
        std::shared_ptr<ValueTree> leaf = new_tree(output->shape(), output, /*may_be_result=*/true);
        values[output] = leaf;
        tree->elements.push_back(leaf);
      }
      values[h] = tree;
      for (const HloInstruction* m : RowGroupMembers(*h)) {
        if (values.contains(m)) continue;
        auto leaf = std::make_shared<ValueTree>();
        leaf->shape = m->shape();
        leaf->producer = m;
        if (!m->shape().IsArray() || m->shape().rank() == 0) {
          return Internal("CPU backend: %s: row-group member %s is not an array", h->name(), m->name());
        }
        const int64_t rows = m->shape().dimensions(RowDimension(m->shape()));
        if (ShapeUtil::ByteSizeOfElements(m->shape()) / std::max<int64_t>(rows, 1) <= kMaxRowScratchBytes) {
          leaf->slot.kind = BufferSlot::kRowScratch;
        } else {
          leaf->slot.kind = BufferSlot::kArena;
          arena_leaves.push_back({leaf.get(), step.at(h)});
        }
        values[m] = leaf;
      }
    } else if (h->shape().IsTuple()) {
      // Control flow and variadic reduces (fused or not): their own arena
      // leaves, written leaf by leaf.
      values[h] = new_tree(h->shape(), h, /*may_be_result=*/false);
    } else {
      auto tree = std::make_shared<ValueTree>();
      tree->shape = h->shape();
      tree->producer = h;
      if (h->opcode() == HloOpcode::kConstant) tree->slot.kind = BufferSlot::kGlobal;
      values[h] = tree;
    }
  }

  // Result leaves: computed directly into the result buffer when possible.
  int64_t next_result = 0;
  absl::flat_hash_set<const ValueTree*> in_results;
  std::function<void(const std::shared_ptr<ValueTree>&, const Shape&)> assign_results =
      [&](const std::shared_ptr<ValueTree>& tree, const Shape& result_shape) {
        if (tree->is_tuple) {
          for (size_t i = 0; i < tree->elements.size(); ++i) {
            assign_results(tree->elements[i], result_shape.tuple_shapes(i));
          }
          return;
        }
        const int64_t leaf = next_result++;
        if (result_shape.IsToken()) return;  // nothing to write
        const bool pending = tree->slot.kind == BufferSlot::kNone && tree->producer != nullptr &&
                             tree->producer->opcode() != HloOpcode::kConstant;
        if (pending && !in_results.contains(tree.get()) && tree->shape == result_shape) {
          tree->slot = {BufferSlot::kResult, leaf};
          in_results.insert(tree.get());
        } else {
          buffers->result_copies.push_back({leaf, tree, result_shape});
        }
      };
  assign_results(values.at(root), root->shape());

  // Every other computed value goes into the arena (a row group's outputs
  // defined at its step).
  for (const HloInstruction* h : order) {
    auto it = values.find(h);
    if (it == values.end() || HasStorageOfItsOwn(*h)) continue;
    std::vector<ValueTree*> leaves;
    if (IsFusionOfKind(*h, kRowGroupFusion)) {
      for (const auto& e : it->second->elements) leaves.push_back(e.get());
    } else if (!it->second->is_tuple && it->second->producer == h) {
      leaves.push_back(it->second.get());
    }
    for (ValueTree* leaf : leaves) {
      if (leaf->slot.kind != BufferSlot::kNone) continue;
      leaf->slot.kind = BufferSlot::kArena;
      arena_leaves.push_back({leaf, step.at(h)});
    }
  }

  // Live ranges: from the defining step through the last step reading.
  absl::flat_hash_map<const ValueTree*, int64_t> last_read;
  std::function<void(const ValueTree&, int64_t)> read_tree = [&](const ValueTree& tree, int64_t at) {
    if (tree.is_tuple) {
      for (const auto& e : tree.elements) read_tree(*e, at);
      return;
    }
    int64_t& end = last_read[&tree];
    end = std::max(end, at);
  };
  for (const HloInstruction* h : order) {
    if (!reachable.contains(h) || HasStorageOfItsOwn(*h) || IsPlumbing(*h)) continue;
    for (const HloInstruction* o : h->operands()) read_tree(*values.at(o), step.at(h));
  }
  read_tree(*values.at(root), last_step);

  // Control-flow temporaries, live while the instruction runs.
  std::vector<std::pair<const HloInstruction*, BufferInterval>> scratch;
  for (const HloInstruction* h : order) {
    if (!reachable.contains(h) || !IsControlFlow(*h)) continue;
    const int64_t bytes = ControlFlowScratchBytes(*h, [&](int64_t i) { return LeafShapes(*values.at(h->operand(i))); });
    if (bytes > 0) scratch.push_back({h, BufferInterval{step.at(h), step.at(h), bytes}});
  }

  std::vector<BufferInterval> intervals;
  for (const auto& [leaf, start] : arena_leaves) {
    BufferInterval interval;
    interval.start = start;
    interval.end = std::max(start, last_read.contains(leaf) ? last_read.at(leaf) : start);
    interval.bytes = ShapeUtil::ByteSizeOfElements(leaf->shape);
    intervals.push_back(interval);
  }
  for (const auto& [h, interval] : scratch) intervals.push_back(interval);
  const ArenaLayout layout = AssignArenaOffsets(intervals, kAlignment);
  buffers->arena_begin = arena_bytes_;
  buffers->arena_end = arena_bytes_ + layout.peak_bytes;
  buffers->unshared_bytes = layout.total_bytes;
  arena_bytes_ = buffers->arena_end;
  for (size_t i = 0; i < arena_leaves.size(); ++i) {
    ValueTree* leaf = arena_leaves[i].first;
    leaf->slot = {BufferSlot::kArena, buffers->arena_begin + layout.offsets[i], intervals[i].bytes};
    buffers->arena_buffers.push_back({leaf, intervals[i].start, intervals[i].end});
  }
  for (size_t i = 0; i < scratch.size(); ++i) {
    const size_t k = arena_leaves.size() + i;
    buffers->control_flow_scratch[scratch[i].first] = {BufferSlot::kArena, buffers->arena_begin + layout.offsets[k],
                                                       intervals[k].bytes};
  }
  for (auto& [h, tree] : values) buffers->values[h] = std::move(tree);
  by_computation_[&computation] = buffers.get();
  computations_.push_back(std::move(buffers));
  return absl::OkStatus();
}

std::string BufferAssignment::ToString() const {
  std::string out = absl::StrCat("arena bytes: ", arena_bytes_, "\n");
  for (const auto& buffers : computations_) {
    const HloComputation& c = *buffers->computation;
    absl::StrAppend(&out, "computation ", c.name(), ": arena [", buffers->arena_begin, ", ", buffers->arena_end,
                    "), ", buffers->arena_end - buffers->arena_begin, " bytes for ", buffers->arena_buffers.size(),
                    " buffers of ", buffers->unshared_bytes, " bytes\n");
    absl::flat_hash_map<const ValueTree*, std::pair<int64_t, int64_t>> live;
    for (const auto& b : buffers->arena_buffers) live[b.leaf] = {b.start, b.end};
    // Values in order; row-group members after their group.
    std::vector<const HloInstruction*> listed;
    for (const HloInstruction* h : c.MakeInstructionPostOrder()) {
      if (!buffers->values.contains(h)) continue;
      listed.push_back(h);
      if (IsFusionOfKind(*h, kRowGroupFusion)) {
        for (const HloInstruction* m : RowGroupMembers(*h)) {
          if (buffers->values.contains(m)) listed.push_back(m);
        }
      }
    }
    for (const HloInstruction* h : listed) {
      const ValueTree& tree = buffers->ValueOf(h);
      absl::StrAppend(&out, "  %", h->name(), " ", h->shape().ToString(true), ": ");
      std::function<void(const ValueTree&)> describe = [&](const ValueTree& t) {
        if (t.is_tuple) {
          absl::StrAppend(&out, "(");
          for (size_t i = 0; i < t.elements.size(); ++i) {
            if (i > 0) absl::StrAppend(&out, ", ");
            describe(*t.elements[i]);
          }
          absl::StrAppend(&out, ")");
          return;
        }
        if (t.producer != nullptr && t.producer != h) {
          absl::StrAppend(&out, "%", t.producer->name(), "'s ");
        }
        absl::StrAppend(&out, SlotString(t.slot));
        // One-element constants are generated inline where they are read.
        if (t.slot.kind == BufferSlot::kGlobal && ShapeUtil::ElementsIn(t.shape) == 1) absl::StrAppend(&out, " (immediate)");
        if (auto it = live.find(&t); it != live.end() && t.producer == h) {
          absl::StrAppend(&out, " live [", it->second.first, ", ", it->second.second, "]");
        }
      };
      describe(tree);
      absl::StrAppend(&out, "\n");
    }
    for (const HloInstruction* h : listed) {
      if (auto it = buffers->control_flow_scratch.find(h); it != buffers->control_flow_scratch.end()) {
        absl::StrAppend(&out, "  %", h->name(), " temporaries: ", SlotString(it->second), "\n");
      }
    }
    for (const ResultCopy& copy : buffers->result_copies) {
      absl::StrAppend(&out, "  result leaf ", copy.leaf, ": copied from ",
                      copy.source->producer != nullptr ? "%" + copy.source->producer->name() : "?", "\n");
    }
  }
  for (const InPlaceResult& r : in_place_results_) {
    absl::StrAppend(&out, "result leaf ", r.result_leaf, ": in place of parameter ", r.parameter, " when donated\n");
  }
  return out;
}

}  // namespace cpu
}  // namespace xla
