// ClusterView: what the Service needs of the cluster its daemon belongs to
// (service/cluster/cluster_member.h implements it over the coordinator and
// Gloo), so the Service itself links neither gRPC nor Gloo.
//
// Devices across the cluster: host r's devices are the global ordinals
// device_offset(r) .. device_offset(r) + devices_of(r) - 1, hosts in rank
// order.
#ifndef SERVICE_CLUSTER_VIEW_H_
#define SERVICE_CLUSTER_VIEW_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "xla/collectives/communicator.h"

namespace xla {

class ClusterView {
 public:
  virtual ~ClusterView() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int64_t total_devices() const = 0;
  virtual int64_t device_offset(int rank) const = 0;
  int64_t devices_of(int rank) const { return device_offset(rank + 1) - device_offset(rank); }
  // The host of a global device ordinal (-1 when out of range).
  virtual int HostOfDevice(int64_t ordinal) const = 0;
  // Where clients reach host `rank`'s service (HOST:PORT).
  virtual std::string HostAddress(int rank) const = 0;
  // "host 2 (10.0.0.3:7000)", for messages.
  virtual std::string HostName(int rank) const = 0;
  // The ranks the coordinator last reported lost.
  virtual std::vector<int> lost_ranks() const = 0;
  // Those of `hosts` reported lost, waiting up to `wait` for one to be (a
  // failed run's likely cause, which the heartbeats show only after their
  // bound).
  virtual std::vector<int> WaitForLost(const std::vector<int>& hosts, absl::Duration wait) const = 0;

  // The communicator of run `run_id` on this host: `host_of_process` gives
  // each process's rank (process index replica * num_partitions +
  // partition); `timeout` bounds each of its waits.
  virtual absl::StatusOr<std::shared_ptr<collectives::Communicator>> MakeCommunicator(
      const std::string& run_id, std::vector<int> host_of_process, int64_t num_partitions,
      absl::Duration timeout) = 0;
  // Run `run_id` has ended here: its kept Gloo contexts go back to the
  // pool (before this returns, so the client's next run finds them free),
  // and the communicator is destroyed off the request's path (closing
  // Gloo's connections waits for its event loop).
  virtual void Retire(const std::string& run_id, std::shared_ptr<collectives::Communicator> communicator) = 0;
  // Gloo contexts this host connected, and cross-host groups of runs served
  // by one kept from an earlier run.
  virtual int64_t contexts_connected() const = 0;
  virtual int64_t contexts_reused() const = 0;
  // Tells the run's other hosts that this one cannot run its part (a bad
  // request, a failed compile), so they stop waiting for it.
  virtual void AbortRun(const std::string& run_id, const absl::Status& status) = 0;
};

}  // namespace xla

#endif  // SERVICE_CLUSTER_VIEW_H_
