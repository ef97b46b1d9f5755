// Pretty (custom assembly) forms of ops, parsed into the generic shape.
// Most forms are `op ITEMS [{attrs}] [: types]` where ITEMS are operands,
// `key = value` pairs, bare enum words (compare's direction and type) and
// bracketed slice specs; reduce, while and convolution have their own
// grammar.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xla/stablehlo/parser.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {
namespace {

bool IsReturn(const std::string& name) {
  return name == "func.return" || name == "return" || name == "stablehlo.return";
}

Attr IntAttr(int64_t v, size_t loc) {
  Attr a;
  a.kind = Attr::kNumber;
  a.text = std::to_string(v);
  a.loc = loc;
  return a;
}

}  // namespace

absl::StatusOr<Attr> Parser::ParsePrettyValue(const std::string& key) {
  lex_.SkipSpace();
  size_t loc = lex_.offset();
  if (lex_.LooksAt("<") ) {
    // algorithm = <lhs_precision_type = tf32, ...> on dot_general.
    RETURN_IF_ERROR(SkipBalanced('<', '>'));
    Attr a;
    a.kind = Attr::kStruct;
    a.text = std::string(lex_.text().substr(loc, lex_.offset() - loc));
    a.loc = loc;
    return a;
  }
  char c = lex_.PeekRaw();
  if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
    // `dim = 0 : tensor<...>`: the type after a pretty number is the op's.
    Attr number;
    number.kind = Attr::kNumber;
    number.loc = loc;
    ASSIGN_OR_RETURN(number.text, lex_.NumberText());
    return number;
  }
  ASSIGN_OR_RETURN(Attr value, ParseAttrValue());
  if (value.kind == Attr::kArray && lex_.ConsumeWord("x")) {
    // batching_dims = [0] x [0]
    ASSIGN_OR_RETURN(Attr rhs, ParseAttrValue());
    Attr pair;
    pair.kind = Attr::kArray;
    pair.loc = loc;
    pair.text = "pair";
    pair.list.push_back(std::move(value));
    pair.list.push_back(std::move(rhs));
    return pair;
  }
  (void)key;
  return value;
}

absl::Status Parser::ParseSliceSpec(Op* op) {
  // [start:limit:stride, ...] or, for get_tuple_element, [index].
  lex_.SkipSpace();
  size_t loc = lex_.offset();
  RETURN_IF_ERROR(lex_.Expect("["));
  Attr starts, limits, strides;
  starts.kind = limits.kind = strides.kind = Attr::kArray;
  starts.loc = limits.loc = strides.loc = loc;
  bool any_colon = false;
  if (!lex_.Consume("]")) {
    do {
      size_t item_loc = (lex_.SkipSpace(), lex_.offset());
      ASSIGN_OR_RETURN(int64_t start, lex_.Integer());
      starts.list.push_back(IntAttr(start, item_loc));
      if (lex_.Consume(":")) {
        any_colon = true;
        ASSIGN_OR_RETURN(int64_t limit, lex_.Integer());
        limits.list.push_back(IntAttr(limit, item_loc));
        int64_t stride = 1;
        if (lex_.Consume(":")) {
          ASSIGN_OR_RETURN(stride, lex_.Integer());
        }
        strides.list.push_back(IntAttr(stride, item_loc));
      }
    } while (lex_.Consume(","));
    RETURN_IF_ERROR(lex_.Expect("]"));
  }
  if (!any_colon) {
    if (starts.list.size() != 1) return lex_.Error(loc, "expected [index] or [start:limit:stride, ...]");
    op->attrs.emplace_back("index", starts.list[0]);
    return absl::OkStatus();
  }
  if (limits.list.size() != starts.list.size()) {
    return lex_.Error(loc, "every slice dimension needs start:limit");
  }
  op->attrs.emplace_back("start_indices", std::move(starts));
  op->attrs.emplace_back("limit_indices", std::move(limits));
  op->attrs.emplace_back("strides", std::move(strides));
  return absl::OkStatus();
}

absl::Status Parser::ParsePrettyItems(Op* op) {
  int word_count = 0;
  bool first = true;
  bool in_parens = false;
  while (true) {
    lex_.SkipSpace();
    char c = lex_.PeekRaw();
    size_t loc = lex_.offset();
    if (first && c == '(') {
      lex_.Consume("(");
      in_parens = true;
      if (lex_.Consume(")")) in_parens = false;
      first = false;
      continue;
    }
    if (in_parens && c == ')') {
      lex_.Consume(")");
      in_parens = false;
      first = false;
      continue;
    }
    if (c == '%') {
      ASSIGN_OR_RETURN(ValueRef ref, ParseValueRef());
      op->operands.push_back(std::move(ref));
      if (lex_.Peek() == '[') RETURN_IF_ERROR(ParseSliceSpec(op));
    } else if (c == '[') {
      RETURN_IF_ERROR(ParseSliceSpec(op));
    } else if (c == '@') {
      lex_.Consume("@");
      Attr sym;
      sym.kind = Attr::kSymbol;
      sym.loc = loc;
      ASSIGN_OR_RETURN(sym.text, lex_.SymbolSuffix());
      op->attrs.emplace_back("callee", std::move(sym));
      if (lex_.PeekRaw() == '(') {
        first = true;
        continue;
      }
    } else if (c == '"') {
      Attr s;
      s.kind = Attr::kString;
      s.loc = loc;
      ASSIGN_OR_RETURN(s.text, lex_.String());
      op->attrs.emplace_back("name", std::move(s));
    } else if (lex_.LooksAt("dense<")) {
      ASSIGN_OR_RETURN(Attr value, ParseAttrValue());
      op->attrs.emplace_back("value", std::move(value));
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
      ASSIGN_OR_RETURN(std::string word, lex_.Identifier());
      if (lex_.Consume("=")) {
        ASSIGN_OR_RETURN(Attr value, ParsePrettyValue(word));
        op->attrs.emplace_back(word, std::move(value));
      } else {
        Attr e;
        e.kind = Attr::kEnum;
        e.text = word;
        e.loc = loc;
        op->attrs.emplace_back(absl::StrCat("_word", word_count++), std::move(e));
      }
    } else {
      if (in_parens) return lex_.ErrorHere("expected ')'");
      return absl::OkStatus();
    }
    first = false;
    if (!lex_.Consume(",")) {
      if (in_parens) continue;
      return absl::OkStatus();
    }
  }
}

absl::Status Parser::ParseTrailingSignature(Op* op) {
  if (lex_.Peek() == '{') {
    ASSIGN_OR_RETURN(AttrDict attrs, ParseAttrDict());
    for (auto& kv : attrs) op->attrs.push_back(std::move(kv));
  }
  if (!lex_.Consume(":")) return absl::OkStatus();
  ASSIGN_OR_RETURN(TypeSignature sig, ParseTypeSignature());
  if (sig.is_function) {
    op->operand_types = std::move(sig.inputs);
    op->result_types = std::move(sig.results);
    return absl::OkStatus();
  }
  const int64_t n = op->num_results();
  if (n == 0) {
    op->operand_types = std::move(sig.results);
  } else if (static_cast<int64_t>(sig.results.size()) == n) {
    op->result_types = sig.results;
    if (op->operands.size() == sig.results.size() && n > 1) op->operand_types = std::move(sig.results);
  } else {
    // `select %p, %a, %b : P, T`: the last type is the result's.
    op->result_types.assign(n, sig.results.back());
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseReduce(Op* op) {
  // stablehlo.reduce(%a init: %i), (%b init: %j) [applies OP] across
  //   dimensions = [..] [{attrs}] : type [reducer(...) (...) { body }]
  std::vector<ValueRef> inputs, inits;
  do {
    RETURN_IF_ERROR(lex_.Expect("("));
    ASSIGN_OR_RETURN(ValueRef in, ParseValueRef());
    RETURN_IF_ERROR(lex_.Expect("init:"));
    ASSIGN_OR_RETURN(ValueRef init, ParseValueRef());
    RETURN_IF_ERROR(lex_.Expect(")"));
    inputs.push_back(std::move(in));
    inits.push_back(std::move(init));
  } while (lex_.Consume(","));
  op->operands = inputs;
  op->operands.insert(op->operands.end(), inits.begin(), inits.end());
  std::string applies;
  size_t applies_loc = 0;
  if (lex_.ConsumeWord("applies")) {
    lex_.SkipSpace();
    applies_loc = lex_.offset();
    ASSIGN_OR_RETURN(applies, lex_.Identifier());
  }
  if (!lex_.ConsumeWord("across")) return lex_.ErrorHere("expected 'across dimensions = [...]'");
  if (!lex_.ConsumeWord("dimensions")) return lex_.ErrorHere("expected 'dimensions'");
  RETURN_IF_ERROR(lex_.Expect("="));
  ASSIGN_OR_RETURN(Attr dims, ParseAttrValue());
  op->attrs.emplace_back("dimensions", std::move(dims));
  RETURN_IF_ERROR(ParseTrailingSignature(op));
  const size_t n = inputs.size();
  if (!applies.empty()) {
    if (n != 1) return lex_.Error(applies_loc, "'applies' needs exactly one input");
    if (op->operand_types.size() != 2) return lex_.Error(applies_loc, "'applies' needs the function type of the reduce");
    Type scalar = op->operand_types[1];
    Region region;
    region.loc = applies_loc;
    region.blocks.emplace_back();
    Block& block = region.blocks.back();
    block.args = {BlockArg{"__lhs", scalar, applies_loc}, BlockArg{"__rhs", scalar, applies_loc}};
    Op body;
    body.name = applies;
    body.loc = applies_loc;
    body.results.push_back(ResultGroup{"__result", 1, applies_loc});
    body.operands = {ValueRef{"__lhs", 0, false, applies_loc}, ValueRef{"__rhs", 0, false, applies_loc}};
    body.result_types = {scalar};
    Op ret;
    ret.name = "stablehlo.return";
    ret.loc = applies_loc;
    ret.operands = {ValueRef{"__result", 0, false, applies_loc}};
    block.ops.push_back(std::move(body));
    block.ops.push_back(std::move(ret));
    op->regions.push_back(std::move(region));
    return absl::OkStatus();
  }
  if (!lex_.ConsumeWord("reducer")) return lex_.ErrorHere("expected 'applies OP' or 'reducer'");
  std::vector<BlockArg> firsts, seconds;
  for (size_t i = 0; i < n; ++i) {
    lex_.SkipSpace();
    size_t loc = lex_.offset();
    ASSIGN_OR_RETURN(std::vector<BlockArg> pair, ParseBlockArgs());
    if (pair.size() != 2) return lex_.Error(loc, "each reducer argument group needs two arguments");
    firsts.push_back(pair[0]);
    seconds.push_back(pair[1]);
  }
  ASSIGN_OR_RETURN(Region region, ParseRegion());
  if (!region.blocks[0].args.empty()) return lex_.Error(region.loc, "the reducer body has its arguments twice");
  region.blocks[0].args = firsts;
  region.blocks[0].args.insert(region.blocks[0].args.end(), seconds.begin(), seconds.end());
  op->regions.push_back(std::move(region));
  return absl::OkStatus();
}

absl::Status Parser::ParseWhile(Op* op) {
  // stablehlo.while(%arg0 = %init, ...) : T0, T1 [attributes {...}]
  //   cond { ... } do { ... }
  RETURN_IF_ERROR(lex_.Expect("("));
  std::vector<BlockArg> args;
  if (!lex_.Consume(")")) {
    do {
      BlockArg arg;
      lex_.SkipSpace();
      arg.loc = lex_.offset();
      RETURN_IF_ERROR(lex_.Expect("%"));
      ASSIGN_OR_RETURN(arg.name, lex_.ValueSuffix());
      RETURN_IF_ERROR(lex_.Expect("="));
      ASSIGN_OR_RETURN(ValueRef init, ParseValueRef());
      op->operands.push_back(std::move(init));
      args.push_back(std::move(arg));
    } while (lex_.Consume(","));
    RETURN_IF_ERROR(lex_.Expect(")"));
  }
  if (lex_.Consume(":")) {
    ASSIGN_OR_RETURN(TypeSignature sig, ParseTypeSignature());
    std::vector<Type> types = sig.is_function ? sig.inputs : sig.results;
    if (types.size() != args.size()) {
      return lex_.ErrorHere(absl::StrCat("while has ", args.size(), " operands but ", types.size(), " types"));
    }
    for (size_t i = 0; i < args.size(); ++i) args[i].type = types[i];
    op->operand_types = types;
    op->result_types = types;
  } else if (!args.empty()) {
    return lex_.ErrorHere("expected ':' and the operand types of the while");
  }
  if (lex_.ConsumeWord("attributes")) RETURN_IF_ERROR(ParseAttrDict().status());
  if (!lex_.ConsumeWord("cond")) return lex_.ErrorHere("expected 'cond'");
  ASSIGN_OR_RETURN(Region cond, ParseRegion());
  if (!lex_.ConsumeWord("do")) return lex_.ErrorHere("expected 'do'");
  ASSIGN_OR_RETURN(Region body, ParseRegion());
  cond.blocks[0].args = args;
  body.blocks[0].args = args;
  op->regions.push_back(std::move(cond));
  op->regions.push_back(std::move(body));
  return absl::OkStatus();
}

absl::Status Parser::ParseScan(Op* op) {
  // chlo.scan(%x, ...) inits(%c, ...) dimension=D [attributes {...}]
  //   { ^bb0(...): ... } : (types) -> (types)
  auto value_list = [&]() -> absl::StatusOr<std::vector<ValueRef>> {
    RETURN_IF_ERROR(lex_.Expect("("));
    std::vector<ValueRef> values;
    if (lex_.Consume(")")) return values;
    do {
      ASSIGN_OR_RETURN(ValueRef v, ParseValueRef());
      values.push_back(std::move(v));
    } while (lex_.Consume(","));
    RETURN_IF_ERROR(lex_.Expect(")"));
    return values;
  };
  lex_.SkipSpace();
  const size_t loc = lex_.offset();
  ASSIGN_OR_RETURN(std::vector<ValueRef> inputs, value_list());
  if (!lex_.ConsumeWord("inits")) return lex_.ErrorHere("expected 'inits(...)'");
  ASSIGN_OR_RETURN(std::vector<ValueRef> inits, value_list());
  Attr num_inputs;
  num_inputs.kind = Attr::kNumber;
  num_inputs.loc = loc;
  num_inputs.text = absl::StrCat(inputs.size());
  op->attrs.emplace_back("num_inputs", std::move(num_inputs));
  op->operands = std::move(inputs);
  op->operands.insert(op->operands.end(), inits.begin(), inits.end());
  if (!lex_.ConsumeWord("dimension")) return lex_.ErrorHere("expected 'dimension = D'");
  RETURN_IF_ERROR(lex_.Expect("="));
  ASSIGN_OR_RETURN(Attr dimension, ParsePrettyValue("dimension"));
  op->attrs.emplace_back("dimension", std::move(dimension));
  if (lex_.ConsumeWord("attributes")) {
    ASSIGN_OR_RETURN(AttrDict attrs, ParseAttrDict());
    for (auto& kv : attrs) op->attrs.push_back(std::move(kv));
  }
  ASSIGN_OR_RETURN(Region body, ParseRegion());
  op->regions.push_back(std::move(body));
  return ParseTrailingSignature(op);
}

absl::Status Parser::ParseWindow(Op* op) {
  // window = {stride = [..], pad = [[l, h], ..], lhs_dilate = [..],
  //           rhs_dilate = [..], reverse = [..]}
  RETURN_IF_ERROR(lex_.Expect("{"));
  if (lex_.Consume("}")) return absl::OkStatus();
  do {
    lex_.SkipSpace();
    size_t loc = lex_.offset();
    ASSIGN_OR_RETURN(std::string key, lex_.Identifier());
    RETURN_IF_ERROR(lex_.Expect("="));
    ASSIGN_OR_RETURN(Attr value, ParseAttrValue());
    std::string name;
    if (key == "stride") name = "window_strides";
    else if (key == "pad") name = "padding";
    else if (key == "lhs_dilate") name = "lhs_dilation";
    else if (key == "rhs_dilate") name = "rhs_dilation";
    else if (key == "reverse") name = "window_reversal";
    else return lex_.Error(loc, absl::StrCat("unknown window key '", key, "'"));
    op->attrs.emplace_back(name, std::move(value));
  } while (lex_.Consume(","));
  return lex_.Expect("}");
}

absl::Status Parser::ParseConvolution(Op* op) {
  // stablehlo.convolution(%lhs, %rhs) dim_numbers = [..]x[..]->[..],
  //   window = {...} {attrs} : type
  RETURN_IF_ERROR(lex_.Expect("("));
  ASSIGN_OR_RETURN(ValueRef lhs, ParseValueRef());
  RETURN_IF_ERROR(lex_.Expect(","));
  ASSIGN_OR_RETURN(ValueRef rhs, ParseValueRef());
  RETURN_IF_ERROR(lex_.Expect(")"));
  op->operands = {lhs, rhs};
  if (!lex_.ConsumeWord("dim_numbers")) return lex_.ErrorHere("expected 'dim_numbers'");
  RETURN_IF_ERROR(lex_.Expect("="));
  lex_.SkipSpace();
  Attr dn;
  dn.kind = Attr::kConv;
  dn.loc = lex_.offset();
  ASSIGN_OR_RETURN(ConvLayouts layouts, ParseConvLayouts());
  dn.conv = std::make_shared<ConvLayouts>(std::move(layouts));
  op->attrs.emplace_back("dimension_numbers", std::move(dn));
  if (lex_.Consume(",")) {
    if (!lex_.ConsumeWord("window")) return lex_.ErrorHere("expected 'window'");
    RETURN_IF_ERROR(lex_.Expect("="));
    RETURN_IF_ERROR(ParseWindow(op));
  }
  return ParseTrailingSignature(op);
}

absl::Status Parser::ParsePrettyOp(Op* op) {
  const std::string& name = op->name;
  if (name == "stablehlo.reduce") return ParseReduce(op);
  if (name == "stablehlo.while") return ParseWhile(op);
  if (name == "stablehlo.convolution") return ParseConvolution(op);
  if (name == "chlo.scan") return ParseScan(op);
  if (IsReturn(name)) {
    RETURN_IF_ERROR(ParsePrettyItems(op));
    if (lex_.Consume(":")) {
      ASSIGN_OR_RETURN(TypeSignature sig, ParseTypeSignature());
      op->operand_types = std::move(sig.results);
    }
    return absl::OkStatus();
  }
  if (name == "stablehlo.constant") {
    if (lex_.Peek() == '{') {
      ASSIGN_OR_RETURN(AttrDict attrs, ParseAttrDict());
      for (auto& kv : attrs) op->attrs.push_back(std::move(kv));
    }
    ASSIGN_OR_RETURN(Attr value, ParseAttrValue());
    if (value.type.has_value()) op->result_types = {*value.type};
    op->attrs.emplace_back("value", std::move(value));
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(ParsePrettyItems(op));
  // Regions in braces right after the items (case, if).
  if (name == "stablehlo.case" || name == "stablehlo.if") {
    while (lex_.Peek() == '{' && lex_.LooksAt("{") && !lex_.LooksAt("{}")) {
      size_t save = lex_.offset();
      // A region starts with `{` followed by `^` or `%` or an op name.
      lex_.Consume("{");
      char c = lex_.Peek();
      lex_.set_offset(save);
      if (c != '^' && c != '%' && !(c >= 'a' && c <= 'z')) break;
      ASSIGN_OR_RETURN(Region r, ParseRegion());
      op->regions.push_back(std::move(r));
      if (lex_.ConsumeWord("else")) continue;
    }
  }
  return ParseTrailingSignature(op);
}

}  // namespace stablehlo
}  // namespace xla
