// AllReduceCombiner ("all-reduce-combiner"): all-reduces that could run at
// the same time become one all-reduce of all their operands. A training
// step's gradients are many all-reduces (one per weight); each costs its
// processes a rendezvous, and across hosts a Gloo exchange whose round trips
// cost the same whatever its size, so one exchange of them all is cheaper.
// The results are the same: every operand is reduced on its own.
//
// Two all-reduces are combined when they have the same replica groups,
// reduction (a sum, product, minimum or maximum, else the same to_apply),
// element type, channel kind (channel_id set or not), use_global_device_ids
// and other attributes, and neither depends on the other, within bounds on
// the combined bytes and operand count. A group never spans another side
// effect (infeed, outfeed, send/recv, another collective, a custom call):
// moving an all-reduce across one could make a program that trades data
// with its host wait forever.
//
// Every process of a run must run the same collectives in the same order,
// which holds when they compile the same program with the same passes.
// Processes running different programs (MPMD) whose all-reduces should meet
// one to one can turn it off with xla_disable_hlo_passes=all-reduce-combiner.
#ifndef XLA_TRANSFORMS_ALL_REDUCE_COMBINER_H_
#define XLA_TRANSFORMS_ALL_REDUCE_COMBINER_H_

#include <cstdint>

#include "xla/transforms/hlo_pass.h"

namespace xla {

class AllReduceCombiner : public HloPass {
 public:
  struct Options {
    int64_t max_bytes = int64_t{32} << 20;
    int64_t max_operands = 256;
  };

  AllReduceCombiner() = default;
  explicit AllReduceCombiner(const Options& options) : options_(options) {}

  absl::string_view name() const override { return "all-reduce-combiner"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  Options options_;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_ALL_REDUCE_COMBINER_H_
