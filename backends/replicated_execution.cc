#include "backends/replicated_execution.h"

#include <memory>
#include <new>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/execution_control.h"
#include "xla/collectives/rendezvous.h"
#include "xla/collectives/replica_context.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

// Every process's value, or the first process's own failure (not an abort
// it caused in others).
template <typename T>
absl::StatusOr<std::vector<T>> AllOrFirstFailure(std::vector<absl::StatusOr<T>> each) {
  for (const auto& r : each) {
    if (!r.ok() && r.status().code() != absl::StatusCode::kAborted) return r.status();
  }
  std::vector<T> out;
  for (auto& r : each) {
    if (!r.ok()) return r.status();
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<absl::StatusOr<std::shared_ptr<DeviceBuffer>>>> ExecuteReplicatedOnDevicesEach(
    std::vector<DeviceProcessRun> processes, const ReplicatedRunOptions& options) {
  const int64_t total = options.num_replicas * options.num_partitions;
  const bool some = !options.process_indices.empty();
  const int64_t n = some ? static_cast<int64_t>(options.process_indices.size()) : total;
  if (options.num_replicas < 1 || options.num_partitions < 1 || static_cast<int64_t>(processes.size()) != n) {
    return InvalidArgument("a run of %d replica(s) x %d partition(s) needs %d processes, got %d",
                           options.num_replicas, options.num_partitions, n, processes.size());
  }
  for (int64_t index : options.process_indices) {
    if (index < 0 || index >= total) return InvalidArgument("process index %d is outside the run", index);
  }
  std::shared_ptr<collectives::Communicator> communicator =
      options.communicator != nullptr ? options.communicator
                                      : std::make_shared<collectives::Rendezvous>(options.timeout);
  std::shared_ptr<collectives::ChannelTable> channels =
      options.channels != nullptr ? options.channels : std::make_shared<collectives::ChannelTable>();
  std::vector<std::unique_ptr<collectives::ReplicaContext>> contexts;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t index = some ? options.process_indices[i] : i;
    const collectives::ProcessId self{index / options.num_partitions, index % options.num_partitions};
    contexts.push_back(std::make_unique<collectives::ReplicaContext>(options.num_replicas, options.num_partitions,
                                                                     self, communicator, options.timeout));
    contexts.back()->set_channels(channels);
    if (processes[i].infeed != nullptr || processes[i].outfeed != nullptr) {
      contexts.back()->set_feeds(
          processes[i].infeed ? processes[i].infeed : std::make_shared<collectives::FeedQueue>(),
          processes[i].outfeed ? processes[i].outfeed : std::make_shared<collectives::FeedQueue>());
    }
  }
  std::vector<std::optional<absl::StatusOr<std::shared_ptr<DeviceBuffer>>>> results(n);
  const absl::Time deadline = absl::Now() + options.timeout;
  auto run = [&](int64_t i) -> absl::StatusOr<std::shared_ptr<DeviceBuffer>> {
    if (processes[i].executable == nullptr) return InvalidArgument("process %d has no executable", i);
    ExecutionControl control(deadline, options.cancelled);
    control.set_replica_context(contexts[i].get());
    // Host allocation failures become a status, not a crash of the process.
    try {
      Executable* executable = const_cast<Executable*>(processes[i].executable);
      if (!processes[i].donated.empty()) {
        return executable->ExecuteWithDonations(processes[i].arguments, processes[i].donated, &control);
      }
      return executable->Execute(processes[i].arguments, &control);
    } catch (const std::bad_alloc&) {
      return ResourceExhausted("execution ran out of host memory");
    }
  };
  std::vector<std::thread> threads;
  for (int64_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<std::shared_ptr<DeviceBuffer>> r = run(i);
      if (!r.ok()) {
        const collectives::ProcessId self = contexts[i]->self();
        r = absl::Status(r.status().code(), absl::StrCat("process ", self.ToString(), ": ", r.status().message()));
        communicator->Abort(r.status());
      }
      results[i] = std::move(r);
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<absl::StatusOr<std::shared_ptr<DeviceBuffer>>> out;
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

absl::StatusOr<std::vector<std::shared_ptr<DeviceBuffer>>> ExecuteReplicatedOnDevices(
    std::vector<DeviceProcessRun> processes, const ReplicatedRunOptions& options) {
  ASSIGN_OR_RETURN(auto each, ExecuteReplicatedOnDevicesEach(std::move(processes), options));
  return AllOrFirstFailure(std::move(each));
}

absl::StatusOr<std::vector<absl::StatusOr<ProcessResult>>> ExecuteReplicatedEach(Backend& backend,
                                                                                std::vector<ProcessRun> processes,
                                                                                const ReplicatedRunOptions& options) {
  std::vector<DeviceProcessRun> runs(processes.size());
  for (size_t i = 0; i < processes.size(); ++i) {
    runs[i].executable = processes[i].executable;
    for (const Literal& arg : processes[i].arguments) {
      ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> b, backend.transfer_manager()->TransferLiteralToDevice(arg));
      runs[i].arguments.push_back(std::move(b));
    }
    runs[i].infeed = std::make_shared<collectives::FeedQueue>();
    runs[i].outfeed = std::make_shared<collectives::FeedQueue>();
    for (Literal& v : processes[i].infeed) runs[i].infeed->Push(std::move(v));
  }
  std::vector<std::shared_ptr<collectives::FeedQueue>> outfeeds;
  for (const DeviceProcessRun& r : runs) outfeeds.push_back(r.outfeed);
  ASSIGN_OR_RETURN(auto results, ExecuteReplicatedOnDevicesEach(std::move(runs), options));
  std::vector<absl::StatusOr<ProcessResult>> out;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) {
      out.push_back(results[i].status());
      continue;
    }
    ProcessResult r;
    ASSIGN_OR_RETURN(r.result, backend.transfer_manager()->TransferLiteralFromDevice(**results[i]));
    while (outfeeds[i]->size() > 0) {
      ASSIGN_OR_RETURN(Literal v, outfeeds[i]->Pop("outfeed", absl::ZeroDuration()));
      r.outfeed.push_back(std::move(v));
    }
    out.push_back(std::move(r));
  }
  return out;
}

absl::StatusOr<std::vector<ProcessResult>> ExecuteReplicated(Backend& backend, std::vector<ProcessRun> processes,
                                                             const ReplicatedRunOptions& options) {
  ASSIGN_OR_RETURN(auto each, ExecuteReplicatedEach(backend, std::move(processes), options));
  return AllOrFirstFailure(std::move(each));
}

}  // namespace xla
