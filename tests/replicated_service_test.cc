// The service side of replicated execution through the client API, on every
// backend of TestBackends() (in process, and a real daemon over gRPC):
// GetDeviceHandles, ExecuteParallel (a 4-replica all-reduce, independent
// programs on chosen devices), TransferToInfeed / TransferFromOutfeed on a
// device's queues while a replicated run goes on, the outfeed deadline, and
// bad devices, requests, arguments and feed shapes.
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/client_test_base.h"

namespace xla {
namespace {

using test::ClientTest;

class ReplicatedServiceTest : public ClientTest {
 protected:
  std::vector<DeviceHandle> Devices(int64_t n) {
    absl::StatusOr<std::vector<DeviceHandle>> devices = client()->GetDeviceHandles(n);
    EXPECT_TRUE(devices.ok()) << devices.status();
    return devices.ok() ? *devices : std::vector<DeviceHandle>();
  }

  // Options of process `device` of an R-replica run on `device`.
  static ExecutionOptions OnDevice(const DeviceHandle& device, int replicas) {
    ExecutionOptions options;
    *options.add_device_handles() = device;
    options.set_num_replicas(replicas);
    return options;
  }

  std::unique_ptr<GlobalData> Put(const Literal& literal) {
    absl::StatusOr<std::unique_ptr<GlobalData>> data = client()->TransferToServer(literal);
    EXPECT_TRUE(data.ok()) << data.status();
    return data.ok() ? std::move(*data) : nullptr;
  }

  Literal Get(const GlobalData& data) {
    absl::StatusOr<Literal> literal = client()->TransferToClient(data);
    EXPECT_TRUE(literal.ok()) << literal.status();
    return literal.ok() ? std::move(*literal) : Literal();
  }
};

// x -> cross-replica-sum(x) * (replica-id + 1).
XlaComputation SumTimesReplica(int64_t n) {
  XlaBuilder b("sum_times_replica");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {n}), "x");
  XlaOp id = ConvertElementType(ReplicaId(&b), F32);
  Mul(CrossReplicaSum(x), Broadcast(Add(id, ConstantR0<float>(&b, 1)), {n}));
  return b.Build().value();
}

// value = infeed f32[2]; s = cross-replica-sum(value); outfeed s; s + s.
XlaComputation InfeedSumOutfeed() {
  XlaBuilder b("infeed_sum_outfeed");
  const Shape shape = ShapeUtil::MakeShape(F32, {2});
  XlaOp in = InfeedWithToken(CreateToken(&b), shape);
  XlaOp s = CrossReplicaSum(GetTupleElement(in, 0));
  OutfeedWithToken(s, GetTupleElement(in, 1), shape);
  Add(s, s);
  return b.Build().value();
}

XlaComputation Scale(float factor) {
  XlaBuilder b("scale");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2}), "x");
  Mul(x, Broadcast(ConstantR0<float>(&b, factor), {2}));
  return b.Build().value();
}

TEST_P(ReplicatedServiceTest, GetDeviceHandlesHandsOutDistinctDevices) {
  ASSERT_OK_AND_ASSIGN(GetServiceInfoResponse info, client()->GetServiceInfo());
  EXPECT_EQ(info.device_count(), 8);
  std::vector<DeviceHandle> devices = Devices(8);
  ASSERT_EQ(devices.size(), 8u);
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(devices[i].handle(), i);
    EXPECT_EQ(devices[i].device_count(), 8);
  }
  for (int64_t n : {0, 9, -1}) {
    absl::StatusOr<std::vector<DeviceHandle>> too_many = client()->GetDeviceHandles(n);
    ASSERT_FALSE(too_many.ok()) << n;
    EXPECT_EQ(too_many.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(too_many.status().message(), "has 8 devices")) << too_many.status();
  }
}

TEST_P(ReplicatedServiceTest, FourReplicaAllReduceReturnsOneResultPerReplica) {
  std::vector<DeviceHandle> devices = Devices(4);
  ASSERT_EQ(devices.size(), 4u);
  XlaComputation computation = SumTimesReplica(3);
  std::vector<std::unique_ptr<GlobalData>> args;
  std::vector<Client::ComputationInstance> instances;
  for (int r = 0; r < 4; ++r) {
    // Replica r holds {r, 10 r, 100 r + 1}.
    args.push_back(Put(Literal::CreateR1<float>({float(r), 10.0f * r, 100.0f * r + 1})));
    instances.push_back({&computation, {args.back().get()}, OnDevice(devices[r], 4)});
  }
  std::vector<ExecutionProfile> profiles;
  ASSERT_OK_AND_ASSIGN(std::vector<std::unique_ptr<GlobalData>> results,
                       client()->ExecuteParallel(instances, &profiles));
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(profiles.size(), 4u);
  // Sums {6, 60, 604}, times replica + 1.
  for (int r = 0; r < 4; ++r) {
    SCOPED_TRACE(r);
    const float k = r + 1;
    EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({6 * k, 60 * k, 604 * k}), Get(*results[r])));
  }
}

// The same run by handle: compiled once, then run twice with nothing
// compiled or looked up; a released handle is refused, naming the request.
TEST_P(ReplicatedServiceTest, ReplicatedRunByExecutableHandle) {
  std::vector<DeviceHandle> devices = Devices(4);
  ASSERT_EQ(devices.size(), 4u);
  XlaComputation computation = SumTimesReplica(3);
  ASSERT_OK_AND_ASSIGN(ExecutionHandle executable, client()->Compile(computation, {}));
  std::vector<std::unique_ptr<GlobalData>> args;
  std::vector<Client::ComputationInstance> instances;
  for (int r = 0; r < 4; ++r) {
    args.push_back(Put(Literal::CreateR1<float>({float(r), 10.0f * r, 100.0f * r + 1})));
    Client::ComputationInstance instance{nullptr, {args.back().get()}, OnDevice(devices[r], 4)};
    instance.executable = executable;
    instances.push_back(instance);
  }
  ASSERT_OK_AND_ASSIGN(GetServiceInfoResponse before, client()->GetServiceInfo());
  for (int round = 0; round < 2; ++round) {
    std::vector<ExecutionProfile> profiles;
    ASSERT_OK_AND_ASSIGN(std::vector<std::unique_ptr<GlobalData>> results,
                         client()->ExecuteParallel(instances, &profiles));
    ASSERT_EQ(results.size(), 4u);
    for (int r = 0; r < 4; ++r) {
      SCOPED_TRACE(r);
      EXPECT_TRUE(profiles[r].compilation_cache_hit());
      const float k = r + 1;
      EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({6 * k, 60 * k, 604 * k}), Get(*results[r])));
    }
  }
  ASSERT_OK_AND_ASSIGN(GetServiceInfoResponse after, client()->GetServiceInfo());
  EXPECT_EQ(after.compilations(), before.compilations());
  EXPECT_EQ(after.cache_hits() + after.cache_misses(), before.cache_hits() + before.cache_misses());
  EXPECT_EQ(after.executions() - before.executions(), 8);
  ASSERT_OK(client()->UnregisterExecutable(executable));
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> released = client()->ExecuteParallel(instances);
  ASSERT_FALSE(released.ok());
  EXPECT_EQ(released.status().code(), absl::StatusCode::kNotFound) << released.status();
  EXPECT_TRUE(absl::StrContains(released.status().message(), "request 0: no executable")) << released.status();
  instances[0].computation = &computation;
  EXPECT_EQ(client()->ExecuteParallel(instances).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_P(ReplicatedServiceTest, ReplicasDefaultToDevicesInRequestOrder) {
  XlaComputation computation = SumTimesReplica(1);
  std::vector<std::unique_ptr<GlobalData>> args;
  std::vector<Client::ComputationInstance> instances;
  for (int r = 0; r < 2; ++r) {
    args.push_back(Put(Literal::CreateR1<float>({float(r + 1)})));
    ExecutionOptions options;
    options.set_num_replicas(2);
    instances.push_back({&computation, {args.back().get()}, options});
  }
  ASSERT_OK_AND_ASSIGN(std::vector<std::unique_ptr<GlobalData>> results, client()->ExecuteParallel(instances));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({3}), Get(*results[0])));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({6}), Get(*results[1])));
}

TEST_P(ReplicatedServiceTest, DifferentComputationsOnChosenDevicesAtOnce) {
  std::vector<DeviceHandle> devices = Devices(8);
  ASSERT_EQ(devices.size(), 8u);
  XlaComputation doubled = Scale(2), tripled = Scale(3);
  auto x = Put(Literal::CreateR1<float>({1, 2}));
  auto y = Put(Literal::CreateR1<float>({5, -7}));
  ExecutionOptions on5, on2;
  *on5.add_device_handles() = devices[5];
  *on2.add_device_handles() = devices[2];
  std::vector<Client::ComputationInstance> instances = {{&doubled, {x.get()}, on5}, {&tripled, {y.get()}, on2}};
  ASSERT_OK_AND_ASSIGN(std::vector<std::unique_ptr<GlobalData>> results, client()->ExecuteParallel(instances));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({2, 4}), Get(*results[0])));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({15, -21}), Get(*results[1])));
}

// Send and Recv between computations of one session: the service holds the
// session's channels, so a receiver running at the same time as the sender,
// or after it, gets the value (FIFO per channel).
TEST_P(ReplicatedServiceTest, SendAndRecvBetweenComputationsOfTheService) {
  std::vector<DeviceHandle> devices = Devices(2);
  ASSERT_EQ(devices.size(), 2u);
  ASSERT_OK_AND_ASSIGN(ChannelHandle channel, client()->CreateChannelHandle());
  const Shape shape = ShapeUtil::MakeShape(F32, {3});
  XlaComputation sender = [&] {
    XlaBuilder b("sender");
    XlaOp x = Parameter(&b, 0, shape, "x");
    SendWithToken(x, CreateToken(&b), channel);  // kept: a side effect
    Mul(x, ConstantR0<float>(&b, 2));
    return b.Build().value();
  }();
  XlaComputation receiver = [&] {
    XlaBuilder b("receiver");
    XlaOp value = GetTupleElement(RecvWithToken(CreateToken(&b), shape, channel), 0);
    Add(value, ConstantR0<float>(&b, 1));
    return b.Build().value();
  }();
  auto x = Put(Literal::CreateR1<float>({1, 2, 3}));
  ExecutionOptions on0, on1;
  *on0.add_device_handles() = devices[0];
  *on1.add_device_handles() = devices[1];
  // At once: the receiver (listed first) waits for the sender.
  std::vector<Client::ComputationInstance> instances = {{&receiver, {}, on1}, {&sender, {x.get()}, on0}};
  ASSERT_OK_AND_ASSIGN(std::vector<std::unique_ptr<GlobalData>> results, client()->ExecuteParallel(instances));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({2, 3, 4}), Get(*results[0])));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({2, 4, 6}), Get(*results[1])));

  // One after another: two sends queue, two receives take them in order.
  auto y = Put(Literal::CreateR1<float>({10, 20, 30}));
  ASSERT_OK(client()->Execute(sender, {x.get()}).status());
  ASSERT_OK(client()->Execute(sender, {y.get()}).status());
  ASSERT_OK_AND_ASSIGN(Literal first, client()->ExecuteAndTransfer(receiver, {}));
  ASSERT_OK_AND_ASSIGN(Literal second, client()->ExecuteAndTransfer(receiver, {}));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({2, 3, 4}), first));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({11, 21, 31}), second));
}

TEST_P(ReplicatedServiceTest, InfeedFromAnotherThreadAndOutfeedWhileReplicasRun) {
  std::vector<DeviceHandle> devices = Devices(2);
  ASSERT_EQ(devices.size(), 2u);
  XlaComputation computation = InfeedSumOutfeed();
  std::vector<Client::ComputationInstance> instances;
  for (int r = 0; r < 2; ++r) instances.push_back({&computation, {}, OnDevice(devices[r], 2)});
  // The run starts first and waits in its infeeds; the values come later
  // from another thread.
  auto run = std::async(std::launch::async, [&] { return client()->ExecuteParallel(instances); });
  std::thread feeder([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (int d = 0; d < 2; ++d) {
      EXPECT_OK(client()->TransferToInfeed(Literal::CreateR1<float>({d + 1.0f, 10.0f * (d + 1)}), &devices[d]));
    }
  });
  const Shape shape = ShapeUtil::MakeShape(F32, {2});
  std::vector<absl::StatusOr<Literal>> outs;
  for (int d = 0; d < 2; ++d) outs.push_back(client()->TransferFromOutfeed(&shape, &devices[d], absl::Seconds(30)));
  feeder.join();
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> results = run.get();
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 2u);
  for (int d = 0; d < 2; ++d) {
    SCOPED_TRACE(d);
    ASSERT_TRUE(outs[d].ok()) << outs[d].status();
    EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({3, 30}), *outs[d]));
    EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({6, 60}), Get(*(*results)[d])));
  }
}

TEST_P(ReplicatedServiceTest, InfeedQueuedBeforeThePlainExecuteRuns) {
  // A plain single-device run (ExecuteGraph on device 0) reads device 0's
  // infeed too, in FIFO order.
  XlaComputation computation = InfeedSumOutfeed();
  ASSERT_OK(client()->TransferToInfeed(Literal::CreateR1<float>({1, 2})));
  ASSERT_OK(client()->TransferToInfeed(Literal::CreateR1<float>({3, 4})));
  ASSERT_OK_AND_ASSIGN(auto first, client()->Execute(computation, {}));
  ASSERT_OK_AND_ASSIGN(auto second, client()->Execute(computation, {}));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({2, 4}), Get(*first)));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({6, 8}), Get(*second)));
  for (float base : {1.0f, 3.0f}) {
    ASSERT_OK_AND_ASSIGN(Literal out, client()->TransferFromOutfeed(nullptr, nullptr, absl::Seconds(5)));
    EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({base, base + 1}), out));
  }
}

TEST_P(ReplicatedServiceTest, OutfeedWithNothingComingMeetsItsDeadline) {
  std::vector<DeviceHandle> devices = Devices(4);
  ASSERT_EQ(devices.size(), 4u);
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Literal> out = client()->TransferFromOutfeed(nullptr, &devices[3], absl::Milliseconds(200));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "device 3's outfeed")) << out.status();
  EXPECT_GE(seconds, 0.15);
  EXPECT_LT(seconds, 5.0);
}

TEST_P(ReplicatedServiceTest, OutfeedOfAnotherShapeStaysQueued) {
  std::vector<DeviceHandle> devices = Devices(5);
  ASSERT_EQ(devices.size(), 5u);
  XlaComputation computation = InfeedSumOutfeed();
  ASSERT_OK(client()->TransferToInfeed(Literal::CreateR1<float>({7, 8}), &devices[4]));
  std::vector<Client::ComputationInstance> instances = {{&computation, {}, OnDevice(devices[4], 1)}};
  ASSERT_OK_AND_ASSIGN(auto results, client()->ExecuteParallel(instances));
  const Shape wrong = ShapeUtil::MakeShape(S32, {2});
  absl::StatusOr<Literal> bad = client()->TransferFromOutfeed(&wrong, &devices[4], absl::Seconds(5));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "stays queued")) << bad.status();
  ASSERT_OK_AND_ASSIGN(Literal out, client()->TransferFromOutfeed(nullptr, &devices[4], absl::Seconds(5)));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({7, 8}), out));
}

TEST_P(ReplicatedServiceTest, BadDeviceHandlesAreRejected) {
  DeviceHandle out_of_range;
  out_of_range.set_handle(8);
  out_of_range.set_device_count(8);
  DeviceHandle foreign;  // from a service with 3 devices
  foreign.set_handle(1);
  foreign.set_device_count(3);
  for (const DeviceHandle& bad : {out_of_range, foreign}) {
    absl::Status infeed = client()->TransferToInfeed(Literal::CreateR1<float>({1}), &bad);
    EXPECT_EQ(infeed.code(), absl::StatusCode::kInvalidArgument) << infeed;
    absl::StatusOr<Literal> outfeed = client()->TransferFromOutfeed(nullptr, &bad, absl::Milliseconds(10));
    EXPECT_EQ(outfeed.status().code(), absl::StatusCode::kInvalidArgument) << outfeed.status();
    XlaComputation computation = Scale(2);
    auto x = Put(Literal::CreateR1<float>({1, 2}));
    ExecutionOptions options;
    *options.add_device_handles() = bad;
    absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> run =
        client()->ExecuteParallel({{&computation, {x.get()}, options}});
    ASSERT_FALSE(run.ok());
    EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(run.status().message(), "device handle")) << run.status();
  }
  EXPECT_TRUE(absl::StrContains(client()->TransferToInfeed(Literal::CreateR1<float>({1}), &out_of_range).message(),
                                "out of range"));
  EXPECT_TRUE(absl::StrContains(client()->TransferToInfeed(Literal::CreateR1<float>({1}), &foreign).message(),
                                "with 3 devices"));
}

TEST_P(ReplicatedServiceTest, BadReplicatedRequestsAreRejected) {
  std::vector<DeviceHandle> devices = Devices(4);
  ASSERT_EQ(devices.size(), 4u);
  XlaComputation computation = SumTimesReplica(2);
  std::vector<std::unique_ptr<GlobalData>> args;
  for (int r = 0; r < 4; ++r) args.push_back(Put(Literal::CreateR1<float>({1, 2})));
  auto expect_error = [&](const std::vector<Client::ComputationInstance>& instances, absl::string_view message) {
    absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> run = client()->ExecuteParallel(instances);
    ASSERT_FALSE(run.ok()) << message;
    EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument) << run.status();
    EXPECT_TRUE(absl::StrContains(run.status().message(), message)) << run.status();
  };
  // 4 replicas but 3 argument lists (requests).
  std::vector<Client::ComputationInstance> three;
  for (int r = 0; r < 3; ++r) three.push_back({&computation, {args[r].get()}, OnDevice(devices[r], 4)});
  expect_error(three, "needs 4 requests (one per process), got 3");
  // Two requests on one device.
  expect_error({{&computation, {args[0].get()}, OnDevice(devices[1], 2)},
                {&computation, {args[1].get()}, OnDevice(devices[1], 2)}},
               "already uses");
  // Requests disagreeing on the replica count.
  expect_error({{&computation, {args[0].get()}, OnDevice(devices[0], 2)},
                {&computation, {args[1].get()}, OnDevice(devices[1], 1)}},
               "asks for 1 replica(s)");
  // One replica's argument of the wrong shape, or missing.
  auto wrong = Put(Literal::CreateR1<float>({1, 2, 3}));
  std::vector<Client::ComputationInstance> bad_arg;
  for (int r = 0; r < 4; ++r) {
    bad_arg.push_back({&computation, {r == 2 ? wrong.get() : args[r].get()}, OnDevice(devices[r], 4)});
  }
  expect_error(bad_arg, "request 2: Execute: argument 0 has shape f32[3]");
  bad_arg[2].arguments.clear();
  expect_error(bad_arg, "request 2: Execute: computation 'sum_times_replica' takes 1 arguments but 0 were given");
  expect_error({}, "no requests");
  // A replicated computation through ExecuteGraph, which has one argument
  // list and one result.
  absl::StatusOr<std::unique_ptr<GlobalData>> graph = [&] {
    ExecutionOptions options;
    options.set_num_replicas(2);
    return client()->Execute(computation, {args[0].get()}, &options);
  }();
  ASSERT_FALSE(graph.ok());
  EXPECT_TRUE(absl::StrContains(graph.status().message(), "use ExecuteParallel")) << graph.status();
}

TEST_P(ReplicatedServiceTest, AnInfeedOfTheWrongShapeFailsEveryReplicaPromptly) {
  std::vector<DeviceHandle> devices = Devices(2);
  ASSERT_EQ(devices.size(), 2u);
  XlaComputation computation = InfeedSumOutfeed();
  ASSERT_OK(client()->TransferToInfeed(Literal::CreateR1<float>({1, 2}), &devices[0]));
  ASSERT_OK(client()->TransferToInfeed(Literal::CreateR1<int32_t>({1, 2, 3}), &devices[1]));
  std::vector<Client::ComputationInstance> instances;
  for (int r = 0; r < 2; ++r) instances.push_back({&computation, {}, OnDevice(devices[r], 2)});
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> run = client()->ExecuteParallel(instances);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(run.ok());
  // Replica 1's own failure, not replica 0's abort while it waited in the
  // all-reduce.
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "process (replica 1, partition 0)")) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "s32[3]")) << run.status();
  EXPECT_LT(seconds, 10.0);
  // Nothing was outfed; the service still runs the next request.
  absl::StatusOr<Literal> out = client()->TransferFromOutfeed(nullptr, &devices[0], absl::Milliseconds(50));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded) << out.status();
  ASSERT_OK_AND_ASSIGN(GetServiceInfoResponse info, client()->GetServiceInfo());
  EXPECT_EQ(info.device_count(), 8);
}

XLA_CLIENT_TEST_P(ReplicatedServiceTest);

}  // namespace
}  // namespace xla
