#include "client/xla_computation.h"

#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {

absl::StatusOr<ProgramShape> XlaComputation::GetProgramShape() const {
  if (IsNull()) return InvalidArgument("GetProgramShape: computation is empty");
  return ShapeUtil::ProgramShapeFromProto(proto_.host_program_shape());
}

}  // namespace xla
