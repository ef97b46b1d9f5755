// chlo ops, decomposed into HLO the way upstream's
// chlo-legalize-to-stablehlo does where HLO has no single op.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xla/stablehlo/emitter.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {

absl::StatusOr<Values> Emitter::LowerChloOp(const Op& op, Scope& scope) {
  std::string name = op.name.substr(5);
  if (name == "tan" || name == "erf") {
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, name == "tan" ? HloOpcode::kTan : HloOpcode::kErf, operands));
    return Values{r};
  }
  return OpError(op, "this chlo op has no decomposition yet");
}

}  // namespace stablehlo
}  // namespace xla
