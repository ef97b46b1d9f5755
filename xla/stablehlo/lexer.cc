#include "xla/stablehlo/lexer.h"

#include <cctype>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace xla {
namespace stablehlo {

bool IsIdentifierChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
}

Lexer::Lexer(absl::string_view text, size_t begin, size_t end, std::string filename)
    : text_(text), pos_(begin), end_(std::min(end, text.size())), filename_(std::move(filename)) {}

void Lexer::SkipSpace() {
  while (pos_ < end_) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < end_ && text_[pos_ + 1] == '/') {
      while (pos_ < end_ && text_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

bool Lexer::AtEnd() {
  SkipSpace();
  return pos_ >= end_;
}

char Lexer::Peek() {
  SkipSpace();
  return PeekRaw();
}

bool Lexer::LooksAt(absl::string_view s) {
  SkipSpace();
  return end_ - pos_ >= s.size() && text_.substr(pos_, s.size()) == s;
}

bool Lexer::Consume(absl::string_view s) {
  if (!LooksAt(s)) return false;
  pos_ += s.size();
  return true;
}

bool Lexer::ConsumeWord(absl::string_view word) {
  if (!LooksAt(word)) return false;
  size_t after = pos_ + word.size();
  if (after < end_ && IsIdentifierChar(text_[after])) return false;
  pos_ = after;
  return true;
}

absl::Status Lexer::Expect(absl::string_view s) {
  if (Consume(s)) return absl::OkStatus();
  return ErrorHere(absl::StrCat("expected '", s, "'"));
}

absl::StatusOr<std::string> Lexer::Identifier() {
  SkipSpace();
  size_t start = pos_;
  if (pos_ >= end_ || !(absl::ascii_isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
    return ErrorHere("expected an identifier");
  }
  while (pos_ < end_ && IsIdentifierChar(text_[pos_])) ++pos_;
  return std::string(text_.substr(start, pos_ - start));
}

std::string Lexer::Word() {
  size_t start = pos_;
  while (pos_ < end_ && (absl::ascii_isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
  return std::string(text_.substr(start, pos_ - start));
}

absl::StatusOr<std::string> Lexer::ValueSuffix() {
  size_t start = pos_;
  while (pos_ < end_ && (IsIdentifierChar(text_[pos_]) || text_[pos_] == '-')) ++pos_;
  if (pos_ == start) return ErrorHere("expected a value name after '%'");
  return std::string(text_.substr(start, pos_ - start));
}

absl::StatusOr<std::string> Lexer::SymbolSuffix() {
  if (PeekRaw() == '"') return String();
  size_t start = pos_;
  while (pos_ < end_ && (IsIdentifierChar(text_[pos_]) || text_[pos_] == '-')) ++pos_;
  if (pos_ == start) return ErrorHere("expected a symbol name after '@'");
  return std::string(text_.substr(start, pos_ - start));
}

absl::StatusOr<std::string> Lexer::String() {
  SkipSpace();
  size_t start = pos_;
  if (PeekRaw() != '"') return ErrorHere("expected a string");
  ++pos_;
  std::string out;
  while (pos_ < end_ && text_[pos_] != '"') {
    char c = text_[pos_++];
    if (c == '\n') return Error(start, "unterminated string");
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (pos_ >= end_) break;
    char e = text_[pos_++];
    switch (e) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case '"': case '\\': out.push_back(e); break;
      default: {
        // \XX: two hex digits.
        if (pos_ < end_ && absl::ascii_isxdigit(static_cast<unsigned char>(e)) &&
            absl::ascii_isxdigit(static_cast<unsigned char>(text_[pos_]))) {
          int v = std::stoi(std::string{e, text_[pos_]}, nullptr, 16);
          ++pos_;
          out.push_back(static_cast<char>(v));
        } else {
          return Error(pos_ - 2, "invalid escape in string");
        }
      }
    }
  }
  if (pos_ >= end_) return Error(start, "unterminated string");
  ++pos_;
  return out;
}

absl::StatusOr<std::string> Lexer::NumberText() {
  SkipSpace();
  size_t start = pos_;
  if (pos_ < end_ && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
  if (end_ - pos_ >= 2 && text_[pos_] == '0' && (text_[pos_ + 1] == 'x' || text_[pos_ + 1] == 'X')) {
    pos_ += 2;
    size_t digits = pos_;
    while (pos_ < end_ && absl::ascii_isxdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ == digits) return Error(start, "expected hex digits after '0x'");
    return std::string(text_.substr(start, pos_ - start));
  }
  for (absl::string_view word : {"inf", "nan"}) {
    if (end_ - pos_ >= word.size() && text_.substr(pos_, word.size()) == word &&
        !(pos_ + word.size() < end_ && IsIdentifierChar(text_[pos_ + word.size()]))) {
      pos_ += word.size();
      return std::string(text_.substr(start, pos_ - start));
    }
  }
  size_t digits = pos_;
  while (pos_ < end_ && absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  if (pos_ == digits) {
    pos_ = start;
    return ErrorHere("expected a number");
  }
  if (pos_ < end_ && text_[pos_] == '.') {
    ++pos_;
    while (pos_ < end_ && absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  if (pos_ < end_ && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    size_t exp = pos_ + 1;
    if (exp < end_ && (text_[exp] == '+' || text_[exp] == '-')) ++exp;
    if (exp < end_ && absl::ascii_isdigit(static_cast<unsigned char>(text_[exp]))) {
      pos_ = exp;
      while (pos_ < end_ && absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
  }
  return std::string(text_.substr(start, pos_ - start));
}

absl::StatusOr<int64_t> Lexer::Integer() {
  size_t start = (SkipSpace(), pos_);
  auto text = NumberText();
  if (!text.ok()) return text.status();
  int64_t v;
  absl::string_view t = *text;
  bool neg = absl::ConsumePrefix(&t, "-");
  if (absl::StartsWith(t, "0x")) {
    uint64_t u;
    if (!absl::SimpleHexAtoi(t.substr(2), &u) || u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Error(start, absl::StrCat("integer '", *text, "' is out of range"));
    }
    return neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  }
  if (!absl::SimpleAtoi(*text, &v)) return Error(start, absl::StrCat("expected an integer, got '", *text, "'"));
  return v;
}

absl::StatusOr<int64_t> Lexer::RawUnsigned() {
  size_t start = pos_;
  while (pos_ < end_ && absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  int64_t v;
  if (pos_ == start || !absl::SimpleAtoi(text_.substr(start, pos_ - start), &v)) {
    return Error(start, "expected a dimension size");
  }
  return v;
}

std::string Lexer::Location(size_t offset) const {
  offset = std::min(offset, text_.size());
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text_[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return absl::StrCat(line, ":", offset - line_start + 1);
}

absl::Status Lexer::Error(size_t offset, absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(filename_, ":", Location(offset), ": ", message));
}

absl::Status Lexer::ErrorHere(absl::string_view message) {
  SkipSpace();
  if (pos_ >= end_) return Error(pos_, absl::StrCat(message, " (reached the end of the input)"));
  return Error(pos_, message);
}

}  // namespace stablehlo
}  // namespace xla
