// HLO text parser. Produces an HloModuleProto (then HloModule::CreateFromProto
// does the structural checks), so text and wire input share one validator.
// Errors name the line and column and the offending token.
#ifndef XLA_HLO_HLO_PARSER_H_
#define XLA_HLO_HLO_PARSER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/hlo.pb.h"
#include "xla/hlo/hlo_module.h"

namespace xla {

absl::StatusOr<HloModuleProto> ParseHloModuleToProto(absl::string_view text);
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(absl::string_view text);

}  // namespace xla

#endif  // XLA_HLO_HLO_PARSER_H_
