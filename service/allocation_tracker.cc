#include "service/allocation_tracker.h"

#include <algorithm>
#include <limits>

#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {

AllocationTracker::Reservation& AllocationTracker::Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    Release();
    tracker_ = other.tracker_;
    session_ = other.session_;
    bytes_ = other.bytes_;
    other.tracker_ = nullptr;
  }
  return *this;
}

AllocationTracker::Reservation AllocationTracker::Reservation::Split(int64_t bytes) {
  Reservation part;
  if (tracker_ == nullptr || bytes <= 0) return part;
  part.tracker_ = tracker_;
  part.session_ = session_;
  part.bytes_ = std::min(bytes, bytes_);
  bytes_ -= part.bytes_;
  return part;
}

void AllocationTracker::Reservation::Release() {
  if (tracker_ != nullptr) tracker_->ReleaseReservation(session_, bytes_);
  tracker_ = nullptr;
}

namespace {

constexpr int64_t kNodeOverheadBytes = 128;

int64_t SaturatingAdd(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

}  // namespace

int64_t AllocationTracker::ChargedBytes(const DeviceBuffer& buffer) { return buffer.size_bytes() + kNodeOverheadBytes; }

int64_t AllocationTracker::ChargedBytesOfTree(const Shape& shape) {
  int64_t total = kNodeOverheadBytes;
  if (!shape.IsTuple()) return SaturatingAdd(total, ShapeUtil::ByteSizeOfStorage(shape));
  for (const Shape& s : shape.tuple_shapes()) total = SaturatingAdd(total, ChargedBytesOfTree(s));
  return total;
}

void AllocationTracker::OpenSession(SessionId session) {
  absl::MutexLock lock(&mutex_);
  open_sessions_.insert(session);
}

int64_t AllocationTracker::CloseSession(SessionId session) {
  absl::MutexLock lock(&mutex_);
  open_sessions_.erase(session);
  return ReleaseSessionLocked(session);
}

absl::StatusOr<AllocationTracker::Reservation> AllocationTracker::Reserve(SessionId session, int64_t bytes,
                                                                          const std::string& what) {
  return Reserve(session, bytes, [&what] { return what; });
}

absl::StatusOr<AllocationTracker::Reservation> AllocationTracker::Reserve(SessionId session, int64_t bytes,
                                                                          absl::FunctionRef<std::string()> what) {
  absl::MutexLock lock(&mutex_);
  if (bytes < 0) return InvalidArgument("%s has a negative or overflowing size", what());
  if (!open_sessions_.contains(session)) return FailedPrecondition("session %d is closed", session);
  int64_t session_total = session_bytes_[session];
  if (bytes > max_session_bytes_ - session_total) {
    return ResourceExhausted("%s needs %d bytes but the session holds %d of its %d-byte quota", what(), bytes,
                             session_total, max_session_bytes_);
  }
  int64_t total = bytes_in_use_ + bytes_reserved_;
  if (bytes > max_total_bytes_ - total) {
    return ResourceExhausted("%s needs %d bytes but the service holds %d of its %d-byte limit", what(), bytes, total,
                             max_total_bytes_);
  }
  session_bytes_[session] += bytes;
  bytes_reserved_ += bytes;
  Reservation r;
  r.tracker_ = this;
  r.session_ = session;
  r.bytes_ = bytes;
  return r;
}

void AllocationTracker::ReleaseReservation(SessionId session, int64_t bytes) {
  absl::MutexLock lock(&mutex_);
  bytes_reserved_ -= bytes;
  if ((session_bytes_[session] -= bytes) == 0) session_bytes_.erase(session);
}

absl::StatusOr<GlobalDataHandle> AllocationTracker::Register(SessionId session,
                                                             std::shared_ptr<const DeviceBuffer> buffer,
                                                             absl::string_view what) {
  absl::MutexLock lock(&mutex_);
  if (!open_sessions_.contains(session)) {
    return FailedPrecondition("session %d closed before its %s could be registered", session, what);
  }
  session_bytes_[session] += kHandleBytes;
  GlobalDataHandle handle;
  handle.set_handle(next_handle_++);
  AddReferences(session, *buffer);
  handles_[handle.handle()] = Allocation{session, std::move(buffer)};
  return handle;
}

absl::Status AllocationTracker::NotFoundError(const GlobalDataHandle& handle) const {
  return NotFound("no data with handle %d in this session (unknown, released, or another session's)",
                  handle.handle());
}

absl::Status AllocationTracker::Unregister(SessionId session, const GlobalDataHandle& handle) {
  std::shared_ptr<const DeviceBuffer> released;  // freed after the lock (other sessions wait on it)
  absl::MutexLock lock(&mutex_);
  auto it = handles_.find(handle.handle());
  if (it == handles_.end() || it->second.session != session) return NotFoundError(handle);
  DropReferences(session, *it->second.buffer);
  released = std::move(it->second.buffer);
  handles_.erase(it);
  if ((session_bytes_[session] -= kHandleBytes) == 0) session_bytes_.erase(session);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::shared_ptr<DeviceBuffer>>> AllocationTracker::TakeDonated(
    SessionId session, absl::Span<const GlobalDataHandle> handles) {
  std::vector<std::shared_ptr<DeviceBuffer>> taken;
  absl::MutexLock lock(&mutex_);
  for (const GlobalDataHandle& handle : handles) {
    auto it = handles_.find(handle.handle());
    if (it == handles_.end() || it->second.session != session) return NotFoundError(handle);
    // References are only copied from one another or made by Resolve under
    // this lock, so a count of one (this table's) cannot grow while it is
    // held: the buffer is this handle's alone.
    if (it->second.buffer.use_count() != 1) {
      return FailedPrecondition(
          "handle %d cannot be donated: its buffer is also held elsewhere (another handle or tuple, or a run "
          "reading it)",
          handle.handle());
    }
  }
  for (const GlobalDataHandle& handle : handles) {
    auto it = handles_.find(handle.handle());
    DropReferences(session, *it->second.buffer);
    // Made mutable by DeviceBuffer's factories; const only while shared.
    taken.push_back(std::const_pointer_cast<DeviceBuffer>(std::move(it->second.buffer)));
    handles_.erase(it);
    if ((session_bytes_[session] -= kHandleBytes) == 0) session_bytes_.erase(session);
  }
  return taken;
}

absl::StatusOr<std::shared_ptr<const DeviceBuffer>> AllocationTracker::Resolve(SessionId session,
                                                                              const GlobalDataHandle& handle) const {
  absl::MutexLock lock(&mutex_);
  auto it = handles_.find(handle.handle());
  if (it == handles_.end() || it->second.session != session) return NotFoundError(handle);
  return it->second.buffer;
}

absl::StatusOr<std::vector<GlobalDataHandle>> AllocationTracker::DeconstructTuple(SessionId session,
                                                                                  const GlobalDataHandle& handle) {
  ASSIGN_OR_RETURN(std::shared_ptr<const DeviceBuffer> buffer, Resolve(session, handle));
  if (!buffer->shape().IsTuple()) {
    return InvalidArgument("DeconstructTuple: handle %d holds %s, not a tuple", handle.handle(),
                           buffer->shape().ToString());
  }
  // The new handles count against the quota like any other.
  ASSIGN_OR_RETURN(Reservation reservation,
                   Reserve(session, static_cast<int64_t>(buffer->elements().size()) * kHandleBytes,
                           "the element handles of a tuple"));
  std::vector<GlobalDataHandle> out;
  for (const auto& element : buffer->elements()) {
    ASSIGN_OR_RETURN(GlobalDataHandle h, Register(session, element, "tuple element"));
    out.push_back(h);
  }
  return out;
}

int64_t AllocationTracker::ReleaseSession(SessionId session) {
  absl::MutexLock lock(&mutex_);
  return ReleaseSessionLocked(session);
}

int64_t AllocationTracker::ReleaseSessionLocked(SessionId session) {
  int64_t released = 0;
  for (auto it = handles_.begin(); it != handles_.end();) {
    if (it->second.session == session) {
      DropReferences(session, *it->second.buffer);
      if ((session_bytes_[session] -= kHandleBytes) == 0) session_bytes_.erase(session);
      handles_.erase(it++);
      ++released;
    } else {
      ++it;
    }
  }
  return released;
}

void AllocationTracker::AddReferences(SessionId session, const DeviceBuffer& buffer) {
  if (buffer_refs_[&buffer]++ == 0) {
    bytes_in_use_ += ChargedBytes(buffer);
    session_bytes_[session] += ChargedBytes(buffer);
  }
  for (const auto& e : buffer.elements()) AddReferences(session, *e);
}

void AllocationTracker::DropReferences(SessionId session, const DeviceBuffer& buffer) {
  auto it = buffer_refs_.find(&buffer);
  if (it != buffer_refs_.end() && --it->second == 0) {
    bytes_in_use_ -= ChargedBytes(buffer);
    if ((session_bytes_[session] -= ChargedBytes(buffer)) == 0) session_bytes_.erase(session);
    buffer_refs_.erase(it);
  }
  for (const auto& e : buffer.elements()) DropReferences(session, *e);
}

int64_t AllocationTracker::bytes_in_use() const {
  absl::MutexLock lock(&mutex_);
  return bytes_in_use_;
}

int64_t AllocationTracker::session_bytes_in_use(SessionId session) const {
  absl::MutexLock lock(&mutex_);
  auto it = session_bytes_.find(session);
  return it == session_bytes_.end() ? 0 : it->second;
}

int64_t AllocationTracker::live_handles() const {
  absl::MutexLock lock(&mutex_);
  return handles_.size();
}

}  // namespace xla
