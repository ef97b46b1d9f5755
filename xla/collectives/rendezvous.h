// Rendezvous: where the concurrently running processes of one run meet to
// exchange the data of a collective. Every member of a process group calls
// Exchange with the same key and gets every member's contribution, in group
// order. A member that does not arrive within the timeout fails the
// exchange (DEADLINE_EXCEEDED naming the op and the missing processes) and
// aborts the rendezvous, so nothing waits forever; a process that fails
// for another reason calls Abort and every waiting or later exchange gets
// its status. This is the in-process communicator: a transport between
// hosts would implement the same Exchange.
#ifndef XLA_COLLECTIVES_RENDEZVOUS_H_
#define XLA_COLLECTIVES_RENDEZVOUS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "xla/collectives/process_groups.h"

namespace xla {
namespace collectives {

class Rendezvous {
 public:
  explicit Rendezvous(absl::Duration timeout = absl::Seconds(30)) : timeout_(timeout) {}
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  using Blob = std::shared_ptr<const std::string>;

  // `key` names the exchange (the instruction and how often this process
  // ran it before); `group` lists the members in order and must contain
  // `self`; `label` names the op in errors.
  absl::StatusOr<std::vector<Blob>> Exchange(absl::string_view key, absl::Span<const ProcessId> group, ProcessId self,
                                             std::string contribution, absl::string_view label);

  // Fails every exchange in progress and every later one with ABORTED,
  // quoting `status` (the first abort wins).
  void Abort(const absl::Status& status);
  absl::Status aborted() const;

  absl::Duration timeout() const { return timeout_; }

 private:
  struct Slot {
    std::vector<Blob> blobs;
    int64_t arrived = 0;
    int64_t departed = 0;
  };

  const absl::Duration timeout_;
  mutable absl::Mutex mu_;
  absl::node_hash_map<std::string, Slot> slots_ ABSL_GUARDED_BY(mu_);
  absl::Status aborted_ ABSL_GUARDED_BY(mu_);
};

}  // namespace collectives
}  // namespace xla

#endif  // XLA_COLLECTIVES_RENDEZVOUS_H_
