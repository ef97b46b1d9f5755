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
// Thread-safe, and sessions do not wait for each other: each session's
// handles, quota and figures are a SessionTable with its own lock, and the
// table of open sessions has a lock that only opening, closing, lookups by
// session id and the service-wide figures (sums over the tables) take. A
// caller that keeps a session's table (an in-process client's session)
// passes it, and then touches no lock, and writes no memory, that another
// session's calls do: handle numbers come to a table in blocks, and a
// service-wide limit (when there is one) is one atomic counter. A buffer belongs to the session that registered it: its
// bytes are counted once per session however many of that session's handles
// or tuples refer to it.
#ifndef SERVICE_ALLOCATION_TRACKER_H_
#define SERVICE_ALLOCATION_TRACKER_H_

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

  class SessionTable;

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
    std::shared_ptr<SessionTable> table_;  // outlives a close of its session
    int64_t bytes_ = 0;
  };
  // One session's handles, references and quota, under its own lock (made
  // by OpenSession, always owned by shared_ptr: a reservation keeps its
  // session's table).
  // (Cache-line aligned: sessions' tables never share a line.)
  class alignas(64) SessionTable : public std::enable_shared_from_this<SessionTable> {
   public:
    explicit SessionTable(SessionId session) : session_(session) {}

   private:
    friend class AllocationTracker;
    const SessionId session_;
    mutable absl::Mutex mutex_;
    bool open_ ABSL_GUARDED_BY(mutex_) = true;
    absl::flat_hash_map<int64_t, std::shared_ptr<const DeviceBuffer>> handles_ ABSL_GUARDED_BY(mutex_);
    absl::flat_hash_map<const DeviceBuffer*, int64_t> buffer_refs_ ABSL_GUARDED_BY(mutex_);
    int64_t bytes_ ABSL_GUARDED_BY(mutex_) = 0;         // in use + reserved, against the session quota
    int64_t bytes_in_use_ ABSL_GUARDED_BY(mutex_) = 0;  // of registered buffers
    // Handle numbers [next_handle_, handle_block_end_) are this table's to give.
    int64_t next_handle_ ABSL_GUARDED_BY(mutex_) = 0;
    int64_t handle_block_end_ ABSL_GUARDED_BY(mutex_) = 0;
  };

  // Sessions must be opened before anything is registered for them; once
  // closed (which releases every handle), registering for them fails, so a
  // request that outlives its session cannot leak a buffer. OpenSession
  // returns the session's table, for callers that keep it.
  std::shared_ptr<SessionTable> OpenSession(SessionId session);
  int64_t CloseSession(SessionId session);
  // The table of an open session; null when it is not open.
  std::shared_ptr<SessionTable> Table(SessionId session) const;

  // Each operation below is given a session's table, or its id (looked up
  // in the table of open sessions first).
  //
  // RESOURCE_EXHAUSTED when `bytes` more would exceed either quota.
  absl::StatusOr<Reservation> Reserve(SessionTable& table, int64_t bytes, absl::FunctionRef<std::string()> what);
  absl::StatusOr<Reservation> Reserve(SessionId session, int64_t bytes, absl::FunctionRef<std::string()> what);
  // The same, naming the request (a run's reservation uses the forms above,
  // whose `what` is called only when they fail, and builds no string).
  absl::StatusOr<Reservation> Reserve(SessionId session, int64_t bytes, const std::string& what);

  // FailedPrecondition if the session is not open; `what` (e.g. "execution
  // result") names the buffer in that error.
  absl::StatusOr<GlobalDataHandle> Register(SessionTable& table, std::shared_ptr<const DeviceBuffer> buffer,
                                            absl::string_view what);
  absl::StatusOr<GlobalDataHandle> Register(SessionId session, std::shared_ptr<const DeviceBuffer> buffer,
                                            absl::string_view what);
  // NotFound for unknown, released, or other sessions' handles.
  absl::Status Unregister(SessionTable& table, const GlobalDataHandle& handle);
  absl::Status Unregister(SessionId session, const GlobalDataHandle& handle);
  absl::StatusOr<std::shared_ptr<const DeviceBuffer>> Resolve(const SessionTable& table,
                                                              const GlobalDataHandle& handle) const;
  absl::StatusOr<std::shared_ptr<const DeviceBuffer>> Resolve(SessionId session,
                                                              const GlobalDataHandle& handle) const;
  // Removes the handles (a run's donated arguments) and returns their
  // buffers, which the caller then holds alone: all of them or, on an
  // error, none. NotFound as Resolve; FailedPrecondition naming the handle
  // when its buffer is referenced elsewhere too (another handle, a tuple, a
  // run reading it): writing into it would change what they see.
  absl::StatusOr<std::vector<std::shared_ptr<DeviceBuffer>>> TakeDonated(SessionTable& table,
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

  // Service-wide figures: sums over the open sessions (a closed session
  // holds nothing).
  int64_t bytes_in_use() const;
  int64_t session_bytes_in_use(SessionId session) const;
  int64_t live_handles() const;
  int64_t max_total_bytes() const { return max_total_bytes_; }
  int64_t max_session_bytes() const { return max_session_bytes_; }

 private:
  // Charges `bytes` against the whole service's limit (false: over it),
  // and gives them back; nothing without a limit.
  bool ChargeTotal(int64_t bytes, int64_t* total_before);
  void UnchargeTotal(int64_t bytes);
  // A new handle number of the table (unique in the service).
  int64_t NextHandle(SessionTable& table) ABSL_EXCLUSIVE_LOCKS_REQUIRED(table.mutex_);
  // Handle numbers a table takes at a time.
  static constexpr int64_t kHandleBlock = 1024;
  // Adds/removes one reference to every buffer in the tree.
  void AddReferences(SessionTable& table, const DeviceBuffer& buffer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(table.mutex_);
  void DropReferences(SessionTable& table, const DeviceBuffer& buffer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(table.mutex_);
  // Drops every handle of the table; their buffers go to `released`.
  int64_t ReleaseAllLocked(SessionTable& table, std::vector<std::shared_ptr<const DeviceBuffer>>* released)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(table.mutex_);
  void ReleaseReservation(SessionTable& table, int64_t bytes);
  absl::Status NotFoundError(const GlobalDataHandle& handle) const;
  static absl::Status ClosedError(SessionId session);

  const int64_t max_total_bytes_;
  const int64_t max_session_bytes_;
  std::atomic<int64_t> next_handle_block_{1};
  // In use + reserved, against max_total_bytes_ (only when it is a limit).
  std::atomic<int64_t> charged_{0};
  mutable absl::Mutex sessions_mutex_;  // open, close, and lookups by id
  absl::flat_hash_map<SessionId, std::shared_ptr<SessionTable>> sessions_ ABSL_GUARDED_BY(sessions_mutex_);
};

}  // namespace xla

#endif  // SERVICE_ALLOCATION_TRACKER_H_
