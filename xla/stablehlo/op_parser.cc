// Module structure (module, func.func), regions and blocks, and ops in the
// generic form `"name"(operands) <{properties}> ({regions}) {attrs} : type`.
#include "absl/strings/str_cat.h"
#include "xla/stablehlo/parser.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {

int64_t Op::num_results() const {
  int64_t n = 0;
  for (const ResultGroup& g : results) n += g.count;
  return n;
}

absl::StatusOr<Module> Parser::ParseModule() {
  Module module;
  lex_.SkipSpace();
  module.loc = lex_.offset();
  RETURN_IF_ERROR(ParseModuleBody(&module, /*braced=*/false));
  return module;
}

absl::Status Parser::ParseModuleBody(Module* module, bool braced) {
  while (true) {
    lex_.SkipSpace();
    size_t loc = lex_.offset();
    if (braced && lex_.Consume("}")) return absl::OkStatus();
    if (lex_.AtEnd()) {
      if (braced) return lex_.ErrorHere("expected '}' to close the module");
      return absl::OkStatus();
    }
    if (lex_.ConsumeWord("module") || lex_.ConsumeWord("builtin.module")) {
      if (lex_.Peek() == '@') {
        lex_.Consume("@");
        ASSIGN_OR_RETURN(std::string name, lex_.SymbolSuffix());
        if (module->name.empty()) module->name = name;
      }
      if (lex_.ConsumeWord("attributes")) RETURN_IF_ERROR(ParseAttrDict().status());
      RETURN_IF_ERROR(lex_.Expect("{"));
      RETURN_IF_ERROR(ParseModuleBody(module, /*braced=*/true));
      continue;
    }
    if (lex_.ConsumeWord("func.func") || lex_.ConsumeWord("func")) {
      ASSIGN_OR_RETURN(Func f, ParseFunc(loc));
      module->funcs.push_back(std::move(f));
      continue;
    }
    return lex_.ErrorHere("expected 'module' or 'func.func'");
  }
}

absl::StatusOr<Func> Parser::ParseFunc(size_t loc) {
  Func f;
  f.loc = loc;
  if (lex_.ConsumeWord("private")) {
    f.is_private = true;
  } else {
    if (!lex_.ConsumeWord("public")) lex_.ConsumeWord("nested");
  }
  RETURN_IF_ERROR(lex_.Expect("@"));
  ASSIGN_OR_RETURN(f.name, lex_.SymbolSuffix());
  ASSIGN_OR_RETURN(f.args, ParseBlockArgs());
  if (lex_.Consume("->")) {
    ASSIGN_OR_RETURN(f.result_types, ParseResultTypes());
  }
  if (lex_.ConsumeWord("attributes")) RETURN_IF_ERROR(ParseAttrDict().status());
  lex_.SkipSpace();
  f.body.loc = lex_.offset();
  RETURN_IF_ERROR(lex_.Expect("{"));
  f.body.blocks.emplace_back();
  f.body.blocks[0].args = f.args;
  if (lex_.Peek() == '^') return lex_.ErrorHere("function bodies with block labels are not supported");
  RETURN_IF_ERROR(ParseOps(&f.body.blocks[0].ops));
  return f;
}

absl::StatusOr<std::vector<BlockArg>> Parser::ParseBlockArgs() {
  RETURN_IF_ERROR(lex_.Expect("("));
  std::vector<BlockArg> args;
  if (lex_.Consume(")")) return args;
  do {
    BlockArg arg;
    lex_.SkipSpace();
    arg.loc = lex_.offset();
    RETURN_IF_ERROR(lex_.Expect("%"));
    ASSIGN_OR_RETURN(arg.name, lex_.ValueSuffix());
    RETURN_IF_ERROR(lex_.Expect(":"));
    ASSIGN_OR_RETURN(arg.type, ParseType());
    // Locations are dropped.
    if (lex_.Peek() == '{') {
      ASSIGN_OR_RETURN(arg.attrs, ParseAttrDict());
    }
    if (lex_.ConsumeWord("loc")) RETURN_IF_ERROR(SkipBalanced('(', ')'));
    args.push_back(std::move(arg));
  } while (lex_.Consume(","));
  RETURN_IF_ERROR(lex_.Expect(")"));
  return args;
}

absl::Status Parser::ParseOps(std::vector<Op>* ops) {
  while (true) {
    if (lex_.Consume("}")) return absl::OkStatus();
    if (lex_.AtEnd()) return lex_.ErrorHere("expected '}' to close the region");
    if (lex_.Peek() == '^') return lex_.ErrorHere("regions with several blocks are not supported");
    ASSIGN_OR_RETURN(Op op, ParseOp());
    ops->push_back(std::move(op));
  }
}

absl::Status Parser::CheckDepth() {
  if (depth_ > kMaxDepth) return lex_.ErrorHere("nesting is too deep");
  return absl::OkStatus();
}

absl::StatusOr<Region> Parser::ParseRegion() {
  DepthGuard guard(this);
  RETURN_IF_ERROR(CheckDepth());
  Region region;
  lex_.SkipSpace();
  region.loc = lex_.offset();
  RETURN_IF_ERROR(lex_.Expect("{"));
  region.blocks.emplace_back();
  Block& block = region.blocks.back();
  if (lex_.Consume("^")) {
    RETURN_IF_ERROR(lex_.ValueSuffix().status());
    if (lex_.Peek() == '(') {
      ASSIGN_OR_RETURN(block.args, ParseBlockArgs());
    }
    RETURN_IF_ERROR(lex_.Expect(":"));
  }
  RETURN_IF_ERROR(ParseOps(&block.ops));
  return region;
}

absl::StatusOr<ValueRef> Parser::ParseValueRef() {
  ValueRef ref;
  lex_.SkipSpace();
  ref.loc = lex_.offset();
  RETURN_IF_ERROR(lex_.Expect("%"));
  ASSIGN_OR_RETURN(ref.name, lex_.ValueSuffix());
  if (lex_.PeekRaw() == '#') {
    lex_.set_offset(lex_.offset() + 1);
    ASSIGN_OR_RETURN(ref.index, lex_.RawUnsigned());
    ref.has_index = true;
  }
  return ref;
}

absl::Status Parser::ParseOperandList(Op* op) {
  if (lex_.Peek() != '%') return absl::OkStatus();
  do {
    ASSIGN_OR_RETURN(ValueRef ref, ParseValueRef());
    op->operands.push_back(std::move(ref));
  } while (lex_.Peek() == ',' && (lex_.Consume(","), true) && lex_.Peek() == '%');
  return absl::OkStatus();
}

absl::StatusOr<Op> Parser::ParseOp() {
  Op op;
  lex_.SkipSpace();
  op.loc = lex_.offset();
  if (lex_.Peek() == '%') {
    do {
      ResultGroup g;
      lex_.SkipSpace();
      g.loc = lex_.offset();
      RETURN_IF_ERROR(lex_.Expect("%"));
      ASSIGN_OR_RETURN(g.name, lex_.ValueSuffix());
      if (lex_.PeekRaw() == ':') {
        lex_.set_offset(lex_.offset() + 1);
        ASSIGN_OR_RETURN(g.count, lex_.RawUnsigned());
        if (g.count < 1) return lex_.Error(g.loc, "a result group needs at least one result");
      }
      op.results.push_back(std::move(g));
    } while (lex_.Consume(","));
    RETURN_IF_ERROR(lex_.Expect("="));
  }
  lex_.SkipSpace();
  op.loc = lex_.offset();
  if (lex_.PeekRaw() == '"') {
    ASSIGN_OR_RETURN(op.name, lex_.String());
    RETURN_IF_ERROR(ParseGenericOp(&op));
  } else {
    ASSIGN_OR_RETURN(op.name, lex_.Identifier());
    RETURN_IF_ERROR(ParsePrettyOp(&op));
  }
  if (lex_.ConsumeWord("loc")) RETURN_IF_ERROR(SkipBalanced('(', ')'));
  return op;
}

absl::Status Parser::ParseGenericOp(Op* op) {
  RETURN_IF_ERROR(lex_.Expect("("));
  if (!lex_.Consume(")")) {
    do {
      ASSIGN_OR_RETURN(ValueRef ref, ParseValueRef());
      op->operands.push_back(std::move(ref));
    } while (lex_.Consume(","));
    RETURN_IF_ERROR(lex_.Expect(")"));
  }
  if (lex_.Peek() == '[') return lex_.ErrorHere("ops with successor blocks are not supported");
  if (lex_.Consume("<")) {
    ASSIGN_OR_RETURN(AttrDict props, ParseAttrDict());
    RETURN_IF_ERROR(lex_.Expect(">"));
    for (auto& kv : props) op->attrs.push_back(std::move(kv));
  }
  if (lex_.LooksAt("({")) {
    lex_.Consume("(");
    do {
      ASSIGN_OR_RETURN(Region r, ParseRegion());
      op->regions.push_back(std::move(r));
    } while (lex_.Consume(","));
    RETURN_IF_ERROR(lex_.Expect(")"));
  }
  if (lex_.Peek() == '{') {
    ASSIGN_OR_RETURN(AttrDict attrs, ParseAttrDict());
    for (auto& kv : attrs) op->attrs.push_back(std::move(kv));
  }
  RETURN_IF_ERROR(lex_.Expect(":"));
  ASSIGN_OR_RETURN(TypeSignature sig, ParseTypeSignature());
  if (!sig.is_function) return lex_.ErrorHere("a generic op needs a function type '(...) -> ...'");
  op->operand_types = std::move(sig.inputs);
  op->result_types = std::move(sig.results);
  return absl::OkStatus();
}

}  // namespace stablehlo
}  // namespace xla
