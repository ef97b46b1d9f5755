#include "service/request_queue.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace xla {

RequestQueue::RequestQueue(int workers, int64_t max_queued) : max_queued_(std::max<int64_t>(max_queued, 0)) {
  const int n = std::max(workers, 1);
  threads_.reserve(n);
  for (int i = 0; i < n; ++i) threads_.emplace_back([this] { Work(); });
}

RequestQueue::~RequestQueue() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

absl::Status RequestQueue::Submit(int64_t key, std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  if (queued_ >= max_queued_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the service is busy: its ", threads_.size(), " workers (--threads) are running requests and ", queued_,
        " more wait, the most it queues (--max_queued_requests=", max_queued_, "); retry later"));
  }
  std::deque<std::function<void()>>& session = waiting_[key];
  if (session.empty()) turns_.push_back(key);
  session.push_back(std::move(task));
  ++queued_;
  return absl::OkStatus();
}

bool RequestQueue::RunHereIfIdle(absl::FunctionRef<void()> task) {
  {
    absl::MutexLock lock(&mu_);
    if (queued_ > 0 || running_ >= static_cast<int64_t>(threads_.size()) || stopping_) return false;
    ++running_;
  }
  task();
  absl::MutexLock lock(&mu_);
  --running_;
  return true;
}

int64_t RequestQueue::queued() const {
  absl::MutexLock lock(&mu_);
  return queued_;
}

int64_t RequestQueue::running() const {
  absl::MutexLock lock(&mu_);
  return running_;
}

void RequestQueue::Work() {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](RequestQueue* q) ABSL_EXCLUSIVE_LOCKS_REQUIRED(q->mu_) { return q->queued_ > 0 || q->stopping_; },
          this));
      if (queued_ == 0) return;  // stopping, and nothing is left
      // The session whose turn it is gives its oldest task; it goes to the
      // back of the turns if it has more.
      const int64_t key = turns_.front();
      turns_.pop_front();
      auto it = waiting_.find(key);
      task = std::move(it->second.front());
      it->second.pop_front();
      if (it->second.empty()) {
        waiting_.erase(it);
      } else {
        turns_.push_back(key);
      }
      --queued_;
      ++running_;
    }
    task();
    absl::MutexLock lock(&mu_);
    --running_;
  }
}

}  // namespace xla
