#include "service/cluster/context_registry.h"

#include <algorithm>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla {
namespace {

constexpr size_t kMaxNameBytes = 1024;

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

ContextRegistry::ContextRegistry(const Options& options) : options_(options) {
  absl::BitGen gen;
  next_id_ = absl::Uniform<int64_t>(gen, 1, int64_t{1} << 40);
}

void ContextRegistry::Retire(int64_t id) { contexts_.erase(id); }

std::vector<int64_t> ContextRegistry::LiveIds(const std::vector<int>& hosts) const {
  std::vector<int64_t> ids;
  for (const auto& [id, context] : contexts_) {
    if (context.hosts == hosts) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

int64_t ContextRegistry::Take(const std::vector<int>& hosts, const std::string& run_id) {
  const absl::Time now = absl::Now();
  absl::erase_if(contexts_, [&](const auto& entry) {
    const Context& c = entry.second;
    return c.hosts == hosts && !c.run_id.empty() && c.claimed + options_.run_ttl < now;
  });
  const std::vector<int64_t> live = LiveIds(hosts);
  for (int64_t id : live) {
    Context& context = contexts_.at(id);
    if (context.run_id.empty()) {
      context.run_id = run_id;
      context.claimed = now;
      context.released.clear();
      return id;
    }
  }
  if (static_cast<int64_t>(live.size()) >= options_.max_contexts_per_set) return 0;
  const int64_t id = next_id_++;
  contexts_[id] = Context{hosts, run_id, now, {}};
  return id;
}

void ContextRegistry::DropExpiredRuns() {
  const absl::Time now = absl::Now();
  absl::erase_if(runs_, [now](const auto& entry) { return entry.second.expires < now; });
}

void ContextRegistry::ForgetIfDone(const std::string& run_id) {
  auto run = runs_.find(run_id);
  if (run == runs_.end() || run->second.aborted) return;
  for (const auto& [group, claim] : run->second.groups) {
    if (claim.claims < static_cast<int>(claim.hosts.size())) return;
    auto context = contexts_.find(claim.context_id);
    if (context != contexts_.end() && context->second.run_id == run_id) return;
  }
  runs_.erase(run);
}

absl::StatusOr<ContextRegistry::Claim> ContextRegistry::ClaimContext(int rank, const std::string& run_id,
                                                                   const std::string& group,
                                                                   const std::vector<int>& hosts) {
  if (run_id.empty() || run_id.size() > kMaxNameBytes || group.empty() || group.size() > kMaxNameBytes) {
    return absl::InvalidArgumentError("a context claim needs a run id and a group of 1 byte to 1 KiB");
  }
  if (hosts.size() < 2 || !std::is_sorted(hosts.begin(), hosts.end()) ||
      std::adjacent_find(hosts.begin(), hosts.end()) != hosts.end() || hosts.front() < 0 ||
      hosts.back() >= options_.cluster_size || !Contains(hosts, rank)) {
    return absl::InvalidArgumentError(absl::StrCat("rank ", rank, " claims a context of hosts [",
                                                   absl::StrJoin(hosts, ", "), "]: they must be 2 or more distinct ",
                                                   "ranks of the cluster in ascending order, the claimant among them"));
  }
  absl::MutexLock lock(&mu_);
  auto run = runs_.find(run_id);
  if (run == runs_.end()) {
    DropExpiredRuns();
    if (static_cast<int64_t>(runs_.size()) >= options_.max_runs) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the coordinator holds the contexts of ", options_.max_runs, " runs already"));
    }
    run = runs_.emplace(run_id, Run{}).first;
  }
  run->second.expires = absl::Now() + options_.run_ttl;
  if (run->second.aborted) return absl::AbortedError(absl::StrCat("cluster run ", run_id, " was aborted"));
  auto [it, fresh] = run->second.groups.try_emplace(group);
  GroupClaim& claim = it->second;
  if (fresh) {
    claim.hosts = hosts;
    claim.context_id = Take(hosts, run_id);
  } else if (claim.hosts != hosts) {
    return absl::InvalidArgumentError(absl::StrCat("group ", group, " of run ", run_id, " was claimed for hosts [",
                                                   absl::StrJoin(claim.hosts, ", "), "], not [",
                                                   absl::StrJoin(hosts, ", "), "]"));
  } else if (claim.context_id != 0 && !contexts_.contains(claim.context_id)) {
    return absl::AbortedError(
        absl::StrCat("cluster run ", run_id, ": the context of group ", group, " was retired (a host failed)"));
  }
  ++claim.claims;
  Claim out{claim.context_id, LiveIds(hosts)};
  ForgetIfDone(run_id);
  return out;
}

void ContextRegistry::Release(int rank, const std::string& run_id, absl::Span<const int64_t> ids, bool ok) {
  absl::MutexLock lock(&mu_);
  for (int64_t id : ids) {
    auto it = contexts_.find(id);
    if (it == contexts_.end() || it->second.run_id != run_id || !Contains(it->second.hosts, rank)) continue;
    Context& context = it->second;
    if (!ok) {
      Retire(id);
      continue;
    }
    if (!Contains(context.released, rank)) context.released.push_back(rank);
    if (context.released.size() == context.hosts.size()) context.run_id.clear();
  }
  ForgetIfDone(run_id);
}

std::vector<int64_t> ContextRegistry::AbortRun(const std::string& run_id) {
  absl::MutexLock lock(&mu_);
  std::vector<int64_t> retired;
  auto run = runs_.find(run_id);
  if (run == runs_.end()) {
    DropExpiredRuns();
    // Remembered even beyond max_runs: an abort must not be lost.
    run = runs_.emplace(run_id, Run{}).first;
  }
  run->second.aborted = true;
  run->second.expires = absl::Now() + options_.run_ttl;
  for (const auto& [group, claim] : run->second.groups) {
    auto it = contexts_.find(claim.context_id);
    if (it != contexts_.end() && it->second.run_id == run_id) {
      retired.push_back(claim.context_id);
      Retire(claim.context_id);
    }
  }
  std::sort(retired.begin(), retired.end());
  return retired;
}

void ContextRegistry::RetireHost(int rank) {
  absl::MutexLock lock(&mu_);
  absl::erase_if(contexts_, [rank](const auto& entry) { return Contains(entry.second.hosts, rank); });
}

int64_t ContextRegistry::live_contexts() const {
  absl::MutexLock lock(&mu_);
  return contexts_.size();
}

int64_t ContextRegistry::contexts_in_use() const {
  absl::MutexLock lock(&mu_);
  return std::count_if(contexts_.begin(), contexts_.end(), [](const auto& e) { return !e.second.run_id.empty(); });
}

}  // namespace xla
