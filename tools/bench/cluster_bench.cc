// Cluster benchmark: three xla_service daemons on this machine (network
// namespaces when root, else loopback ports; tools/cluster_launcher.h), one
// device each.
//
//   allreduce_f32_16M_3hosts: a cross-replica sum of 16M f32 (64 MiB per
//     replica) over the three hosts, as the client sees it (ExecuteReplicated
//     of resident arguments, results left on the hosts), each call donating
//     its operand, whose buffer then holds the sum (the program aliases them:
//     XlaBuilder::SetUpAlias) that the next call donates, as a training step
//     updates its weights in place. allreduce_f32_16M_3hosts_operand_kept:
//     the same calls keeping their operand (the sum in a new buffer, Gloo
//     copying the operand in as it goes). The figure is one
//     replica's bytes per second (algorithm bandwidth). The reference, in the
//     same run and the same hosts: Gloo's own ring all-reduce of the same
//     buffer, run directly by three processes of this binary
//     (--raw_gloo_rank), one per host, rendezvous through a FileStore. Its
//     rounds alternate with the cluster's calls (one raw round, one call),
//     so a busy moment of a shared machine falls on both alike.
//   mlp_dp_step_3hosts: one data-parallel SGD step of the MLP
//     (tools/bench/bench_models.h: 784-512-512-10, batch 256 per replica,
//     gradients averaged by cross-replica sums) across the three hosts,
//     against one host doing the whole batch of 768 in one step.
//
// Every figure is the best of --reps runs (default 30) after a warm-up. Six
// processes share this machine's cores, so a single 100 ms all-reduce is
// often slowed by a neighbour: best of 5 scattered 0.78-0.91 of raw Gloo
// from run to run here, best of 30 settles within a few percent. The results are
// checked (the all-reduce's sum, the MLP's replicas equal to each other).
// Runs name the executables ClusterClient::Compile made on each host (no
// program sent per run); the fixed cost of a run is printed both ways.
//
// Usage: cluster_bench [--reps=N] [--daemon_flag=FLAG...]   (XLA_SERVICE_BINARY:
// the daemon; --daemon_flag passes FLAG to every daemon, e.g.
// --daemon_flag=--cluster_keep_gloo_contexts=false for a comparison)
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/cluster_client.h"
#include "client/xla_builder.h"
#include "tools/bench/bench_models.h"
#include "tools/bench/bench_report.h"
#include "tools/cluster_launcher.h"
#include "xla/shape_util.h"

extern char** environ;

namespace xla {
namespace {

constexpr int kHosts = 3;
constexpr int64_t kElements = int64_t{16} << 20;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "cluster_bench: %s\n", message.c_str());
  std::exit(1);
}

template <typename T>
T OrDie(absl::StatusOr<T> value, const std::string& what) {
  if (!value.ok()) Die(what + ": " + value.status().ToString());
  return std::move(*value);
}

// --- Raw Gloo: one process per host ---------------------------------------

// One rank of the raw all-reduce. Round by round (the first a warm-up), it
// waits for the bench's "go/N" in the store, all-reduces, and rank 0 answers
// "done/N" with the seconds the all-reduce took: the bench alternates these
// rounds with its cluster calls, so both see the same machine.
int RawGlooWorker(int rank, int size, const std::string& dir, const std::string& address, int reps) {
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = address;
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    gloo::rendezvous::FileStore store(dir);
    context->connectFullMesh(store, device);
    std::vector<float> data(kElements);
    for (int rep = 0; rep < reps + 1; ++rep) {
      store.wait({absl::StrCat("go/", rep)}, std::chrono::minutes(10));
      for (int64_t i = 0; i < kElements; ++i) data[i] = static_cast<float>((rank + 1) * (i % 7));
      gloo::AllreduceOptions options(context);
      options.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
      options.setOutput(data.data(), kElements);
      options.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      options.setTag(rep);
      const auto start = std::chrono::steady_clock::now();
      gloo::allreduce(options);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      // Sum over ranks of (rank + 1) * (i % 7).
      const float want = static_cast<float>(size * (size + 1) / 2 * 5);
      if (data[5] != want) Die(absl::StrCat("raw gloo: element 5 is ", data[5], ", not ", want));
      if (rank == 0) {
        const std::string text = absl::StrCat(seconds);
        store.set(absl::StrCat("done/", rep), std::vector<char>(text.begin(), text.end()));
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "raw gloo rank %d: %s\n", rank, e.what());
    return 1;
  }
}

// The raw all-reduce's processes, one per host of `cluster`, connected and
// waiting for rounds.
class RawGloo {
 public:
  RawGloo(const Cluster& cluster, const std::string& self, int reps) : reps_(reps) {
    char dir_template[] = "/tmp/cluster_bench_store_XXXXXX";
    if (mkdtemp(dir_template) == nullptr) Die("mkdtemp failed");
    dir_ = dir_template;
    store_ = std::make_unique<gloo::rendezvous::FileStore>(dir_);
    for (int rank = 0; rank < kHosts; ++rank) {
      std::vector<std::string> args = cluster.CommandPrefix(rank);
      args.insert(args.end(), {self, absl::StrCat("--raw_gloo_rank=", rank), absl::StrCat("--raw_gloo_size=", kHosts),
                               absl::StrCat("--raw_gloo_dir=", dir_),
                               absl::StrCat("--raw_gloo_address=", cluster.HostAddress(rank)),
                               absl::StrCat("--reps=", reps)});
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      pid_t pid = 0;
      if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) Die("cannot start a raw gloo rank");
      pids_.push_back(pid);
    }
  }
  ~RawGloo() {
    for (pid_t pid : pids_) {
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) Die("a raw gloo rank failed");
    }
    std::system(absl::StrCat("rm -rf ", dir_).c_str());
  }
  // Runs round `rep` (0 to reps: 0 is the warm-up); its seconds on rank 0.
  double Round(int rep) {
    if (rep > reps_) Die("raw gloo: more rounds than --reps");
    const std::string go = "1";
    store_->set(absl::StrCat("go/", rep), std::vector<char>(go.begin(), go.end()));
    const std::string done = absl::StrCat("done/", rep);
    store_->wait({done}, std::chrono::minutes(10));
    const std::vector<char> seconds = store_->get(done);
    return std::atof(std::string(seconds.begin(), seconds.end()).c_str());
  }

 private:
  const int reps_;
  std::string dir_;
  std::unique_ptr<gloo::rendezvous::FileStore> store_;
  std::vector<pid_t> pids_;
};

// --- Through the cluster --------------------------------------------------

// With `in_place`, the sum is aliased to its operand (XlaBuilder::
// SetUpAlias): a run that donates the operand reduces in its buffer.
XlaComputation CrossReplicaSumOf(int64_t n, bool in_place = false) {
  XlaBuilder b("allreduce_f32");
  CrossReplicaSum(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {n}), "x"));
  if (in_place) b.SetUpAlias({}, 0, {});
  return OrDie(b.Build(), "build");
}

std::vector<Client::ComputationInstance> Instances(const XlaComputation& computation,
                                                   const std::vector<DeviceHandle>& devices,
                                                   const std::vector<std::vector<GlobalData*>>& arguments) {
  std::vector<Client::ComputationInstance> run(devices.size());
  for (size_t r = 0; r < devices.size(); ++r) {
    run[r].computation = &computation;
    run[r].arguments = arguments[r];
    *run[r].execution_options.add_device_handles() = devices[r];
    run[r].execution_options.set_num_replicas(static_cast<int>(devices.size()));
  }
  return run;
}

// `run` with each process naming its host's executable of the run's
// computation (ClusterClient::Compile) instead of sending it.
std::vector<Client::ComputationInstance> ByHandle(ClusterClient& client,
                                                  std::vector<Client::ComputationInstance> run) {
  std::vector<DeviceHandle> devices;
  for (const Client::ComputationInstance& c : run) devices.push_back(c.execution_options.device_handles(0));
  const std::vector<ExecutionHandle> executables = OrDie(client.Compile(*run[0].computation, devices), "compile");
  for (size_t i = 0; i < run.size(); ++i) {
    run[i].computation = nullptr;
    run[i].executable = executables[i];
  }
  return run;
}

// The best of `reps` calls of `run`, in seconds as the client sees them;
// `best_run`: the best call's slowest host's own run time (its profile).
double TimedRuns(ClusterClient& client, const std::vector<Client::ComputationInstance>& run, int reps,
                 double* best_run) {
  *best_run = 1e30;
  return bench::BestSeconds(reps, [&] {
    std::vector<ExecutionProfile> profiles;
    OrDie(client.ExecuteReplicated(run, &profiles), "cluster run");
    double slowest = 0;
    for (const ExecutionProfile& p : profiles) slowest = std::max(slowest, p.compute_time_ns() * 1e-9);
    *best_run = std::min(*best_run, slowest);
  });
}

// The fixed cost of a cluster run: an all-reduce of 8 floats.
void ClusterAllReduceLatency(ClusterClient& client, const std::vector<DeviceHandle>& devices, int reps) {
  const XlaComputation computation = CrossReplicaSumOf(8);
  std::vector<std::unique_ptr<GlobalData>> owned;
  std::vector<std::vector<GlobalData*>> arguments(kHosts);
  for (int r = 0; r < kHosts; ++r) {
    owned.push_back(OrDie(client.TransferToDevice(bench::RandomLiteral(ShapeUtil::MakeShape(F32, {8}), r),
                                                  devices[r]),
                          "transfer"));
    arguments[r] = {owned.back().get()};
  }
  const std::vector<Client::ComputationInstance> by_program = Instances(computation, devices, arguments);
  const std::vector<Client::ComputationInstance> by_handle = ByHandle(client, by_program);
  OrDie(client.ExecuteReplicated(by_program), "all-reduce");
  OrDie(client.ExecuteReplicated(by_handle), "all-reduce");
  // Alternating rounds, the best of each.
  double program_s = 1e30, handle_s = 1e30, program_run = 1e30, handle_run = 1e30, run_s = 0;
  for (int round = 0; round < 4; ++round) {
    program_s = std::min(program_s, TimedRuns(client, by_program, reps, &run_s));
    program_run = std::min(program_run, run_s);
    handle_s = std::min(handle_s, TimedRuns(client, by_handle, reps, &run_s));
    handle_run = std::min(handle_run, run_s);
  }
  const GetServiceInfoResponse info =
      OrDie(OrDie(client.ClientFor(devices[0]), "host 0")->GetServiceInfo(), "service info");
  std::printf("# allreduce_f32_8_3hosts (the fixed cost of a cluster run): %.2f ms per call by handle, the hosts' "
              "runs %.2f ms; %.2f ms (runs %.2f ms) sending the program; host 0's kept Gloo contexts: %lld "
              "connected, %lld reuses\n",
              handle_s * 1e3, handle_run * 1e3, program_s * 1e3, program_run * 1e3,
              static_cast<long long>(info.cluster_gloo_contexts_connected()),
              static_cast<long long>(info.cluster_gloo_contexts_reused()));
}

// The 16M all-reduce through the cluster, each call after a round of the
// raw one, two ways in turn: donating its operand, whose buffer then holds
// the sum that the next call donates (as a training step updates its
// weights in place; Gloo reduces in place, like the raw run), and keeping
// it (the sum in a new buffer, Gloo copying the operand in as it goes).
// Returns {donating, keeping, raw}, the best seconds of each.
struct AllReduceSeconds {
  double donating = 1e30, keeping = 1e30, raw = 1e30;
};
AllReduceSeconds ClusterAllReduce(ClusterClient& client, const std::vector<DeviceHandle>& devices, RawGloo& raw,
                                  int reps) {
  const XlaComputation computation = CrossReplicaSumOf(kElements, /*in_place=*/true);
  std::vector<std::unique_ptr<GlobalData>> operands;
  std::vector<std::vector<GlobalData*>> arguments(kHosts);
  for (int r = 0; r < kHosts; ++r) {
    Literal x(ShapeUtil::MakeShape(F32, {kElements}));
    absl::Span<float> v = x.data<float>();
    for (int64_t i = 0; i < kElements; ++i) v[i] = static_cast<float>((r + 1) * (i % 7));
    operands.push_back(OrDie(client.TransferToDevice(x, devices[r]), "transfer"));
    arguments[r] = {operands.back().get()};
  }
  std::vector<Client::ComputationInstance> run = ByHandle(client, Instances(computation, devices, arguments));
  // Keeping the operands: the same operands every call.
  const std::vector<Client::ComputationInstance> keeping = run;
  std::vector<std::unique_ptr<GlobalData>> donated;  // the donating calls' operands, then sums
  for (int r = 0; r < kHosts; ++r) {
    donated.push_back(OrDie(client.TransferToDevice(OrDie(OrDie(client.ClientFor(devices[r]), "host")
                                                              ->TransferToClient(*operands[r]),
                                                          "fetch"),
                                                    devices[r]),
                            "transfer"));
    run[r].arguments = {donated.back().get()};
    run[r].donated_arguments = {0};
  }
  // One donating call: the sums become the next call's operands.
  auto donating_call = [&](double* slowest_run) {
    std::vector<ExecutionProfile> profiles;
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<GlobalData>> sums = OrDie(client.ExecuteReplicated(run, &profiles), "all-reduce");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    *slowest_run = 0;
    for (const ExecutionProfile& p : profiles) *slowest_run = std::max(*slowest_run, p.compute_time_ns() * 1e-9);
    donated = std::move(sums);
    for (int r = 0; r < kHosts; ++r) run[r].arguments = {donated[r].get()};
    return seconds;
  };
  raw.Round(0);  // warm-ups, and the sums checked
  double run_seconds = 0;
  donating_call(&run_seconds);
  {
    std::vector<std::unique_ptr<GlobalData>> results = OrDie(client.ExecuteReplicated(keeping), "all-reduce");
    for (int r = 0; r < kHosts; ++r) {
      Client* host = OrDie(client.ClientFor(devices[r]), "host");
      for (const GlobalData* sum : {results[r].get(), donated[r].get()}) {
        Literal got = OrDie(host->TransferToClient(*sum), "fetch");
        for (int64_t i : {int64_t{0}, int64_t{5}, kElements - 1}) {
          if (got.data<float>()[i] != static_cast<float>(6 * (i % 7))) Die("all-reduce: wrong sum");
        }
      }
    }
  }
  AllReduceSeconds best;
  double donating_run = 1e30, keeping_run = 1e30;
  for (int rep = 1; rep <= reps; ++rep) {
    best.raw = std::min(best.raw, raw.Round(rep));
    best.donating = std::min(best.donating, donating_call(&run_seconds));
    donating_run = std::min(donating_run, run_seconds);
    best.keeping = std::min(best.keeping, TimedRuns(client, keeping, 1, &run_seconds));
    keeping_run = std::min(keeping_run, run_seconds);
  }
  std::printf("# allreduce_f32_16M_3hosts: %.1f ms per call as the client sees it donating its operand (the hosts' "
              "runs %.1f ms, the slowest host, best call), %.1f ms keeping it (runs %.1f ms); raw Gloo %.1f ms, its "
              "rounds alternating with these calls\n",
              best.donating * 1e3, donating_run * 1e3, best.keeping * 1e3, keeping_run * 1e3, best.raw * 1e3);
  return best;
}

// The MLP step: data-parallel over the hosts, and the whole batch on one.
void MlpSteps(ClusterClient& client, const std::vector<DeviceHandle>& devices, int reps) {
  const bench::MlpDims per_replica{256, 784, 512, 512, 10};
  bench::MlpDims whole = per_replica;
  whole.batch *= kHosts;
  const XlaComputation dp_step = OrDie(bench::BuildMlpStep(per_replica, 0.01f, kHosts), "build dp step");
  const XlaComputation one_step = OrDie(bench::BuildMlpStep(whole, 0.01f), "build step");
  // Every replica starts from the same weights (seed 7) with its own batch.
  std::vector<std::unique_ptr<GlobalData>> owned;
  std::vector<std::vector<GlobalData*>> arguments(kHosts);
  const std::vector<Literal> weights = bench::MlpInputs(per_replica, 7);
  for (int r = 0; r < kHosts; ++r) {
    std::vector<Literal> inputs = bench::MlpInputs(per_replica, 100 + r);
    for (size_t i = 0; i < inputs.size(); ++i) {
      owned.push_back(OrDie(client.TransferToDevice(i < 2 ? inputs[i] : weights[i], devices[r]), "transfer"));
      arguments[r].push_back(owned.back().get());
    }
  }
  const std::vector<Client::ComputationInstance> run = ByHandle(client, Instances(dp_step, devices, arguments));
  {
    std::vector<std::unique_ptr<GlobalData>> results = OrDie(client.ExecuteReplicated(run), "dp step");
    std::vector<Literal> updated;
    for (int r = 0; r < kHosts; ++r) {
      updated.push_back(OrDie(OrDie(client.ClientFor(devices[r]), "host")->TransferToClient(*results[r]), "fetch"));
    }
    for (int r = 1; r < kHosts; ++r) {
      if (!(updated[r] == updated[0])) Die("mlp dp step: the replicas' weights differ after the step");
    }
  }
  const double dp_seconds = bench::BestSeconds(reps, [&] { OrDie(client.ExecuteReplicated(run), "dp step"); });
  // One host, the whole batch.
  Client* host0 = OrDie(client.ClientFor(devices[0]), "host 0");
  std::vector<Literal> inputs = bench::MlpInputs(whole, 100);
  std::vector<std::unique_ptr<GlobalData>> one_owned;
  std::vector<GlobalData*> one_args;
  for (Literal& l : inputs) {
    one_owned.push_back(OrDie(host0->TransferToServer(l), "transfer"));
    one_args.push_back(one_owned.back().get());
  }
  ExecutionOptions options;
  *options.add_device_handles() = devices[0];
  const ExecutionHandle one = OrDie(host0->Compile(one_step, {}, &options), "compile step");
  OrDie(host0->Execute(one, one_args), "step");
  const double one_seconds = bench::BestSeconds(reps, [&] { OrDie(host0->Execute(one, one_args), "step"); });
  bench::Report("mlp_dp_step_3hosts", dp_seconds * 1e3, "ms", "mlp_step_1host_batch768", one_seconds * 1e3,
                /*higher_is_better=*/false);
}

}  // namespace
}  // namespace xla

int main(int argc, char** argv) {
  int reps = 30;
  int raw_rank = -1, raw_size = 0;
  std::string raw_dir, raw_address;
  std::vector<std::string> daemon_flags;  // for comparisons
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* flag) -> const char* {
      return arg.rfind(flag, 0) == 0 ? arg.c_str() + std::strlen(flag) : nullptr;
    };
    if (const char* v = value("--reps=")) {
      reps = std::atoi(v);
    } else if (const char* v = value("--raw_gloo_rank=")) {
      raw_rank = std::atoi(v);
    } else if (const char* v = value("--raw_gloo_size=")) {
      raw_size = std::atoi(v);
    } else if (const char* v = value("--raw_gloo_dir=")) {
      raw_dir = v;
    } else if (const char* v = value("--raw_gloo_address=")) {
      raw_address = v;
    } else if (const char* v = value("--daemon_flag=")) {
      daemon_flags.push_back(v);
    } else {
      xla::Die("unknown argument '" + arg + "' (usage: cluster_bench [--reps=N] [--daemon_flag=FLAG...])");
    }
  }
  if (reps < 1) xla::Die("--reps must be at least 1");
  if (raw_rank >= 0) return xla::RawGlooWorker(raw_rank, raw_size, raw_dir, raw_address, reps);

  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0) xla::Die("cannot find this binary");
  self[length] = '\0';
  xla::Cluster::Options options;
  options.size = xla::kHosts;
  options.flags = {"--devices=1", "--wait_seconds=300", "--max_session_bytes=4000000000"};
  options.flags.insert(options.flags.end(), daemon_flags.begin(), daemon_flags.end());
  options.network_namespaces = true;
  std::unique_ptr<xla::Cluster> cluster = xla::OrDie(xla::Cluster::Start(options), "start the cluster");
  std::printf("# cluster_bench: %d hosts on %s, 1 device each\n", xla::kHosts, cluster->mode().c_str());
  xla::GrpcClientOptions client_options;
  client_options.auth_token = cluster->token();
  std::unique_ptr<xla::ClusterClient> client =
      xla::OrDie(xla::ClusterClient::Connect(cluster->daemon(0).target(), client_options), "connect");
  const std::vector<xla::DeviceHandle> devices = xla::OrDie(client->GetDeviceHandles(xla::kHosts), "devices");

  const double bytes = static_cast<double>(xla::kElements) * sizeof(float);
  xla::ClusterAllReduceLatency(*client, devices, reps);
  xla::AllReduceSeconds seconds;
  {
    xla::RawGloo raw_gloo(*cluster, self, reps);
    seconds = xla::ClusterAllReduce(*client, devices, raw_gloo, reps);
  }
  xla::bench::Report("allreduce_f32_16M_3hosts", bytes / seconds.donating / 1e9, "GB/s",
                     "raw_gloo_ring_allreduce_3hosts", bytes / seconds.raw / 1e9, /*higher_is_better=*/true);
  xla::bench::Report("allreduce_f32_16M_3hosts_operand_kept", bytes / seconds.keeping / 1e9, "GB/s",
                     "raw_gloo_ring_allreduce_3hosts", bytes / seconds.raw / 1e9, /*higher_is_better=*/true);
  xla::MlpSteps(*client, devices, reps);
  return 0;
}
