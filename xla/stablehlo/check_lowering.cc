// The check dialect (`check.expect_*`, `stablehlo.custom_call @check.*`)
// and the interpreter dialect's probe/print. Checks at the entry function's
// top level run once: their operands become outputs of the entry
// computation. Prints, probes and nested checks run any number of times
// (loops, branches, callees, run_parallel programs): each execution sends
// an outfeed record, which the conformance runner drains after the run
// (importer.h, InstrumentSite).
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "xla/stablehlo/dense_literal.h"
#include "xla/stablehlo/emitter.h"
#include "xla/stablehlo/type_conversion.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {

absl::StatusOr<Values> Emitter::LowerCheck(const Op& op, Scope& scope) {
  std::string name = op.name;
  bool custom_call = false;
  if (name == "stablehlo.custom_call") {
    const Attr* target = FindAttr(op, {"call_target_name", "callee"});
    if (target == nullptr) return OpError(op, "needs a call target");
    name = target->text;
    custom_call = true;
  }
  if (name == "interpreter.run_parallel") {
    return OpError(op, "is supported only at the top level of an entry function (@main)");
  }
  ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
  if (name == "interpreter.probe") {
    if (operands.size() != 1) return OpError(op, "takes one operand");
    InstrumentSite site;
    site.kind = InstrumentSite::kProbe;
    ASSIGN_OR_RETURN(site.name, EnumAttr(op, {"probe_id"}));
    RETURN_IF_ERROR(EmitRecord(op, scope, std::move(site), operands));
    return operands;
  }
  if (name == "interpreter.print") {
    if (operands.size() != 1) return OpError(op, "takes one operand");
    InstrumentSite site;
    site.kind = InstrumentSite::kPrint;
    const ValueRef& ref = op.operands[0];
    site.name = ref.has_index ? absl::StrCat("%", ref.name, "#", ref.index) : absl::StrCat("%", ref.name);
    RETURN_IF_ERROR(EmitRecord(op, scope, std::move(site), operands));
    return Values{};
  }
  if (absl::StartsWith(name, "interpreter.")) return OpError(op, "unknown interpreter op");
  if (op.num_results() != 0) return OpError(op, "a check has no results");
  CheckSpec check;
  check.custom_call_form = custom_call;
  check.location = absl::StrCat(lex_.filename(), ":", lex_.Location(op.loc));
  absl::string_view kind = name;
  if (!absl::ConsumePrefix(&kind, "check.")) return OpError(op, "unknown check");
  const bool is_const = absl::ConsumeSuffix(&kind, "_const");
  if (kind == "expect_eq") {
    check.kind = CheckSpec::kEq;
  } else if (kind == "expect_almost_eq") {
    check.kind = CheckSpec::kAlmostEq;
    if (const Attr* t = FindAttr(op, {"tolerance"})) {
      ASSIGN_OR_RETURN(check.tolerance, NumberToDouble(*t, lex_));
    }
  } else if (kind == "expect_close" && !is_const) {
    check.kind = CheckSpec::kClose;
    ASSIGN_OR_RETURN(check.max_ulp, IntAttr(op, {"max_ulp_difference"}, 1));
    ASSIGN_OR_RETURN(check.min_ulp, IntAttr(op, {"min_ulp_difference"}, 0));
  } else if (kind == "expect_serialized_eq" && !is_const) {
    check.kind = CheckSpec::kSerializedEq;
    ASSIGN_OR_RETURN(check.probe_id, EnumAttr(op, {"probe_id"}));
    ASSIGN_OR_RETURN(check.probe_iter, IntAttr(op, {"iter"}, 0));
  } else {
    return OpError(op, absl::StrCat("unknown check '", name, "'"));
  }
  const size_t want = is_const || check.kind == CheckSpec::kSerializedEq ? 1 : 2;
  if (operands.size() != want) return OpError(op, absl::StrCat("takes ", want, " operands, got ", operands.size()));
  if (!operands[0]->shape().IsArray()) return OpError(op, "checks compare arrays");
  if (is_const) {
    const Attr* value = FindAttr(op, {"value"});
    if (value == nullptr || value->kind != Attr::kDense) return OpError(op, "needs a dense<...> literal");
    Shape shape = operands[0]->shape();
    if (value->type.has_value()) {
      ASSIGN_OR_RETURN(shape, TypeToShape(*value->type, lex_));
    }
    ASSIGN_OR_RETURN(Literal literal, DenseToLiteral(*value->dense, shape, value->loc, lex_));
    if (literal.element_type() != operands[0]->shape().element_type()) {
      absl::StatusOr<Literal> converted = literal.Convert(operands[0]->shape().element_type());
      if (!converted.ok()) return OpError(op, converted.status().message());
      literal = std::move(*converted);
    }
    check.expected_literal = std::move(literal);
  }
  if (!options_.checks_as_outputs || records_ == nullptr) return Values{};
  if (!(scope.is_entry_body && entry_ != nullptr)) {
    // Nested: the record is (site, actual[, expected]).
    InstrumentSite site;
    site.kind = InstrumentSite::kCheck;
    check.actual_output = 1;
    if (want == 2) check.expected_output = 2;
    site.check = std::move(check);
    RETURN_IF_ERROR(EmitRecord(op, scope, std::move(site), operands));
    return Values{};
  }
  check.actual_output = static_cast<int64_t>(extra_outputs_.size());
  extra_outputs_.push_back(operands[0]);
  if (want == 2) {
    check.expected_output = static_cast<int64_t>(extra_outputs_.size());
    extra_outputs_.push_back(operands[1]);
  }
  entry_->checks.push_back(std::move(check));
  return Values{};
}

absl::Status Emitter::EmitRecord(const Op& op, Scope& scope, InstrumentSite site, const Values& values) {
  if (!options_.checks_as_outputs || records_ == nullptr) return absl::OkStatus();
  if (scope.in_reducer) {
    return OpError(op, "is not supported in a reducer, comparator or map body (HLO may run those bodies any number "
                       "of times, in any order)");
  }
  for (const HloInstruction* v : values) {
    if (!v->shape().IsArray()) return OpError(op, "records arrays only");
  }
  const int64_t index = static_cast<int64_t>(records_->sites.size());
  if (index > std::numeric_limits<int32_t>::max()) return OpError(op, "too many print, probe and check sites");
  records_->sites.push_back(std::move(site));
  records_->instrumented_modules.insert(hlo_->name());
  if (scope.record_token == nullptr) {
    ASSIGN_OR_RETURN(scope.record_token, Emit(op, scope, HloOpcode::kAfterAll, {}));
  }
  Values elements = {AddConstant(scope, Literal::CreateR0<int32_t>(static_cast<int32_t>(index)))};
  elements.insert(elements.end(), values.begin(), values.end());
  ASSIGN_OR_RETURN(HloInstruction * outfeed,
                   Emit(op, scope, HloOpcode::kOutfeed, {AddTuple(scope, elements), scope.record_token}));
  record_outfeeds_.insert(outfeed);
  scope.record_token = outfeed;
  return absl::OkStatus();
}

absl::Status Emitter::CheckRecordsAlone(const HloModule& module, size_t loc) const {
  if (records_ == nullptr || records_->instrumented_modules.count(module.name()) == 0) return absl::OkStatus();
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      if (i->opcode() == HloOpcode::kOutfeed && !record_outfeeds_.contains(i)) {
        return lex_.Error(loc, "interpreter.print, interpreter.probe and nested checks send their values through "
                               "the outfeed, so they cannot share a program with stablehlo.outfeed");
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace stablehlo
}  // namespace xla
