// FeedQueue: FIFO order, the bound of PushBounded, Pop's deadline, and a
// rejected value staying at the front.
#include "xla/collectives/feed_queue.h"

#include <chrono>

#include "gtest/gtest.h"

namespace xla {
namespace collectives {
namespace {

TEST(FeedQueueTest, FifoWithABound) {
  FeedQueue queue;
  ASSERT_TRUE(queue.PushBounded(Literal::CreateR0<int32_t>(1), 2).ok());
  ASSERT_TRUE(queue.PushBounded(Literal::CreateR0<int32_t>(2), 2).ok());
  absl::Status full = queue.PushBounded(Literal::CreateR0<int32_t>(3), 2);
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted) << full;
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_EQ(queue.Pop("q", absl::ZeroDuration()).value(), Literal::CreateR0<int32_t>(1));
  EXPECT_EQ(queue.Pop("q", absl::ZeroDuration()).value(), Literal::CreateR0<int32_t>(2));
}

TEST(FeedQueueTest, PopWaitsUntilItsDeadline) {
  FeedQueue queue;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Literal> none = queue.Pop("outfeed of device 3", absl::Milliseconds(100));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(90));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(none.status().message().find("outfeed of device 3"), absl::string_view::npos) << none.status();
}

TEST(FeedQueueTest, ARejectedValueStaysAtTheFront) {
  FeedQueue queue;
  queue.Push(Literal::CreateR1<float>({1, 2}));
  auto want_s32 = [](const Literal& v) {
    return v.shape().element_type() == S32 ? absl::OkStatus() : absl::InvalidArgumentError("not s32");
  };
  absl::StatusOr<Literal> rejected = queue.Pop("q", absl::Seconds(1), want_s32);
  EXPECT_EQ(rejected.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.Pop("q", absl::Seconds(1)).value(), Literal::CreateR1<float>({1, 2}));
}

}  // namespace
}  // namespace collectives
}  // namespace xla
