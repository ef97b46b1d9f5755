#include "xla/stablehlo/importer.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_split.h"
#include "xla/stablehlo/emitter.h"
#include "xla/stablehlo/lexer.h"
#include "xla/stablehlo/parser.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {

std::vector<std::pair<size_t, size_t>> SplitInputFile(absl::string_view text) {
  std::vector<std::pair<size_t, size_t>> chunks;
  size_t begin = 0;
  size_t line_start = 0;
  while (line_start <= text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == absl::string_view::npos) line_end = text.size();
    absl::string_view line = text.substr(line_start, line_end - line_start);
    if (absl::ConsumeSuffix(&line, "\r"), line == "// -----") {
      chunks.emplace_back(begin, line_start);
      begin = line_end;
    }
    line_start = line_end + 1;
  }
  chunks.emplace_back(begin, text.size());
  return chunks;
}

bool WantsSplitInputFile(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StrContains(line, "// RUN:") && absl::StrContains(line, "-split-input-file")) return true;
  }
  return false;
}

absl::StatusOr<std::vector<ImportedChunk>> ImportStableHlo(absl::string_view text, const std::string& filename,
                                                           const ImportOptions& options) {
  std::vector<std::pair<size_t, size_t>> ranges;
  if (options.split_input_file) {
    ranges = SplitInputFile(text);
  } else {
    ranges.emplace_back(0, text.size());
  }
  std::vector<ImportedChunk> chunks;
  for (const auto& [begin, end] : ranges) {
    Lexer lexer(text, begin, end, filename);
    Parser parser(&lexer);
    ASSIGN_OR_RETURN(Module module, parser.ParseModule());
    ImportedChunk chunk;
    chunk.location = absl::StrCat(filename, ":", lexer.Location(begin));
    // `@main` alone, when defined; else every function, in textual order.
    std::vector<const Func*> entries;
    for (const Func& f : module.funcs) {
      if (f.name == "main") entries = {&f};
    }
    if (entries.empty()) {
      for (const Func& f : module.funcs) entries.push_back(&f);
    }
    absl::flat_hash_set<std::string> names;
    for (const Func& f : module.funcs) {
      if (!names.insert(f.name).second) return lexer.Error(f.loc, absl::StrCat("function @", f.name, " is defined twice"));
    }
    Emitter emitter(module, lexer, options);
    for (const Func* f : entries) {
      ASSIGN_OR_RETURN(EntryPoint entry, emitter.ImportEntry(*f));
      chunk.entries.push_back(std::move(entry));
    }
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

}  // namespace stablehlo
}  // namespace xla
