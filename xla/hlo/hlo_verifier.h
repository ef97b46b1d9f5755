// HloVerifier: checks that a module is well formed before anything runs it.
// The service verifies every module that arrives (shapes are re-inferred,
// never trusted), and pass pipelines verify after each pass in tests.
//
// Checks, with errors naming the computation and instruction:
//  - structure: an entry computation; every computation has a root that it
//    owns; instructions belong to their computation, operands are defined
//    earlier in the same computation; parameter numbers are dense;
//    computation names and instruction names are non-empty and unique in
//    the module;
//  - calls: called computations belong to the module, are defined before
//    their caller (so there is no recursion), are not the entry, and each
//    opcode calls the right number of them (while 2; reduce, map, call 1;
//    conditional >= 1; every other op of the implemented slice 0);
//  - shapes: every declared shape is valid and compatible (layouts are not
//    compared) with the shape ShapeInference::InferInstructionShape infers
//    from the operands' shapes, the attributes and the called computations'
//    program shapes; a constant's literal has its instruction's shape;
//  - input_output_alias: each entry names an array leaf of the entry's
//    result and of a parameter of the same shape, none twice.
#ifndef XLA_HLO_HLO_VERIFIER_H_
#define XLA_HLO_HLO_VERIFIER_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/hlo_module.h"

namespace xla {

class HloVerifier {
 public:
  // OK, or InvalidArgument/Unimplemented naming the first offending
  // instruction: "instruction 'add.3' in computation 'main': Add: ...".
  absl::Status Verify(const HloModule& module);

  // Pass-style entry point: verifies and reports no change.
  absl::string_view name() const { return "hlo-verifier"; }
  absl::StatusOr<bool> Run(HloModule* module);
};

absl::Status VerifyHloModule(const HloModule& module);

}  // namespace xla

#endif  // XLA_HLO_HLO_VERIFIER_H_
