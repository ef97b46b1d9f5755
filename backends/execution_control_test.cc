// ExecutionControl stops runaway loops on both backends: a run past its
// deadline returns DEADLINE_EXCEEDED, a cancelled one CANCELLED, and a run
// that finishes in time is unaffected.
#include "backends/execution_control.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "backends/backend.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace {

// Sanitizer builds run the runtime (Eigen's matmul, the sort) several times
// slower, so a runtime call's work between two stop checks takes longer.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XLA_TEST_SANITIZED 1
#endif
#endif
#ifdef XLA_TEST_SANITIZED
constexpr int kSlowdown = 4;
#else
constexpr int kSlowdown = 1;
#endif

// Counts forever unless `limit` is reached (limit < 0: never).
constexpr char kLoop[] = R"(HloModule loop
cond {
  p = (s64[], s64[]) parameter(0)
  i = s64[] get-tuple-element(p), index=0
  n = s64[] get-tuple-element(p), index=1
  zero = s64[] constant(0)
  unbounded = pred[] compare(n, zero), direction=LT
  below = pred[] compare(i, n), direction=LT
  ROOT c = pred[] or(unbounded, below)
}
body {
  p = (s64[], s64[]) parameter(0)
  i = s64[] get-tuple-element(p), index=0
  n = s64[] get-tuple-element(p), index=1
  one = s64[] constant(1)
  i1 = s64[] add(i, one)
  ROOT t = (s64[], s64[]) tuple(i1, n)
}
ENTRY e {
  limit = s64[] parameter(0)
  zero = s64[] constant(0)
  t = (s64[], s64[]) tuple(zero, limit)
  w = (s64[], s64[]) while(t), condition=cond, body=body
  ROOT r = s64[] get-tuple-element(w), index=0
}
)";

// The registry of live controls: CancelAll reaches controls with no
// deadline, and the watchdog every control with one, also beyond the table
// of slots (the overflow set); controls made and destroyed on many threads
// while the watchdog visits them are each stopped exactly when they should.
TEST(ExecutionControlRegistryTest, CancelAllStopsControlsWithoutADeadline) {
  ExecutionControl plain;
  EXPECT_FALSE(plain.stopped());
  ExecutionControl::CancelAll();
  EXPECT_TRUE(plain.stopped());
  EXPECT_EQ(plain.StopStatus().code(), absl::StatusCode::kCancelled);
  ExecutionControl later;  // made after the CancelAll: unaffected
  EXPECT_FALSE(later.ShouldStop());
}

TEST(ExecutionControlRegistryTest, MoreControlsThanSlotsAreAllWatched) {
  constexpr int kControls = 5000;  // more than the registry's 4096 slots
  std::vector<std::unique_ptr<ExecutionControl>> past, future;
  for (int i = 0; i < kControls; ++i) {
    past.push_back(std::make_unique<ExecutionControl>(absl::Now() + absl::Milliseconds(20)));
    future.push_back(std::make_unique<ExecutionControl>(absl::InfiniteFuture(), [] { return false; }));
  }
  // The watchdog raises every expired control's flag (none asked itself).
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  auto all_stopped = [&] {
    for (const auto& c : past) {
      if (!c->stopped()) return false;
    }
    return true;
  };
  while (!all_stopped() && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(5));
  EXPECT_TRUE(all_stopped());
  for (const auto& c : future) EXPECT_FALSE(c->stopped());
  // Released in another order than made, then reused.
  for (int i = 0; i < kControls; i += 2) past[i].reset();
  future.clear();
  for (int i = 0; i < kControls; ++i) future.push_back(std::make_unique<ExecutionControl>());
  ExecutionControl::CancelAll();
  for (const auto& c : future) ASSERT_TRUE(c->stopped());
}

TEST(ExecutionControlRegistryTest, ControlsChurnOnManyThreadsWhileWatched) {
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&wrong, t] {
      for (int i = 0; i < 3000; ++i) {
        // Expired ones stop at their first check; the others never do.
        ExecutionControl expired(absl::Now() - absl::Milliseconds(1));
        ExecutionControl probed(absl::InfiniteFuture(), [] { return false; });
        ExecutionControl plain;
        if (!expired.ShouldStop() || probed.ShouldStop() || plain.ShouldStop()) ++wrong;
        if ((i + t) % 500 == 0) absl::SleepFor(ExecutionControl::kWatchInterval);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

class ExecutionControlTest : public ::testing::TestWithParam<std::string> {
 protected:
  absl::StatusOr<std::shared_ptr<DeviceBuffer>> Run(int64_t limit, const ExecutionControl* control) {
    auto backend = BackendRegistry::Create(GetParam());
    if (!backend.ok()) return backend.status();
    auto module = ParseHloModule(kLoop);
    if (!module.ok()) return module.status();
    auto executable = (*backend)->compiler()->Compile(std::move(*module), DebugOptions());
    if (!executable.ok()) return executable.status();
    auto arg = DeviceBuffer::FromLiteral(Literal::CreateR0<int64_t>(limit));
    if (!arg.ok()) return arg.status();
    std::vector<std::shared_ptr<const DeviceBuffer>> args = {*arg};
    return (*executable)->Execute(args, control);
  }
};

TEST_P(ExecutionControlTest, RunawayLoopStopsAtTheDeadline) {
  const ExecutionControl control(absl::Now() + absl::Milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  auto result = Run(-1, &control);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded) << result.status();
  EXPECT_TRUE(control.stopped());
  // Generous: the point is that it ends at all.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

TEST_P(ExecutionControlTest, CancelledRunStops) {
  ExecutionControl control;
  control.Cancel();
  auto result = Run(-1, &control);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
}

TEST_P(ExecutionControlTest, RunStopsWhenItsCallerGoesAway) {
  // The probe says "gone" on its third question: the run was started, then
  // its client cancelled (what the daemon asks gRPC at every check).
  std::atomic<int> asked{0};
  const ExecutionControl control(absl::InfiniteFuture(), [&] { return ++asked >= 3; });
  auto result = Run(-1, &control);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
  EXPECT_TRUE(control.stopped());
  EXPECT_GE(asked.load(), 3);
}

TEST_P(ExecutionControlTest, RunsThatFinishInTimeAreUnaffected) {
  const ExecutionControl control(absl::Now() + absl::Hours(1));
  auto result = Run(5000, &control);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)->ToLiteral().data<int64_t>()[0], 5000);
  EXPECT_FALSE(control.stopped());
  auto uncontrolled = Run(3, nullptr);
  ASSERT_TRUE(uncontrolled.ok()) << uncontrolled.status();
  EXPECT_EQ((*uncontrolled)->ToLiteral().data<int64_t>()[0], 3);
}

// A run waiting on an empty infeed (the feed timeout is 30 s) ends at its
// deadline and at a cancel, on both backends.
constexpr char kInfeed[] = R"(HloModule waits_for_infeed
ENTRY e {
  t = token[] after-all()
  in = (f32[4], token[]) infeed(t)
  ROOT v = f32[4] get-tuple-element(in), index=0
}
)";

absl::StatusOr<std::shared_ptr<DeviceBuffer>> RunInfeed(const std::string& backend_name, ExecutionControl& control) {
  auto backend = BackendRegistry::Create(backend_name);
  if (!backend.ok()) return backend.status();
  auto module = ParseHloModule(kInfeed);
  if (!module.ok()) return module.status();
  auto executable = (*backend)->compiler()->Compile(std::move(*module), DebugOptions());
  if (!executable.ok()) return executable.status();
  collectives::ReplicaContext process;
  control.set_replica_context(&process);
  return (*executable)->Execute({}, &control);
}

TEST_P(ExecutionControlTest, AnInfeedWaitEndsAtTheDeadline) {
  ExecutionControl control(absl::Now() + absl::Milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  auto result = RunInfeed(GetParam(), control);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded) << result.status();
  EXPECT_LT(took, std::chrono::milliseconds(1300)) << std::chrono::duration<double>(took).count() << " s";
}

TEST_P(ExecutionControlTest, AnInfeedWaitEndsAtACancel) {
  ExecutionControl control;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    control.Cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  auto result = RunInfeed(GetParam(), control);
  const auto took = std::chrono::steady_clock::now() - start;
  canceller.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
  EXPECT_LT(took, std::chrono::milliseconds(1300)) << std::chrono::duration<double>(took).count() << " s";
}

// A value that arrives while the run waits is taken (the polling for a stop
// does not lose it).
TEST_P(ExecutionControlTest, AnInfeedValueThatArrivesDuringTheWaitIsTaken) {
  ExecutionControl control(absl::Now() + absl::Seconds(20));
  auto backend = BackendRegistry::Create(GetParam());
  ASSERT_TRUE(backend.ok()) << backend.status();
  auto module = ParseHloModule(kInfeed);
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = (*backend)->compiler()->Compile(std::move(*module), DebugOptions());
  ASSERT_TRUE(executable.ok()) << executable.status();
  collectives::ReplicaContext process;
  control.set_replica_context(&process);
  std::thread feeder([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    process.infeed().Push(Literal::CreateR1<float>({1, 2, 3, 4}));
  });
  auto result = (*executable)->Execute({}, &control);
  feeder.join();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)->ToLiteral(), Literal::CreateR1<float>({1, 2, 3, 4}));
}

// A runaway run without a While: one reduce-window of 512 x 512 windows
// over f32[2048,2048] (about 6e11 additions). It must stop within a second
// of its deadline, of a cancel from another thread, and of its caller going
// away.
constexpr char kReduceWindow[] = R"(HloModule big_window
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2048,2048] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[1537,1537] reduce-window(x, zero), window={size=512x512}, to_apply=add
}
)";

class NonLoopRunawayTest : public ExecutionControlTest {
 protected:
  // Compiles kReduceWindow and makes its argument (not timed).
  void SetUp() override {
    auto backend = BackendRegistry::Create(GetParam());
    ASSERT_TRUE(backend.ok()) << backend.status();
    auto module = ParseHloModule(kReduceWindow);
    ASSERT_TRUE(module.ok()) << module.status();
    auto executable = (*backend)->compiler()->Compile(std::move(*module), DebugOptions());
    ASSERT_TRUE(executable.ok()) << executable.status();
    executable_ = std::move(*executable);
    auto arg = DeviceBuffer::FromLiteral(Literal(ShapeUtil::MakeShape(F32, {2048, 2048})));
    ASSERT_TRUE(arg.ok()) << arg.status();
    args_ = {*arg};
  }
  absl::StatusOr<std::shared_ptr<DeviceBuffer>> RunWindow(const ExecutionControl& control) {
    return executable_->Execute(args_, &control);
  }
  std::unique_ptr<Executable> executable_;
  std::vector<std::shared_ptr<const DeviceBuffer>> args_;
};

TEST_P(NonLoopRunawayTest, StopsWithinASecondOfItsDeadline) {
  constexpr auto kDeadline = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const ExecutionControl deadline(absl::Now() + absl::FromChrono(kDeadline));
  auto result = RunWindow(deadline);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded) << result.status();
  EXPECT_LT(took, kDeadline + kSlowdown * std::chrono::seconds(1))
      << std::chrono::duration<double>(took).count() << " s after the start";
}

TEST_P(NonLoopRunawayTest, StopsWithinASecondOfACancel) {
  ExecutionControl control;
  const auto start = std::chrono::steady_clock::now();
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    control.Cancel();
  });
  auto result = RunWindow(control);
  const auto took = std::chrono::steady_clock::now() - start;
  canceller.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
  EXPECT_LT(took, std::chrono::milliseconds(1300)) << std::chrono::duration<double>(took).count() << " s";
}

TEST_P(NonLoopRunawayTest, StopsWhenItsCallerGoesAway) {
  // The probe (gRPC's IsCancelled in the daemon) says "gone" from 300 ms
  // after it is first asked; only the watchdog asks it during this run.
  absl::Mutex mu;
  std::optional<absl::Time> first_asked;
  const ExecutionControl control(absl::InfiniteFuture(), [&] {
    absl::MutexLock lock(&mu);
    if (!first_asked) first_asked = absl::Now();
    return absl::Now() - *first_asked > absl::Milliseconds(300);
  });
  auto result = RunWindow(control);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
}

// Long runtime calls of CPU code read the stop flag too: one dot of about
// 2.7e11 multiply-adds (seconds on any host) and sorts of 2^24 elements
// (15 and 25 s in full on a Zen 4 core) end within a second of their
// deadline.
constexpr char kBigDot[] = R"(HloModule big_dot
ENTRY e {
  a = f32[4096,8192] parameter(0)
  b = f32[8192,8192] parameter(1)
  ROOT d = f32[4096,8192] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";
// The comparators order by a costly monotone key (log, sqrt, tanh), so a
// sort of 2^24 elements takes many seconds on any host even at few
// nanoseconds per call: the one-operand sort sorts the values themselves,
// the key-value sort a permutation.
constexpr char kBigSort[] = R"(HloModule big_sort
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  one = f32[] constant(1)
  la = f32[] log-plus-one(a)
  lb = f32[] log-plus-one(b)
  sa = f32[] sqrt(la)
  sb = f32[] sqrt(lb)
  ta = f32[] tanh(sa)
  tb = f32[] tanh(sb)
  ea = f32[] exponential(ta)
  eb = f32[] exponential(tb)
  ROOT lt = pred[] compare(ea, eb), direction=LT
}
ENTRY e {
  x = f32[16777216] parameter(0)
  ROOT s = f32[16777216] sort(x), dimensions={0}, to_apply=less
}
)";
constexpr char kBigKeyValueSort[] = R"(HloModule big_key_value_sort
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  va = s32[] parameter(2)
  vb = s32[] parameter(3)
  la = f32[] log-plus-one(a)
  lb = f32[] log-plus-one(b)
  sa = f32[] sqrt(la)
  sb = f32[] sqrt(lb)
  ta = f32[] tanh(sa)
  tb = f32[] tanh(sb)
  ea = f32[] exponential(ta)
  eb = f32[] exponential(tb)
  ROOT lt = pred[] compare(ea, eb), direction=LT
}
ENTRY e {
  x = f32[16777216] parameter(0)
  i = s32[16777216] iota(), iota_dimension=0
  ROOT s = (f32[16777216], s32[16777216]) sort(x, i), dimensions={0}, to_apply=less
}
)";

void ExpectRuntimeCallStopsAtItsDeadline(const char* hlo, const std::vector<Shape>& arg_shapes) {
  auto backend = BackendRegistry::Create("cpu");
  ASSERT_TRUE(backend.ok()) << backend.status();
  auto module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = (*backend)->compiler()->Compile(std::move(*module), DebugOptions());
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<std::shared_ptr<const DeviceBuffer>> args;
  for (const Shape& shape : arg_shapes) {
    // Scrambled values: the sort has its full n log n comparisons to do.
    Literal literal(shape);
    absl::Span<float> data = literal.data<float>();
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>((i * 2654435761u) % 1000003);
    auto arg = DeviceBuffer::FromLiteral(literal);
    ASSERT_TRUE(arg.ok()) << arg.status();
    args.push_back(*arg);
  }
  constexpr auto kDeadline = std::chrono::milliseconds(200);
  const auto start = std::chrono::steady_clock::now();
  const ExecutionControl deadline(absl::Now() + absl::FromChrono(kDeadline));
  auto result = (*executable)->Execute(args, &deadline);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded) << result.status();
  EXPECT_LT(took, kDeadline + kSlowdown * std::chrono::seconds(1))
      << std::chrono::duration<double>(took).count() << " s after the start";
}

TEST(RuntimeCallStopTest, ALargeDotStopsAtItsDeadline) {
  ExpectRuntimeCallStopsAtItsDeadline(kBigDot, {ShapeUtil::MakeShape(F32, {4096, 8192}),
                                                ShapeUtil::MakeShape(F32, {8192, 8192})});
}

TEST(RuntimeCallStopTest, ALargeSortStopsAtItsDeadline) {
  ExpectRuntimeCallStopsAtItsDeadline(kBigSort, {ShapeUtil::MakeShape(F32, {16777216})});
}

TEST(RuntimeCallStopTest, ALargeKeyValueSortStopsAtItsDeadline) {
  ExpectRuntimeCallStopsAtItsDeadline(kBigKeyValueSort, {ShapeUtil::MakeShape(F32, {16777216})});
}

INSTANTIATE_TEST_SUITE_P(Backends, NonLoopRunawayTest, ::testing::Values("cpu", "interpreter"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

INSTANTIATE_TEST_SUITE_P(Backends, ExecutionControlTest, ::testing::Values("cpu", "interpreter"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace xla
