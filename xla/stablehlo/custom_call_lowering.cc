// stablehlo.custom_call to an HLO custom-call (targets other than the
// conformance `@check.*`, which check_lowering.cc handles). The target is
// not looked up here: an unregistered one fails when the module is
// compiled (xla/custom_call). backend_config: a string stays opaque; a
// dictionary (api_version 4, typed FFI) is written in the MLIR dictionary
// syntax CustomCallAttributes reads. Layouts other than row-major, called
// computations and output-operand aliasing have no HLO counterpart here and
// are rejected.
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/emitter.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {
namespace {

std::string QuoteString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\0A";
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

}  // namespace

// A layout: dense<[1, 0]> : tensor<2xindex> (index elements, which dense
// literals of HLO types cannot hold), or a plain integer list.
absl::StatusOr<std::vector<int64_t>> Emitter::LayoutList(const Attr& layout) const {
  if (layout.kind != Attr::kDense || layout.dense == nullptr || layout.dense->is_blob) return IntList(layout);
  std::vector<int64_t> out;
  const DenseNode& root = layout.dense->root;
  const std::vector<DenseNode> single = {root};
  for (const DenseNode& n : root.kind == DenseNode::kList ? root.items : single) {
    int64_t v = 0;
    if (n.kind != DenseNode::kNumber || !absl::SimpleAtoi(n.text, &v)) {
      return Error(n.loc, "expected a layout of integers");
    }
    out.push_back(v);
  }
  return out;
}

absl::StatusOr<Values> Emitter::LowerCustomCall(const Op& op, Scope& scope, const std::string& target) {
  ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
  HloInstructionProto attrs;
  attrs.set_custom_call_target(target);
  ASSIGN_OR_RETURN(bool side_effect, BoolAttr(op, "has_side_effect", false));
  attrs.set_custom_call_has_side_effect(side_effect);
  const Attr* version_attr = FindAttr(op, {"api_version"});
  ASSIGN_OR_RETURN(int64_t version, IntAttr(op, {"api_version"}, int64_t{API_VERSION_ORIGINAL}));
  if (!CustomCallApiVersion_IsValid(static_cast<int>(version))) {
    return OpError(op, absl::StrCat("unknown api_version ", version, " (0 to 4)"));
  }
  if (const Attr* config = FindAttr(op, {"backend_config"})) {
    if (config->kind == Attr::kString) {
      attrs.set_backend_config(config->text);
    } else if (config->kind == Attr::kDict) {
      if (version_attr != nullptr && version != API_VERSION_TYPED_FFI) {
        return OpError(op, "a dictionary backend_config needs api_version = 4 (typed FFI)");
      }
      version = API_VERSION_TYPED_FFI;
      std::vector<std::string> entries;
      for (const auto& [key, value] : config->fields) {
        std::string text;
        switch (value.kind) {
          case Attr::kUnit: text = ""; break;
          case Attr::kBool: text = value.b ? "true" : "false"; break;
          case Attr::kString: text = QuoteString(value.text); break;
          case Attr::kNumber:
            text = value.type.has_value() ? absl::StrCat(value.text, " : ", value.type->element) : value.text;
            break;
          default:
            return Error(value.loc, absl::StrCat("custom_call backend_config entry '", key,
                                                 "': only integers, floats, booleans, strings and unit "
                                                 "attributes are supported"));
        }
        entries.push_back(value.kind == Attr::kUnit ? QuoteString(key) : absl::StrCat(QuoteString(key), " = ", text));
      }
      attrs.set_backend_config(absl::StrCat("{", absl::StrJoin(entries, ", "), "}"));
    } else {
      return Error(config->loc, "custom_call backend_config must be a string or a dictionary");
    }
  }
  attrs.set_custom_call_api_version(static_cast<CustomCallApiVersion>(version));
  if (const Attr* called = FindAttr(op, {"called_computations"});
      called != nullptr && !(called->kind == Attr::kArray && called->list.empty())) {
    return OpError(op, "custom_call with called_computations is not supported");
  }
  if (const Attr* aliases = FindAttr(op, {"output_operand_aliases"});
      aliases != nullptr && !(aliases->kind == Attr::kArray && aliases->list.empty())) {
    return OpError(op, "custom_call with output_operand_aliases is not supported");
  }
  // Handlers see row-major buffers: only row-major layouts can be honored.
  for (const char* name : {"operand_layouts", "result_layouts"}) {
    const Attr* layouts = FindAttr(op, {name});
    if (layouts == nullptr) continue;
    if (layouts->kind != Attr::kArray) return Error(layouts->loc, absl::StrCat(name, " must be a list of layouts"));
    for (const Attr& layout : layouts->list) {
      ASSIGN_OR_RETURN(std::vector<int64_t> minor_to_major, LayoutList(layout));
      for (size_t i = 0; i < minor_to_major.size(); ++i) {
        if (minor_to_major[i] != static_cast<int64_t>(minor_to_major.size() - 1 - i)) {
          return Error(layout.loc, absl::StrCat("custom_call ", name,
                                                ": only row-major layouts are supported (handlers see "
                                                "row-major buffers)"));
        }
      }
    }
  }
  std::vector<Shape> results;
  for (int64_t i = 0; i < op.num_results(); ++i) {
    ASSIGN_OR_RETURN(Shape s, RequiredResultShape(op, static_cast<size_t>(i)));
    results.push_back(std::move(s));
  }
  const bool one = results.size() == 1;
  const Shape declared = one ? results[0] : ShapeUtil::MakeTupleShape(results);
  ASSIGN_OR_RETURN(HloInstruction * call, Emit(op, scope, HloOpcode::kCustomCall, operands, attrs, {}, declared));
  if (one) return Values{call};
  return Untuple(scope, call);
}

}  // namespace stablehlo
}  // namespace xla
