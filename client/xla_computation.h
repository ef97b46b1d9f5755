// XlaComputation: what XlaBuilder::Build() returns — an HloModuleProto whose
// entry is the built computation.
#ifndef CLIENT_XLA_COMPUTATION_H_
#define CLIENT_XLA_COMPUTATION_H_

#include "absl/status/statusor.h"
#include "proto/hlo.pb.h"
#include "xla/shape.h"

namespace xla {

class XlaComputation {
 public:
  XlaComputation() = default;
  explicit XlaComputation(HloModuleProto proto) : proto_(std::move(proto)) {}

  const HloModuleProto& proto() const { return proto_; }
  HloModuleProto* mutable_proto() { return &proto_; }
  const std::string& name() const { return proto_.name(); }
  bool IsNull() const { return proto_.computations_size() == 0; }

  absl::StatusOr<ProgramShape> GetProgramShape() const;

 private:
  HloModuleProto proto_;
};

}  // namespace xla

#endif  // CLIENT_XLA_COMPUTATION_H_
