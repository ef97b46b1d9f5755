#include "xla/collectives/rendezvous.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/status_macros.h"

namespace xla {
namespace collectives {

absl::StatusOr<std::vector<Rendezvous::Blob>> Rendezvous::Exchange(absl::string_view key,
                                                                   absl::Span<const ProcessId> group, ProcessId self,
                                                                   std::string contribution, absl::string_view label) {
  int64_t index = -1;
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] == self) index = static_cast<int64_t>(i);
  }
  if (index < 0) {
    return InvalidArgument("%s: process %s is not in its group %s", label, self.ToString(), GroupToString(group));
  }
  const int64_t size = static_cast<int64_t>(group.size());
  if (size == 1) return std::vector<Blob>{std::make_shared<const std::string>(std::move(contribution))};
  const std::string full_key = absl::StrCat(key, "|", GroupToString(group));
  absl::MutexLock lock(&mu_);
  // Another process's failure: this one is aborted because of it.
  auto aborted_by_other = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return absl::AbortedError(absl::StrCat(label, ": process ", self.ToString(),
                                           " stopped because the run failed: ", aborted_.message()));
  };
  if (!aborted_.ok()) return aborted_by_other();
  Slot& slot = slots_[full_key];
  if (slot.blobs.empty()) slot.blobs.resize(size);
  if (slot.blobs[index] != nullptr) {
    return Internal("%s: process %s arrived twice at exchange %s", label, self.ToString(), full_key);
  }
  slot.blobs[index] = std::make_shared<const std::string>(std::move(contribution));
  ++slot.arrived;
  auto done = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return slot.arrived == size || !aborted_.ok(); };
  const absl::Time deadline = absl::Now() + timeout_;
  mu_.AwaitWithDeadline(absl::Condition(&done), deadline);
  if (slot.arrived != size) {
    // Leave the slot: late arrivals see the abort first.
    if (!aborted_.ok()) return aborted_by_other();
    std::vector<ProcessId> missing;
    for (int64_t i = 0; i < size; ++i) {
      if (slot.blobs[i] == nullptr) missing.push_back(group[i]);
    }
    aborted_ = absl::DeadlineExceededError(absl::StrCat(label, ": process ", self.ToString(), " waited ",
                                                        absl::FormatDuration(timeout_), " for its group ",
                                                        GroupToString(group), "; missing processes ",
                                                        GroupToString(missing)));
    return aborted_;
  }
  std::vector<Blob> out = slot.blobs;
  if (++slot.departed == size) slots_.erase(full_key);
  return out;
}

void Rendezvous::Abort(const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  if (aborted_.ok()) aborted_ = status.ok() ? absl::AbortedError("aborted") : status;
}

absl::Status Rendezvous::aborted() const {
  absl::MutexLock lock(&mu_);
  return aborted_;
}

}  // namespace collectives
}  // namespace xla
