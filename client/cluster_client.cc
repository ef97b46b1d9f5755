#include "client/cluster_client.h"

#include <algorithm>
#include <thread>

#include "absl/random/random.h"
#include "absl/strings/str_format.h"
#include "xla/status_macros.h"

namespace xla {

absl::StatusOr<std::unique_ptr<ClusterClient>> ClusterClient::Connect(const std::string& target,
                                                                     const GrpcClientOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<GrpcClient> first, GrpcClient::Connect(target, options));
  return absl::WrapUnique(new ClusterClient(target, options, std::move(first)));
}

absl::StatusOr<std::vector<DeviceHandle>> ClusterClient::GetDeviceHandles(int64_t count) {
  return first_->GetDeviceHandles(count);
}

absl::StatusOr<Client*> ClusterClient::ClientAt(const std::string& address) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<GrpcClient>& client = clients_[address];
  if (client == nullptr) {
    absl::StatusOr<std::unique_ptr<GrpcClient>> connected = GrpcClient::Connect(address, options_);
    if (!connected.ok()) {
      clients_.erase(address);
      return absl::Status(connected.status().code(),
                          absl::StrCat("cluster host ", address, ": ", connected.status().message()));
    }
    client = std::move(*connected);
  }
  return client.get();
}

absl::StatusOr<Client*> ClusterClient::ClientFor(const DeviceHandle& device) {
  if (device.host_address().empty()) {
    return InvalidArgument("device %d names no host (not a handle of a cluster's GetDeviceHandles)",
                           device.handle());
  }
  return ClientAt(device.host_address());
}

absl::StatusOr<std::unique_ptr<GlobalData>> ClusterClient::TransferToDevice(const Literal& literal,
                                                                           const DeviceHandle& device) {
  ASSIGN_OR_RETURN(Client * client, ClientFor(device));
  return client->TransferToServer(literal);
}

absl::StatusOr<std::vector<ExecutionHandle>> ClusterClient::Compile(const XlaComputation& computation,
                                                                    absl::Span<const DeviceHandle> devices,
                                                                    const ExecutionOptions* options) {
  if (devices.empty()) return InvalidArgument("Compile: no devices");
  std::vector<std::string> hosts;
  std::vector<size_t> host_of_device;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].host_address().empty()) {
      return InvalidArgument("Compile: device %d (handle %d) names no host", i, devices[i].handle());
    }
    auto it = std::find(hosts.begin(), hosts.end(), devices[i].host_address());
    host_of_device.push_back(it - hosts.begin());
    if (it == hosts.end()) hosts.push_back(devices[i].host_address());
  }
  ExecutionOptions host_options = options != nullptr ? *options : ExecutionOptions();
  host_options.clear_device_handles();
  std::vector<absl::StatusOr<ExecutionHandle>> handles(hosts.size(), absl::UnknownError("not compiled"));
  std::vector<std::thread> threads;
  for (size_t h = 0; h < hosts.size(); ++h) {
    threads.emplace_back([&, h] {
      absl::StatusOr<Client*> client = ClientAt(hosts[h]);
      handles[h] = client.ok() ? (*client)->Compile(computation, {}, &host_options) : client.status();
    });
  }
  for (std::thread& t : threads) t.join();
  absl::Status failed;
  for (size_t h = 0; h < hosts.size(); ++h) {
    if (!handles[h].ok() && failed.ok()) {
      failed = absl::Status(handles[h].status().code(),
                            absl::StrCat("host ", hosts[h], ": ", handles[h].status().message()));
    }
  }
  if (!failed.ok()) {
    // The hosts that did compile keep no executable the caller cannot name.
    for (size_t h = 0; h < hosts.size(); ++h) {
      if (!handles[h].ok()) continue;
      if (absl::StatusOr<Client*> client = ClientAt(hosts[h]); client.ok()) {
        (*client)->UnregisterExecutable(*handles[h]).IgnoreError();
      }
    }
    return failed;
  }
  std::vector<ExecutionHandle> out;
  for (size_t i = 0; i < devices.size(); ++i) out.push_back(*handles[host_of_device[i]]);
  return out;
}

absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>> ClusterClient::ExecuteReplicated(
    absl::Span<const Client::ComputationInstance> computations, std::vector<ExecutionProfile>* profiles) {
  if (computations.empty()) return InvalidArgument("ExecuteReplicated: no computations");
  ClusterRun run;
  absl::BitGen gen;
  run.set_run_id(absl::StrFormat("%016x%016x", absl::Uniform<uint64_t>(gen), absl::Uniform<uint64_t>(gen)));
  // Each host's processes, in process order.
  std::vector<std::string> hosts;
  absl::flat_hash_map<std::string, std::vector<size_t>> processes_of_host;
  for (size_t i = 0; i < computations.size(); ++i) {
    RETURN_IF_ERROR(Client::CheckInstance(computations[i], i));
    const ExecutionOptions& options = computations[i].execution_options;
    if (options.device_handles_size() != 1) {
      return InvalidArgument("ExecuteReplicated: computation %d names %d devices; each names exactly one", i,
                             options.device_handles_size());
    }
    const DeviceHandle& device = options.device_handles(0);
    *run.add_devices() = device;
    if (device.host_address().empty()) {
      return InvalidArgument("ExecuteReplicated: computation %d's device %d names no host", i, device.handle());
    }
    auto [it, added] = processes_of_host.try_emplace(device.host_address());
    if (added) hosts.push_back(device.host_address());
    it->second.push_back(i);
  }
  std::vector<Client*> clients;
  for (const std::string& host : hosts) {
    ASSIGN_OR_RETURN(Client * client, ClientAt(host));
    clients.push_back(client);
  }
  // Every host at once: each waits in its collectives for the others.
  std::vector<absl::StatusOr<std::vector<std::unique_ptr<GlobalData>>>> results(hosts.size());
  std::vector<std::vector<ExecutionProfile>> host_profiles(hosts.size());
  std::vector<std::thread> threads;
  for (size_t h = 0; h < hosts.size(); ++h) {
    threads.emplace_back([&, h] {
      std::vector<Client::ComputationInstance> mine;
      for (size_t i : processes_of_host[hosts[h]]) mine.push_back(computations[i]);
      results[h] = clients[h]->ExecuteParallel(mine, &host_profiles[h], &run);
    });
  }
  for (std::thread& t : threads) t.join();
  // The first host's own failure, not an abort it caused in the others.
  for (size_t h = 0; h < hosts.size(); ++h) {
    if (!results[h].ok() && results[h].status().code() != absl::StatusCode::kAborted) {
      return absl::Status(results[h].status().code(),
                          absl::StrCat("host ", hosts[h], ": ", results[h].status().message()));
    }
  }
  std::vector<std::unique_ptr<GlobalData>> out(computations.size());
  if (profiles != nullptr) profiles->assign(computations.size(), ExecutionProfile());
  for (size_t h = 0; h < hosts.size(); ++h) {
    if (!results[h].ok()) {
      return absl::Status(results[h].status().code(),
                          absl::StrCat("host ", hosts[h], ": ", results[h].status().message()));
    }
    const std::vector<size_t>& indices = processes_of_host[hosts[h]];
    for (size_t k = 0; k < indices.size(); ++k) {
      out[indices[k]] = std::move((*results[h])[k]);
      if (profiles != nullptr && k < host_profiles[h].size()) (*profiles)[indices[k]] = host_profiles[h][k];
    }
  }
  return out;
}

}  // namespace xla
