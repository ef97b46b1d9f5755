#include "backends/cpu/runtime/cpu_thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <map>
#include <memory>

#include "absl/synchronization/mutex.h"

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"

namespace xla {
namespace cpu {

namespace {

// More workers than this is a configuration error, not a request to honor.
constexpr int kMaxThreads = 256;

struct PoolAndDevice {
  explicit PoolAndDevice(int threads) : pool(threads), device(&pool, threads) {}
  Eigen::ThreadPool pool;
  Eigen::ThreadPoolDevice device;
};

}  // namespace

int AffinityCoreCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

int ResolveCpuThreadCount(int xla_cpu_threads) {
  if (xla_cpu_threads <= 0) return AffinityCoreCount();
  return std::min(xla_cpu_threads, kMaxThreads);
}

const Eigen::ThreadPoolDevice* SharedThreadPoolDevice(int threads) {
  if (threads <= 1) return nullptr;
  // Leaked on purpose: pools outlive every executable, even at exit.
  static auto* mu = new absl::Mutex;
  static auto* pools = new std::map<int, std::unique_ptr<PoolAndDevice>>;
  absl::MutexLock lock(mu);
  auto& slot = (*pools)[threads];
  if (slot == nullptr) slot = std::make_unique<PoolAndDevice>(threads);
  return &slot->device;
}

}  // namespace cpu
}  // namespace xla
