#include "xla/hlo/hlo_verifier.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

Shape S(absl::string_view text) {
  absl::StatusOr<Shape> s = ShapeUtil::ParseShape(text);
  if (!s.ok()) {
    ADD_FAILURE() << "bad shape text '" << text << "': " << s.status();
    return Shape();
  }
  return *s;
}

// Builds one computation: each instruction gets the name it is given.
class Comp {
 public:
  explicit Comp(std::string name) : computation_(std::make_unique<HloComputation>(std::move(name))) {}

  HloInstruction* Param(int64_t number, absl::string_view shape, std::string name) {
    return computation_->AddInstruction(HloInstruction::CreateParameter(number, S(shape), name));
  }
  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction, std::string name) {
    instruction->set_name(std::move(name));
    return computation_->AddInstruction(std::move(instruction));
  }
  HloInstruction* Op(HloOpcode opcode, absl::string_view shape, std::vector<HloInstruction*> operands,
                     std::string name, std::vector<HloComputation*> called = {}, HloInstructionProto attrs = {}) {
    return Add(HloInstruction::Create(opcode, S(shape), operands, called, std::move(attrs)), std::move(name));
  }
  HloInstruction* Constant(Literal literal, std::string name) {
    return Add(HloInstruction::CreateConstant(std::move(literal)), std::move(name));
  }
  // Adds the computation to `module` with its last instruction as the root.
  HloComputation* Finish(HloModule* module, bool entry = false) {
    std::vector<HloInstruction*> all = computation_->instructions();
    if (computation_->root_instruction() == nullptr && !all.empty()) computation_->set_root_instruction(all.back());
    return entry ? module->AddEntryComputation(std::move(computation_))
                 : module->AddEmbeddedComputation(std::move(computation_));
  }
  HloComputation* get() { return computation_.get(); }

 private:
  std::unique_ptr<HloComputation> computation_;
};

HloInstructionProto Dims(std::vector<int64_t> dims) {
  HloInstructionProto attrs;
  for (int64_t d : dims) attrs.add_dimensions(d);
  return attrs;
}

HloInstructionProto Direction(const std::string& direction) {
  HloInstructionProto attrs;
  attrs.set_comparison_direction(direction);
  return attrs;
}

// (a: T, b: T) -> T computing a + b.
HloComputation* AddReducer(HloModule* module, const std::string& name, absl::string_view type = "f32[]") {
  Comp c(name);
  HloInstruction* a = c.Param(0, type, name + ".a");
  HloInstruction* b = c.Param(1, type, name + ".b");
  c.Op(HloOpcode::kAdd, type, {a, b}, name + ".sum");
  return c.Finish(module);
}

::testing::AssertionResult FailsWith(const absl::Status& status, std::vector<std::string> parts,
                                     absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  if (status.ok()) return ::testing::AssertionFailure() << "verification passed unexpectedly";
  if (status.code() != code) return ::testing::AssertionFailure() << "wrong code: " << status;
  for (const std::string& p : parts) {
    if (!absl::StrContains(status.message(), p)) {
      return ::testing::AssertionFailure() << "message '" << status.message() << "' lacks '" << p << "'";
    }
  }
  return ::testing::AssertionSuccess();
}

// main(x: f32[2], y: f32[2]) = x + y.
std::unique_ptr<HloModule> AddModule(absl::string_view declared = "f32[2]") {
  auto module = std::make_unique<HloModule>("add_module");
  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[2]", "x");
  HloInstruction* y = main.Param(1, "f32[2]", "y");
  main.Op(HloOpcode::kAdd, declared, {x, y}, "add.3");
  main.Finish(module.get(), /*entry=*/true);
  return module;
}

TEST(HloVerifierTest, SimpleModulePasses) {
  auto module = AddModule();
  EXPECT_TRUE(HloVerifier().Verify(*module).ok()) << HloVerifier().Verify(*module);
  EXPECT_TRUE(VerifyHloModule(*module).ok());
  absl::StatusOr<bool> changed = HloVerifier().Run(module.get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
}

TEST(HloVerifierTest, WrongDeclaredShapeNamesTheInstruction) {
  auto module = AddModule("f32[3]");
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module),
                        {"instruction 'add.3' in computation 'main'", "declared shape f32[3]", "inferred shape f32[2]"}));
  absl::StatusOr<bool> changed = HloVerifier().Run(module.get());
  EXPECT_FALSE(changed.ok());
}

TEST(HloVerifierTest, LayoutsAreNotCompared) {
  auto module = std::make_unique<HloModule>("layouts");
  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[2,3]{0,1}", "x");
  HloInstruction* neg = main.Op(HloOpcode::kNegate, "f32[2,3]{1,0}", {x}, "neg");
  (void)neg;
  main.Finish(module.get(), true);
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << VerifyHloModule(*module);
}

TEST(HloVerifierTest, ElementTypeMismatch) {
  auto module = std::make_unique<HloModule>("m");
  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[2]", "x");
  HloInstruction* y = main.Param(1, "s32[2]", "y");
  main.Op(HloOpcode::kAdd, "f32[2]", {x, y}, "sum");
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module),
                        {"instruction 'sum' in computation 'main': Add: element types differ: lhs f32[2], rhs s32[2]"}));
}

// A module using most of the slice: constant, broadcast, compare, select,
// dot, reduce, map, call, while, conditional, tuple, get-tuple-element.
std::unique_ptr<HloModule> BigModule() {
  auto module = std::make_unique<HloModule>("big");
  HloComputation* add = AddReducer(module.get(), "add");

  Comp cond("loop_cond");
  {
    HloInstruction* s = cond.Param(0, "(s32[], f32[3])", "cond.s");
    HloInstruction* i = cond.Add(HloInstruction::CreateGetTupleElement(S("s32[]"), s, 0), "cond.i");
    HloInstruction* limit = cond.Constant(Literal::CreateR0<int32_t>(10), "cond.limit");
    cond.Op(HloOpcode::kCompare, "pred[]", {i, limit}, "cond.lt", {}, Direction("LT"));
  }
  HloComputation* cond_c = cond.Finish(module.get());

  Comp body("loop_body");
  {
    HloInstruction* s = body.Param(0, "(s32[], f32[3])", "body.s");
    HloInstruction* i = body.Add(HloInstruction::CreateGetTupleElement(S("s32[]"), s, 0), "body.i");
    HloInstruction* v = body.Add(HloInstruction::CreateGetTupleElement(S("f32[3]"), s, 1), "body.v");
    HloInstruction* one = body.Constant(Literal::CreateR0<int32_t>(1), "body.one");
    HloInstruction* next = body.Op(HloOpcode::kAdd, "s32[]", {i, one}, "body.next");
    HloInstruction* doubled = body.Op(HloOpcode::kAdd, "f32[3]", {v, v}, "body.doubled");
    body.Add(HloInstruction::CreateTuple({next, doubled}), "body.tuple");
  }
  HloComputation* body_c = body.Finish(module.get());

  Comp neg("negate_branch");
  neg.Op(HloOpcode::kNegate, "f32[3]", {neg.Param(0, "f32[3]", "neg.x")}, "neg.r");
  HloComputation* neg_c = neg.Finish(module.get());
  Comp ident("identity_branch");
  ident.Op(HloOpcode::kCopy, "f32[3]", {ident.Param(0, "f32[3]", "ident.x")}, "ident.r");
  HloComputation* ident_c = ident.Finish(module.get());

  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[2,3]", "x");
  HloInstruction* m = main.Param(1, "f32[3,4]", "m");
  HloInstruction* p = main.Param(2, "pred[]", "p");
  HloInstruction* zero = main.Constant(Literal::CreateR0<float>(0), "zero");
  HloInstruction* zeros = main.Add(HloInstruction::CreateBroadcast(S("f32[2,3]"), zero, {}), "zeros");
  HloInstruction* gt = main.Op(HloOpcode::kCompare, "pred[2,3]", {x, zeros}, "gt", {}, Direction("GT"));
  HloInstruction* relu = main.Op(HloOpcode::kSelect, "f32[2,3]", {gt, x, zeros}, "relu");
  HloInstructionProto dot_attrs;
  dot_attrs.mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(1);
  dot_attrs.mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(0);
  HloInstruction* dot = main.Op(HloOpcode::kDot, "f32[2,4]", {relu, m}, "dot", {}, dot_attrs);
  (void)dot;
  HloInstruction* sum = main.Op(HloOpcode::kReduce, "f32[3]", {relu, zero}, "sum", {add}, Dims({0}));
  HloInstruction* mapped = main.Op(HloOpcode::kMap, "f32[3]", {sum, sum}, "mapped", {add}, Dims({0}));
  HloInstruction* called = main.Op(HloOpcode::kCall, "f32[3]", {mapped}, "called", {neg_c});
  HloInstruction* start = main.Constant(Literal::CreateR0<int32_t>(0), "start");
  HloInstruction* init = main.Add(HloInstruction::CreateTuple({start, called}), "init");
  HloInstruction* loop = main.Op(HloOpcode::kWhile, "(s32[], f32[3])", {init}, "loop", {cond_c, body_c});
  HloInstruction* v = main.Add(HloInstruction::CreateGetTupleElement(S("f32[3]"), loop, 1), "v");
  main.Op(HloOpcode::kConditional, "f32[3]", {p, v, v}, "branch", {neg_c, ident_c});
  main.Finish(module.get(), true);
  return module;
}

TEST(HloVerifierTest, BigModulePasses) {
  auto module = BigModule();
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << VerifyHloModule(*module);
}

TEST(HloVerifierTest, ProtoRoundTripStillVerifies) {
  auto module = BigModule();
  absl::StatusOr<std::unique_ptr<HloModule>> clone = module->Clone();
  ASSERT_TRUE(clone.ok()) << clone.status();
  EXPECT_TRUE(VerifyHloModule(**clone).ok()) << VerifyHloModule(**clone);
}

TEST(HloVerifierTest, ReduceWithWrongReducer) {
  auto module = std::make_unique<HloModule>("m");
  HloComputation* add = AddReducer(module.get(), "add_s32", "s32[]");
  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[4]", "x");
  HloInstruction* zero = main.Constant(Literal::CreateR0<float>(0), "zero");
  main.Op(HloOpcode::kReduce, "f32[]", {x, zero}, "reduce.7", {add}, Dims({0}));
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 'reduce.7' in computation 'main'", "Reduce",
                                                   "reducer parameter 0 has shape s32[] but must be f32[]"}));
}

TEST(HloVerifierTest, WhileWithNonPredCondition) {
  auto module = std::make_unique<HloModule>("m");
  Comp cond("cond");
  cond.Op(HloOpcode::kNegate, "s32[]", {cond.Param(0, "s32[]", "cond.i")}, "cond.r");
  HloComputation* cond_c = cond.Finish(module.get());
  Comp body("body");
  body.Op(HloOpcode::kNegate, "s32[]", {body.Param(0, "s32[]", "body.i")}, "body.r");
  HloComputation* body_c = body.Finish(module.get());
  Comp main("main");
  HloInstruction* i = main.Param(0, "s32[]", "i");
  main.Op(HloOpcode::kWhile, "s32[]", {i}, "loop", {cond_c, body_c});
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 'loop' in computation 'main'",
                                                   "While: condition must return pred[], returns s32[]"}));
}

TEST(HloVerifierTest, WhileNeedsTwoComputations) {
  auto module = std::make_unique<HloModule>("m");
  Comp body("body");
  body.Op(HloOpcode::kNegate, "s32[]", {body.Param(0, "s32[]", "body.i")}, "body.r");
  HloComputation* body_c = body.Finish(module.get());
  Comp main("main");
  main.Op(HloOpcode::kWhile, "s32[]", {main.Param(0, "s32[]", "i")}, "loop", {body_c});
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 'loop'", "calls 1 computations but must call 2"}));
}

TEST(HloVerifierTest, ErrorsInCalledComputationsNameThem) {
  auto module = std::make_unique<HloModule>("m");
  Comp bad("bad_reducer");
  HloInstruction* a = bad.Param(0, "f32[]", "a");
  HloInstruction* b = bad.Param(1, "f32[]", "b");
  bad.Op(HloOpcode::kAdd, "f32[1]", {a, b}, "bad_sum");
  bad.Finish(module.get());
  Comp main("main");
  main.Param(0, "f32[]", "x");
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 'bad_sum' in computation 'bad_reducer'"}));
}

TEST(HloVerifierTest, CompareNeedsDirection) {
  auto module = std::make_unique<HloModule>("m");
  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[2]", "x");
  main.Op(HloOpcode::kCompare, "pred[2]", {x, x}, "cmp");
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 'cmp'", "Compare: comparison_direction is required"}));
}

TEST(HloVerifierTest, ConstantLiteralMustMatchShape) {
  auto module = std::make_unique<HloModule>("m");
  Comp main("main");
  HloInstruction* c = main.Constant(Literal::CreateR1<float>({1, 2}), "c");
  c->set_literal(Literal::CreateR1<float>({1, 2, 3}));
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module),
                        {"instruction 'c' in computation 'main'", "literal has shape f32[3]", "shape f32[2]"}));
}

TEST(HloVerifierTest, TupleShapeMustMatch) {
  auto module = std::make_unique<HloModule>("m");
  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[2]", "x");
  HloInstruction* t = main.Add(HloInstruction::CreateTuple({x, x}), "t");
  *t->mutable_shape() = S("(f32[2], f32[3])");
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 't'", "(f32[2], f32[3])", "(f32[2], f32[2])"}));
}

TEST(HloVerifierTest, InvalidDeclaredShape) {
  auto module = std::make_unique<HloModule>("m");
  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[2]", "x");
  *x->mutable_shape() = Shape(F32, {-2});
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 'x'", "negative"}));
}

TEST(HloVerifierTest, DuplicateAndEmptyNames) {
  {
    auto module = std::make_unique<HloModule>("m");
    Comp main("main");
    HloInstruction* x = main.Param(0, "f32[2]", "x");
    main.Op(HloOpcode::kNegate, "f32[2]", {x}, "x");
    main.Finish(module.get(), true);
    EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"another instruction of the computation", "'x'"}));
  }
  {
    auto module = std::make_unique<HloModule>("m");
    Comp main("main");
    HloInstruction* x = main.Param(0, "f32[2]", "x");
    // AddInstruction names unnamed instructions; a pass could still clear one.
    main.Op(HloOpcode::kNegate, "f32[2]", {x}, "neg")->set_name("");
    main.Finish(module.get(), true);
    EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"computation 'main'", "instruction 1 (negate) has no name"}));
  }
  {
    auto module = std::make_unique<HloModule>("m");
    AddReducer(module.get(), "main");
    Comp main("main");
    main.Param(0, "f32[2]", "x");
    main.Finish(module.get(), true);
    EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"more than one computation named 'main'"}));
  }
}

TEST(HloVerifierTest, CalleesMustComeBeforeCallers) {
  auto module = std::make_unique<HloModule>("m");
  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[]", "x");
  Comp late("late");
  late.Op(HloOpcode::kNegate, "f32[]", {late.Param(0, "f32[]", "late.x")}, "late.r");
  main.Op(HloOpcode::kCall, "f32[]", {x}, "call", {late.get()});
  main.Finish(module.get(), true);
  late.Finish(module.get());
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 'call'", "'late' must be defined before its caller"}));
}

TEST(HloVerifierTest, CalledComputationOutsideModule) {
  auto module = std::make_unique<HloModule>("m");
  HloModule other("other");
  HloComputation* foreign = AddReducer(&other, "foreign");
  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[]", "x");
  main.Op(HloOpcode::kCall, "f32[]", {x, x}, "call", {foreign});
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 'call'", "'foreign' is not part of the module"}));
}

TEST(HloVerifierTest, OperandFromAnotherComputation) {
  auto module = std::make_unique<HloModule>("m");
  Comp helper("helper");
  HloInstruction* hx = helper.Param(0, "f32[]", "hx");
  helper.Finish(module.get());
  Comp main("main");
  main.Param(0, "f32[]", "x");
  main.Op(HloOpcode::kNegate, "f32[]", {hx}, "neg");
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 'neg' in computation 'main'",
                                                   "operand 0 ('hx') is not an instruction of this computation"}));
}

TEST(HloVerifierTest, MissingParameter) {
  auto module = std::make_unique<HloModule>("m");
  Comp main("main");
  main.Param(1, "f32[]", "x");
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"computation 'main'", "parameter 0 is missing"}));
}

TEST(HloVerifierTest, NoEntry) {
  HloModule module("m");
  AddReducer(&module, "add");
  EXPECT_TRUE(FailsWith(VerifyHloModule(module), {"module 'm' has no entry computation"}));
}

TEST(HloVerifierTest, UnimplementedOpsAreRejected) {
  auto module = std::make_unique<HloModule>("m");
  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[4]", "x");
  main.Op(HloOpcode::kAddDependency, "f32[4]", {x, x}, "ad");
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module),
                        {"instruction 'ad' in computation 'main': add-dependency: shape inference is not implemented yet"},
                        absl::StatusCode::kUnimplemented));
}

TEST(HloVerifierTest, ArityIsChecked) {
  auto module = std::make_unique<HloModule>("m");
  Comp main("main");
  HloInstruction* x = main.Param(0, "f32[4]", "x");
  main.Op(HloOpcode::kNegate, "f32[4]", {x, x}, "neg");
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 'neg'", "negate takes 1 operands but has 2"}));
}

TEST(HloVerifierTest, ConditionalBranchMismatch) {
  auto module = std::make_unique<HloModule>("m");
  Comp a("branch_a");
  a.Op(HloOpcode::kNegate, "f32[]", {a.Param(0, "f32[]", "a.x")}, "a.r");
  HloComputation* a_c = a.Finish(module.get());
  Comp b("branch_b");
  b.Op(HloOpcode::kConvert, "s32[]", {b.Param(0, "f32[]", "b.x")}, "b.r");
  HloComputation* b_c = b.Finish(module.get());
  Comp main("main");
  HloInstruction* i = main.Param(0, "s32[]", "i");
  HloInstruction* x = main.Param(1, "f32[]", "x");
  main.Op(HloOpcode::kConditional, "f32[]", {i, x, x}, "cond", {a_c, b_c});
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module),
                        {"instruction 'cond'", "Conditional: branch 1 returns s32[] but branch 0 returns f32[]"}));
}

TEST(HloVerifierTest, DotWithoutDimensionNumbersIsAnOuterProduct) {
  auto module = std::make_unique<HloModule>("m");
  Comp main("main");
  HloInstruction* a = main.Param(0, "f32[2,3]", "a");
  HloInstruction* b = main.Param(1, "f32[3,4]", "b");
  main.Op(HloOpcode::kDot, "f32[2,4]", {a, b}, "dot");
  main.Finish(module.get(), true);
  EXPECT_TRUE(FailsWith(VerifyHloModule(*module), {"instruction 'dot'", "inferred shape f32[2,3,3,4]",
                                                   "no contracting dimensions"}));
}

// --- Through the text parser ------------------------------------------------------

constexpr char kTextModule[] = R"(
HloModule text_module

%add (add.x: f32[], add.y: f32[]) -> f32[] {
  %add.x = f32[] parameter(0)
  %add.y = f32[] parameter(1)
  ROOT %add.sum = f32[] add(%add.x, %add.y)
}

%cond (cond.s: (s32[], f32[4])) -> pred[] {
  %cond.s = (s32[], f32[4]{0}) parameter(0)
  %cond.i = s32[] get-tuple-element(%cond.s), index=0
  %cond.n = s32[] constant(10)
  ROOT %cond.lt = pred[] compare(%cond.i, %cond.n), direction=LT
}

%body (body.s: (s32[], f32[4])) -> (s32[], f32[4]) {
  %body.s = (s32[], f32[4]{0}) parameter(0)
  %body.i = s32[] get-tuple-element(%body.s), index=0
  %body.v = f32[4]{0} get-tuple-element(%body.s), index=1
  %body.one = s32[] constant(1)
  %body.next = s32[] add(%body.i, %body.one)
  %body.v2 = f32[4]{0} add(%body.v, %body.v)
  ROOT %body.t = (s32[], f32[4]{0}) tuple(%body.next, %body.v2)
}

%on_true (t.x: f32[4]) -> f32[4] {
  %t.x = f32[4]{0} parameter(0)
  ROOT %t.n = f32[4]{0} negate(%t.x)
}

%on_false (f.x: f32[4]) -> f32[4] {
  %f.x = f32[4]{0} parameter(0)
  ROOT %f.a = f32[4]{0} abs(%f.x)
}

ENTRY %main (v: f32[4], m: f32[4,6], k: s32[]) -> (f32[4], f32[4], f32[6,4]) {
  %v = f32[4]{0} parameter(0)
  %m = f32[4,6]{1,0} parameter(1)
  %k = s32[] parameter(2)
  %zero = f32[] constant(0)
  %reduce = f32[4]{0} reduce(%m, %zero), dimensions={1}, to_apply=%add
  %i0 = s32[] constant(0)
  %init = (s32[], f32[4]{0}) tuple(%i0, %v)
  %loop = (s32[], f32[4]{0}) while(%init), condition=%cond, body=%body
  %lv = f32[4]{0} get-tuple-element(%loop), index=1
  %p = pred[] constant(true)
  %cond1 = f32[4]{0} conditional(%p, %lv, %v), true_computation=%on_true, false_computation=%on_false
  %cond2 = f32[4]{0} conditional(%k, %lv, %v), branch_computations={%on_true, %on_false}
  %map = f32[4]{0} map(%cond1, %cond2), dimensions={0}, to_apply=%add
  %t = f32[6,4]{1,0} transpose(%m), dimensions={1,0}
  %b = f32[6,4]{1,0} broadcast(%map), dimensions={1}
  %sum = f32[6,4]{1,0} add(%t, %b)
  %s = f32[3,4]{1,0} slice(%sum), slice={[0:6:2], [0:4]}
  %pad = f32[6,4]{1,0} pad(%s, %zero), padding=1_2x0_0
  %iota = s32[6,4]{1,0} iota(), iota_dimension=0
  %fi = f32[6,4]{1,0} convert(%iota)
  %mx = f32[6,4]{1,0} maximum(%pad, %fi)
  %ds = f32[2,4]{1,0} dynamic-slice(%mx, %k, %k), dynamic_slice_sizes={2,4}
  %dus = f32[6,4]{1,0} dynamic-update-slice(%mx, %ds, %k, %k)
  %dot = f32[6,6]{1,0} dot(%dus, %m), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %cat = f32[6,10]{1,0} concatenate(%dot, %dus), dimensions={1}
  %r = f32[60]{0} reshape(%cat)
  %bits = s32[60]{0} bitcast-convert(%r)
  %out4 = f32[6,4]{1,0} clamp(%zero, %dus, %fi)
  ROOT %out = (f32[4]{0}, f32[4]{0}, f32[6,4]{1,0}) tuple(%reduce, %map, %out4)
}
)";

TEST(HloVerifierTest, ParsedModulePasses) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kTextModule);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE(VerifyHloModule(**module).ok()) << VerifyHloModule(**module);
}

TEST(HloVerifierTest, ParsedModuleWithBadShapeFails) {
  std::string text = kTextModule;
  const std::string from = "%dot = f32[6,6]{1,0} dot(";
  text.replace(text.find(from), from.size(), "%dot = f32[6,5]{1,0} dot(");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE(FailsWith(VerifyHloModule(**module), {"instruction 'dot' in computation 'main'", "declared shape f32[6,5]",
                                                    "inferred shape f32[6,6]"}));
}

// Fft, triangular-solve and cholesky in XLA's HLO text spellings.
constexpr char kLinalgModule[] = R"(
HloModule linalg

ENTRY %main (x: f32[3,16,17], a: c64[2,4,4], b: c64[2,4,3]) -> (c64[3,16,9], f32[3,16,17], c64[2,4,3], c64[2,4,4]) {
  %x = f32[3,16,17]{2,1,0} parameter(0)
  %a = c64[2,4,4]{2,1,0} parameter(1)
  %b = c64[2,4,3]{2,1,0} parameter(2)
  %rfft = c64[3,16,9]{2,1,0} fft(%x), fft_type=RFFT, fft_length={16,17}
  %irfft = f32[3,16,17]{2,1,0} fft(%rfft), fft_type=IRFFT, fft_length={16,17}
  %solve = c64[2,4,3]{2,1,0} triangular-solve(%a, %b), left_side=true, lower=true, unit_diagonal=false, transpose_a=ADJOINT
  %chol = c64[2,4,4]{2,1,0} cholesky(%a), lower=true
  ROOT %t = (c64[3,16,9]{2,1,0}, f32[3,16,17]{2,1,0}, c64[2,4,3]{2,1,0}, c64[2,4,4]{2,1,0}) tuple(%rfft, %irfft, %solve, %chol)
}
)";

TEST(HloVerifierTest, LinalgModuleVerifiesAndRoundTrips) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kLinalgModule);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE(VerifyHloModule(**module).ok()) << VerifyHloModule(**module);
  const std::string printed = (*module)->ToString();
  EXPECT_TRUE(absl::StrContains(printed, "fft_type=RFFT, fft_length={16,17}")) << printed;
  EXPECT_TRUE(absl::StrContains(printed, "fft_type=IRFFT, fft_length={16,17}")) << printed;
  EXPECT_TRUE(absl::StrContains(printed, "left_side=true, lower=true, transpose_a=ADJOINT")) << printed;
  EXPECT_TRUE(absl::StrContains(printed, "cholesky(%a), lower=true")) << printed;
  absl::StatusOr<std::unique_ptr<HloModule>> reparsed = ParseHloModule(printed);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_EQ((*reparsed)->ToString(), printed);
  EXPECT_TRUE(VerifyHloModule(**reparsed).ok());
}

TEST(HloVerifierTest, LinalgShapeErrorsNameTheInstruction) {
  std::string text = kLinalgModule;
  const std::string from = "%rfft = c64[3,16,9]{2,1,0} fft(%x), fft_type=RFFT, fft_length={16,17}";
  text.replace(text.find(from), from.size(), "%rfft = c64[3,16,9]{2,1,0} fft(%x), fft_type=RFFT, fft_length={15,17}");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE(FailsWith(VerifyHloModule(**module), {"instruction 'rfft' in computation 'main'", "RFFT",
                                                    "dimension 1 of f32[3,16,17] is 16"}));
  text = kLinalgModule;
  const std::string solve = "%solve = c64[2,4,3]{2,1,0} triangular-solve(%a, %b), left_side=true";
  text.replace(text.find(solve), solve.size(), "%solve = c64[2,4,3]{2,1,0} triangular-solve(%a, %b), left_side=false");
  module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE(FailsWith(VerifyHloModule(**module), {"instruction 'solve'", "left_side=false", "[..., K, M]"}));
}

// A fusion (its fused computation called through calls=), a bitcast and an
// opt-barrier over a tuple; written without the HloModule header.
constexpr char kFusionModule[] = R"(
%fused_computation (p0: f32[2,3], p1: f32[2,3]) -> f32[2,3] {
  %p0 = f32[2,3]{1,0} parameter(0)
  %p1 = f32[2,3]{1,0} parameter(1)
  %sum = f32[2,3]{1,0} add(%p0, %p1)
  ROOT %prod = f32[2,3]{1,0} multiply(%sum, %p0)
}

ENTRY %main (x: f32[2,3], y: f32[2,3]) -> (s32[6], f32[2,3]) {
  %x = f32[2,3]{1,0} parameter(0)
  %y = f32[2,3]{1,0} parameter(1)
  %fusion = f32[2,3]{1,0} fusion(%x, %y), kind=kLoop, calls=%fused_computation
  %bc = s32[6]{0} bitcast(%fusion)
  %t = (s32[6]{0}, f32[2,3]{1,0}) tuple(%bc, %y)
  ROOT %barrier = (s32[6]{0}, f32[2,3]{1,0}) opt-barrier(%t)
}
)";

TEST(HloVerifierTest, FusionBitcastAndOptBarrierPass) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kFusionModule);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE(VerifyHloModule(**module).ok()) << VerifyHloModule(**module);
  EXPECT_EQ((*module)->name(), "main");
}

// The module text with `from` replaced by `to`, parsed and verified.
absl::Status VerifyEdited(const std::string& from, const std::string& to) {
  std::string text = kFusionModule;
  size_t at = text.find(from);
  if (at == std::string::npos) return absl::InternalError("edit target not found: " + from);
  text.replace(at, from.size(), to);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return VerifyHloModule(**module);
}

TEST(HloVerifierTest, FusionErrors) {
  EXPECT_TRUE(FailsWith(VerifyEdited("fusion(%x, %y)", "fusion(%x)"),
                        {"instruction 'fusion' in computation 'main'",
                         "Fusion: the fused computation takes 2 parameters but the fusion has 1 operands"}));
  EXPECT_TRUE(FailsWith(VerifyEdited("%y = f32[2,3]{1,0} parameter(1)\n  %fusion",
                                     "%y = f32[3,2]{1,0} parameter(1)\n  %fusion"),
                        {"instruction 'fusion'", "operand 1 has shape f32[3,2]",
                         "fused computation's parameter 1 is f32[2,3]"}));
  EXPECT_TRUE(FailsWith(VerifyEdited("%fusion = f32[2,3]{1,0} fusion", "%fusion = f32[3,2]{1,0} fusion"),
                        {"instruction 'fusion'", "declared shape f32[3,2]", "inferred shape f32[2,3]"}));
}

TEST(HloVerifierTest, BitcastMustKeepTheByteSize) {
  EXPECT_TRUE(FailsWith(VerifyEdited("%bc = s32[6]{0} bitcast(%fusion)", "%bc = s32[5]{0} bitcast(%fusion)"),
                        {"instruction 'bc' in computation 'main'",
                         "Bitcast: operand f32[2,3] has 24 bytes but the result s32[5] has 20"}));
  EXPECT_TRUE(FailsWith(VerifyEdited("%bc = s32[6]{0} bitcast(%fusion)", "%bc = f64[6]{0} bitcast(%fusion)"),
                        {"instruction 'bc'", "24 bytes", "f64[6] has 48"}));
}

TEST(HloVerifierTest, OptBarrierMustKeepTheShape) {
  EXPECT_TRUE(FailsWith(VerifyEdited("ROOT %barrier = (s32[6]{0}, f32[2,3]{1,0})", "ROOT %barrier = (s32[6]{0})"),
                        {"instruction 'barrier'", "declared shape (s32[6])",
                         "inferred shape (s32[6], f32[2,3])"}));
}

}  // namespace
}  // namespace xla
