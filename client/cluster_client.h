// ClusterClient: an application's view of a cluster of xla_service daemons
// (xla_service --cluster_*). It connects to any one daemon, gets devices
// across the cluster from it (each DeviceHandle names its host's address),
// and opens a session on every other host the first time one of its
// devices is used. Buffers live on the host of their device: transfers go
// there, and a replicated run's arguments must be on its processes' hosts.
//
// A replicated run over devices on several hosts is one ExecuteReplicated
// call: the client sends each host the requests of its own processes, all at
// once, tagged with one run id (128 random bits) and the run's whole device
// assignment; each daemon runs its local processes, and their collectives
// meet across hosts through Gloo. Every host compiles the computation once
// (its compilation cache serves later runs), or Compile does it up front and
// runs name the executables, so that no run sends or looks up the program.
#ifndef CLIENT_CLUSTER_CLIENT_H_
#define CLIENT_CLUSTER_CLIENT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "client/client.h"
#include "client/grpc_client.h"

namespace xla {

class ClusterClient {
 public:
  // `target`: any daemon of the cluster (HOST:PORT). `options` serve every
  // host (one auth token and TLS root for the cluster).
  static absl::StatusOr<std::unique_ptr<ClusterClient>> Connect(const std::string& target,
                                                               const GrpcClientOptions& options = {});

  // `count` devices across the cluster, spread over its hosts (one per
  // host before a second on any; GetDeviceHandles on the daemon).
  absl::StatusOr<std::vector<DeviceHandle>> GetDeviceHandles(int64_t count);

  // The client of the host that owns `device` (its session opened on first
  // use). Its GlobalData live on that host.
  absl::StatusOr<Client*> ClientFor(const DeviceHandle& device);

  absl::StatusOr<std::unique_ptr<GlobalData>> TransferToDevice(const Literal& literal, const DeviceHandle& device);

  // Compiles `computation` once on each host that owns one of `devices`
  // (all hosts at once), for ExecuteReplicated runs that name executables
  // instead of sending the program with every run: result i is the
  // executable on the host of devices[i]. `options` as for Client::Compile
  // (its device handles are not used: code does not depend on the device).
  // Release with ClientFor(devices[i])->UnregisterExecutable.
  absl::StatusOr<std::vector<ExecutionHandle>> Compile(const XlaComputation& computation,
                                                       absl::Span<const DeviceHandle> devices,
                                                       const ExecutionOptions* options = nullptr);

  // One replicated run: computations[i] is process i (replica-major, as
  // ExecuteParallel), on the device its execution_options name (exactly
  // one), with arguments on that device's host; a process given by its
  // executable names the one Compile returned for its device. Returns every process's
  // result handle, on its host. One failing process (or host) fails the
  // call with the first failure.
  absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> ExecuteReplicated(
      absl::Span<const Client::ComputationInstance> computations, std::vector<ExecutionProfile>* profiles = nullptr);

 private:
  ClusterClient(std::string target, GrpcClientOptions options, std::unique_ptr<GrpcClient> first)
      : options_(std::move(options)) {
    clients_[target] = std::move(first);
    first_ = clients_[target].get();
  }
  absl::StatusOr<Client*> ClientAt(const std::string& address);

  const GrpcClientOptions options_;
  Client* first_ = nullptr;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<GrpcClient>> clients_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xla

#endif  // CLIENT_CLUSTER_CLIENT_H_
