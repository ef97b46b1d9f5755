// Types: tensor<AxBxT>, tuple<...>, !stablehlo.token, element types.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/stablehlo/parser.h"
#include "xla/stablehlo/quant_type.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {
namespace {

PrimitiveType ElementTypeFromName(const std::string& name) {
  static const std::pair<const char*, PrimitiveType> kTypes[] = {
      {"i1", PRED},          {"i8", S8},   {"i16", S16},  {"i32", S32},  {"i64", S64},
      {"si8", S8},           {"si16", S16}, {"si32", S32}, {"si64", S64}, {"ui8", U8},
      {"ui16", U16},         {"ui32", U32}, {"ui64", U64}, {"f16", F16},  {"bf16", BF16},
      {"f32", F32},          {"f64", F64},  {"complex<f32>", C64}, {"complex<f64>", C128},
      {"i2", S2},            {"si2", S2},   {"i4", S4},    {"si4", S4},   {"ui2", U2},   {"ui4", U4},
      {"f8E5M2", F8E5M2},    {"f8E4M3", F8E4M3},           {"f8E4M3FN", F8E4M3FN},
      {"f8E4M3B11FNUZ", F8E4M3B11FNUZ},   {"f8E3M4", F8E3M4}, {"f8E5M2FNUZ", F8E5M2FNUZ},
      {"f8E4M3FNUZ", F8E4M3FNUZ},         {"f8E8M0FNU", F8E8M0FNU},  {"f6E2M3FN", F6E2M3FN},
      {"f6E3M2FN", F6E3M2FN},             {"f4E2M1FN", F4E2M1FN},
  };
  for (const auto& [n, t] : kTypes) {
    if (name == n) return t;
  }
  return PRIMITIVE_TYPE_INVALID;
}

}  // namespace

std::string Type::ToString() const {
  switch (kind) {
    case kToken:
      return "!stablehlo.token";
    case kElement:
      return element;
    case kTuple: {
      std::vector<std::string> parts;
      for (const Type& t : elements) parts.push_back(t.ToString());
      return absl::StrCat("tuple<", absl::StrJoin(parts, ", "), ">");
    }
    case kTensor: {
      std::string s = "tensor<";
      for (int64_t d : dims) absl::StrAppend(&s, d, "x");
      return absl::StrCat(s, element, ">");
    }
  }
  return "?";
}

absl::StatusOr<std::string> Parser::ParseElementTypeName() {
  DepthGuard guard(this);
  RETURN_IF_ERROR(CheckDepth());
  lex_.SkipSpace();
  size_t start = lex_.offset();
  if (lex_.Consume("complex<")) {
    ASSIGN_OR_RETURN(std::string inner, ParseElementTypeName());
    RETURN_IF_ERROR(lex_.Expect(">"));
    return absl::StrCat("complex<", inner, ">");
  }
  if (lex_.PeekRaw() == '!') {
    // !quant.uniform<...> and other dialect types: kept as text.
    lex_.set_offset(lex_.offset() + 1);
    ASSIGN_OR_RETURN(std::string name, lex_.Identifier());
    if (lex_.PeekRaw() == '<') RETURN_IF_ERROR(SkipBalanced('<', '>'));
    return std::string(lex_.text().substr(start, lex_.offset() - start));
  }
  std::string word = lex_.Word();
  if (word.empty()) return lex_.Error(start, "expected an element type");
  return word;
}

absl::Status Parser::ParseQuantized(Type* t, size_t loc) {
  if (!absl::StartsWith(t->element, "!quant.")) return absl::OkStatus();
  // The spelling starts after any spaces at `loc`.
  const size_t start = lex_.text().find('!', loc);
  ASSIGN_OR_RETURN(QuantizedType q, ParseQuantizedType(t->element, start, lex_));
  t->element_type = q.storage;
  t->quant = std::move(q);
  return absl::OkStatus();
}

absl::StatusOr<Type> Parser::ParseTensorType(size_t loc) {
  // After "tensor<".
  Type t;
  t.kind = Type::kTensor;
  t.loc = loc;
  lex_.SkipSpace();
  while (true) {
    char c = lex_.PeekRaw();
    if (c == '?' ) return lex_.ErrorHere("dynamic dimensions ('?') are not supported; shapes must be static");
    if (c < '0' || c > '9') break;
    ASSIGN_OR_RETURN(int64_t d, lex_.RawUnsigned());
    if (lex_.PeekRaw() != 'x') return lex_.ErrorHere("expected 'x' after a dimension size");
    lex_.set_offset(lex_.offset() + 1);
    t.dims.push_back(d);
  }
  const size_t element_loc = lex_.offset();
  ASSIGN_OR_RETURN(t.element, ParseElementTypeName());
  t.element_type = ElementTypeFromName(t.element);
  RETURN_IF_ERROR(ParseQuantized(&t, element_loc));
  RETURN_IF_ERROR(CheckQuantizedTensor(t, lex_));
  if (lex_.Consume(",")) {
    // An encoding attribute (e.g. bounds); ignored for static shapes.
    ASSIGN_OR_RETURN(Attr encoding, ParseAttrValue());
    (void)encoding;
  }
  RETURN_IF_ERROR(lex_.Expect(">"));
  return t;
}

absl::StatusOr<Type> Parser::ParseType() {
  DepthGuard guard(this);
  RETURN_IF_ERROR(CheckDepth());
  lex_.SkipSpace();
  size_t loc = lex_.offset();
  if (lex_.Consume("tensor<")) return ParseTensorType(loc);
  if (lex_.Consume("tuple<")) {
    Type t;
    t.kind = Type::kTuple;
    t.loc = loc;
    if (!lex_.Consume(">")) {
      do {
        ASSIGN_OR_RETURN(Type e, ParseType());
        t.elements.push_back(std::move(e));
      } while (lex_.Consume(","));
      RETURN_IF_ERROR(lex_.Expect(">"));
    }
    return t;
  }
  if (lex_.Consume("!stablehlo.token")) {
    Type t;
    t.kind = Type::kToken;
    t.loc = loc;
    return t;
  }
  char c = lex_.PeekRaw();
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '!') {
    Type t;
    t.kind = Type::kElement;
    t.loc = loc;
    ASSIGN_OR_RETURN(t.element, ParseElementTypeName());
    if (t.element == "index") {
      t.element_type = S64;
    } else {
      t.element_type = ElementTypeFromName(t.element);
    }
    RETURN_IF_ERROR(ParseQuantized(&t, loc));
    return t;
  }
  return lex_.ErrorHere("expected a type");
}

absl::StatusOr<std::vector<Type>> Parser::ParseResultTypes() {
  std::vector<Type> results;
  if (lex_.Consume("(")) {
    if (lex_.Consume(")")) return results;
    do {
      ASSIGN_OR_RETURN(Type t, ParseType());
      // Result attributes `{...}` (function signatures) are dropped.
      if (lex_.Peek() == '{') RETURN_IF_ERROR(ParseAttrDict().status());
      results.push_back(std::move(t));
    } while (lex_.Consume(","));
    RETURN_IF_ERROR(lex_.Expect(")"));
    return results;
  }
  ASSIGN_OR_RETURN(Type t, ParseType());
  results.push_back(std::move(t));
  return results;
}

absl::StatusOr<Parser::TypeSignature> Parser::ParseTypeSignature() {
  TypeSignature sig;
  if (lex_.Consume("(")) {
    if (!lex_.Consume(")")) {
      do {
        ASSIGN_OR_RETURN(Type t, ParseType());
        sig.inputs.push_back(std::move(t));
      } while (lex_.Consume(","));
      RETURN_IF_ERROR(lex_.Expect(")"));
    }
    RETURN_IF_ERROR(lex_.Expect("->"));
    sig.is_function = true;
    ASSIGN_OR_RETURN(sig.results, ParseResultTypes());
    return sig;
  }
  std::vector<Type> list;
  do {
    ASSIGN_OR_RETURN(Type t, ParseType());
    list.push_back(std::move(t));
  } while (lex_.Consume(","));
  if (lex_.Consume("->")) {
    sig.is_function = true;
    sig.inputs = std::move(list);
    ASSIGN_OR_RETURN(sig.results, ParseResultTypes());
    return sig;
  }
  sig.results = std::move(list);
  return sig;
}

}  // namespace stablehlo
}  // namespace xla
