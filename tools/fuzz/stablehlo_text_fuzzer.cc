// Fuzz target: the StableHLO importer (MLIR text, as JAX exports it) and the
// verifier of what it imports.
#include <cstdint>
#include <string>

#include "xla/hlo/hlo_verifier.h"
#include "xla/stablehlo/single_module.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::unique_ptr<xla::HloModule>> module = xla::stablehlo::ImportStableHloModule(text, "fuzz.mlir");
  if (module.ok()) (void)xla::VerifyHloModule(**module);
  return 0;
}
