// The check dialect (`check.expect_*`, `stablehlo.custom_call @check.*`)
// and the interpreter dialect's probe/print: their operands become outputs
// of the entry computation, described by CheckSpec/ProbeSpec for the
// conformance runner to compare after the run.
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
  const bool record = options_.checks_as_outputs && entry_ != nullptr;
  if (record && !scope.is_entry_body) {
    return OpError(op, "check, probe and print ops are supported only at the top level of an entry function");
  }
  if (name == "interpreter.probe") {
    if (operands.size() != 1) return OpError(op, "takes one operand");
    ASSIGN_OR_RETURN(std::string id, EnumAttr(op, {"probe_id"}));
    if (record) {
      entry_->probes.push_back(ProbeSpec{id, static_cast<int64_t>(extra_outputs_.size())});
      extra_outputs_.push_back(operands[0]);
    }
    return operands;
  }
  if (name == "interpreter.print") {
    if (operands.size() != 1) return OpError(op, "takes one operand");
    if (record) {
      entry_->prints.push_back(static_cast<int64_t>(extra_outputs_.size()));
      extra_outputs_.push_back(operands[0]);
    }
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
  if (!record) return Values{};
  check.actual_output = static_cast<int64_t>(extra_outputs_.size());
  extra_outputs_.push_back(operands[0]);
  if (want == 2) {
    check.expected_output = static_cast<int64_t>(extra_outputs_.size());
    extra_outputs_.push_back(operands[1]);
  }
  entry_->checks.push_back(std::move(check));
  return Values{};
}

}  // namespace stablehlo
}  // namespace xla
