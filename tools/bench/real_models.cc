#include "tools/bench/real_models.h"

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/single_module.h"
#include "xla/status_macros.h"
#include "xla/transforms/call_inliner.h"
#include "xla/transforms/dead_code_elimination.h"

namespace xla {
namespace bench {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& name, const std::string& file) {
  std::ifstream in(file);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(name, ": ", file, " not found (set XLA_SHARED_DIR to the shared folder)"));
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Floats uniform in [-range, range], integers uniform in [0, index_bound),
// pred as coin flips.
absl::StatusOr<Literal> RandomArray(const Shape& shape, std::mt19937_64& rng, double range, int64_t index_bound) {
  const PrimitiveType type = shape.element_type();
  if (!shape.IsArray() ||
      !(primitive_util::IsFloatingPointType(type) || primitive_util::IsIntegralType(type) || type == PRED)) {
    return absl::UnimplementedError(absl::StrCat("no random values for ", shape.ToString()));
  }
  Literal literal(shape);
  std::uniform_real_distribution<double> real(-range, range);
  std::uniform_int_distribution<int64_t> index(0, index_bound - 1);
  primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = decltype(tag);
    for (T& v : literal.data<T>()) {
      if constexpr (std::is_same_v<T, bool>) {
        v = rng() & 1;
      } else if constexpr (std::is_integral_v<T>) {
        v = static_cast<T>(index(rng));
      } else if constexpr (primitive_util::is_float_v<T>) {
        v = static_cast<T>(static_cast<float>(real(rng)));
      }
    }
  });
  return literal;
}

bool IsAllZero(const Literal& literal) {
  for (int64_t i = 0; i < ShapeUtil::ElementsIn(literal.shape()); ++i) {
    if (literal.GetAsDouble(i) != 0) return false;
  }
  return true;
}

}  // namespace

std::string SharedDir() {
  const char* env = std::getenv("XLA_SHARED_DIR");
  return env != nullptr && env[0] != '\0' ? env : "../shared";
}

absl::StatusOr<RealModel> LoadHloModel(const std::string& name, const std::string& file, double weight_scale,
                                       int64_t index_bound, ErrorSpec tolerance) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(name, file));
  RealModel model{name, file, "", nullptr, {}, tolerance};
  ASSIGN_OR_RETURN(model.module, ParseHloModule(text));
  std::mt19937_64 rng(1);
  int replaced = 0;
  for (HloComputation* computation : model.module->computations()) {
    for (HloInstruction* i : computation->instructions()) {
      if (i->opcode() != HloOpcode::kConstant || !i->shape().IsArray() ||
          !primitive_util::IsFloatingPointType(i->shape().element_type()) || ShapeUtil::ElementsIn(i->shape()) < 2 ||
          !IsAllZero(i->literal())) {
        continue;
      }
      ASSIGN_OR_RETURN(Literal weights, RandomArray(i->shape(), rng, weight_scale, index_bound));
      i->set_literal(std::move(weights));
      ++replaced;
    }
  }
  std::mt19937_64 argument_rng(7);
  std::string float_arguments, integer_arguments;
  for (const HloInstruction* p : model.module->entry_computation()->parameter_instructions()) {
    ASSIGN_OR_RETURN(Literal argument, RandomArray(p->shape(), argument_rng, 1.0, index_bound));
    const PrimitiveType type = p->shape().element_type();
    if (primitive_util::IsFloatingPointType(type)) float_arguments = ", float arguments in [-1, 1]";
    if (primitive_util::IsIntegralType(type)) {
      integer_arguments = absl::StrCat(", integer arguments in [0, ", index_bound, ")");
    }
    model.arguments.push_back(std::move(argument));
  }
  model.preparation = absl::StrCat(replaced, " elided weight constants filled with seeded uniform values in [-",
                                   weight_scale, ", ", weight_scale, "]", float_arguments, integer_arguments);
  return model;
}

absl::StatusOr<RealModel> LoadStableHloModel(const std::string& name, const std::string& file, ErrorSpec tolerance) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(name, file));
  RealModel model{name, file, "", nullptr, {}, tolerance};
  ASSIGN_OR_RETURN(model.module, stablehlo::ImportStableHloModule(text, file));
  RETURN_IF_ERROR(CallInliner().Run(model.module.get()).status());
  RETURN_IF_ERROR(DeadCodeElimination().Run(model.module.get()).status());
  HloComputation* entry = model.module->entry_computation();
  if (entry->num_parameters() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": expected a program whose inputs are constants"));
  }
  std::vector<HloInstruction*> inputs;
  for (HloInstruction* i : entry->instructions()) {
    if (i->opcode() == HloOpcode::kConstant && i->shape().IsArray() && ShapeUtil::ElementsIn(i->shape()) >= 2) {
      inputs.push_back(i);
    }
  }
  for (HloInstruction* constant : inputs) {
    HloInstruction* parameter = entry->AddInstruction(
        HloInstruction::CreateParameter(static_cast<int64_t>(model.arguments.size()), constant->shape(),
                                        absl::StrCat("input.", model.arguments.size())));
    model.arguments.push_back(constant->literal());
    constant->ReplaceAllUsesWith(parameter);
    RETURN_IF_ERROR(entry->RemoveInstruction(constant));
  }
  entry->RestoreTopologicalOrder();
  model.module->attributes().erase("entry_computation_layout");
  model.preparation = absl::StrCat("imported (check ops dropped), its ", inputs.size(),
                                   " input constants passed as arguments so that constant folding cannot compute it "
                                   "at compile time");
  return model;
}

}  // namespace bench
}  // namespace xla
