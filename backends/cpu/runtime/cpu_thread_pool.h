// The CPU backend's worker threads: one Eigen thread pool per requested size,
// created on first use and shared by every executable of the process that
// asked for that size (DebugOptions.xla_cpu_threads; 0 means the cores this
// process may run on, from its CPU affinity mask).
#ifndef BACKENDS_CPU_RUNTIME_CPU_THREAD_POOL_H_
#define BACKENDS_CPU_RUNTIME_CPU_THREAD_POOL_H_

namespace Eigen {
struct ThreadPoolDevice;
}  // namespace Eigen

namespace xla {
namespace cpu {

// Cores in this process's affinity mask (at least 1).
int AffinityCoreCount();

// The thread count an executable compiled with `xla_cpu_threads` runs with.
int ResolveCpuThreadCount(int xla_cpu_threads);

// The shared device for `threads` (> 1) workers; never destroyed. Returns
// nullptr for threads <= 1 (run on the calling thread).
const Eigen::ThreadPoolDevice* SharedThreadPoolDevice(int threads);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_RUNTIME_CPU_THREAD_POOL_H_
