// Emitter's typed access to op attributes, accepting both the pretty and
// the generic attribute spellings.
#include "absl/strings/str_cat.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/dense_literal.h"
#include "xla/stablehlo/emitter.h"
#include "xla/stablehlo/type_conversion.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {

const Attr* Emitter::FindAttr(const Op& op, std::initializer_list<const char*> names) const {
  for (const char* name : names) {
    if (const Attr* a = ::xla::stablehlo::FindAttr(op.attrs, name)) return a;
  }
  return nullptr;
}

absl::StatusOr<std::vector<int64_t>> Emitter::IntList(const Attr& attr) const {
  std::vector<int64_t> out;
  switch (attr.kind) {
    case Attr::kArray:
    case Attr::kDenseArray:
      for (const Attr& item : attr.list) {
        ASSIGN_OR_RETURN(int64_t v, NumberToInt(item, lex_));
        out.push_back(v);
      }
      return out;
    case Attr::kDense: {
      ASSIGN_OR_RETURN(auto rows, IntMatrix(attr));
      for (const auto& row : rows) out.insert(out.end(), row.begin(), row.end());
      return out;
    }
    case Attr::kNumber: {
      ASSIGN_OR_RETURN(int64_t v, NumberToInt(attr, lex_));
      return std::vector<int64_t>{v};
    }
    default:
      return lex_.Error(attr.loc, "expected a list of integers");
  }
}

absl::StatusOr<std::vector<std::vector<int64_t>>> Emitter::IntMatrix(const Attr& attr) const {
  std::vector<std::vector<int64_t>> rows;
  if (attr.kind == Attr::kArray) {
    for (const Attr& row : attr.list) {
      ASSIGN_OR_RETURN(std::vector<int64_t> r, IntList(row));
      rows.push_back(std::move(r));
    }
    return rows;
  }
  if (attr.kind != Attr::kDense || !attr.type.has_value()) {
    return lex_.Error(attr.loc, "expected dense<...> : tensor<...> of integers");
  }
  ASSIGN_OR_RETURN(Shape shape, TypeToShape(*attr.type, lex_));
  if (!shape.IsArray() || !primitive_util::IsIntegralType(shape.element_type()) || shape.rank() > 2) {
    return lex_.Error(attr.loc, "expected an integer tensor of rank 1 or 2");
  }
  ASSIGN_OR_RETURN(Literal lit, DenseToLiteral(*attr.dense, shape, attr.loc, lex_));
  const int64_t cols = shape.rank() == 2 ? shape.dimensions(1) : std::max<int64_t>(1, ShapeUtil::ElementsIn(shape));
  const int64_t count = ShapeUtil::ElementsIn(shape);
  for (int64_t i = 0; i < count; ++i) {
    if (i % cols == 0) rows.emplace_back();
    rows.back().push_back(lit.GetAsInt64(i));
  }
  if (shape.rank() == 2) rows.resize(shape.dimensions(0));
  return rows;
}

absl::StatusOr<std::vector<int64_t>> Emitter::IntListAttr(const Op& op, std::initializer_list<const char*> names,
                                                          bool required) const {
  const Attr* a = FindAttr(op, names);
  if (a == nullptr) {
    if (!required) return std::vector<int64_t>();
    return OpError(op, absl::StrCat("needs the attribute '", *names.begin(), "'"));
  }
  return IntList(*a);
}

absl::StatusOr<int64_t> Emitter::IntAttr(const Op& op, std::initializer_list<const char*> names,
                                         std::optional<int64_t> default_value) const {
  const Attr* a = FindAttr(op, names);
  if (a == nullptr) {
    if (default_value.has_value()) return *default_value;
    return OpError(op, absl::StrCat("needs the attribute '", *names.begin(), "'"));
  }
  return NumberToInt(*a, lex_);
}

absl::StatusOr<bool> Emitter::BoolAttr(const Op& op, const char* name, bool default_value) const {
  const Attr* a = FindAttr(op, {name});
  if (a == nullptr) return default_value;
  if (a->kind == Attr::kUnit) return true;
  if (a->kind != Attr::kBool) return lex_.Error(a->loc, absl::StrCat("'", name, "' must be true or false"));
  return a->b;
}

absl::StatusOr<std::string> Emitter::EnumAttr(const Op& op, std::initializer_list<const char*> names,
                                              std::optional<std::string> default_value) const {
  const Attr* a = FindAttr(op, names);
  if (a == nullptr) {
    if (default_value.has_value()) return *default_value;
    return OpError(op, absl::StrCat("needs the attribute '", *names.begin(), "'"));
  }
  if (a->kind != Attr::kEnum && a->kind != Attr::kString) {
    return lex_.Error(a->loc, absl::StrCat("'", *names.begin(), "' must be an enum value"));
  }
  return a->text;
}

}  // namespace stablehlo
}  // namespace xla
