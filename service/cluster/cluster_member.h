// ClusterMember: this daemon's place in a cluster of xla_service daemons
// (--cluster_coordinator / --cluster_size / --cluster_rank). It registers
// the daemon's devices with the coordinator (served by rank 0), learns every
// host, reports its heartbeats, and makes the Gloo communicator of each run
// that spans hosts: a Gloo TCP device bound to this host's address, with the
// rendezvous through the coordinator's store, and Gloo contexts kept across
// runs (GlooContextPool). A run with a host the
// coordinator reports lost (no heartbeat within its bound) is aborted: its
// processes here fail with UNAVAILABLE naming that host, even those still
// waiting for the host to connect.
//
#ifndef SERVICE_CLUSTER_CLUSTER_MEMBER_H_
#define SERVICE_CLUSTER_CLUSTER_MEMBER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "proto/xla_cluster.grpc.pb.h"
#include "service/cluster_view.h"

namespace gloo {
namespace transport {
class Device;
}  // namespace transport
}  // namespace gloo

namespace xla {

class CoordinatorStore;
class GlooContextPool;

class ClusterMember final : public ClusterView {
 public:
  struct Options {
    std::string coordinator;  // HOST:PORT
    int cluster_size = 1;
    int rank = 0;
    std::string service_address;  // where clients reach this daemon
    int num_devices = 1;
    // The address Gloo's connections of this host bind to (an interface's
    // address, not 0.0.0.0).
    std::string gloo_address = "127.0.0.1";
    std::string auth_token;
    std::shared_ptr<grpc::ChannelCredentials> credentials;  // null: insecure
    absl::Duration join_timeout = absl::Minutes(2);
    absl::Duration heartbeat_interval = absl::Milliseconds(500);
    // Gloo contexts kept across runs (GlooContextPool); false: each run
    // connects its own.
    bool keep_gloo_contexts = true;
  };

  // Registers and waits for the whole cluster (up to join_timeout).
  static absl::StatusOr<std::unique_ptr<ClusterMember>> Join(const Options& options);
  ~ClusterMember() override;

  const std::vector<ClusterHost>& hosts() const { return hosts_; }

  // ClusterView (its comments say what each does). lost_ranks: missed
  // heartbeats, or, when the coordinator itself does not answer, every
  // other rank.
  int rank() const override { return options_.rank; }
  int size() const override { return options_.cluster_size; }
  int64_t total_devices() const override { return offsets_.back(); }
  int64_t device_offset(int rank) const override { return offsets_[rank]; }
  int HostOfDevice(int64_t ordinal) const override;
  std::string HostAddress(int rank) const override { return hosts_[rank].service_address(); }
  std::string HostName(int rank) const override;
  std::vector<int> lost_ranks() const override;
  std::vector<int> WaitForLost(const std::vector<int>& hosts, absl::Duration wait) const override;
  absl::StatusOr<std::shared_ptr<collectives::Communicator>> MakeCommunicator(const std::string& run_id,
                                                                            std::vector<int> host_of_process,
                                                                            int64_t num_partitions,
                                                                            absl::Duration timeout) override;
  void AbortRun(const std::string& run_id, const absl::Status& status) override;
  void Retire(const std::string& run_id, std::shared_ptr<collectives::Communicator> communicator) override;
  int64_t contexts_connected() const override;
  int64_t contexts_reused() const override;

 private:
  ClusterMember(const Options& options, std::shared_ptr<grpc::Channel> channel);
  void HeartbeatLoop();
  // Whether `host` is another host than this one and among `ranks`.
  bool IsOtherIn(int host, const std::vector<int>& ranks) const;
  // The store key under which a host that aborts run `run_id` says why.
  static std::string AbortKey(const std::string& run_id);

  const Options options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<XlaCluster::Stub> stub_;
  std::vector<ClusterHost> hosts_;
  std::vector<int64_t> offsets_;  // size + 1 entries
  std::string incarnation_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<GlooContextPool> pool_;

  // A run that spans hosts: aborted when one of its hosts is lost.
  struct ActiveRun {
    std::weak_ptr<collectives::Communicator> communicator;
    std::weak_ptr<CoordinatorStore> store;
    std::vector<int> hosts;
    std::string run_id;
  };
  // Aborts the active runs that have a host in `lost` (and forgets the
  // ones that ended).
  void AbortRunsWith(const std::vector<int>& lost, bool coordinator_lost) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::vector<int> lost_ ABSL_GUARDED_BY(mu_);
  std::vector<ActiveRun> runs_ ABSL_GUARDED_BY(mu_);
  // Finished runs' communicators, destroyed by the heartbeat thread.
  std::vector<std::shared_ptr<collectives::Communicator>> retired_ ABSL_GUARDED_BY(mu_);
  absl::Notification stopping_;
  std::thread heartbeat_;
};

}  // namespace xla

#endif  // SERVICE_CLUSTER_CLUSTER_MEMBER_H_
