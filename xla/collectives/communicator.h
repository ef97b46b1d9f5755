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
#include "xla/collectives/process_groups.h"

namespace xla {
namespace collectives {

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
