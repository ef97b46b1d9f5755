#include "backends/cpu/runtime_parallel.h"

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"

extern "C" void __xla_cpu_runtime_ParallelFor(const void* device,
                                              void (*body)(void* context, int64_t begin, int64_t end),
                                              void* context, int64_t n, double bytes_loaded, double bytes_stored,
                                              double cycles) {
  if (n <= 0) return;
  if (device == nullptr) {
    body(context, 0, n);
    return;
  }
  const auto* pool = static_cast<const Eigen::ThreadPoolDevice*>(device);
  pool->parallelFor(n, Eigen::TensorOpCost(bytes_loaded, bytes_stored, cycles),
                    [&](Eigen::Index begin, Eigen::Index end) { body(context, begin, end); });
}
