// HLO text parser (placeholder until the full parser lands).
#include "xla/hlo/hlo_parser.h"

#include "xla/status_macros.h"

namespace xla {

absl::StatusOr<HloModuleProto> ParseHloModuleToProto(absl::string_view text) {
  return Unimplemented("HLO text parser is not implemented yet");
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(absl::string_view text) {
  ASSIGN_OR_RETURN(HloModuleProto proto, ParseHloModuleToProto(text));
  return HloModule::CreateFromProto(proto);
}

}  // namespace xla
