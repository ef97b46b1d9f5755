// RequestQueue: the daemon's admission of requests. A fixed set of worker
// threads (xla_service --threads) runs the requests; the requests beyond
// them wait in a bounded queue (--max_queued_requests), and the workers
// take waiting requests in turns between sessions (round robin over the
// sessions with something waiting, FIFO within a session), so one client
// with many requests in flight cannot starve another. A full queue rejects
// the request at once with RESOURCE_EXHAUSTED naming the limits; nothing
// is rejected while there is room.
#ifndef SERVICE_REQUEST_QUEUE_H_
#define SERVICE_REQUEST_QUEUE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace xla {

class RequestQueue {
 public:
  RequestQueue(int workers, int64_t max_queued);
  // Runs what is still queued, then joins the workers.
  ~RequestQueue();
  RequestQueue(const RequestQueue&) = delete;
  RequestQueue& operator=(const RequestQueue&) = delete;

  // Queues `task` for the session `key` (any number; calls without a
  // session share one key). RESOURCE_EXHAUSTED when max_queued tasks wait.
  absl::Status Submit(int64_t key, std::function<void()> task);

  // Runs `task` on the calling thread, counted as running, when nothing
  // waits and a worker is free (so no session's turn is taken); false, and
  // `task` not run, otherwise. For requests known to be short: handing one
  // to a worker costs two thread wake-ups, about 40 us on a 2-vCPU VM.
  bool RunHereIfIdle(absl::FunctionRef<void()> task);

  int workers() const { return static_cast<int>(threads_.size()); }
  int64_t max_queued() const { return max_queued_; }
  // Tasks waiting, and tasks running, now.
  int64_t queued() const;
  int64_t running() const;

 private:
  void Work();

  const int64_t max_queued_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<int64_t, std::deque<std::function<void()>>> waiting_ ABSL_GUARDED_BY(mu_);
  std::deque<int64_t> turns_ ABSL_GUARDED_BY(mu_);  // sessions with waiting tasks, next first
  int64_t queued_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t running_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace xla

#endif  // SERVICE_REQUEST_QUEUE_H_
