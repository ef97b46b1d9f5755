// The runtime entries of replica-id/partition-id, infeed/outfeed, the
// collectives and send/recv. `control` is the run's ExecutionControl: its ReplicaContext
// says which process this run is (none: (0, 0) of 1 x 1 without feed
// queues). `desc` is the instruction's serialized HloInstructionProto
// (xla/collectives CollectiveOp::ToProto): the op's attributes and shapes.
// On failure an entry records the status in the ExecutionControl and
// returns false; the emitted code then returns and the executable reports
// the status.
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_COLLECTIVES_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_COLLECTIVES_H_

#include <cstdint>

extern "C" {
// `which`: 0 the replica id, 1 the partition id.
uint32_t __xla_cpu_runtime_ProcessId(const void* control, int32_t which);
// all-reduce, all-gather, all-to-all, reduce-scatter, collective-permute,
// collective-broadcast: the operands' and results' row-major array
// buffers. `combine` (all-reduce, reduce-scatter) folds `count` elements of operand `operand`: acc[i] = f(acc[i], other[i]).
bool __xla_cpu_runtime_Collective(const void* control, const char* desc, int64_t desc_size,
                                  const void* const* operands, void* const* results,
                                  void (*combine)(int64_t operand, void* acc, const void* other, int64_t count));
// Pops the next infeed value into the value's array leaves (row-major).
bool __xla_cpu_runtime_Infeed(const void* control, const char* desc, int64_t desc_size, void* const* leaves);
// Pushes the value held in the operand's array leaves to the outfeed.
bool __xla_cpu_runtime_Outfeed(const void* control, const char* desc, int64_t desc_size, const void* const* leaves);
// send, recv, recv-done on the run's channel table (desc's channel_id is
// the channel): send appends the value held in `in` (its array leaves) to
// the channel and writes its result (value, u32[] 0) to `out`; recv writes
// zeros; recv-done takes the channel's oldest value into `out`, waiting up
// to the run's timeout.
bool __xla_cpu_runtime_Transfer(const void* control, const char* desc, int64_t desc_size, const void* const* in,
                                void* const* out);
}

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_COLLECTIVES_H_
