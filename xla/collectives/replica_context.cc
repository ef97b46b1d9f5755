#include "xla/collectives/replica_context.h"

namespace xla {
namespace collectives {

int64_t ReplicaContext::NextOccurrence(const std::string& key) {
  absl::MutexLock lock(&mu_);
  return occurrences_[key]++;
}

}  // namespace collectives
}  // namespace xla
