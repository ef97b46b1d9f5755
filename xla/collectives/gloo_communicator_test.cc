// GlooCommunicator with three "hosts" in one process: each host is a Gloo
// TCP device on 127.0.0.1 with its own communicator, and the hosts meet
// through one in-memory Store. Every collective, with groups inside one host
// and across hosts, gives what the in-process Rendezvous gives (bit for bit;
// float sums across hosts within rounding); a host at another collective, a
// host that aborts, and a host that never comes fail the others with a
// clear status, well before the timeout where they can.
#include "xla/collectives/gloo_communicator.h"

#include <gloo/rendezvous/hash_store.h>
#include <gloo/transport/tcp/device.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/collectives/collective_ops.h"
#include "xla/collectives/replica_context.h"
#include "xla/shape_util.h"

namespace xla {
namespace collectives {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<gloo::transport::Device> LoopbackDevice() {
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  return gloo::transport::tcp::CreateDevice(attr);
}

// `hosts` communicators of one run whose processes sit on hosts
// host_of_process.
std::vector<std::shared_ptr<Communicator>> ClusterCommunicators(const std::vector<int>& host_of_process,
                                                               int64_t num_partitions, int hosts,
                                                               const std::string& run_id,
                                                               absl::Duration timeout = absl::Seconds(20)) {
  auto store = std::make_shared<gloo::rendezvous::HashStore>();
  std::vector<std::shared_ptr<Communicator>> out;
  for (int h = 0; h < hosts; ++h) {
    GlooCommunicator::Options options;
    options.run_id = run_id;
    options.num_partitions = num_partitions;
    options.host_of_process = host_of_process;
    options.self_host = h;
    options.store = store;
    options.device = LoopbackDevice();
    options.timeout = timeout;
    for (int n = 0; n < hosts; ++n) options.host_names.push_back(absl::StrCat("host ", n, " (test)"));
    absl::StatusOr<std::shared_ptr<GlooCommunicator>> c = GlooCommunicator::Create(options);
    EXPECT_TRUE(c.ok()) << c.status();
    out.push_back(*c);
  }
  return out;
}

struct Case {
  std::string name;
  CollectiveOp op;
  PrimitiveType type = F32;
};

CollectiveOp MakeOp(HloOpcode opcode, const std::string& name, Shape operand, Shape result,
                    std::vector<std::vector<int64_t>> groups = {}) {
  CollectiveOp op;
  op.opcode = opcode;
  op.name = name;
  op.operands = {operand};
  op.results = {result};
  op.replica_groups = std::move(groups);
  return op;
}

// Element-wise combiner of the exchange path for `kind` on `type`.
Combiner CombinerFor(ReductionKind kind, PrimitiveType type) {
  return [kind, type](int64_t, void* acc, const void* other, int64_t count) -> absl::Status {
    auto fold = [&](auto* a, const auto* b) {
      for (int64_t i = 0; i < count; ++i) {
        switch (kind) {
          case ReductionKind::kSum:
            a[i] = a[i] + b[i];
            break;
          case ReductionKind::kProduct:
            a[i] = a[i] * b[i];
            break;
          case ReductionKind::kMin:
            a[i] = std::min(a[i], b[i]);
            break;
          default:
            a[i] = std::max(a[i], b[i]);
            break;
        }
      }
    };
    if (type == F32) {
      fold(static_cast<float*>(acc), static_cast<const float*>(other));
    } else {
      fold(static_cast<int32_t*>(acc), static_cast<const int32_t*>(other));
    }
    return absl::OkStatus();
  };
}

// Runs `op` on every process (threads), each with its host's communicator
// (`communicator_of_process`), on inputs from a fixed seed; returns every
// process's result bytes or its status.
std::vector<absl::StatusOr<std::string>> RunAll(const CollectiveOp& op, int64_t replicas, int64_t partitions,
                                                const std::function<std::shared_ptr<Communicator>(int64_t)>& comm,
                                                const Combiner& combine) {
  const int64_t n = replicas * partitions;
  std::vector<absl::StatusOr<std::string>> results(n);
  std::vector<std::thread> threads;
  for (int64_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      ReplicaContext context(replicas, partitions, ProcessId{i / partitions, i % partitions}, comm(i));
      std::mt19937 random(1000 + i);
      std::string in(ShapeUtil::ByteSizeOfElements(op.operands[0]), '\0');
      if (op.operands[0].element_type() == F32) {
        std::uniform_real_distribution<float> dist(-4, 4);
        for (size_t b = 0; b < in.size(); b += 4) {
          float v = dist(random);
          std::memcpy(&in[b], &v, 4);
        }
      } else {
        std::uniform_int_distribution<int32_t> dist(-1000, 1000);
        for (size_t b = 0; b < in.size(); b += 4) {
          int32_t v = dist(random);
          std::memcpy(&in[b], &v, 4);
        }
      }
      std::string out(ShapeUtil::ByteSizeOfElements(op.results[0]), '\0');
      const void* operands[] = {in.data()};
      void* outs[] = {out.data()};
      absl::Status s = RunCollective(&context, op, operands, outs, combine);
      if (s.ok()) {
        results[i] = out;
      } else {
        results[i] = s;
      }
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

void ExpectSame(const std::vector<absl::StatusOr<std::string>>& cluster,
                const std::vector<absl::StatusOr<std::string>>& local, PrimitiveType type, bool exact,
                const std::string& name) {
  ASSERT_EQ(cluster.size(), local.size());
  for (size_t i = 0; i < cluster.size(); ++i) {
    ASSERT_TRUE(local[i].ok()) << name << " local process " << i << ": " << local[i].status();
    ASSERT_TRUE(cluster[i].ok()) << name << " cluster process " << i << ": " << cluster[i].status();
    if (exact || type != F32) {
      EXPECT_EQ(*cluster[i], *local[i]) << name << " process " << i;
      continue;
    }
    const int64_t count = local[i]->size() / 4;
    for (int64_t e = 0; e < count; ++e) {
      float a, b;
      std::memcpy(&a, cluster[i]->data() + 4 * e, 4);
      std::memcpy(&b, local[i]->data() + 4 * e, 4);
      ASSERT_NEAR(a, b, 1e-4f * (1 + std::fabs(b))) << name << " process " << i << " element " << e;
    }
  }
}

// 6 replicas, 2 per host: processes 0,1 on host 0, 2,3 on host 1, 4,5 on
// host 2.
class GlooCommunicatorTest : public ::testing::Test {
 protected:
  void Check(const CollectiveOp& op, ReductionKind kind, bool exact) {
    const std::vector<int> hosts = {0, 0, 1, 1, 2, 2};
    auto cluster = ClusterCommunicators(hosts, 1, 3, absl::StrCat("run-", op.name));
    auto rendezvous = std::make_shared<Rendezvous>(absl::Seconds(20));
    const Combiner combine = CombinerFor(kind, op.operands[0].element_type());
    auto local = RunAll(op, 6, 1, [&](int64_t) { return rendezvous; }, combine);
    auto remote = RunAll(op, 6, 1, [&](int64_t i) { return cluster[hosts[i]]; }, combine);
    ExpectSame(remote, local, op.operands[0].element_type(), exact, op.name);
  }
};

TEST_F(GlooCommunicatorTest, AllReduceNativeAndExchangedMatchOneProcess) {
  const Shape f = ShapeUtil::MakeShape(F32, {1000});
  const Shape s = ShapeUtil::MakeShape(S32, {1000});
  // Native Gloo paths: f32 sum, s32 min / product / max.
  CollectiveOp sum = MakeOp(HloOpcode::kAllReduce, "sum_all", f, f);
  sum.reduction = ReductionKind::kSum;
  Check(sum, ReductionKind::kSum, /*exact=*/false);
  CollectiveOp imin = MakeOp(HloOpcode::kAllReduce, "min_s32", s, s);
  imin.reduction = ReductionKind::kMin;
  Check(imin, ReductionKind::kMin, true);
  CollectiveOp isum = MakeOp(HloOpcode::kAllReduce, "sum_s32_groups", s, s, {{0, 2, 5}, {1, 3, 4}});
  isum.reduction = ReductionKind::kSum;
  Check(isum, ReductionKind::kSum, true);
  // Exchanged (no native float maximum): exact, folded in group order.
  CollectiveOp fmax = MakeOp(HloOpcode::kAllReduce, "max_f32", f, f, {{5, 0, 3}, {1, 2, 4}});
  fmax.reduction = ReductionKind::kMax;
  Check(fmax, ReductionKind::kMax, true);
  // A reducer that is no simple op: exchanged, exact (group-order fold).
  CollectiveOp opaque = MakeOp(HloOpcode::kAllReduce, "opaque_sum", f, f, {{4, 1}, {0, 5}, {2, 3}});
  Check(opaque, ReductionKind::kSum, true);
}

// One process per host, a sum large enough for Gloo's ring to cut it into
// many segments (with an uneven last chunk): the operand in its own buffer
// (copied into the result segment by segment inside the ring) and in place
// give the exact sum, and a separate operand is left as it was.
TEST(GlooCommunicatorNativeTest, SeparateAndInPlaceOperandsGiveTheSum) {
  constexpr int kHosts = 3;
  constexpr int64_t kCount = 1000003;
  auto cluster = ClusterCommunicators({0, 1, 2}, 1, kHosts, "separate_and_in_place");
  const std::vector<ProcessId> group = {ProcessId{0, 0}, ProcessId{1, 0}, ProcessId{2, 0}};
  auto operand = [](int h, int64_t i) { return static_cast<int32_t>((h + 1) * (i % 1009) - 7 * h); };
  std::vector<std::vector<int32_t>> inputs(kHosts, std::vector<int32_t>(kCount));
  std::vector<std::vector<int32_t>> separate(kHosts, std::vector<int32_t>(kCount, -1));
  std::vector<std::vector<int32_t>> in_place(kHosts, std::vector<int32_t>(kCount));
  for (int h = 0; h < kHosts; ++h) {
    for (int64_t i = 0; i < kCount; ++i) inputs[h][i] = in_place[h][i] = operand(h, i);
  }
  ASSERT_TRUE(cluster[0]->ReducesNatively(group, ReductionKind::kSum, S32));
  std::vector<absl::Status> status(2 * kHosts);
  std::vector<std::thread> threads;
  for (int h = 0; h < kHosts; ++h) {
    threads.emplace_back([&, h] {
      status[h] = cluster[h]->AllReduce("separate#0", group, group[h], ReductionKind::kSum, S32, inputs[h].data(),
                                        separate[h].data(), kCount, "all-reduce 'separate'");
      status[kHosts + h] = cluster[h]->AllReduce("in_place#0", group, group[h], ReductionKind::kSum, S32,
                                                 in_place[h].data(), in_place[h].data(), kCount,
                                                 "all-reduce 'in_place'");
    });
  }
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : status) ASSERT_TRUE(s.ok()) << s;
  for (int h = 0; h < kHosts; ++h) {
    for (int64_t i = 0; i < kCount; ++i) {
      const int32_t want = operand(0, i) + operand(1, i) + operand(2, i);
      ASSERT_EQ(separate[h][i], want) << "host " << h << " element " << i;
      ASSERT_EQ(in_place[h][i], want) << "host " << h << " element " << i;
      ASSERT_EQ(inputs[h][i], operand(h, i)) << "host " << h << " element " << i;
    }
  }
}

TEST_F(GlooCommunicatorTest, DataMovementMatchesOneProcess) {
  const Shape in = ShapeUtil::MakeShape(S32, {6, 4});
  Check(MakeOp(HloOpcode::kAllGather, "gather", in, ShapeUtil::MakeShape(S32, {36, 4})), ReductionKind::kNone, true);
  CollectiveOp gather_groups =
      MakeOp(HloOpcode::kAllGather, "gather_groups", in, ShapeUtil::MakeShape(S32, {6, 8}), {{3, 0}, {1, 4}, {5, 2}});
  gather_groups.dimension = 1;
  Check(gather_groups, ReductionKind::kNone, true);
  CollectiveOp scatter = MakeOp(HloOpcode::kReduceScatter, "scatter", in, ShapeUtil::MakeShape(S32, {1, 4}));
  scatter.reduction = ReductionKind::kSum;
  Check(scatter, ReductionKind::kSum, true);
  CollectiveOp all_to_all = MakeOp(HloOpcode::kAllToAll, "all_to_all", in, in);
  all_to_all.has_dimension = true;
  Check(all_to_all, ReductionKind::kNone, true);
  CollectiveOp permute = MakeOp(HloOpcode::kCollectivePermute, "permute", in, in);
  permute.source_target_pairs = {{0, 3}, {3, 5}, {5, 0}, {1, 2}};
  Check(permute, ReductionKind::kNone, true);
  Check(MakeOp(HloOpcode::kCollectiveBroadcast, "broadcast", in, in, {{4, 1, 2}, {0, 3, 5}}), ReductionKind::kNone,
        true);
  // A group inside one host never touches Gloo, and still matches.
  CollectiveOp local_sum = MakeOp(HloOpcode::kAllReduce, "local_sum", in, in, {{0, 1}, {2, 3}, {4, 5}});
  local_sum.reduction = ReductionKind::kSum;
  Check(local_sum, ReductionKind::kSum, true);
}

TEST(GlooCommunicatorFailureTest, HostAtAnotherCollectiveFailsClearly) {
  auto cluster = ClusterCommunicators({0, 1}, 1, 2, "mismatch");
  std::vector<absl::StatusOr<std::vector<Communicator::Blob>>> out(2);
  std::vector<ProcessId> group = {ProcessId{0, 0}, ProcessId{1, 0}};
  std::thread a([&] { out[0] = cluster[0]->Exchange("op_a#0", group, group[0], "x", "all-gather 'a'"); });
  std::thread b([&] { out[1] = cluster[1]->Exchange("op_b#0", group, group[1], "y", "all-gather 'b'"); });
  a.join();
  b.join();
  ASSERT_FALSE(out[0].ok());
  EXPECT_THAT(out[0].status().message(), HasSubstr("at another collective"));
  EXPECT_THAT(out[0].status().message(), HasSubstr("host 1 (test)"));
  ASSERT_FALSE(out[1].ok());
}

TEST(GlooCommunicatorFailureTest, AbortOnOneHostFailsTheOthersAtOnce) {
  // Hosts 1 and 2 are in an exchange; host 0 aborts after connecting
  // (its first exchange succeeded), so the others fail long before the 20 s
  // timeout.
  auto cluster = ClusterCommunicators({0, 1, 2}, 1, 3, "abort");
  std::vector<ProcessId> group = {ProcessId{0, 0}, ProcessId{1, 0}, ProcessId{2, 0}};
  {
    std::vector<std::thread> threads;
    for (int h = 0; h < 3; ++h) {
      threads.emplace_back([&, h] {
        auto r = cluster[h]->Exchange("first#0", group, group[h], "v", "all-gather 'first'");
        EXPECT_TRUE(r.ok()) << r.status();
      });
    }
    for (auto& t : threads) t.join();
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<absl::Status> status(3);
  std::vector<std::thread> threads;
  for (int h = 1; h < 3; ++h) {
    threads.emplace_back([&, h] {
      status[h] = cluster[h]->Exchange("second#0", group, group[h], "v", "all-gather 'second'").status();
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  cluster[0]->Abort(absl::InternalError("host 0's process failed"));
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int h = 1; h < 3; ++h) {
    EXPECT_FALSE(status[h].ok()) << h;
    EXPECT_THAT(status[h].message(), HasSubstr("all-gather 'second'")) << h;
  }
  EXPECT_LT(seconds, 10.0);
  EXPECT_FALSE(cluster[0]->aborted().ok());
  EXPECT_FALSE(cluster[1]->aborted().ok());
}

TEST(GlooCommunicatorFailureTest, MissingHostTimesOut) {
  auto cluster = ClusterCommunicators({0, 1}, 1, 2, "missing", absl::Milliseconds(500));
  std::vector<ProcessId> group = {ProcessId{0, 0}, ProcessId{1, 0}};
  auto r = cluster[0]->Exchange("lonely#0", group, group[0], "x", "all-gather 'lonely'");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("all-gather 'lonely'"));
  EXPECT_FALSE(cluster[0]->aborted().ok());
}

TEST(GlooCommunicatorFailureTest, BadOptions) {
  GlooCommunicator::Options options;
  EXPECT_FALSE(GlooCommunicator::Create(options).ok());
  options.store = std::make_shared<gloo::rendezvous::HashStore>();
  options.device = LoopbackDevice();
  options.run_id = "r";
  options.host_of_process = {0, -1};
  EXPECT_FALSE(GlooCommunicator::Create(options).ok());
  options.host_of_process = {0, 1, 0};
  options.num_partitions = 2;
  EXPECT_FALSE(GlooCommunicator::Create(options).ok());
}

}  // namespace
}  // namespace collectives
}  // namespace xla
