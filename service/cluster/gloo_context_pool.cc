#include "service/cluster/gloo_context_pool.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "service/cluster/cluster_call.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

// Claims and releases are quick bookkeeping at the coordinator; a
// coordinator that does not answer in this long is lost.
constexpr absl::Duration kCallTimeout = absl::Seconds(5);

}  // namespace

GlooContextPool::GlooContextPool(XlaCluster::Stub* stub, std::string auth_token, int rank)
    : stub_(stub), auth_token_(std::move(auth_token)), rank_(rank) {}

void GlooContextPool::Prepare(grpc::ClientContext* context) const {
  PrepareClusterCall(context, auth_token_, kCallTimeout);
}

void GlooContextPool::Drop(const std::vector<int64_t>& ids) {
  std::vector<std::shared_ptr<collectives::GlooGroupContext>> dropped;
  {
    absl::MutexLock lock(&mu_);
    for (int64_t id : ids) {
      auto it = kept_.find(id);
      if (it == kept_.end()) continue;
      dropped.push_back(std::move(it->second));
      kept_.erase(it);
    }
  }
  for (auto& context : dropped) context->Close();
}

absl::StatusOr<std::shared_ptr<collectives::GlooGroupContext>> GlooContextPool::Acquire(
    const std::string& run_id, const std::string& group, const std::vector<int>& hosts, const Connect& connect) {
  ClaimContextRequest request;
  request.set_rank(rank_);
  request.set_run_id(run_id);
  request.set_group(group);
  for (int host : hosts) request.add_hosts(host);
  ClaimContextResponse response;
  grpc::ClientContext call;
  Prepare(&call);
  RETURN_IF_ERROR(ClusterCallStatus(
      stub_->ClaimContext(&call, request, &response),
      absl::StrCat("cluster run ", run_id, ": claiming the Gloo context of hosts [", absl::StrJoin(hosts, ", "), "]")));
  const int64_t id = response.context_id();
  // This host's copies of the set's contexts the coordinator has retired.
  std::vector<int64_t> retired;
  std::shared_ptr<collectives::GlooGroupContext> kept;
  {
    absl::MutexLock lock(&mu_);
    absl::flat_hash_set<int64_t> held;
    for (const auto& [run, ids] : held_) held.insert(ids.begin(), ids.end());
    for (const auto& [kept_id, context] : kept_) {
      // One a run here still uses is dropped after that run.
      if (context->hosts == hosts && !held.contains(kept_id) &&
          std::find(response.live_ids().begin(), response.live_ids().end(), kept_id) == response.live_ids().end()) {
        retired.push_back(kept_id);
      }
    }
    if (id != 0) {
      auto it = kept_.find(id);
      if (it != kept_.end()) {
        kept = it->second;
        held_[run_id].push_back(id);
        ++reused_;
      }
    }
  }
  Drop(retired);
  if (kept != nullptr) return kept;
  // Id 0: the set is at its bound of kept contexts; this run's own one.
  ASSIGN_OR_RETURN(std::shared_ptr<gloo::Context> context,
                   connect(id == 0 ? absl::StrCat(run_id, "/", group) : absl::StrCat("pool/", id)));
  auto fresh = std::make_shared<collectives::GlooGroupContext>(collectives::GlooGroupContext{std::move(context), hosts});
  absl::MutexLock lock(&mu_);
  ++connected_;
  if (id != 0) {
    kept_[id] = fresh;
    held_[run_id].push_back(id);
  }
  return fresh;
}

void GlooContextPool::Release(const std::string& run_id, bool ok) {
  std::vector<int64_t> ids;
  {
    absl::MutexLock lock(&mu_);
    auto it = held_.find(run_id);
    if (it == held_.end()) return;
    ids = std::move(it->second);
    held_.erase(it);
  }
  if (!ok) Drop(ids);
  ReleaseContextsRequest request;
  request.set_rank(rank_);
  request.set_run_id(run_id);
  for (int64_t id : ids) request.add_context_ids(id);
  request.set_ok(ok);
  ReleaseContextsResponse response;
  grpc::ClientContext call;
  Prepare(&call);
  const grpc::Status status = stub_->ReleaseContexts(&call, request, &response);
  // Unreleased, the coordinator holds them for that run forever: they are
  // of no more use here.
  if (!status.ok() && ok) Drop(ids);
}

void GlooContextPool::AbortRun(const std::string& run_id) {
  AbortRunContextsRequest request;
  request.set_rank(rank_);
  request.set_run_id(run_id);
  AbortRunContextsResponse response;
  grpc::ClientContext call;
  Prepare(&call);
  std::vector<int64_t> ids;
  if (stub_->AbortRunContexts(&call, request, &response).ok()) {
    ids.assign(response.context_ids().begin(), response.context_ids().end());
  }
  // Without the coordinator's answer, at least this host's own ones.
  {
    absl::MutexLock lock(&mu_);
    auto it = held_.find(run_id);
    if (it != held_.end()) ids.insert(ids.end(), it->second.begin(), it->second.end());
  }
  Drop(ids);
}

int64_t GlooContextPool::connected() const {
  absl::MutexLock lock(&mu_);
  return connected_;
}

int64_t GlooContextPool::reused() const {
  absl::MutexLock lock(&mu_);
  return reused_;
}

}  // namespace xla
