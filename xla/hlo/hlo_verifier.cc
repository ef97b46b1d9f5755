#include "xla/hlo/hlo_verifier.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_opcode.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

std::string Where(const HloInstruction& instruction, const HloComputation& computation) {
  return absl::StrCat("instruction '", instruction.name(), "' in computation '", computation.name(), "'");
}

absl::Status WithContext(const absl::Status& status, const HloInstruction& instruction,
                         const HloComputation& computation) {
  return AddErrorContext(status, Where(instruction, computation));
}

// Computations an opcode must call, or -1 for "at least one" (conditional);
// ops outside this list are checked by shape inference (they call none).
int ExpectedCalledCount(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kWhile: return 2;
    case HloOpcode::kReduce:
    case HloOpcode::kMap:
    case HloOpcode::kCall:
    case HloOpcode::kFusion: return 1;
    case HloOpcode::kConditional: return -1;
    default: return -2;
  }
}

class Verifier {
 public:
  explicit Verifier(const HloModule& module) : module_(module) {}

  absl::Status Run() {
    if (module_.entry_computation() == nullptr) {
      return InvalidArgument("module '%s' has no entry computation", module_.name());
    }
    const std::vector<HloComputation*> computations = module_.computations();
    for (size_t i = 0; i < computations.size(); ++i) computation_index_[computations[i]] = i;
    if (!computation_index_.contains(module_.entry_computation())) {
      return InvalidArgument("module '%s': the entry computation '%s' is not one of its computations",
                             module_.name(), module_.entry_computation()->name());
    }
    // Structure first: shape checks below rely on it (e.g. dense parameters
    // for ComputeProgramShape).
    absl::flat_hash_set<std::string> computation_names;
    for (const HloComputation* c : computations) {
      if (c->name().empty()) return InvalidArgument("module '%s' has a computation without a name", module_.name());
      if (!computation_names.insert(c->name()).second) {
        return InvalidArgument("module '%s' has more than one computation named '%s'", module_.name(), c->name());
      }
      RETURN_IF_ERROR(VerifyStructure(*c));
    }
    for (const HloComputation* c : computations) RETURN_IF_ERROR(VerifyShapes(*c));
    if (!module_.input_output_aliases().empty()) {
      absl::Status aliases = CheckInputOutputAliases(module_.input_output_aliases(),
                                                     module_.entry_computation()->ComputeProgramShape());
      if (!aliases.ok()) return AddErrorContext(aliases, absl::StrCat("module '", module_.name(), "'"));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status VerifyStructure(const HloComputation& c) {
    const std::string where = absl::StrCat("computation '", c.name(), "'");
    if (c.parent() != &module_) {
      return InvalidArgument("%s does not belong to module '%s'", where, module_.name());
    }
    const std::vector<HloInstruction*> instructions = c.instructions();
    absl::flat_hash_map<const HloInstruction*, size_t> position;
    for (size_t p = 0; p < instructions.size(); ++p) {
      const HloInstruction* i = instructions[p];
      if (i == nullptr) return Internal("%s has a null instruction", where);
      position[i] = p;
    }
    if (c.root_instruction() == nullptr) return InvalidArgument("%s has no root instruction", where);
    if (!position.contains(c.root_instruction())) {
      return InvalidArgument("%s: root '%s' is not an instruction of this computation", where,
                             c.root_instruction()->name());
    }
    const size_t my_index = computation_index_.at(&c);
    // (operand, user) pairs as the operands' users lists state them: one
    // lookup per operand, however many users an operand has.
    absl::flat_hash_set<std::pair<const HloInstruction*, const HloInstruction*>> listed_users;
    for (const HloInstruction* i : instructions) {
      for (const HloInstruction* user : i->users()) listed_users.insert({i, user});
    }
    int64_t parameter_count = 0;
    for (size_t p = 0; p < instructions.size(); ++p) {
      const HloInstruction& i = *instructions[p];
      if (i.name().empty()) {
        return InvalidArgument("%s: instruction %d (%s) has no name", where, p, HloOpcodeString(i.opcode()));
      }
      const std::string iwhere = Where(i, c);
      // Names are scoped per computation, as in HLO text (operands are
      // resolved within their computation).
      if (!instruction_names_.insert(absl::StrCat(c.name(), "/", i.name())).second) {
        return InvalidArgument("%s: another instruction of the computation has the name '%s'", iwhere, i.name());
      }
      if (i.parent() != &c) return InvalidArgument("%s: its parent is not this computation", iwhere);
      const int arity = HloOpcodeArity(i.opcode());
      if (arity != kHloOpcodeVariadic && i.operand_count() != arity) {
        return InvalidArgument("%s: %s takes %d operands but has %d", iwhere, HloOpcodeString(i.opcode()), arity,
                               i.operand_count());
      }
      for (int64_t k = 0; k < i.operand_count(); ++k) {
        const HloInstruction* operand = i.operand(k);
        if (operand == nullptr) return InvalidArgument("%s: operand %d is null", iwhere, k);
        auto it = position.find(operand);
        if (it == position.end()) {
          return InvalidArgument("%s: operand %d ('%s') is not an instruction of this computation", iwhere, k,
                                 operand->name());
        }
        if (it->second >= p) {
          return InvalidArgument("%s: operand %d ('%s') is not defined before its use", iwhere, k, operand->name());
        }
        if (!listed_users.contains({operand, &i})) {
          return Internal("%s: operand %d ('%s') does not list it as a user", iwhere, k, operand->name());
        }
      }
      const int expected_called = ExpectedCalledCount(i.opcode());
      const int64_t called_count = static_cast<int64_t>(i.called_computations().size());
      if (expected_called >= 0 && called_count != expected_called) {
        return InvalidArgument("%s: %s calls %d computations but must call %d", iwhere, HloOpcodeString(i.opcode()),
                               called_count, expected_called);
      }
      if (expected_called == -1 && called_count < 1) {
        return InvalidArgument("%s: %s must call at least one branch computation", iwhere,
                               HloOpcodeString(i.opcode()));
      }
      for (size_t k = 0; k < i.called_computations().size(); ++k) {
        const HloComputation* callee = i.called_computations()[k];
        if (callee == nullptr) return InvalidArgument("%s: called computation %d is null", iwhere, k);
        auto it = computation_index_.find(callee);
        if (it == computation_index_.end()) {
          return InvalidArgument("%s: called computation '%s' is not part of the module", iwhere, callee->name());
        }
        if (callee == module_.entry_computation()) {
          return InvalidArgument("%s: calls the entry computation '%s'", iwhere, callee->name());
        }
        if (it->second >= my_index) {
          return InvalidArgument(
              "%s: called computation '%s' must be defined before its caller (recursion is not allowed)", iwhere,
              callee->name());
        }
      }
      if (i.opcode() == HloOpcode::kParameter) {
        ++parameter_count;
        const int64_t n = i.parameter_number();
        if (n < 0 || n >= c.num_parameters() || c.parameter_instruction(n) != &i) {
          return InvalidArgument("%s: parameter number %d is not registered with the computation", iwhere, n);
        }
      }
    }
    if (parameter_count != c.num_parameters()) {
      for (int64_t n = 0; n < c.num_parameters(); ++n) {
        if (c.parameter_instruction(n) == nullptr) {
          return InvalidArgument("%s: parameter %d is missing (parameter numbers must be 0..%d)", where, n,
                                 c.num_parameters() - 1);
        }
      }
      return InvalidArgument("%s has %d parameter instructions but %d registered parameters", where, parameter_count,
                             c.num_parameters());
    }
    return absl::OkStatus();
  }

  const ProgramShape& ProgramShapeOf(const HloComputation* c) {
    auto it = program_shapes_.find(c);
    if (it == program_shapes_.end()) it = program_shapes_.emplace(c, c->ComputeProgramShape()).first;
    return it->second;
  }

  absl::Status VerifyShapes(const HloComputation& c) {
    for (const HloInstruction* i : c.instructions()) {
      const Shape& declared = i->shape();
      absl::Status valid = ShapeUtil::ValidateShape(declared);
      if (!valid.ok()) {
        return WithContext(InvalidArgument("invalid shape %s: %s", declared.ToString(), valid.message()), *i, c);
      }
      if (i->opcode() == HloOpcode::kConstant) {
        if (!i->has_literal()) return InvalidArgument("%s: constant has no literal", Where(*i, c));
        if (!i->literal().shape().Compatible(declared)) {
          return InvalidArgument("%s: constant literal has shape %s but the instruction has shape %s", Where(*i, c),
                                 i->literal().shape().ToString(), declared.ToString());
        }
      }
      std::vector<const Shape*> operand_shapes;
      for (const HloInstruction* operand : i->operands()) operand_shapes.push_back(&operand->shape());
      std::vector<const ProgramShape*> called;
      for (const HloComputation* callee : i->called_computations()) called.push_back(&ProgramShapeOf(callee));
      absl::StatusOr<Shape> inferred =
          ShapeInference::InferInstructionShape(i->opcode(), i->attributes(), operand_shapes, called, declared);
      if (!inferred.ok()) return WithContext(inferred.status(), *i, c);
      if (!inferred->Compatible(declared)) {
        std::vector<std::string> operand_strs;
        for (const Shape* s : operand_shapes) operand_strs.push_back(s->ToString());
        std::string hint;
        if (i->opcode() == HloOpcode::kDot &&
            i->attributes().dot_dimension_numbers().lhs_contracting_dimensions_size() == 0) {
          hint = "; the dot has no contracting dimensions (lhs_contracting_dims/rhs_contracting_dims), so it is an "
                 "outer product";
        }
        return InvalidArgument("%s: %s: declared shape %s does not match the inferred shape %s (operands: %s)%s",
                               Where(*i, c), HloOpcodeString(i->opcode()), declared.ToString(),
                               inferred->ToString(), operand_strs.empty() ? "none" : absl::StrJoin(operand_strs, ", "),
                               hint);
      }
    }
    return absl::OkStatus();
  }

  const HloModule& module_;
  absl::flat_hash_map<const HloComputation*, size_t> computation_index_;
  absl::flat_hash_set<std::string> instruction_names_;
  // Node map: callers keep pointers to the cached program shapes.
  absl::node_hash_map<const HloComputation*, ProgramShape> program_shapes_;
};

}  // namespace

absl::Status HloVerifier::Verify(const HloModule& module) { return Verifier(module).Run(); }

absl::StatusOr<bool> HloVerifier::Run(HloModule* module) {
  if (module == nullptr) return InvalidArgument("HloVerifier: null module");
  RETURN_IF_ERROR(Verify(*module));
  return false;
}

absl::Status VerifyHloModule(const HloModule& module) { return HloVerifier().Verify(module); }

}  // namespace xla
