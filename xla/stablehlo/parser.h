// Parser: StableHLO MLIR text -> ast.h. Accepts the generic form of every op
// and the pretty forms of the stablehlo, chlo, func, check and interpreter
// ops; pretty forms are parsed into the generic shape (attributes under
// their pretty keys, e.g. `dims` of broadcast_in_dim, which lowering maps).
// The parser knows syntax only; whether an op exists is lowering's call.
//
// The class's members are spread over type_parser.cc (types),
// attr_parser.cc (attributes and dense literals), op_parser.cc (module,
// functions, regions, generic ops) and pretty_op_parser.cc (pretty forms).
#ifndef XLA_STABLEHLO_PARSER_H_
#define XLA_STABLEHLO_PARSER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/stablehlo/ast.h"
#include "xla/stablehlo/lexer.h"

namespace xla {
namespace stablehlo {

class Parser {
 public:
  explicit Parser(Lexer* lexer) : lex_(*lexer) {}

  // The whole input: a `module`, or top-level functions, or nested modules
  // (flattened, in textual order). Empty input gives an empty module.
  absl::StatusOr<Module> ParseModule();

  // Pieces (public for tests and for lowering's own re-parsing needs).
  absl::StatusOr<Type> ParseType();
  absl::StatusOr<Attr> ParseAttrValue();

 private:
  // --- types (type_parser.cc)
  absl::StatusOr<std::string> ParseElementTypeName();
  absl::StatusOr<Type> ParseTensorType(size_t loc);
  // A `!quant...` element type of *t (spelled at `loc`): its parameters, and
  // the storage type as its HLO element type.
  absl::Status ParseQuantized(Type* t, size_t loc);
  // `(A, B) -> R`, `(A) -> (R1, R2)`, `A, B -> R`, or a bare list `A, B`
  // (then `results` holds the list and `is_function` is false).
  struct TypeSignature {
    bool is_function = false;
    std::vector<Type> inputs;
    std::vector<Type> results;
  };
  absl::StatusOr<TypeSignature> ParseTypeSignature();
  absl::StatusOr<std::vector<Type>> ParseResultTypes();

  // --- attributes (attr_parser.cc)
  absl::StatusOr<AttrDict> ParseAttrDict();  // `{...}`, the brace not yet consumed
  absl::StatusOr<Attr> ParseDense(size_t loc);
  absl::StatusOr<DenseNode> ParseDenseNode();
  absl::StatusOr<Attr> ParseHashAttr(size_t loc);
  absl::StatusOr<ConvLayouts> ParseConvLayouts();
  absl::StatusOr<std::vector<std::string>> ParseConvLayout();
  // `[1, 2]` of integers.
  absl::StatusOr<std::vector<int64_t>> ParseIntList();

  // --- structure and generic ops (op_parser.cc)
  absl::Status ParseModuleBody(Module* module, bool braced);
  absl::StatusOr<Func> ParseFunc(size_t loc);
  absl::StatusOr<Op> ParseOp();
  absl::Status ParseGenericOp(Op* op);
  absl::StatusOr<Region> ParseRegion();  // `{ [^bb0(args):] ops }`
  absl::StatusOr<std::vector<BlockArg>> ParseBlockArgs();  // `(%a: T, ...)`
  absl::Status ParseOps(std::vector<Op>* ops);  // until '}'
  absl::StatusOr<ValueRef> ParseValueRef();
  absl::Status ParseOperandList(Op* op);  // %a, %b ... (possibly none)
  absl::Status SkipBalanced(char open, char close);

  // --- pretty forms (pretty_op_parser.cc)
  absl::Status ParsePrettyOp(Op* op);
  // `%a, key = value, WORD, [slice], dense<...>` items up to `{`, `:` or the
  // end of the op.
  absl::Status ParsePrettyItems(Op* op);
  absl::StatusOr<Attr> ParsePrettyValue(const std::string& key);
  absl::Status ParseTrailingSignature(Op* op);
  absl::Status ParseReduce(Op* op);
  absl::Status ParseWhile(Op* op);
  absl::Status ParseScan(Op* op);
  absl::Status ParseConvolution(Op* op);
  absl::Status ParseWindow(Op* op);
  absl::Status ParseSliceSpec(Op* op);

  // Nesting of brackets, types and regions; bounded so that hostile input
  // gives an error instead of a stack overflow.
  struct DepthGuard {
    explicit DepthGuard(Parser* p) : parser(p) { ++parser->depth_; }
    ~DepthGuard() { --parser->depth_; }
    Parser* parser;
  };
  absl::Status CheckDepth();
  static constexpr int kMaxDepth = 256;

  Lexer& lex_;
  int depth_ = 0;
};

}  // namespace stablehlo
}  // namespace xla

#endif  // XLA_STABLEHLO_PARSER_H_
