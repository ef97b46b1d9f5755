// TupleSimplifier ("tuple-simplifier"): removes tuples that are built only
// to be taken apart again:
//   get-tuple-element(tuple(a0, ..., an), i)            -> ai
//   tuple(get-tuple-element(x, 0), ..., gte(x, n-1))    -> x   (x has n elements)
#ifndef XLA_TRANSFORMS_TUPLE_SIMPLIFIER_H_
#define XLA_TRANSFORMS_TUPLE_SIMPLIFIER_H_

#include "xla/transforms/hlo_pass.h"

namespace xla {

class TupleSimplifier : public HloPass {
 public:
  absl::string_view name() const override { return "tuple-simplifier"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_TRANSFORMS_TUPLE_SIMPLIFIER_H_
