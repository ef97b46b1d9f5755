#include "service/cluster/context_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/time/clock.h"

namespace xla {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

ContextRegistry::Options ClusterOf(int size, int max_per_set = 8) {
  ContextRegistry::Options options;
  options.cluster_size = size;
  options.max_contexts_per_set = max_per_set;
  return options;
}

// Every host of `hosts` claims `group` of `run`; all must get one id.
int64_t ClaimAll(ContextRegistry& registry, const std::string& run, const std::string& group,
                 const std::vector<int>& hosts) {
  int64_t id = -1;
  for (int rank : hosts) {
    absl::StatusOr<ContextRegistry::Claim> claim = registry.ClaimContext(rank, run, group, hosts);
    EXPECT_TRUE(claim.ok()) << claim.status();
    if (!claim.ok()) return -1;
    if (id == -1) id = claim->context_id;
    EXPECT_EQ(claim->context_id, id) << "rank " << rank << " got another context than rank " << hosts[0];
  }
  return id;
}

void ReleaseAll(ContextRegistry& registry, const std::string& run, const std::vector<int>& hosts, int64_t id,
                bool ok = true) {
  for (int rank : hosts) registry.Release(rank, run, {id}, ok);
}

TEST(ContextRegistryTest, ARunAfterAnotherReusesItsContext) {
  ContextRegistry registry(ClusterOf(3));
  const std::vector<int> hosts = {0, 1, 2};
  const int64_t first = ClaimAll(registry, "run1", "g", hosts);
  ASSERT_GT(first, 0);
  EXPECT_EQ(registry.contexts_in_use(), 1);
  ReleaseAll(registry, "run1", hosts, first);
  EXPECT_EQ(registry.contexts_in_use(), 0);
  EXPECT_EQ(ClaimAll(registry, "run2", "g", hosts), first);
  absl::StatusOr<ContextRegistry::Claim> again = registry.ClaimContext(0, "run3", "g", hosts);
  ASSERT_TRUE(again.ok());
  // run2 holds the first one still: run3 gets a second.
  EXPECT_NE(again->context_id, first);
  EXPECT_EQ(again->live_ids.size(), 2u);
  EXPECT_EQ(registry.live_contexts(), 2);
}

TEST(ContextRegistryTest, ContextIsFreeOnlyWhenEveryHostReleased) {
  ContextRegistry registry(ClusterOf(2));
  const int64_t id = ClaimAll(registry, "a", "g", {0, 1});
  registry.Release(0, "a", {id}, true);
  EXPECT_EQ(registry.contexts_in_use(), 1);
  // A host not of the set, or another run, cannot release it.
  registry.Release(1, "other", {id}, true);
  EXPECT_EQ(registry.contexts_in_use(), 1);
  registry.Release(1, "a", {id}, true);
  EXPECT_EQ(registry.contexts_in_use(), 0);
}

TEST(ContextRegistryTest, GroupsOfOneRunAndSetsOfHostsGetTheirOwnContexts) {
  ContextRegistry registry(ClusterOf(3));
  const int64_t g1 = ClaimAll(registry, "r", "g1", {0, 1});
  const int64_t g2 = ClaimAll(registry, "r", "g2", {0, 1});
  const int64_t g3 = ClaimAll(registry, "r", "g3", {1, 2});
  EXPECT_NE(g1, g2);
  EXPECT_NE(g1, g3);
  EXPECT_NE(g2, g3);
  absl::StatusOr<ContextRegistry::Claim> claim = registry.ClaimContext(2, "s", "g", {1, 2});
  ASSERT_TRUE(claim.ok());
  EXPECT_EQ(claim->live_ids.size(), 2u);  // g3's and this one: only the set {1, 2}
}

TEST(ContextRegistryTest, AFailedReleaseRetiresTheContext) {
  ContextRegistry registry(ClusterOf(2));
  const int64_t id = ClaimAll(registry, "a", "g", {0, 1});
  registry.Release(0, "a", {id}, true);
  registry.Release(1, "a", {id}, false);
  EXPECT_EQ(registry.live_contexts(), 0);
  absl::StatusOr<ContextRegistry::Claim> next = registry.ClaimContext(0, "b", "g", {0, 1});
  ASSERT_TRUE(next.ok());
  EXPECT_NE(next->context_id, id);
  EXPECT_THAT(next->live_ids, ElementsAre(next->context_id));
}

TEST(ContextRegistryTest, AbortRetiresTheRunsContextsAndRefusesItsLaterClaims) {
  ContextRegistry registry(ClusterOf(3));
  const int64_t id = ClaimAll(registry, "a", "g", {0, 1});
  const int64_t other = ClaimAll(registry, "b", "g", {0, 1});
  EXPECT_THAT(registry.AbortRun("a"), ElementsAre(id));
  EXPECT_EQ(registry.live_contexts(), 1);  // run b's
  // A host that had not claimed yet, an already claimed group, a new group.
  EXPECT_EQ(registry.ClaimContext(2, "a", "h", {1, 2}).status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(registry.ClaimContext(0, "a", "g", {0, 1}).status().code(), absl::StatusCode::kAborted);
  // An abort before any claim refuses the run's claims too.
  EXPECT_THAT(registry.AbortRun("c"), IsEmpty());
  EXPECT_EQ(registry.ClaimContext(0, "c", "g", {0, 1}).status().code(), absl::StatusCode::kAborted);
  ReleaseAll(registry, "b", {0, 1}, other);
  EXPECT_EQ(registry.contexts_in_use(), 0);
}

TEST(ContextRegistryTest, AClaimOfARetiredGroupContextIsRefused) {
  ContextRegistry registry(ClusterOf(2));
  ASSERT_TRUE(registry.ClaimContext(0, "a", "g", {0, 1}).ok());
  registry.RetireHost(0);  // rank 0 lost before rank 1 claimed
  EXPECT_EQ(registry.ClaimContext(1, "a", "g", {0, 1}).status().code(), absl::StatusCode::kAborted);
}

TEST(ContextRegistryTest, ALostHostRetiresEverySetWithIt) {
  ContextRegistry registry(ClusterOf(3));
  const int64_t a = ClaimAll(registry, "r", "a", {0, 1});
  const int64_t b = ClaimAll(registry, "r", "b", {1, 2});
  const int64_t c = ClaimAll(registry, "r", "c", {0, 2});
  ReleaseAll(registry, "r", {0, 1}, a);
  ReleaseAll(registry, "r", {1, 2}, b);
  ReleaseAll(registry, "r", {0, 2}, c);
  registry.RetireHost(1);
  EXPECT_EQ(registry.live_contexts(), 1);
  EXPECT_EQ(ClaimAll(registry, "s", "c", {0, 2}), c);
  EXPECT_NE(ClaimAll(registry, "s", "a", {0, 1}), a);
}

TEST(ContextRegistryTest, ASetAtItsBoundGetsIdZeroOnEveryHost) {
  ContextRegistry registry(ClusterOf(2, /*max_per_set=*/2));
  EXPECT_GT(ClaimAll(registry, "r1", "g", {0, 1}), 0);
  EXPECT_GT(ClaimAll(registry, "r2", "g", {0, 1}), 0);
  EXPECT_EQ(ClaimAll(registry, "r3", "g", {0, 1}), 0);
  EXPECT_EQ(registry.live_contexts(), 2);
}

TEST(ContextRegistryTest, AContextNeverReleasedIsRetiredAfterTheRunTtl) {
  ContextRegistry::Options options = ClusterOf(2);
  options.run_ttl = absl::Milliseconds(20);
  ContextRegistry registry(options);
  const int64_t stuck = ClaimAll(registry, "a", "g", {0, 1});
  registry.Release(0, "a", {stuck}, true);  // rank 1 never releases it
  absl::SleepFor(absl::Milliseconds(40));
  const int64_t next = ClaimAll(registry, "b", "g", {0, 1});
  EXPECT_NE(next, stuck);
  EXPECT_EQ(registry.live_contexts(), 1);
}

TEST(ContextRegistryTest, BadClaimsAreRefused) {
  ContextRegistry registry(ClusterOf(3));
  const auto code = [&](int rank, const std::string& run, const std::string& group, std::vector<int> hosts) {
    return registry.ClaimContext(rank, run, group, hosts).status().code();
  };
  EXPECT_EQ(code(0, "r", "g", {1, 0}), absl::StatusCode::kInvalidArgument);  // not ascending
  EXPECT_EQ(code(0, "r", "g", {1, 2}), absl::StatusCode::kInvalidArgument);  // claimant not among them
  EXPECT_EQ(code(0, "r", "g", {0, 3}), absl::StatusCode::kInvalidArgument);  // no rank 3
  EXPECT_EQ(code(0, "r", "g", {0, 0}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(0, "r", "g", {0}), absl::StatusCode::kInvalidArgument);     // one host needs no Gloo
  EXPECT_EQ(code(0, "", "g", {0, 1}), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(0, "r", std::string(2000, 'g'), {0, 1}), absl::StatusCode::kInvalidArgument);
  ASSERT_EQ(code(0, "r", "g", {0, 1}), absl::StatusCode::kOk);
  EXPECT_EQ(code(2, "r", "g", {0, 2}), absl::StatusCode::kInvalidArgument);  // the group's hosts differ
  EXPECT_EQ(registry.live_contexts(), 1);
}

TEST(ContextRegistryTest, RunsOverTheBoundAreRefused) {
  ContextRegistry::Options options = ClusterOf(2);
  options.max_runs = 2;
  ContextRegistry registry(options);
  ASSERT_TRUE(registry.ClaimContext(0, "a", "g", {0, 1}).ok());
  ASSERT_TRUE(registry.ClaimContext(0, "b", "g", {0, 1}).ok());
  EXPECT_EQ(registry.ClaimContext(0, "c", "g", {0, 1}).status().code(), absl::StatusCode::kResourceExhausted);
  // A finished run is forgotten: its slot is free again.
  absl::StatusOr<ContextRegistry::Claim> a = registry.ClaimContext(1, "a", "g", {0, 1});
  ASSERT_TRUE(a.ok());
  ReleaseAll(registry, "a", {0, 1}, a->context_id);
  EXPECT_TRUE(registry.ClaimContext(0, "c", "g", {0, 1}).ok());
}

}  // namespace
}  // namespace xla
