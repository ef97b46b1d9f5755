// HLO text parser: text -> HloModuleProto. A hand-written recursive-descent
// parser over the whole text, so every error can name a line and column.
//
// Two phases: (1) parse each computation into ParsedComputation records, with
// operands and callees still named; (2) resolve the names, order instructions
// operands-first and computations callees-first (text may use names before it
// defines them), assign ids and emit the proto that HloModule::CreateFromProto
// validates.
//
// Typed attribute values are first scanned as a balanced raw range (braces,
// brackets, parentheses and quoted strings), then parsed inside that range.
// Attributes without a typed field are kept verbatim in unknown_attributes. An
// elided constant `constant({...})` becomes zeros of its shape and is marked
// with unknown_attributes["elided"] = "true" (the printer prints `{...}` again;
// the attribute name `elided` is reserved in text).
//
// The `HloModule name, attr=...` header is optional (without it the module is
// named after its entry computation), and so is ENTRY (without it the last
// computation is the entry), as in XLA.
//
// Normalizations (so that parse -> print -> parse gives equal protos): array
// shapes without a layout get the row-major one; slice strides and window
// strides/dilations default to 1; convolution group counts default to 1; topk
// `largest` defaults to true; empty sub-messages are cleared.
#include "xla/hlo/hlo_parser.h"

#include "xla/hlo/input_output_alias.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "xla/hlo/comparison.h"
#include "xla/hlo/hlo_opcode.h"
#include "xla/literal.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

// Elided constants are materialized as zeros; refuse absurd sizes instead of
// exhausting memory.
constexpr int64_t kMaxElidedConstantBytes = int64_t{1} << 31;

bool IsNameChar(char c) { return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-'; }

char ClosingFor(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

// A name used before it is resolved, with where it was written.
struct NameRef {
  std::string name;
  size_t pos = 0;
};

struct OperandRef {
  NameRef ref;
  std::optional<Shape> declared_shape;  // from the long form "f32[2] %a"
};

struct ParsedInstruction {
  std::string name;
  size_t pos = 0;         // of the name
  size_t opcode_pos = 0;
  HloOpcode opcode = HloOpcode::kConstant;
  Shape shape;
  HloInstructionProto proto;  // everything but ids
  std::vector<OperandRef> operands;
  std::vector<NameRef> callees;
};

struct ParsedComputation {
  std::string name;
  size_t pos = 0;
  bool is_entry = false;
  std::vector<ParsedInstruction> instructions;
  absl::flat_hash_map<std::string, int> by_name;
  int root = -1;  // -1: the last instruction
};

// Called computations named by role; assembled into one list in a fixed order.
struct CalleeRoles {
  std::optional<NameRef> condition, body, true_computation, false_computation, select, scatter, to_apply;
  std::optional<std::vector<NameRef>> branches, generic;
};

// Iterative DFS topological sort: every node after its dependencies, visiting
// start nodes in order (so an already-ordered input keeps its order). Returns
// false and sets *cycle to a node on a cycle.
bool TopoSort(const std::vector<std::vector<int>>& deps, const std::vector<int>& starts,
              std::vector<int>* order, int* cycle) {
  std::vector<int> state(deps.size(), 0);  // 0 new, 1 on stack, 2 done
  for (int start : starts) {
    if (state[start] != 0) continue;
    std::vector<std::pair<int, size_t>> stack = {{start, 0}};
    state[start] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < deps[node].size()) {
        int dep = deps[node][next++];
        if (state[dep] == 1) {
          *cycle = dep;
          return false;
        }
        if (state[dep] == 0) {
          state[dep] = 1;
          stack.push_back({dep, 0});
        }
      } else {
        state[node] = 2;
        order->push_back(node);
        stack.pop_back();
      }
    }
  }
  return true;
}

// Gives every array in `shape` a layout (row-major when none was written).
Shape WithLayouts(Shape shape) {
  if (shape.IsTuple()) {
    for (Shape& e : *shape.mutable_tuple_shapes()) e = WithLayouts(e);
  } else if (shape.IsArray() && !shape.has_layout()) {
    shape.set_layout(ShapeUtil::DefaultLayout(shape.rank()));
  }
  return shape;
}

// Element count and dense byte size of a (possibly tuple) shape, saturating
// instead of overflowing.
void CountShape(const Shape& shape, int64_t* elements, int64_t* bytes) {
  constexpr int64_t kCap = int64_t{1} << 62;
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) CountShape(e, elements, bytes);
  } else if (shape.IsArray()) {
    *elements = std::min(kCap, *elements + ShapeUtil::ElementsIn(shape));
    *bytes = std::min(kCap, *bytes + ShapeUtil::ByteSizeOfElements(shape));
  }
}

// The shape and literal parsers (and Shape itself) recurse per tuple level
// (ranks are already capped by ShapeUtil::ValidateShape); bounding the nesting
// keeps hostile text from exhausting the stack.
constexpr int kMaxNesting = ShapeUtil::kMaxTupleNesting;

int MaxBracketDepth(absl::string_view s) {
  int depth = 0, max_depth = 0;
  for (char c : s) {
    if (c == '(' || c == '{' || c == '[') max_depth = std::max(max_depth, ++depth);
    if (c == ')' || c == '}' || c == ']') --depth;
  }
  return max_depth;
}

// Shape text with /*...*/ comments (e.g. XLA's "/*index=5*/" in tuples) removed.
std::string StripComments(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.substr(i, 2) == "/*") {
      size_t end = s.find("*/", i + 2);
      if (end == absl::string_view::npos) break;
      i = end + 1;
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text), end_(text.size()) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  absl::StatusOr<HloModuleProto> ParseModule();

 private:
  // ---- Positions and errors ------------------------------------------------
  std::pair<size_t, size_t> LineCol(size_t pos) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
    size_t line = it - line_starts_.begin();
    return {line, pos - line_starts_[line - 1] + 1};
  }
  size_t Line(size_t pos) const { return LineCol(pos).first; }
  absl::Status ErrorAt(size_t pos, absl::string_view message) const {
    auto [line, col] = LineCol(pos);
    return absl::InvalidArgumentError(absl::StrCat("line ", line, ", column ", col, ": ", message));
  }
  // The token at the cursor, for "found ..." in messages.
  std::string Found() const {
    if (pos_ >= end_) return "end of input";
    size_t n = 0;
    while (pos_ + n < end_ && n < 30 && IsNameChar(text_[pos_ + n])) ++n;
    if (n == 0) n = 1;
    return absl::StrCat("'", text_.substr(pos_, n), "'");
  }

  // ---- Lexing within [pos_, end_) -------------------------------------------
  char Peek() const { return pos_ < end_ ? text_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < end_) {
      char c = text_[pos_];
      if (absl::ascii_isspace(c)) {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < end_ && text_[pos_ + 1] == '*') {
        size_t close = text_.find("*/", pos_ + 2);
        pos_ = (close == absl::string_view::npos || close + 2 > end_) ? end_ : close + 2;
      } else if (c == '/' && pos_ + 1 < end_ && text_[pos_ + 1] == '/') {
        while (pos_ < end_ && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  void SkipHorizontalSpace() {
    while (pos_ < end_ && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  // Consumes `c` after optional space; on a mismatch the cursor stays put, so
  // a following Expect can point at the end of the previous token.
  bool TryConsume(char c) {
    size_t before = pos_;
    SkipSpace();
    if (Peek() != c) {
      pos_ = before;
      return false;
    }
    ++pos_;
    return true;
  }
  // Expects `c`; when it is missing and the next token is on a later line,
  // reports the end of the previous token (where the character belongs).
  absl::Status Expect(char c, absl::string_view context) {
    size_t before = pos_;
    SkipSpace();
    if (Peek() == c) {
      ++pos_;
      return absl::OkStatus();
    }
    bool crossed_line = text_.substr(before, pos_ - before).find('\n') != absl::string_view::npos;
    return ErrorAt(crossed_line ? before : pos_,
                   absl::StrCat("expected '", std::string(1, c), "' ", context, ", found ", Found()));
  }
  std::string LexWord() {
    size_t start = pos_;
    while (pos_ < end_ && IsNameChar(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  bool TryKeyword(absl::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word || pos_ + word.size() > end_) return false;
    if (pos_ + word.size() < end_ && IsNameChar(text_[pos_ + word.size()])) return false;
    pos_ += word.size();
    return true;
  }
  // A name with an optional '%' sigil.
  absl::StatusOr<std::string> ParseName(absl::string_view what) {
    SkipSpace();
    size_t start = pos_;
    if (Peek() == '%') ++pos_;
    std::string name = LexWord();
    if (name.empty()) {
      pos_ = start;
      return ErrorAt(start, absl::StrCat("expected ", what, ", found ", Found()));
    }
    return name;
  }
  absl::StatusOr<NameRef> ParseNameRef(absl::string_view what) {
    SkipSpace();
    NameRef ref;
    ref.pos = pos_;
    ASSIGN_OR_RETURN(ref.name, ParseName(what));
    return ref;
  }
  absl::StatusOr<int64_t> ParseInt() {
    SkipSpace();
    size_t start = pos_;
    if (Peek() == '-' || Peek() == '+') ++pos_;
    while (pos_ < end_ && absl::ascii_isdigit(text_[pos_])) ++pos_;
    int64_t v;
    if (!absl::SimpleAtoi(text_.substr(start, pos_ - start), &v)) {
      pos_ = start;
      return ErrorAt(start, absl::StrCat("expected an integer, found ", Found()));
    }
    return v;
  }
  absl::StatusOr<int32_t> ParseInt32() {
    size_t start = (SkipSpace(), pos_);
    ASSIGN_OR_RETURN(int64_t v, ParseInt());
    if (v < INT32_MIN || v > INT32_MAX) return ErrorAt(start, "integer out of 32-bit range");
    return static_cast<int32_t>(v);
  }
  absl::StatusOr<float> ParseFloat() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < end_ && (absl::ascii_isalnum(text_[pos_]) || text_[pos_] == '.' || text_[pos_] == '-' ||
                           text_[pos_] == '+')) {
      ++pos_;
    }
    float v;
    if (!absl::SimpleAtof(text_.substr(start, pos_ - start), &v)) {
      pos_ = start;
      return ErrorAt(start, absl::StrCat("expected a number, found ", Found()));
    }
    return v;
  }
  absl::StatusOr<bool> ParseBool() {
    SkipSpace();
    size_t start = pos_;
    std::string w = LexWord();
    if (w == "true") return true;
    if (w == "false") return false;
    pos_ = start;
    return ErrorAt(start, absl::StrCat("expected true or false, found ", Found()));
  }
  absl::StatusOr<std::string> ParseQuoted() {
    SkipSpace();
    size_t start = pos_;
    if (Peek() != '"') return ErrorAt(start, absl::StrCat("expected a quoted string, found ", Found()));
    ++pos_;
    while (pos_ < end_ && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
    if (pos_ >= end_) return ErrorAt(start, "unterminated string");
    std::string out, error;
    if (!absl::CUnescape(text_.substr(start + 1, pos_ - start - 1), &out, &error)) {
      return ErrorAt(start, absl::StrCat("bad escape in string: ", error));
    }
    ++pos_;
    return out;
  }
  absl::Status ParseIntList(std::vector<int64_t>* out) {
    RETURN_IF_ERROR(Expect('{', "to start a list of integers"));
    if (TryConsume('}')) return absl::OkStatus();
    while (true) {
      ASSIGN_OR_RETURN(int64_t v, ParseInt());
      out->push_back(v);
      if (TryConsume(',')) continue;
      return Expect('}', "to close the list of integers");
    }
  }
  absl::StatusOr<Shape> ParseShape();
  // Scans a balanced region from the cursor; stops before an unmatched closer
  // or, with `stop_at_separator`, before a ',', newline or comment at depth 0.
  absl::StatusOr<size_t> ScanBalanced(bool stop_at_separator);

  // Runs `fn` with the cursor limited to [begin, end); all of it must be used.
  absl::Status ParseInRange(size_t begin, size_t end, absl::string_view what,
                            const std::function<absl::Status()>& fn) {
    size_t saved_pos = pos_, saved_end = end_;
    pos_ = begin;
    end_ = end;
    absl::Status s = fn();
    if (s.ok()) {
      SkipSpace();
      if (pos_ < end_) {
        s = ErrorAt(pos_, absl::StrCat("unexpected ", Found(), " in the value of ", what));
      }
    }
    pos_ = saved_pos;
    end_ = saved_end;
    return s;
  }

  // ---- Grammar ----------------------------------------------------------------
  absl::Status ParseComputation();
  absl::Status ParseSignature();
  absl::Status ParseInstruction(ParsedComputation* comp);
  absl::Status ParseOperands(ParsedInstruction* instr);
  absl::Status ParseConstantValue(size_t begin, size_t end, ParsedInstruction* instr);
  absl::Status ParseAttribute(ParsedInstruction* instr, CalleeRoles* roles,
                              absl::flat_hash_set<std::string>* seen);
  absl::Status ApplyAttribute(const std::string& key, size_t key_pos, size_t begin, size_t end,
                              ParsedInstruction* instr, CalleeRoles* roles);
  absl::Status FinishInstruction(ParsedInstruction* instr, CalleeRoles roles,
                                 const absl::flat_hash_set<std::string>& seen);
  absl::Status ParseWindow(Window* window);
  absl::Status ParseSlice(HloInstructionProto* proto);
  absl::Status ParsePadding(PaddingConfig* config);
  absl::Status ParseDimLabels(size_t begin, size_t end, ConvolutionDimensionNumbers* dn);
  absl::StatusOr<bool> ParseMetadata(OpMetadata* metadata);  // false: unknown keys
  bool TryParseSharding(OpSharding* sharding);
  absl::Status ParseFrontendAttributes(FrontendAttributes* attrs);
  absl::StatusOr<std::vector<NameRef>> ParseComputationList();

  absl::StatusOr<HloModuleProto> Build(bool has_header);

  absl::string_view text_;
  size_t pos_ = 0;
  size_t end_;
  std::vector<size_t> line_starts_;

  std::string module_name_;
  std::map<std::string, std::string> module_attributes_;
  std::vector<ParsedComputation> computations_;
  absl::flat_hash_map<std::string, int> computation_index_;
};

absl::StatusOr<size_t> Parser::ScanBalanced(bool stop_at_separator) {
  std::vector<std::pair<char, size_t>> stack;
  while (pos_ < end_) {
    char c = text_[pos_];
    if (c == '"') {
      size_t start = pos_++;
      while (pos_ < end_ && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
      if (pos_ >= end_) return ErrorAt(start, "unterminated string");
      ++pos_;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      stack.push_back({c, pos_++});
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      if (stack.empty()) break;
      if (ClosingFor(stack.back().first) != c) {
        return ErrorAt(pos_, absl::StrCat("'", std::string(1, c), "' does not match '",
                                          std::string(1, stack.back().first), "' opened at line ",
                                          Line(stack.back().second)));
      }
      stack.pop_back();
      ++pos_;
      continue;
    }
    const bool comment_start = c == '/' && pos_ + 1 < end_ && (text_[pos_ + 1] == '/' || text_[pos_ + 1] == '*');
    if (stack.empty() && stop_at_separator && (c == ',' || c == '\n' || comment_start)) break;
    ++pos_;
  }
  if (!stack.empty()) {
    return ErrorAt(stack.back().second, absl::StrCat("unterminated '", std::string(1, stack.back().first), "'"));
  }
  return pos_;
}

absl::StatusOr<Shape> Parser::ParseShape() {
  SkipSpace();
  size_t start = pos_;
  if (Peek() == '(') {
    ++pos_;
    RETURN_IF_ERROR(ScanBalanced(/*stop_at_separator=*/false).status());
    if (Peek() != ')') return ErrorAt(start, "unterminated '(' in tuple shape");
    ++pos_;
  } else {
    std::string word = LexWord();
    if (word.empty()) return ErrorAt(start, absl::StrCat("expected a shape, found ", Found()));
    if (Peek() == '[') {
      size_t close = text_.find(']', pos_);
      if (close == absl::string_view::npos || close >= end_) {
        return ErrorAt(start, "expected ']' to close the dimensions of the shape");
      }
      pos_ = close + 1;
      if (Peek() == '{') {  // a layout follows the dimensions directly
        ++pos_;
        RETURN_IF_ERROR(ScanBalanced(/*stop_at_separator=*/false).status());
        if (Peek() != '}') return ErrorAt(start, "expected '}' to close the layout of the shape");
        ++pos_;
      }
    }
  }
  std::string shape_text = StripComments(text_.substr(start, pos_ - start));
  if (MaxBracketDepth(shape_text) > kMaxNesting + 1) {
    return ErrorAt(start, absl::StrCat("shape nests deeper than ", kMaxNesting, " levels"));
  }
  auto shape = ShapeUtil::ParseShape(shape_text);
  if (!shape.ok()) {
    return ErrorAt(start, absl::StrCat("invalid shape '", shape_text, "': ", shape.status().message()));
  }
  return WithLayouts(*std::move(shape));
}

absl::StatusOr<HloModuleProto> Parser::ParseModule() {
  SkipSpace();
  if (pos_ >= end_) return ErrorAt(pos_, "empty input: expected 'HloModule <name>' or a computation");
  // The header is optional, as in XLA: without it the module is named after
  // its entry computation. Text that is neither a header nor a computation
  // (a misspelt keyword, say) gets a message about the header.
  const bool has_header = TryKeyword("HloModule");
  if (!has_header) {
    const size_t start = pos_;
    bool is_computation = TryKeyword("ENTRY");
    if (!is_computation) {
      if (Peek() == '%') ++pos_;
      is_computation = !LexWord().empty() && (TryConsume('(') || TryConsume('{'));
    }
    pos_ = start;
    if (!is_computation) {
      return ErrorAt(pos_, absl::StrCat("expected 'HloModule' or a computation at the start of the module, found ",
                                        Found()));
    }
  }
  if (has_header) {
    ASSIGN_OR_RETURN(module_name_, ParseName("a module name after 'HloModule'"));
  }
  while (has_header && TryConsume(',')) {
    SkipSpace();
    size_t key_pos = pos_;
    std::string key = LexWord();
    if (key.empty()) return ErrorAt(key_pos, absl::StrCat("expected a module attribute name, found ", Found()));
    RETURN_IF_ERROR(Expect('=', absl::StrCat("after module attribute '", key, "'")));
    SkipHorizontalSpace();
    size_t begin = pos_;
    ASSIGN_OR_RETURN(size_t end, ScanBalanced(/*stop_at_separator=*/true));
    absl::string_view value = absl::StripTrailingAsciiWhitespace(text_.substr(begin, end - begin));
    if (!module_attributes_.emplace(key, std::string(value)).second) {
      return ErrorAt(key_pos, absl::StrCat("duplicate module attribute '", key, "'"));
    }
  }
  for (SkipSpace(); pos_ < end_; SkipSpace()) RETURN_IF_ERROR(ParseComputation());
  if (computations_.empty()) {
    return ErrorAt(pos_, absl::StrCat("module '", module_name_, "' has no computations"));
  }
  return Build(has_header);
}

absl::Status Parser::ParseSignature() {
  RETURN_IF_ERROR(Expect('(', "to start the computation signature"));
  if (!TryConsume(')')) {
    while (true) {
      RETURN_IF_ERROR(ParseName("a parameter name in the signature").status());
      RETURN_IF_ERROR(Expect(':', "after a parameter name in the signature"));
      RETURN_IF_ERROR(ParseShape().status());
      if (TryConsume(',')) continue;
      RETURN_IF_ERROR(Expect(')', "to close the signature's parameter list"));
      break;
    }
  }
  RETURN_IF_ERROR(Expect('-', "of '->' in the computation signature"));
  RETURN_IF_ERROR(Expect('>', "of '->' in the computation signature"));
  return ParseShape().status();
}

absl::Status Parser::ParseComputation() {
  ParsedComputation comp;
  comp.is_entry = TryKeyword("ENTRY");
  SkipSpace();
  comp.pos = pos_;
  ASSIGN_OR_RETURN(comp.name, ParseName("a computation name"));
  if (computation_index_.contains(comp.name)) {
    return ErrorAt(comp.pos, absl::StrCat("duplicate computation name '", comp.name, "' (first defined at line ",
                                          Line(computations_[computation_index_[comp.name]].pos), ")"));
  }
  SkipSpace();
  if (Peek() == '(') RETURN_IF_ERROR(ParseSignature());
  RETURN_IF_ERROR(Expect('{', absl::StrCat("to open the body of computation '", comp.name, "'")));
  while (true) {
    SkipSpace();
    if (pos_ >= end_) {
      return ErrorAt(pos_, absl::StrCat("expected '}' to close computation '", comp.name, "' opened at line ",
                                        Line(comp.pos), ", found end of input"));
    }
    if (TryConsume('}')) break;
    RETURN_IF_ERROR(ParseInstruction(&comp));
  }
  if (comp.instructions.empty()) {
    return ErrorAt(comp.pos, absl::StrCat("computation '", comp.name, "' has no instructions"));
  }
  computation_index_[comp.name] = static_cast<int>(computations_.size());
  computations_.push_back(std::move(comp));
  return absl::OkStatus();
}

absl::Status Parser::ParseInstruction(ParsedComputation* comp) {
  bool is_root = TryKeyword("ROOT");
  ParsedInstruction instr;
  SkipSpace();
  instr.pos = pos_;
  ASSIGN_OR_RETURN(instr.name, ParseName(is_root ? "an instruction name after ROOT" : "an instruction name"));
  if (auto it = comp->by_name.find(instr.name); it != comp->by_name.end()) {
    return ErrorAt(instr.pos, absl::StrCat("duplicate instruction name '", instr.name, "' (first defined at line ",
                                           Line(comp->instructions[it->second].pos), ")"));
  }
  RETURN_IF_ERROR(Expect('=', absl::StrCat("after instruction name '", instr.name, "'")));
  ASSIGN_OR_RETURN(instr.shape, ParseShape());
  SkipSpace();
  instr.opcode_pos = pos_;
  std::string opcode_text = LexWord();
  if (opcode_text.empty()) {
    return ErrorAt(pos_, absl::StrCat("expected an opcode in instruction '", instr.name, "', found ", Found()));
  }
  auto opcode = StringToHloOpcode(opcode_text);
  if (!opcode.ok()) {
    return ErrorAt(instr.opcode_pos,
                   absl::StrCat("unknown opcode '", opcode_text, "' in instruction '", instr.name, "'"));
  }
  instr.opcode = *opcode;
  RETURN_IF_ERROR(Expect('(', absl::StrCat("after opcode '", opcode_text, "' of '", instr.name, "'")));
  if (instr.opcode == HloOpcode::kConstant) {
    size_t begin = pos_;
    ASSIGN_OR_RETURN(size_t end, ScanBalanced(/*stop_at_separator=*/false));
    RETURN_IF_ERROR(Expect(')', absl::StrCat("to close the value of constant '", instr.name, "'")));
    RETURN_IF_ERROR(ParseConstantValue(begin, end, &instr));
  } else if (instr.opcode == HloOpcode::kParameter) {
    size_t num_pos = (SkipSpace(), pos_);
    ASSIGN_OR_RETURN(int64_t number, ParseInt());
    if (number < 0) return ErrorAt(num_pos, "parameter number must be non-negative");
    instr.proto.set_parameter_number(number);
    RETURN_IF_ERROR(Expect(')', absl::StrCat("after the parameter number of '", instr.name, "'")));
  } else {
    RETURN_IF_ERROR(ParseOperands(&instr));
  }
  CalleeRoles roles;
  absl::flat_hash_set<std::string> seen;
  while (TryConsume(',')) RETURN_IF_ERROR(ParseAttribute(&instr, &roles, &seen));
  RETURN_IF_ERROR(FinishInstruction(&instr, std::move(roles), seen));

  int index = static_cast<int>(comp->instructions.size());
  if (is_root) {
    if (comp->root >= 0) {
      return ErrorAt(instr.pos, absl::StrCat("computation '", comp->name, "' has a second ROOT '", instr.name,
                                             "' (first: '", comp->instructions[comp->root].name, "')"));
    }
    comp->root = index;
  }
  comp->by_name[instr.name] = index;
  comp->instructions.push_back(std::move(instr));
  return absl::OkStatus();
}

absl::Status Parser::ParseOperands(ParsedInstruction* instr) {
  if (TryConsume(')')) return absl::OkStatus();
  while (true) {
    SkipSpace();
    OperandRef operand;
    // Long form "SHAPE %name": a tuple shape, or an element type directly followed by '['.
    size_t save = pos_;
    bool has_shape = Peek() == '(';
    if (!has_shape && Peek() != '%') {
      std::string word = LexWord();
      has_shape = Peek() == '[' && primitive_util::TypeFromLowercaseName(word).ok();
      pos_ = save;
    }
    if (has_shape) {
      ASSIGN_OR_RETURN(operand.declared_shape, ParseShape());
    }
    ASSIGN_OR_RETURN(operand.ref, ParseNameRef(absl::StrCat("an operand name in '", instr->name, "'")));
    instr->operands.push_back(std::move(operand));
    if (TryConsume(',')) continue;
    return Expect(')', absl::StrCat("after operands of '", instr->name, "'"));
  }
}

absl::Status Parser::ParseConstantValue(size_t begin, size_t end, ParsedInstruction* instr) {
  absl::string_view raw = absl::StripAsciiWhitespace(text_.substr(begin, end - begin));
  const Shape& shape = instr->shape;
  int64_t elements = 0, bytes = 0;
  CountShape(shape, &elements, &bytes);
  if (raw == "{...}") {
    if (bytes > kMaxElidedConstantBytes) {
      return ErrorAt(begin, absl::StrCat("elided constant '", instr->name, "' of shape ", shape.ToString(),
                                         " is too large to materialize (", bytes, " bytes)"));
    }
    *instr->proto.mutable_literal() = Literal(shape).ToProto();
    (*instr->proto.mutable_unknown_attributes())["elided"] = "true";
    return absl::OkStatus();
  }
  // Every element takes at least one character, so a short text cannot name a
  // huge shape (and make the literal parser allocate it).
  if (elements > static_cast<int64_t>(raw.size()) + 1) {
    return ErrorAt(begin, absl::StrCat("value of constant '", instr->name, "' is too short for shape ",
                                       shape.ToString(), " (", elements, " elements)"));
  }
  auto literal = Literal::ParseValue(raw, shape);
  if (!literal.ok() && shape.IsTuple() && MaxBracketDepth(raw) <= 2 * kMaxNesting) {
    // Also accept tuple elements written with their shapes: (f32[] 1, s32[2] {2, 3}).
    auto with_shapes = Literal::Parse(raw);
    if (with_shapes.ok() && with_shapes->shape().Compatible(shape)) literal = with_shapes->RelayoutTo(shape);
  }
  if (!literal.ok()) {
    return ErrorAt(begin, absl::StrCat("bad value for constant '", instr->name, "' of shape ", shape.ToString(),
                                       ": ", literal.status().message()));
  }
  *instr->proto.mutable_literal() = literal->ToProto();
  return absl::OkStatus();
}

absl::Status Parser::ParseAttribute(ParsedInstruction* instr, CalleeRoles* roles,
                                    absl::flat_hash_set<std::string>* seen) {
  SkipSpace();
  size_t key_pos = pos_;
  std::string key = LexWord();
  if (key.empty()) {
    return ErrorAt(key_pos, absl::StrCat("expected an attribute name after ',' in '", instr->name, "', found ",
                                         Found()));
  }
  RETURN_IF_ERROR(Expect('=', absl::StrCat("after attribute name '", key, "' of '", instr->name, "'")));
  SkipHorizontalSpace();
  size_t begin = pos_;
  ASSIGN_OR_RETURN(size_t end, ScanBalanced(/*stop_at_separator=*/true));
  while (end > begin && absl::ascii_isspace(text_[end - 1])) --end;
  if (!seen->insert(key).second) {
    return ErrorAt(key_pos, absl::StrCat("duplicate attribute '", key, "' in '", instr->name, "'"));
  }
  return ApplyAttribute(key, key_pos, begin, end, instr, roles);
}

absl::Status Parser::ApplyAttribute(const std::string& key, size_t key_pos, size_t begin, size_t end,
                                    ParsedInstruction* instr, CalleeRoles* roles) {
  HloInstructionProto& p = instr->proto;
  const HloOpcode op = instr->opcode;
  const std::string what = absl::StrCat("attribute '", key, "' of '", instr->name, "'");
  auto in_range = [&](const std::function<absl::Status()>& fn) { return ParseInRange(begin, end, what, fn); };
  auto int_list = [&](google::protobuf::RepeatedField<int64_t>* field) {
    return in_range([&] {
      std::vector<int64_t> v;
      RETURN_IF_ERROR(ParseIntList(&v));
      field->Assign(v.begin(), v.end());
      return absl::OkStatus();
    });
  };
  // One value read by the member function `parse` inside the range, stored by `set`.
  auto value = [&](auto parse, auto set) {
    return in_range([&]() -> absl::Status {
      auto v = (this->*parse)();
      if (!v.ok()) return v.status();
      set(*std::move(v));
      return absl::OkStatus();
    });
  };
  auto int_value = [&](auto set) { return value(&Parser::ParseInt, set); };
  auto int32_value = [&](auto set) { return value(&Parser::ParseInt32, set); };
  auto bool_value = [&](auto set) { return value(&Parser::ParseBool, set); };
  auto string_value = [&](auto set) { return value(&Parser::ParseQuoted, set); };
  // An upper-cased word parsed by a proto enum's Parse function.
  auto enum_value = [&](absl::string_view kind, const std::function<bool(const std::string&)>& parse) {
    return in_range([&] {
      SkipSpace();
      size_t start = pos_;
      std::string word = LexWord();
      if (word.empty() || !parse(absl::AsciiStrToUpper(word))) {
        pos_ = start;
        return ErrorAt(start, absl::StrCat("unknown ", kind, " ", Found(), " in ", what));
      }
      return absl::OkStatus();
    });
  };
  auto callee = [&](std::optional<NameRef>* slot) {
    if (slot->has_value()) {
      return ErrorAt(key_pos, absl::StrCat("'", instr->name, "' names the same called computation twice"));
    }
    return in_range([&] {
      ASSIGN_OR_RETURN(NameRef ref, ParseNameRef("a computation name"));
      *slot = std::move(ref);
      return absl::OkStatus();
    });
  };
  auto raw = [&] { return std::string(text_.substr(begin, end - begin)); };
  auto keep_raw = [&] {
    (*p.mutable_unknown_attributes())[key] = raw();
    return absl::OkStatus();
  };

  if (key == "elided") return ErrorAt(key_pos, "attribute name 'elided' is reserved (write constant({...}))");
  // Keys whose typed meaning belongs to particular opcodes; elsewhere (e.g.
  // `algorithm=` on dot) they are someone else's attribute and kept verbatim.
  static const auto* kOwners = new absl::flat_hash_map<std::string, std::vector<HloOpcode>>{
      {"iota_dimension", {HloOpcode::kIota}},
      {"index", {HloOpcode::kGetTupleElement}},
      {"direction", {HloOpcode::kCompare}},
      {"type", {HloOpcode::kCompare}},
      {"algorithm", {HloOpcode::kRngBitGenerator}},
      {"distribution", {HloOpcode::kRng}},
      {"kind", {HloOpcode::kFusion}},
      {"fft_type", {HloOpcode::kFft}},
      {"fft_length", {HloOpcode::kFft}},
      {"k", {HloOpcode::kTopK}},
      {"api_version", {HloOpcode::kCustomCall}},
      {"custom_call_has_side_effect", {HloOpcode::kCustomCall}},
      {"largest", {HloOpcode::kTopK}},
      {"exponent_bits", {HloOpcode::kReducePrecision}},
      {"mantissa_bits", {HloOpcode::kReducePrecision}},
      {"epsilon", {HloOpcode::kBatchNormGrad, HloOpcode::kBatchNormInference, HloOpcode::kBatchNormTraining}},
      {"feature_index", {HloOpcode::kBatchNormGrad, HloOpcode::kBatchNormInference, HloOpcode::kBatchNormTraining}},
      {"lower", {HloOpcode::kCholesky, HloOpcode::kTriangularSolve}},
      {"left_side", {HloOpcode::kTriangularSolve}},
      {"unit_diagonal", {HloOpcode::kTriangularSolve}},
      {"transpose_a", {HloOpcode::kTriangularSolve}},
  };
  if (auto owner = kOwners->find(key); owner != kOwners->end() &&
      std::find(owner->second.begin(), owner->second.end(), op) == owner->second.end()) {
    return keep_raw();
  }
  if (key == "dimensions") return int_list(p.mutable_dimensions());
  if (key == "iota_dimension") {
    return int_value([&](int64_t v) { p.clear_dimensions(); p.add_dimensions(v); });
  }
  if (key == "index") return int_value([&](int64_t v) { p.set_tuple_index(v); });
  // A word checked by `valid`, stored by `set` (compare's direction and type).
  auto checked_word = [&](const char* kind, const char* expected,
                          const std::function<bool(const std::string&)>& valid,
                          const std::function<void(const std::string&)>& set) {
    return in_range([&] {
      SkipSpace();
      size_t start = pos_;
      std::string word = LexWord();
      if (!valid(word)) {
        return ErrorAt(start, absl::StrCat("unknown ", kind, " '", word, "' in '", instr->name, "' (expected ",
                                           expected, ")"));
      }
      set(word);
      return absl::OkStatus();
    });
  };
  if (key == "direction") {
    return checked_word(
        "comparison direction", "EQ, NE, GE, GT, LE or LT",
        [](const std::string& w) { return StringToComparisonDirection(w).ok(); },
        [&](const std::string& w) { p.set_comparison_direction(w); });
  }
  if (key == "type") {
    return checked_word(
        "comparison type", "FLOAT, TOTALORDER, SIGNED or UNSIGNED",
        [](const std::string& w) { return StringToComparisonType(w).ok(); },
        [&](const std::string& w) { p.set_comparison_type(w); });
  }
  if (key == "slice") return in_range([&] { return ParseSlice(&p); });
  if (key == "dynamic_slice_sizes") return int_list(p.mutable_dynamic_slice_sizes());
  if (key == "padding") return in_range([&] { return ParsePadding(p.mutable_padding_config()); });
  if (key == "window") return in_range([&] { return ParseWindow(p.mutable_window()); });
  if (key == "dim_labels") return ParseDimLabels(begin, end, p.mutable_convolution_dimension_numbers());
  if (key == "feature_group_count") return int_value([&](int64_t v) { p.set_feature_group_count(v); });
  if (key == "batch_group_count") return int_value([&](int64_t v) { p.set_batch_group_count(v); });
  // Sub-messages are created only by the attribute that fills them.
  auto dot = [&] { return p.mutable_dot_dimension_numbers(); };
  auto gather = [&] { return p.mutable_gather_dimension_numbers(); };
  auto scatter = [&] { return p.mutable_scatter_dimension_numbers(); };
  auto tri = [&] { return p.mutable_triangular_solve_options(); };
  if (key == "lhs_contracting_dims") return int_list(dot()->mutable_lhs_contracting_dimensions());
  if (key == "rhs_contracting_dims") return int_list(dot()->mutable_rhs_contracting_dimensions());
  if (key == "lhs_batch_dims") return int_list(dot()->mutable_lhs_batch_dimensions());
  if (key == "rhs_batch_dims") return int_list(dot()->mutable_rhs_batch_dimensions());
  if (key == "operand_precision" || key == "precision_config") {
    return in_range([&] {
      p.clear_precision_config();
      RETURN_IF_ERROR(Expect('{', "to start the precision list"));
      if (TryConsume('}')) return absl::OkStatus();
      while (true) {
        SkipSpace();
        size_t start = pos_;
        std::string word = LexWord();
        PrecisionConfig::Precision precision;
        if (!PrecisionConfig::Precision_Parse(absl::AsciiStrToUpper(word), &precision)) {
          pos_ = start;
          return ErrorAt(start, absl::StrCat("unknown precision ", Found(), " (expected default, high or highest)"));
        }
        p.mutable_precision_config()->add_operand_precision(precision);
        if (TryConsume(',')) continue;
        return Expect('}', "to close the precision list");
      }
    });
  }
  if (key == "offset_dims") return int_list(gather()->mutable_offset_dims());
  if (key == "collapsed_slice_dims") return int_list(gather()->mutable_collapsed_slice_dims());
  if (key == "start_index_map") return int_list(gather()->mutable_start_index_map());
  if (key == "operand_batching_dims") return int_list(gather()->mutable_operand_batching_dims());
  if (key == "start_indices_batching_dims") return int_list(gather()->mutable_start_indices_batching_dims());
  if (key == "slice_sizes") return int_list(p.mutable_gather_slice_sizes());
  if (key == "update_window_dims") return int_list(scatter()->mutable_update_window_dims());
  if (key == "inserted_window_dims") return int_list(scatter()->mutable_inserted_window_dims());
  if (key == "scatter_dims_to_operand_dims") return int_list(scatter()->mutable_scatter_dims_to_operand_dims());
  if (key == "input_batching_dims") return int_list(scatter()->mutable_input_batching_dims());
  if (key == "scatter_indices_batching_dims") return int_list(scatter()->mutable_scatter_indices_batching_dims());
  if (key == "index_vector_dim") {
    // Scatter's own on scatter; gather's on every other opcode (printer agrees).
    if (op == HloOpcode::kScatter) return int_value([&](int64_t v) { scatter()->set_index_vector_dim(v); });
    return int_value([&](int64_t v) { gather()->set_index_vector_dim(v); });
  }
  if (key == "indices_are_sorted") return bool_value([&](bool v) { p.set_indices_are_sorted(v); });
  if (key == "unique_indices") return bool_value([&](bool v) { p.set_unique_indices(v); });
  if (key == "is_stable") return bool_value([&](bool v) { p.set_is_stable(v); });
  if (key == "constrain_layout") return bool_value([&](bool v) { p.set_constrain_layout(v); });
  if (key == "use_global_device_ids") return bool_value([&](bool v) { p.set_use_global_device_ids(v); });
  if (key == "is_host_transfer") return bool_value([&](bool v) { p.set_is_host_transfer(v); });
  if (key == "largest") return bool_value([&](bool v) { p.set_largest(v); });
  if (key == "k") return int_value([&](int64_t v) { p.set_k(v); });
  if (key == "exponent_bits") return int32_value([&](int32_t v) { p.set_exponent_bits(v); });
  if (key == "mantissa_bits") return int32_value([&](int32_t v) { p.set_mantissa_bits(v); });
  if (key == "epsilon") return value(&Parser::ParseFloat, [&](float v) { p.set_epsilon(v); });
  if (key == "feature_index") return int_value([&](int64_t v) { p.set_feature_index(v); });
  if (key == "channel_id") return int_value([&](int64_t v) { p.set_channel_id(v); });
  if (key == "distribution") {
    return enum_value("distribution", [&](const std::string& w) {
      RandomDistribution d;
      if (!RandomDistribution_Parse(w, &d)) return false;
      p.set_distribution(d);
      return true;
    });
  }
  if (key == "algorithm") {
    return enum_value("rng algorithm", [&](const std::string& w) {
      RandomAlgorithm a;
      if (!RandomAlgorithm_Parse(w, &a)) return false;
      p.set_rng_algorithm(a);
      return true;
    });
  }
  if (key == "fft_type") {
    return enum_value("fft type", [&](const std::string& w) {
      FftType t;
      if (!FftType_Parse(w, &t)) return false;
      p.set_fft_type(t);
      return true;
    });
  }
  if (key == "fft_length") return int_list(p.mutable_fft_length());
  if (key == "custom_call_target") return string_value([&](std::string v) { p.set_custom_call_target(v); });
  if (key == "custom_call_has_side_effect") {
    return bool_value([&](bool v) { p.set_custom_call_has_side_effect(v); });
  }
  if (key == "api_version") {
    return enum_value("custom-call api_version", [&](const std::string& w) {
      CustomCallApiVersion v;
      if (!CustomCallApiVersion_Parse(w, &v)) return false;
      p.set_custom_call_api_version(v);
      return true;
    });
  }
  if (key == "infeed_config") return string_value([&](std::string v) { p.set_infeed_config(v); });
  if (key == "outfeed_config") return string_value([&](std::string v) { p.set_outfeed_config(v); });
  if (key == "backend_config") {
    if (begin < end && text_[begin] == '"') return string_value([&](std::string v) { p.set_backend_config(v); });
    p.set_backend_config(raw());  // structured `{...}` configs are kept verbatim
    return absl::OkStatus();
  }
  if (key == "outfeed_shape") {
    return in_range([&] {
      ASSIGN_OR_RETURN(Shape s, ParseShape());
      *p.mutable_outfeed_shape() = s.ToProto();
      return absl::OkStatus();
    });
  }
  if (key == "operand_layout_constraints") {
    return in_range([&] {
      RETURN_IF_ERROR(Expect('{', "to start the operand layout list"));
      if (TryConsume('}')) return absl::OkStatus();
      while (true) {
        ASSIGN_OR_RETURN(Shape s, ParseShape());
        *p.add_operand_shapes_with_layout() = s.ToProto();
        if (TryConsume(',')) continue;
        return Expect('}', "to close the operand layout list");
      }
    });
  }
  if (key == "kind") {
    return in_range([&] {
      SkipSpace();
      std::string word = LexWord();
      if (word.empty()) return ErrorAt(pos_, absl::StrCat("expected a fusion kind, found ", Found()));
      p.set_fusion_kind(word);
      return absl::OkStatus();
    });
  }
  if (key == "lower" && op == HloOpcode::kCholesky) {
    return bool_value([&](bool v) { p.mutable_cholesky_options()->set_lower(v); });
  }
  if (key == "lower") return bool_value([&](bool v) { tri()->set_lower(v); });
  if (key == "left_side") return bool_value([&](bool v) { tri()->set_left_side(v); });
  if (key == "unit_diagonal") return bool_value([&](bool v) { tri()->set_unit_diagonal(v); });
  if (key == "transpose_a") {
    return enum_value("transpose kind", [&](const std::string& w) {
      TriangularSolveOptions::Transpose t;
      if (!TriangularSolveOptions::Transpose_Parse(w, &t)) return false;
      tri()->set_transpose_a(t);
      return true;
    });
  }
  if (key == "replica_groups") {
    if (begin < end && text_[begin] == '[') return keep_raw();  // iota form, no typed field
    return in_range([&] {
      RETURN_IF_ERROR(Expect('{', "to start the replica groups"));
      if (TryConsume('}')) return absl::OkStatus();
      while (true) {
        std::vector<int64_t> ids;
        RETURN_IF_ERROR(ParseIntList(&ids));
        ReplicaGroup* group = p.add_replica_groups();
        for (int64_t id : ids) group->add_replica_ids(id);
        if (TryConsume(',')) continue;
        return Expect('}', "to close the replica groups");
      }
    });
  }
  if (key == "source_target_pairs") {
    return in_range([&] {
      RETURN_IF_ERROR(Expect('{', "to start the source-target pairs"));
      if (TryConsume('}')) return absl::OkStatus();
      while (true) {
        size_t start = (SkipSpace(), pos_);
        std::vector<int64_t> pair;
        RETURN_IF_ERROR(ParseIntList(&pair));
        if (pair.size() != 2) return ErrorAt(start, "a source-target pair needs exactly two numbers");
        SourceTarget* st = p.add_source_target_pairs();
        st->set_source(pair[0]);
        st->set_target(pair[1]);
        if (TryConsume(',')) continue;
        return Expect('}', "to close the source-target pairs");
      }
    });
  }
  if (key == "metadata") {
    bool typed = true;
    RETURN_IF_ERROR(in_range([&] {
      ASSIGN_OR_RETURN(typed, ParseMetadata(p.mutable_metadata()));
      return absl::OkStatus();
    }));
    if (!typed) {  // keys OpMetadata has no field for: keep the whole value
      p.clear_metadata();
      return keep_raw();
    }
    return absl::OkStatus();
  }
  if (key == "sharding") {
    // Tuple, manual, subgrouped ... shardings have no typed form here: keep them raw.
    OpSharding sharding;
    if (!in_range([&] { return TryParseSharding(&sharding) ? absl::OkStatus() : absl::UnknownError(""); }).ok()) {
      return keep_raw();
    }
    *p.mutable_sharding() = sharding;
    return absl::OkStatus();
  }
  if (key == "frontend_attributes") {
    return in_range([&] { return ParseFrontendAttributes(p.mutable_frontend_attributes()); });
  }
  if (key == "to_apply" || key == "calls") return callee(&roles->to_apply);
  if (key == "condition") return callee(&roles->condition);
  if (key == "body") return callee(&roles->body);
  if (key == "true_computation") return callee(&roles->true_computation);
  if (key == "false_computation") return callee(&roles->false_computation);
  if (key == "select") return callee(&roles->select);
  if (key == "scatter") return callee(&roles->scatter);
  if (key == "branch_computations" || key == "called_computations") {
    auto& slot = key == "branch_computations" ? roles->branches : roles->generic;
    return in_range([&] {
      ASSIGN_OR_RETURN(slot, ParseComputationList());
      return absl::OkStatus();
    });
  }
  return keep_raw();
}

absl::StatusOr<std::vector<NameRef>> Parser::ParseComputationList() {
  std::vector<NameRef> out;
  RETURN_IF_ERROR(Expect('{', "to start the computation list"));
  if (TryConsume('}')) return out;
  while (true) {
    ASSIGN_OR_RETURN(NameRef ref, ParseNameRef("a computation name"));
    out.push_back(std::move(ref));
    if (TryConsume(',')) continue;
    RETURN_IF_ERROR(Expect('}', "to close the computation list"));
    return out;
  }
}

// {[0:2], [1:3:2]}
absl::Status Parser::ParseSlice(HloInstructionProto* proto) {
  RETURN_IF_ERROR(Expect('{', "to start the slice bounds"));
  if (TryConsume('}')) return absl::OkStatus();
  while (true) {
    RETURN_IF_ERROR(Expect('[', "to start a slice dimension"));
    auto* dim = proto->add_slice_dimensions();
    ASSIGN_OR_RETURN(int64_t start, ParseInt());
    RETURN_IF_ERROR(Expect(':', "between slice start and limit"));
    ASSIGN_OR_RETURN(int64_t limit, ParseInt());
    int64_t stride = 1;
    if (TryConsume(':')) {
      ASSIGN_OR_RETURN(stride, ParseInt());
    }
    RETURN_IF_ERROR(Expect(']', "to close a slice dimension"));
    dim->set_start(start);
    dim->set_limit(limit);
    dim->set_stride(stride);
    if (TryConsume(',')) continue;
    return Expect('}', "to close the slice bounds");
  }
}

// 0_0x1_2_1: low_high[_interior] per dimension.
absl::Status Parser::ParsePadding(PaddingConfig* config) {
  SkipSpace();
  if (pos_ >= end_) return absl::OkStatus();  // rank 0
  while (true) {
    auto* dim = config->add_dimensions();
    ASSIGN_OR_RETURN(int64_t low, ParseInt());
    RETURN_IF_ERROR(Expect('_', "between low and high padding"));
    ASSIGN_OR_RETURN(int64_t high, ParseInt());
    dim->set_edge_padding_low(low);
    dim->set_edge_padding_high(high);
    if (TryConsume('_')) {
      ASSIGN_OR_RETURN(int64_t interior, ParseInt());
      dim->set_interior_padding(interior);
    }
    if (!TryConsume('x')) return absl::OkStatus();
  }
}

// {size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x0}
absl::Status Parser::ParseWindow(Window* window) {
  RETURN_IF_ERROR(Expect('{', "to start the window"));
  // Values per field, dimension by dimension; pads are (low, high) pairs.
  absl::flat_hash_map<std::string, std::vector<int64_t>> fields;
  std::vector<std::pair<int64_t, int64_t>> pads;
  bool has_pad = false;
  while (!TryConsume('}')) {
    SkipSpace();
    size_t key_pos = pos_;
    std::string key = LexWord();
    if (key != "size" && key != "stride" && key != "pad" && key != "lhs_dilate" && key != "rhs_dilate" &&
        key != "rhs_reversal") {
      pos_ = key_pos;
      return ErrorAt(key_pos, absl::StrCat("unknown window field ", Found(),
                                           " (expected size, stride, pad, lhs_dilate, rhs_dilate or rhs_reversal)"));
    }
    if ((key == "pad" && has_pad) || fields.contains(key)) {
      return ErrorAt(key_pos, absl::StrCat("window field '", key, "' given twice"));
    }
    RETURN_IF_ERROR(Expect('=', absl::StrCat("after window field '", key, "'")));
    do {
      ASSIGN_OR_RETURN(int64_t v, ParseInt());
      if (key == "pad") {
        RETURN_IF_ERROR(Expect('_', "between low and high window padding"));
        ASSIGN_OR_RETURN(int64_t high, ParseInt());
        pads.push_back({v, high});
      } else {
        fields[key].push_back(v);
      }
    } while (TryConsume('x'));
    has_pad |= key == "pad";
  }
  auto size_it = fields.find("size");
  if (size_it == fields.end()) {
    if (fields.empty() && !has_pad) return absl::OkStatus();  // window={}
    return ErrorAt(pos_ - 1, "window needs a size field");
  }
  const size_t rank = size_it->second.size();
  for (const auto& [key, values] : fields) {
    if (values.size() != rank) {
      return ErrorAt(pos_ - 1, absl::StrCat("window field '", key, "' has ", values.size(),
                                            " dimensions but size has ", rank));
    }
  }
  if (has_pad && pads.size() != rank) {
    return ErrorAt(pos_ - 1, absl::StrCat("window pad has ", pads.size(), " dimensions but size has ", rank));
  }
  auto get = [&](const char* key, size_t i, int64_t dflt) {
    auto it = fields.find(key);
    return it == fields.end() ? dflt : it->second[i];
  };
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension* d = window->add_dimensions();
    d->set_size(get("size", i, 1));
    d->set_stride(get("stride", i, 1));
    d->set_padding_low(has_pad ? pads[i].first : 0);
    d->set_padding_high(has_pad ? pads[i].second : 0);
    d->set_base_dilation(get("lhs_dilate", i, 1));
    d->set_window_dilation(get("rhs_dilate", i, 1));
    d->set_window_reversal(get("rhs_reversal", i, 0) != 0);
  }
  return absl::OkStatus();
}

// b01f_01io->b01f: the position of each letter is that dimension's number;
// digit k marks spatial dimension k.
absl::Status Parser::ParseDimLabels(size_t begin, size_t end, ConvolutionDimensionNumbers* dn) {
  absl::string_view text = absl::StripAsciiWhitespace(text_.substr(begin, end - begin));
  auto error = [&](absl::string_view why) {
    return ErrorAt(begin, absl::StrCat("bad dim_labels '", text, "': ", why));
  };
  size_t arrow = text.find("->");
  if (arrow == absl::string_view::npos) return error("expected 'LHS_RHS->OUT', e.g. b01f_01io->b01f");
  std::vector<absl::string_view> lhs_rhs = absl::StrSplit(text.substr(0, arrow), '_');
  if (lhs_rhs.size() != 2) return error("expected one '_' between the input and kernel labels");
  absl::string_view parts[3] = {lhs_rhs[0], lhs_rhs[1], text.substr(arrow + 2)};
  const char letters[3][2] = {{'b', 'f'}, {'i', 'o'}, {'b', 'f'}};
  const int64_t spatial = static_cast<int64_t>(parts[0].size()) - 2;
  if (spatial < 0) return error("each part needs at least two labels");
  for (int k = 0; k < 3; ++k) {
    absl::string_view part = parts[k];
    if (static_cast<int64_t>(part.size()) != spatial + 2) return error("all three parts must have the same rank");
    int64_t first = -1, second = -1;
    std::vector<int64_t> spatial_dims(spatial, -1);
    for (size_t pos = 0; pos < part.size(); ++pos) {
      char c = part[pos];
      int64_t* slot = nullptr;
      if (c == letters[k][0]) {
        slot = &first;
      } else if (c == letters[k][1]) {
        slot = &second;
      } else if (absl::ascii_isdigit(c) && c - '0' < spatial) {
        slot = &spatial_dims[c - '0'];
      } else {
        return error(absl::StrCat("unexpected label '", std::string(1, c), "' in '", part, "'"));
      }
      if (*slot != -1) return error(absl::StrCat("label '", std::string(1, c), "' repeated in '", part, "'"));
      *slot = static_cast<int64_t>(pos);
    }
    if (first < 0 || second < 0) return error(absl::StrCat("missing a label in '", part, "'"));
    if (k == 0) {
      dn->set_input_batch_dimension(first);
      dn->set_input_feature_dimension(second);
      for (int64_t d : spatial_dims) dn->add_input_spatial_dimensions(d);
    } else if (k == 1) {
      dn->set_kernel_input_feature_dimension(first);
      dn->set_kernel_output_feature_dimension(second);
      for (int64_t d : spatial_dims) dn->add_kernel_spatial_dimensions(d);
    } else {
      dn->set_output_batch_dimension(first);
      dn->set_output_feature_dimension(second);
      for (int64_t d : spatial_dims) dn->add_output_spatial_dimensions(d);
    }
  }
  return absl::OkStatus();
}

// {op_type="Relu" op_name="x" source_file="f.py" source_line=10}
absl::StatusOr<bool> Parser::ParseMetadata(OpMetadata* metadata) {
  RETURN_IF_ERROR(Expect('{', "to start the metadata"));
  while (!TryConsume('}')) {
    SkipSpace();
    size_t key_pos = pos_;
    std::string key = LexWord();
    if (key.empty()) return ErrorAt(key_pos, absl::StrCat("expected a metadata field, found ", Found()));
    RETURN_IF_ERROR(Expect('=', absl::StrCat("after metadata field '", key, "'")));
    if (key == "op_type" || key == "op_name" || key == "source_file") {
      ASSIGN_OR_RETURN(std::string v, ParseQuoted());
      if (key == "op_type") metadata->set_op_type(v);
      if (key == "op_name") metadata->set_op_name(v);
      if (key == "source_file") metadata->set_source_file(v);
    } else if (key == "source_line") {
      ASSIGN_OR_RETURN(int32_t v, ParseInt32());
      metadata->set_source_line(v);
    } else {
      pos_ = end_;  // a field OpMetadata cannot hold: the caller keeps the raw text
      return false;
    }
    TryConsume(',');
    SkipSpace();
    if (pos_ >= end_) return ErrorAt(pos_, "expected '}' to close the metadata");
  }
  return true;
}

// {replicated} | {maximal device=N} | {devices=[2,1]0,1}. False: another form.
bool Parser::TryParseSharding(OpSharding* sharding) {
  if (!TryConsume('{')) return false;
  SkipSpace();
  std::string word = LexWord();
  if (word == "replicated") {
    sharding->set_type(OpSharding::REPLICATED);
  } else if (word == "maximal") {
    sharding->set_type(OpSharding::MAXIMAL);
    SkipSpace();
    if (LexWord() != "device" || !TryConsume('=')) return false;
    auto device = ParseInt();
    if (!device.ok()) return false;
    sharding->add_tile_assignment_devices(*device);
  } else if (word == "devices") {
    sharding->set_type(OpSharding::OTHER);
    if (!TryConsume('=') || !TryConsume('[')) return false;
    do {
      auto d = ParseInt();
      if (!d.ok()) return false;
      sharding->add_tile_assignment_dimensions(*d);
    } while (TryConsume(','));
    if (!TryConsume(']')) return false;
    do {
      auto d = ParseInt();
      if (!d.ok()) return false;
      sharding->add_tile_assignment_devices(*d);
    } while (TryConsume(','));
  } else {
    return false;
  }
  return TryConsume('}');
}

// {key="value",key2="value2"}
absl::Status Parser::ParseFrontendAttributes(FrontendAttributes* attrs) {
  RETURN_IF_ERROR(Expect('{', "to start the frontend attributes"));
  if (TryConsume('}')) return absl::OkStatus();
  while (true) {
    SkipSpace();
    std::string key;
    if (Peek() == '"') {
      ASSIGN_OR_RETURN(key, ParseQuoted());
    } else {
      key = LexWord();
      if (key.empty()) return ErrorAt(pos_, absl::StrCat("expected a frontend attribute name, found ", Found()));
    }
    RETURN_IF_ERROR(Expect('=', absl::StrCat("after frontend attribute '", key, "'")));
    ASSIGN_OR_RETURN(std::string value, ParseQuoted());
    (*attrs->mutable_map())[key] = value;
    if (TryConsume(',')) continue;
    return Expect('}', "to close the frontend attributes");
  }
}

absl::Status Parser::FinishInstruction(ParsedInstruction* instr, CalleeRoles roles,
                                       const absl::flat_hash_set<std::string>& seen) {
  HloInstructionProto& p = instr->proto;
  const HloOpcode op = instr->opcode;
  auto need_pair = [&](const std::optional<NameRef>& a, const std::optional<NameRef>& b, const char* an,
                       const char* bn) -> absl::Status {
    if (a.has_value() != b.has_value()) {
      return ErrorAt(instr->pos, absl::StrCat("'", instr->name, "' has ", a ? an : bn, "= but no ", a ? bn : an, "="));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(need_pair(roles.condition, roles.body, "condition", "body"));
  RETURN_IF_ERROR(need_pair(roles.true_computation, roles.false_computation, "true_computation", "false_computation"));
  RETURN_IF_ERROR(need_pair(roles.select, roles.scatter, "select", "scatter"));
  if (op == HloOpcode::kWhile && !roles.condition) {
    return ErrorAt(instr->pos, absl::StrCat("while '", instr->name, "' needs condition= and body="));
  }
  for (const auto* slot : {&roles.condition, &roles.body, &roles.true_computation, &roles.false_computation}) {
    if (*slot) instr->callees.push_back(**slot);
  }
  if (roles.branches) instr->callees.insert(instr->callees.end(), roles.branches->begin(), roles.branches->end());
  for (const auto* slot : {&roles.select, &roles.scatter, &roles.to_apply}) {
    if (*slot) instr->callees.push_back(**slot);
  }
  if (roles.generic) instr->callees.insert(instr->callees.end(), roles.generic->begin(), roles.generic->end());

  if (op == HloOpcode::kCompare && p.comparison_direction().empty()) {
    return ErrorAt(instr->pos, absl::StrCat("compare '", instr->name, "' needs a direction= attribute"));
  }
  int arity = HloOpcodeArity(op);
  if (arity != kHloOpcodeVariadic && op != HloOpcode::kConstant && op != HloOpcode::kParameter &&
      static_cast<int>(instr->operands.size()) != arity) {
    return ErrorAt(instr->opcode_pos, absl::StrCat("'", HloOpcodeString(op), "' takes ", arity, " operand",
                                                   arity == 1 ? "" : "s", " but '", instr->name, "' has ",
                                                   instr->operands.size()));
  }
  // Defaults, so that writing them or leaving them out gives the same proto.
  if (op == HloOpcode::kConvolution) {
    if (p.feature_group_count() == 0) p.set_feature_group_count(1);
    if (p.batch_group_count() == 0) p.set_batch_group_count(1);
  }
  if (op == HloOpcode::kTopK && !seen.contains("largest")) p.set_largest(true);
  if (op == HloOpcode::kTriangularSolve && p.triangular_solve_options().transpose_a() == 0) {
    p.mutable_triangular_solve_options()->set_transpose_a(TriangularSolveOptions::NO_TRANSPOSE);
  }
  // Empty sub-messages carry nothing; clearing them keeps protos canonical.
#define CLEAR_IF_EMPTY(field) \
  if (p.has_##field() && p.field().ByteSizeLong() == 0) p.clear_##field();
  CLEAR_IF_EMPTY(metadata)
  CLEAR_IF_EMPTY(window)
  CLEAR_IF_EMPTY(convolution_dimension_numbers)
  CLEAR_IF_EMPTY(padding_config)
  CLEAR_IF_EMPTY(dot_dimension_numbers)
  CLEAR_IF_EMPTY(gather_dimension_numbers)
  CLEAR_IF_EMPTY(scatter_dimension_numbers)
  CLEAR_IF_EMPTY(precision_config)
  CLEAR_IF_EMPTY(triangular_solve_options)
  CLEAR_IF_EMPTY(cholesky_options)
  CLEAR_IF_EMPTY(frontend_attributes)
#undef CLEAR_IF_EMPTY
  p.set_name(instr->name);
  p.set_opcode(std::string(HloOpcodeString(op)));
  *p.mutable_shape() = instr->shape.ToProto();
  return absl::OkStatus();
}

absl::StatusOr<HloModuleProto> Parser::Build(bool has_header) {
  const int num_comps = static_cast<int>(computations_.size());
  int entry = -1;
  for (int c = 0; c < num_comps; ++c) {
    if (!computations_[c].is_entry) continue;
    if (entry >= 0) {
      return ErrorAt(computations_[c].pos, absl::StrCat("second ENTRY computation '", computations_[c].name,
                                                        "' (first: '", computations_[entry].name, "')"));
    }
    entry = c;
  }
  if (entry < 0) entry = num_comps - 1;  // no ENTRY: the last computation
  if (!has_header) module_name_ = computations_[entry].name;

  // Resolve called computations.
  std::vector<std::vector<int>> comp_deps(num_comps);
  std::vector<std::vector<std::vector<int>>> callee_index(num_comps);
  for (int c = 0; c < num_comps; ++c) {
    for (const ParsedInstruction& instr : computations_[c].instructions) {
      std::vector<int> indices;
      for (const NameRef& ref : instr.callees) {
        auto it = computation_index_.find(ref.name);
        if (it == computation_index_.end()) {
          return ErrorAt(ref.pos, absl::StrCat("undefined computation '%", ref.name, "' called by instruction '",
                                               instr.name, "'"));
        }
        if (it->second == entry) {
          return ErrorAt(ref.pos, absl::StrCat("instruction '", instr.name, "' calls the entry computation '",
                                               ref.name, "'"));
        }
        indices.push_back(it->second);
        comp_deps[c].push_back(it->second);
      }
      callee_index[c].push_back(std::move(indices));
    }
  }
  // Callees first; the entry (called by nothing) last.
  std::vector<int> starts;
  for (int c = 0; c < num_comps; ++c) {
    if (c != entry) starts.push_back(c);
  }
  starts.push_back(entry);
  std::vector<int> comp_order;
  int cycle = -1;
  if (!TopoSort(comp_deps, starts, &comp_order, &cycle)) {
    return ErrorAt(computations_[cycle].pos,
                   absl::StrCat("computation '", computations_[cycle].name,
                                "' calls itself (directly or through others)"));
  }

  // Ids: computations first, then instructions, all distinct.
  int64_t next_id = 1;
  std::vector<int64_t> comp_id(num_comps);
  for (int c : comp_order) comp_id[c] = next_id++;

  HloModuleProto module;
  module.set_name(module_name_);
  for (const auto& [k, v] : module_attributes_) {
    if (k == "input_output_alias") {
      // A typed field of the proto, checked against the entry by the verifier.
      absl::StatusOr<std::vector<InputOutputAlias>> aliases = ParseInputOutputAliases(v);
      if (!aliases.ok()) return aliases.status();
      for (const InputOutputAlias& a : *aliases) *module.add_input_output_alias() = InputOutputAliasToProto(a);
      continue;
    }
    (*module.mutable_attributes())[k] = v;
  }
  for (int c : comp_order) {
    ParsedComputation& comp = computations_[c];
    const int n = static_cast<int>(comp.instructions.size());
    // Resolve operands.
    std::vector<std::vector<int>> deps(n);
    for (int i = 0; i < n; ++i) {
      const ParsedInstruction& instr = comp.instructions[i];
      for (const OperandRef& operand : instr.operands) {
        auto it = comp.by_name.find(operand.ref.name);
        if (it == comp.by_name.end()) {
          return ErrorAt(operand.ref.pos, absl::StrCat("undefined operand '%", operand.ref.name, "' in instruction '",
                                                       instr.name, "' of computation '", comp.name, "'"));
        }
        const Shape& actual = comp.instructions[it->second].shape;
        if (operand.declared_shape && !operand.declared_shape->Compatible(actual)) {
          return ErrorAt(operand.ref.pos, absl::StrCat("operand '%", operand.ref.name, "' of '", instr.name,
                                                       "' is written with shape ", operand.declared_shape->ToString(),
                                                       " but has shape ", actual.ToString()));
        }
        deps[i].push_back(it->second);
      }
    }
    std::vector<int> all(n);
    for (int i = 0; i < n; ++i) all[i] = i;
    std::vector<int> order;
    if (!TopoSort(deps, all, &order, &cycle)) {
      return ErrorAt(comp.instructions[cycle].pos, absl::StrCat("instruction '", comp.instructions[cycle].name,
                                                                "' depends on itself (cycle in computation '",
                                                                comp.name, "')"));
    }
    // Parameters: numbers must be dense and distinct.
    std::vector<int> params;
    for (int i = 0; i < n; ++i) {
      const ParsedInstruction& instr = comp.instructions[i];
      if (instr.opcode != HloOpcode::kParameter) continue;
      int64_t number = instr.proto.parameter_number();
      if (number >= n) {
        return ErrorAt(instr.pos, absl::StrCat("parameter number ", number, " of '", instr.name,
                                               "' is out of range (computation '", comp.name, "' has ", n,
                                               " instructions)"));
      }
      if (number >= static_cast<int64_t>(params.size())) params.resize(number + 1, -1);
      if (params[number] >= 0) {
        return ErrorAt(instr.pos, absl::StrCat("parameter number ", number, " is used by both '",
                                               comp.instructions[params[number]].name, "' and '", instr.name, "'"));
      }
      params[number] = i;
    }
    for (size_t k = 0; k < params.size(); ++k) {
      if (params[k] < 0) {
        return ErrorAt(comp.pos, absl::StrCat("computation '", comp.name, "' has no parameter ", k,
                                              " (parameter numbers must be 0..N-1)"));
      }
    }
    std::vector<int64_t> instr_id(n);
    for (int i : order) instr_id[i] = next_id++;

    HloComputationProto* cproto = module.add_computations();
    cproto->set_name(comp.name);
    cproto->set_id(comp_id[c]);
    for (int i : order) {
      ParsedInstruction& instr = comp.instructions[i];
      HloInstructionProto* iproto = cproto->add_instructions();
      *iproto = std::move(instr.proto);
      iproto->set_id(instr_id[i]);
      for (int d : deps[i]) iproto->add_operand_ids(instr_id[d]);
      for (int callee : callee_index[c][i]) iproto->add_called_computation_ids(comp_id[callee]);
    }
    const int root = comp.root >= 0 ? comp.root : n - 1;
    cproto->set_root_id(instr_id[root]);
    ProgramShapeProto* ps = cproto->mutable_program_shape();
    for (int i : params) {
      *ps->add_parameters() = comp.instructions[i].shape.ToProto();
      ps->add_parameter_names(comp.instructions[i].name);
    }
    *ps->mutable_result() = comp.instructions[root].shape.ToProto();
    if (c == entry) {
      module.set_entry_computation_name(comp.name);
      module.set_entry_computation_id(comp_id[c]);
      *module.mutable_host_program_shape() = *ps;
    }
  }
  return module;
}

}  // namespace

absl::StatusOr<HloModuleProto> ParseHloModuleToProto(absl::string_view text) {
  Parser parser(text);
  return parser.ParseModule();
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(absl::string_view text) {
  ASSIGN_OR_RETURN(HloModuleProto proto, ParseHloModuleToProto(text));
  return HloModule::CreateFromProto(proto);
}

}  // namespace xla
