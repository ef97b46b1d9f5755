// XlaComputation: what XlaBuilder::Build() returns — an HloModuleProto whose
// entry is the built computation.
#ifndef CLIENT_XLA_COMPUTATION_H_
#define CLIENT_XLA_COMPUTATION_H_

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "proto/hlo.pb.h"
#include "xla/shape.h"

namespace xla {

class XlaComputation {
 public:
  XlaComputation() = default;
  explicit XlaComputation(HloModuleProto proto) : proto_(std::move(proto)) {}
  XlaComputation(const XlaComputation& other) : proto_(other.proto_), digest_(other.KnownProgramDigest()) {}
  XlaComputation(XlaComputation&& other) noexcept;
  XlaComputation& operator=(const XlaComputation& other);
  XlaComputation& operator=(XlaComputation&& other) noexcept;

  const HloModuleProto& proto() const { return proto_; }
  // Forgets the memoized digest: change the proto through this pointer
  // before compiling, not between compiles.
  HloModuleProto* mutable_proto();
  const std::string& name() const { return proto_.name(); }
  bool IsNull() const { return proto_.computations_size() == 0; }

  absl::StatusOr<ProgramShape> GetProgramShape() const;

  // xla/program_digest.h's ProgramDigest of proto(), once the client has
  // learned it (from the service's first compile of this computation); empty
  // before. Later compiles send only the digest.
  std::string KnownProgramDigest() const;
  void RememberProgramDigest(const std::string& digest) const;

 private:
  HloModuleProto proto_;
  mutable absl::Mutex digest_mutex_;
  mutable std::string digest_ ABSL_GUARDED_BY(digest_mutex_);
};

}  // namespace xla

#endif  // CLIENT_XLA_COMPUTATION_H_
