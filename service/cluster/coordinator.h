// ClusterCoordinator: the XlaCluster gRPC service (proto/xla_cluster.proto)
// that the rank-0 daemon of a cluster serves. It holds the host table (each
// rank's service address and device count), the members' heartbeats, and
// the key-value store Gloo's rendezvous uses, and the record of the Gloo
// contexts the daemons keep across runs (ContextRegistry).
//
// Every call is authenticated with the daemons' shared auth token when they
// have one. Inputs are bounded: ranks inside the cluster size, keys up to
// 1 KiB, values up to 1 MiB, the whole store up to max_store_bytes, and
// every wait up to max_wait (and the call's own deadline and cancel).
// Store entries expire after store_ttl (members delete their own keys when
// their run ends; expiry collects what a failed run left behind).
#ifndef SERVICE_CLUSTER_COORDINATOR_H_
#define SERVICE_CLUSTER_COORDINATOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/xla_cluster.grpc.pb.h"
#include "service/cluster/context_registry.h"

namespace xla {

class ClusterCoordinator final : public XlaCluster::Service {
 public:
  struct Options {
    int cluster_size = 1;
    std::string auth_token;  // empty: no authentication
    // A member whose last heartbeat is older than this is reported lost.
    absl::Duration heartbeat_timeout = absl::Seconds(3);
    absl::Duration max_wait = absl::Minutes(5);
    absl::Duration store_ttl = absl::Minutes(10);
    int64_t max_store_bytes = int64_t{64} << 20;
  };

  explicit ClusterCoordinator(const Options& options);

  grpc::Status Register(grpc::ServerContext* context, const RegisterHostRequest* request,
                        RegisterHostResponse* response) override;
  grpc::Status Heartbeat(grpc::ServerContext* context, const HeartbeatRequest* request,
                         HeartbeatResponse* response) override;
  grpc::Status StoreSet(grpc::ServerContext* context, const StoreSetRequest* request,
                        StoreSetResponse* response) override;
  grpc::Status StoreGet(grpc::ServerContext* context, const StoreGetRequest* request,
                        StoreGetResponse* response) override;
  grpc::Status StoreDelete(grpc::ServerContext* context, const StoreDeleteRequest* request,
                           StoreDeleteResponse* response) override;
  grpc::Status ClaimContext(grpc::ServerContext* context, const ClaimContextRequest* request,
                            ClaimContextResponse* response) override;
  grpc::Status ReleaseContexts(grpc::ServerContext* context, const ReleaseContextsRequest* request,
                               ReleaseContextsResponse* response) override;
  grpc::Status AbortRunContexts(grpc::ServerContext* context, const AbortRunContextsRequest* request,
                                AbortRunContextsResponse* response) override;

  const ContextRegistry& contexts() const { return contexts_; }

  // Bytes the store holds now (keys and values).
  int64_t store_bytes() const;

 private:
  struct StoredValue {
    std::string bytes;
    absl::Time expires;
  };

  // Waits on mu_ until `ready` or the earliest of the call's deadline,
  // `limit` from now and its cancel; returns whether `ready` holds.
  bool AwaitOrCancel(grpc::ServerContext* context, absl::Duration limit, const std::function<bool()>& ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropExpired() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The call's auth token, and a rank inside the cluster.
  grpc::Status CheckCaller(grpc::ServerContext* context, int rank) const;
  // Removes one entry, and its bytes from the store's count.
  void Erase(absl::flat_hash_map<std::string, StoredValue>::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Options options_;
  mutable absl::Mutex mu_;
  std::vector<std::optional<ClusterHost>> hosts_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::Time> last_heartbeat_ ABSL_GUARDED_BY(mu_);
  std::string incarnation_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, StoredValue> store_ ABSL_GUARDED_BY(mu_);
  int64_t store_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  ContextRegistry contexts_;  // has its own lock
};

}  // namespace xla

#endif  // SERVICE_CLUSTER_COORDINATOR_H_
