#include "xla/transforms/transforms_test_util.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace testing {

std::unique_ptr<HloModule> ParseAndVerify(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) {
    ADD_FAILURE() << "parse error: " << module.status() << "\n" << text;
    return nullptr;
  }
  absl::Status ok = VerifyHloModule(**module);
  if (!ok.ok()) {
    ADD_FAILURE() << "input does not verify: " << ok << "\n" << text;
    return nullptr;
  }
  return std::move(*module);
}

std::string Canonical(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) {
    ADD_FAILURE() << "expected text does not parse: " << module.status() << "\n" << text;
    return "";
  }
  return (*module)->ToString();
}

PassRun RunPass(HloPass& pass, absl::string_view text) {
  PassRun run;
  std::unique_ptr<HloModule> module = ParseAndVerify(text);
  if (module == nullptr) return run;
  absl::StatusOr<std::unique_ptr<HloModule>> before = module->Clone();
  if (!before.ok()) {
    ADD_FAILURE() << "clone failed: " << before.status();
    return run;
  }
  absl::StatusOr<bool> changed = pass.Run(module.get());
  if (!changed.ok()) {
    ADD_FAILURE() << "pass " << pass.name() << " failed: " << changed.status();
    return run;
  }
  absl::Status ok = VerifyHloModule(*module);
  if (!ok.ok()) {
    ADD_FAILURE() << "pass " << pass.name() << " produced an invalid module: " << ok << "\n" << module->ToString();
    return run;
  }
  ExpectSameResults(**before, *module);
  run.changed = *changed;
  run.module = std::move(module);
  return run;
}

namespace {

Literal MakeArgument(const Shape& shape, int set, int64_t* counter) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) elements.push_back(MakeArgument(s, set, counter));
    return Literal::MakeTuple(std::move(elements));
  }
  Literal literal(shape);
  if (!shape.IsArray()) return literal;
  const PrimitiveType type = shape.element_type();
  static const double kOrdinary[] = {1.5, -2.25, 3, 0.5, -1, 2, 4.75, -0.125, 7, -3.5};
  static const double kSpecial[] = {-0.0, 0.0, std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(), std::nan(""), 1, -0.0, 2.5};
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const int64_t n = (*counter)++;
    double v;
    if (type == PRED) {
      v = (n + set) % 2;
    } else if (primitive_util::IsUnsignedIntegralType(type)) {
      v = (n * 7 + set) % 11;
    } else if (primitive_util::IsSignedIntegralType(type)) {
      v = (n * 7 + set * 3) % 11 - 5;
    } else if (set == 0) {
      v = kOrdinary[n % 10];
    } else if (set == 1) {
      v = kSpecial[n % 8];
    } else {
      v = (n % 3 == 0) ? kSpecial[(n / 3) % 8] : kOrdinary[n % 10];
    }
    literal.SetFromDouble(i, v);
  }
  return literal;
}

absl::StatusOr<Literal> Evaluate(const HloModule& module, const std::vector<Literal>& args) {
  std::vector<const Literal*> pointers;
  for (const Literal& a : args) pointers.push_back(&a);
  return HloEvaluator(/*max_loop_iterations=*/1000000).Evaluate(module, pointers);
}

}  // namespace

std::vector<Literal> MakeArguments(const HloComputation& entry, int set) {
  std::vector<Literal> args;
  int64_t counter = 0;
  for (const HloInstruction* p : entry.parameter_instructions()) args.push_back(MakeArgument(p->shape(), set, &counter));
  return args;
}

void ExpectSameResults(const HloModule& before, const HloModule& after) {
  for (int set = 0; set < kInputSets; ++set) {
    std::vector<Literal> args = MakeArguments(*before.entry_computation(), set);
    absl::StatusOr<Literal> expected = Evaluate(before, args);
    if (!expected.ok()) {
      ADD_FAILURE() << "evaluating the input module failed: " << expected.status();
      return;
    }
    absl::StatusOr<Literal> actual = Evaluate(after, args);
    if (!actual.ok()) {
      ADD_FAILURE() << "evaluating the optimized module failed: " << actual.status() << "\n" << after.ToString();
      return;
    }
    std::string why;
    EXPECT_TRUE(SameValues(*expected, *actual, &why))
        << "input set " << set << ": " << why << "\nbefore: " << expected->ToString()
        << "\nafter:  " << actual->ToString() << "\noptimized module:\n"
        << after.ToString();
  }
}

bool SameValues(const Literal& a, const Literal& b, std::string* why) {
  if (!a.shape().Compatible(b.shape())) {
    *why = absl::StrCat("shapes differ: ", a.shape().ToString(), " vs ", b.shape().ToString());
    return false;
  }
  if (a.shape().IsTuple()) {
    for (size_t i = 0; i < a.tuple_elements().size(); ++i) {
      if (!SameValues(a.tuple_elements()[i], b.tuple_elements()[i], why)) {
        *why = absl::StrCat("tuple element ", i, ": ", *why);
        return false;
      }
    }
    return true;
  }
  if (!a.shape().IsArray()) return true;
  const Literal ra = a.RelayoutTo(ShapeUtil::WithDefaultLayout(a.shape()));
  const Literal rb = b.RelayoutTo(ShapeUtil::WithDefaultLayout(b.shape()));
  const PrimitiveType type = a.element_type();
  const int width = primitive_util::ByteWidth(type);
  const bool is_float = primitive_util::IsFloatingPointType(type);
  const auto* pa = static_cast<const uint8_t*>(ra.untyped_data());
  const auto* pb = static_cast<const uint8_t*>(rb.untyped_data());
  for (int64_t i = 0; i < ra.element_count(); ++i) {
    if (std::memcmp(pa + i * width, pb + i * width, width) == 0) continue;
    if (is_float && std::isnan(ra.GetAsDouble(i)) && std::isnan(rb.GetAsDouble(i))) continue;
    *why = absl::StrCat("element ", i, " differs: ", ra.GetAsDouble(i), " vs ", rb.GetAsDouble(i),
                        std::signbit(ra.GetAsDouble(i)) != std::signbit(rb.GetAsDouble(i)) ? " (sign)" : "");
    return false;
  }
  return true;
}

std::string Expr(const HloInstruction* i, int depth) {
  if (depth < 0) return "...";
  switch (i->opcode()) {
    case HloOpcode::kParameter:
      return absl::StrCat("parameter(", i->parameter_number(), ")");
    case HloOpcode::kConstant:
      if (i->shape().IsArray() && i->literal().element_count() <= 8) {
        return absl::StrCat("constant(", i->literal().ToStringWithoutShape(), ")");
      }
      return "constant(...)";
    default:
      break;
  }
  std::string head(HloOpcodeString(i->opcode()));
  switch (i->opcode()) {
    case HloOpcode::kGetTupleElement:
      absl::StrAppend(&head, "[", i->tuple_index(), "]");
      break;
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
      absl::StrAppend(&head, "{", absl::StrJoin(i->dimensions(), ","), "}");
      break;
    case HloOpcode::kSlice: {
      std::vector<std::string> parts;
      for (const auto& d : i->attributes().slice_dimensions()) {
        parts.push_back(absl::StrCat(d.start(), ":", d.limit(), ":", d.stride()));
      }
      absl::StrAppend(&head, "[", absl::StrJoin(parts, ","), "]");
      break;
    }
    case HloOpcode::kCompare:
      absl::StrAppend(&head, "[", i->attributes().comparison_direction(), "]");
      break;
    default:
      break;
  }
  std::vector<std::string> operands;
  for (const HloInstruction* op : i->operands()) operands.push_back(Expr(op, depth - 1));
  return absl::StrCat(head, "(", absl::StrJoin(operands, ", "), ")");
}

std::string RootExpr(const HloModule& module) { return Expr(module.entry_computation()->root_instruction()); }

int CountOpcode(const HloComputation& computation, HloOpcode opcode) {
  int n = 0;
  for (const HloInstruction* i : computation.instructions()) n += i->opcode() == opcode;
  return n;
}

int CountOpcode(const HloModule& module, HloOpcode opcode) {
  int n = 0;
  for (const HloComputation* c : module.computations()) n += CountOpcode(*c, opcode);
  return n;
}

}  // namespace testing
}  // namespace xla
