#include "xla/hlo/input_output_alias.h"

#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {

namespace {

std::string IndexText(absl::Span<const int64_t> index) { return absl::StrCat("{", absl::StrJoin(index, ","), "}"); }

// The text form's tokens, read left to right.
class AliasTextReader {
 public:
  explicit AliasTextReader(absl::string_view text) : text_(text) {}

  bool AtEnd() {
    Skip();
    return pos_ >= text_.size();
  }
  bool TryConsume(char c) {
    Skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  absl::Status Expect(char c, absl::string_view what) {
    if (TryConsume(c)) return absl::OkStatus();
    return Error(absl::StrCat("expected '", std::string(1, c), "' ", what));
  }
  absl::StatusOr<int64_t> Integer(absl::string_view what) {
    Skip();
    size_t end = pos_;
    if (end < text_.size() && text_[end] == '-') ++end;
    while (end < text_.size() && absl::ascii_isdigit(static_cast<unsigned char>(text_[end]))) ++end;
    int64_t value = 0;
    if (!absl::SimpleAtoi(text_.substr(pos_, end - pos_), &value)) {
      return Error(absl::StrCat("expected an integer (", what, ")"));
    }
    pos_ = end;
    return value;
  }
  // "{}" or "{1,2}".
  absl::StatusOr<std::vector<int64_t>> Index(absl::string_view what) {
    RETURN_IF_ERROR(Expect('{', absl::StrCat("to open ", what)));
    std::vector<int64_t> index;
    if (TryConsume('}')) return index;
    while (true) {
      ASSIGN_OR_RETURN(int64_t i, Integer(what));
      index.push_back(i);
      if (TryConsume('}')) return index;
      RETURN_IF_ERROR(Expect(',', absl::StrCat("or '}' in ", what)));
    }
  }
  absl::StatusOr<std::string> Word() {
    Skip();
    size_t end = pos_;
    while (end < text_.size() && (absl::ascii_isalpha(static_cast<unsigned char>(text_[end])) || text_[end] == '-' ||
                                  text_[end] == '_')) {
      ++end;
    }
    std::string word(text_.substr(pos_, end - pos_));
    pos_ = end;
    return word;
  }
  absl::Status Error(absl::string_view message) const {
    return InvalidArgument("input_output_alias: %s at offset %d of '%s'", message, pos_, text_);
  }

 private:
  void Skip() {
    while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  absl::string_view text_;
  size_t pos_ = 0;
};

// The array leaf at `index` of `shape`, or an error naming `what`.
absl::StatusOr<const Shape*> ArrayLeaf(const Shape& shape, absl::Span<const int64_t> index, const std::string& what) {
  absl::StatusOr<const Shape*> leaf = ShapeUtil::TryGetSubshape(shape, index);
  if (!leaf.ok()) {
    return InvalidArgument("%s: index %s is not in %s", what, IndexText(index), shape.ToString());
  }
  if (!(*leaf)->IsArray()) {
    return InvalidArgument("%s: index %s of %s is %s, not an array", what, IndexText(index), shape.ToString(),
                           (*leaf)->ToString());
  }
  return leaf;
}

int64_t CountLeaves(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += CountLeaves(s);
  return n;
}

}  // namespace

InputOutputAliasProto InputOutputAliasToProto(const InputOutputAlias& alias) {
  InputOutputAliasProto proto;
  for (int64_t i : alias.output_index) proto.add_output_shape_index(i);
  proto.set_parameter_number(alias.parameter);
  for (int64_t i : alias.parameter_index) proto.add_parameter_shape_index(i);
  proto.set_kind(alias.must_alias ? InputOutputAliasProto::MUST_ALIAS : InputOutputAliasProto::MAY_ALIAS);
  return proto;
}

InputOutputAlias InputOutputAliasFromProto(const InputOutputAliasProto& proto) {
  InputOutputAlias alias;
  alias.output_index.assign(proto.output_shape_index().begin(), proto.output_shape_index().end());
  alias.parameter = proto.parameter_number();
  alias.parameter_index.assign(proto.parameter_shape_index().begin(), proto.parameter_shape_index().end());
  alias.must_alias = proto.kind() == InputOutputAliasProto::MUST_ALIAS;
  return alias;
}

std::string InputOutputAliasesToText(absl::Span<const InputOutputAlias> aliases) {
  std::vector<std::string> entries;
  for (const InputOutputAlias& a : aliases) {
    entries.push_back(absl::StrCat(IndexText(a.output_index), ": (", a.parameter, ", ", IndexText(a.parameter_index),
                                   ", ", a.must_alias ? "must-alias" : "may-alias", ")"));
  }
  return entries.empty() ? "{}" : absl::StrCat("{ ", absl::StrJoin(entries, ", "), " }");
}

absl::StatusOr<std::vector<InputOutputAlias>> ParseInputOutputAliases(absl::string_view text) {
  AliasTextReader in(text);
  std::vector<InputOutputAlias> aliases;
  RETURN_IF_ERROR(in.Expect('{', "to open the alias list"));
  if (!in.TryConsume('}')) {
    while (true) {
      InputOutputAlias alias;
      ASSIGN_OR_RETURN(alias.output_index, in.Index("an output index"));
      RETURN_IF_ERROR(in.Expect(':', "after the output index"));
      RETURN_IF_ERROR(in.Expect('(', "to open the aliased parameter"));
      ASSIGN_OR_RETURN(alias.parameter, in.Integer("the parameter number"));
      RETURN_IF_ERROR(in.Expect(',', "after the parameter number"));
      ASSIGN_OR_RETURN(alias.parameter_index, in.Index("the parameter index"));
      if (in.TryConsume(',')) {
        ASSIGN_OR_RETURN(std::string kind, in.Word());
        if (kind == "must-alias") {
          alias.must_alias = true;
        } else if (kind != "may-alias") {
          return in.Error(absl::StrCat("unknown alias kind '", kind, "' (may-alias or must-alias)"));
        }
      }
      RETURN_IF_ERROR(in.Expect(')', "to close the aliased parameter"));
      aliases.push_back(std::move(alias));
      if (in.TryConsume('}')) break;
      RETURN_IF_ERROR(in.Expect(',', "or '}' after an alias"));
    }
  }
  if (!in.AtEnd()) return in.Error("text after the alias list");
  return aliases;
}

absl::Status CheckInputOutputAliases(absl::Span<const InputOutputAlias> aliases, const ProgramShape& entry) {
  std::set<std::vector<int64_t>> outputs;
  std::set<std::pair<int64_t, std::vector<int64_t>>> parameters;
  const int64_t num_parameters = static_cast<int64_t>(entry.parameters().size());
  for (const InputOutputAlias& a : aliases) {
    const std::string what = absl::StrCat("input_output_alias ", IndexText(a.output_index), ": (", a.parameter, ", ",
                                          IndexText(a.parameter_index), ")");
    if (a.parameter < 0 || a.parameter >= num_parameters) {
      return InvalidArgument("%s: parameter %d does not exist (the entry has %d)", what, a.parameter, num_parameters);
    }
    ASSIGN_OR_RETURN(const Shape* output, ArrayLeaf(entry.result(), a.output_index, what + " (the result)"));
    ASSIGN_OR_RETURN(const Shape* parameter,
                     ArrayLeaf(entry.parameters()[a.parameter], a.parameter_index, what + " (the parameter)"));
    if (!output->Compatible(*parameter)) {
      return InvalidArgument("%s: the result leaf %s and the parameter leaf %s differ in shape", what,
                             output->ToString(), parameter->ToString());
    }
    if (!outputs.insert(a.output_index).second) {
      return InvalidArgument("%s: the result leaf is aliased twice", what);
    }
    if (!parameters.insert({a.parameter, a.parameter_index}).second) {
      return InvalidArgument("%s: the parameter leaf is aliased twice", what);
    }
  }
  return absl::OkStatus();
}

int64_t LeafNumber(const Shape& shape, absl::Span<const int64_t> index) {
  if (index.empty()) return 0;
  int64_t before = 0;
  for (int64_t i = 0; i < index[0]; ++i) before += CountLeaves(shape.tuple_shapes(static_cast<int>(i)));
  return before + LeafNumber(shape.tuple_shapes(static_cast<int>(index[0])), index.subspan(1));
}

}  // namespace xla
