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
    table_ = std::move(other.table_);
    bytes_ = other.bytes_;
    other.tracker_ = nullptr;
  }
  return *this;
}

AllocationTracker::Reservation AllocationTracker::Reservation::Split(int64_t bytes) {
  Reservation part;
  if (tracker_ == nullptr || bytes <= 0) return part;
  part.tracker_ = tracker_;
  part.table_ = table_;
  part.bytes_ = std::min(bytes, bytes_);
  bytes_ -= part.bytes_;
  return part;
}

void AllocationTracker::Reservation::Release() {
  if (tracker_ != nullptr) tracker_->ReleaseReservation(*table_, bytes_);
  tracker_ = nullptr;
  table_.reset();
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

std::shared_ptr<AllocationTracker::SessionTable> AllocationTracker::OpenSession(SessionId session) {
  auto table = std::make_shared<SessionTable>(session);
  absl::MutexLock lock(&sessions_mutex_);
  sessions_[session] = table;
  return table;
}

int64_t AllocationTracker::CloseSession(SessionId session) {
  std::shared_ptr<SessionTable> table;
  {
    absl::MutexLock lock(&sessions_mutex_);
    auto it = sessions_.find(session);
    if (it == sessions_.end()) return 0;
    table = std::move(it->second);
    sessions_.erase(it);
  }
  std::vector<std::shared_ptr<const DeviceBuffer>> released;  // freed after the lock
  absl::MutexLock lock(&table->mutex_);
  table->open_ = false;
  return ReleaseAllLocked(*table, &released);
}

std::shared_ptr<AllocationTracker::SessionTable> AllocationTracker::Table(SessionId session) const {
  absl::ReaderMutexLock lock(&sessions_mutex_);
  auto it = sessions_.find(session);
  return it == sessions_.end() ? nullptr : it->second;
}

absl::Status AllocationTracker::ClosedError(SessionId session) {
  return FailedPrecondition("session %d is closed", session);
}

bool AllocationTracker::ChargeTotal(int64_t bytes, int64_t* total_before) {
  if (max_total_bytes_ == kUnlimited) return true;
  int64_t total = charged_.load(std::memory_order_relaxed);
  do {
    if (bytes > max_total_bytes_ - total) {
      *total_before = total;
      return false;
    }
  } while (!charged_.compare_exchange_weak(total, total + bytes, std::memory_order_relaxed));
  return true;
}

void AllocationTracker::UnchargeTotal(int64_t bytes) {
  if (max_total_bytes_ != kUnlimited) charged_.fetch_sub(bytes, std::memory_order_relaxed);
}

int64_t AllocationTracker::NextHandle(SessionTable& table) {
  if (table.next_handle_ == table.handle_block_end_) {
    table.next_handle_ = next_handle_block_.fetch_add(kHandleBlock, std::memory_order_relaxed);
    table.handle_block_end_ = table.next_handle_ + kHandleBlock;
  }
  return table.next_handle_++;
}

absl::StatusOr<AllocationTracker::Reservation> AllocationTracker::Reserve(SessionId session, int64_t bytes,
                                                                          const std::string& what) {
  return Reserve(session, bytes, [&what] { return what; });
}

absl::StatusOr<AllocationTracker::Reservation> AllocationTracker::Reserve(SessionId session, int64_t bytes,
                                                                          absl::FunctionRef<std::string()> what) {
  std::shared_ptr<SessionTable> table = Table(session);
  if (table == nullptr) return ClosedError(session);
  return Reserve(*table, bytes, what);
}

absl::StatusOr<AllocationTracker::Reservation> AllocationTracker::Reserve(SessionTable& table, int64_t bytes,
                                                                          absl::FunctionRef<std::string()> what) {
  if (bytes < 0) return InvalidArgument("%s has a negative or overflowing size", what());
  absl::MutexLock lock(&table.mutex_);
  if (!table.open_) return ClosedError(table.session_);
  if (bytes > max_session_bytes_ - table.bytes_) {
    return ResourceExhausted("%s needs %d bytes but the session holds %d of its %d-byte quota", what(), bytes,
                             table.bytes_, max_session_bytes_);
  }
  int64_t total = 0;
  if (!ChargeTotal(bytes, &total)) {
    return ResourceExhausted("%s needs %d bytes but the service holds %d of its %d-byte limit", what(), bytes, total,
                             max_total_bytes_);
  }
  table.bytes_ += bytes;
  Reservation r;
  r.tracker_ = this;
  r.table_ = table.shared_from_this();
  r.bytes_ = bytes;
  return r;
}

void AllocationTracker::ReleaseReservation(SessionTable& table, int64_t bytes) {
  UnchargeTotal(bytes);
  absl::MutexLock lock(&table.mutex_);
  table.bytes_ -= bytes;
}

absl::StatusOr<GlobalDataHandle> AllocationTracker::Register(SessionId session,
                                                             std::shared_ptr<const DeviceBuffer> buffer,
                                                             absl::string_view what) {
  std::shared_ptr<SessionTable> table = Table(session);
  if (table == nullptr) {
    return FailedPrecondition("session %d closed before its %s could be registered", session, what);
  }
  return Register(*table, std::move(buffer), what);
}

absl::StatusOr<GlobalDataHandle> AllocationTracker::Register(SessionTable& table,
                                                             std::shared_ptr<const DeviceBuffer> buffer,
                                                             absl::string_view what) {
  absl::MutexLock lock(&table.mutex_);
  if (!table.open_) {
    return FailedPrecondition("session %d closed before its %s could be registered", table.session_, what);
  }
  table.bytes_ += kHandleBytes;
  GlobalDataHandle handle;
  handle.set_handle(NextHandle(table));
  AddReferences(table, *buffer);
  table.handles_[handle.handle()] = std::move(buffer);
  return handle;
}

absl::Status AllocationTracker::NotFoundError(const GlobalDataHandle& handle) const {
  return NotFound("no data with handle %d in this session (unknown, released, or another session's)",
                  handle.handle());
}

absl::Status AllocationTracker::Unregister(SessionId session, const GlobalDataHandle& handle) {
  std::shared_ptr<SessionTable> table = Table(session);
  if (table == nullptr) return NotFoundError(handle);
  return Unregister(*table, handle);
}

absl::Status AllocationTracker::Unregister(SessionTable& table, const GlobalDataHandle& handle) {
  std::shared_ptr<const DeviceBuffer> released;  // freed after the lock
  absl::MutexLock lock(&table.mutex_);
  auto it = table.handles_.find(handle.handle());
  if (it == table.handles_.end()) return NotFoundError(handle);
  DropReferences(table, *it->second);
  released = std::move(it->second);
  table.handles_.erase(it);
  table.bytes_ -= kHandleBytes;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::shared_ptr<DeviceBuffer>>> AllocationTracker::TakeDonated(
    SessionTable& table, absl::Span<const GlobalDataHandle> handles) {
  std::vector<std::shared_ptr<DeviceBuffer>> taken;
  absl::MutexLock lock(&table.mutex_);
  for (const GlobalDataHandle& handle : handles) {
    auto it = table.handles_.find(handle.handle());
    if (it == table.handles_.end()) return NotFoundError(handle);
    // A buffer is in one session's table, and references to it are only
    // copied from one another or made by Resolve under this table's lock, so
    // a count of one (this table's) cannot grow while it is held: the buffer
    // is this handle's alone.
    if (it->second.use_count() != 1) {
      return FailedPrecondition(
          "handle %d cannot be donated: its buffer is also held elsewhere (another handle or tuple, or a run "
          "reading it)",
          handle.handle());
    }
  }
  for (const GlobalDataHandle& handle : handles) {
    auto it = table.handles_.find(handle.handle());
    DropReferences(table, *it->second);
    // Made mutable by DeviceBuffer's factories; const only while shared.
    taken.push_back(std::const_pointer_cast<DeviceBuffer>(std::move(it->second)));
    table.handles_.erase(it);
    table.bytes_ -= kHandleBytes;
  }
  return taken;
}

absl::StatusOr<std::shared_ptr<const DeviceBuffer>> AllocationTracker::Resolve(SessionId session,
                                                                              const GlobalDataHandle& handle) const {
  std::shared_ptr<SessionTable> table = Table(session);
  if (table == nullptr) return NotFoundError(handle);
  return Resolve(*table, handle);
}

absl::StatusOr<std::shared_ptr<const DeviceBuffer>> AllocationTracker::Resolve(const SessionTable& table,
                                                                              const GlobalDataHandle& handle) const {
  absl::MutexLock lock(&table.mutex_);
  auto it = table.handles_.find(handle.handle());
  if (it == table.handles_.end()) return NotFoundError(handle);
  return it->second;
}

absl::StatusOr<std::vector<GlobalDataHandle>> AllocationTracker::DeconstructTuple(SessionId session,
                                                                                  const GlobalDataHandle& handle) {
  std::shared_ptr<SessionTable> table = Table(session);
  if (table == nullptr) return NotFoundError(handle);
  ASSIGN_OR_RETURN(std::shared_ptr<const DeviceBuffer> buffer, Resolve(*table, handle));
  if (!buffer->shape().IsTuple()) {
    return InvalidArgument("DeconstructTuple: handle %d holds %s, not a tuple", handle.handle(),
                           buffer->shape().ToString());
  }
  // The new handles count against the quota like any other.
  ASSIGN_OR_RETURN(Reservation reservation,
                   Reserve(*table, static_cast<int64_t>(buffer->elements().size()) * kHandleBytes,
                           [] { return std::string("the element handles of a tuple"); }));
  std::vector<GlobalDataHandle> out;
  for (const auto& element : buffer->elements()) {
    ASSIGN_OR_RETURN(GlobalDataHandle h, Register(*table, element, "tuple element"));
    out.push_back(h);
  }
  return out;
}

int64_t AllocationTracker::ReleaseSession(SessionId session) {
  std::shared_ptr<SessionTable> table = Table(session);
  if (table == nullptr) return 0;
  std::vector<std::shared_ptr<const DeviceBuffer>> released;  // freed after the lock
  absl::MutexLock lock(&table->mutex_);
  return ReleaseAllLocked(*table, &released);
}

int64_t AllocationTracker::ReleaseAllLocked(SessionTable& table,
                                            std::vector<std::shared_ptr<const DeviceBuffer>>* released) {
  const int64_t count = static_cast<int64_t>(table.handles_.size());
  released->reserve(table.handles_.size());
  for (auto& [handle, buffer] : table.handles_) {
    DropReferences(table, *buffer);
    released->push_back(std::move(buffer));
  }
  table.handles_.clear();
  table.bytes_ -= count * kHandleBytes;
  return count;
}

void AllocationTracker::AddReferences(SessionTable& table, const DeviceBuffer& buffer) {
  if (table.buffer_refs_[&buffer]++ == 0) {
    const int64_t bytes = ChargedBytes(buffer);
    // Registering follows a reservation of these bytes (which the caller
    // drops after), so the limit was checked.
    if (max_total_bytes_ != kUnlimited) charged_.fetch_add(bytes, std::memory_order_relaxed);
    table.bytes_in_use_ += bytes;
    table.bytes_ += bytes;
  }
  for (const auto& e : buffer.elements()) AddReferences(table, *e);
}

void AllocationTracker::DropReferences(SessionTable& table, const DeviceBuffer& buffer) {
  auto it = table.buffer_refs_.find(&buffer);
  if (it != table.buffer_refs_.end() && --it->second == 0) {
    const int64_t bytes = ChargedBytes(buffer);
    UnchargeTotal(bytes);
    table.bytes_in_use_ -= bytes;
    table.bytes_ -= bytes;
    table.buffer_refs_.erase(it);
  }
  for (const auto& e : buffer.elements()) DropReferences(table, *e);
}

int64_t AllocationTracker::bytes_in_use() const {
  absl::ReaderMutexLock lock(&sessions_mutex_);
  int64_t total = 0;
  for (const auto& [id, table] : sessions_) {
    absl::MutexLock table_lock(&table->mutex_);
    total += table->bytes_in_use_;
  }
  return total;
}

int64_t AllocationTracker::live_handles() const {
  absl::ReaderMutexLock lock(&sessions_mutex_);
  int64_t total = 0;
  for (const auto& [id, table] : sessions_) {
    absl::MutexLock table_lock(&table->mutex_);
    total += static_cast<int64_t>(table->handles_.size());
  }
  return total;
}

int64_t AllocationTracker::session_bytes_in_use(SessionId session) const {
  std::shared_ptr<SessionTable> table = Table(session);
  if (table == nullptr) return 0;
  absl::MutexLock lock(&table->mutex_);
  return table->bytes_;
}

}  // namespace xla
