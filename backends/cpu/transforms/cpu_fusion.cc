#include "backends/cpu/transforms/cpu_fusion.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/transforms/emission_kinds.h"
#include "backends/cpu/transforms/matmul_plan.h"
#include "backends/cpu/transforms/row_fusion.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_module.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

namespace {

// What the pass decides for one computation, on its unfused instructions.
struct Decisions {
  absl::flat_hash_set<const HloInstruction*> reachable;
  // Array values that are not parameters, constants or plumbing: true when
  // they get a buffer, false when generated inline in their one user.
  absl::flat_hash_map<const HloInstruction*, bool> materialize;
  // The materialized end of a dot's elementwise chain -> the dot.
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> epilogue_dot;
  std::vector<RowGroup> row_groups;

  bool Materialized(const HloInstruction* h) const {
    auto it = materialize.find(h);
    return it != materialize.end() && it->second;
  }
  bool Fused(const HloInstruction* h) const {
    auto it = materialize.find(h);
    return it != materialize.end() && !it->second;
  }
};

void DecideMaterialized(const HloComputation& computation, const std::vector<HloInstruction*>& order,
                        Decisions& d) {
  d.reachable = computation.LiveInstructions();
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
    if (!d.reachable.contains(h)) continue;
    absl::flat_hash_set<const HloInstruction*> counted;
    for (const HloInstruction* o : h->operands()) {
      if (IsElementwise(h->opcode()) && repeated_size[o] <= kMaxRepeatedSize && !counted.insert(o).second) continue;
      ++uses[o];
    }
  }
  const HloInstruction* root = computation.root_instruction();
  for (const HloInstruction* h : order) {
    if (!d.reachable.contains(h) || !h->shape().IsArray() || HasStorageOfItsOwn(*h) || IsPlumbing(*h)) continue;
    d.materialize[h] = !IsFusibleOpcode(h->opcode()) || uses[h] > 1 || h == root;
  }
  for (const HloInstruction* h : order) {
    if (!d.reachable.contains(h)) continue;
    // Tuple elements need a buffer; dot, convolution, reduce-window and
    // scatter operands are read many times each (and by the runtime for
    // f32/f64 dots), so they are not recomputed inline; the runtime reads
    // fft, triangular-solve and cholesky operands from buffers.
    if (h->opcode() == HloOpcode::kTuple || h->opcode() == HloOpcode::kDot ||
        h->opcode() == HloOpcode::kConvolution || h->opcode() == HloOpcode::kReduceWindow ||
        h->opcode() == HloOpcode::kScatter || h->opcode() == HloOpcode::kSelectAndScatter ||
        h->opcode() == HloOpcode::kFusion || IsControlFlow(*h) || IsLinalgRuntimeCall(*h) ||
        HasSideEffect(h->opcode())) {
      // (Side-effecting ops are runtime calls that read their operands' buffers.)
      for (const HloInstruction* o : h->operands()) {
        if (d.materialize.contains(o)) d.materialize[o] = true;
      }
    }
    // A concatenate of concatenates (concatenate-splitting's trees) keeps
    // each loop nest at the inner ones' number of pieces.
    if (h->opcode() == HloOpcode::kConcatenate) {
      for (const HloInstruction* o : h->operands()) {
        if (o->opcode() == HloOpcode::kConcatenate && d.materialize.contains(o)) d.materialize[o] = true;
      }
    }
  }
  // The emitters and the analyses of a fusion walk its producers
  // recursively: a fused chain is cut every kMaxFusedDepth values, so that
  // the stack they need stays bounded however long the program's chains are
  // (a 10,000-op elementwise chain overflowed it). A materialized value
  // every 64 ops costs one store and load per element, next to 64 ops.
  constexpr int64_t kMaxFusedDepth = 64;
  absl::flat_hash_map<const HloInstruction*, int64_t> fused_depth;
  for (const HloInstruction* h : order) {
    if (!d.Fused(h)) continue;
    int64_t depth = 1;
    for (const HloInstruction* o : h->operands()) {
      auto it = fused_depth.find(o);
      if (it != fused_depth.end()) depth = std::max(depth, it->second + 1);
    }
    if (depth >= kMaxFusedDepth) {
      d.materialize[h] = true;
    } else {
      fused_depth[h] = depth;
    }
  }
}

void DecideMatMulEpilogues(const std::vector<HloInstruction*>& order, Decisions& d) {
  // The one instruction using `h` (possibly as several of its operands).
  auto only_user = [&](const HloInstruction* h) -> const HloInstruction* {
    const HloInstruction* user = nullptr;
    for (const HloInstruction* u : h->users()) {
      if (!d.reachable.contains(u)) continue;
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
    if (!d.reachable.contains(dot) || !PlanRuntimeMatMul(*dot).has_value()) continue;
    const auto& numbers = dot->attributes().dot_dimension_numbers();
    const size_t rhs_free = DotFreeDimensions(dot->operand(1)->shape().rank(), numbers.rhs_batch_dimensions(),
                                              numbers.rhs_contracting_dimensions())
                                .size();
    if (numbers.lhs_batch_dimensions_size() != 0 || rhs_free != 1 || dot->shape().rank() < 2) continue;
    if (!d.Materialized(dot)) continue;
    // Up the chain of fused elementwise consumers (each used once) to the
    // materialized one. Elementwise ops of the dot's dimensions read it at
    // the index they compute, so each block can be finished on its own.
    const HloInstruction* end = only_user(dot);
    while (end != nullptr) {
      auto m = d.materialize.find(end);
      if (!IsElementwise(end->opcode()) || m == d.materialize.end() || !end->shape().IsArray() ||
          end->shape().dimensions() != dot->shape().dimensions()) {
        end = nullptr;
      } else if (m->second) {
        break;
      } else {
        end = only_user(end);
      }
    }
    // Written into the end's buffer: the same element type and layout.
    if (end == nullptr || end->shape() != dot->shape() || d.epilogue_dot.contains(end)) continue;
    d.epilogue_dot[end] = dot;
    d.materialize[dot] = false;
  }
}

// Whether the emitter emits `hlo` (materialized) as a plain loop nest over
// its shape: only those can share a row loop.
bool IsLoopEmitted(const HloInstruction& hlo, const Decisions& d) {
  // Control flow (an array-valued conditional, say) writes its buffer from
  // its computations, never in a loop over its shape: it may not join a row
  // group (it would lose its buffer to one row of scratch). Neither may a
  // collective or feed: a runtime call that writes its whole buffer at once.
  return d.Materialized(&hlo) && !IsControlFlow(hlo) && !IsDistributedOpcode(hlo.opcode()) && !PlanRuntimeMatMul(hlo).has_value() &&
         !d.epilogue_dot.contains(&hlo) && hlo.opcode() != HloOpcode::kDynamicUpdateSlice &&
         hlo.opcode() != HloOpcode::kScatter && hlo.opcode() != HloOpcode::kSelectAndScatter &&
         hlo.opcode() != HloOpcode::kSort && hlo.opcode() != HloOpcode::kFusion && !IsLinalgRuntimeCall(hlo) &&
         hlo.opcode() != HloOpcode::kCustomCall && !KeepsMinorDimension(hlo) &&
         // Collectives, send/recv, feeds, process ids: runtime calls.
         !IsDistributedOpcode(hlo.opcode()) && !HasSideEffect(hlo.opcode()) &&
         !ShapeUtil::HasZeroElements(hlo.shape());
}

void DecideRowGroups(const std::vector<HloInstruction*>& order, Decisions& d) {
  std::vector<const HloInstruction*> emitted;
  for (const HloInstruction* h : order) {
    if (!d.reachable.contains(h)) continue;
    if (IsControlFlow(*h) || WritesTupleOfArrays(*h) || d.Materialized(h)) emitted.push_back(h);
  }
  d.row_groups = FindRowGroups(
      emitted, [&](const HloInstruction* h) { return IsLoopEmitted(*h, d); },
      [&](const HloInstruction* h) { return d.Fused(h); });
}

bool IsOneElementConstant(const HloInstruction& hlo) {
  return hlo.opcode() == HloOpcode::kConstant && hlo.shape().IsArray() && ShapeUtil::ElementsIn(hlo.shape()) == 1;
}

// Builds fused computations: instructions are copied in, operands from
// outside become parameters (one per distinct value), one-element constants
// are copied.
class FusedComputationBuilder {
 public:
  // The new computation goes just before `caller` (callees come first).
  FusedComputationBuilder(HloModule* module, const HloComputation* caller) {
    computation_ =
        module->AddEmbeddedComputationBefore(std::make_unique<HloComputation>("fused_computation"), caller);
  }

  // Copies `h` (its operands copied or outside values) under its own name.
  HloInstruction* Copy(const HloInstruction* h) {
    std::vector<HloInstruction*> operands;
    // The matmul runtime reads a dot's operands from buffers (a kOutput
    // fusion's dot): a constant stays outside, in its buffer. Other users
    // generate one-element constants inline.
    const bool immediates = !PlanRuntimeMatMul(*h).has_value();
    for (const HloInstruction* o : h->operands()) operands.push_back(Operand(o, immediates));
    std::unique_ptr<HloInstruction> copy =
        HloInstruction::Create(h->opcode(), h->shape(), operands, h->called_computations(), h->attributes());
    if (h->has_literal()) copy->set_literal(h->literal());
    copy->set_name(h->name());
    HloInstruction* added = computation_->AddInstruction(std::move(copy));
    copies_[h] = added;
    return added;
  }

  HloComputation* computation() const { return computation_; }
  // The outside values, by parameter number.
  const std::vector<HloInstruction*>& outside_operands() const { return outside_; }

 private:
  HloInstruction* Operand(const HloInstruction* o, bool immediates) {
    if (IsOneElementConstant(*o)) {
      if (immediates) {
        auto it = copies_.find(o);
        return it != copies_.end() ? it->second : Copy(o);
      }
    } else if (auto it = copies_.find(o); it != copies_.end()) {
      return it->second;
    }
    if (auto it = parameters_.find(o); it != parameters_.end()) return it->second;
    const int64_t number = static_cast<int64_t>(outside_.size());
    HloInstruction* parameter =
        computation_->AddInstruction(HloInstruction::CreateParameter(number, o->shape(), ""));
    outside_.push_back(const_cast<HloInstruction*>(o));
    parameters_[o] = parameter;
    return parameter;
  }

  HloComputation* computation_;
  // Instructions copied in (members and one-element constants), and the
  // parameters standing for outside values.
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> copies_, parameters_;
  std::vector<HloInstruction*> outside_;
};

// Adds the fusion instruction calling `builder`'s computation, named
// "fusion.N" with computation "fused_computation.N".
HloInstruction* AddFusion(HloComputation* computation, const FusedComputationBuilder& builder, const Shape& shape,
                          absl::string_view kind) {
  HloInstructionProto attributes;
  attributes.set_fusion_kind(std::string(kind));
  HloInstruction* fusion = computation->AddInstruction(HloInstruction::Create(
      HloOpcode::kFusion, shape, builder.outside_operands(), {builder.computation()}, std::move(attributes)));
  const std::string& name = fusion->name();
  builder.computation()->set_name(absl::StrCat("fused_computation", name.substr(name.find('.'))));
  return fusion;
}

// Removes `doomed` (users before operands: `order` is topological) where
// nothing uses them any more.
absl::Status RemoveReplaced(HloComputation* computation, const std::vector<HloInstruction*>& order,
                            const absl::flat_hash_set<const HloInstruction*>& doomed) {
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (doomed.contains(*it) && (*it)->users().empty() && *it != computation->root_instruction()) {
      RETURN_IF_ERROR(computation->RemoveInstruction(*it));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> FuseComputation(HloModule* module, HloComputation* computation) {
  std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
  Decisions d;
  DecideMaterialized(*computation, order, d);
  DecideMatMulEpilogues(order, d);
  DecideRowGroups(order, d);

  bool changed = false;
  absl::flat_hash_set<const HloInstruction*> doomed;
  // Each materialized value (or variadic reduce) with the producers it
  // generates inline.
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> fused_as;
  for (HloInstruction* h : order) {
    if (!d.reachable.contains(h) || !(d.Materialized(h) || WritesTupleOfArrays(*h))) continue;
    absl::flat_hash_set<const HloInstruction*> inside;
    std::vector<const HloInstruction*> members;  // operands first
    std::function<void(const HloInstruction*)> collect = [&](const HloInstruction* x) {
      for (const HloInstruction* o : x->operands()) {
        if (!d.Fused(o) || !inside.insert(o).second) continue;
        collect(o);
        members.push_back(o);
      }
    };
    collect(h);
    if (members.empty()) continue;
    FusedComputationBuilder builder(module, computation);
    for (const HloInstruction* m : members) builder.Copy(m);
    builder.computation()->set_root_instruction(builder.Copy(h));
    const bool reduces = h->opcode() == HloOpcode::kReduce || h->opcode() == HloOpcode::kReduceWindow;
    const absl::string_view kind = d.epilogue_dot.contains(h) ? kOutputFusion : reduces ? kInputFusion : kLoopFusion;
    HloInstruction* fusion = AddFusion(computation, builder, h->shape(), kind);
    h->ReplaceAllUsesWith(fusion);
    fused_as[h] = fusion;
    doomed.insert(h);
    doomed.insert(members.begin(), members.end());
    // One-element constants read inside were copied in.
    for (const HloInstruction* m : members) {
      for (const HloInstruction* o : m->operands()) {
        if (IsOneElementConstant(*o)) doomed.insert(o);
      }
    }
    for (const HloInstruction* o : h->operands()) {
      if (IsOneElementConstant(*o)) doomed.insert(o);
    }
    changed = true;
  }

  // Row groups: their members (as fused above) move into one fusion.
  for (const RowGroup& group : d.row_groups) {
    std::vector<HloInstruction*> members;
    for (const HloInstruction* m : group.members) {
      auto it = fused_as.find(m);
      members.push_back(it != fused_as.end() ? it->second : const_cast<HloInstruction*>(m));
    }
    const absl::flat_hash_set<const HloInstruction*> in_group(members.begin(), members.end());
    FusedComputationBuilder builder(module, computation);
    std::vector<HloInstruction*> outputs, output_copies;
    for (HloInstruction* m : members) {
      HloInstruction* copy = builder.Copy(m);
      const bool read_outside = m == computation->root_instruction() ||
                                absl::c_any_of(m->users(), [&](const HloInstruction* u) {
                                  return !in_group.contains(u) && !doomed.contains(u);  // not replaced
                                });
      if (read_outside) {
        outputs.push_back(m);
        output_copies.push_back(copy);
      }
    }
    HloInstruction* tuple = builder.computation()->AddInstruction(HloInstruction::CreateTuple(output_copies));
    builder.computation()->set_root_instruction(tuple);
    HloInstruction* fusion = AddFusion(computation, builder, tuple->shape(), kRowGroupFusion);
    for (size_t i = 0; i < outputs.size(); ++i) {
      HloInstruction* element = computation->AddInstruction(
          HloInstruction::CreateGetTupleElement(outputs[i]->shape(), fusion, static_cast<int64_t>(i)));
      outputs[i]->ReplaceAllUsesWith(element);
    }
    doomed.insert(members.begin(), members.end());
    for (const HloInstruction* m : members) {
      for (const HloInstruction* o : m->operands()) {
        if (IsOneElementConstant(*o)) doomed.insert(o);
      }
    }
    changed = true;
  }
  if (!changed) return false;
  computation->RestoreTopologicalOrder();
  // The originals, and the fusions that moved into row groups.
  RETURN_IF_ERROR(RemoveReplaced(computation, computation->instructions(), doomed));
  return true;
}

}  // namespace

bool IsFusionOfKind(const HloInstruction& hlo, absl::string_view kind) {
  return hlo.opcode() == HloOpcode::kFusion && hlo.attributes().fusion_kind() == kind;
}

const HloInstruction* FusionOperandOf(const HloInstruction* hlo) {
  while (hlo->opcode() == HloOpcode::kParameter && hlo->parent() != nullptr) {
    const HloInstruction* fusion = hlo->parent()->fusion_instruction();
    if (fusion == nullptr || hlo->parameter_number() >= fusion->operand_count()) break;
    hlo = fusion->operand(hlo->parameter_number());
  }
  return hlo;
}

std::vector<const HloInstruction*> RowGroupMembers(const HloInstruction& fusion) {
  std::vector<const HloInstruction*> members;
  const HloComputation* fused = fusion.called_computations().front();
  for (const HloInstruction* h : fused->instructions()) {
    if (h != fused->root_instruction() && !HasStorageOfItsOwn(*h)) members.push_back(h);
  }
  return members;
}

absl::StatusOr<bool> CpuFusion::Run(HloModule* module) {
  // The computations emitted as code: the entry and, through control flow,
  // the computations it runs (not reducers and other scalar computations,
  // which are applied to register values).
  std::vector<HloComputation*> pending = {module->entry_computation()};
  absl::flat_hash_set<HloComputation*> seen = {module->entry_computation()};
  bool changed = false;
  while (!pending.empty()) {
    HloComputation* computation = pending.back();
    pending.pop_back();
    for (const HloInstruction* h : computation->instructions()) {
      if (h->opcode() != HloOpcode::kWhile && h->opcode() != HloOpcode::kConditional &&
          h->opcode() != HloOpcode::kCall) {
        continue;
      }
      for (HloComputation* called : h->called_computations()) {
        if (seen.insert(called).second) pending.push_back(called);
      }
    }
    ASSIGN_OR_RETURN(bool fused, FuseComputation(module, computation));
    changed |= fused;
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
