// A cluster of three xla_service daemons, separate processes on loopback
// ports (tools/cluster_launcher.h), with two devices each and a
// shared auth token:
//   - every collective, with replica groups spanning hosts, gives what the
//     same six replicas give in one process (integers and data movement bit
//     for bit; float sums within rounding, since Gloo's ring sums across
//     hosts in its own order);
//   - a daemon killed mid-collective fails the run on the others within the
//     deadline, naming the lost host; they keep serving and hold no bytes
//     of the failed run;
//   - a daemon without the token cannot join (it exits, and the
//     coordinator logs the refusal), and the coordinator's store refuses
//     unauthenticated calls.
#include <signal.h>

#include <array>

#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/client_library.h"
#include "client/cluster_client.h"
#include "client/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/xla_cluster.grpc.pb.h"
#include "tools/cluster_launcher.h"
#include "xla/literal_comparison.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

using ::testing::HasSubstr;

constexpr int kHosts = 3;
constexpr int kDevicesPerHost = 2;
constexpr int kReplicas = kHosts * kDevicesPerHost;

ReplicaGroup Group(std::vector<int64_t> ids) {
  ReplicaGroup g;
  for (int64_t id : ids) g.add_replica_ids(id);
  return g;
}

XlaComputation ScalarComputation(const char* name, PrimitiveType type,
                                 XlaOp (*op)(XlaOp, XlaOp, absl::Span<const int64_t>)) {
  XlaBuilder b(name);
  op(Parameter(&b, 0, ShapeUtil::MakeShape(type, {}), "a"), Parameter(&b, 1, ShapeUtil::MakeShape(type, {}), "b"),
     {});
  return b.Build().value();
}

// (f32[64] x, s32[6,4] y) -> a tuple of every collective's result, with
// groups inside one host and across hosts. Devices are spread over the
// hosts (replica r on host r % 3), so {0, 1, 2} spans all three hosts and
// {0, 3} lies on host 0.
XlaComputation EveryCollective() {
  XlaBuilder b("every_collective");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {64}), "x");
  XlaOp y = Parameter(&b, 1, ShapeUtil::MakeShape(S32, {6, 4}), "y");
  XlaComputation add_f32 = ScalarComputation("add_f32", F32, &Add);
  XlaComputation add_s32 = ScalarComputation("add_s32", S32, &Add);
  XlaComputation max_s32 = ScalarComputation("max_s32", S32, &Max);
  XlaComputation max_f32 = ScalarComputation("max_f32", F32, &Max);
  std::vector<XlaOp> results = {
      CrossReplicaSum(x),                                                         // native Gloo sum
      AllReduce(y, add_s32, {Group({0, 1, 2}), Group({3, 4, 5})}),                // across hosts, exact
      // Combined with the one above (all-reduce-combiner): across hosts the
      // two small operands travel packed together, the large one alone.
      AllReduce(Mul(y, ConstantR0<int32_t>(&b, 3)), add_s32, {Group({0, 1, 2}), Group({3, 4, 5})}),
      AllReduce(Add(BroadcastInDim(y, {6, 4, 11000}, {0, 1}), Iota(&b, ShapeUtil::MakeShape(S32, {6, 4, 11000}), 2)),
                add_s32, {Group({0, 1, 2}), Group({3, 4, 5})}),  // 1 MB: on its own
      AllReduce(y, max_s32, {Group({0, 3}), Group({1, 4}), Group({2, 5})}),       // inside each host
      AllReduce(x, max_f32, {Group({5, 0, 1}), Group({2, 4, 3})}),                // exchanged and folded
      AllGather(y, 0, kReplicas),                                                 // s32[36,4]
      AllGather(y, 1, 2, {Group({4, 1}), Group({0, 5}), Group({3, 2})}),          // s32[6,8]
      AllToAll(y, 0, 0, kReplicas),                                               // s32[6,4]
      ReduceScatter(y, add_s32, 0, kReplicas),                                    // s32[1,4]
      CollectivePermute(y, {{0, 4}, {4, 2}, {2, 0}, {1, 3}, {5, 1}}),
      CollectiveBroadcast(y, {Group({4, 0, 2}), Group({1, 3, 5})}),
  };
  Tuple(&b, results);
  return b.Build().value();
}

Literal RandomF32(int64_t n, int seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<float> v(n);
  for (float& e : v) e = dist(random);
  return Literal::CreateR1<float>(v);
}

Literal RandomS32(int seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int32_t> dist(-100000, 100000);
  std::vector<int32_t> v(24);
  for (int32_t& e : v) e = dist(random);
  return Literal::CreateR1<int32_t>(v).Reshape({6, 4}).value();
}

// 1 + 2, for a daemon that should still serve.
XlaComputation Scalar2() {
  XlaBuilder b("one_plus_two");
  Add(ConstantR0<float>(&b, 1), ConstantR0<float>(&b, 2));
  return b.Build().value();
}

class ClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Cluster::Options options;
    options.size = kHosts;
    options.flags = {absl::StrCat("--devices=", kDevicesPerHost), "--wait_seconds=30"};
    options.network_namespaces = true;
    auto cluster = Cluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    std::fprintf(stderr, "cluster hosts: %s\n", (*cluster)->mode().c_str());
    cluster_ = cluster->release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  std::unique_ptr<ClusterClient> Connect(int rank) {
    GrpcClientOptions options;
    options.auth_token = cluster_->token();
    auto client = ClusterClient::Connect(cluster_->daemon(rank).target(), options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::move(*client) : nullptr;
  }

  static Cluster* cluster_;
};

Cluster* ClusterTest::cluster_ = nullptr;

TEST_F(ClusterTest, DevicesSpreadOverTheHosts) {
  std::unique_ptr<ClusterClient> client = Connect(1);
  ASSERT_NE(client, nullptr);
  auto devices = client->GetDeviceHandles(kReplicas);
  ASSERT_TRUE(devices.ok()) << devices.status();
  for (int i = 0; i < kReplicas; ++i) {
    const DeviceHandle& d = (*devices)[i];
    EXPECT_EQ(d.host(), i % kHosts) << i;
    EXPECT_EQ(d.host_address(), cluster_->daemon(i % kHosts).target()) << i;
    EXPECT_EQ(d.handle(), (i % kHosts) * kDevicesPerHost + i / kHosts) << i;
    EXPECT_EQ(d.device_count(), kReplicas);
  }
  EXPECT_FALSE(client->GetDeviceHandles(kReplicas + 1).ok());
  // Another host's device is refused with its address.
  auto here = client->ClientFor((*devices)[1]);
  ASSERT_TRUE(here.ok());
  absl::Status elsewhere = (*here)->TransferToInfeed(Literal::CreateR0<float>(1), &(*devices)[0]);
  EXPECT_EQ(elsewhere.code(), absl::StatusCode::kFailedPrecondition) << elsewhere;
  EXPECT_THAT(elsewhere.message(), HasSubstr(cluster_->daemon(0).target()));
}

TEST_F(ClusterTest, EveryCollectiveAcrossHostsMatchesOneProcess) {
  std::unique_ptr<ClusterClient> client = Connect(2);
  ASSERT_NE(client, nullptr);
  auto devices = client->GetDeviceHandles(kReplicas);
  ASSERT_TRUE(devices.ok()) << devices.status();
  const XlaComputation computation = EveryCollective();

  // The reference: the same six replicas as threads of this process.
  ServiceOptions local_options;
  local_options.backend = "cpu";
  local_options.num_devices = kReplicas;
  auto local = ClientLibrary::GetOrCreateLocalClient(local_options);
  ASSERT_TRUE(local.ok()) << local.status();
  auto local_devices = (*local)->GetDeviceHandles(kReplicas);
  ASSERT_TRUE(local_devices.ok());

  std::vector<std::unique_ptr<GlobalData>> remote_args, local_args;
  std::vector<Client::ComputationInstance> remote_run(kReplicas), local_run(kReplicas);
  for (int r = 0; r < kReplicas; ++r) {
    const Literal x = RandomF32(64, 10 + r);
    const Literal y = RandomS32(100 + r);
    for (const Literal* arg : {&x, &y}) {
      auto remote = client->TransferToDevice(*arg, (*devices)[r]);
      ASSERT_TRUE(remote.ok()) << remote.status();
      remote_run[r].arguments.push_back(remote->get());
      remote_args.push_back(std::move(*remote));
      auto in_process = (*local)->TransferToServer(*arg);
      ASSERT_TRUE(in_process.ok());
      local_run[r].arguments.push_back(in_process->get());
      local_args.push_back(std::move(*in_process));
    }
    remote_run[r].computation = &computation;
    *remote_run[r].execution_options.add_device_handles() = (*devices)[r];
    remote_run[r].execution_options.set_num_replicas(kReplicas);
    local_run[r].computation = &computation;
    *local_run[r].execution_options.add_device_handles() = (*local_devices)[r];
    local_run[r].execution_options.set_num_replicas(kReplicas);
  }
  auto expected = (*local)->ExecuteParallel(local_run);
  ASSERT_TRUE(expected.ok()) << expected.status();
  // Each host's Gloo contexts: connected, and reused from an earlier run.
  auto gloo_contexts = [&]() {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (int r = 0; r < kReplicas; r += kReplicas / 3) {
      auto host = client->ClientFor((*devices)[r]);
      EXPECT_TRUE(host.ok());
      auto info = (*host)->GetServiceInfo();
      EXPECT_TRUE(info.ok()) << info.status();
      out.emplace_back(info->cluster_gloo_contexts_connected(), info->cluster_gloo_contexts_reused());
    }
    return out;
  };
  const std::vector<std::pair<int64_t, int64_t>> before = gloo_contexts();
  std::vector<std::pair<int64_t, int64_t>> after_first;
  // Twice: the second run reuses each host's compiled executable, and the
  // Gloo contexts the first one connected.
  for (int round = 0; round < 2; ++round) {
    if (round == 1) after_first = gloo_contexts();
    auto results = client->ExecuteReplicated(remote_run);
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), kReplicas);
    for (int r = 0; r < kReplicas; ++r) {
      auto host = client->ClientFor((*devices)[r]);
      ASSERT_TRUE(host.ok());
      auto got = (*host)->TransferToClient(*(*results)[r]);
      ASSERT_TRUE(got.ok()) << got.status();
      auto want = (*local)->TransferToClient(*(*expected)[r]);
      ASSERT_TRUE(want.ok());
      std::vector<Literal> got_parts = std::move(*got).DecomposeTuple();
      std::vector<Literal> want_parts = std::move(*want).DecomposeTuple();
      ASSERT_EQ(got_parts.size(), want_parts.size());
      // Element 0 is the float sum across hosts: Gloo's order.
      EXPECT_TRUE(literal_comparison::Near(want_parts[0], got_parts[0], ErrorSpec{1e-5, 1e-5}).ok())
          << "replica " << r << ": " << got_parts[0].ToString() << " vs " << want_parts[0].ToString();
      for (size_t i = 1; i < got_parts.size(); ++i) {
        EXPECT_EQ(got_parts[i], want_parts[i]) << "replica " << r << " result " << i;
      }
    }
  }
  const std::vector<std::pair<int64_t, int64_t>> after_second = gloo_contexts();
  ASSERT_EQ(after_second.size(), after_first.size());
  for (size_t h = 0; h < after_first.size(); ++h) {
    const int64_t first_run_groups =
        (after_first[h].first - before[h].first) + (after_first[h].second - before[h].second);
    EXPECT_GT(first_run_groups, 0) << "host " << h << " used no Gloo context";
    EXPECT_EQ(after_second[h].first, after_first[h].first) << "host " << h << " connected again";
    EXPECT_EQ(after_second[h].second - after_first[h].second, first_run_groups)
        << "host " << h << " did not reuse every context of the first run";
  }
}

// ClusterClient::Compile once, then runs that name each host's executable:
// the same results as runs that send the program, and no compile, cache
// lookup or program on any host for them.
TEST_F(ClusterTest, CompiledOnceRunsByHandleLikeTheProgram) {
  std::unique_ptr<ClusterClient> client = Connect(1);
  ASSERT_NE(client, nullptr);
  auto devices = client->GetDeviceHandles(kReplicas);
  ASSERT_TRUE(devices.ok()) << devices.status();
  const XlaComputation computation = EveryCollective();
  std::vector<std::unique_ptr<GlobalData>> args;
  std::vector<Client::ComputationInstance> by_program(kReplicas);
  for (int r = 0; r < kReplicas; ++r) {
    for (const Literal& arg : {RandomF32(64, 50 + r), RandomS32(150 + r)}) {
      auto remote = client->TransferToDevice(arg, (*devices)[r]);
      ASSERT_TRUE(remote.ok()) << remote.status();
      by_program[r].arguments.push_back(remote->get());
      args.push_back(std::move(*remote));
    }
    by_program[r].computation = &computation;
    *by_program[r].execution_options.add_device_handles() = (*devices)[r];
    by_program[r].execution_options.set_num_replicas(kReplicas);
  }
  auto want = client->ExecuteReplicated(by_program);
  ASSERT_TRUE(want.ok()) << want.status();

  auto executables = client->Compile(computation, *devices);
  ASSERT_TRUE(executables.ok()) << executables.status();
  ASSERT_EQ(executables->size(), kReplicas);
  std::vector<Client::ComputationInstance> by_handle = by_program;
  for (int r = 0; r < kReplicas; ++r) {
    by_handle[r].computation = nullptr;
    by_handle[r].executable = (*executables)[r];
    // Devices of one host share its one executable.
    EXPECT_EQ((*executables)[r].handle(), (*executables)[r % kHosts].handle()) << r;
  }
  auto counters = [&]() {
    std::vector<std::array<int64_t, 3>> out;
    for (int h = 0; h < kHosts; ++h) {
      auto info = client->ClientFor((*devices)[h]).value()->GetServiceInfo();
      EXPECT_TRUE(info.ok()) << info.status();
      out.push_back({info->compilations(), info->cache_hits() + info->cache_misses(), info->executions()});
    }
    return out;
  };
  const std::vector<std::array<int64_t, 3>> before = counters();
  for (int round = 0; round < 2; ++round) {
    std::vector<ExecutionProfile> profiles;
    auto got = client->ExecuteReplicated(by_handle, &profiles);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), kReplicas);
    for (int r = 0; r < kReplicas; ++r) {
      EXPECT_TRUE(profiles[r].compilation_cache_hit()) << r;
      Client* host = client->ClientFor((*devices)[r]).value();
      std::vector<Literal> got_parts = host->TransferToClient(*(*got)[r]).value().DecomposeTuple();
      std::vector<Literal> want_parts = host->TransferToClient(*(*want)[r]).value().DecomposeTuple();
      ASSERT_EQ(got_parts.size(), want_parts.size());
      for (size_t i = 0; i < got_parts.size(); ++i) {
        EXPECT_EQ(got_parts[i], want_parts[i]) << "round " << round << " replica " << r << " result " << i;
      }
    }
  }
  const std::vector<std::array<int64_t, 3>> after = counters();
  for (int h = 0; h < kHosts; ++h) {
    EXPECT_EQ(after[h][0], before[h][0]) << "host " << h << " compiled";
    EXPECT_EQ(after[h][1], before[h][1]) << "host " << h << " looked in its compilation cache";
    EXPECT_EQ(after[h][2] - before[h][2], 2 * kReplicas / kHosts) << "host " << h << " executions";
  }

  // A handle no host gave out, both forms at once, and released handles
  // are refused (the first two naming the request); the daemons keep serving.
  std::vector<Client::ComputationInstance> wrong = by_handle;
  wrong[0].executable.set_handle(987654321);
  auto unknown = client->ExecuteReplicated(wrong);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound) << unknown.status();
  EXPECT_THAT(unknown.status().message(), HasSubstr("request 0: no executable with handle 987654321"));
  // Refused before any host is sent its part (the others would wait for
  // host 0's processes until the run's bound, 30 s).
  std::vector<Client::ComputationInstance> both = by_handle;
  both[0].computation = &computation;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(client->ExecuteReplicated(both).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
  for (int h = 0; h < kHosts; ++h) {
    ASSERT_TRUE(client->ClientFor((*devices)[h]).value()->UnregisterExecutable((*executables)[h]).ok()) << h;
  }
  auto released = client->ExecuteReplicated(by_handle);
  ASSERT_FALSE(released.ok());
  EXPECT_EQ(released.status().code(), absl::StatusCode::kNotFound) << released.status();
  auto again = client->ExecuteReplicated(by_program);
  ASSERT_TRUE(again.ok()) << again.status();
}

// A training step's in-place update across hosts: the sum is aliased to its
// operand and each call donates it, so every replica's buffer is reduced in
// place (in memory on a host, Gloo across hosts) and donated again.
TEST_F(ClusterTest, DonatedOperandsAreSummedInPlaceAcrossHosts) {
  std::unique_ptr<ClusterClient> client = Connect(2);
  ASSERT_NE(client, nullptr);
  auto devices = client->GetDeviceHandles(kReplicas);
  ASSERT_TRUE(devices.ok()) << devices.status();
  XlaBuilder b("sum_in_place");
  // 1 MiB: reduced by Gloo on its own (smaller operands travel packed).
  CrossReplicaSum(Parameter(&b, 0, ShapeUtil::MakeShape(S32, {256, 1024}), "x"));
  b.SetUpAlias({}, 0, {});
  const XlaComputation computation = b.Build().value();
  auto executables = client->Compile(computation, *devices);
  ASSERT_TRUE(executables.ok()) << executables.status();
  std::vector<std::unique_ptr<GlobalData>> operands;
  std::vector<Client::ComputationInstance> run(kReplicas);
  std::vector<int32_t> want(256 * 1024, 0);
  for (int r = 0; r < kReplicas; ++r) {
    std::vector<int32_t> v(256 * 1024);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>((i * 7919 + r * 104729) % 2001) - 1000;
    for (size_t i = 0; i < v.size(); ++i) want[i] += v[i];
    auto remote = client->TransferToDevice(Literal::CreateR1<int32_t>(v).Reshape({256, 1024}).value(), (*devices)[r]);
    ASSERT_TRUE(remote.ok()) << remote.status();
    operands.push_back(std::move(*remote));
    run[r].executable = (*executables)[r];
    run[r].arguments = {operands.back().get()};
    run[r].donated_arguments = {0};
    *run[r].execution_options.add_device_handles() = (*devices)[r];
    run[r].execution_options.set_num_replicas(kReplicas);
  }
  auto live = [&]() {
    std::vector<int64_t> out;
    for (int h = 0; h < kHosts; ++h) out.push_back(client->ClientFor((*devices)[h]).value()->GetServiceInfo()->live_buffers());
    return out;
  };
  const std::vector<int64_t> live_before = live();
  for (int round = 0; round < 2; ++round) {
    std::vector<GlobalDataHandle> donated;
    for (int r = 0; r < kReplicas; ++r) donated.push_back(run[r].arguments[0]->handle());
    auto sums = client->ExecuteReplicated(run);
    ASSERT_TRUE(sums.ok()) << sums.status();
    for (int r = 0; r < kReplicas; ++r) {
      Client* host = client->ClientFor((*devices)[r]).value();
      Literal got = host->TransferToClient(*(*sums)[r]).value();
      ASSERT_EQ(got.data<int32_t>().size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got.data<int32_t>()[i], want[i]) << "round " << round << " replica " << r << " element " << i;
      }
      GlobalData stale(nullptr, donated[r]);
      EXPECT_EQ(host->TransferToClient(stale).status().code(), absl::StatusCode::kNotFound) << r;
    }
    operands = std::move(*sums);
    for (int r = 0; r < kReplicas; ++r) run[r].arguments = {operands[r].get()};
    for (int32_t& w : want) w *= kReplicas;
  }
  // The sums took the operands' places: no buffer more on any host.
  EXPECT_EQ(live(), live_before);
  for (int h = 0; h < kHosts; ++h) {
    EXPECT_TRUE(client->ClientFor((*devices)[h]).value()->UnregisterExecutable((*executables)[h]).ok());
  }
}

TEST_F(ClusterTest, HostThatCannotRunItsPartStopsTheOthersAtOnce) {
  std::unique_ptr<ClusterClient> client = Connect(0);
  ASSERT_NE(client, nullptr);
  auto devices = client->GetDeviceHandles(kHosts);
  ASSERT_TRUE(devices.ok()) << devices.status();
  XlaBuilder b("sum");
  CrossReplicaSum(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {8}), "x"));
  const XlaComputation computation = b.Build().value();
  std::vector<std::unique_ptr<GlobalData>> args;
  std::vector<Client::ComputationInstance> run(kHosts);
  for (int r = 0; r < kHosts; ++r) {
    // Host 2's argument has the wrong shape: its daemon refuses its part.
    auto arg = client->TransferToDevice(RandomF32(r == 2 ? 9 : 8, r), (*devices)[r]);
    ASSERT_TRUE(arg.ok()) << arg.status();
    run[r].computation = &computation;
    run[r].arguments = {arg->get()};
    *run[r].execution_options.add_device_handles() = (*devices)[r];
    run[r].execution_options.set_num_replicas(kHosts);
    args.push_back(std::move(*arg));
  }
  const auto start = std::chrono::steady_clock::now();
  auto result = client->ExecuteReplicated(run);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << result.status();
  // Not the others' 30 s wait for host 2.
  EXPECT_LT(seconds, 10.0) << result.status();

  // The failed run's Gloo contexts are retired, not handed to the next run
  // out of step: a good run right after gives the sum on every host.
  std::vector<float> want(8, 0.0f);
  for (int r = 0; r < kHosts; ++r) {
    const Literal x = RandomF32(8, r);
    for (int i = 0; i < 8; ++i) want[i] += x.data<float>()[i];
    auto arg = client->TransferToDevice(x, (*devices)[r]);
    ASSERT_TRUE(arg.ok()) << arg.status();
    run[r].arguments = {arg->get()};
    args.push_back(std::move(*arg));
  }
  auto good = client->ExecuteReplicated(run);
  ASSERT_TRUE(good.ok()) << good.status();
  for (int r = 0; r < kHosts; ++r) {
    auto host = client->ClientFor((*devices)[r]);
    ASSERT_TRUE(host.ok());
    auto got = (*host)->TransferToClient(*(*good)[r]);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(literal_comparison::Near(Literal::CreateR1<float>(want), *got, ErrorSpec{1e-5, 1e-5}).ok())
        << "host " << r << ": " << got->ToString();
  }
}

TEST_F(ClusterTest, BadClusterRunsAreRefusedAndTheDaemonLives) {
  std::unique_ptr<ClusterClient> client = Connect(0);
  ASSERT_NE(client, nullptr);
  auto devices = client->GetDeviceHandles(kHosts);
  ASSERT_TRUE(devices.ok()) << devices.status();
  Client* host0 = client->ClientFor((*devices)[0]).value();
  // A run with no process on host 0, and no request.
  ClusterRun elsewhere;
  elsewhere.set_run_id("not-here");
  *elsewhere.add_devices() = (*devices)[1];
  *elsewhere.add_devices() = (*devices)[2];
  auto refused = host0->ExecuteParallel({}, nullptr, &elsewhere);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << refused.status();
  // A bad run id, and a device of no cluster.
  ClusterRun bad_id = elsewhere;
  bad_id.set_run_id("bad id!");
  EXPECT_EQ(host0->ExecuteParallel({}, nullptr, &bad_id).status().code(), absl::StatusCode::kInvalidArgument);
  ClusterRun foreign;
  foreign.set_run_id("foreign");
  DeviceHandle* d = foreign.add_devices();
  d->set_handle(1000);
  d->set_device_count(2000);
  EXPECT_EQ(host0->ExecuteParallel({}, nullptr, &foreign).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(cluster_->daemon(0).running());
  EXPECT_TRUE(host0->GetServiceInfo().ok());
}

// x -> s = cross-replica-sum(x); v = infeed; cross-replica-sum(s + v): a
// replica whose infeed is never fed stops its peers inside a collective.
XlaComputation SumInfeedSum(int64_t n) {
  XlaBuilder b("sum_infeed_sum");
  const Shape shape = ShapeUtil::MakeShape(F32, {n});
  XlaOp s = CrossReplicaSum(Parameter(&b, 0, shape, "x"));
  XlaOp in = InfeedWithToken(CreateToken(&b), shape);
  CrossReplicaSum(Add(s, GetTupleElement(in, 0)));
  return b.Build().value();
}

int64_t BytesInUse(Client& client) {
  auto info = client.GetServiceInfo();
  EXPECT_TRUE(info.ok()) << info.status();
  return info.ok() ? info->bytes_in_use() : -1;
}

TEST(ClusterFailureTest, KilledDaemonFailsTheRunOnTheOthersWhoKeepServing) {
  constexpr int64_t kN = 1 << 16;
  Cluster::Options cluster_options;
  cluster_options.size = kHosts;
  cluster_options.flags = {"--devices=1", "--wait_seconds=60"};
  cluster_options.network_namespaces = true;
  auto started = Cluster::Start(cluster_options);
  ASSERT_TRUE(started.ok()) << started.status();
  Cluster& cluster = **started;
  std::fprintf(stderr, "cluster hosts: %s\n", cluster.mode().c_str());
  GrpcClientOptions options;
  options.auth_token = cluster.token();
  auto client = ClusterClient::Connect(cluster.daemon(0).target(), options);
  ASSERT_TRUE(client.ok()) << client.status();
  auto devices = (*client)->GetDeviceHandles(kHosts);
  ASSERT_TRUE(devices.ok()) << devices.status();
  const XlaComputation computation = SumInfeedSum(kN);
  std::vector<std::unique_ptr<GlobalData>> args;
  std::vector<Client::ComputationInstance> run(kHosts);
  std::vector<Client*> hosts;
  for (int r = 0; r < kHosts; ++r) {
    auto host = (*client)->ClientFor((*devices)[r]);
    ASSERT_TRUE(host.ok());
    hosts.push_back(*host);
  }
  const int64_t baseline0 = BytesInUse(*hosts[0]);
  const int64_t baseline1 = BytesInUse(*hosts[1]);
  for (int r = 0; r < kHosts; ++r) {
    auto arg = (*client)->TransferToDevice(RandomF32(kN, r), (*devices)[r]);
    ASSERT_TRUE(arg.ok()) << arg.status();
    run[r].computation = &computation;
    run[r].arguments = {arg->get()};
    *run[r].execution_options.add_device_handles() = (*devices)[r];
    run[r].execution_options.set_num_replicas(kHosts);
    args.push_back(std::move(*arg));
    // Host 2's replica never gets its infeed value.
    if (r < 2) {
      ASSERT_TRUE(hosts[r]->TransferToInfeed(RandomF32(kN, 50 + r), &(*devices)[r]).ok());
    }
  }
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> result;
  std::thread runner([&] { result = (*client)->ExecuteReplicated(run); });
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const auto killed = std::chrono::steady_clock::now();
  cluster.daemon(2).Kill();
  runner.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  ASSERT_FALSE(result.ok());
  // Well within the 60 s the run could wait: the lost connection (or the
  // coordinator's missed heartbeats) ends it.
  EXPECT_LT(seconds, 15.0);
  std::fprintf(stderr, "the run failed %.2f s after the kill: %s\n", seconds, result.status().ToString().c_str());
  EXPECT_THAT(result.status().message(),
              HasSubstr(absl::StrCat("lost from the cluster: host 2 (", cluster.daemon(2).target(), ")")));
  // The survivors serve other work, and hold no bytes of the failed run.
  for (int r = 0; r < 2; ++r) {
    auto sum = hosts[r]->ExecuteAndTransfer(Scalar2(), {});
    ASSERT_TRUE(sum.ok()) << sum.status();
    EXPECT_EQ(*sum, Literal::CreateR0<float>(3));
  }
  args.clear();
  EXPECT_EQ(BytesInUse(*hosts[0]), baseline0);
  EXPECT_EQ(BytesInUse(*hosts[1]), baseline1);
}

TEST(ClusterAuthTest, DaemonWithoutTheTokenCannotJoin) {
  auto cluster = Cluster::Start(2, {"--devices=1"}, /*start_ranks=*/1);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  // Rank 1 with the wrong token: refused, it exits.
  auto intruder = (*cluster)->StartRank(1, {"--devices=1", "--cluster_join_timeout_seconds=10"}, "not-the-token");
  ASSERT_TRUE(intruder.ok()) << intruder.status();
  const int status = (*intruder)->WaitForExit(absl::Seconds(20));
  EXPECT_NE(status, 0);
  EXPECT_THAT((*intruder)->Log(), HasSubstr("UNAUTHENTICATED"));
  EXPECT_THAT((*cluster)->daemon(0).Log(), HasSubstr("refused a registration"));
  // The store refuses calls without the token, too.
  auto channel = grpc::CreateChannel((*cluster)->coordinator(), grpc::InsecureChannelCredentials());
  auto stub = XlaCluster::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  StoreGetRequest get;
  get.set_key("anything");
  StoreGetResponse response;
  EXPECT_EQ(stub->StoreGet(&context, get, &response).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

}  // namespace
}  // namespace xla
