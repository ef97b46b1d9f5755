// AllocationTracker: maps GlobalDataHandles to device buffers. Buffers are
// reference counted (shared_ptr); a tuple element handle shares ownership of
// the element with the tuple, so either can be released first. Byte
// accounting counts each distinct buffer once, however many handles or
// tuples refer to it.
//
// Thread-safe: one mutex guards the handle table and the accounting, since
// every operation touches both and is short.
#ifndef SERVICE_ALLOCATION_TRACKER_H_
#define SERVICE_ALLOCATION_TRACKER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "backends/device_buffer.h"
#include "proto/xla_data.pb.h"

namespace xla {

class AllocationTracker {
 public:
  GlobalDataHandle Register(std::shared_ptr<const DeviceBuffer> buffer, const std::string& tag);
  // NotFound for unknown or already released handles.
  absl::Status Unregister(const GlobalDataHandle& handle);
  absl::StatusOr<std::shared_ptr<const DeviceBuffer>> Resolve(const GlobalDataHandle& handle) const;
  // New handles for each element of a tuple buffer.
  absl::StatusOr<std::vector<GlobalDataHandle>> DeconstructTuple(const GlobalDataHandle& handle);

  int64_t bytes_in_use() const;
  int64_t live_handles() const;

 private:
  struct Allocation {
    std::shared_ptr<const DeviceBuffer> buffer;
    std::string tag;
  };
  // Adds/removes one reference to every buffer in the tree.
  void AddReferences(const DeviceBuffer& buffer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void DropReferences(const DeviceBuffer& buffer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  mutable absl::Mutex mutex_;
  int64_t next_handle_ ABSL_GUARDED_BY(mutex_) = 1;
  absl::flat_hash_map<int64_t, Allocation> handles_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<const DeviceBuffer*, int64_t> buffer_refs_ ABSL_GUARDED_BY(mutex_);
  int64_t bytes_in_use_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace xla

#endif  // SERVICE_ALLOCATION_TRACKER_H_
