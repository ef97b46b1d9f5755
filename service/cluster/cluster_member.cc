#include "service/cluster/cluster_member.h"

#include <gloo/transport/tcp/device.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "service/cluster/cluster_call.h"
#include "service/cluster/coordinator_store.h"
#include "service/cluster/gloo_context_pool.h"
#include "xla/collectives/gloo_communicator.h"
#include "xla/status_macros.h"

namespace xla {
ClusterMember::ClusterMember(const Options& options, std::shared_ptr<grpc::Channel> channel)
    : options_(options), channel_(std::move(channel)), stub_(XlaCluster::NewStub(channel_)) {}

absl::StatusOr<std::unique_ptr<ClusterMember>> ClusterMember::Join(const Options& options) {
  if (options.cluster_size < 1 || options.rank < 0 || options.rank >= options.cluster_size) {
    return InvalidArgument("cluster: rank %d is outside a cluster of %d hosts", options.rank, options.cluster_size);
  }
  if (options.coordinator.empty()) return InvalidArgument("cluster: needs a coordinator address (HOST:PORT)");
  if (options.gloo_address.empty() || options.gloo_address == "0.0.0.0" || options.gloo_address == "::") {
    return InvalidArgument("cluster: Gloo needs this host's own address, not '%s'", options.gloo_address);
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      options.credentials != nullptr ? options.credentials : grpc::InsecureChannelCredentials();
  std::unique_ptr<ClusterMember> member(
      new ClusterMember(options, grpc::CreateChannel(options.coordinator, credentials)));

  RegisterHostRequest request;
  request.set_cluster_size(options.cluster_size);
  request.mutable_host()->set_rank(options.rank);
  request.mutable_host()->set_service_address(options.service_address);
  request.mutable_host()->set_num_devices(options.num_devices);
  RegisterHostResponse response;
  grpc::ClientContext context;
  PrepareClusterCall(&context, options.auth_token, options.join_timeout);
  // The coordinator may start after this daemon: wait for it.
  context.set_wait_for_ready(true);
  RETURN_IF_ERROR(ClusterCallStatus(member->stub_->Register(&context, request, &response),
                           absl::StrCat("cluster: rank ", options.rank, " could not join through ",
                                        options.coordinator)));
  if (response.hosts_size() != options.cluster_size) {
    return Internal("cluster: the coordinator returned %d hosts for a cluster of %d", response.hosts_size(),
                    options.cluster_size);
  }
  member->offsets_.push_back(0);
  for (int r = 0; r < options.cluster_size; ++r) {
    const ClusterHost& host = response.hosts(r);
    if (host.rank() != r || host.num_devices() < 1) return Internal("cluster: the coordinator's host table is malformed");
    member->hosts_.push_back(host);
    member->offsets_.push_back(member->offsets_.back() + host.num_devices());
  }
  member->incarnation_ = response.incarnation();
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = options.gloo_address;
    member->device_ = gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("cluster: cannot open Gloo's TCP device on ", options.gloo_address, ": ", e.what()));
  }
  member->pool_ = std::make_shared<GlooContextPool>(member->stub_.get(), options.auth_token, options.rank);
  member->heartbeat_ = std::thread([m = member.get()] { m->HeartbeatLoop(); });
  return member;
}

ClusterMember::~ClusterMember() {
  stopping_.Notify();
  if (heartbeat_.joinable()) heartbeat_.join();
  absl::MutexLock lock(&mu_);
  retired_.clear();
}

bool ClusterMember::IsOtherIn(int host, const std::vector<int>& ranks) const {
  return host != options_.rank && std::find(ranks.begin(), ranks.end(), host) != ranks.end();
}

int ClusterMember::HostOfDevice(int64_t ordinal) const {
  if (ordinal < 0 || ordinal >= total_devices()) return -1;
  return static_cast<int>(std::upper_bound(offsets_.begin(), offsets_.end(), ordinal) - offsets_.begin()) - 1;
}

std::string ClusterMember::HostName(int rank) const {
  if (rank < 0 || rank >= static_cast<int>(hosts_.size())) return absl::StrCat("host ", rank);
  return absl::StrCat("host ", rank, " (", hosts_[rank].service_address(), ")");
}

std::vector<int> ClusterMember::lost_ranks() const {
  absl::MutexLock lock(&mu_);
  return lost_;
}

std::vector<int> ClusterMember::WaitForLost(const std::vector<int>& hosts, absl::Duration wait) const {
  absl::MutexLock lock(&mu_);
  auto lost_among = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<int> out;
    for (int host : hosts) {
      if (IsOtherIn(host, lost_)) out.push_back(host);
    }
    return out;
  };
  auto any = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !lost_among().empty(); };
  mu_.AwaitWithTimeout(absl::Condition(&any), wait);
  return lost_among();
}

void ClusterMember::Retire(const std::string& run_id, std::shared_ptr<collectives::Communicator> communicator) {
  pool_->Release(run_id, communicator->aborted().ok());
  absl::MutexLock lock(&mu_);
  retired_.push_back(std::move(communicator));
}

void ClusterMember::HeartbeatLoop() {
  while (!stopping_.WaitForNotificationWithTimeout(options_.heartbeat_interval)) {
    std::vector<std::shared_ptr<collectives::Communicator>> retired;
    {
      absl::MutexLock lock(&mu_);
      retired.swap(retired_);
    }
    retired.clear();  // here, outside the lock
    HeartbeatRequest request;
    request.set_rank(options_.rank);
    request.set_incarnation(incarnation_);
    HeartbeatResponse response;
    grpc::ClientContext context;
    PrepareClusterCall(&context, options_.auth_token, 4 * options_.heartbeat_interval);
    const grpc::Status status = stub_->Heartbeat(&context, request, &response);
    std::vector<int> lost;
    if (status.ok()) {
      lost.assign(response.lost_ranks().begin(), response.lost_ranks().end());
    } else {
      // No coordinator: this host cannot tell who is alive.
      for (int r = 0; r < options_.cluster_size; ++r) {
        if (r != options_.rank) lost.push_back(r);
      }
    }
    absl::MutexLock lock(&mu_);
    if (lost != lost_) {
      std::fprintf(stderr, "xla_service: cluster: lost ranks now [%s]%s\n", absl::StrJoin(lost, ", ").c_str(),
                   status.ok() ? "" : " (the coordinator does not answer)");
    }
    AbortRunsWith(lost, !status.ok());
    lost_ = std::move(lost);
  }
}

std::string ClusterMember::AbortKey(const std::string& run_id) { return absl::StrCat(run_id, "/aborted"); }

void ClusterMember::AbortRun(const std::string& run_id, const absl::Status& status) {
  CoordinatorStore store(stub_.get(), options_.auth_token, absl::Seconds(2), AbortKey(run_id));
  store.PublishAbort(absl::StrCat(HostName(options_.rank), " could not run its part: ", status.message()));
  pool_->AbortRun(run_id);
}

void ClusterMember::AbortRunsWith(const std::vector<int>& lost, bool coordinator_lost) {
  std::vector<ActiveRun> still;
  for (ActiveRun& run : runs_) {
    std::shared_ptr<collectives::Communicator> communicator = run.communicator.lock();
    if (communicator == nullptr) continue;  // ended
    std::vector<std::string> gone;
    for (int host : run.hosts) {
      if (IsOtherIn(host, lost)) {
        gone.push_back(HostName(host));
      }
    }
    if (gone.empty()) {
      still.push_back(std::move(run));
      continue;
    }
    const std::string why =
        coordinator_lost
            ? absl::StrCat("the cluster coordinator (", options_.coordinator, ") does not answer: cannot tell whether ",
                           absl::StrJoin(gone, ", "), " are alive")
            : absl::StrCat(absl::StrJoin(gone, ", "), " left the cluster (no heartbeat within the coordinator's bound)");
    std::fprintf(stderr, "xla_service: cluster: aborting run %s: %s\n", run.run_id.c_str(), why.c_str());
    if (std::shared_ptr<CoordinatorStore> store = run.store.lock()) store->Cancel(why);
    communicator->Abort(absl::UnavailableError(absl::StrCat("cluster run ", run.run_id, ": ", why)));
  }
  runs_ = std::move(still);
}

absl::StatusOr<std::shared_ptr<collectives::Communicator>> ClusterMember::MakeCommunicator(
    const std::string& run_id, std::vector<int> host_of_process, int64_t num_partitions, absl::Duration timeout) {
  for (int host : host_of_process) {
    if (host < 0 || host >= options_.cluster_size) return InvalidArgument("cluster: a process has no host");
  }
  collectives::GlooCommunicator::Options options;
  options.run_id = run_id;
  options.num_partitions = num_partitions;
  options.host_of_process = std::move(host_of_process);
  options.self_host = options_.rank;
  for (int r = 0; r < options_.cluster_size; ++r) options.host_names.push_back(HostName(r));
  auto store = std::make_shared<CoordinatorStore>(stub_.get(), options_.auth_token, timeout, AbortKey(run_id));
  options.store = store;
  // A failure here ends the other hosts' waits for this one.
  options.on_abort = [weak = std::weak_ptr<CoordinatorStore>(store), pool = std::weak_ptr<GlooContextPool>(pool_),
                      run_id, name = HostName(options_.rank)](const absl::Status& status) {
    // First the record (which ends the waits of peers still connecting, and
    // which peers read when a connection fails), then the kept contexts, on
    // which peers may be blocked in Gloo.
    if (std::shared_ptr<CoordinatorStore> s = weak.lock()) s->PublishAbort(absl::StrCat(name, " aborted the run: ", status.message()));
    if (std::shared_ptr<GlooContextPool> p = pool.lock()) p->AbortRun(run_id);
  };
  options.peer_abort_reason = [weak = std::weak_ptr<CoordinatorStore>(store)]() -> std::string {
    std::shared_ptr<CoordinatorStore> s = weak.lock();
    return s != nullptr ? s->AbortReason() : "";
  };
  if (options_.keep_gloo_contexts) options.context_source = pool_;
  options.device = device_;
  options.timeout = timeout;
  std::vector<int> hosts = options.host_of_process;
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  ASSIGN_OR_RETURN(std::shared_ptr<collectives::GlooCommunicator> communicator,
                   collectives::GlooCommunicator::Create(std::move(options)));
  std::shared_ptr<collectives::Communicator> out = std::move(communicator);
  absl::MutexLock lock(&mu_);
  // A host lost already: the run fails at once.
  for (int host : hosts) {
    if (IsOtherIn(host, lost_)) {
      return absl::UnavailableError(absl::StrCat("cluster run ", run_id, ": ", HostName(host),
                                                 " has left the cluster (no heartbeat)"));
    }
  }
  runs_.push_back(ActiveRun{out, store, std::move(hosts), run_id});
  return out;
}

int64_t ClusterMember::contexts_connected() const { return pool_->connected(); }

int64_t ClusterMember::contexts_reused() const { return pool_->reused(); }

}  // namespace xla
