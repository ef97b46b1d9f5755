#include "client/xla_computation.h"

#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {

XlaComputation::XlaComputation(XlaComputation&& other) noexcept
    : proto_(std::move(other.proto_)), digest_(other.KnownProgramDigest()) {}

XlaComputation& XlaComputation::operator=(const XlaComputation& other) {
  if (this == &other) return *this;
  std::string digest = other.KnownProgramDigest();
  proto_ = other.proto_;
  absl::MutexLock lock(&digest_mutex_);
  digest_ = std::move(digest);
  return *this;
}

XlaComputation& XlaComputation::operator=(XlaComputation&& other) noexcept {
  if (this == &other) return *this;
  std::string digest = other.KnownProgramDigest();
  proto_ = std::move(other.proto_);
  absl::MutexLock lock(&digest_mutex_);
  digest_ = std::move(digest);
  return *this;
}

HloModuleProto* XlaComputation::mutable_proto() {
  absl::MutexLock lock(&digest_mutex_);
  digest_.clear();
  return &proto_;
}

std::string XlaComputation::KnownProgramDigest() const {
  absl::MutexLock lock(&digest_mutex_);
  return digest_;
}

void XlaComputation::RememberProgramDigest(const std::string& digest) const {
  absl::MutexLock lock(&digest_mutex_);
  digest_ = digest;
}

absl::StatusOr<ProgramShape> XlaComputation::GetProgramShape() const {
  if (IsNull()) return InvalidArgument("GetProgramShape: computation is empty");
  return ShapeUtil::ProgramShapeFromProto(proto_.host_program_shape());
}

}  // namespace xla
