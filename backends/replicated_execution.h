// Runs the processes of a replicated/partitioned run in this process: one
// thread per process (replica r, partition p), each executing its program
// with its own arguments and an ExecutionControl carrying its
// ReplicaContext; the collectives meet in one shared Rendezvous. When a
// process fails, the rendezvous is aborted so the others fail promptly
// with that status; the run's result is the first failure, naming its
// process, or every process's result. Send/Recv go through a ChannelTable
// that every process of the run holds; runs given the same table (at the
// same time, e.g. by a service that owns it) talk to each other.
//
// Two forms: on literals (tests, the conformance runner: each process's
// infeed is queued before the run and its outfeed returned after), and on
// device buffers (the service: arguments stay where they are, and each
// process reads and writes its device's persistent feed queues).
#ifndef BACKENDS_REPLICATED_EXECUTION_H_
#define BACKENDS_REPLICATED_EXECUTION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "backends/backend.h"
#include "xla/collectives/channel_table.h"
#include "xla/collectives/communicator.h"
#include "xla/collectives/feed_queue.h"
#include "xla/literal.h"

namespace xla {

struct ReplicatedRunOptions {
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  // Bounds every wait of a collective or an infeed, and the whole run.
  absl::Duration timeout = absl::Seconds(30);
  // How the processes exchange collective data; null: an in-process
  // Rendezvous of the run's own (a transport between hosts plugs in here).
  std::shared_ptr<collectives::Communicator> communicator;
  // Send/Recv's channels; null: a table of the run's own.
  std::shared_ptr<collectives::ChannelTable> channels;
  // Asked at loop checks whether the caller has gone away (may be empty).
  std::function<bool()> cancelled;
  // The processes this call runs, by process index (replica *
  // num_partitions + partition), when they are only some of the run's (the
  // others run on other hosts, meeting through `communicator`); empty: all
  // of them, in order. (Device runs only.)
  std::vector<int64_t> process_indices;
};

struct ProcessRun {
  const Executable* executable = nullptr;  // not owned
  std::vector<Literal> arguments;
  std::vector<Literal> infeed;             // queued before the run, in order
};

struct ProcessResult {
  Literal result;
  std::vector<Literal> outfeed;  // what the process's outfeeds sent, in order
};

// `processes` in row-major process order (index replica * num_partitions +
// partition); their executables must come from `backend`.
absl::StatusOr<std::vector<ProcessResult>> ExecuteReplicated(Backend& backend, std::vector<ProcessRun> processes,
                                                             const ReplicatedRunOptions& options);

// The same run, with every process's own outcome: a process that failed
// has its status (prefixed with its process id), one that stopped because
// another failed has ABORTED quoting that failure. The outer status is an
// error only when the run cannot start.
absl::StatusOr<std::vector<absl::StatusOr<ProcessResult>>> ExecuteReplicatedEach(Backend& backend,
                                                                                std::vector<ProcessRun> processes,
                                                                                const ReplicatedRunOptions& options);

struct DeviceProcessRun {
  const Executable* executable = nullptr;  // not owned
  // In the parameters' shapes and layouts (not checked here).
  std::vector<std::shared_ptr<const DeviceBuffer>> arguments;
  // The device's queues, shared with whoever feeds and drains them; null:
  // an empty queue of the run's own.
  std::shared_ptr<collectives::FeedQueue> infeed;
  std::shared_ptr<collectives::FeedQueue> outfeed;
  // Per argument, its buffer when the caller donates it (Executable::
  // ExecuteWithDonations); empty: none.
  std::vector<std::shared_ptr<DeviceBuffer>> donated;
};

// The same on device buffers (the service: arguments stay where they are,
// and each process reads and writes its device's persistent feed queues).
absl::StatusOr<std::vector<std::shared_ptr<DeviceBuffer>>> ExecuteReplicatedOnDevices(
    std::vector<DeviceProcessRun> processes, const ReplicatedRunOptions& options);
// Every process's own outcome, as ExecuteReplicatedEach.
absl::StatusOr<std::vector<absl::StatusOr<std::shared_ptr<DeviceBuffer>>>> ExecuteReplicatedOnDevicesEach(
    std::vector<DeviceProcessRun> processes, const ReplicatedRunOptions& options);

}  // namespace xla

#endif  // BACKENDS_REPLICATED_EXECUTION_H_
