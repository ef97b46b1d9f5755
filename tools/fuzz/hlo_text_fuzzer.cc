// Fuzz target: the HLO text parser, the verifier, the printer and the
// printed text's reparse. Any input may fail with a status; none may crash,
// and a module that verifies must print to text that parses again.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::unique_ptr<xla::HloModule>> module = xla::ParseHloModule(text);
  if (!module.ok()) return 0;
  if (!xla::VerifyHloModule(**module).ok()) return 0;
  const std::string printed = (*module)->ToString();
  if (!xla::ParseHloModule(printed).ok()) std::abort();  // a verified module's text must reparse
  return 0;
}
