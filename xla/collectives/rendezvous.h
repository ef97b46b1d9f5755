// Rendezvous: where the concurrently running processes of one run meet to
// exchange the data of a collective. Every member of a process group calls
// Exchange with the same key and gets every member's contribution, in group
// order. A member that does not arrive within the timeout fails the
// exchange (DEADLINE_EXCEEDED naming the op and the missing processes) and
// aborts the rendezvous, so nothing waits forever; a process that fails
// for another reason calls Abort and every waiting or later exchange gets
// its status. This is the in-process Communicator; a transport between
// hosts implements the same interface (xla/collectives/communicator.h).
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
#include "xla/collectives/communicator.h"
#include "xla/collectives/process_groups.h"

namespace xla {
namespace collectives {

class Rendezvous final : public Communicator {
 public:
  explicit Rendezvous(absl::Duration timeout = absl::Seconds(30)) : timeout_(timeout) {}
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  // Communicator (its comments say what each does).
  absl::StatusOr<std::vector<Blob>> Exchange(absl::string_view key, absl::Span<const ProcessId> group, ProcessId self,
                                             std::string contribution, absl::string_view label) override;
  void Abort(const absl::Status& status) override;
  absl::Status aborted() const override;
  absl::Duration timeout() const override { return timeout_; }

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
