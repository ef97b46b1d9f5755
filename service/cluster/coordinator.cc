#include "service/cluster/coordinator.h"

#include <algorithm>
#include <functional>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_format.h"
#include "service/grpc_metadata.h"

namespace xla {
namespace {

constexpr size_t kMaxKeyBytes = 1024;
constexpr size_t kMaxValueBytes = size_t{1} << 20;
constexpr size_t kMaxAddressBytes = 256;
constexpr int kMaxDevices = 4096;

grpc::Status Fail(grpc::StatusCode code, const std::string& message) { return grpc::Status(code, message); }

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

std::string NewIncarnation() {
  absl::BitGen gen;
  return absl::StrFormat("%016x", absl::Uniform<uint64_t>(gen));
}

ContextRegistry::Options RegistryOptions(const ClusterCoordinator::Options& options) {
  ContextRegistry::Options out;
  out.cluster_size = std::max(options.cluster_size, 1);
  out.run_ttl = options.store_ttl;
  return out;
}

}  // namespace

ClusterCoordinator::ClusterCoordinator(const Options& options)
    : options_(options),
      hosts_(std::max(options.cluster_size, 1)),
      last_heartbeat_(std::max(options.cluster_size, 1), absl::InfinitePast()),
      incarnation_(NewIncarnation()),
      contexts_(RegistryOptions(options)) {}

bool ClusterCoordinator::AwaitOrCancel(grpc::ServerContext* context, absl::Duration limit,
                                       const std::function<bool()>& ready) {
  absl::Time deadline = absl::Now() + std::min(limit, options_.max_wait);
  if (context->deadline() != std::chrono::system_clock::time_point::max()) {
    deadline = std::min(deadline, absl::FromChrono(context->deadline()));
  }
  auto condition = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return ready(); };
  // Short slices, so a client that hangs up frees its thread soon.
  while (!condition()) {
    const absl::Time now = absl::Now();
    if (now >= deadline || context->IsCancelled()) return false;
    mu_.AwaitWithDeadline(absl::Condition(&condition), std::min(deadline, now + absl::Milliseconds(100)));
  }
  return true;
}

grpc::Status ClusterCoordinator::Register(grpc::ServerContext* context, const RegisterHostRequest* request,
                                          RegisterHostResponse* response) {
  if (absl::Status auth = CheckAuthToken(*context, options_.auth_token); !auth.ok()) {
    std::fprintf(stderr, "xla_service: cluster: refused a registration from %s: %s\n", context->peer().c_str(),
                 std::string(auth.message()).c_str());
    return ToGrpc(auth);
  }
  const ClusterHost& host = request->host();
  if (request->cluster_size() != options_.cluster_size) {
    return Fail(grpc::StatusCode::INVALID_ARGUMENT,
                absl::StrCat("rank ", host.rank(), " joins a cluster of ", request->cluster_size(),
                             " hosts, but this coordinator's cluster has ", options_.cluster_size));
  }
  if (host.rank() < 0 || host.rank() >= options_.cluster_size) {
    return Fail(grpc::StatusCode::INVALID_ARGUMENT,
                absl::StrCat("rank ", host.rank(), " is outside the cluster's ranks 0 to ", options_.cluster_size - 1));
  }
  if (host.service_address().empty() || host.service_address().size() > kMaxAddressBytes) {
    return Fail(grpc::StatusCode::INVALID_ARGUMENT, "a host must give its service address (at most 256 bytes)");
  }
  if (host.num_devices() < 1 || host.num_devices() > kMaxDevices) {
    return Fail(grpc::StatusCode::INVALID_ARGUMENT,
                absl::StrCat("rank ", host.rank(), " has ", host.num_devices(), " devices; 1 to 4096 are allowed"));
  }
  // A restarted daemon has none of the contexts its earlier self kept.
  contexts_.RetireHost(host.rank());
  absl::MutexLock lock(&mu_);
  hosts_[host.rank()] = host;
  last_heartbeat_[host.rank()] = absl::Now();
  incarnation_ = NewIncarnation();
  std::fprintf(stderr, "xla_service: cluster: rank %d registered (%s, %d devices)\n", host.rank(),
               host.service_address().c_str(), host.num_devices());
  auto all_registered = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return std::all_of(hosts_.begin(), hosts_.end(), [](const auto& h) { return h.has_value(); });
  };
  if (!AwaitOrCancel(context, options_.max_wait, all_registered)) {
    std::vector<int> missing;
    for (int r = 0; r < options_.cluster_size; ++r) {
      if (!hosts_[r].has_value()) missing.push_back(r);
    }
    return Fail(grpc::StatusCode::DEADLINE_EXCEEDED,
                absl::StrCat("the cluster did not form: ranks ", absl::StrJoin(missing, ", "), " never registered"));
  }
  for (const auto& h : hosts_) *response->add_hosts() = *h;
  response->set_incarnation(incarnation_);
  return grpc::Status::OK;
}

grpc::Status ClusterCoordinator::Heartbeat(grpc::ServerContext* context, const HeartbeatRequest* request,
                                           HeartbeatResponse* response) {
  if (grpc::Status caller = CheckCaller(context, request->rank()); !caller.ok()) return caller;
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  last_heartbeat_[request->rank()] = now;
  for (int r = 0; r < options_.cluster_size; ++r) {
    if (!hosts_[r].has_value() || now - last_heartbeat_[r] > options_.heartbeat_timeout) {
      response->add_lost_ranks(r);
      contexts_.RetireHost(r);
    }
  }
  response->set_incarnation(incarnation_);
  return grpc::Status::OK;
}

void ClusterCoordinator::Erase(absl::flat_hash_map<std::string, StoredValue>::iterator it) {
  store_bytes_ -= it->first.size() + it->second.bytes.size();
  store_.erase(it);
}

void ClusterCoordinator::DropExpired() {
  const absl::Time now = absl::Now();
  for (auto it = store_.begin(); it != store_.end();) {
    if (it->second.expires < now) {
      Erase(it++);
    } else {
      ++it;
    }
  }
}

grpc::Status ClusterCoordinator::StoreSet(grpc::ServerContext* context, const StoreSetRequest* request,
                                          StoreSetResponse*) {
  if (absl::Status auth = CheckAuthToken(*context, options_.auth_token); !auth.ok()) return ToGrpc(auth);
  if (request->key().empty() || request->key().size() > kMaxKeyBytes || request->value().size() > kMaxValueBytes) {
    return Fail(grpc::StatusCode::INVALID_ARGUMENT, "store keys are 1 byte to 1 KiB, values at most 1 MiB");
  }
  absl::MutexLock lock(&mu_);
  DropExpired();
  const int64_t added = request->key().size() + request->value().size();
  auto it = store_.find(request->key());
  if (it != store_.end() && request->if_absent()) return grpc::Status::OK;
  const int64_t replaced = it == store_.end() ? 0 : it->first.size() + it->second.bytes.size();
  if (store_bytes_ - replaced + added > options_.max_store_bytes) {
    return Fail(grpc::StatusCode::RESOURCE_EXHAUSTED,
                absl::StrCat("the cluster store is full (", options_.max_store_bytes, " bytes)"));
  }
  store_bytes_ += added - replaced;
  store_[request->key()] = StoredValue{request->value(), absl::Now() + options_.store_ttl};
  return grpc::Status::OK;
}

grpc::Status ClusterCoordinator::StoreGet(grpc::ServerContext* context, const StoreGetRequest* request,
                                          StoreGetResponse* response) {
  if (absl::Status auth = CheckAuthToken(*context, options_.auth_token); !auth.ok()) return ToGrpc(auth);
  if (request->key().empty() || request->key().size() > kMaxKeyBytes) {
    return Fail(grpc::StatusCode::INVALID_ARGUMENT, "store keys are 1 byte to 1 KiB");
  }
  absl::MutexLock lock(&mu_);
  auto present = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return store_.contains(request->key()); };
  if (!AwaitOrCancel(context, absl::Milliseconds(std::max<int64_t>(request->timeout_ms(), 0)), present)) {
    return Fail(grpc::StatusCode::DEADLINE_EXCEEDED, absl::StrCat("store key '", request->key(), "' was not set"));
  }
  response->set_value(store_.at(request->key()).bytes);
  return grpc::Status::OK;
}

grpc::Status ClusterCoordinator::StoreDelete(grpc::ServerContext* context, const StoreDeleteRequest* request,
                                             StoreDeleteResponse*) {
  if (absl::Status auth = CheckAuthToken(*context, options_.auth_token); !auth.ok()) return ToGrpc(auth);
  absl::MutexLock lock(&mu_);
  for (const std::string& key : request->keys()) {
    auto it = store_.find(key);
    if (it != store_.end()) Erase(it);
  }
  return grpc::Status::OK;
}

grpc::Status ClusterCoordinator::CheckCaller(grpc::ServerContext* context, int rank) const {
  if (absl::Status auth = CheckAuthToken(*context, options_.auth_token); !auth.ok()) return ToGrpc(auth);
  if (rank < 0 || rank >= options_.cluster_size) {
    return Fail(grpc::StatusCode::INVALID_ARGUMENT, absl::StrCat("no rank ", rank));
  }
  return grpc::Status::OK;
}

grpc::Status ClusterCoordinator::ClaimContext(grpc::ServerContext* context, const ClaimContextRequest* request,
                                              ClaimContextResponse* response) {
  if (grpc::Status caller = CheckCaller(context, request->rank()); !caller.ok()) return caller;
  if (request->hosts_size() > options_.cluster_size) {
    return Fail(grpc::StatusCode::INVALID_ARGUMENT, "a context claim names more hosts than the cluster has");
  }
  absl::StatusOr<ContextRegistry::Claim> claim = contexts_.ClaimContext(
      request->rank(), request->run_id(), request->group(), {request->hosts().begin(), request->hosts().end()});
  if (!claim.ok()) return ToGrpc(claim.status());
  response->set_context_id(claim->context_id);
  for (int64_t id : claim->live_ids) response->add_live_ids(id);
  return grpc::Status::OK;
}

grpc::Status ClusterCoordinator::ReleaseContexts(grpc::ServerContext* context, const ReleaseContextsRequest* request,
                                                 ReleaseContextsResponse*) {
  if (grpc::Status caller = CheckCaller(context, request->rank()); !caller.ok()) return caller;
  contexts_.Release(request->rank(), request->run_id(), request->context_ids(), request->ok());
  return grpc::Status::OK;
}

grpc::Status ClusterCoordinator::AbortRunContexts(grpc::ServerContext* context, const AbortRunContextsRequest* request,
                                                  AbortRunContextsResponse* response) {
  if (grpc::Status caller = CheckCaller(context, request->rank()); !caller.ok()) return caller;
  if (request->run_id().empty() || request->run_id().size() > kMaxKeyBytes) {
    return Fail(grpc::StatusCode::INVALID_ARGUMENT, "a run id is 1 byte to 1 KiB");
  }
  for (int64_t id : contexts_.AbortRun(request->run_id())) response->add_context_ids(id);
  return grpc::Status::OK;
}

int64_t ClusterCoordinator::store_bytes() const {
  absl::MutexLock lock(&mu_);
  return store_bytes_;
}

}  // namespace xla
