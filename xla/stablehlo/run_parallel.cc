// interpreter.run_parallel in an entry function: the entry is cut at each
// run_parallel into modules the conformance runner runs in turn, with the
// grid of processes between them (importer.h, ParallelStage). The programs
// and infeed functions are imported as modules of their own.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/stablehlo/emitter.h"
#include "xla/stablehlo/type_conversion.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {
namespace {

void CollectOpUses(const Op& op, std::vector<std::string>* used);

void CollectRegionUses(const Region& region, std::vector<std::string>* used) {
  for (const Block& block : region.blocks) {
    for (const Op& op : block.ops) CollectOpUses(op, used);
  }
}

void CollectOpUses(const Op& op, std::vector<std::string>* used) {
  for (const ValueRef& ref : op.operands) used->push_back(ref.name);
  for (const Region& r : op.regions) CollectRegionUses(r, used);
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> Emitter::ImportProgram(const Op& op, const std::string& name) {
  auto it = funcs_.find(name);
  if (it == funcs_.end()) return OpError(op, absl::StrCat("names unknown function @", name));
  // A fresh module: save the entry's state and restore it after.
  std::unique_ptr<HloModule> saved_hlo = std::move(hlo_);
  auto saved_lowered = std::move(lowered_);
  auto saved_in_progress = std::move(in_progress_);
  auto saved_names = std::move(computation_names_);
  Values saved_extra = std::move(extra_outputs_);
  EntryPoint* saved_entry = entry_;
  std::unique_ptr<HloComputation>* saved_slot = entry_comp_;
  const bool saved_tuple_root = tuple_root_;
  hlo_ = std::make_unique<HloModule>(name);
  lowered_.clear();
  in_progress_.clear();
  computation_names_.clear();
  extra_outputs_.clear();
  entry_ = nullptr;  // no top-level checks or run_parallel in a program; records_ stays
  entry_comp_ = nullptr;
  tuple_root_ = true;
  absl::StatusOr<HloComputation*> comp = LowerFunction(*it->second, /*is_entry=*/true);
  std::unique_ptr<HloModule> program = std::move(hlo_);
  hlo_ = std::move(saved_hlo);
  lowered_ = std::move(saved_lowered);
  in_progress_ = std::move(saved_in_progress);
  computation_names_ = std::move(saved_names);
  extra_outputs_ = std::move(saved_extra);
  entry_ = saved_entry;
  entry_comp_ = saved_slot;
  tuple_root_ = saved_tuple_root;
  if (!comp.ok()) return comp.status();
  RETURN_IF_ERROR(CheckRecordsAlone(*program, it->second->loc));
  return program;
}

absl::Status Emitter::SplitAtRunParallel(const Block& block, size_t i, Scope& scope) {
  const Op& op = block.ops[i];
  if (!op.regions.empty()) return OpError(op, "takes no regions");
  ParallelStage stage;
  stage.location = absl::StrCat(lex_.filename(), ":", lex_.Location(op.loc));

  // The grid of programs: rows are replicas, columns partitions.
  const Attr* programs = FindAttr(op, {"programs"});
  if (programs == nullptr || programs->kind != Attr::kArray || programs->list.empty()) {
    return OpError(op, "needs programs = [[@f, ...], ...] (one row per replica)");
  }
  stage.num_replicas = static_cast<int64_t>(programs->list.size());
  for (const Attr& row : programs->list) {
    if (row.kind != Attr::kArray || row.list.empty()) return Error(row.loc, "each row of programs lists functions");
    if (row.list.size() != programs->list[0].list.size()) {
      return Error(row.loc, "every row of programs needs the same number of partitions");
    }
    for (const Attr& f : row.list) {
      if (f.kind != Attr::kSymbol) return Error(f.loc, "expected a function @f");
      stage.programs.push_back(f.text);
    }
  }
  stage.num_partitions = static_cast<int64_t>(programs->list[0].list.size());
  int64_t want_operands = 0, want_results = 0;
  for (const std::string& name : stage.programs) {
    if (stage.modules.count(name) == 0) {
      ASSIGN_OR_RETURN(std::unique_ptr<HloModule> m, ImportProgram(op, name));
      stage.modules[name] = std::move(m);
    }
    const Func& f = *funcs_.at(name);
    want_operands += static_cast<int64_t>(f.args.size());
    want_results += static_cast<int64_t>(f.result_types.size());
  }
  if (const Attr* infeed = FindAttr(op, {"infeed"})) {
    if (infeed->kind != Attr::kArray) return Error(infeed->loc, "infeed lists functions [@f, ...]");
    for (const Attr& f : infeed->list) {
      if (f.kind != Attr::kSymbol) return Error(f.loc, "expected a function @f");
      auto it = funcs_.find(f.text);
      if (it == funcs_.end()) return Error(f.loc, absl::StrCat("unknown function @", f.text));
      if (!it->second->args.empty() || it->second->result_types.size() != 1) {
        return Error(f.loc, absl::StrCat("infeed function @", f.text, " must take nothing and return one value"));
      }
      ASSIGN_OR_RETURN(std::unique_ptr<HloModule> m, ImportProgram(op, f.text));
      stage.infeed.push_back(std::move(m));
    }
  }
  ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
  if (static_cast<int64_t>(operands.size()) != want_operands) {
    return OpError(op, absl::StrCat("passes ", operands.size(), " operands; its programs take ", want_operands));
  }
  if (op.num_results() != want_results) {
    return OpError(op, absl::StrCat("names ", op.num_results(), " results; its programs return ", want_results));
  }
  if (static_cast<int64_t>(op.result_types.size()) != want_results) {
    return OpError(op, "needs its result types written out");
  }
  stage.num_operands = want_operands;
  stage.num_results = want_results;

  // Values the rest of the function uses cross into the next module
  // (constants are re-created there instead).
  std::vector<std::string> used;
  for (size_t j = i + 1; j < block.ops.size(); ++j) CollectOpUses(block.ops[j], &used);
  absl::flat_hash_set<std::string> seen;
  std::vector<std::string> carried_names;
  Values carried;
  for (const std::string& name : used) {
    if (!seen.insert(name).second) continue;
    auto it = scope.values.find(name);
    if (it == scope.values.end()) continue;
    carried_names.push_back(name);
    for (HloInstruction* v : it->second) {
      if (v->opcode() != HloOpcode::kConstant) carried.push_back(v);
    }
  }
  // Top-level check operands recorded so far are carried too.
  Values outputs = operands;
  outputs.insert(outputs.end(), carried.begin(), carried.end());
  outputs.insert(outputs.end(), extra_outputs_.begin(), extra_outputs_.end());
  std::unique_ptr<HloComputation>& slot = *entry_comp_;
  slot->set_root_instruction(AddTuple(scope, outputs));
  hlo_->AddEntryComputation(std::move(slot));
  RETURN_IF_ERROR(CheckRecordsAlone(*hlo_, op.loc));
  if (entry_->stages.empty()) {
    entry_->module = std::move(hlo_);
  } else {
    entry_->stages.back().continuation = std::move(hlo_);
  }

  // The continuation: parameters are the run's results, the carried values
  // and the recorded check operands.
  hlo_ = std::make_unique<HloModule>(absl::StrCat(entry_->name, ".after_run_parallel.", entry_->stages.size()));
  lowered_.clear();
  in_progress_.clear();
  computation_names_.clear();
  slot = NewComputation(entry_->name);
  HloComputation* comp = slot.get();
  int64_t next_param = 0;
  auto param = [&](const Shape& shape) {
    return comp->AddInstruction(HloInstruction::CreateParameter(next_param++, shape, ""));
  };
  Values results;
  for (size_t r = 0; r < op.result_types.size(); ++r) {
    ASSIGN_OR_RETURN(Shape s, TypeToShape(op.result_types[r], lex_));
    results.push_back(param(s));
  }
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> remap;
  for (HloInstruction* v : carried) remap[v] = param(v->shape());
  for (HloInstruction*& v : extra_outputs_) v = param(v->shape());
  absl::flat_hash_map<std::string, Values> values;
  for (const std::string& name : carried_names) {
    Values vs = scope.values.at(name);
    for (HloInstruction*& v : vs) {
      if (v->opcode() == HloOpcode::kConstant) {
        v = comp->AddInstruction(HloInstruction::CreateConstant(Literal(v->literal())));
      } else {
        v = remap.at(v);
      }
    }
    values[name] = std::move(vs);
  }
  scope.values = std::move(values);
  scope.comp = comp;
  scope.record_token = nullptr;
  size_t next = 0;
  for (const ResultGroup& g : op.results) {
    scope.values[g.name] = Values(results.begin() + next, results.begin() + next + g.count);
    next += g.count;
  }
  entry_->stages.push_back(std::move(stage));
  return absl::OkStatus();
}

}  // namespace stablehlo
}  // namespace xla
