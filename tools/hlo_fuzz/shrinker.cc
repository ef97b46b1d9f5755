#include "tools/hlo_fuzz/shrinker.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_split.h"
#include "tools/hlo_fuzz/fuzz_arguments.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace hlo_fuzz {
namespace {

using ModuleProto = HloModuleProto;

HloComputationProto* FindComputation(ModuleProto* m, int64_t id) {
  for (HloComputationProto& c : *m->mutable_computations()) {
    if (c.id() == id) return &c;
  }
  return nullptr;
}

HloComputationProto* Entry(ModuleProto* m) { return FindComputation(m, m->entry_computation_id()); }

HloInstructionProto* FindInstruction(HloComputationProto* c, int64_t id) {
  for (HloInstructionProto& i : *c->mutable_instructions()) {
    if (i.id() == id) return &i;
  }
  return nullptr;
}

int64_t NextId(const ModuleProto& m) {
  int64_t id = 0;
  for (const HloComputationProto& c : m.computations()) {
    id = std::max(id, c.id());
    for (const HloInstructionProto& i : c.instructions()) id = std::max(id, i.id());
  }
  return id + 1;
}

int64_t InstructionCount(const ModuleProto& m) {
  int64_t n = 0;
  for (const HloComputationProto& c : m.computations()) n += c.instructions_size();
  return n;
}

// A variant is accepted only if it is smaller: fewer instructions, else
// fewer operand references (e.g. a dropped output that is still used
// elsewhere), else fewer elements in the entry's parameters.
struct Size {
  int64_t instructions = 0, references = 0, elements = 0;
  bool operator<(const Size& o) const {
    return std::tie(instructions, references, elements) < std::tie(o.instructions, o.references, o.elements);
  }
};

Size SizeOf(const ModuleProto& m) {
  Size size;
  for (const HloComputationProto& c : m.computations()) {
    size.instructions += c.instructions_size();
    for (const HloInstructionProto& i : c.instructions()) {
      size.references += i.operand_ids_size();
      if (c.id() != m.entry_computation_id() || i.opcode() != "parameter") continue;
      absl::StatusOr<Shape> s = ShapeUtil::FromProto(i.shape());
      if (s.ok() && s->IsArray()) size.elements += ShapeUtil::ElementsIn(*s);
    }
  }
  return size;
}

void ReplaceUses(HloComputationProto* c, int64_t from, int64_t to) {
  for (HloInstructionProto& i : *c->mutable_instructions()) {
    for (int64_t& op : *i.mutable_operand_ids()) {
      if (op == from) op = to;
    }
  }
  if (c->root_id() == from) c->set_root_id(to);
}

// Drops instructions the root does not depend on (a called computation keeps
// its parameters), renumbers the entry's remaining parameters, and drops
// computations nothing calls.
void Cleanup(ModuleProto* m) {
  absl::flat_hash_set<int64_t> live_computations = {m->entry_computation_id()};
  // Callers come after callees, so walk backwards from the entry.
  for (int ci = m->computations_size() - 1; ci >= 0; --ci) {
    HloComputationProto& c = *m->mutable_computations(ci);
    if (!live_computations.contains(c.id())) continue;
    const bool is_entry = c.id() == m->entry_computation_id();
    absl::flat_hash_map<int64_t, const HloInstructionProto*> by_id;
    for (const HloInstructionProto& i : c.instructions()) by_id[i.id()] = &i;
    absl::flat_hash_set<int64_t> live;
    std::vector<int64_t> stack = {c.root_id()};
    for (const HloInstructionProto& i : c.instructions()) {
      if (!is_entry && i.opcode() == "parameter") stack.push_back(i.id());
    }
    while (!stack.empty()) {
      const int64_t id = stack.back();
      stack.pop_back();
      if (!live.insert(id).second || !by_id.contains(id)) continue;
      for (int64_t op : by_id[id]->operand_ids()) stack.push_back(op);
    }
    google::protobuf::RepeatedPtrField<HloInstructionProto> kept;
    for (const HloInstructionProto& i : c.instructions()) {
      if (!live.contains(i.id())) continue;
      *kept.Add() = i;
      for (int64_t callee : i.called_computation_ids()) live_computations.insert(callee);
    }
    if (is_entry) {
      std::vector<HloInstructionProto*> params;
      for (HloInstructionProto& i : kept) {
        if (i.opcode() == "parameter") params.push_back(&i);
      }
      std::sort(params.begin(), params.end(), [](const HloInstructionProto* a, const HloInstructionProto* b) {
        return a->parameter_number() < b->parameter_number();
      });
      for (size_t n = 0; n < params.size(); ++n) params[n]->set_parameter_number(n);
    }
    *c.mutable_instructions() = std::move(kept);
  }
  google::protobuf::RepeatedPtrField<HloComputationProto> computations;
  for (const HloComputationProto& c : m->computations()) {
    if (live_computations.contains(c.id())) *computations.Add() = c;
  }
  *m->mutable_computations() = std::move(computations);
}

absl::StatusOr<std::unique_ptr<HloModule>> BuildVerified(const ModuleProto& m) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, HloModule::CreateFromProto(m));
  RETURN_IF_ERROR(VerifyHloModule(*module));
  return module;
}

// An instruction replacing `old` in place: same name, id and shape.
HloInstructionProto Replacement(const HloInstructionProto& old, const std::string& opcode) {
  HloInstructionProto r;
  r.set_name(old.name());
  r.set_id(old.id());
  *r.mutable_shape() = old.shape();
  r.set_opcode(opcode);
  return r;
}

Shape KeepLayout(Shape inferred, const Shape& declared) {
  if (inferred.IsTuple() && declared.IsTuple() && inferred.tuple_shapes_size() == declared.tuple_shapes_size()) {
    for (int i = 0; i < inferred.tuple_shapes_size(); ++i) {
      (*inferred.mutable_tuple_shapes())[i] = KeepLayout(inferred.tuple_shapes(i), declared.tuple_shapes(i));
    }
    return inferred;
  }
  if (inferred.IsArray()) {
    if (declared.IsArray() && declared.rank() == inferred.rank() && declared.has_layout()) {
      inferred.set_layout(declared.layout());
    } else {
      inferred.set_layout(ShapeUtil::DefaultLayout(inferred.rank()));
    }
  }
  return inferred;
}

// Re-infers every entry shape after a parameter's shape changed (broadcasts
// follow their operand; every other declared shape must match again).
absl::StatusOr<ModuleProto> Reinfer(const ModuleProto& m) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, HloModule::CreateFromProto(m));
  for (HloInstruction* instr : module->entry_computation()->instructions()) {
    if (instr->opcode() == HloOpcode::kParameter || instr->opcode() == HloOpcode::kConstant) continue;
    std::vector<const Shape*> operands;
    for (const HloInstruction* o : instr->operands()) operands.push_back(&o->shape());
    std::vector<ProgramShape> programs;
    for (const HloComputation* c : instr->called_computations()) programs.push_back(c->ComputeProgramShape());
    std::vector<const ProgramShape*> called;
    for (const ProgramShape& p : programs) called.push_back(&p);
    Shape declared = instr->shape();
    if (instr->opcode() == HloOpcode::kBroadcast && declared.IsArray()) {
      for (int k = 0; k < instr->dimensions().size() && k < operands[0]->rank(); ++k) {
        (*declared.mutable_dimensions())[instr->dimensions(k)] = operands[0]->dimensions(k);
      }
    }
    ASSIGN_OR_RETURN(Shape inferred, ShapeInference::InferInstructionShape(instr->opcode(), instr->attributes(),
                                                                           operands, called, declared));
    *instr->mutable_shape() = KeepLayout(inferred, instr->shape());
  }
  return module->ToProto();
}

class Shrinker {
 public:
  Shrinker(ModuleProto start, const StillFails& still_fails, const ShrinkOptions& options)
      : best_(std::move(start)), still_fails_(still_fails), options_(options),
        deadline_(absl::Now() + options.time_limit) {}

  absl::StatusOr<ShrinkResult> Run() {
    ShrinkResult result;
    result.instructions_before = InstructionCount(best_);
    ASSIGN_OR_RETURN(std::unique_ptr<HloModule> original, BuildVerified(best_));
    best_text_ = original->ToString();
    // Dead code goes first, unless the failure needs it (then nothing can
    // be removed, as every variant is cleaned up too).
    ModuleProto cleaned = best_;
    Cleanup(&cleaned);
    absl::StatusOr<std::unique_ptr<HloModule>> module = BuildVerified(cleaned);
    ++candidates_;
    if (module.ok() && still_fails_((*module)->ToString())) {
      best_ = std::move(cleaned);
      best_text_ = (*module)->ToString();
    }
    bool progress = true;
    while (progress && Budget()) {
      progress = false;
      progress |= DropOutputs();
      progress |= ReRoot();
      progress |= ReplaceEntryValues();
      progress |= SimplifyCalledComputations();
      progress |= ShrinkParameterDimensions();
    }
    result.text = best_text_;
    result.candidates = candidates_;
    result.accepted = accepted_;
    result.instructions_after = InstructionCount(best_);
    return result;
  }

 private:
  bool Budget() const { return candidates_ < options_.max_candidates && absl::Now() < deadline_; }

  // Keeps `candidate` (cleaned up) if it is smaller, valid and still fails.
  bool Try(ModuleProto candidate) {
    if (!Budget()) return false;
    Cleanup(&candidate);
    if (!(SizeOf(candidate) < SizeOf(best_))) return false;
    absl::StatusOr<std::unique_ptr<HloModule>> module = BuildVerified(candidate);
    if (!module.ok()) return false;
    const std::string text = (*module)->ToString();
    ++candidates_;
    if (!still_fails_(text)) return false;
    best_ = std::move(candidate);
    best_text_ = text;
    ++accepted_;
    return true;
  }

  bool DropOutputs() {
    bool progress = false;
    for (bool again = true; again;) {
      again = false;
      HloComputationProto* entry = Entry(&best_);
      const HloInstructionProto* root = FindInstruction(entry, entry->root_id());
      if (root == nullptr || root->opcode() != "tuple") break;
      const int n = root->operand_ids_size();
      for (int k = 0; k < n && !again; ++k) {
        ModuleProto candidate = best_;
        HloComputationProto* c = Entry(&candidate);
        if (n == 1) {
          c->set_root_id(root->operand_ids(0));
        } else {
          HloInstructionProto* r = FindInstruction(c, c->root_id());
          r->mutable_operand_ids()->erase(r->mutable_operand_ids()->begin() + k);
          r->mutable_shape()->mutable_tuple_shapes()->erase(r->mutable_shape()->mutable_tuple_shapes()->begin() + k);
        }
        again = Try(std::move(candidate));
        progress |= again;
      }
    }
    return progress;
  }

  // Returns an operand of the result instead of the result (or, for a root
  // tuple, of one of its elements): the result's shape may change.
  bool ReRoot() {
    bool progress = false;
    for (bool again = true; again && Budget();) {
      again = false;
      HloComputationProto* entry = Entry(&best_);
      const HloInstructionProto root = *FindInstruction(entry, entry->root_id());
      if (root.opcode() != "tuple") {
        for (int64_t op : root.operand_ids()) {
          ModuleProto candidate = best_;
          Entry(&candidate)->set_root_id(op);
          if ((again = Try(std::move(candidate)))) break;
        }
      } else {
        for (int k = 0; k < root.operand_ids_size() && !again; ++k) {
          const HloInstructionProto* element = FindInstruction(entry, root.operand_ids(k));
          if (element == nullptr) continue;
          for (int64_t op : element->operand_ids()) {
            const HloInstructionProto* replacement = FindInstruction(entry, op);
            if (replacement == nullptr) continue;
            ModuleProto candidate = best_;
            HloComputationProto* c = Entry(&candidate);
            HloInstructionProto* r = FindInstruction(c, c->root_id());
            r->set_operand_ids(k, op);
            *r->mutable_shape()->mutable_tuple_shapes(k) = replacement->shape();
            if ((again = Try(std::move(candidate)))) break;
          }
        }
      }
      progress |= again;
    }
    return progress;
  }

  // The interpreter's value of instruction `id` of the entry.
  absl::StatusOr<Literal> ValueOf(int64_t id) {
    ModuleProto copy = best_;
    Entry(&copy)->set_root_id(id);
    Cleanup(&copy);
    ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, BuildVerified(copy));
    std::vector<Literal> args = MakeArguments(*module, options_.arg_seed);
    std::vector<const Literal*> ptrs;
    for (const Literal& a : args) ptrs.push_back(&a);
    return HloEvaluator(1 << 20).Evaluate(*module, ptrs);
  }

  bool ReplaceEntryValues() {
    bool progress = false;
    std::vector<int64_t> ids;
    for (const HloInstructionProto& i : Entry(&best_)->instructions()) ids.push_back(i.id());
    for (auto it = ids.rbegin(); it != ids.rend() && Budget(); ++it) {
      HloComputationProto* entry = Entry(&best_);
      const HloInstructionProto* found = FindInstruction(entry, *it);
      if (found == nullptr || found->opcode() == "parameter") continue;
      if (found->id() == entry->root_id() && found->opcode() == "tuple") continue;
      const HloInstructionProto old = *found;
      if (TryBypass(best_.entry_computation_id(), old) || TryParameter(old) ||
          (old.opcode() != "constant" && TryConstant(old))) {
        progress = true;
      }
    }
    return progress;
  }

  bool TryBypass(int64_t computation_id, const HloInstructionProto& old) {
    absl::StatusOr<Shape> shape = ShapeUtil::FromProto(old.shape());
    if (!shape.ok()) return false;
    const HloComputationProto* c = FindComputation(&best_, computation_id);
    std::vector<int64_t> same_shape;
    for (int64_t op : old.operand_ids()) {
      for (const HloInstructionProto& i : c->instructions()) {
        if (i.id() != op) continue;
        // Layouts must match too: a user (or a called computation's
        // parameter) reading another layout would be a new, different bug.
        absl::StatusOr<Shape> s = ShapeUtil::FromProto(i.shape());
        if (s.ok() && *s == *shape) same_shape.push_back(op);
      }
    }
    for (int64_t op : same_shape) {
      ModuleProto candidate = best_;
      ReplaceUses(FindComputation(&candidate, computation_id), old.id(), op);
      if (Try(std::move(candidate))) return true;
    }
    return false;
  }

  bool TryParameter(const HloInstructionProto& old) {
    ModuleProto candidate = best_;
    HloComputationProto* entry = Entry(&candidate);
    int64_t params = 0;
    for (const HloInstructionProto& i : entry->instructions()) params += i.opcode() == "parameter";
    HloInstructionProto p = Replacement(old, "parameter");
    p.set_parameter_number(params);
    *FindInstruction(entry, old.id()) = p;
    return Try(std::move(candidate));
  }

  bool TryConstant(const HloInstructionProto& old) {
    absl::StatusOr<Literal> value = ValueOf(old.id());
    if (!value.ok() || !value->shape().IsArray() || value->element_count() > 256) return false;
    ModuleProto candidate = best_;
    HloInstructionProto c = Replacement(old, "constant");
    *c.mutable_literal() = value->ToProto();
    *FindInstruction(Entry(&candidate), old.id()) = c;
    return Try(std::move(candidate));
  }

  bool SimplifyCalledComputations() {
    bool progress = false;
    std::vector<std::pair<int64_t, int64_t>> targets;  // (computation, instruction)
    for (const HloComputationProto& c : best_.computations()) {
      if (c.id() == best_.entry_computation_id()) continue;
      for (const HloInstructionProto& i : c.instructions()) {
        if (i.opcode() != "parameter") targets.push_back({c.id(), i.id()});
      }
    }
    for (auto it = targets.rbegin(); it != targets.rend() && Budget(); ++it) {
      HloComputationProto* c = FindComputation(&best_, it->first);
      if (c == nullptr) continue;
      const HloInstructionProto* found = FindInstruction(c, it->second);
      if (found == nullptr) continue;
      const HloInstructionProto old = *found;
      if (TryBypass(it->first, old)) {
        progress = true;
        continue;
      }
      absl::StatusOr<Shape> shape = ShapeUtil::FromProto(old.shape());
      if (old.opcode() == "constant" || !shape.ok() || !shape->IsArray()) continue;
      ModuleProto candidate = best_;
      HloInstructionProto zero = Replacement(old, "constant");
      *zero.mutable_literal() = Literal(*shape).ToProto();
      *FindInstruction(FindComputation(&candidate, it->first), old.id()) = zero;
      progress |= Try(std::move(candidate));
    }
    return progress;
  }

  bool ShrinkParameterDimensions() {
    bool progress = false;
    std::vector<int64_t> params;
    for (const HloInstructionProto& i : Entry(&best_)->instructions()) {
      if (i.opcode() == "parameter") params.push_back(i.id());
    }
    for (int64_t id : params) {
      for (int d = 0; Budget(); ++d) {
        const HloInstructionProto* p = FindInstruction(Entry(&best_), id);
        if (p == nullptr || p->shape().element_type() == TUPLE || d >= p->shape().dimensions_size()) break;
        const int64_t size = p->shape().dimensions(d);
        for (int64_t smaller : {int64_t{1}, int64_t{0}, size - 1}) {
          if (smaller < 0 || smaller >= size) continue;
          ModuleProto candidate = best_;
          FindInstruction(Entry(&candidate), id)->mutable_shape()->set_dimensions(d, smaller);
          absl::StatusOr<ModuleProto> reinferred = Reinfer(candidate);
          if (reinferred.ok() && Try(*std::move(reinferred))) {
            progress = true;
            break;
          }
        }
      }
    }
    return progress;
  }

  ModuleProto best_;
  std::string best_text_;
  StillFails still_fails_;
  ShrinkOptions options_;
  absl::Time deadline_;
  int candidates_ = 0;
  int accepted_ = 0;
};

// The status code and first words of a CPU failure's message (after the
// "compile (threads=N): " prefix), so that shrinking keeps the same failure.
std::string FailureSignature(const std::string& detail) {
  size_t start = detail.find("): ");
  start = start == std::string::npos ? 0 : start + 3;
  std::vector<std::string> words = absl::StrSplit(detail.substr(start), ' ', absl::SkipEmpty());
  if (words.size() > 4) words.resize(4);
  std::string signature;
  for (const std::string& w : words) {
    for (char ch : w) {
      if (!std::isdigit(static_cast<unsigned char>(ch))) signature += ch;
    }
    signature += ' ';
  }
  return signature;
}

}  // namespace

absl::StatusOr<ShrinkResult> ShrinkModule(const std::string& text, const StillFails& still_fails,
                                          const ShrinkOptions& options) {
  ASSIGN_OR_RETURN(ModuleProto proto, ParseHloModuleToProto(text));
  Shrinker shrinker(std::move(proto), still_fails, options);
  return shrinker.Run();
}

StillFails SameFinding(const RunResult& original, const RunOptions& options) {
  const Verdict verdict = original.verdict;
  const std::string signature = FailureSignature(original.detail);
  return [=](const std::string& text) {
    const RunResult r = RunDifferential(text, options);
    if (r.verdict != verdict) return false;
    return verdict != Verdict::kCpuFailure || FailureSignature(r.detail) == signature;
  };
}

}  // namespace hlo_fuzz
}  // namespace xla
