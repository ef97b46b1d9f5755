#include "backends/execution_control.h"

#include <thread>

#include "absl/container/flat_hash_set.h"

namespace xla {
namespace {

// Every live ExecutionControl, and a thread that raises the stop flag of
// those with a deadline or a cancel probe once they should stop (generated
// code only reads the flag; it never asks the clock or the probe itself).
class Watchdog {
 public:
  static Watchdog& Get() {
    static Watchdog* watchdog = new Watchdog();  // never destroyed: controls may outlive main's statics
    return *watchdog;
  }

  void Add(ExecutionControl* control, bool watched) {
    absl::MutexLock lock(&mu_);
    live_.insert(control);
    if (watched) {
      watched_.insert(control);
      if (!started_) {
        started_ = true;
        std::thread([this] { Loop(); }).detach();
      }
    }
  }

  void Remove(ExecutionControl* control) {
    absl::MutexLock lock(&mu_);
    live_.erase(control);
    watched_.erase(control);
  }

  void CancelAll() {
    absl::MutexLock lock(&mu_);
    for (ExecutionControl* control : live_) control->Cancel();
  }

 private:
  void Loop() {
    absl::MutexLock lock(&mu_);
    while (true) {
      // Sleeps without a timeout while nothing is watched.
      if (watched_.empty()) {
        mu_.Await(absl::Condition(+[](absl::flat_hash_set<ExecutionControl*>* s) { return !s->empty(); }, &watched_));
      }
      for (ExecutionControl* control : watched_) control->ShouldStop();
      mu_.AwaitWithTimeout(absl::Condition(+[](bool*) { return false; }, &never_), ExecutionControl::kWatchInterval);
    }
  }

  absl::Mutex mu_;
  absl::flat_hash_set<ExecutionControl*> live_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<ExecutionControl*> watched_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool never_ = false;
};

}  // namespace

ExecutionControl::ExecutionControl(absl::Time deadline, std::function<bool()> cancelled)
    : deadline_(deadline), cancelled_probe_(std::move(cancelled)) {
  Watchdog::Get().Add(this, deadline_ != absl::InfiniteFuture() || cancelled_probe_ != nullptr);
}

ExecutionControl::~ExecutionControl() { Watchdog::Get().Remove(this); }

void ExecutionControl::Cancel() {
  cancelled_.store(true, std::memory_order_relaxed);
  stop_flag_.store(1, std::memory_order_relaxed);
}

void ExecutionControl::CancelAll() { Watchdog::Get().CancelAll(); }

bool ExecutionControl::ShouldStop() const {
  if (stop_flag_.load(std::memory_order_relaxed) != 0) return true;
  const absl::Time now = absl::Now();
  // The probe (a system call for gRPC) at most once per kProbeInterval: the
  // interpreter checks at every loop iteration.
  const int64_t now_ns = absl::ToUnixNanos(now);
  if (cancelled_probe_ && !cancelled_.load(std::memory_order_relaxed) &&
      now_ns >= next_probe_ns_.load(std::memory_order_relaxed)) {
    next_probe_ns_.store(now_ns + absl::ToInt64Nanoseconds(kProbeInterval), std::memory_order_relaxed);
    if (cancelled_probe_()) cancelled_.store(true, std::memory_order_relaxed);
  }
  if (!cancelled_.load(std::memory_order_relaxed) && now < deadline_) return false;
  stop_flag_.store(1, std::memory_order_relaxed);
  return true;
}

absl::Status ExecutionControl::StopStatus() const {
  if (cancelled_.load(std::memory_order_relaxed)) return absl::CancelledError("the run was cancelled");
  return absl::DeadlineExceededError("the run did not finish before its deadline");
}

absl::Status ExecutionControl::CheckStop() const { return ShouldStop() ? StopStatus() : absl::OkStatus(); }

void ExecutionControl::SetError(const absl::Status& status) const {
  absl::MutexLock lock(&error_mu_);
  if (error_.ok()) error_ = status;
  has_error_.store(true, std::memory_order_release);
}

absl::Status ExecutionControl::error() const {
  if (!has_error_.load(std::memory_order_acquire)) return absl::OkStatus();
  absl::MutexLock lock(&error_mu_);
  return error_;
}

}  // namespace xla

extern "C" bool __xla_runtime_ShouldStop(const void* control) {
  return control != nullptr && static_cast<const xla::ExecutionControl*>(control)->ShouldStop();
}

extern "C" const volatile uint8_t* __xla_runtime_StopFlag(const void* control) {
  static const volatile uint8_t kNeverStops = 0;
  if (control == nullptr) return &kNeverStops;
  // std::atomic<uint8_t> is lock-free and laid out as its byte.
  static_assert(sizeof(std::atomic<uint8_t>) == 1);
  return reinterpret_cast<const volatile uint8_t*>(static_cast<const xla::ExecutionControl*>(control)->stop_flag());
}
