// Small helpers the passes of xla/transforms/ share: facts about
// instructions (side effects, known constant values), building instructions
// with checked shapes and module-unique names, replacing and removing
// instructions, cloning and inlining computations. Some fill gaps of the IR
// API (removing computations from a module), see the notes below.
#ifndef XLA_TRANSFORMS_HLO_REWRITE_UTIL_H_
#define XLA_TRANSFORMS_HLO_REWRITE_UTIL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_module.h"
#include "xla/literal.h"

namespace xla {

// --- Facts -------------------------------------------------------------------

// Ops with effects beyond their result (I/O, collectives, random numbers,
// opaque custom calls), and ops calling a computation that has one. Such an
// instruction is never removed, merged, hoisted or folded.
bool HasSideEffect(const HloInstruction* instruction);
bool ComputationHasSideEffect(const HloComputation* computation);

// A constant whose value is known: not an elided `constant({...})` from text
// (its stored zeros are a placeholder, not the value).
bool IsKnownConstant(const HloInstruction* instruction);

// When every element of `instruction`'s value is the same (bitwise) and
// known, that value as a scalar literal: a known constant with at least one
// element, or a broadcast of such a value. Otherwise nullopt.
std::optional<Literal> GetSplatValue(const HloInstruction* instruction);
// The splat value of `instruction` equals `value` converted to its element
// type, bit for bit (so -0.0 and +0.0 differ). Array types only.
bool IsSplatValue(const HloInstruction* instruction, double value);

// Total array elements in `shape` (tuples summed; tokens count 0).
int64_t TotalElementCount(const Shape& shape);

// For each computation, the instructions calling it.
absl::flat_hash_map<const HloComputation*, std::vector<HloInstruction*>> ComputeCallers(const HloModule& module);

// --- Names -----------------------------------------------------------------

// Hands out instruction names that are unused in the module (the verifier
// wants module-unique names): `base` itself when free, else base.1, base.2...
class NameUniquer {
 public:
  explicit NameUniquer(const HloModule& module);
  std::string GetUniqueName(absl::string_view base);

 private:
  absl::flat_hash_set<std::string> used_;
  absl::flat_hash_map<std::string, int64_t> next_suffix_;
};

// Adds `instruction` to `computation` under a unique name derived from
// `base` (the opcode when empty).
HloInstruction* AddInstructionWithUniqueName(HloComputation* computation,
                                             std::unique_ptr<HloInstruction> instruction,
                                             NameUniquer* names, absl::string_view base = "");

// --- Building --------------------------------------------------------------

// Creates `opcode(operands)` with `attributes` and `called` computations in
// `computation`, after checking with shape inference that the operands and
// attributes are valid and give a shape compatible with `shape` (which is
// used as is, layout included). An invalid combination is an error and
// nothing is added, so a rewrite can try a form and fall back.
absl::StatusOr<HloInstruction*> MakeInstruction(HloComputation* computation, NameUniquer* names,
                                                HloOpcode opcode, const Shape& shape,
                                                absl::Span<HloInstruction* const> operands,
                                                HloInstructionProto attributes = {},
                                                absl::Span<HloComputation* const> called = {});

// A constant instruction holding `literal` (added to `computation`).
HloInstruction* MakeConstant(HloComputation* computation, NameUniquer* names, Literal literal);

// A copy of `instruction` (opcode, shape, attributes, literal, called
// computations) with other operands; not added anywhere, no name.
std::unique_ptr<HloInstruction> CloneWithNewOperands(const HloInstruction& instruction,
                                                     absl::Span<HloInstruction* const> operands);

// --- Replacing and removing ------------------------------------------------

// Whether `replacement` may take the place of `old`: compatible shapes, and
// when `old` is a computation's root the same layout too (a root's layout is
// part of the computation's signature, e.g. the entry's result layout).
bool CanReplace(const HloInstruction* old, const HloInstruction* replacement);

// When CanReplace: makes every user (and the root slot) use `replacement`,
// then removes `old` and every operand that became dead through it. Returns
// whether it replaced. Only `old` and instructions it kept alive are
// removed, so a pass walking a post-order snapshot stays safe as long as it
// replaces the instruction it is visiting.
absl::StatusOr<bool> ReplaceInstruction(HloInstruction* old, HloInstruction* replacement);

// Dead: no users, not the root, not a parameter, no side effect.
bool IsDead(const HloInstruction* instruction);
// Removes `instruction` if dead, then its operands that become dead.
absl::Status RemoveDeadRecursively(HloInstruction* instruction);
// Removes every dead instruction of `computation`; returns whether any.
absl::StatusOr<bool> RemoveDeadInstructions(HloComputation* computation);
// Removes the dead instructions among `candidates` and, transitively, the
// operands that die with them. `candidates` is only compared by address, so
// it may hold pointers to instructions removed since.
absl::StatusOr<bool> RemoveDeadAmong(HloComputation* computation,
                                     absl::flat_hash_set<const HloInstruction*> candidates);

// Removes computations from the module (none may be the entry or still be
// called by a remaining one). The IR has no API for this, so the module is
// rebuilt through its proto: every HloComputation*/HloInstruction* into the
// module is invalidated.
absl::Status RemoveComputations(HloModule* module, const absl::flat_hash_set<const HloComputation*>& remove);

// Calls `rewrite(computation, names, instruction)` on each `opcode`
// instruction of every computation, in a post-order snapshot (the rewrite
// may replace the instruction it is given, and append new ones), then
// restores the topological order of the computations it changed. Returns
// whether any call did.
using InstructionRewrite = std::function<absl::StatusOr<bool>(HloComputation*, NameUniquer*, HloInstruction*)>;
absl::StatusOr<bool> RewriteEach(HloModule* module, HloOpcode opcode, const InstructionRewrite& rewrite);

// --- Inlining --------------------------------------------------------------

// Clones the body of `callee` into `into`, with its parameters bound to
// `arguments` (one per parameter, in `into`); returns the clone of the root
// (which is an argument when the callee just returns a parameter). Clones get
// unique names based on the callee's names. Dead instructions of the callee
// are not cloned; side-effecting ones are. Call RestoreTopologicalOrder on
// `into` when done. `clones`, when given, receives the new instructions.
absl::StatusOr<HloInstruction*> InlineComputation(const HloComputation& callee,
                                                  absl::Span<HloInstruction* const> arguments,
                                                  HloComputation* into, NameUniquer* names,
                                                  std::vector<HloInstruction*>* clones = nullptr);

}  // namespace xla

#endif  // XLA_TRANSFORMS_HLO_REWRITE_UTIL_H_
