#include "xla/hlo/hlo_module.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/hlo_printer.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {

HloComputation* HloModule::AddEmbeddedComputation(std::unique_ptr<HloComputation> computation) {
  computation->set_parent(this);
  if (computation->unique_id() < 0) computation->set_unique_id(NextUniqueId());
  for (HloInstruction* i : computation->instructions()) {
    if (i->unique_id() < 0) i->set_unique_id(NextUniqueId());
  }
  computations_.push_back(std::move(computation));
  return computations_.back().get();
}

HloComputation* HloModule::AddEmbeddedComputationBefore(std::unique_ptr<HloComputation> computation,
                                                       const HloComputation* caller) {
  const auto index = std::find_if(computations_.begin(), computations_.end(),
                                  [&](const std::unique_ptr<HloComputation>& c) { return c.get() == caller; }) -
                     computations_.begin();
  HloComputation* added = AddEmbeddedComputation(std::move(computation));
  std::rotate(computations_.begin() + index, computations_.end() - 1, computations_.end());
  return added;
}

HloComputation* HloModule::AddEntryComputation(std::unique_ptr<HloComputation> computation) {
  entry_ = AddEmbeddedComputation(std::move(computation));
  return entry_;
}

std::vector<HloComputation*> HloModule::computations() const {
  std::vector<HloComputation*> out;
  for (const auto& c : computations_) out.push_back(c.get());
  return out;
}

HloComputation* HloModule::GetComputationByName(absl::string_view name) const {
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<HloModule>> HloModule::CreateFromProto(const HloModuleProto& proto) {
  auto module = std::make_unique<HloModule>(proto.name());
  for (const auto& [k, v] : proto.attributes()) module->attributes_[k] = v;
  for (const InputOutputAliasProto& a : proto.input_output_alias()) {
    module->input_output_aliases_.push_back(InputOutputAliasFromProto(a));
  }
  if (proto.computations_size() == 0) return InvalidArgument("module '%s' has no computations", proto.name());

  absl::flat_hash_map<int64_t, HloComputation*> computation_by_id;
  absl::flat_hash_set<int64_t> instruction_ids;
  int64_t max_id = 0;
  // Program shapes are recomputed from the instructions, but a dynamic one
  // means the producer meant something this module cannot express.
  auto check_program_shape = [](const ProgramShapeProto& ps, const std::string& what) -> absl::Status {
    for (const ShapeProto& p : ps.parameters()) {
      absl::Status s = ShapeUtil::CheckStaticShapeProto(p);
      if (!s.ok()) return AddErrorContext(s, what);
    }
    absl::Status s = ShapeUtil::CheckStaticShapeProto(ps.result());
    return s.ok() ? s : AddErrorContext(s, what);
  };
  RETURN_IF_ERROR(check_program_shape(proto.host_program_shape(), absl::StrCat("module '", proto.name(),
                                                                               "': host_program_shape")));
  for (const HloComputationProto& cproto : proto.computations()) {
    const std::string where = absl::StrCat("computation '", cproto.name(), "'");
    RETURN_IF_ERROR(check_program_shape(cproto.program_shape(), absl::StrCat(where, ": program_shape")));
    if (computation_by_id.contains(cproto.id())) {
      return InvalidArgument("%s: duplicate computation id %d", where, cproto.id());
    }
    auto computation = std::make_unique<HloComputation>(cproto.name());
    computation->set_unique_id(cproto.id());
    max_id = std::max(max_id, cproto.id());
    absl::flat_hash_map<int64_t, HloInstruction*> by_id;
    std::vector<bool> seen_param;
    for (const HloInstructionProto& iproto : cproto.instructions()) {
      const std::string iwhere = absl::StrCat(where, ", instruction '", iproto.name(), "'");
      auto opcode_or = StringToHloOpcode(iproto.opcode());
      if (!opcode_or.ok()) return AddErrorContext(opcode_or.status(), iwhere);
      HloOpcode opcode = *opcode_or;
      if (!instruction_ids.insert(iproto.id()).second) {
        return InvalidArgument("%s: duplicate instruction id %d", iwhere, iproto.id());
      }
      max_id = std::max(max_id, iproto.id());
      auto shape_or = ShapeUtil::FromProto(iproto.shape());
      if (!shape_or.ok()) return AddErrorContext(shape_or.status(), iwhere);
      RETURN_IF_ERROR(ShapeUtil::CheckNoPadding(*shape_or, iwhere));
      // Shapes kept as attributes are checked too, so none is misread later.
      for (const ShapeProto& s : iproto.operand_shapes_with_layout()) {
        absl::StatusOr<Shape> shape = ShapeUtil::FromProto(s);
        absl::Status valid = shape.ok() ? ShapeUtil::CheckNoPadding(*shape, "operand shape") : shape.status();
        if (!valid.ok()) return AddErrorContext(valid, absl::StrCat(iwhere, ": operand_shapes_with_layout"));
      }
      if (iproto.has_outfeed_shape()) {
        absl::Status valid = ShapeUtil::FromProto(iproto.outfeed_shape()).status();
        if (!valid.ok()) return AddErrorContext(valid, absl::StrCat(iwhere, ": outfeed_shape"));
      }
      int arity = HloOpcodeArity(opcode);
      if (arity != kHloOpcodeVariadic && iproto.operand_ids_size() != arity) {
        return InvalidArgument("%s: %s takes %d operands but has %d", iwhere, iproto.opcode(), arity,
                               iproto.operand_ids_size());
      }
      std::vector<HloInstruction*> operands;
      for (int64_t op_id : iproto.operand_ids()) {
        auto it = by_id.find(op_id);
        if (it == by_id.end()) {
          return InvalidArgument("%s: operand id %d is not an earlier instruction of the same computation",
                                 iwhere, op_id);
        }
        operands.push_back(it->second);
      }
      std::vector<HloComputation*> called;
      for (int64_t c_id : iproto.called_computation_ids()) {
        auto it = computation_by_id.find(c_id);
        if (it == computation_by_id.end()) {
          return InvalidArgument("%s: called computation id %d is not defined before its caller", iwhere, c_id);
        }
        called.push_back(it->second);
      }
      auto instr = HloInstruction::Create(opcode, *shape_or, operands, called, iproto);
      instr->set_name(iproto.name());
      instr->set_unique_id(iproto.id());
      if (opcode == HloOpcode::kConstant) {
        if (!iproto.has_literal()) return InvalidArgument("%s: constant has no literal", iwhere);
        auto lit_or = Literal::FromProto(iproto.literal());
        if (!lit_or.ok()) return AddErrorContext(lit_or.status(), iwhere);
        if (!lit_or->shape().Compatible(*shape_or)) {
          return InvalidArgument("%s: constant literal has shape %s but the instruction has shape %s",
                                 iwhere, lit_or->shape().ToString(), shape_or->ToString());
        }
        // Relaid out only when the layouts differ: a copy of a model's
        // weights is most of what loading it costs.
        if (lit_or->shape() == *shape_or) {
          instr->set_literal(std::move(*lit_or));
        } else {
          instr->set_literal(lit_or->RelayoutTo(*shape_or));
        }
      }
      if (opcode == HloOpcode::kParameter) {
        int64_t n = iproto.parameter_number();
        if (n < 0 || n >= cproto.instructions_size()) {
          return InvalidArgument("%s: parameter number %d out of range", iwhere, n);
        }
        if (n >= static_cast<int64_t>(seen_param.size())) seen_param.resize(n + 1, false);
        if (seen_param[n]) return InvalidArgument("%s: duplicate parameter number %d", iwhere, n);
        seen_param[n] = true;
      }
      by_id[iproto.id()] = computation->AddInstruction(std::move(instr));
    }
    for (size_t n = 0; n < seen_param.size(); ++n) {
      if (!seen_param[n]) return InvalidArgument("%s: parameter %d is missing", where, n);
    }
    auto root_it = by_id.find(cproto.root_id());
    if (root_it == by_id.end()) {
      return InvalidArgument("%s: root id %d is not an instruction of it", where, cproto.root_id());
    }
    computation->set_root_instruction(root_it->second);
    HloComputation* raw = nullptr;
    bool is_entry = proto.entry_computation_id() == cproto.id() ||
                    (proto.entry_computation_id() == 0 && proto.entry_computation_name() == cproto.name());
    if (is_entry && module->entry_ != nullptr) {
      return InvalidArgument("%s: another computation is already the entry", where);
    }
    if (is_entry) {
      raw = module->AddEntryComputation(std::move(computation));
    } else {
      raw = module->AddEmbeddedComputation(std::move(computation));
    }
    computation_by_id[cproto.id()] = raw;
  }
  if (module->entry_ == nullptr) {
    return InvalidArgument("module '%s': entry computation (id %d, name '%s') not found", proto.name(),
                           proto.entry_computation_id(), proto.entry_computation_name());
  }
  // The entry may not be called by anything.
  for (HloComputation* c : module->computations()) {
    for (HloInstruction* i : c->instructions()) {
      for (HloComputation* called : i->called_computations()) {
        if (called == module->entry_) {
          return InvalidArgument("instruction '%s' calls the entry computation", i->name());
        }
      }
    }
  }
  module->next_id_ = max_id + 1;
  return module;
}

HloModuleProto HloModule::ToProto() const {
  HloModuleProto proto;
  proto.set_name(name_);
  for (const auto& c : computations_) *proto.add_computations() = c->ToProto();
  if (entry_ != nullptr) {
    proto.set_entry_computation_name(entry_->name());
    proto.set_entry_computation_id(entry_->unique_id());
    *proto.mutable_host_program_shape() = entry_->ComputeProgramShape().ToProto();
  }
  for (const auto& [k, v] : attributes_) (*proto.mutable_attributes())[k] = v;
  for (const InputOutputAlias& a : input_output_aliases_) *proto.add_input_output_alias() = InputOutputAliasToProto(a);
  return proto;
}

std::string HloModule::ToString() const { return HloModuleToString(*this); }

absl::StatusOr<std::unique_ptr<HloModule>> HloModule::Clone() const { return CreateFromProto(ToProto()); }

}  // namespace xla
