// cluster_demo (`tools/xla cluster-demo`): starts a cluster of three
// xla_service daemons on this machine (network namespaces with their own
// addresses when root, else loopback ports; tools/cluster_launcher.h) and
// trains the MLP data-parallel across it: each host holds one replica's
// batch, the gradients are averaged with cross-replica sums over Gloo, and
// the weights stay on the hosts from step to step. After every step it
// checks that the three replicas hold the same weights, bit for bit, and
// that they match one host doing the whole batch (up to float rounding: the
// sums across hosts run in Gloo's order). Exits nonzero on any mismatch.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/cluster_client.h"
#include "tools/bench/bench_models.h"
#include "tools/cluster_launcher.h"
#include "xla/literal_comparison.h"

namespace xla {
namespace {

constexpr int kHosts = 3;
constexpr int kSteps = 5;

template <typename T>
T OrDie(absl::StatusOr<T> value, const std::string& what) {
  if (!value.ok()) {
    std::fprintf(stderr, "cluster-demo: %s: %s\n", what.c_str(), value.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(*value);
}

int Main() {
  Cluster::Options options;
  options.size = kHosts;
  options.flags = {"--devices=1"};
  options.network_namespaces = true;
  std::unique_ptr<Cluster> cluster = OrDie(Cluster::Start(options), "start the cluster");
  std::printf("cluster-demo: %d xla_service daemons on %s; coordinator %s\n", kHosts, cluster->mode().c_str(),
              cluster->coordinator().c_str());
  GrpcClientOptions client_options;
  client_options.auth_token = cluster->token();
  std::unique_ptr<ClusterClient> client =
      OrDie(ClusterClient::Connect(cluster->daemon(0).target(), client_options), "connect to host 0");
  const std::vector<DeviceHandle> devices = OrDie(client->GetDeviceHandles(kHosts), "GetDeviceHandles");
  for (const DeviceHandle& d : devices) {
    std::printf("  device %lld on host %d (%s)\n", static_cast<long long>(d.handle()), d.host(),
                d.host_address().c_str());
  }

  const bench::MlpDims per_replica{32, 64, 48, 32, 10};
  bench::MlpDims whole = per_replica;
  whole.batch *= kHosts;
  const XlaComputation dp_step = OrDie(bench::BuildMlpStep(per_replica, 0.1f, kHosts), "build the dp step");
  const XlaComputation one_step = OrDie(bench::BuildMlpStep(whole, 0.1f), "build the one-host step");

  // Replica r's batch is rows [32 r, 32 r + 32) of the whole batch; every
  // replica starts from the same weights.
  std::vector<Literal> all = bench::MlpInputs(whole, 42);
  std::vector<std::vector<std::unique_ptr<GlobalData>>> data(kHosts);  // x, y, then the 6 weights
  for (int r = 0; r < kHosts; ++r) {
    for (int i = 0; i < 2; ++i) {
      const int64_t cols = all[i].shape().dimensions(1);
      Literal part(ShapeUtil::MakeShape(F32, {per_replica.batch, cols}));
      std::copy_n(all[i].data<float>().begin() + r * per_replica.batch * cols, per_replica.batch * cols,
                  part.data<float>().begin());
      data[r].push_back(OrDie(client->TransferToDevice(part, devices[r]), "transfer a batch"));
    }
    for (size_t i = 2; i < all.size(); ++i) {
      data[r].push_back(OrDie(client->TransferToDevice(all[i], devices[r]), "transfer the weights"));
    }
  }
  // The reference: one host, the whole batch.
  Client* host0 = OrDie(client->ClientFor(devices[0]), "host 0");
  std::vector<std::unique_ptr<GlobalData>> reference;
  for (Literal& l : all) reference.push_back(OrDie(host0->TransferToServer(l), "transfer the reference"));

  int failures = 0;
  for (int step = 1; step <= kSteps; ++step) {
    std::vector<Client::ComputationInstance> run(kHosts);
    for (int r = 0; r < kHosts; ++r) {
      run[r].computation = &dp_step;
      for (auto& d : data[r]) run[r].arguments.push_back(d.get());
      *run[r].execution_options.add_device_handles() = devices[r];
      run[r].execution_options.set_num_replicas(kHosts);
    }
    std::vector<std::unique_ptr<GlobalData>> results = OrDie(client->ExecuteReplicated(run), "dp step");
    std::vector<GlobalData*> reference_args;
    for (auto& d : reference) reference_args.push_back(d.get());
    std::unique_ptr<GlobalData> reference_result = OrDie(host0->Execute(one_step, reference_args), "one-host step");

    // The new weights stay on each host: they are the next step's inputs.
    std::vector<Literal> weights(kHosts);
    float loss = 0;
    for (int r = 0; r < kHosts; ++r) {
      Client* host = OrDie(client->ClientFor(devices[r]), "host");
      std::vector<std::unique_ptr<GlobalData>> parts = OrDie(host->DeconstructTuple(*results[r]), "deconstruct");
      for (int i = 0; i < 6; ++i) data[r][2 + i] = std::move(parts[i]);
      Literal value = OrDie(host->TransferToClient(*results[r]), "fetch a replica's step");
      std::vector<Literal> pieces = std::move(value).DecomposeTuple();
      loss = pieces[6].data<float>()[0];
      pieces.pop_back();
      weights[r] = Literal::MakeTuple(std::move(pieces));
    }
    bool identical = true;
    for (int r = 1; r < kHosts; ++r) identical &= weights[r] == weights[0];
    std::vector<std::unique_ptr<GlobalData>> reference_parts =
        OrDie(host0->DeconstructTuple(*reference_result), "deconstruct the reference");
    Literal reference_value = OrDie(host0->TransferToClient(*reference_result), "fetch the reference");
    std::vector<Literal> reference_pieces = std::move(reference_value).DecomposeTuple();
    reference_pieces.pop_back();
    const absl::Status near =
        literal_comparison::Near(Literal::MakeTuple(std::move(reference_pieces)), weights[0], ErrorSpec{1e-5, 1e-4});
    for (int i = 0; i < 6; ++i) reference[2 + i] = std::move(reference_parts[i]);
    std::printf("step %d: loss %.6f; weights identical on all %d hosts: %s; match one host with the whole batch: %s\n",
                step, loss, kHosts, identical ? "yes" : "NO", near.ok() ? "yes" : std::string(near.message()).c_str());
    failures += !identical + !near.ok();
  }
  std::printf("cluster-demo: %s\n", failures == 0 ? "all steps match" : "MISMATCH");
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace xla

int main() { return xla::Main(); }
