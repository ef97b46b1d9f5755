#include "service/allocation_tracker.h"

#include "xla/status_macros.h"

namespace xla {

GlobalDataHandle AllocationTracker::Register(std::shared_ptr<const DeviceBuffer> buffer, const std::string& tag) {
  absl::MutexLock lock(&mutex_);
  GlobalDataHandle handle;
  handle.set_handle(next_handle_++);
  AddReferences(*buffer);
  handles_[handle.handle()] = Allocation{std::move(buffer), tag};
  return handle;
}

absl::Status AllocationTracker::Unregister(const GlobalDataHandle& handle) {
  absl::MutexLock lock(&mutex_);
  auto it = handles_.find(handle.handle());
  if (it == handles_.end()) return NotFound("no data with handle %d (unknown or already released)", handle.handle());
  DropReferences(*it->second.buffer);
  handles_.erase(it);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const DeviceBuffer>> AllocationTracker::Resolve(const GlobalDataHandle& handle) const {
  absl::MutexLock lock(&mutex_);
  auto it = handles_.find(handle.handle());
  if (it == handles_.end()) return NotFound("no data with handle %d (unknown or already released)", handle.handle());
  return it->second.buffer;
}

absl::StatusOr<std::vector<GlobalDataHandle>> AllocationTracker::DeconstructTuple(const GlobalDataHandle& handle) {
  ASSIGN_OR_RETURN(std::shared_ptr<const DeviceBuffer> buffer, Resolve(handle));
  if (!buffer->shape().IsTuple()) {
    return InvalidArgument("DeconstructTuple: handle %d holds %s, not a tuple", handle.handle(),
                           buffer->shape().ToString());
  }
  std::vector<GlobalDataHandle> out;
  for (size_t i = 0; i < buffer->elements().size(); ++i) {
    out.push_back(Register(buffer->elements()[i], "tuple element"));
  }
  return out;
}

void AllocationTracker::AddReferences(const DeviceBuffer& buffer) {
  if (buffer_refs_[&buffer]++ == 0) bytes_in_use_ += buffer.size_bytes();
  for (const auto& e : buffer.elements()) AddReferences(*e);
}

void AllocationTracker::DropReferences(const DeviceBuffer& buffer) {
  auto it = buffer_refs_.find(&buffer);
  if (it != buffer_refs_.end() && --it->second == 0) {
    bytes_in_use_ -= buffer.size_bytes();
    buffer_refs_.erase(it);
  }
  for (const auto& e : buffer.elements()) DropReferences(*e);
}

int64_t AllocationTracker::bytes_in_use() const {
  absl::MutexLock lock(&mutex_);
  return bytes_in_use_;
}

int64_t AllocationTracker::live_handles() const {
  absl::MutexLock lock(&mutex_);
  return handles_.size();
}

}  // namespace xla
