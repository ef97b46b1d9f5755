// Replicated runs on every backend: replica-id/partition-id, the
// collectives with the replica-group shapes of the documents (several
// processes as threads, results by hand), infeed/outfeed, a missing
// process (an error naming the op, within the deadline) and a failing one.
#include "backends/replicated_execution.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "backends/backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/literal.h"
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

INSTANTIATE_TEST_SUITE_P(Backends, ReplicatedExecutionTest, ::testing::Values("interpreter", "cpu"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace xla
