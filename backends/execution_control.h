// ExecutionControl: how a caller stops a run that takes too long. Backends
// check it at loop back-edges (every While iteration in the interpreter,
// every 1024th in CPU code), so a runaway loop ends with DEADLINE_EXCEEDED
// (or CANCELLED) instead of holding a thread forever. Thread-safe.
//
// It also carries the run's execution context: which process of a
// replicated/partitioned run this execution is (replica-id, partition-id,
// the collectives' rendezvous, infeed/outfeed queues). Without one the run
// is process (0, 0) of a 1 x 1 run.
#ifndef BACKENDS_EXECUTION_CONTROL_H_
#define BACKENDS_EXECUTION_CONTROL_H_

#include <atomic>
#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "xla/collectives/replica_context.h"

namespace xla {

class ExecutionControl {
 public:
  // `cancelled`, when given, is asked whether whoever wanted the result has
  // gone away (a remote client's cancel or disconnect), at a check at most
  // once per kProbeInterval; it must be safe to call from any thread.
  explicit ExecutionControl(absl::Time deadline = absl::InfiniteFuture(), std::function<bool()> cancelled = nullptr)
      : deadline_(deadline), cancelled_probe_(std::move(cancelled)) {}

  static constexpr absl::Duration kProbeInterval = absl::Milliseconds(1);

  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }

  // True once cancelled or past the deadline; remembers that it said so.
  bool ShouldStop() const;
  // Whether ShouldStop() ever returned true (the run was cut short).
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  // The status of a stopped run: CANCELLED or DEADLINE_EXCEEDED.
  absl::Status StopStatus() const;

  // The process this run is (not owned; may be null). Set before the run.
  void set_replica_context(collectives::ReplicaContext* context) { replica_context_ = context; }
  collectives::ReplicaContext* replica_context() const { return replica_context_; }

  // A runtime call of JIT code that fails records its status here (the
  // first wins) and the code returns early; the executable reports it.
  void SetError(const absl::Status& status) const;
  absl::Status error() const;

 private:
  const absl::Time deadline_;
  const std::function<bool()> cancelled_probe_;
  mutable std::atomic<bool> cancelled_{false};
  mutable std::atomic<int64_t> next_probe_ns_{0};  // when the probe may be asked again
  mutable std::atomic<bool> stopped_{false};
  collectives::ReplicaContext* replica_context_ = nullptr;
  mutable absl::Mutex error_mu_;
  mutable absl::Status error_ ABSL_GUARDED_BY(error_mu_);
};

}  // namespace xla

extern "C" {
// For JIT code: ShouldStop() of `control` (an ExecutionControl*, may be null).
bool __xla_runtime_ShouldStop(const void* control);
}

#endif  // BACKENDS_EXECUTION_CONTROL_H_
