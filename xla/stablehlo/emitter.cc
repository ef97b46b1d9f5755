#include "xla/stablehlo/emitter.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "xla/primitive_util.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/dense_literal.h"
#include "xla/stablehlo/type_conversion.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {
namespace {

bool IsReturnOp(const std::string& name) {
  return name == "func.return" || name == "return" || name == "stablehlo.return";
}

// Calls nest this deep at most (a self-recursive function is an error, not
// a stack overflow).
constexpr int kMaxDepth = 200;

void CollectUses(const Region& region, std::vector<std::string>* used, absl::flat_hash_set<std::string>* defined) {
  for (const Block& block : region.blocks) {
    for (const BlockArg& arg : block.args) defined->insert(arg.name);
    for (const Op& op : block.ops) {
      for (const ValueRef& ref : op.operands) used->push_back(ref.name);
      for (const Region& r : op.regions) CollectUses(r, used, defined);
      for (const ResultGroup& g : op.results) defined->insert(g.name);
    }
  }
}

}  // namespace

Emitter::Emitter(const Module& module, const Lexer& lexer, const ImportOptions& options)
    : module_(module), lex_(lexer), options_(options) {
  for (const Func& f : module_.funcs) funcs_.emplace(f.name, &f);
}

absl::Status Emitter::OpError(const Op& op, absl::string_view message) const {
  return lex_.Error(op.loc, absl::StrCat(op.name, ": ", message));
}

std::unique_ptr<HloComputation> Emitter::NewComputation(const std::string& base) {
  std::string name = base;
  for (int i = 1; computation_names_.contains(name); ++i) name = absl::StrCat(base, ".", i);
  computation_names_.insert(name);
  auto comp = std::make_unique<HloComputation>(name);
  comp->set_parent(hlo_.get());
  return comp;
}

absl::StatusOr<EntryPoint> Emitter::ImportEntry(const Func& func) {
  EntryPoint entry;
  entry.name = func.name;
  entry.location = absl::StrCat(lex_.filename(), ":", lex_.Location(func.loc));
  entry.num_results = static_cast<int64_t>(func.result_types.size());
  hlo_ = std::make_unique<HloModule>(func.name);
  lowered_.clear();
  in_progress_.clear();
  computation_names_.clear();
  extra_outputs_.clear();
  record_outfeeds_.clear();
  entry_ = &entry;
  records_ = &entry;
  absl::StatusOr<HloComputation*> comp = LowerFunction(func, /*is_entry=*/true);
  entry_ = nullptr;
  records_ = nullptr;
  if (!comp.ok()) return comp.status();
  const int64_t n = entry.num_results;
  for (CheckSpec& c : entry.checks) {
    c.actual_output += n;
    if (c.expected_output >= 0) c.expected_output += n;
  }
  records_ = &entry;
  absl::Status alone = CheckRecordsAlone(*hlo_, func.loc);
  records_ = nullptr;
  RETURN_IF_ERROR(alone);
  if (entry.stages.empty()) {
    RETURN_IF_ERROR(ImportAliasing(func));
    entry.module = std::move(hlo_);
  } else {
    entry.stages.back().continuation = std::move(hlo_);
  }
  return entry;
}

absl::Status Emitter::ImportAliasing(const Func& func) {
  // JAX's donated arguments (jit's donate_argnums) carry
  // `tf.aliasing_output = k`: the argument's buffer may hold result k.
  const Shape& root = hlo_->entry_computation()->root_instruction()->shape();
  for (size_t i = 0; i < func.args.size(); ++i) {
    const Attr* attr = stablehlo::FindAttr(func.args[i].attrs, "tf.aliasing_output");
    if (attr == nullptr) continue;
    ASSIGN_OR_RETURN(int64_t k, NumberToInt(*attr, lex_));
    const int64_t results = root.IsTuple() ? root.tuple_shapes_size() : 1;
    if (k < 0 || k >= static_cast<int64_t>(func.result_types.size()) || k >= results) {
      return lex_.Error(func.args[i].loc, absl::StrCat("tf.aliasing_output = ", k, ": @", func.name, " has ",
                                                       func.result_types.size(), " results"));
    }
    InputOutputAlias alias;
    if (root.IsTuple()) alias.output_index = {k};
    alias.parameter = static_cast<int64_t>(i);
    hlo_->mutable_input_output_aliases().push_back(std::move(alias));
  }
  return absl::OkStatus();
}

absl::StatusOr<HloComputation*> Emitter::LowerFunction(const Func& func, bool is_entry) {
  if (!is_entry) {
    auto it = lowered_.find(func.name);
    if (it != lowered_.end()) return it->second;
    if (in_progress_.contains(func.name)) {
      return lex_.Error(func.loc, absl::StrCat("function @", func.name, " calls itself (recursion is not supported)"));
    }
  }
  if (++depth_ > kMaxDepth) {
    --depth_;
    return lex_.Error(func.loc, "calls nest too deeply");
  }
  in_progress_.insert(func.name);
  std::unique_ptr<HloComputation> comp = NewComputation(func.name);
  Scope scope;
  scope.comp = comp.get();
  scope.is_entry_body = is_entry;
  for (size_t i = 0; i < func.args.size(); ++i) {
    const BlockArg& arg = func.args[i];
    ASSIGN_OR_RETURN(Shape shape, TypeToShape(arg.type, lex_));
    HloInstruction* p =
        comp->AddInstruction(HloInstruction::CreateParameter(static_cast<int64_t>(i), shape, ""));
    scope.values[arg.name] = {p};
  }
  if (func.body.blocks.empty()) return lex_.Error(func.loc, "function has no body");
  std::unique_ptr<HloComputation>* saved_slot = entry_comp_;
  if (is_entry) entry_comp_ = &comp;
  absl::StatusOr<Values> results = LowerBlock(func.body.blocks[0], scope, func.body.loc);
  entry_comp_ = saved_slot;
  --depth_;
  if (!results.ok()) return results.status();
  if (results->size() != func.result_types.size()) {
    return lex_.Error(func.loc, absl::StrCat("function @", func.name, " declares ", func.result_types.size(),
                                             " results but returns ", results->size()));
  }
  for (size_t i = 0; i < results->size(); ++i) {
    ASSIGN_OR_RETURN(Shape declared, TypeToShape(func.result_types[i], lex_));
    if (!declared.Compatible((*results)[i]->shape())) {
      return lex_.Error(func.loc, absl::StrCat("function @", func.name, " declares result ", i, " as ",
                                               func.result_types[i].ToString(), " but returns ",
                                               (*results)[i]->shape().ToString()));
    }
  }
  Values outputs = *results;
  if (is_entry) outputs.insert(outputs.end(), extra_outputs_.begin(), extra_outputs_.end());
  HloInstruction* root;
  // The entry of an imported check program always returns a tuple (results
  // then check operands); otherwise one result is returned as itself.
  if (outputs.size() == 1 && !(is_entry && (options_.checks_as_outputs || tuple_root_))) {
    root = outputs[0];
  } else {
    root = AddTuple(scope, outputs);
  }
  comp->set_root_instruction(root);
  in_progress_.erase(func.name);
  HloComputation* raw;
  if (is_entry) {
    raw = hlo_->AddEntryComputation(std::move(comp));
  } else {
    raw = hlo_->AddEmbeddedComputation(std::move(comp));
    lowered_[func.name] = raw;
  }
  return raw;
}

absl::StatusOr<Values> Emitter::LowerBlock(const Block& block, Scope& scope, size_t loc) {
  for (size_t i = 0; i < block.ops.size(); ++i) {
    const Op& op = block.ops[i];
    if (IsReturnOp(op.name)) {
      if (i + 1 != block.ops.size()) return OpError(block.ops[i + 1], "op after the block's return");
      ASSIGN_OR_RETURN(Values values, Operands(op, scope));
      if (!op.operand_types.empty()) {
        if (op.operand_types.size() != values.size()) {
          return OpError(op, absl::StrCat("returns ", values.size(), " values but lists ", op.operand_types.size(),
                                          " types"));
        }
        for (size_t j = 0; j < values.size(); ++j) {
          ASSIGN_OR_RETURN(Shape s, TypeToShape(op.operand_types[j], lex_));
          if (!s.Compatible(values[j]->shape())) {
            return OpError(op, absl::StrCat("value ", j, " is ", values[j]->shape().ToString(), " but its type says ",
                                            op.operand_types[j].ToString()));
          }
        }
      }
      return values;
    }
    if (op.name == "interpreter.run_parallel" && scope.is_entry_body && entry_ != nullptr && entry_comp_ != nullptr) {
      RETURN_IF_ERROR(SplitAtRunParallel(block, i, scope));
      continue;
    }
    RETURN_IF_ERROR(LowerOp(op, scope));
  }
  return lex_.Error(loc, "block does not end with a return");
}

absl::Status Emitter::LowerOp(const Op& op, Scope& scope) {
  absl::StatusOr<Values> results;
  if (HasQuantizedTypes(op) || op.name == "stablehlo.uniform_quantize" || op.name == "stablehlo.uniform_dequantize") {
    results = LowerQuantizedOp(op, scope);
  } else if (absl::StartsWith(op.name, "chlo.")) {
    results = LowerChloOp(op, scope);
  } else {
    results = LowerStablehloOp(op, scope);
  }
  if (!results.ok()) return results.status();
  const int64_t n = op.num_results();
  if (static_cast<int64_t>(results->size()) != n) {
    return OpError(op, absl::StrCat("has ", results->size(), " results but ", n, " are named"));
  }
  if (!op.result_types.empty()) {
    if (op.result_types.size() != results->size()) {
      return OpError(op, absl::StrCat("has ", results->size(), " results but ", op.result_types.size(),
                                      " result types"));
    }
    for (size_t i = 0; i < results->size(); ++i) {
      ASSIGN_OR_RETURN(Shape declared, TypeToShape(op.result_types[i], lex_));
      if (!declared.Compatible((*results)[i]->shape())) {
        return OpError(op, absl::StrCat("result ", i, " is declared ", op.result_types[i].ToString(),
                                        " but the op computes ", (*results)[i]->shape().ToString()));
      }
    }
  }
  size_t next = 0;
  for (const ResultGroup& g : op.results) {
    Values group((*results).begin() + next, (*results).begin() + next + g.count);
    next += g.count;
    if (scope.values.contains(g.name)) return lex_.Error(g.loc, absl::StrCat("%", g.name, " is defined twice"));
    scope.values[g.name] = std::move(group);
  }
  return absl::OkStatus();
}

absl::StatusOr<Values> Emitter::Lookup(const ValueRef& ref, Scope& scope) {
  for (Scope* s = &scope; s != nullptr; s = s->parent) {
    auto it = s->values.find(ref.name);
    if (it == s->values.end()) continue;
    Values values = it->second;
    if (s != &scope) {
      // Outer values reach a region only as constants (cloned here); control
      // flow binds its other captures before lowering its regions.
      for (HloInstruction*& v : values) {
        if (v->opcode() != HloOpcode::kConstant) {
          return lex_.Error(ref.loc, absl::StrCat("%", ref.name,
                                                  " is defined outside this region; HLO passes only constants into "
                                                  "reducer, comparator and map bodies"));
        }
        v = AddConstant(scope, v->literal());
      }
      scope.values[ref.name] = values;
    }
    return values;
  }
  return lex_.Error(ref.loc, absl::StrCat("use of undefined value %", ref.name));
}

absl::StatusOr<HloInstruction*> Emitter::Operand(const Op& op, size_t i, Scope& scope) {
  if (i >= op.operands.size()) return OpError(op, absl::StrCat("needs an operand #", i));
  const ValueRef& ref = op.operands[i];
  ASSIGN_OR_RETURN(Values values, Lookup(ref, scope));
  if (!ref.has_index && values.size() != 1) {
    return lex_.Error(ref.loc, absl::StrCat("%", ref.name, " has ", values.size(), " results; name one as %", ref.name,
                                            "#N"));
  }
  if (ref.index < 0 || ref.index >= static_cast<int64_t>(values.size())) {
    return lex_.Error(ref.loc, absl::StrCat("%", ref.name, " has no result #", ref.index));
  }
  HloInstruction* v = values[ref.index];
  if (i < op.operand_types.size() && op.operand_types.size() == op.operands.size()) {
    ASSIGN_OR_RETURN(Shape declared, TypeToShape(op.operand_types[i], lex_));
    if (!declared.Compatible(v->shape())) {
      return lex_.Error(ref.loc, absl::StrCat(op.name, ": operand #", i, " %", ref.name, " is ",
                                              v->shape().ToString(), " but the op's type says ",
                                              op.operand_types[i].ToString()));
    }
  }
  return v;
}

absl::StatusOr<std::vector<int64_t>> Emitter::ConstantIntOperand(const Op& op, size_t i, Scope& scope,
                                                                  absl::string_view what) {
  ASSIGN_OR_RETURN(HloInstruction * v, Operand(op, i, scope));
  if (v->opcode() != HloOpcode::kConstant || !v->has_literal() ||
      !primitive_util::IsIntegralType(v->shape().element_type())) {
    return lex_.Error(op.operands[i].loc,
                      absl::StrCat(op.name, ": ", what, " (%", op.operands[i].name,
                                   ") must be an integer constant: shapes are static here, so they must be known "
                                   "when the module is imported"));
  }
  std::vector<int64_t> out;
  const int64_t n = ShapeUtil::ElementsIn(v->shape());
  for (int64_t k = 0; k < n; ++k) out.push_back(v->literal().GetAsInt64(k));
  return out;
}

absl::StatusOr<Values> Emitter::Operands(const Op& op, Scope& scope) {
  Values out;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    ASSIGN_OR_RETURN(HloInstruction * v, Operand(op, i, scope));
    out.push_back(v);
  }
  return out;
}

absl::Status Emitter::ExpectOperands(const Op& op, size_t n) const {
  if (op.operands.size() != n) {
    return OpError(op, absl::StrCat("expects ", n, " operands, got ", op.operands.size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<Shape>> Emitter::ResultShape(const Op& op, size_t i) const {
  if (i >= op.result_types.size()) return std::optional<Shape>();
  ASSIGN_OR_RETURN(Shape s, TypeToShape(op.result_types[i], lex_));
  return std::optional<Shape>(std::move(s));
}

absl::StatusOr<Shape> Emitter::RequiredResultShape(const Op& op, size_t i) const {
  if (i >= op.result_types.size()) return OpError(op, "needs its result type written out");
  return TypeToShape(op.result_types[i], lex_);
}

absl::StatusOr<HloInstruction*> Emitter::Emit(const Op& op, Scope& scope, HloOpcode opcode, const Values& operands,
                                              HloInstructionProto attrs, const std::vector<HloComputation*>& called,
                                              const std::optional<Shape>& declared) {
  std::vector<const Shape*> operand_shapes;
  for (HloInstruction* o : operands) operand_shapes.push_back(&o->shape());
  std::vector<ProgramShape> programs;
  for (HloComputation* c : called) programs.push_back(c->ComputeProgramShape());
  std::vector<const ProgramShape*> program_ptrs;
  for (const ProgramShape& p : programs) program_ptrs.push_back(&p);
  const Shape declared_shape = declared.has_value() ? *declared : Shape();
  absl::StatusOr<Shape> inferred =
      ShapeInference::InferInstructionShape(opcode, attrs, operand_shapes, program_ptrs, declared_shape);
  if (!inferred.ok()) return OpError(op, inferred.status().message());
  if (declared.has_value() && !declared->Compatible(*inferred)) {
    return OpError(op, absl::StrCat("declared result ", declared->ToString(), " does not match the inferred ",
                                    inferred->ToString()));
  }
  Shape shape = *inferred;
  shape.clear_layout();
  auto instr = HloInstruction::Create(opcode, shape, operands, called, std::move(attrs));
  return scope.comp->AddInstruction(std::move(instr));
}

HloInstruction* Emitter::AddConstant(Scope& scope, Literal literal) {
  return scope.comp->AddInstruction(HloInstruction::CreateConstant(std::move(literal)));
}

HloInstruction* Emitter::AddGetTupleElement(Scope& scope, HloInstruction* tuple, int64_t i) {
  const Shape& element = tuple->shape().tuple_shapes(static_cast<int>(i));
  return scope.comp->AddInstruction(HloInstruction::CreateGetTupleElement(element, tuple, i));
}

HloInstruction* Emitter::AddTuple(Scope& scope, const Values& elements) {
  return scope.comp->AddInstruction(HloInstruction::CreateTuple(elements));
}

Values Emitter::Untuple(Scope& scope, HloInstruction* tuple) {
  Values out;
  for (int i = 0; i < tuple->shape().tuple_shapes_size(); ++i) out.push_back(AddGetTupleElement(scope, tuple, i));
  return out;
}

std::vector<std::string> Emitter::FreeNames(const std::vector<const Region*>& regions) const {
  std::vector<std::string> used;
  absl::flat_hash_set<std::string> defined;
  for (const Region* r : regions) CollectUses(*r, &used, &defined);
  std::vector<std::string> free;
  absl::flat_hash_set<std::string> seen;
  for (const std::string& name : used) {
    if (!defined.contains(name) && seen.insert(name).second) free.push_back(name);
  }
  return free;
}

absl::StatusOr<std::vector<std::pair<std::string, Values>>> Emitter::Captures(const std::vector<std::string>& names,
                                                                              Scope& scope, size_t loc) {
  std::vector<std::pair<std::string, Values>> out;
  for (const std::string& name : names) {
    ValueRef ref;
    ref.name = name;
    ref.loc = loc;
    ASSIGN_OR_RETURN(Values values, Lookup(ref, scope));
    bool all_constant = true;
    for (HloInstruction* v : values) all_constant &= v->opcode() == HloOpcode::kConstant;
    if (!all_constant) out.emplace_back(name, std::move(values));
  }
  return out;
}

absl::StatusOr<HloComputation*> Emitter::LowerReducerRegion(const Op& op, const Region& region, Scope& outer,
                                                            const std::string& what) {
  if (region.blocks.size() != 1) return lex_.Error(region.loc, "expected a region with one block");
  if (++depth_ > kMaxDepth) {
    --depth_;
    return lex_.Error(region.loc, "regions nest too deeply");
  }
  std::unique_ptr<HloComputation> comp = NewComputation(absl::StrCat(what, ".region"));
  Scope scope;
  scope.parent = &outer;
  scope.comp = comp.get();
  scope.in_reducer = true;
  const Block& block = region.blocks[0];
  for (size_t i = 0; i < block.args.size(); ++i) {
    ASSIGN_OR_RETURN(Shape shape, TypeToShape(block.args[i].type, lex_));
    scope.values[block.args[i].name] = {
        comp->AddInstruction(HloInstruction::CreateParameter(static_cast<int64_t>(i), shape, ""))};
  }
  absl::StatusOr<Values> results = LowerBlock(block, scope, region.loc);
  --depth_;
  if (!results.ok()) return results.status();
  if (results->empty()) return lex_.Error(region.loc, absl::StrCat(op.name, ": the region returns nothing"));
  comp->set_root_instruction(results->size() == 1 ? (*results)[0] : AddTuple(scope, *results));
  return hlo_->AddEmbeddedComputation(std::move(comp));
}

absl::StatusOr<Values> Emitter::LowerWhile(const Op& op, Scope& scope) {
  if (op.regions.size() != 2) return OpError(op, absl::StrCat("needs 2 regions (cond, body), got ", op.regions.size()));
  ASSIGN_OR_RETURN(Values init, Operands(op, scope));
  const size_t n = init.size();
  ASSIGN_OR_RETURN(auto captures, Captures(FreeNames({&op.regions[0], &op.regions[1]}), scope, op.loc));
  Values state = init;
  for (const auto& [name, values] : captures) state.insert(state.end(), values.begin(), values.end());
  HloInstruction* init_tuple = AddTuple(scope, state);
  const Shape state_shape = init_tuple->shape();

  // Both regions take the state tuple; block arguments and captures are its
  // elements.
  auto lower = [&](const Region& region, bool is_body) -> absl::StatusOr<HloComputation*> {
    if (region.blocks.size() != 1) return lex_.Error(region.loc, "expected a region with one block");
    const Block& block = region.blocks[0];
    if (block.args.size() != n) {
      return lex_.Error(region.loc, absl::StrCat("the while region has ", block.args.size(),
                                                 " arguments but the while has ", n, " operands"));
    }
    std::unique_ptr<HloComputation> comp = NewComputation(is_body ? "while_body" : "while_cond");
    Scope inner;
    inner.parent = &scope;
    inner.comp = comp.get();
    HloInstruction* param = comp->AddInstruction(HloInstruction::CreateParameter(0, state_shape, ""));
    Values elements = Untuple(inner, param);
    for (size_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(Shape declared, TypeToShape(block.args[i].type, lex_));
      if (!declared.Compatible(elements[i]->shape())) {
        return lex_.Error(block.args[i].loc, absl::StrCat("while argument ", i, " is declared ",
                                                          block.args[i].type.ToString(), " but the operand is ",
                                                          elements[i]->shape().ToString()));
      }
      inner.values[block.args[i].name] = {elements[i]};
    }
    size_t next = n;
    Values passthrough;
    for (const auto& [name, values] : captures) {
      Values bound(elements.begin() + next, elements.begin() + next + values.size());
      next += values.size();
      passthrough.insert(passthrough.end(), bound.begin(), bound.end());
      inner.values[name] = bound;
    }
    if (++depth_ > kMaxDepth) {
      --depth_;
      return lex_.Error(region.loc, "regions nest too deeply");
    }
    absl::StatusOr<Values> results = LowerBlock(block, inner, region.loc);
    --depth_;
    if (!results.ok()) return results.status();
    if (!is_body) {
      if (results->size() != 1) return lex_.Error(region.loc, "the while condition must return one value");
      comp->set_root_instruction((*results)[0]);
    } else {
      if (results->size() != n) {
        return lex_.Error(region.loc, absl::StrCat("the while body returns ", results->size(), " values, expected ", n));
      }
      Values next_state = *results;
      next_state.insert(next_state.end(), passthrough.begin(), passthrough.end());
      comp->set_root_instruction(AddTuple(inner, next_state));
    }
    return hlo_->AddEmbeddedComputation(std::move(comp));
  };
  ASSIGN_OR_RETURN(HloComputation * cond, lower(op.regions[0], false));
  ASSIGN_OR_RETURN(HloComputation * body, lower(op.regions[1], true));
  ASSIGN_OR_RETURN(HloInstruction * loop, Emit(op, scope, HloOpcode::kWhile, {init_tuple}, {}, {cond, body}));
  Values all = Untuple(scope, loop);
  return Values(all.begin(), all.begin() + n);
}

absl::StatusOr<Values> Emitter::LowerConditional(const Op& op, Scope& scope, HloInstruction* index) {
  if (op.regions.empty()) return OpError(op, "needs at least one branch");
  std::vector<const Region*> regions;
  for (const Region& r : op.regions) regions.push_back(&r);
  ASSIGN_OR_RETURN(auto captures, Captures(FreeNames(regions), scope, op.loc));
  Values passed;
  for (const auto& [name, values] : captures) passed.insert(passed.end(), values.begin(), values.end());
  HloInstruction* operand = AddTuple(scope, passed);
  std::vector<HloComputation*> branches;
  for (const Region& region : op.regions) {
    if (region.blocks.size() != 1) return lex_.Error(region.loc, "expected a region with one block");
    if (!region.blocks[0].args.empty()) return lex_.Error(region.loc, "a branch takes no arguments");
    std::unique_ptr<HloComputation> comp = NewComputation("branch");
    Scope inner;
    inner.parent = &scope;
    inner.comp = comp.get();
    HloInstruction* param = comp->AddInstruction(HloInstruction::CreateParameter(0, operand->shape(), ""));
    Values elements = Untuple(inner, param);
    size_t next = 0;
    for (const auto& [name, values] : captures) {
      inner.values[name] = Values(elements.begin() + next, elements.begin() + next + values.size());
      next += values.size();
    }
    if (++depth_ > kMaxDepth) {
      --depth_;
      return lex_.Error(region.loc, "regions nest too deeply");
    }
    absl::StatusOr<Values> results = LowerBlock(region.blocks[0], inner, region.loc);
    --depth_;
    if (!results.ok()) return results.status();
    comp->set_root_instruction(AddTuple(inner, *results));
    branches.push_back(hlo_->AddEmbeddedComputation(std::move(comp)));
  }
  Values operands = {index};
  for (size_t i = 0; i < branches.size(); ++i) operands.push_back(operand);
  ASSIGN_OR_RETURN(HloInstruction * cond, Emit(op, scope, HloOpcode::kConditional, operands, {}, branches));
  return Untuple(scope, cond);
}

absl::StatusOr<Values> Emitter::LowerCall(const Op& op, Scope& scope, const std::string& callee) {
  auto it = funcs_.find(callee);
  if (it == funcs_.end()) return OpError(op, absl::StrCat("calls unknown function @", callee));
  ASSIGN_OR_RETURN(Values args, Operands(op, scope));
  const Func& func = *it->second;
  if (args.size() != func.args.size()) {
    return OpError(op, absl::StrCat("passes ", args.size(), " arguments to @", callee, ", which takes ",
                                    func.args.size()));
  }
  ASSIGN_OR_RETURN(HloComputation * comp, LowerFunction(func, /*is_entry=*/false));
  ASSIGN_OR_RETURN(HloInstruction * call, Emit(op, scope, HloOpcode::kCall, args, {}, {comp}));
  if (func.result_types.size() == 1) return Values{call};
  return Untuple(scope, call);
}

}  // namespace stablehlo
}  // namespace xla
