#include "backends/execution_control.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/container/flat_hash_set.h"

namespace xla {
namespace {

// Every live ExecutionControl, and a thread that raises the stop flag of
// those with a deadline or a cancel probe once they should stop (generated
// code only reads the flag; it never asks the clock or the probe itself).
//
// A run registers its control on its hot path, so the live controls are a
// fixed table of slots that a control claims and releases with one atomic
// compare-exchange each: no lock, no allocation. The watchdog (and
// CancelAll) visit a control by tagging its slot's low bit first; a control
// being destroyed waits for that visit to end before it frees its slot.
// Controls that find no free slot in a few probes go to an overflow set
// under a mutex.
class Registry {
 public:
  static constexpr int kSlots = 4096;
  static constexpr int kMaxProbes = 64;

  static Registry& Get() {
    static Registry* registry = new Registry();  // never destroyed: controls may outlive main's statics
    return *registry;
  }

  // Returns the slot taken, or -1 (in the overflow set).
  int Add(ExecutionControl* control, bool watched) {
    if (watched && watched_count_.fetch_add(1) == 0 && sleeping_.load()) {
      absl::MutexLock lock(&mu_);  // only to wake a sleeping watchdog
    }
    if (watched) StartWatchdogOnce();
    const uintptr_t value = reinterpret_cast<uintptr_t>(control);
    // Each thread probes on from the slot after its last one (threads start
    // at different places, so that they rarely meet), a bounded number.
    thread_local uint32_t cursor = static_cast<uint32_t>(std::hash<std::thread::id>()(std::this_thread::get_id()));
    for (int i = 0; i < kMaxProbes; ++i) {
      const int index = static_cast<int>(cursor++ % kSlots);
      std::atomic<uintptr_t>& slot = slots_[index];
      uintptr_t empty = 0;
      if (slot.load(std::memory_order_relaxed) == 0 &&
          slot.compare_exchange_strong(empty, value, std::memory_order_acq_rel)) {
        return index;
      }
    }
    absl::MutexLock lock(&mu_);
    overflow_.insert(control);
    return -1;
  }

  void Remove(ExecutionControl* control, int slot_index, bool watched) {
    if (slot_index < 0) {
      absl::MutexLock lock(&mu_);
      overflow_.erase(control);
    } else {
      std::atomic<uintptr_t>& slot = slots_[slot_index];
      const uintptr_t value = reinterpret_cast<uintptr_t>(control);
      uintptr_t expected = value;
      // Fails only while a visit holds the tag: it ends within one call.
      while (!slot.compare_exchange_weak(expected, 0, std::memory_order_acq_rel)) {
        expected = value;
        std::this_thread::yield();
      }
    }
    if (watched) watched_count_.fetch_sub(1);
  }

  // Calls fn on every live control (only the watched ones if asked). A slot
  // another visit holds is waited for, not skipped: CancelAll must reach
  // every control even while the watchdog looks at one.
  template <typename Fn>
  void ForEach(bool watched_only, Fn fn) {
    for (std::atomic<uintptr_t>& slot : slots_) {
      uintptr_t value = slot.load(std::memory_order_acquire);
      while (value != 0) {
        if ((value & 1) != 0) {
          std::this_thread::yield();
          value = slot.load(std::memory_order_acquire);
          continue;
        }
        if (!slot.compare_exchange_weak(value, value | 1, std::memory_order_acq_rel)) continue;
        auto* control = reinterpret_cast<ExecutionControl*>(value);
        if (!watched_only || control->watched()) fn(control);
        slot.store(value, std::memory_order_release);
        break;
      }
    }
    absl::MutexLock lock(&mu_);
    for (ExecutionControl* control : overflow_) {
      if (!watched_only || control->watched()) fn(control);
    }
  }

 private:
  static constexpr int kIdlePollsBeforeSleep = 200;  // 1 s of kWatchInterval

  void StartWatchdogOnce() {
    static std::once_flag once;
    std::call_once(once, [this] { std::thread([this] { Watch(); }).detach(); });
  }

  void Watch() {
    int idle_polls = 0;
    while (true) {
      if (watched_count_.load() == 0 && ++idle_polls >= kIdlePollsBeforeSleep) {
        // Sleeps without a timeout while nothing is watched. An Add that
        // makes the count nonzero either sees sleeping_ and takes the mutex
        // (after this thread waits on it), or this thread sees its count.
        absl::MutexLock lock(&mu_);
        sleeping_.store(true);
        mu_.Await(absl::Condition(+[](std::atomic<int64_t>* n) { return n->load() != 0; }, &watched_count_));
        sleeping_.store(false);
      }
      if (watched_count_.load() != 0) idle_polls = 0;
      ForEach(/*watched_only=*/true, [](ExecutionControl* control) { control->ShouldStop(); });
      absl::SleepFor(ExecutionControl::kWatchInterval);
    }
  }

  std::atomic<uintptr_t> slots_[kSlots] = {};
  std::atomic<int64_t> watched_count_{0};
  std::atomic<bool> sleeping_{false};
  absl::Mutex mu_;
  absl::flat_hash_set<ExecutionControl*> overflow_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

ExecutionControl::ExecutionControl(absl::Time deadline, std::function<bool()> cancelled)
    : deadline_(deadline),
      cancelled_probe_(std::move(cancelled)),
      watched_(deadline_ != absl::InfiniteFuture() || cancelled_probe_ != nullptr) {
  registry_slot_ = Registry::Get().Add(this, watched_);
}

ExecutionControl::~ExecutionControl() { Registry::Get().Remove(this, registry_slot_, watched_); }

void ExecutionControl::Cancel() {
  cancelled_.store(true, std::memory_order_relaxed);
  stop_flag_.store(1, std::memory_order_relaxed);
}

void ExecutionControl::CancelAll() {
  Registry::Get().ForEach(/*watched_only=*/false, [](ExecutionControl* control) { control->Cancel(); });
}

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
