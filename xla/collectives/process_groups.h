// Process groups of the collective ops, as the StableHLO specification
// defines them: a run has num_replicas x num_partitions processes, and a
// collective's replica_groups, channel_id and use_global_device_ids say
// which processes exchange data (cross_replica, cross_partition,
// cross_replica_and_partition, flattened_ids).
#ifndef XLA_COLLECTIVES_PROCESS_GROUPS_H_
#define XLA_COLLECTIVES_PROCESS_GROUPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace xla {
namespace collectives {

struct ProcessId {
  int64_t replica = 0;
  int64_t partition = 0;
  bool operator==(const ProcessId& o) const { return replica == o.replica && partition == o.partition; }
  bool operator!=(const ProcessId& o) const { return !(*this == o); }
  std::string ToString() const;
};

enum class GroupMode {
  kCrossReplica,               // groups of replica ids, one set per partition
  kCrossPartition,             // groups of partition ids, one set per replica
  kCrossReplicaAndPartition,   // groups of replica ids, all partitions in each
  kFlattenedIds,               // groups of replica_id * num_partitions + partition_id
};

// all_reduce, all_gather, reduce_scatter: channel_id <= 0 and not
// use_global_device_ids: cross_replica; channel_id > 0: with
// use_global_device_ids flattened_ids, else cross_replica_and_partition.
// use_global_device_ids without a channel is an error.
absl::StatusOr<GroupMode> ReplicaGroupMode(absl::string_view op, int64_t channel_id, bool use_global_device_ids);
// all_to_all, collective_permute, collective_broadcast: cross_replica
// without a channel, cross_partition with one.
GroupMode ReplicaOrPartitionMode(int64_t channel_id);

// The process groups of `groups` (ids as the mode reads them) in a run of
// num_replicas x num_partitions processes. An empty `groups` means one group
// of every id. Ids must be in range and appear at most once.
absl::StatusOr<std::vector<std::vector<ProcessId>>> ProcessGroups(absl::string_view op, GroupMode mode,
                                                                  const std::vector<std::vector<int64_t>>& groups,
                                                                  int64_t num_replicas, int64_t num_partitions);

// The group holding `self` (its members in order), or an empty vector.
std::vector<ProcessId> GroupOf(const std::vector<std::vector<ProcessId>>& groups, ProcessId self);

// "[(0,0), (1,0)]" for error messages.
std::string GroupToString(absl::Span<const ProcessId> group);

}  // namespace collectives
}  // namespace xla

#endif  // XLA_COLLECTIVES_PROCESS_GROUPS_H_
