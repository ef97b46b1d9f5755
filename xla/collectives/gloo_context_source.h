// GlooContextSource: where a GlooCommunicator gets the Gloo context of each
// of its cross-host groups. A cluster daemon keeps connected contexts across
// runs (service/cluster/gloo_context_pool.h); without a source, each run
// connects its own and closes it at its end.
#ifndef XLA_COLLECTIVES_GLOO_CONTEXT_SOURCE_H_
#define XLA_COLLECTIVES_GLOO_CONTEXT_SOURCE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gloo {
class Context;
}  // namespace gloo

namespace xla {
namespace collectives {

// A connected Gloo context of some hosts, and the tag of its next operation
// (the same on every host of the context: they run the same operations on
// it in the same order).
struct GlooGroupContext {
  std::shared_ptr<gloo::Context> context;
  std::vector<int> hosts;  // the context's ranks, as host indices
  uint32_t next_tag = 0;

  // Closes the connections to the other hosts: their operations on the
  // context fail at once. The context is unusable after.
  void Close();
};

class GlooContextSource {
 public:
  // Connects a fresh context through the run's store, its keys under
  // `prefix`; a failure is the run's failure (already a status naming the
  // hosts).
  using Connect = std::function<absl::StatusOr<std::shared_ptr<gloo::Context>>(const std::string& prefix)>;

  virtual ~GlooContextSource() = default;
  // The context of group `group` of run `run_id` (every host of the group
  // asks with the same two), spanning `hosts` (ascending, this host among
  // them). It is the run's alone until the run ends.
  virtual absl::StatusOr<std::shared_ptr<GlooGroupContext>> Acquire(const std::string& run_id,
                                                                    const std::string& group,
                                                                    const std::vector<int>& hosts,
                                                                    const Connect& connect) = 0;
};

}  // namespace collectives
}  // namespace xla

#endif  // XLA_COLLECTIVES_GLOO_CONTEXT_SOURCE_H_
