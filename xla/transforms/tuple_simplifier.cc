#include "xla/transforms/tuple_simplifier.h"

#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

// The x of tuple(gte(x, 0), ..., gte(x, n-1)), or nullptr.
HloInstruction* UnpackedAndRepacked(const HloInstruction* tuple) {
  if (tuple->operand_count() == 0) return nullptr;
  HloInstruction* source = nullptr;
  for (int64_t k = 0; k < tuple->operand_count(); ++k) {
    const HloInstruction* element = tuple->operand(k);
    if (element->opcode() != HloOpcode::kGetTupleElement || element->tuple_index() != k) return nullptr;
    HloInstruction* x = const_cast<HloInstruction*>(element->operand(0));
    if (source != nullptr && x != source) return nullptr;
    source = x;
  }
  if (source->shape().tuple_shapes_size() != tuple->operand_count()) return nullptr;
  return source;
}

}  // namespace

absl::StatusOr<bool> TupleSimplifier::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* i : computation->MakeInstructionPostOrder()) {
      HloInstruction* replacement = nullptr;
      if (i->opcode() == HloOpcode::kGetTupleElement && i->operand(0)->opcode() == HloOpcode::kTuple) {
        const int64_t index = i->tuple_index();
        if (index >= 0 && index < i->operand(0)->operand_count()) {
          replacement = i->mutable_operand(0)->mutable_operand(index);
        }
      } else if (i->opcode() == HloOpcode::kTuple) {
        replacement = UnpackedAndRepacked(i);
      }
      if (replacement == nullptr) continue;
      ASSIGN_OR_RETURN(bool replaced, ReplaceInstruction(i, replacement));
      changed |= replaced;
    }
  }
  return changed;
}

}  // namespace xla
