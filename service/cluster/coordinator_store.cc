#include "service/cluster/coordinator_store.h"

#include <gloo/common/error.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "service/cluster/cluster_call.h"
#include "xla/collectives/gloo_communicator.h"

namespace xla {
namespace {

// How long one StoreGet call waits at most: a cancel is seen this soon.
constexpr absl::Duration kSlice = absl::Milliseconds(250);

}  // namespace

CoordinatorStore::CoordinatorStore(XlaCluster::Stub* stub, std::string auth_token, absl::Duration timeout,
                                   std::string abort_key)
    : stub_(stub), auth_token_(std::move(auth_token)), timeout_(timeout), abort_key_(std::move(abort_key)) {}

CoordinatorStore::~CoordinatorStore() {
  StoreDeleteRequest request;
  {
    absl::MutexLock lock(&mu_);
    for (const std::string& key : own_keys_) request.add_keys(key);
  }
  if (request.keys_size() == 0) return;
  grpc::ClientContext context;
  Prepare(&context, absl::Seconds(5));
  StoreDeleteResponse response;
  // Best effort: keys left behind expire at the coordinator.
  stub_->StoreDelete(&context, request, &response);
}

void CoordinatorStore::Prepare(grpc::ClientContext* context, absl::Duration timeout) const {
  PrepareClusterCall(context, auth_token_, timeout);
}

void CoordinatorStore::set(const std::string& key, const std::vector<char>& data) {
  StoreSetRequest request;
  request.set_key(key);
  request.set_value(std::string(data.begin(), data.end()));
  grpc::ClientContext context;
  Prepare(&context, timeout_);
  StoreSetResponse response;
  const grpc::Status status = stub_->StoreSet(&context, request, &response);
  if (!status.ok()) {
    throw gloo::IoException(absl::StrCat("cluster store: setting '", key, "' failed: ", status.error_message()));
  }
  absl::MutexLock lock(&mu_);
  own_keys_.push_back(key);
}

std::string CoordinatorStore::Get(const std::string& key, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (!cancelled_.empty()) throw gloo::IoException(absl::StrCat("cluster store: waiting for '", key, "': ", cancelled_));
    }
    const absl::Duration slice = std::min(std::max(deadline - absl::Now(), absl::Milliseconds(1)), kSlice);
    StoreGetRequest request;
    request.set_key(key);
    request.set_timeout_ms(absl::ToInt64Milliseconds(slice));
    grpc::ClientContext context;
    // The call's own deadline leaves the coordinator time to answer.
    Prepare(&context, slice + absl::Seconds(2));
    StoreGetResponse response;
    const grpc::Status status = stub_->StoreGet(&context, request, &response);
    if (status.ok()) return response.value();
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      // Has another host aborted the run?
      if (std::string why = AbortReason(); !why.empty()) throw collectives::PeerAbortedError(why);
    }
    if (status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED || absl::Now() >= deadline) {
      throw gloo::IoException(absl::StrCat("cluster store: key '", key, "' (a host of the run did not connect): ",
                                           status.error_message()));
    }
  }
}

std::string CoordinatorStore::AbortReason() {
  if (abort_key_.empty()) return "";
  StoreGetRequest check;
  check.set_key(abort_key_);
  check.set_timeout_ms(0);
  grpc::ClientContext context;
  Prepare(&context, absl::Seconds(2));
  StoreGetResponse aborted;
  if (!stub_->StoreGet(&context, check, &aborted).ok()) return "";
  return aborted.value().empty() ? "a host aborted the run" : aborted.value();
}

void CoordinatorStore::PublishAbort(const std::string& why) {
  if (abort_key_.empty()) return;
  StoreSetRequest request;
  request.set_key(abort_key_);
  request.set_value(why.substr(0, 4096));
  request.set_if_absent(true);  // the first host's reason stays
  grpc::ClientContext context;
  Prepare(&context, absl::Seconds(2));
  StoreSetResponse response;
  stub_->StoreSet(&context, request, &response);
}

void CoordinatorStore::Cancel(const std::string& why) {
  absl::MutexLock lock(&mu_);
  if (cancelled_.empty()) cancelled_ = why.empty() ? "cancelled" : why;
}

std::vector<char> CoordinatorStore::get(const std::string& key) {
  {
    absl::MutexLock lock(&mu_);
    auto it = fetched_.find(key);
    if (it != fetched_.end()) {
      std::vector<char> value(it->second.begin(), it->second.end());
      fetched_.erase(it);
      return value;
    }
  }
  const std::string value = Get(key, timeout_);
  return std::vector<char>(value.begin(), value.end());
}

void CoordinatorStore::wait(const std::vector<std::string>& keys) {
  wait(keys, std::chrono::milliseconds(absl::ToInt64Milliseconds(timeout_)));
}

void CoordinatorStore::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) {
  const absl::Time deadline = absl::Now() + absl::FromChrono(timeout);
  for (const std::string& key : keys) {
    std::string value = Get(key, std::max(deadline - absl::Now(), absl::Milliseconds(1)));
    absl::MutexLock lock(&mu_);
    fetched_[key] = std::move(value);
  }
}

}  // namespace xla
