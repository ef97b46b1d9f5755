// HostMemoryPool: 64-byte aligned host memory for device buffers and CPU
// arenas, recycling large blocks. A fresh large allocation is mmapped: every
// 4 KiB page then costs a fault and the kernel's zeroing on first touch, which
// for a 64 MiB result takes as long as computing it. Blocks of at least
// kMinPooledBytes are kept after release (up to a byte bound, per exact size)
// and handed out again, so repeated runs of an executable reuse warm pages.
// Blocks of at least 2 MiB are backed by transparent huge pages when the
// kernel allows it.
#ifndef BACKENDS_HOST_MEMORY_POOL_H_
#define BACKENDS_HOST_MEMORY_POOL_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace xla {

class HostMemoryPool {
 public:
  static constexpr int64_t kAlignment = 64;
  static constexpr int64_t kMinPooledBytes = int64_t{1} << 20;
  // Blocks this large are huge-page aligned and advised to use huge pages.
  static constexpr int64_t kHugePageBytes = int64_t{2} << 20;

  explicit HostMemoryPool(int64_t max_cached_bytes) : max_cached_bytes_(max_cached_bytes) {}
  // Frees the cached blocks (blocks still allocated are the caller's).
  ~HostMemoryPool();
  HostMemoryPool(const HostMemoryPool&) = delete;
  HostMemoryPool& operator=(const HostMemoryPool&) = delete;
  // The process-wide pool (caches up to 1 GiB of released blocks).
  static HostMemoryPool& Global();

  // At least `bytes` (> 0) bytes, 64-byte aligned; nullptr when out of memory.
  void* Allocate(int64_t bytes);
  // Returns a block from Allocate(bytes) (same `bytes`).
  void Free(void* block, int64_t bytes);

  int64_t cached_bytes() const;

 private:
  static int64_t RoundedSize(int64_t bytes);

  const int64_t max_cached_bytes_;
  mutable absl::Mutex mu_;
  int64_t cached_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<int64_t, std::vector<void*>> free_blocks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xla

#endif  // BACKENDS_HOST_MEMORY_POOL_H_
