// Process groups of each StableHLO mode by hand, and the rendezvous:
// exchange in group order, a missing member's deadline, abort; the
// Send/Recv channel table.
#include <atomic>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/collectives/channel_table.h"
#include "xla/collectives/process_groups.h"
#include "xla/collectives/rendezvous.h"
#include "xla/collectives/replica_context.h"

namespace xla {
namespace collectives {
namespace {

using ::testing::HasSubstr;

std::string Groups(const std::vector<std::vector<ProcessId>>& groups) {
  std::string out;
  for (const auto& g : groups) out += GroupToString(g);
  return out;
}

TEST(ProcessGroupsTest, ModesAsTheSpecificationDefinesThem) {
  // 2 replicas x 2 partitions, groups {{0, 1}}.
  auto cross_replica = ProcessGroups("op", GroupMode::kCrossReplica, {{0, 1}}, 2, 2);
  ASSERT_TRUE(cross_replica.ok());
  EXPECT_EQ(Groups(*cross_replica), "[(0,0), (1,0)][(0,1), (1,1)]");
  auto cross_partition = ProcessGroups("op", GroupMode::kCrossPartition, {{1, 0}}, 2, 2);
  ASSERT_TRUE(cross_partition.ok());
  EXPECT_EQ(Groups(*cross_partition), "[(0,1), (0,0)][(1,1), (1,0)]");
  auto both = ProcessGroups("op", GroupMode::kCrossReplicaAndPartition, {{0, 1}}, 2, 2);
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(Groups(*both), "[(0,0), (1,0), (0,1), (1,1)]");
  auto flattened = ProcessGroups("op", GroupMode::kFlattenedIds, {{0, 3}, {2, 1}}, 2, 2);
  ASSERT_TRUE(flattened.ok());
  EXPECT_EQ(Groups(*flattened), "[(0,0), (1,1)][(1,0), (0,1)]");
  auto all = ProcessGroups("op", GroupMode::kCrossReplica, {}, 3, 1);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(Groups(*all), "[(0,0), (1,0), (2,0)]");
}

TEST(ProcessGroupsTest, ModeSelection) {
  EXPECT_EQ(*ReplicaGroupMode("op", 0, false), GroupMode::kCrossReplica);
  EXPECT_EQ(*ReplicaGroupMode("op", 1, false), GroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(*ReplicaGroupMode("op", 1, true), GroupMode::kFlattenedIds);
  EXPECT_FALSE(ReplicaGroupMode("op", 0, true).ok());
  EXPECT_EQ(ReplicaOrPartitionMode(0), GroupMode::kCrossReplica);
  EXPECT_EQ(ReplicaOrPartitionMode(2), GroupMode::kCrossPartition);
}

TEST(ProcessGroupsTest, BadGroups) {
  auto out_of_range = ProcessGroups("all-reduce 'x'", GroupMode::kCrossReplica, {{0, 4}}, 2, 1);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_THAT(out_of_range.status().message(), HasSubstr("id 4"));
  EXPECT_FALSE(ProcessGroups("op", GroupMode::kCrossReplica, {{0}, {0}}, 2, 1).ok());
  EXPECT_FALSE(ProcessGroups("op", GroupMode::kCrossReplica, {{}}, 2, 1).ok());
}

TEST(RendezvousTest, ExchangeInGroupOrder) {
  Rendezvous rendezvous(absl::Seconds(10));
  const std::vector<ProcessId> group = {{2, 0}, {0, 0}, {1, 0}};
  std::vector<std::vector<std::string>> got(3);
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      auto blobs = rendezvous.Exchange("k", group, ProcessId{r, 0}, std::string(1, 'a' + r), "op");
      ASSERT_TRUE(blobs.ok()) << blobs.status();
      for (const auto& b : *blobs) got[r].push_back(*b);
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < 3; ++r) EXPECT_EQ(got[r], (std::vector<std::string>{"c", "a", "b"}));
}

TEST(RendezvousTest, MissingMemberTimesOutAndAbortsTheRest) {
  Rendezvous rendezvous(absl::Milliseconds(100));
  const std::vector<ProcessId> group = {{0, 0}, {1, 0}};
  auto blobs = rendezvous.Exchange("k", group, ProcessId{0, 0}, "x", "all-gather 'g'");
  ASSERT_FALSE(blobs.ok());
  EXPECT_EQ(blobs.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(blobs.status().message(), HasSubstr("all-gather 'g'"));
  EXPECT_THAT(blobs.status().message(), HasSubstr("missing processes [(1,0)]"));
  // The late member finds the run failed.
  auto late = rendezvous.Exchange("k", group, ProcessId{1, 0}, "y", "all-gather 'g'");
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), absl::StatusCode::kAborted);
}

TEST(RendezvousTest, AbortWakesWaiters) {
  Rendezvous rendezvous(absl::Seconds(30));
  std::thread waiter([&] {
    auto blobs = rendezvous.Exchange("k", {{0, 0}, {1, 0}}, ProcessId{0, 0}, "x", "op");
    ASSERT_FALSE(blobs.ok());
    EXPECT_EQ(blobs.status().code(), absl::StatusCode::kAborted);
    EXPECT_THAT(blobs.status().message(), HasSubstr("bad input"));
  });
  absl::SleepFor(absl::Milliseconds(20));
  rendezvous.Abort(absl::InvalidArgumentError("bad input"));
  waiter.join();
}

TEST(ChannelTableTest, FifoPerChannelAndABlockingReceive) {
  ChannelTable table;
  table.Send(1, Literal::CreateR0<int32_t>(10));
  table.Send(2, Literal::CreateR0<int32_t>(20));
  table.Send(1, Literal::CreateR0<int32_t>(11));
  EXPECT_EQ(table.pending(1), 2);
  auto a = table.Recv(1, "recv-done 'r'", absl::Seconds(1));
  auto b = table.Recv(1, "recv-done 'r'", absl::Seconds(1));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, Literal::CreateR0<int32_t>(10));
  EXPECT_EQ(*b, Literal::CreateR0<int32_t>(11));
  // A receiver waits for a sender on another thread.
  std::thread sender([&] {
    absl::SleepFor(absl::Milliseconds(20));
    table.Send(3, Literal::CreateR0<int32_t>(30));
  });
  auto c = table.Recv(3, "recv-done 'r'", absl::Seconds(10));
  sender.join();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(*c, Literal::CreateR0<int32_t>(30));
  EXPECT_EQ(table.pending(2), 1);
}

TEST(ChannelTableTest, ReceiveWithoutSenderNamesTheChannel) {
  ChannelTable table;
  const absl::Time start = absl::Now();
  auto r = table.Recv(9, "recv-done 'in'", absl::Milliseconds(50));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(r.status().message(), HasSubstr("recv-done 'in' on channel 9"));
}

TEST(ChannelTableTest, AStoppedRunEndsTheWait) {
  ChannelTable table;
  std::atomic<bool> failed{false};
  std::thread failer([&] {
    absl::SleepFor(absl::Milliseconds(30));
    failed = true;
  });
  const absl::Time start = absl::Now();
  auto r = table.Recv(4, "recv-done 'r'", absl::Seconds(30), [&] {
    return failed ? absl::InvalidArgumentError("replica 1 failed") : absl::OkStatus();
  });
  failer.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status(), absl::InvalidArgumentError("replica 1 failed"));
  // With a callback that never stops, the deadline still holds.
  auto late = table.Recv(4, "recv-done 'r'", absl::Milliseconds(40), [] { return absl::OkStatus(); });
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
}

// A process's waits on its infeed and channels end with the run's own stop
// status as it is, or with ABORTED naming the wait when another process
// failed; a value that arrives meanwhile is taken.
TEST(ReplicaContextTest, WaitsEndAtTheRunsStopOrWhenTheRunFails) {
  auto rendezvous = std::make_shared<Rendezvous>(absl::Seconds(30));
  ReplicaContext process(2, 1, ProcessId{0, 0}, rendezvous, absl::Seconds(30));
  process.set_channels(std::make_shared<ChannelTable>());
  auto past_deadline = [] { return absl::DeadlineExceededError("the run did not finish before its deadline"); };
  EXPECT_EQ(process.Recv(4, "recv-done 'r'", past_deadline).status(),
            absl::DeadlineExceededError("recv-done 'r' on channel 4: the run did not finish before its deadline"));
  EXPECT_EQ(process.PopInfeed("infeed 'in'", past_deadline).status(),
            absl::DeadlineExceededError("infeed 'in': the run did not finish before its deadline"));

  std::thread feeder([&] {
    absl::SleepFor(absl::Milliseconds(50));
    process.infeed().Push(Literal::CreateR0<float>(7));
  });
  auto fed = process.PopInfeed("infeed 'in'", [] { return absl::OkStatus(); });
  feeder.join();
  ASSERT_TRUE(fed.ok()) << fed.status();
  EXPECT_EQ(*fed, Literal::CreateR0<float>(7));

  rendezvous->Abort(absl::InternalError("replica 1 failed"));
  const absl::Time start = absl::Now();
  auto aborted = process.Recv(4, "recv-done 'r'", nullptr);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(aborted.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(aborted.status().message(), HasSubstr("recv-done 'r' on channel 4"));
  EXPECT_THAT(aborted.status().message(), HasSubstr("replica 1 failed"));
  auto infeed = process.PopInfeed("infeed 'in'", nullptr);
  EXPECT_EQ(infeed.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(infeed.status().message(), HasSubstr("infeed 'in'"));
}

}  // namespace
}  // namespace collectives
}  // namespace xla
