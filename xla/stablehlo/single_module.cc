#include "xla/stablehlo/single_module.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/stablehlo/importer.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {

absl::StatusOr<std::unique_ptr<HloModule>> ImportStableHloModule(absl::string_view text,
                                                                 const std::string& filename) {
  ImportOptions options;
  options.checks_as_outputs = false;
  ASSIGN_OR_RETURN(std::vector<ImportedChunk> chunks, ImportStableHlo(text, filename, options));
  // Without split_input_file the importer returns one chunk; checked anyway.
  if (chunks.size() != 1) return absl::InvalidArgumentError(absl::StrCat(filename, ": expected one module"));
  ImportedChunk& chunk = chunks.front();
  if (chunk.entries.size() != 1) {
    std::vector<std::string> names;
    for (const EntryPoint& e : chunk.entries) names.push_back(absl::StrCat("@", e.name));
    return absl::InvalidArgumentError(
        absl::StrCat(chunk.location, ": expected one entry point (@main, or a single function), found ",
                     chunk.entries.size(), names.empty() ? "" : ": ", absl::StrJoin(names, ", ")));
  }
  return std::move(chunk.entries.front().module);
}

}  // namespace stablehlo
}  // namespace xla
