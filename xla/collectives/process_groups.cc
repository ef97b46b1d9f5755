#include "xla/collectives/process_groups.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/status_macros.h"

namespace xla {
namespace collectives {

std::string ProcessId::ToString() const { return absl::StrCat("(replica ", replica, ", partition ", partition, ")"); }

absl::StatusOr<GroupMode> ReplicaGroupMode(absl::string_view op, int64_t channel_id, bool use_global_device_ids) {
  if (channel_id <= 0) {
    if (use_global_device_ids) {
      return InvalidArgument("%s: use_global_device_ids needs a channel_id > 0", op);
    }
    return GroupMode::kCrossReplica;
  }
  return use_global_device_ids ? GroupMode::kFlattenedIds : GroupMode::kCrossReplicaAndPartition;
}

GroupMode ReplicaOrPartitionMode(int64_t channel_id) {
  return channel_id <= 0 ? GroupMode::kCrossReplica : GroupMode::kCrossPartition;
}

absl::StatusOr<std::vector<std::vector<ProcessId>>> ProcessGroups(absl::string_view op, GroupMode mode,
                                                                  const std::vector<std::vector<int64_t>>& groups,
                                                                  int64_t num_replicas, int64_t num_partitions) {
  if (num_replicas < 1 || num_partitions < 1) {
    return InvalidArgument("%s: a run needs at least one replica and one partition, got %d x %d", op, num_replicas,
                           num_partitions);
  }
  // How many ids the groups name, for the range check.
  int64_t id_count = num_replicas;
  if (mode == GroupMode::kCrossPartition) id_count = num_partitions;
  if (mode == GroupMode::kFlattenedIds) id_count = num_replicas * num_partitions;
  std::vector<std::vector<int64_t>> ids = groups;
  if (ids.empty()) {
    ids.emplace_back();
    for (int64_t i = 0; i < id_count; ++i) ids.back().push_back(i);
  }
  absl::flat_hash_set<int64_t> seen;
  for (const std::vector<int64_t>& g : ids) {
    if (g.empty()) return InvalidArgument("%s: a replica group is empty", op);
    for (int64_t id : g) {
      if (id < 0 || id >= id_count) {
        return InvalidArgument("%s: id %d of replica group [%s] is out of range [0, %d) for a run of %d replica(s) x %d "
                               "partition(s)",
                               op, id, absl::StrJoin(g, ", "), id_count, num_replicas, num_partitions);
      }
      if (!seen.insert(id).second) return InvalidArgument("%s: id %d appears in more than one replica group", op, id);
    }
  }
  std::vector<std::vector<ProcessId>> out;
  switch (mode) {
    case GroupMode::kCrossReplica:
      for (int64_t p = 0; p < num_partitions; ++p) {
        for (const std::vector<int64_t>& g : ids) {
          std::vector<ProcessId>& group = out.emplace_back();
          for (int64_t r : g) group.push_back({r, p});
        }
      }
      break;
    case GroupMode::kCrossPartition:
      for (int64_t r = 0; r < num_replicas; ++r) {
        for (const std::vector<int64_t>& g : ids) {
          std::vector<ProcessId>& group = out.emplace_back();
          for (int64_t p : g) group.push_back({r, p});
        }
      }
      break;
    case GroupMode::kCrossReplicaAndPartition:
      // Partitions outer, replicas inner (the specification's order).
      for (const std::vector<int64_t>& g : ids) {
        std::vector<ProcessId>& group = out.emplace_back();
        for (int64_t p = 0; p < num_partitions; ++p) {
          for (int64_t r : g) group.push_back({r, p});
        }
      }
      break;
    case GroupMode::kFlattenedIds:
      for (const std::vector<int64_t>& g : ids) {
        std::vector<ProcessId>& group = out.emplace_back();
        for (int64_t id : g) group.push_back({id / num_partitions, id % num_partitions});
      }
      break;
  }
  return out;
}

std::vector<ProcessId> GroupOf(const std::vector<std::vector<ProcessId>>& groups, ProcessId self) {
  for (const std::vector<ProcessId>& g : groups) {
    for (const ProcessId& p : g) {
      if (p == self) return g;
    }
  }
  return {};
}

std::string GroupToString(absl::Span<const ProcessId> group) {
  return absl::StrCat("[", absl::StrJoin(group, ", ", [](std::string* out, const ProcessId& p) {
                        absl::StrAppend(out, "(", p.replica, ",", p.partition, ")");
                      }),
                      "]");
}

}  // namespace collectives
}  // namespace xla
