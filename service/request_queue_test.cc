// RequestQueue: tasks beyond the workers wait, sessions take turns, a full
// queue is RESOURCE_EXHAUSTED naming its limits, and every queued task runs.
#include "service/request_queue.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

// Submits (for session 0) a task that holds its worker until `release` is
// notified; returns once the task runs.
void OccupyAWorker(RequestQueue& queue, absl::Notification& release) {
  absl::Notification started;
  ASSERT_TRUE(queue.Submit(0, [&] {
    started.Notify();
    release.WaitForNotification();
  }).ok());
  started.WaitForNotification();
}

TEST(RequestQueueTest, SessionsTakeTurns) {
  RequestQueue queue(/*workers=*/1, /*max_queued=*/100);
  absl::Notification release;
  OccupyAWorker(queue, release);
  // Session 1 queues five tasks, then session 2 one: session 2's runs
  // second, not sixth.
  absl::Mutex mu;
  std::vector<std::string> order;
  auto record = [&](std::string what) {
    return [&, what] {
      absl::MutexLock lock(&mu);
      order.push_back(what);
    };
  };
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(queue.Submit(1, record("a" + std::to_string(i))).ok());
  ASSERT_TRUE(queue.Submit(2, record("b0")).ok());
  ASSERT_TRUE(queue.Submit(2, record("b1")).ok());
  EXPECT_EQ(queue.queued(), 7);
  EXPECT_EQ(queue.running(), 1);
  release.Notify();
  while (true) {
    absl::MutexLock lock(&mu);
    if (order.size() == 7) break;
    mu.AwaitWithTimeout(absl::Condition(+[](std::vector<std::string>* o) { return o->size() == 7; }, &order),
                        absl::Seconds(10));
  }
  EXPECT_THAT(order, ::testing::ElementsAre("a0", "b0", "a1", "b1", "a2", "a3", "a4"));
}

TEST(RequestQueueTest, AFullQueueRejectsWithItsLimitsAndEveryQueuedTaskRuns) {
  std::atomic<int> ran{0};
  {
    RequestQueue queue(/*workers=*/2, /*max_queued=*/3);
    absl::Notification release;
    std::atomic<int> started{0};
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(queue.Submit(i, [&] {
        ++started;
        release.WaitForNotification();
        ++ran;
      }).ok());
    }
    while (started.load() < 2) absl::SleepFor(absl::Milliseconds(1));
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(queue.Submit(7, [&] { ++ran; }).ok());
    absl::Status full = queue.Submit(8, [&] { ++ran; });
    EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(std::string(full.message()), ::testing::HasSubstr("its 2 workers (--threads)"));
    EXPECT_THAT(std::string(full.message()), ::testing::HasSubstr("--max_queued_requests=3"));
    release.Notify();
  }  // the destructor runs what is queued, then joins
  EXPECT_EQ(ran.load(), 5);
}

TEST(RequestQueueTest, RunHereIfIdleRunsOnTheCallersThreadOnlyWhenNothingWaitsAndAWorkerIsFree) {
  RequestQueue queue(/*workers=*/1, /*max_queued=*/10);
  // Idle: runs here, counted as running while it does.
  std::thread::id ran_on;
  int64_t running_inside = -1;
  EXPECT_TRUE(queue.RunHereIfIdle([&] {
    ran_on = std::this_thread::get_id();
    running_inside = queue.running();
  }));
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(running_inside, 1);
  EXPECT_EQ(queue.running(), 0);

  // The one worker busy: not run.
  absl::Notification release;
  OccupyAWorker(queue, release);
  bool ran = false;
  EXPECT_FALSE(queue.RunHereIfIdle([&] { ran = true; }));
  // A task waiting (its session's turn comes first): not run either.
  absl::Notification second_done;
  ASSERT_TRUE(queue.Submit(1, [&] { second_done.Notify(); }).ok());
  EXPECT_FALSE(queue.RunHereIfIdle([&] { ran = true; }));
  EXPECT_FALSE(ran);
  release.Notify();
  second_done.WaitForNotification();
}

}  // namespace
}  // namespace xla
