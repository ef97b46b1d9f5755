// Tests of the reference evaluator: every op of the slice on real values,
// including the operation-semantics document's examples and corner cases.
#include "xla/evaluator/hlo_evaluator.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_module.h"
#include "xla/literal.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

Shape S(const std::string& text) {
  auto s = ShapeUtil::ParseShape(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  return s.ok() ? *s : Shape();
}

// Builds one computation instruction by instruction.
class Builder {
 public:
  explicit Builder(std::string name) : comp_(std::make_unique<HloComputation>(std::move(name))) {}

  HloInstruction* Param(int64_t n, const std::string& shape) {
    return comp_->AddInstruction(HloInstruction::CreateParameter(n, S(shape), absl::StrCat("p", n)));
  }
  HloInstruction* Const(Literal literal) {
    return Named(comp_->AddInstruction(HloInstruction::CreateConstant(std::move(literal))));
  }
  HloInstruction* Op(HloOpcode opcode, const std::string& shape, std::vector<HloInstruction*> operands,
                     HloInstructionProto attrs = {}, std::vector<HloComputation*> called = {}) {
    return Named(comp_->AddInstruction(HloInstruction::Create(opcode, S(shape), operands, called, attrs)));
  }
  std::unique_ptr<HloComputation> Build(HloInstruction* root) {
    comp_->set_root_instruction(root);
    return std::move(comp_);
  }

 private:
  HloInstruction* Named(HloInstruction* i) {
    i->set_name(absl::StrCat(HloOpcodeString(i->opcode()), ".", next_++));
    return i;
  }
  std::unique_ptr<HloComputation> comp_;
  int next_ = 0;
};

absl::StatusOr<Literal> Eval(HloModule& module, std::vector<const Literal*> args) {
  return HloEvaluator().Evaluate(module, args);
}

// A module whose entry is `op(p0, p1, ...)` with parameters of the given shapes.
std::unique_ptr<HloModule> OneOp(HloOpcode opcode, const std::string& result,
                                 const std::vector<std::string>& params, HloInstructionProto attrs = {}) {
  auto module = std::make_unique<HloModule>("m");
  Builder b("entry");
  std::vector<HloInstruction*> ops;
  for (size_t i = 0; i < params.size(); ++i) ops.push_back(b.Param(i, params[i]));
  module->AddEntryComputation(b.Build(b.Op(opcode, result, ops, attrs)));
  return module;
}

TEST(HloEvaluatorTest, Add) {
  auto m = OneOp(HloOpcode::kAdd, "f32[2]", {"f32[2]", "f32[2]"});
  Literal a = Literal::CreateR1<float>({1, 2});
  Literal b = Literal::CreateR1<float>({10, 20});
  auto r = Eval(*m, {&a, &b});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Literal::CreateR1<float>({11, 22}));
}

}  // namespace
}  // namespace xla
