// Replicated runs on every backend: replica-id/partition-id, the
// collectives with the replica-group shapes of the documents (several
// processes as threads, results by hand; the acceptance test runs every
// collective over every group shape on 4 replicas), infeed/outfeed,
// send/recv over a channel table shared by concurrent runs, a missing
// process (an error naming the op, within the deadline) and a failing one.
#include "backends/replicated_execution.h"

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "backends/backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/collectives/communicator.h"
#include "xla/collectives/rendezvous.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/literal.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

using ::testing::HasSubstr;

class ReplicatedExecutionTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Backend>> b = BackendRegistry::Create(GetParam());
    ASSERT_TRUE(b.ok()) << b.status();
    backend_ = std::move(*b);
  }

  std::unique_ptr<Executable> Compile(const std::string& text) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) return nullptr;
    absl::Status verified = VerifyHloModule(**module);
    EXPECT_TRUE(verified.ok()) << verified;
    absl::StatusOr<std::unique_ptr<Executable>> e = backend_->compiler()->Compile(std::move(*module), DebugOptions());
    EXPECT_TRUE(e.ok()) << e.status();
    return e.ok() ? std::move(*e) : nullptr;
  }

  // Runs `text` on every process of an r x p grid, process i with args[i].
  absl::StatusOr<std::vector<Literal>> Run(const std::string& text, int64_t replicas, int64_t partitions,
                                           std::vector<std::vector<Literal>> args,
                                           absl::Duration timeout = absl::Seconds(20)) {
    std::unique_ptr<Executable> e = Compile(text);
    if (e == nullptr) return absl::InternalError("compile failed");
    std::vector<ProcessRun> runs(replicas * partitions);
    for (size_t i = 0; i < runs.size(); ++i) {
      runs[i].executable = e.get();
      if (i < args.size()) runs[i].arguments = std::move(args[i]);
    }
    ReplicatedRunOptions options;
    options.num_replicas = replicas;
    options.num_partitions = partitions;
    options.timeout = timeout;
    ASSIGN_OR_RETURN(auto results, ExecuteReplicated(*backend_, std::move(runs), options));
    std::vector<Literal> out;
    for (ProcessResult& r : results) out.push_back(std::move(r.result));
    return out;
  }

  std::unique_ptr<Backend> backend_;
};


std::vector<std::vector<Literal>> OneArg(std::vector<Literal> per_process) {
  std::vector<std::vector<Literal>> out;
  for (Literal& l : per_process) {
    out.emplace_back();
    out.back().push_back(std::move(l));
  }
  return out;
}

constexpr char kSumF32[] = R"(
%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
)";

TEST_P(ReplicatedExecutionTest, ReplicaAndPartitionIds) {
  auto results = Run(R"(
HloModule ids
ENTRY %main () -> (u32[], u32[]) {
  %r = u32[] replica-id()
  %p = u32[] partition-id()
  ROOT %t = (u32[], u32[]) tuple(%r, %p)
})",
                     2, 3, {});
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 6);
  for (int i = 0; i < 6; ++i) {
    std::vector<Literal> parts = std::move((*results)[i]).DecomposeTuple();
    EXPECT_EQ(parts[0], Literal::CreateR0<uint32_t>(i / 3)) << i;
    EXPECT_EQ(parts[1], Literal::CreateR0<uint32_t>(i % 3)) << i;
  }
}

TEST_P(ReplicatedExecutionTest, AllReduceSumInPairsOfFourReplicas) {
  auto results = Run(absl::StrCat("HloModule ar\n", kSumF32, R"(
ENTRY %main (x: f32[3]) -> f32[3] {
  %x = f32[3] parameter(0)
  ROOT %r = f32[3] all-reduce(%x), replica_groups={{0,2},{3,1}}, to_apply=%sum
})"),
                     4, 1,
                     OneArg([] {
                       std::vector<Literal> v;
                       v.push_back(Literal::CreateR1<float>({1, 2, 3}));
                       v.push_back(Literal::CreateR1<float>({10, 20, 30}));
                       v.push_back(Literal::CreateR1<float>({100, 200, 300}));
                       v.push_back(Literal::CreateR1<float>({1000, 2000, 3000}));
                       return v;
                     }()));
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0], Literal::CreateR1<float>({101, 202, 303}));
  EXPECT_EQ((*results)[2], Literal::CreateR1<float>({101, 202, 303}));
  EXPECT_EQ((*results)[1], Literal::CreateR1<float>({1010, 2020, 3030}));
  EXPECT_EQ((*results)[3], Literal::CreateR1<float>({1010, 2020, 3030}));
}

// Float sums fold in group order: with groups {0,1,2}: (1e8 + 1) - 1e8 = 0
// in f32, while group order {1,2,0}: (1 - 1e8) + 1e8 = 0 as well but
// {0,2,1}: (1e8 - 1e8) + 1 = 1.
TEST_P(ReplicatedExecutionTest, AllReduceFoldsInGroupOrder) {
  for (auto [groups, expected] : std::vector<std::pair<std::string, float>>{{"{{0,1,2}}", 0.0f}, {"{{0,2,1}}", 1.0f}}) {
    auto results = Run(absl::StrCat("HloModule ar\n", kSumF32, R"(
ENTRY %main (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  ROOT %r = f32[] all-reduce(%x), replica_groups=)", groups, R"(, to_apply=%sum
})"),
                       3, 1,
                       OneArg([] {
                         std::vector<Literal> v;
                         v.push_back(Literal::CreateR0<float>(1e8f));
                         v.push_back(Literal::CreateR0<float>(1.0f));
                         v.push_back(Literal::CreateR0<float>(-1e8f));
                         return v;
                       }()));
    ASSERT_TRUE(results.ok()) << results.status();
    for (const Literal& r : *results) EXPECT_EQ(r, Literal::CreateR0<float>(expected)) << groups;
  }
}

TEST_P(ReplicatedExecutionTest, AllReduceMaxOverEveryReplicaAndVariadic) {
  auto results = Run(R"(
HloModule ar
%max (a: s32[], b: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %m = s32[] maximum(%a, %b)
}
ENTRY %main (x: s32[2], y: s32[]) -> (s32[2], s32[]) {
  %x = s32[2] parameter(0)
  %y = s32[] parameter(1)
  ROOT %r = (s32[2], s32[]) all-reduce(%x, %y), replica_groups={}, to_apply=%max
})",
                     3, 1, [] {
                       std::vector<std::vector<Literal>> args(3);
                       int32_t xs[3][2] = {{5, -1}, {2, 7}, {-3, 0}};
                       for (int i = 0; i < 3; ++i) {
                         args[i].push_back(Literal::CreateR1<int32_t>({xs[i][0], xs[i][1]}));
                         args[i].push_back(Literal::CreateR0<int32_t>(10 * i));
                       }
                       return args;
                     }());
  ASSERT_TRUE(results.ok()) << results.status();
  for (Literal& r : *results) {
    std::vector<Literal> parts = std::move(r).DecomposeTuple();
    EXPECT_EQ(parts[0], Literal::CreateR1<int32_t>({5, 7}));
    EXPECT_EQ(parts[1], Literal::CreateR0<int32_t>(20));
  }
}

// 2 replicas x 2 partitions. channel_id without use_global_device_ids:
// cross_replica_and_partition, the group {0,1} spans both partitions
// (partition-major: (0,0),(1,0),(0,1),(1,1)); with use_global_device_ids
// the ids are flattened (replica * 2 + partition).
TEST_P(ReplicatedExecutionTest, AllGatherGroupModes) {
  auto args = [] {
    std::vector<Literal> v;
    for (int i = 0; i < 4; ++i) v.push_back(Literal::CreateR1<int32_t>({i * 10, i * 10 + 1}));
    return OneArg(std::move(v));
  };
  auto across = Run(R"(
HloModule ag
ENTRY %main (x: s32[2]) -> s32[8] {
  %x = s32[2] parameter(0)
  ROOT %g = s32[8] all-gather(%x), replica_groups={{0,1}}, channel_id=1, dimensions={0}
})",
                    2, 2, args());
  ASSERT_TRUE(across.ok()) << across.status();
  // Processes: 0=(r0,p0), 1=(r0,p1), 2=(r1,p0), 3=(r1,p1); group order
  // (0,0),(1,0),(0,1),(1,1) = processes 0, 2, 1, 3.
  for (const Literal& r : *across) EXPECT_EQ(r, Literal::CreateR1<int32_t>({0, 1, 20, 21, 10, 11, 30, 31}));

  auto flattened = Run(R"(
HloModule ag
ENTRY %main (x: s32[2]) -> s32[2,2] {
  %x = s32[2] parameter(0)
  %r = s32[1,2] reshape(%x)
  ROOT %g = s32[2,2] all-gather(%r), replica_groups={{3,0},{1,2}}, channel_id=1, use_global_device_ids=true, dimensions={0}
})",
                       2, 2, args());
  ASSERT_TRUE(flattened.ok()) << flattened.status();
  Literal g30 = Literal::CreateR2<int32_t>({{30, 31}, {0, 1}});
  Literal g12 = Literal::CreateR2<int32_t>({{10, 11}, {20, 21}});
  EXPECT_EQ((*flattened)[0], g30);
  EXPECT_EQ((*flattened)[3], g30);
  EXPECT_EQ((*flattened)[1], g12);
  EXPECT_EQ((*flattened)[2], g12);

  // No channel: cross_replica, one set of groups per partition; gathered
  // along the minor dimension.
  auto per_partition = Run(R"(
HloModule ag
ENTRY %main (x: s32[2]) -> s32[1,4] {
  %x = s32[2] parameter(0)
  %r = s32[1,2] reshape(%x)
  ROOT %g = s32[1,4] all-gather(%r), replica_groups={{1,0}}, dimensions={1}
})",
                           2, 2, args());
  ASSERT_TRUE(per_partition.ok()) << per_partition.status();
  EXPECT_EQ((*per_partition)[0], Literal::CreateR2<int32_t>({{20, 21, 0, 1}}));
  EXPECT_EQ((*per_partition)[2], Literal::CreateR2<int32_t>({{20, 21, 0, 1}}));
  EXPECT_EQ((*per_partition)[1], Literal::CreateR2<int32_t>({{30, 31, 10, 11}}));
  EXPECT_EQ((*per_partition)[3], Literal::CreateR2<int32_t>({{30, 31, 10, 11}}));
}

TEST_P(ReplicatedExecutionTest, CollectivePermuteAndBroadcast) {
  auto args = [] {
    std::vector<Literal> v;
    for (int i = 0; i < 4; ++i) v.push_back(Literal::CreateR1<int64_t>({i + 1, -(i + 1)}));
    return OneArg(std::move(v));
  };
  auto permuted = Run(R"(
HloModule cp
ENTRY %main (x: s64[2]) -> s64[2] {
  %x = s64[2] parameter(0)
  ROOT %p = s64[2] collective-permute(%x), source_target_pairs={{0,1},{1,2},{2,0}}
})",
                      4, 1, args());
  ASSERT_TRUE(permuted.ok()) << permuted.status();
  EXPECT_EQ((*permuted)[0], Literal::CreateR1<int64_t>({3, -3}));
  EXPECT_EQ((*permuted)[1], Literal::CreateR1<int64_t>({1, -1}));
  EXPECT_EQ((*permuted)[2], Literal::CreateR1<int64_t>({2, -2}));
  EXPECT_EQ((*permuted)[3], Literal::CreateR1<int64_t>({0, 0}));  // no source

  auto broadcast = Run(R"(
HloModule cb
ENTRY %main (x: s64[2]) -> s64[2] {
  %x = s64[2] parameter(0)
  ROOT %b = s64[2] collective-broadcast(%x), replica_groups={{2,1},{3}}
})",
                       4, 1, args());
  ASSERT_TRUE(broadcast.ok()) << broadcast.status();
  EXPECT_EQ((*broadcast)[0], Literal::CreateR1<int64_t>({0, 0}));  // in no group
  EXPECT_EQ((*broadcast)[1], Literal::CreateR1<int64_t>({3, -3}));
  EXPECT_EQ((*broadcast)[2], Literal::CreateR1<int64_t>({3, -3}));
  EXPECT_EQ((*broadcast)[3], Literal::CreateR1<int64_t>({4, -4}));
}

// A collective in a loop meets once per iteration.
TEST_P(ReplicatedExecutionTest, AllReduceInALoop) {
  auto results = Run(absl::StrCat("HloModule loop\n", kSumF32, R"(
%cond (s: (s32[], f32[])) -> pred[] {
  %s = (s32[], f32[]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[])) -> (s32[], f32[]) {
  %s = (s32[], f32[]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[] get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %i1 = s32[] add(%i, %one)
  %r = f32[] all-reduce(%v), replica_groups={}, to_apply=%sum
  ROOT %t = (s32[], f32[]) tuple(%i1, %r)
}
ENTRY %main (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[]) tuple(%zero, %x)
  %w = (s32[], f32[]) while(%init), condition=%cond, body=%body
  ROOT %out = f32[] get-tuple-element(%w), index=1
})"),
                     2, 1,
                     OneArg([] {
                       std::vector<Literal> v;
                       v.push_back(Literal::CreateR0<float>(1));
                       v.push_back(Literal::CreateR0<float>(2));
                       return v;
                     }()));
  ASSERT_TRUE(results.ok()) << results.status();
  // Three iterations: 1 + 2 = 3, then 6, then 12.
  for (const Literal& r : *results) EXPECT_EQ(r, Literal::CreateR0<float>(12));
}

TEST_P(ReplicatedExecutionTest, InfeedAndOutfeedPerDevice) {
  std::unique_ptr<Executable> e = Compile(R"(
HloModule feeds
ENTRY %main (t: token[]) -> s32[2] {
  %t = token[] parameter(0)
  %in0 = (s32[2], token[]) infeed(%t)
  %in1 = (s32[2], token[]) infeed(%t)
  %v0 = s32[2] get-tuple-element(%in0), index=0
  %v1 = s32[2] get-tuple-element(%in1), index=0
  %d = s32[2] subtract(%v0, %v1)
  %t1 = token[] get-tuple-element(%in1), index=1
  %out = token[] outfeed(%d, %t1)
  ROOT %s = s32[2] add(%v0, %v1)
})");
  ASSERT_NE(e, nullptr);
  std::vector<ProcessRun> runs(2);
  for (int i = 0; i < 2; ++i) {
    runs[i].executable = e.get();
    runs[i].arguments.push_back(Literal::CreateToken());
    runs[i].infeed.push_back(Literal::CreateR1<int32_t>({10 * i + 5, 7}));
    runs[i].infeed.push_back(Literal::CreateR1<int32_t>({1, 2}));
  }
  ReplicatedRunOptions options;
  options.num_replicas = 2;
  auto results = ExecuteReplicated(*backend_, std::move(runs), options);
  ASSERT_TRUE(results.ok()) << results.status();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ((*results)[i].result, Literal::CreateR1<int32_t>({10 * i + 6, 9}));
    ASSERT_EQ((*results)[i].outfeed.size(), 1);
    EXPECT_EQ((*results)[i].outfeed[0], Literal::CreateR1<int32_t>({10 * i + 4, 5}));
  }
}

TEST_P(ReplicatedExecutionTest, EmptyInfeedIsAnErrorWithinTheDeadline) {
  auto results = Run(R"(
HloModule feeds
ENTRY %main () -> s32[2] {
  %t = token[] after-all()
  %in = (s32[2], token[]) infeed(%t)
  ROOT %v = s32[2] get-tuple-element(%in), index=0
})",
                     1, 1, {}, absl::Milliseconds(200));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(results.status().message(), HasSubstr("infeed"));
}

// Replica 1 runs a program without the all-reduce: replica 0 waits for it
// until the deadline and fails naming the op and the missing process.
TEST_P(ReplicatedExecutionTest, MissingParticipantIsAnErrorNamingTheOp) {
  std::unique_ptr<Executable> with = Compile(absl::StrCat("HloModule ar\n", kSumF32, R"(
ENTRY %main (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  ROOT %the_sum = f32[] all-reduce(%x), replica_groups={}, to_apply=%sum
})"));
  std::unique_ptr<Executable> without = Compile(R"(
HloModule other
ENTRY %main (x: f32[]) -> f32[] {
  ROOT %x = f32[] parameter(0)
})");
  ASSERT_NE(with, nullptr);
  ASSERT_NE(without, nullptr);
  std::vector<ProcessRun> runs(2);
  runs[0].executable = with.get();
  runs[1].executable = without.get();
  for (ProcessRun& r : runs) r.arguments.push_back(Literal::CreateR0<float>(1));
  ReplicatedRunOptions options;
  options.num_replicas = 2;
  options.timeout = absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  auto results = ExecuteReplicated(*backend_, std::move(runs), options);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kDeadlineExceeded) << results.status();
  EXPECT_THAT(results.status().message(), HasSubstr("all-reduce 'the_sum'"));
  EXPECT_THAT(results.status().message(), HasSubstr("missing processes [(1,0)]"));
}

// One replica's input does not fit (a process outside the run's groups):
// it fails, and the others, waiting for it, fail promptly too.
TEST_P(ReplicatedExecutionTest, FailingReplicaFailsTheRun) {
  std::unique_ptr<Executable> good = Compile(absl::StrCat("HloModule ar\n", kSumF32, R"(
ENTRY %main (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  ROOT %r = f32[] all-reduce(%x), replica_groups={{0,1,2}}, to_apply=%sum
})"));
  std::unique_ptr<Executable> bad = Compile(absl::StrCat("HloModule ar\n", kSumF32, R"(
ENTRY %main (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  ROOT %r = f32[] all-reduce(%x), replica_groups={{0,1,7}}, to_apply=%sum
})"));
  ASSERT_NE(good, nullptr);
  ASSERT_NE(bad, nullptr);
  std::vector<ProcessRun> runs(3);
  runs[0].executable = good.get();
  runs[1].executable = good.get();
  runs[2].executable = bad.get();
  for (ProcessRun& r : runs) r.arguments.push_back(Literal::CreateR0<float>(1));
  ReplicatedRunOptions options;
  options.num_replicas = 3;
  options.timeout = absl::Seconds(20);
  const absl::Time start = absl::Now();
  auto results = ExecuteReplicated(*backend_, std::move(runs), options);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument) << results.status();
  EXPECT_THAT(results.status().message(), HasSubstr("process (replica 2, partition 0)"));
  EXPECT_THAT(results.status().message(), HasSubstr("id 7"));
}

TEST_P(ReplicatedExecutionTest, TokensThroughAfterAll) {
  auto results = Run(R"(
HloModule tokens
ENTRY %main (t: token[], x: f32[2]) -> (f32[2], token[]) {
  %t = token[] parameter(0)
  %x = f32[2] parameter(1)
  %a = token[] after-all()
  %b = token[] after-all(%t, %a)
  ROOT %r = (f32[2], token[]) tuple(%x, %b)
})",
                     1, 1, [] {
                       std::vector<std::vector<Literal>> args(1);
                       args[0].push_back(Literal::CreateToken());
                       args[0].push_back(Literal::CreateR1<float>({1.5f, -2}));
                       return args;
                     }());
  ASSERT_TRUE(results.ok()) << results.status();
  std::vector<Literal> parts = std::move((*results)[0]).DecomposeTuple();
  EXPECT_EQ(parts[0], Literal::CreateR1<float>({1.5f, -2}));
  EXPECT_TRUE(parts[1].shape().IsToken());
}

// A token threaded through a while loop's state, used by an outfeed in the
// body (the CPU backend copied the state's token leaf as if it had storage).
TEST_P(ReplicatedExecutionTest, OutfeedInAWhileLoopThreadsItsToken) {
  std::unique_ptr<Executable> e = Compile(R"(
HloModule loop_outfeed
%cond (p: (s32[], token[])) -> pred[] {
  %p = (s32[], token[]) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %three = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %three), direction=LT
}
%body (p: (s32[], token[])) -> (s32[], token[]) {
  %p = (s32[], token[]) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %t = token[] get-tuple-element(%p), index=1
  %one = s32[] constant(1)
  %n = s32[] add(%i, %one)
  %sq = s32[] multiply(%n, %n)
  %out = token[] outfeed(%sq, %t)
  ROOT %r = (s32[], token[]) tuple(%n, %out)
}
ENTRY %main () -> s32[] {
  %zero = s32[] constant(0)
  %t = token[] after-all()
  %init = (s32[], token[]) tuple(%zero, %t)
  %w = (s32[], token[]) while(%init), condition=%cond, body=%body
  ROOT %i = s32[] get-tuple-element(%w), index=0
})");
  ASSERT_NE(e, nullptr);
  std::vector<ProcessRun> runs(1);
  runs[0].executable = e.get();
  auto results = ExecuteReplicated(*backend_, std::move(runs), ReplicatedRunOptions());
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0].result, Literal::CreateR0<int32_t>(3));
  ASSERT_EQ((*results)[0].outfeed.size(), 3);
  for (int k = 0; k < 3; ++k) EXPECT_EQ((*results)[0].outfeed[k], Literal::CreateR0<int32_t>((k + 1) * (k + 1)));
}

// The collectives reach the run's processes only through the Communicator
// interface: a communicator given in the options (here one that counts and
// forwards to an in-process Rendezvous, where a transport between hosts
// would send) carries every exchange.
class CountingCommunicator final : public collectives::Communicator {
 public:
  absl::StatusOr<std::vector<Blob>> Exchange(absl::string_view key, absl::Span<const collectives::ProcessId> group,
                                             collectives::ProcessId self, std::string contribution,
                                             absl::string_view label) override {
    exchanges_.fetch_add(1);
    return inner_.Exchange(key, group, self, std::move(contribution), label);
  }
  void Abort(const absl::Status& status) override { inner_.Abort(status); }
  absl::Status aborted() const override { return inner_.aborted(); }
  absl::Duration timeout() const override { return inner_.timeout(); }
  int exchanges() const { return exchanges_.load(); }

 private:
  collectives::Rendezvous inner_{absl::Seconds(20)};
  std::atomic<int> exchanges_{0};
};

TEST_P(ReplicatedExecutionTest, CollectivesGoThroughTheGivenCommunicator) {
  std::unique_ptr<Executable> e = Compile(R"(
HloModule sum_and_gather
%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (x: f32[2]) -> (f32[2], f32[4]) {
  %x = f32[2] parameter(0)
  %r = f32[2] all-reduce(%x), replica_groups={}, to_apply=%sum
  %g = f32[4] all-gather(%x), replica_groups={}, dimensions={0}
  ROOT %t = (f32[2], f32[4]) tuple(%r, %g)
})");
  ASSERT_NE(e, nullptr);
  std::vector<ProcessRun> runs(2);
  for (int r = 0; r < 2; ++r) {
    runs[r].executable = e.get();
    runs[r].arguments.push_back(Literal::CreateR1<float>({1.0f + r, 10.0f * (r + 1)}));
  }
  auto communicator = std::make_shared<CountingCommunicator>();
  ReplicatedRunOptions options;
  options.num_replicas = 2;
  options.communicator = communicator;
  absl::StatusOr<std::vector<ProcessResult>> results = ExecuteReplicated(*backend_, std::move(runs), options);
  ASSERT_TRUE(results.ok()) << results.status();
  for (const ProcessResult& r : *results) {
    EXPECT_EQ(r.result.tuple_elements()[0], Literal::CreateR1<float>({3, 30}));
    EXPECT_EQ(r.result.tuple_elements()[1], Literal::CreateR1<float>({1, 10, 2, 20}));
  }
  EXPECT_EQ(communicator->exchanges(), 4);  // two collectives, two processes
}

// --- Acceptance: 4 replicas, every replica-group shape of the documents ---

// Process r's operand: s32[4] {10r, 10r+1, 10r+2, 10r+3}.
std::vector<std::vector<Literal>> FourRows(int n = 4) {
  std::vector<Literal> v;
  for (int r = 0; r < n; ++r) v.push_back(Literal::CreateR1<int32_t>({10 * r, 10 * r + 1, 10 * r + 2, 10 * r + 3}));
  return OneArg(std::move(v));
}

constexpr char kSumS32[] = R"(
%sum (a: s32[], b: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %s = s32[] add(%a, %b)
}
)";

TEST_P(ReplicatedExecutionTest, AcceptanceEveryGroupShapeOnFourReplicas) {
  // {} is one group of every replica, in id order.
  const std::vector<std::string> shapes = {"{{0,1,2,3}}", "{{0,1},{2,3}}", "{{0,2},{1,3}}", "{}"};
  struct OpCase {
    std::string name;
    std::string instruction;  // $G: the groups; %x is s32[4]
    std::vector<std::string> result_shapes;  // per group shape
    std::vector<std::vector<std::vector<int32_t>>> expected;  // [group shape][replica]
  };
  const std::vector<int32_t> all_sum = {60, 64, 68, 72};
  const std::vector<OpCase> ops = {
      {"all-reduce", "all-reduce(%x), replica_groups=$G, to_apply=%sum",
       {"s32[4]", "s32[4]", "s32[4]", "s32[4]"},
       {{all_sum, all_sum, all_sum, all_sum},
        {{10, 12, 14, 16}, {10, 12, 14, 16}, {50, 52, 54, 56}, {50, 52, 54, 56}},
        {{20, 22, 24, 26}, {40, 42, 44, 46}, {20, 22, 24, 26}, {40, 42, 44, 46}},
        {all_sum, all_sum, all_sum, all_sum}}},
      {"all-gather", "all-gather(%x), replica_groups=$G, dimensions={0}",
       {"s32[16]", "s32[8]", "s32[8]", "s32[16]"},
       {{{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33}},
        {{0, 1, 2, 3, 10, 11, 12, 13}, {0, 1, 2, 3, 10, 11, 12, 13}, {20, 21, 22, 23, 30, 31, 32, 33},
         {20, 21, 22, 23, 30, 31, 32, 33}},
        {{0, 1, 2, 3, 20, 21, 22, 23}, {10, 11, 12, 13, 30, 31, 32, 33}, {0, 1, 2, 3, 20, 21, 22, 23},
         {10, 11, 12, 13, 30, 31, 32, 33}},
        {{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33}}}},
      // Part j of each sender goes to member j; received parts in group order.
      {"all-to-all", "all-to-all(%x), replica_groups=$G, dimensions={0}",
       {"s32[4]", "s32[4]", "s32[4]", "s32[4]"},
       {{{0, 10, 20, 30}, {1, 11, 21, 31}, {2, 12, 22, 32}, {3, 13, 23, 33}},
        {{0, 1, 10, 11}, {2, 3, 12, 13}, {20, 21, 30, 31}, {22, 23, 32, 33}},
        {{0, 1, 20, 21}, {10, 11, 30, 31}, {2, 3, 22, 23}, {12, 13, 32, 33}},
        {{0, 10, 20, 30}, {1, 11, 21, 31}, {2, 12, 22, 32}, {3, 13, 23, 33}}}},
      // The group's sum, member i keeps part i.
      {"reduce-scatter", "reduce-scatter(%x), replica_groups=$G, dimensions={0}, to_apply=%sum",
       {"s32[1]", "s32[2]", "s32[2]", "s32[1]"},
       {{{60}, {64}, {68}, {72}},
        {{10, 12}, {14, 16}, {50, 52}, {54, 56}},
        {{20, 22}, {40, 42}, {24, 26}, {44, 46}},
        {{60}, {64}, {68}, {72}}}},
  };
  for (const OpCase& op : ops) {
    for (size_t g = 0; g < shapes.size(); ++g) {
      std::string instruction = op.instruction;
      instruction.replace(instruction.find("$G"), 2, shapes[g]);
      const std::string text = absl::StrCat("HloModule m\n", kSumS32, "ENTRY %main (x: s32[4]) -> ",
                                            op.result_shapes[g], " {\n  %x = s32[4] parameter(0)\n  ROOT %r = ",
                                            op.result_shapes[g], " ", instruction, "\n}\n");
      auto results = Run(text, 4, 1, FourRows());
      ASSERT_TRUE(results.ok()) << op.name << " " << shapes[g] << ": " << results.status();
      for (int r = 0; r < 4; ++r) {
        const std::vector<int32_t>& want = op.expected[g].size() == 1 ? op.expected[g][0] : op.expected[g][r];
        EXPECT_EQ((*results)[r], Literal::CreateR1<int32_t>(want)) << op.name << " " << shapes[g] << " replica " << r;
      }
    }
  }
  // collective-permute: a ring, swaps in pairs, and a pair whose replicas 1
  // and 3 no pair targets (zeros).
  const std::vector<std::pair<std::string, std::vector<std::vector<int32_t>>>> permutes = {
      {"{{0,1},{1,2},{2,3},{3,0}}", {{30, 31, 32, 33}, {0, 1, 2, 3}, {10, 11, 12, 13}, {20, 21, 22, 23}}},
      {"{{0,1},{1,0},{2,3},{3,2}}", {{10, 11, 12, 13}, {0, 1, 2, 3}, {30, 31, 32, 33}, {20, 21, 22, 23}}},
      {"{{0,2},{2,0}}", {{20, 21, 22, 23}, {0, 0, 0, 0}, {0, 1, 2, 3}, {0, 0, 0, 0}}},
  };
  for (const auto& [pairs, expected] : permutes) {
    auto results = Run(absl::StrCat("HloModule m\nENTRY %main (x: s32[4]) -> s32[4] {\n  %x = s32[4] parameter(0)\n"
                                    "  ROOT %r = s32[4] collective-permute(%x), source_target_pairs=",
                                    pairs, "\n}\n"),
                       4, 1, FourRows());
    ASSERT_TRUE(results.ok()) << pairs << ": " << results.status();
    for (int r = 0; r < 4; ++r) EXPECT_EQ((*results)[r], Literal::CreateR1<int32_t>(expected[r])) << pairs << " " << r;
  }
}

// The partition forms on 2 replicas x 2 partitions (processes 0=(r0,p0),
// 1=(r0,p1), 2=(r1,p0), 3=(r1,p1), process i's operand row i).
TEST_P(ReplicatedExecutionTest, AcceptancePartitionForms) {
  auto run = [&](const std::string& result, const std::string& instruction) {
    return Run(absl::StrCat("HloModule m\n", kSumS32, "ENTRY %main (x: s32[4]) -> ", result,
                            " {\n  %x = s32[4] parameter(0)\n  ROOT %r = ", result, " ", instruction, "\n}\n"),
               2, 2, FourRows());
  };
  auto check = [](const absl::StatusOr<std::vector<Literal>>& results,
                  const std::vector<std::vector<int32_t>>& expected, const std::string& what) {
    ASSERT_TRUE(results.ok()) << what << ": " << results.status();
    for (int i = 0; i < 4; ++i) EXPECT_EQ((*results)[i], Literal::CreateR1<int32_t>(expected[i])) << what << " " << i;
  };
  // cross_replica_and_partition: {0,1} spans both partitions, group order
  // (0,0),(1,0),(0,1),(1,1) = processes 0, 2, 1, 3; the sum is all_sum.
  check(run("s32[1]", "reduce-scatter(%x), replica_groups={{0,1}}, channel_id=1, dimensions={0}, to_apply=%sum"),
        {{60}, {68}, {64}, {72}}, "reduce-scatter cross_replica_and_partition");
  // flattened_ids: {3,0} and {1,2}, member order as written.
  check(run("s32[2]", "reduce-scatter(%x), replica_groups={{3,0},{1,2}}, channel_id=1, use_global_device_ids=true, "
                      "dimensions={0}, to_apply=%sum"),
        {{34, 36}, {30, 32}, {34, 36}, {30, 32}}, "reduce-scatter flattened_ids");
  // No channel: cross_replica, a group per partition: {1,0} = processes
  // (2, 0) for partition 0 and (3, 1) for partition 1.
  check(run("s32[2]", "reduce-scatter(%x), replica_groups={{1,0}}, dimensions={0}, to_apply=%sum"),
        {{24, 26}, {44, 46}, {20, 22}, {40, 42}}, "reduce-scatter cross_replica");
  // all-to-all with a channel: cross_partition, {1,0} within each replica:
  // processes (1, 0) and (3, 2).
  check(run("s32[4]", "all-to-all(%x), replica_groups={{1,0}}, channel_id=1, dimensions={0}"),
        {{12, 13, 2, 3}, {10, 11, 0, 1}, {32, 33, 22, 23}, {30, 31, 20, 21}}, "all-to-all cross_partition");
  check(run("s32[4]", "all-to-all(%x), replica_groups={{1,0}}, dimensions={0}"),
        {{22, 23, 2, 3}, {32, 33, 12, 13}, {20, 21, 0, 1}, {30, 31, 10, 11}}, "all-to-all cross_replica");
}

// The StableHLO specification's reduce_scatter example, and XLA's tuple
// all-to-all (operand j goes to member j).
TEST_P(ReplicatedExecutionTest, ReduceScatterSpecExampleAndTupleAllToAll) {
  auto rs = Run(absl::StrCat("HloModule rs\n", kSumF32, R"(
ENTRY %main (x: f32[2,4]) -> f32[2,2] {
  %x = f32[2,4] parameter(0)
  ROOT %r = f32[2,2] reduce-scatter(%x), replica_groups={{0,1}}, dimensions={1}, to_apply=%sum
})"),
                2, 1, OneArg([] {
                  std::vector<Literal> v;
                  v.push_back(Literal::CreateR2<float>({{1, 2, 3, 4}, {5, 6, 7, 8}}));
                  v.push_back(Literal::CreateR2<float>({{9, 10, 11, 12}, {13, 14, 15, 16}}));
                  return v;
                }()));
  ASSERT_TRUE(rs.ok()) << rs.status();
  EXPECT_EQ((*rs)[0], Literal::CreateR2<float>({{10, 12}, {18, 20}}));
  EXPECT_EQ((*rs)[1], Literal::CreateR2<float>({{14, 16}, {22, 24}}));

  auto tuple = Run(R"(
HloModule a2a
ENTRY %main (a: s32[2], b: s32[2]) -> (s32[2], s32[2]) {
  %a = s32[2] parameter(0)
  %b = s32[2] parameter(1)
  ROOT %r = (s32[2], s32[2]) all-to-all(%a, %b), replica_groups={{0,1}}
})",
                   2, 1, [] {
                     std::vector<std::vector<Literal>> args(2);
                     for (int r = 0; r < 2; ++r) {
                       args[r].push_back(Literal::CreateR1<int32_t>({r, r}));
                       args[r].push_back(Literal::CreateR1<int32_t>({10 + r, 10 + r}));
                     }
                     return args;
                   }());
  ASSERT_TRUE(tuple.ok()) << tuple.status();
  std::vector<Literal> r0 = std::move((*tuple)[0]).DecomposeTuple();
  std::vector<Literal> r1 = std::move((*tuple)[1]).DecomposeTuple();
  EXPECT_EQ(r0[0], Literal::CreateR1<int32_t>({0, 0}));
  EXPECT_EQ(r0[1], Literal::CreateR1<int32_t>({1, 1}));
  EXPECT_EQ(r1[0], Literal::CreateR1<int32_t>({10, 10}));
  EXPECT_EQ(r1[1], Literal::CreateR1<int32_t>({11, 11}));
}

// A group size that does not divide the split dimension fails on every
// replica with a clear error (no crash, no hang).
TEST_P(ReplicatedExecutionTest, AllToAllSplitNotDivisibleByGroupSize) {
  auto results = Run(R"(
HloModule a2a
ENTRY %main (x: s32[4]) -> s32[4] {
  %x = s32[4] parameter(0)
  ROOT %r = s32[4] all-to-all(%x), replica_groups={}, dimensions={0}
})",
                     3, 1, FourRows(3));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument) << results.status();
  EXPECT_THAT(results.status().message(), HasSubstr("cannot be split along dimension 0 into 3 parts"));
}

// One replica gets an argument of the wrong shape: it is rejected when
// that replica starts, and every other replica, waiting in the all-reduce,
// gets the error at once (ABORTED quoting it), well within the timeout.
TEST_P(ReplicatedExecutionTest, BadInputOnOneReplicaFailsEveryReplicaWithinTheDeadline) {
  std::unique_ptr<Executable> e = Compile(absl::StrCat("HloModule ar\n", kSumF32, R"(
ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  ROOT %r = f32[4] all-reduce(%x), replica_groups={}, to_apply=%sum
})"));
  ASSERT_NE(e, nullptr);
  std::vector<ProcessRun> runs(4);
  for (int r = 0; r < 4; ++r) {
    runs[r].executable = e.get();
    runs[r].arguments.push_back(r == 2 ? Literal::CreateR1<float>({1, 2, 3}) : Literal::CreateR1<float>({1, 2, 3, 4}));
  }
  ReplicatedRunOptions options;
  options.num_replicas = 4;
  options.timeout = absl::Seconds(5);
  const absl::Time start = absl::Now();
  auto each = ExecuteReplicatedEach(*backend_, std::move(runs), options);
  const absl::Duration elapsed = absl::Now() - start;
  ASSERT_TRUE(each.ok()) << each.status();
  EXPECT_LT(elapsed, options.timeout);
  ASSERT_EQ(each->size(), 4);
  for (int r = 0; r < 4; ++r) {
    const auto& outcome = (*each)[r];
    ASSERT_FALSE(outcome.ok()) << "replica " << r;
    EXPECT_THAT(outcome.status().message(), HasSubstr("f32[3]")) << r;
    EXPECT_THAT(outcome.status().message(), HasSubstr("process (replica 2, partition 0)")) << r;
    EXPECT_EQ(outcome.status().code(), r == 2 ? absl::StatusCode::kInvalidArgument : absl::StatusCode::kAborted) << r;
  }
}

// Collectives between elementwise ops of their shape, one unused: the CPU
// backend emits them as runtime calls, never inside a row loop of their
// neighbours.
TEST_P(ReplicatedExecutionTest, CollectivesAmongSameShapeElementwiseOps) {
  auto results = Run(absl::StrCat("HloModule m\n", kSumS32, R"(
ENTRY %main (x: s32[4]) -> s32[4] {
  %x = s32[4] parameter(0)
  %y = s32[4] add(%x, %x)
  %unused = s32[4] all-to-all(%y), replica_groups={}, dimensions={0}
  %a = s32[4] all-to-all(%y), replica_groups={}, dimensions={0}
  %n = s32[4] negate(%a)
  %s = s32[4] all-reduce(%n), replica_groups={}, to_apply=%sum
  ROOT %m = s32[4] multiply(%s, %y)
})"),
                     2, 1, FourRows(2));
  ASSERT_TRUE(results.ok()) << results.status();
  // y_r = 2 x_r; a_0 = [0, 2, 20, 22], a_1 = [4, 6, 24, 26]; s = -[4, 8, 44, 48].
  EXPECT_EQ((*results)[0], Literal::CreateR1<int32_t>({0, -16, -176, -288}));
  EXPECT_EQ((*results)[1], Literal::CreateR1<int32_t>({-80, -176, -1056, -1248}));
}

// --- Send / Recv over a shared channel table ---

constexpr char kSender[] = R"(
HloModule sender
ENTRY %main (x: f32[3]) -> f32[3] {
  %x = f32[3] parameter(0)
  %t = token[] after-all()
  %s = (f32[3], u32[], token[]) send(%x, %t), channel_id=7
  %d = token[] send-done(%s), channel_id=7
  ROOT %y = f32[3] negate(%x)
})";

constexpr char kReceiver[] = R"(
HloModule receiver
ENTRY %main () -> f32[3] {
  %t = token[] after-all()
  %r = (f32[3], u32[], token[]) recv(%t), channel_id=7
  %d = (f32[3], token[]) recv-done(%r), channel_id=7
  %v = f32[3] get-tuple-element(%d), index=0
  %two = f32[] constant(2)
  %twos = f32[3] broadcast(%two), dimensions={}
  ROOT %m = f32[3] multiply(%v, %twos)
})";

// Two executables in two threads, each its own run, share one table.
TEST_P(ReplicatedExecutionTest, SendRecvBetweenConcurrentExecutables) {
  std::unique_ptr<Executable> sender = Compile(kSender);
  std::unique_ptr<Executable> receiver = Compile(kReceiver);
  ASSERT_NE(sender, nullptr);
  ASSERT_NE(receiver, nullptr);
  auto table = std::make_shared<collectives::ChannelTable>();
  ReplicatedRunOptions options;
  options.channels = table;
  options.timeout = absl::Seconds(20);
  absl::StatusOr<std::vector<ProcessResult>> received, sent;
  // The receiver starts first and waits for the value.
  std::thread recv_thread([&] {
    std::vector<ProcessRun> runs(1);
    runs[0].executable = receiver.get();
    received = ExecuteReplicated(*backend_, std::move(runs), options);
  });
  std::thread send_thread([&] {
    absl::SleepFor(absl::Milliseconds(50));
    std::vector<ProcessRun> runs(1);
    runs[0].executable = sender.get();
    runs[0].arguments.push_back(Literal::CreateR1<float>({1.5f, -2, 4}));
    sent = ExecuteReplicated(*backend_, std::move(runs), options);
  });
  recv_thread.join();
  send_thread.join();
  ASSERT_TRUE(sent.ok()) << sent.status();
  ASSERT_TRUE(received.ok()) << received.status();
  EXPECT_EQ((*sent)[0].result, Literal::CreateR1<float>({-1.5f, 2, -4}));
  EXPECT_EQ((*received)[0].result, Literal::CreateR1<float>({3, -4, 8}));
  EXPECT_EQ(table->pending(7), 0);
}

TEST_P(ReplicatedExecutionTest, RecvWithoutSenderIsADeadlineNamingTheChannel) {
  std::unique_ptr<Executable> receiver = Compile(kReceiver);
  ASSERT_NE(receiver, nullptr);
  std::vector<ProcessRun> runs(1);
  runs[0].executable = receiver.get();
  ReplicatedRunOptions options;
  options.timeout = absl::Milliseconds(200);
  const absl::Time start = absl::Now();
  auto results = ExecuteReplicated(*backend_, std::move(runs), options);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), absl::StatusCode::kDeadlineExceeded) << results.status();
  EXPECT_THAT(results.status().message(), HasSubstr("recv-done 'd' on channel 7"));
}

// Within one replicated run: replica 0 sends, replica 1 receives; a tuple
// value, sent twice in FIFO order.
TEST_P(ReplicatedExecutionTest, ReplicaZeroSendsReplicaOneReceives) {
  std::unique_ptr<Executable> sender = Compile(R"(
HloModule sender
ENTRY %main (x: s32[2], y: u8[]) -> s32[2] {
  %x = s32[2] parameter(0)
  %y = u8[] parameter(1)
  %v = (s32[2], u8[]) tuple(%x, %y)
  %t = token[] after-all()
  %s = ((s32[2], u8[]), u32[], token[]) send(%v, %t), channel_id=3
  %d = token[] send-done(%s), channel_id=3
  %x2 = s32[2] add(%x, %x)
  %v2 = (s32[2], u8[]) tuple(%x2, %y)
  %s2 = ((s32[2], u8[]), u32[], token[]) send(%v2, %d), channel_id=3
  %d2 = token[] send-done(%s2), channel_id=3
  ROOT %r = s32[2] copy(%x)
})");
  std::unique_ptr<Executable> receiver = Compile(R"(
HloModule receiver
ENTRY %main () -> (s32[2], s32[2], u8[]) {
  %t = token[] after-all()
  %r = ((s32[2], u8[]), u32[], token[]) recv(%t), channel_id=3
  %d = ((s32[2], u8[]), token[]) recv-done(%r), channel_id=3
  %t1 = token[] get-tuple-element(%d), index=1
  %r2 = ((s32[2], u8[]), u32[], token[]) recv(%t1), channel_id=3
  %d2 = ((s32[2], u8[]), token[]) recv-done(%r2), channel_id=3
  %v = (s32[2], u8[]) get-tuple-element(%d), index=0
  %v2 = (s32[2], u8[]) get-tuple-element(%d2), index=0
  %a = s32[2] get-tuple-element(%v), index=0
  %b = s32[2] get-tuple-element(%v2), index=0
  %c = u8[] get-tuple-element(%v), index=1
  ROOT %out = (s32[2], s32[2], u8[]) tuple(%a, %b, %c)
})");
  ASSERT_NE(sender, nullptr);
  ASSERT_NE(receiver, nullptr);
  std::vector<ProcessRun> runs(2);
  runs[0].executable = sender.get();
  runs[1].executable = receiver.get();
  runs[0].arguments.push_back(Literal::CreateR1<int32_t>({5, -6}));
  runs[0].arguments.push_back(Literal::CreateR0<uint8_t>(9));
  ReplicatedRunOptions options;
  options.num_replicas = 2;
  auto results = ExecuteReplicated(*backend_, std::move(runs), options);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0].result, Literal::CreateR1<int32_t>({5, -6}));
  std::vector<Literal> got = std::move((*results)[1].result).DecomposeTuple();
  EXPECT_EQ(got[0], Literal::CreateR1<int32_t>({5, -6}));
  EXPECT_EQ(got[1], Literal::CreateR1<int32_t>({10, -12}));
  EXPECT_EQ(got[2], Literal::CreateR0<uint8_t>(9));
}

// The sender fails before sending (its argument has the wrong shape): the
// receiver, waiting on the channel, stops at once with the sender's error
// instead of waiting out the timeout.
TEST_P(ReplicatedExecutionTest, ReceiverStopsWhenTheSenderFails) {
  std::unique_ptr<Executable> sender = Compile(kSender);
  std::unique_ptr<Executable> receiver = Compile(kReceiver);
  ASSERT_NE(sender, nullptr);
  ASSERT_NE(receiver, nullptr);
  std::vector<ProcessRun> runs(2);
  runs[0].executable = sender.get();
  runs[0].arguments.push_back(Literal::CreateR1<float>({1, 2}));  // f32[3] expected
  runs[1].executable = receiver.get();
  ReplicatedRunOptions options;
  options.num_replicas = 2;
  options.timeout = absl::Seconds(20);
  const absl::Time start = absl::Now();
  auto each = ExecuteReplicatedEach(*backend_, std::move(runs), options);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  ASSERT_TRUE(each.ok()) << each.status();
  ASSERT_FALSE((*each)[0].ok());
  EXPECT_EQ((*each)[0].status().code(), absl::StatusCode::kInvalidArgument) << (*each)[0].status();
  ASSERT_FALSE((*each)[1].ok());
  EXPECT_EQ((*each)[1].status().code(), absl::StatusCode::kAborted) << (*each)[1].status();
  EXPECT_THAT((*each)[1].status().message(), HasSubstr("recv-done 'd' on channel 7"));
  EXPECT_THAT((*each)[1].status().message(), HasSubstr("f32[2]"));
}

// The host side of SendToHost / RecvFromHost is the table itself.
TEST_P(ReplicatedExecutionTest, HostTransfersThroughTheTable) {
  std::unique_ptr<Executable> e = Compile(R"(
HloModule host
ENTRY %main () -> f32[2] {
  %t = token[] after-all()
  %r = (f32[2], u32[], token[]) recv(%t), channel_id=4, is_host_transfer=true
  %d = (f32[2], token[]) recv-done(%r), channel_id=4, is_host_transfer=true
  %v = f32[2] get-tuple-element(%d), index=0
  %w = f32[2] add(%v, %v)
  %t1 = token[] get-tuple-element(%d), index=1
  %s = (f32[2], u32[], token[]) send(%w, %t1), channel_id=5, is_host_transfer=true
  %sd = token[] send-done(%s), channel_id=5, is_host_transfer=true
  ROOT %c = f32[2] copy(%v)
})");
  ASSERT_NE(e, nullptr);
  auto table = std::make_shared<collectives::ChannelTable>();
  table->Send(4, Literal::CreateR1<float>({0.25f, 3}));
  std::vector<ProcessRun> runs(1);
  runs[0].executable = e.get();
  ReplicatedRunOptions options;
  options.channels = table;
  auto results = ExecuteReplicated(*backend_, std::move(runs), options);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0].result, Literal::CreateR1<float>({0.25f, 3}));
  auto back = table->Recv(5, "host", absl::Seconds(1));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, Literal::CreateR1<float>({0.5f, 6}));
}

// CPU against the evaluator on random inputs: all-to-all (array form along
// a middle dimension, with neighbours that fuse), reduce-scatter (float
// sums fold in group order on both, so the results are bit-identical) and
// the tuple all-to-all, on 4 replicas in pairs and all together.
TEST(ReplicatedDifferentialTest, CpuMatchesTheEvaluatorOnRandomInputs) {
  const std::string text = absl::StrCat("HloModule m\n", kSumF32, R"(
ENTRY %main (x: f32[3,8,5], y: f32[4]) -> (f32[3,8,5], f32[3,4,5], f32[3,2,5], f32[4], f32[4], f32[1]) {
  %x = f32[3,8,5] parameter(0)
  %y = f32[4] parameter(1)
  %e = f32[3,8,5] multiply(%x, %x)
  %a = f32[3,8,5] all-to-all(%e), replica_groups={{3,1,0,2}}, dimensions={1}
  %b = f32[3,8,5] multiply(%a, %x)
  %r2 = f32[3,4,5] reduce-scatter(%b), replica_groups={{0,2},{1,3}}, dimensions={1}, to_apply=%sum
  %r4 = f32[3,2,5] reduce-scatter(%x), replica_groups={}, dimensions={1}, to_apply=%sum
  %t = (f32[4], f32[4]) all-to-all(%y, %e2), replica_groups={{1,0},{3,2}}
  %e2 = f32[4] negate(%y)
  %t0 = f32[4] get-tuple-element(%t), index=0
  %t1 = f32[4] get-tuple-element(%t), index=1
  %rs1 = f32[1] reduce-scatter(%y), replica_groups={}, dimensions={0}, to_apply=%sum
  ROOT %out = (f32[3,8,5], f32[3,4,5], f32[3,2,5], f32[4], f32[4], f32[1]) tuple(%b, %r2, %r4, %t0, %t1, %rs1)
})");
  std::mt19937 rng(20261125);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  auto random = [&](std::vector<int64_t> dims) {
    Literal l(ShapeUtil::MakeShape(F32, dims));
    for (float& v : l.data<float>()) v = normal(rng);
    return l;
  };
  std::vector<std::vector<Literal>> args(4);
  for (auto& a : args) {
    a.push_back(random({3, 8, 5}));
    a.push_back(random({4}));
  }
  std::vector<std::vector<Literal>> outputs;
  for (const std::string name : {"interpreter", "cpu"}) {
    auto backend = BackendRegistry::Create(name);
    ASSERT_TRUE(backend.ok()) << backend.status();
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    auto e = (*backend)->compiler()->Compile(std::move(*module), DebugOptions());
    ASSERT_TRUE(e.ok()) << e.status();
    std::vector<ProcessRun> runs(4);
    for (int r = 0; r < 4; ++r) {
      runs[r].executable = e->get();
      runs[r].arguments = args[r];
    }
    ReplicatedRunOptions options;
    options.num_replicas = 4;
    auto results = ExecuteReplicated(**backend, std::move(runs), options);
    ASSERT_TRUE(results.ok()) << name << ": " << results.status();
    std::vector<Literal> out;
    for (ProcessResult& p : *results) out.push_back(std::move(p.result));
    outputs.push_back(std::move(out));
  }
  for (int r = 0; r < 4; ++r) {
    std::vector<Literal> want = std::move(outputs[0][r]).DecomposeTuple();
    std::vector<Literal> got = std::move(outputs[1][r]).DecomposeTuple();
    ASSERT_EQ(want.size(), got.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i], want[i]) << "replica " << r << " result " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ReplicatedExecutionTest, ::testing::Values("interpreter", "cpu"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace xla
