// Attributes: dictionaries, arrays, array<T: ...>, dense<...> literals,
// #stablehlo enums and structs, symbols, numbers, strings, types.
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "xla/stablehlo/parser.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {

const Attr* FindAttr(const AttrDict& dict, const std::string& name) {
  for (const auto& [key, value] : dict) {
    if (key == name) return &value;
  }
  return nullptr;
}

const Attr* Attr::Find(const std::string& name) const { return FindAttr(fields, name); }

absl::Status Parser::SkipBalanced(char open, char close) {
  lex_.SkipSpace();
  size_t start = lex_.offset();
  if (lex_.PeekRaw() != open) return lex_.ErrorHere(absl::StrCat("expected '", std::string(1, open), "'"));
  int depth = 0;
  while (lex_.offset() < lex_.end()) {
    char c = lex_.PeekRaw();
    if (c == '"') {
      RETURN_IF_ERROR(lex_.String().status());
      continue;
    }
    lex_.set_offset(lex_.offset() + 1);
    if (c == open) ++depth;
    if (c == close && --depth == 0) return absl::OkStatus();
  }
  return lex_.Error(start, absl::StrCat("unbalanced '", std::string(1, open), "'"));
}

absl::StatusOr<AttrDict> Parser::ParseAttrDict() {
  RETURN_IF_ERROR(lex_.Expect("{"));
  AttrDict dict;
  if (lex_.Consume("}")) return dict;
  do {
    lex_.SkipSpace();
    size_t loc = lex_.offset();
    std::string key;
    if (lex_.PeekRaw() == '"') {
      ASSIGN_OR_RETURN(key, lex_.String());
    } else {
      ASSIGN_OR_RETURN(key, lex_.Identifier());
    }
    Attr value;
    value.loc = loc;
    if (lex_.Consume("=")) {
      ASSIGN_OR_RETURN(value, ParseAttrValue());
    }
    dict.emplace_back(std::move(key), std::move(value));
  } while (lex_.Consume(","));
  RETURN_IF_ERROR(lex_.Expect("}"));
  return dict;
}

absl::StatusOr<std::vector<int64_t>> Parser::ParseIntList() {
  RETURN_IF_ERROR(lex_.Expect("["));
  std::vector<int64_t> values;
  if (lex_.Consume("]")) return values;
  do {
    ASSIGN_OR_RETURN(int64_t v, lex_.Integer());
    values.push_back(v);
  } while (lex_.Consume(","));
  RETURN_IF_ERROR(lex_.Expect("]"));
  return values;
}

absl::StatusOr<DenseNode> Parser::ParseDenseNode() {
  DepthGuard guard(this);
  RETURN_IF_ERROR(CheckDepth());
  lex_.SkipSpace();
  DenseNode node;
  node.loc = lex_.offset();
  if (lex_.Consume("[")) {
    node.kind = DenseNode::kList;
    if (lex_.Consume("]")) return node;
    do {
      ASSIGN_OR_RETURN(DenseNode item, ParseDenseNode());
      node.items.push_back(std::move(item));
    } while (lex_.Consume(","));
    RETURN_IF_ERROR(lex_.Expect("]"));
    return node;
  }
  if (lex_.Consume("(")) {
    node.kind = DenseNode::kComplex;
    ASSIGN_OR_RETURN(DenseNode re, ParseDenseNode());
    RETURN_IF_ERROR(lex_.Expect(","));
    ASSIGN_OR_RETURN(DenseNode im, ParseDenseNode());
    RETURN_IF_ERROR(lex_.Expect(")"));
    if (re.kind != DenseNode::kNumber || im.kind != DenseNode::kNumber) {
      return lex_.Error(node.loc, "a complex element needs two numbers");
    }
    node.items.push_back(std::move(re));
    node.items.push_back(std::move(im));
    return node;
  }
  if (lex_.ConsumeWord("true") || lex_.ConsumeWord("false")) {
    node.kind = DenseNode::kBool;
    node.value = lex_.text()[node.loc] == 't';
    return node;
  }
  node.kind = DenseNode::kNumber;
  ASSIGN_OR_RETURN(node.text, lex_.NumberText());
  return node;
}

absl::StatusOr<Attr> Parser::ParseDense(size_t loc) {
  // After "dense<".
  Attr attr;
  attr.kind = Attr::kDense;
  attr.loc = loc;
  attr.dense = std::make_shared<DenseAttr>();
  if (lex_.Consume(">")) {
    attr.dense->empty = true;
  } else {
    if (lex_.Peek() == '"') {
      size_t sloc = lex_.offset();
      ASSIGN_OR_RETURN(std::string s, lex_.String());
      if (!absl::StartsWith(s, "0x") && !absl::StartsWith(s, "0X")) {
        return lex_.Error(sloc, "a dense string must be a hex blob \"0x...\"");
      }
      for (size_t i = 2; i < s.size(); ++i) {
        if (!absl::ascii_isxdigit(static_cast<unsigned char>(s[i]))) {
          return lex_.Error(sloc, "the hex blob has a character that is not a hex digit");
        }
      }
      attr.dense->is_blob = true;
      attr.dense->blob = s.substr(2);
    } else {
      ASSIGN_OR_RETURN(attr.dense->root, ParseDenseNode());
    }
    RETURN_IF_ERROR(lex_.Expect(">"));
  }
  if (lex_.Consume(":")) {
    ASSIGN_OR_RETURN(attr.type, ParseType());
  }
  return attr;
}

absl::StatusOr<std::vector<std::string>> Parser::ParseConvLayout() {
  RETURN_IF_ERROR(lex_.Expect("["));
  std::vector<std::string> dims;
  if (lex_.Consume("]")) return dims;
  do {
    lex_.SkipSpace();
    std::string w = lex_.Word();
    if (w.empty()) return lex_.ErrorHere("expected a convolution dimension (b, f, i, o or a digit)");
    dims.push_back(w);
  } while (lex_.Consume(","));
  RETURN_IF_ERROR(lex_.Expect("]"));
  return dims;
}

absl::StatusOr<ConvLayouts> Parser::ParseConvLayouts() {
  ConvLayouts layouts;
  ASSIGN_OR_RETURN(layouts.input, ParseConvLayout());
  RETURN_IF_ERROR(lex_.Expect("x"));
  ASSIGN_OR_RETURN(layouts.kernel, ParseConvLayout());
  RETURN_IF_ERROR(lex_.Expect("->"));
  ASSIGN_OR_RETURN(layouts.output, ParseConvLayout());
  return layouts;
}

absl::StatusOr<Attr> Parser::ParseHashAttr(size_t loc) {
  // After '#'.
  Attr attr;
  attr.loc = loc;
  ASSIGN_OR_RETURN(std::string name, lex_.Identifier());
  if (name == "stablehlo" || name == "chlo" || name == "mhlo") {
    // #stablehlo<kind VALUE>
    RETURN_IF_ERROR(lex_.Expect("<"));
    attr.kind = Attr::kEnum;
    ASSIGN_OR_RETURN(attr.enum_kind, lex_.Identifier());
    ASSIGN_OR_RETURN(attr.text, lex_.Identifier());
    RETURN_IF_ERROR(lex_.Expect(">"));
    return attr;
  }
  attr.text = name;
  RETURN_IF_ERROR(lex_.Expect("<"));
  if (absl::EndsWith(name, ".conv") && !lex_.LooksAt("raw")) {
    attr.kind = Attr::kConv;
    ASSIGN_OR_RETURN(ConvLayouts layouts, ParseConvLayouts());
    attr.conv = std::make_shared<ConvLayouts>(std::move(layouts));
    RETURN_IF_ERROR(lex_.Expect(">"));
    return attr;
  }
  lex_.ConsumeWord("raw");
  attr.kind = Attr::kStruct;
  // Some structs hold a bare enum value: #stablehlo.result_accuracy_mode<DEFAULT>.
  if (lex_.Consume(">")) return attr;
  do {
    lex_.SkipSpace();
    size_t key_loc = lex_.offset();
    ASSIGN_OR_RETURN(std::string key, lex_.Identifier());
    Attr value;
    value.loc = key_loc;
    if (lex_.Consume("=")) {
      ASSIGN_OR_RETURN(value, ParseAttrValue());
    } else {
      value.kind = Attr::kEnum;
      value.text = key;
    }
    attr.fields.emplace_back(std::move(key), std::move(value));
  } while (lex_.Consume(","));
  RETURN_IF_ERROR(lex_.Expect(">"));
  return attr;
}

absl::StatusOr<Attr> Parser::ParseAttrValue() {
  DepthGuard guard(this);
  RETURN_IF_ERROR(CheckDepth());
  lex_.SkipSpace();
  size_t loc = lex_.offset();
  Attr attr;
  attr.loc = loc;
  char c = lex_.PeekRaw();
  if (c == '[') {
    lex_.Consume("[");
    attr.kind = Attr::kArray;
    if (lex_.Consume("]")) return attr;
    do {
      ASSIGN_OR_RETURN(Attr item, ParseAttrValue());
      attr.list.push_back(std::move(item));
    } while (lex_.Consume(","));
    RETURN_IF_ERROR(lex_.Expect("]"));
    return attr;
  }
  if (c == '{') {
    attr.kind = Attr::kDict;
    ASSIGN_OR_RETURN(attr.fields, ParseAttrDict());
    return attr;
  }
  if (lex_.Consume("array<")) {
    attr.kind = Attr::kDenseArray;
    ASSIGN_OR_RETURN(Type t, ParseType());
    attr.type = t;
    if (lex_.Consume(":")) {
      do {
        Attr item;
        lex_.SkipSpace();
        item.loc = lex_.offset();
        if (lex_.ConsumeWord("true") || lex_.ConsumeWord("false")) {
          item.kind = Attr::kBool;
          item.b = lex_.text()[item.loc] == 't';
        } else {
          item.kind = Attr::kNumber;
          ASSIGN_OR_RETURN(item.text, lex_.NumberText());
        }
        attr.list.push_back(std::move(item));
      } while (lex_.Consume(","));
    }
    RETURN_IF_ERROR(lex_.Expect(">"));
    return attr;
  }
  if (lex_.Consume("dense<")) return ParseDense(loc);
  if (lex_.LooksAt("dense_resource<")) {
    return lex_.ErrorHere("dense_resource literals are not supported (the blob is not in the text)");
  }
  if (c == '"') {
    attr.kind = Attr::kString;
    ASSIGN_OR_RETURN(attr.text, lex_.String());
    if (lex_.Consume(":")) {
      ASSIGN_OR_RETURN(attr.type, ParseType());
    }
    return attr;
  }
  if (c == '@') {
    lex_.set_offset(lex_.offset() + 1);
    attr.kind = Attr::kSymbol;
    ASSIGN_OR_RETURN(attr.text, lex_.SymbolSuffix());
    while (lex_.Consume("::@")) {
      ASSIGN_OR_RETURN(std::string nested, lex_.SymbolSuffix());
      attr.text = nested;  // the leaf symbol; modules are flattened
    }
    return attr;
  }
  if (c == '#') {
    lex_.set_offset(lex_.offset() + 1);
    return ParseHashAttr(loc);
  }
  if (lex_.ConsumeWord("true") || lex_.ConsumeWord("false")) {
    attr.kind = Attr::kBool;
    attr.b = lex_.text()[loc] == 't';
    return attr;
  }
  if (lex_.ConsumeWord("unit")) {
    attr.kind = Attr::kUnit;
    return attr;
  }
  if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
    attr.kind = Attr::kNumber;
    ASSIGN_OR_RETURN(attr.text, lex_.NumberText());
    if (lex_.Consume(":")) {
      ASSIGN_OR_RETURN(attr.type, ParseType());
    }
    return attr;
  }
  if (lex_.LooksAt("tensor<") || lex_.LooksAt("tuple<") || lex_.LooksAt("!")) {
    attr.kind = Attr::kType;
    ASSIGN_OR_RETURN(attr.type, ParseType());
    return attr;
  }
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
    attr.kind = Attr::kEnum;
    ASSIGN_OR_RETURN(attr.text, lex_.Identifier());
    return attr;
  }
  return lex_.ErrorHere("expected an attribute value");
}

}  // namespace stablehlo
}  // namespace xla
