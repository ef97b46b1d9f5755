// ExecutionControl: how a caller stops a run (or a compile) that takes too
// long. Every live control is known to a watchdog thread that, every
// kWatchInterval, asks the controls with a deadline or a cancel probe
// whether to stop and raises their stop flag; generated code reads that flag
// (one byte, stop_flag()) at the back-edges of its outer loops, between
// kernels and in long runtime calls, the interpreter at every While
// iteration and between instructions, a compile between passes. A runaway
// run therefore ends with DEADLINE_EXCEEDED (or CANCELLED) within about
// kWatchInterval plus one check interval, instead of holding a thread
// forever. CancelAll() stops everything in flight (daemon shutdown).
// Thread-safe; registering and releasing a control takes no lock (a slot
// of a fixed table claimed with one atomic exchange).
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
  explicit ExecutionControl(absl::Time deadline = absl::InfiniteFuture(), std::function<bool()> cancelled = nullptr);
  ~ExecutionControl();
  ExecutionControl(const ExecutionControl&) = delete;
  ExecutionControl& operator=(const ExecutionControl&) = delete;

  static constexpr absl::Duration kProbeInterval = absl::Milliseconds(1);
  static constexpr absl::Duration kWatchInterval = absl::Milliseconds(5);

  void Cancel();
  // Cancels every live control of the process (runs and compiles in flight).
  static void CancelAll();

  // True once cancelled or past the deadline; remembers that it said so.
  bool ShouldStop() const;
  // Whether the run was told to stop (ShouldStop() said so, or Cancel()).
  bool stopped() const { return stop_flag_.load(std::memory_order_relaxed) != 0; }
  // The status of a stopped run: CANCELLED or DEADLINE_EXCEEDED.
  absl::Status StopStatus() const;
  // The status to return now: StopStatus() if ShouldStop(), else OK. For
  // checks between a compile's or an interpreter's steps.
  absl::Status CheckStop() const;
  // Nonzero once the run should stop; generated code reads it directly.
  const std::atomic<uint8_t>* stop_flag() const { return &stop_flag_; }

  // The process this run is (not owned; may be null). Set before the run.
  void set_replica_context(collectives::ReplicaContext* context) { replica_context_ = context; }
  collectives::ReplicaContext* replica_context() const { return replica_context_; }

  // A runtime call of JIT code that fails records its status here (the
  // first wins) and the code returns early; the executable reports it.
  void SetError(const absl::Status& status) const;
  absl::Status error() const;

  // Whether the watchdog checks it (it has a deadline or a cancel probe).
  bool watched() const { return watched_; }

 private:
  const absl::Time deadline_;
  const std::function<bool()> cancelled_probe_;
  const bool watched_;
  mutable std::atomic<bool> cancelled_{false};
  mutable std::atomic<int64_t> next_probe_ns_{0};  // when the probe may be asked again
  mutable std::atomic<uint8_t> stop_flag_{0};
  collectives::ReplicaContext* replica_context_ = nullptr;
  // Set with error_: a run without a failed runtime call takes no lock.
  mutable std::atomic<bool> has_error_{false};
  mutable absl::Mutex error_mu_;
  mutable absl::Status error_ ABSL_GUARDED_BY(error_mu_);
  // Where the watchdog finds it (-1: the overflow set); registered last, once
  // every other member is initialized.
  int registry_slot_ = -1;
};

}  // namespace xla

extern "C" {
// For JIT code: ShouldStop() of `control` (an ExecutionControl*, may be null).
bool __xla_runtime_ShouldStop(const void* control);
// For JIT code: the address of `control`'s stop flag (a byte, nonzero once
// the run should stop), or of a byte that stays 0 when control is null.
const volatile uint8_t* __xla_runtime_StopFlag(const void* control);
}

#endif  // BACKENDS_EXECUTION_CONTROL_H_
