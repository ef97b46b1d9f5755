// Collectives benchmark: allreduce_f32_4x16M, a sum over 4 replicas of 16M
// f32 each (64 MiB per replica) on the CPU backend, the replicas as threads
// of this process meeting in one Rendezvous (xla/collectives). The figure is
// the replicas' operand bytes reduced per second; the reference, measured in
// the same run, is the machine's copy bandwidth: 4 threads each memcpy-ing
// its replica's 64 MiB. Arguments are transferred once; each timed run is
// the 4 concurrent Executes (including their result allocation).
//
// Usage: collectives_bench [--reps=N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "backends/backend.h"
#include "backends/execution_control.h"
#include "tools/bench/bench_report.h"
#include "xla/collectives/rendezvous.h"
#include "xla/collectives/replica_context.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "collectives_bench: %s\n", message.c_str());
  std::exit(1);
}

template <typename T>
T OrDie(absl::StatusOr<T> value, const std::string& what) {
  if (!value.ok()) Die(what + ": " + value.status().ToString());
  return std::move(*value);
}

void BenchAllReduce(int reps) {
  constexpr int kReplicas = 4;
  constexpr int64_t kElements = int64_t{16} << 20;
  const std::string text = absl::StrCat(R"(
HloModule allreduce
%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (x: f32[)", kElements, R"(]) -> f32[)", kElements, R"(] {
  %x = f32[)", kElements, R"(] parameter(0)
  ROOT %r = f32[)", kElements, R"(] all-reduce(%x), replica_groups={}, to_apply=%sum
})");
  std::unique_ptr<Backend> backend = OrDie(BackendRegistry::Create("cpu"), "cpu backend");
  std::unique_ptr<Executable> executable =
      OrDie(backend->compiler()->Compile(OrDie(ParseHloModule(text), "parse"), DebugOptions()), "compile");

  // Replica r holds (r + 1) * (i % 7): the sum is 10 * (i % 7), exact in f32.
  std::vector<std::shared_ptr<const DeviceBuffer>> arguments;
  for (int r = 0; r < kReplicas; ++r) {
    Literal x(ShapeUtil::MakeShape(F32, {kElements}));
    absl::Span<float> v = x.data<float>();
    for (int64_t i = 0; i < kElements; ++i) v[i] = static_cast<float>((r + 1) * (i % 7));
    arguments.push_back(OrDie(backend->transfer_manager()->TransferLiteralToDevice(x), "transfer"));
  }
  auto rendezvous = std::make_shared<collectives::Rendezvous>(absl::Seconds(300));
  std::vector<std::unique_ptr<collectives::ReplicaContext>> contexts;
  for (int r = 0; r < kReplicas; ++r) {
    contexts.push_back(std::make_unique<collectives::ReplicaContext>(kReplicas, 1, collectives::ProcessId{r, 0},
                                                                     rendezvous, absl::Seconds(300)));
  }
  std::vector<std::shared_ptr<DeviceBuffer>> results(kReplicas);
  auto run_all = [&] {
    std::vector<std::thread> threads;
    std::vector<absl::Status> status(kReplicas);
    for (int r = 0; r < kReplicas; ++r) {
      threads.emplace_back([&, r] {
        ExecutionControl control;
        control.set_replica_context(contexts[r].get());
        absl::StatusOr<std::shared_ptr<DeviceBuffer>> out = executable->Execute({arguments[r]}, &control);
        if (out.ok()) {
          results[r] = std::move(*out);
        } else {
          status[r] = out.status();
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (const absl::Status& s : status) {
      if (!s.ok()) Die("all-reduce: " + s.ToString());
    }
  };
  run_all();  // warm-up, and the check
  for (int r = 0; r < kReplicas; ++r) {
    const float* got = static_cast<const float*>(results[r]->data());
    for (int64_t i = 0; i < kElements; ++i) {
      if (got[i] != static_cast<float>(10 * (i % 7))) {
        Die(absl::StrCat("replica ", r, " element ", i, " is ", got[i], ", not ", 10 * (i % 7)));
      }
    }
  }
  const double seconds = bench::BestSeconds(reps, run_all);

  // The reference: each of 4 threads copies its replica's bytes.
  const size_t bytes = kElements * sizeof(float);
  std::vector<std::vector<char>> src(kReplicas, std::vector<char>(bytes, 1)), dst(kReplicas, std::vector<char>(bytes));
  auto copy_all = [&] {
    std::vector<std::thread> threads;
    for (int r = 0; r < kReplicas; ++r) {
      threads.emplace_back([&, r] { std::memcpy(dst[r].data(), src[r].data(), bytes); });
    }
    for (std::thread& t : threads) t.join();
  };
  copy_all();
  const double copy_seconds = bench::BestSeconds(reps, copy_all);
  const double total = static_cast<double>(bytes) * kReplicas;
  bench::Report("allreduce_f32_4x16M", total / seconds / 1e9, "GB/s", "memcpy_4x64MiB", total / copy_seconds / 1e9,
                /*higher_is_better=*/true);
}

}  // namespace
}  // namespace xla

int main(int argc, char** argv) {
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--reps=", 0) == 0) {
      reps = std::atoi(arg.c_str() + 7);
    } else {
      xla::Die("unknown argument '" + arg + "' (usage: collectives_bench [--reps=N])");
    }
  }
  if (reps < 1) xla::Die("--reps must be at least 1");
  xla::BenchAllReduce(reps);
  return 0;
}
