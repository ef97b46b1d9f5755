#include "xla/collectives/gloo_communicator.h"

#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/pair.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/primitive_util.h"
#include "xla/sha256.h"
#include "xla/status_macros.h"

namespace xla {
namespace collectives {
namespace {

std::chrono::milliseconds Millis(absl::Duration d) {
  return std::chrono::milliseconds(std::max<int64_t>(1, absl::ToInt64Milliseconds(d)));
}

// The first 8 bytes of the key's SHA-256: what every host's leader sends
// with its part, so a host at another exchange is caught.
uint64_t KeyDigest(absl::string_view key) {
  const std::string digest = Sha256({key});
  uint64_t out = 0;
  std::memcpy(&out, digest.data(), sizeof(out));
  return out;
}

// Gloo's element-wise reduction for a type and a kind, and how its
// all-reduce is given a buffer of that type; null when Gloo has none that
// matches XLA's semantics (float minimum and maximum: XLA propagates NaN,
// std::min and std::max do not).
struct NativeReduction {
  gloo::AllreduceOptions::Func reduce;
  void (*set_output)(gloo::AllreduceOptions& options, void* data, size_t count) = nullptr;
  void (*set_input)(gloo::AllreduceOptions& options, const void* data, size_t count) = nullptr;
};

template <typename T>
void SetOutput(gloo::AllreduceOptions& options, void* data, size_t count) {
  options.setOutput(static_cast<T*>(data), count);
}

// Gloo only reads its inputs (its setter takes them non-const).
template <typename T>
void SetInput(gloo::AllreduceOptions& options, const void* data, size_t count) {
  options.setInput(static_cast<T*>(const_cast<void*>(data)), count);
}

template <typename T>
NativeReduction Typed(ReductionKind kind) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  void (*reduce)(void*, const void*, const void*, size_t) = nullptr;
  switch (kind) {
    case ReductionKind::kSum:
      reduce = &gloo::sum<T>;
      break;
    case ReductionKind::kProduct:
      reduce = &gloo::product<T>;
      break;
    case ReductionKind::kMin:
      if (!kFloat) reduce = &gloo::min<T>;
      break;
    case ReductionKind::kMax:
      if (!kFloat) reduce = &gloo::max<T>;
      break;
    case ReductionKind::kNone:
      break;
  }
  if (reduce == nullptr) return {};
  return {reduce, &SetOutput<T>, &SetInput<T>};
}

NativeReduction GlooReduction(ReductionKind kind, PrimitiveType type) {
  switch (type) {
    case F32:
      return Typed<float>(kind);
    case F64:
      return Typed<double>(kind);
    case S8:
      return Typed<int8_t>(kind);
    case S32:
      return Typed<int32_t>(kind);
    case S64:
      return Typed<int64_t>(kind);
    case U8:
      return Typed<uint8_t>(kind);
    case U32:
      return Typed<uint32_t>(kind);
    case U64:
      return Typed<uint64_t>(kind);
    default:
      return {};
  }
}

std::string GroupKey(absl::Span<const ProcessId> group) { return GroupToString(group); }

}  // namespace

void GlooGroupContext::Close() {
  for (int i = 0; i < context->size; ++i) {
    if (i != context->rank) context->getPair(i)->close();
  }
}

absl::StatusOr<std::shared_ptr<GlooCommunicator>> GlooCommunicator::Create(Options options) {
  if (options.store == nullptr || options.device == nullptr) {
    return InvalidArgument("GlooCommunicator: needs a Store and a Gloo device");
  }
  if (options.num_partitions < 1 || options.host_of_process.empty() ||
      static_cast<int64_t>(options.host_of_process.size()) % options.num_partitions != 0) {
    return InvalidArgument("GlooCommunicator: %d processes do not make whole replicas of %d partition(s)",
                           options.host_of_process.size(), options.num_partitions);
  }
  for (int host : options.host_of_process) {
    if (host < 0) return InvalidArgument("GlooCommunicator: a process has host %d", host);
  }
  if (options.run_id.empty()) return InvalidArgument("GlooCommunicator: needs a run id");
  return std::shared_ptr<GlooCommunicator>(new GlooCommunicator(std::move(options)));
}

GlooCommunicator::GlooCommunicator(Options options) : options_(std::move(options)), local_(options_.timeout) {}

GlooCommunicator::~GlooCommunicator() = default;

int GlooCommunicator::HostOf(ProcessId process) const {
  const int64_t index = process.replica * options_.num_partitions + process.partition;
  if (process.partition < 0 || process.partition >= options_.num_partitions || index < 0 ||
      index >= static_cast<int64_t>(options_.host_of_process.size())) {
    return -1;
  }
  return options_.host_of_process[index];
}

std::vector<int> GlooCommunicator::HostsOf(absl::Span<const ProcessId> group) const {
  std::vector<int> hosts;
  for (const ProcessId& p : group) hosts.push_back(HostOf(p));
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  return hosts;
}

std::vector<ProcessId> GlooCommunicator::LocalMembers(absl::Span<const ProcessId> group) const {
  std::vector<ProcessId> local;
  for (const ProcessId& p : group) {
    if (HostOf(p) == options_.self_host) local.push_back(p);
  }
  return local;
}

std::string GlooCommunicator::HostList(const std::vector<int>& hosts) const {
  return absl::StrJoin(hosts, ", ", [this](std::string* out, int host) {
    if (host >= 0 && host < static_cast<int>(options_.host_names.size())) {
      absl::StrAppend(out, options_.host_names[host]);
    } else {
      absl::StrAppend(out, "host ", host);
    }
  });
}

absl::Status GlooCommunicator::GlooFailure(const std::exception& e, const std::vector<int>& hosts,
                                           absl::string_view label) {
  const std::string what = e.what();
  const bool timed_out = what.find("imeout") != std::string::npos || what.find("imed out") != std::string::npos;
  const std::string message =
      absl::StrCat(label, ": the exchange between ", HostList(hosts), " failed (a host left or stopped): ", what);
  std::string peer_abort;
  if (dynamic_cast<const PeerAbortedError*>(&e) != nullptr) {
    peer_abort = what;
  } else if (options_.peer_abort_reason) {
    peer_abort = options_.peer_abort_reason();
  }
  absl::Status status = !peer_abort.empty() ? absl::AbortedError(absl::StrCat(label, ": ", peer_abort))
                        : timed_out         ? absl::DeadlineExceededError(message)
                                            : absl::UnavailableError(message);
  Abort(status);
  return status;
}

absl::StatusOr<GlooCommunicator::GroupContext*> GlooCommunicator::ContextFor(absl::Span<const ProcessId> group,
                                                                           absl::string_view label) {
  const std::string group_key = GroupKey(group);
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(aborted_);
    auto it = contexts_.find(group_key);
    if (it != contexts_.end()) return it->second.get();
  }
  const std::vector<int> hosts = HostsOf(group);
  const int rank = static_cast<int>(std::find(hosts.begin(), hosts.end(), options_.self_host) - hosts.begin());
  GlooContextSource::Connect connect =
      [&](const std::string& prefix) -> absl::StatusOr<std::shared_ptr<gloo::Context>> {
    try {
      auto context = std::make_shared<gloo::rendezvous::Context>(rank, static_cast<int>(hosts.size()));
      context->setTimeout(Millis(options_.timeout));
      gloo::rendezvous::PrefixStore store(prefix, *options_.store);
      std::shared_ptr<gloo::transport::Device> device = options_.device;
      context->connectFullMesh(store, device);
      return context;
    } catch (const std::exception& e) {
      return GlooFailure(e, hosts, label);
    }
  };
  std::shared_ptr<GroupContext> entry;
  if (options_.context_source != nullptr) {
    absl::StatusOr<std::shared_ptr<GroupContext>> acquired =
        options_.context_source->Acquire(options_.run_id, group_key, hosts, connect);
    if (!acquired.ok()) {
      Abort(acquired.status());
      return acquired.status();
    }
    entry = *std::move(acquired);
  } else {
    ASSIGN_OR_RETURN(std::shared_ptr<gloo::Context> context, connect(absl::StrCat(options_.run_id, "/", group_key)));
    entry = std::make_shared<GroupContext>(GroupContext{std::move(context), hosts});
  }
  absl::MutexLock lock(&mu_);
  contexts_[group_key] = entry;
  // An abort while connecting found no context to close: close it now.
  if (!aborted_.ok()) {
    entry->Close();
    return aborted_;
  }
  return entry.get();
}

absl::StatusOr<std::vector<GlooCommunicator::PartHeader>> GlooCommunicator::GatherHeaders(
    GroupContext& group_context, PartHeader mine, bool same_bytes, absl::string_view label) {
  std::vector<PartHeader> headers(group_context.hosts.size());
  gloo::AllgatherOptions options(group_context.context);
  options.setInput(reinterpret_cast<char*>(&mine), sizeof(mine));
  options.setOutput(reinterpret_cast<char*>(headers.data()), sizeof(PartHeader) * headers.size());
  options.setTag(group_context.next_tag++);
  options.setTimeout(Millis(options_.timeout));
  gloo::allgather(options);
  for (size_t h = 0; h < headers.size(); ++h) {
    if (headers[h].key_digest != mine.key_digest || (same_bytes && headers[h].bytes != mine.bytes)) {
      absl::Status mismatch =
          InvalidArgument("%s: %s is at another collective than this host (do all hosts run the same program?)",
                          label, HostList({group_context.hosts[h]}));
      Abort(mismatch);
      return mismatch;
    }
  }
  return headers;
}

absl::StatusOr<std::vector<Communicator::Blob>> GlooCommunicator::CrossHost(absl::string_view key,
                                                                           absl::Span<const ProcessId> group,
                                                                           const std::vector<Blob>& local_blobs,
                                                                           absl::string_view label) {
  ASSIGN_OR_RETURN(GroupContext * group_context, ContextFor(group, label));
  const std::vector<int>& hosts = group_context->hosts;
  const int size = static_cast<int>(hosts.size());
  // This host's part: the sizes of its members' contributions, then the
  // contributions, in group order.
  std::string part(local_blobs.size() * sizeof(uint64_t), '\0');
  for (size_t i = 0; i < local_blobs.size(); ++i) {
    const uint64_t bytes = local_blobs[i]->size();
    std::memcpy(part.data() + i * sizeof(uint64_t), &bytes, sizeof(bytes));
  }
  for (const Blob& b : local_blobs) part.append(*b);
  std::vector<PartHeader> headers;
  std::string parts;
  try {
    ASSIGN_OR_RETURN(headers, GatherHeaders(*group_context, PartHeader{KeyDigest(key), part.size()},
                                            /*same_bytes=*/false, label));
    std::vector<size_t> counts;
    size_t total = 0;
    for (int h = 0; h < size; ++h) {
      counts.push_back(headers[h].bytes);
      total += headers[h].bytes;
    }
    parts.resize(total);
    gloo::AllgathervOptions data(group_context->context);
    data.setInput(part.data(), part.size());
    data.setOutput(parts.data(), counts);
    data.setTag(group_context->next_tag++);
    data.setTimeout(Millis(options_.timeout));
    gloo::allgatherv(data);
  } catch (const std::exception& e) {
    return GlooFailure(e, hosts, label);
  }
  // Each host's members in group order, and where each host's part starts.
  std::vector<std::vector<int64_t>> members_of_host(size);
  for (size_t g = 0; g < group.size(); ++g) {
    const int h = static_cast<int>(std::find(hosts.begin(), hosts.end(), HostOf(group[g])) - hosts.begin());
    members_of_host[h].push_back(static_cast<int64_t>(g));
  }
  std::vector<Blob> out(group.size());
  uint64_t offset = 0;
  for (int h = 0; h < size; ++h) {
    const uint64_t end = offset + headers[h].bytes;
    const uint64_t count = members_of_host[h].size();
    if (count * sizeof(uint64_t) > headers[h].bytes) {
      return Internal("%s: %s sent a malformed part", label, HostList({hosts[h]}));
    }
    uint64_t data = offset + count * sizeof(uint64_t);
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t bytes = 0;
      std::memcpy(&bytes, parts.data() + offset + i * sizeof(uint64_t), sizeof(bytes));
      if (bytes > end - data) return Internal("%s: %s sent a malformed part", label, HostList({hosts[h]}));
      out[members_of_host[h][i]] = std::make_shared<const std::string>(parts.substr(data, bytes));
      data += bytes;
    }
    offset = end;
  }
  return out;
}

void GlooCommunicator::Publish(const std::string& key, absl::StatusOr<std::vector<Blob>> blobs, int64_t readers) {
  if (readers == 0) return;
  absl::MutexLock lock(&mu_);
  Handoff& handoff = handoffs_[key];
  handoff.blobs = std::move(blobs);
  handoff.readers_left = readers;
}

absl::StatusOr<std::vector<Communicator::Blob>> GlooCommunicator::AwaitPublished(const std::string& key,
                                                                                ProcessId self,
                                                                                absl::string_view label) {
  absl::MutexLock lock(&mu_);
  auto ready = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return handoffs_.contains(key) || !aborted_.ok(); };
  if (!mu_.AwaitWithTimeout(absl::Condition(&ready), options_.timeout)) {
    aborted_ = absl::DeadlineExceededError(absl::StrCat(label, ": process ", self.ToString(), " waited ",
                                                        absl::FormatDuration(options_.timeout),
                                                        " for its host's exchange with the other hosts"));
    return aborted_;
  }
  auto it = handoffs_.find(key);
  if (it == handoffs_.end()) {
    return absl::AbortedError(
        absl::StrCat(label, ": process ", self.ToString(), " stopped because the run failed: ", aborted_.message()));
  }
  absl::StatusOr<std::vector<Blob>> out = it->second.blobs;
  if (--it->second.readers_left == 0) handoffs_.erase(it);
  return out;
}

absl::StatusOr<std::vector<Communicator::Blob>> GlooCommunicator::Exchange(absl::string_view key,
                                                                          absl::Span<const ProcessId> group,
                                                                          ProcessId self, std::string contribution,
                                                                          absl::string_view label) {
  for (const ProcessId& p : group) {
    if (HostOf(p) < 0) {
      return InvalidArgument("%s: process %s of group %s is not in this run", label, p.ToString(),
                             GroupToString(group));
    }
  }
  if (HostOf(self) != options_.self_host) {
    return Internal("%s: process %s does not run on this host", label, self.ToString());
  }
  const std::vector<int> hosts = HostsOf(group);
  if (hosts.size() == 1) return local_.Exchange(key, group, self, std::move(contribution), label);
  const std::vector<ProcessId> local = LocalMembers(group);
  const std::string local_key = absl::StrCat(key, "|", GroupKey(group));
  ASSIGN_OR_RETURN(std::vector<Blob> local_blobs,
                   local_.Exchange(absl::StrCat("in:", local_key), local, self, std::move(contribution), label));
  if (self != local[0]) return AwaitPublished(local_key, self, label);
  absl::StatusOr<std::vector<Blob>> all = CrossHost(key, group, local_blobs, label);
  Publish(local_key, all, static_cast<int64_t>(local.size()) - 1);
  return all;
}

bool GlooCommunicator::ReducesNatively(absl::Span<const ProcessId> group, ReductionKind reduction,
                                       PrimitiveType type) const {
  const std::vector<int> hosts = HostsOf(group);
  // One host: the in-memory exchange; no Gloo reduction: the caller's fold.
  return hosts.size() > 1 && hosts.front() >= 0 && GlooReduction(reduction, type).reduce != nullptr;
}

absl::Status GlooCommunicator::AllReduce(absl::string_view key, absl::Span<const ProcessId> group, ProcessId self,
                                         ReductionKind reduction, PrimitiveType type, const void* input,
                                         void* output, int64_t count, absl::string_view label) {
  const NativeReduction native = GlooReduction(reduction, type);
  if (!ReducesNatively(group, reduction, type)) {
    return Internal("%s: no native all-reduce for this group and type", label);
  }
  if (HostOf(self) != options_.self_host) {
    return Internal("%s: process %s does not run on this host", label, self.ToString());
  }
  const int64_t element_bytes = primitive_util::ByteWidth(type);
  const int64_t bytes = count * element_bytes;
  const std::vector<ProcessId> local = LocalMembers(group);
  const std::string local_key = absl::StrCat(key, "|", GroupKey(group));
  if (local.size() > 1) {
    // Fold this host's members in group order on the leader.
    ASSIGN_OR_RETURN(std::vector<Blob> local_blobs,
                     local_.Exchange(absl::StrCat("in:", local_key), local, self,
                                     std::string(static_cast<const char*>(input), bytes), label));
    if (self != local[0]) {
      ASSIGN_OR_RETURN(std::vector<Blob> result, AwaitPublished(local_key, self, label));
      std::memcpy(output, result[0]->data(), bytes);
      return absl::OkStatus();
    }
    for (size_t i = 1; i < local_blobs.size(); ++i) {
      native.reduce(output, i == 1 ? input : output, local_blobs[i]->data(), count);
    }
    input = output;  // the host's fold is what goes around the ring
  }
  absl::Status status = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(GroupContext * group_context, ContextFor(group, label));
    try {
      RETURN_IF_ERROR(GatherHeaders(*group_context, PartHeader{KeyDigest(key), static_cast<uint64_t>(bytes)},
                                    /*same_bytes=*/true, label)
                          .status());
      gloo::AllreduceOptions options(group_context->context);
      options.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
      native.set_output(options, output, count);
      // A separate operand is copied into the result segment by segment as
      // the ring reaches it (overlapping the transfers), not all up front.
      if (input != output) native.set_input(options, input, count);
      options.setReduceFunction(native.reduce);
      options.setTag(group_context->next_tag++);
      options.setTimeout(Millis(options_.timeout));
      gloo::allreduce(options);
    } catch (const std::exception& e) {
      return GlooFailure(e, group_context->hosts, label);
    }
    return absl::OkStatus();
  }();
  if (local.size() > 1) {
    absl::StatusOr<std::vector<Blob>> published =
        status.ok() ? absl::StatusOr<std::vector<Blob>>(std::vector<Blob>{
                          std::make_shared<const std::string>(static_cast<const char*>(output), bytes)})
                    : absl::StatusOr<std::vector<Blob>>(status);
    Publish(local_key, std::move(published), static_cast<int64_t>(local.size()) - 1);
  }
  return status;
}

void GlooCommunicator::Abort(const absl::Status& status) {
  local_.Abort(status);
  absl::Status first;
  {
    absl::MutexLock lock(&mu_);
    if (!aborted_.ok()) return;
    aborted_ = status.ok() ? absl::AbortedError("aborted") : status;
    first = aborted_;
    // The other hosts' leaders see their connections close and fail now.
    for (auto& [key, group_context] : contexts_) group_context->Close();
  }
  if (options_.on_abort) options_.on_abort(first);
}

absl::Status GlooCommunicator::aborted() const {
  absl::MutexLock lock(&mu_);
  return aborted_;
}

}  // namespace collectives
}  // namespace xla
