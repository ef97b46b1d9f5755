// AllocationTracker: maps GlobalDataHandles to device buffers, per session.
// Buffers are reference counted (shared_ptr); a tuple element handle shares
// ownership of the element with the tuple, so either can be released first.
// Byte accounting counts each distinct buffer once, however many handles or
// tuples refer to it, and charges it to the session that holds it.
//
// Quotas: before allocating, callers Reserve() the bytes against the
// per-session and whole-service limits; the reservation is released when
// the buffer is registered (its bytes are then counted as in use) or when
// the reservation is dropped. So nothing is allocated beyond the quotas.
//
// Thread-safe: one mutex guards the handle table and the accounting, since
// every operation touches both and is short.
#ifndef SERVICE_ALLOCATION_TRACKER_H_
#define SERVICE_ALLOCATION_TRACKER_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "backends/device_buffer.h"
#include "proto/xla_data.pb.h"

namespace xla {

using SessionId = int64_t;

class AllocationTracker {
 public:
  static constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();

  AllocationTracker(int64_t max_total_bytes = kUnlimited, int64_t max_session_bytes = kUnlimited)
      : max_total_bytes_(max_total_bytes), max_session_bytes_(max_session_bytes) {}

  // Bytes held against the quotas until Release() or destruction.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept { *this = std::move(other); }
    Reservation& operator=(Reservation&& other) noexcept;
    ~Reservation() { Release(); }
    void Release();
    // Moves up to `bytes` of this reservation into a new one, held past this
    // one's release (no quota check: the bytes were held already).
    Reservation Split(int64_t bytes);

   private:
    friend class AllocationTracker;
    AllocationTracker* tracker_ = nullptr;
    SessionId session_ = 0;
    int64_t bytes_ = 0;
  };
  // RESOURCE_EXHAUSTED when `bytes` more would exceed either quota.
  absl::StatusOr<Reservation> Reserve(SessionId session, int64_t bytes, const std::string& what);
  // The same, naming the request only when it fails (`what` is not called
  // otherwise: a run's reservation builds no string).
  absl::StatusOr<Reservation> Reserve(SessionId session, int64_t bytes, absl::FunctionRef<std::string()> what);

  // Sessions must be opened before anything is registered for them; once
  // closed (which releases every handle), registering for them fails, so a
  // request that outlives its session cannot leak a buffer.
  void OpenSession(SessionId session);
  int64_t CloseSession(SessionId session);

  // FailedPrecondition if the session is not open; `what` (e.g. "execution
  // result") names the buffer in that error.
  absl::StatusOr<GlobalDataHandle> Register(SessionId session, std::shared_ptr<const DeviceBuffer> buffer,
                                            absl::string_view what);
  // NotFound for unknown, released, or other sessions' handles.
  absl::Status Unregister(SessionId session, const GlobalDataHandle& handle);
  absl::StatusOr<std::shared_ptr<const DeviceBuffer>> Resolve(SessionId session,
                                                              const GlobalDataHandle& handle) const;
  // Removes the handles (a run's donated arguments) and returns their
  // buffers, which the caller then holds alone: all of them or, on an
  // error, none. NotFound as Resolve; FailedPrecondition naming the handle
  // when its buffer is referenced elsewhere too (another handle, a tuple, a
  // run reading it): writing into it would change what they see.
  absl::StatusOr<std::vector<std::shared_ptr<DeviceBuffer>>> TakeDonated(SessionId session,
                                                                         absl::Span<const GlobalDataHandle> handles);
  // New handles (same session) for each element of a tuple buffer.
  absl::StatusOr<std::vector<GlobalDataHandle>> DeconstructTuple(SessionId session, const GlobalDataHandle& handle);
  // Releases every handle of `session` (which stays open); returns how many.
  int64_t ReleaseSession(SessionId session);

  // What a buffer node costs against the quotas: its bytes plus a fixed
  // overhead, so trees of empty leaves are not free.
  static int64_t ChargedBytes(const DeviceBuffer& buffer);
  // The charge of a whole tree of `shape` (saturating, never negative).
  static int64_t ChargedBytesOfTree(const Shape& shape);
  // Bytes each live handle is charged.
  static constexpr int64_t kHandleBytes = 64;

  int64_t bytes_in_use() const;
  int64_t session_bytes_in_use(SessionId session) const;
  int64_t live_handles() const;
  int64_t max_total_bytes() const { return max_total_bytes_; }
  int64_t max_session_bytes() const { return max_session_bytes_; }

 private:
  struct Allocation {
    SessionId session;
    std::shared_ptr<const DeviceBuffer> buffer;
  };
  // Adds/removes one reference to every buffer in the tree.
  void AddReferences(SessionId session, const DeviceBuffer& buffer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void DropReferences(SessionId session, const DeviceBuffer& buffer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void ReleaseReservation(SessionId session, int64_t bytes);
  absl::Status NotFoundError(const GlobalDataHandle& handle) const;

  const int64_t max_total_bytes_;
  const int64_t max_session_bytes_;
  mutable absl::Mutex mutex_;
  int64_t next_handle_ ABSL_GUARDED_BY(mutex_) = 1;
  absl::flat_hash_map<int64_t, Allocation> handles_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<const DeviceBuffer*, int64_t> buffer_refs_ ABSL_GUARDED_BY(mutex_);
  int64_t bytes_in_use_ ABSL_GUARDED_BY(mutex_) = 0;
  int64_t bytes_reserved_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::flat_hash_map<SessionId, int64_t> session_bytes_ ABSL_GUARDED_BY(mutex_);  // in use + reserved
  absl::flat_hash_set<SessionId> open_sessions_ ABSL_GUARDED_BY(mutex_);
  int64_t ReleaseSessionLocked(SessionId session) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
};

}  // namespace xla

#endif  // SERVICE_ALLOCATION_TRACKER_H_
