// Communicator: how the processes of one run exchange the data of a
// collective. The ops (xla/collectives/collective_ops.h) see only this
// interface; the in-process implementation is Rendezvous (threads of one
// process), and a transport between hosts implements the same contract.
#ifndef XLA_COLLECTIVES_COMMUNICATOR_H_
#define XLA_COLLECTIVES_COMMUNICATOR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "proto/xla_data.pb.h"
#include "xla/collectives/process_groups.h"

namespace xla {
namespace collectives {

// An all-reduce's to_apply, when it is one binary op of its two
// parameters that a transport may run natively; kNone for any other.
enum class ReductionKind { kNone, kSum, kProduct, kMin, kMax };

class Communicator {
 public:
  virtual ~Communicator() = default;

  using Blob = std::shared_ptr<const std::string>;

  // Every member of `group` calls Exchange with the same `key` (the
  // instruction and how often this process ran it before) and its own
  // `contribution`; each gets every member's contribution in group order.
  // `group` must contain `self`; `label` names the op in errors. A member
  // that does not arrive within timeout() fails the exchange with
  // DEADLINE_EXCEEDED naming the missing processes and aborts the run.
  virtual absl::StatusOr<std::vector<Blob>> Exchange(absl::string_view key, absl::Span<const ProcessId> group,
                                                     ProcessId self, std::string contribution,
                                                     absl::string_view label) = 0;

  // Whether AllReduce runs an all-reduce of this group, reduction and type
  // natively (every member of the group gets the same answer). When not,
  // the caller exchanges through Exchange and folds in group order.
  virtual bool ReducesNatively(absl::Span<const ProcessId> group, ReductionKind reduction,
                               PrimitiveType type) const {
    return false;
  }
  // The native all-reduce of `count` elements of `type` with `reduction`:
  // this process's operand at `input`, the result written to `output` (the
  // same buffer or one that does not overlap it); only when ReducesNatively
  // says so.
  virtual absl::Status AllReduce(absl::string_view key, absl::Span<const ProcessId> group, ProcessId self,
                                 ReductionKind reduction, PrimitiveType type, const void* input, void* output,
                                 int64_t count, absl::string_view label) {
    return absl::UnimplementedError("this communicator has no native all-reduce");
  }

  // Fails every exchange in progress and every later one with ABORTED,
  // quoting `status` (the first abort wins); aborted() is that status (OK
  // before any).
  virtual void Abort(const absl::Status& status) = 0;
  virtual absl::Status aborted() const = 0;

  virtual absl::Duration timeout() const = 0;
};

}  // namespace collectives
}  // namespace xla

#endif  // XLA_COLLECTIVES_COMMUNICATOR_H_
