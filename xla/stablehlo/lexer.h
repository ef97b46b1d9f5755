// Lexer: a character cursor over MLIR text with the token readers the
// StableHLO parser needs. MLIR's grammar is context dependent (`20x20xf32`
// inside `tensor<...>` is three tokens, elsewhere an identifier), so the
// parser asks for the token kind it expects instead of reading a token
// stream. Every error carries "file:line:col: ".
#ifndef XLA_STABLEHLO_LEXER_H_
#define XLA_STABLEHLO_LEXER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla {
namespace stablehlo {

class Lexer {
 public:
  // Lexes text[begin, end); locations are reported relative to all of `text`
  // so that split-input-file chunks keep their line numbers.
  Lexer(absl::string_view text, size_t begin, size_t end, std::string filename);

  // Skips whitespace and `//` comments.
  void SkipSpace();
  bool AtEnd();
  // The next non-space character, or '\0' at the end.
  char Peek();
  // The character right at the cursor (no space skipping), or '\0'.
  char PeekRaw() const { return pos_ < end_ ? text_[pos_] : '\0'; }
  // True (and consumed) if the text continues with `s` after spaces.
  bool Consume(absl::string_view s);
  // Like Consume, but `word` must not be followed by an identifier character.
  bool ConsumeWord(absl::string_view word);
  // Consume that fails with "expected 'S'".
  absl::Status Expect(absl::string_view s);
  bool LooksAt(absl::string_view s);  // after spaces, without consuming

  // [A-Za-z_][A-Za-z0-9_.$]* (MLIR bare identifiers, e.g. stablehlo.add).
  absl::StatusOr<std::string> Identifier();
  // [A-Za-z0-9_]* right at the cursor (element type names after 'x').
  std::string Word();
  // A value name after '%' (digits, letters, _ $ . -), without the '%'.
  absl::StatusOr<std::string> ValueSuffix();
  // A symbol name after '@' (bare or quoted), without the '@'.
  absl::StatusOr<std::string> SymbolSuffix();
  // A quoted string with MLIR escapes.
  absl::StatusOr<std::string> String();
  // The text of a number: [-+]? (0x hex | digits [. digits] [e [+-] digits]),
  // also inf/nan spellings.
  absl::StatusOr<std::string> NumberText();
  // A decimal or hex integer that fits in int64.
  absl::StatusOr<int64_t> Integer();
  // Digits only, right at the cursor (dimension sizes).
  absl::StatusOr<int64_t> RawUnsigned();

  size_t offset() const { return pos_; }
  void set_offset(size_t offset) { pos_ = offset; }
  size_t end() const { return end_; }
  absl::string_view text() const { return text_; }

  // "file:line:col: message" at `offset`.
  absl::Status Error(size_t offset, absl::string_view message) const;
  absl::Status ErrorHere(absl::string_view message);
  // "line:col" of `offset`.
  std::string Location(size_t offset) const;
  const std::string& filename() const { return filename_; }

 private:
  absl::string_view text_;
  size_t pos_;
  size_t end_;
  std::string filename_;
};

bool IsIdentifierChar(char c);

}  // namespace stablehlo
}  // namespace xla

#endif  // XLA_STABLEHLO_LEXER_H_
