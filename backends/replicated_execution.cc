#include "backends/replicated_execution.h"

#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/execution_control.h"
#include "xla/collectives/replica_context.h"
#include "xla/status_macros.h"

namespace xla {

absl::StatusOr<std::vector<absl::StatusOr<ProcessResult>>> ExecuteReplicatedEach(Backend& backend,
                                                                                std::vector<ProcessRun> processes,
                                                                                const ReplicatedRunOptions& options) {
  const int64_t n = options.num_replicas * options.num_partitions;
  if (options.num_replicas < 1 || options.num_partitions < 1 || static_cast<int64_t>(processes.size()) != n) {
    return InvalidArgument("a run of %d replica(s) x %d partition(s) needs %d processes, got %d",
                           options.num_replicas, options.num_partitions, n, processes.size());
  }
  auto rendezvous = std::make_shared<collectives::Rendezvous>(options.timeout);
  std::shared_ptr<collectives::ChannelTable> channels =
      options.channels != nullptr ? options.channels : std::make_shared<collectives::ChannelTable>();
  std::vector<std::unique_ptr<collectives::ReplicaContext>> contexts;
  for (int64_t i = 0; i < n; ++i) {
    const collectives::ProcessId self{i / options.num_partitions, i % options.num_partitions};
    contexts.push_back(std::make_unique<collectives::ReplicaContext>(options.num_replicas, options.num_partitions,
                                                                     self, rendezvous, options.timeout));
    contexts.back()->set_channels(channels);
    for (Literal& v : processes[i].infeed) contexts.back()->infeed().Push(std::move(v));
  }
  std::vector<std::optional<absl::StatusOr<Literal>>> results(n);
  const absl::Time deadline = absl::Now() + options.timeout;
  auto run = [&](int64_t i) -> absl::StatusOr<Literal> {
    if (processes[i].executable == nullptr) return InvalidArgument("process %d has no executable", i);
    std::vector<std::shared_ptr<const DeviceBuffer>> buffers;
    for (const Literal& arg : processes[i].arguments) {
      ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> b, backend.transfer_manager()->TransferLiteralToDevice(arg));
      buffers.push_back(std::move(b));
    }
    ExecutionControl control(deadline);
    control.set_replica_context(contexts[i].get());
    ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> result,
                     const_cast<Executable*>(processes[i].executable)->Execute(buffers, &control));
    return backend.transfer_manager()->TransferLiteralFromDevice(*result);
  };
  std::vector<std::thread> threads;
  for (int64_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<Literal> r = run(i);
      if (!r.ok()) {
        const collectives::ProcessId self = contexts[i]->self();
        r = absl::Status(r.status().code(), absl::StrCat("process ", self.ToString(), ": ", r.status().message()));
        rendezvous->Abort(r.status());
      }
      results[i] = std::move(r);
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<absl::StatusOr<ProcessResult>> out;
  for (int64_t i = 0; i < n; ++i) {
    if (!results[i]->ok()) {
      out.push_back(results[i]->status());
      continue;
    }
    ProcessResult r;
    r.result = std::move(**results[i]);
    while (contexts[i]->outfeed().size() > 0) {
      ASSIGN_OR_RETURN(Literal v, contexts[i]->outfeed().Pop("outfeed", absl::ZeroDuration()));
      r.outfeed.push_back(std::move(v));
    }
    out.push_back(std::move(r));
  }
  return out;
}

absl::StatusOr<std::vector<ProcessResult>> ExecuteReplicated(Backend& backend, std::vector<ProcessRun> processes,
                                                             const ReplicatedRunOptions& options) {
  ASSIGN_OR_RETURN(std::vector<absl::StatusOr<ProcessResult>> each,
                   ExecuteReplicatedEach(backend, std::move(processes), options));
  // The first process's own failure, not an abort it caused in others.
  for (const auto& r : each) {
    if (!r.ok() && r.status().code() != absl::StatusCode::kAborted) return r.status();
  }
  std::vector<ProcessResult> out;
  for (auto& r : each) {
    if (!r.ok()) return r.status();
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace xla
