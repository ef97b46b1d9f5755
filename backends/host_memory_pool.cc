#include "backends/host_memory_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace xla {

HostMemoryPool& HostMemoryPool::Global() {
  // Leaked on purpose: buffers may be released during static destruction.
  static auto* pool = new HostMemoryPool(int64_t{1} << 30);
  return *pool;
}

int64_t HostMemoryPool::RoundedSize(int64_t bytes) {
  // aligned_alloc needs a multiple of the alignment; pooled sizes are rounded
  // to whole pages so that nearby sizes share blocks.
  const int64_t unit = bytes >= kMinPooledBytes ? 4096 : kAlignment;
  return std::max<int64_t>(unit, (bytes + unit - 1) / unit * unit);
}

void* HostMemoryPool::Allocate(int64_t bytes) {
  const int64_t size = RoundedSize(bytes);
  if (size >= kMinPooledBytes) {
    absl::MutexLock lock(&mu_);
    auto it = free_blocks_.find(size);
    if (it != free_blocks_.end() && !it->second.empty()) {
      void* block = it->second.back();
      it->second.pop_back();
      cached_bytes_ -= size;
      return block;
    }
  }
  if (size < kMinPooledBytes) {
    // malloc's per-thread fast path, aligned by hand: glibc's aligned_alloc
    // splits a larger chunk on every call (a tenth of a tiny run's time,
    // and fragmentation that later costs malloc_consolidate). The block
    // starts at the first 64-byte boundary at least 8 bytes into the chunk;
    // the chunk's address is kept in the 8 bytes before it.
    char* chunk = static_cast<char*>(std::malloc(static_cast<size_t>(size + kAlignment) + sizeof(void*)));
    if (chunk == nullptr) return nullptr;
    const uintptr_t start = reinterpret_cast<uintptr_t>(chunk) + sizeof(void*);
    char* block = reinterpret_cast<char*>((start + kAlignment - 1) / kAlignment * kAlignment);
    std::memcpy(block - sizeof(void*), &chunk, sizeof(void*));
    return block;
  }
  if (size < kHugePageBytes) return std::aligned_alloc(kAlignment, static_cast<size_t>(size));
  // Large blocks start on a huge-page boundary and ask for transparent huge
  // pages (a hint; kernels with THP in "madvise" mode only back such ranges
  // with them): loops streaming through tens of MiB then miss the TLB once
  // per 2 MiB instead of once per 4 KiB, which matters most to row-by-row
  // loops whose every 4 KiB row is a new page.
  void* block = nullptr;
  if (posix_memalign(&block, kHugePageBytes, static_cast<size_t>(size)) != 0) return nullptr;
  madvise(block, static_cast<size_t>(size / kHugePageBytes * kHugePageBytes), MADV_HUGEPAGE);
  return block;
}

void HostMemoryPool::Free(void* block, int64_t bytes) {
  if (block == nullptr) return;
  const int64_t size = RoundedSize(bytes);
  if (size < kMinPooledBytes) {
    void* chunk = nullptr;
    std::memcpy(&chunk, static_cast<char*>(block) - sizeof(void*), sizeof(void*));
    std::free(chunk);
    return;
  }
  {
    absl::MutexLock lock(&mu_);
    if (cached_bytes_ + size <= max_cached_bytes_) {
      free_blocks_[size].push_back(block);
      cached_bytes_ += size;
      return;
    }
  }
  std::free(block);
}

HostMemoryPool::~HostMemoryPool() {
  absl::MutexLock lock(&mu_);
  for (auto& [size, blocks] : free_blocks_) {
    for (void* block : blocks) std::free(block);
  }
}

int64_t HostMemoryPool::cached_bytes() const {
  absl::MutexLock lock(&mu_);
  return cached_bytes_;
}

}  // namespace xla
