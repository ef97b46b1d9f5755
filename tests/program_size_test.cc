// Programs whose size or depth a hostile or generated client can make large:
// long dependency chains, deeply nested tuples and computations, and wide
// ops. Each either compiles and runs correctly on every backend or gets a
// clear error; none may overflow a stack (no recursion whose depth grows with
// the program) or take quadratic time.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/client_test_base.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace {

using test::AddParam;
using test::ClientTest;

class ProgramSizeTest : public ClientTest {
 protected:
  // negate, abs, negate, abs, ... `length` instructions after the parameter.
  void RunChain(int64_t length) {
    XlaBuilder b(TestName());
    std::vector<Literal> args;
    XlaOp x = AddParam(&b, Literal::CreateR1<float>({1.5f, -2, 0, -7}), &args);
    for (int64_t i = 0; i < length; ++i) x = (i % 2 == 0) ? Neg(x) : Abs(x);
    // An even length ends with abs: |x|.
    ComputeAndCompareR1<float>(&b, {1.5f, 2, 0, 7}, args);
  }
};

TEST_P(ProgramSizeTest, ChainOf10000ElementwiseOps) { RunChain(10000); }

// A chain through HLO text: the parser, the printer and the service's text
// path see 100,000 lines.
TEST_P(ProgramSizeTest, HloTextChainOf100000Instructions) {
  constexpr int kLength = 100000;
  std::string text = "HloModule chain\nENTRY main {\n  v0 = f32[4] parameter(0)\n";
  for (int i = 1; i <= kLength; ++i) {
    absl::StrAppend(&text, "  v", i, " = f32[4] ", i % 2 == 1 ? "negate" : "abs", "(v", i - 1, ")\n");
  }
  absl::StrAppend(&text, "  ROOT r = f32[4] add(v", kLength, ", v0)\n}\n");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  const std::string printed = module->ToString();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<HloModule> reparsed, ParseHloModule(printed));
  EXPECT_EQ(reparsed->ToString(), printed);

  ASSERT_OK_AND_ASSIGN(ExecutionHandle handle, client()->CompileHloText(text));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> arg,
                       client()->TransferToServer(Literal::CreateR1<float>({1.5f, -2, 0, -7})));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> out, client()->Execute(handle, {arg.get()}));
  ASSERT_OK_AND_ASSIGN(Literal result, client()->TransferToClient(*out));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({3, 0, 0, 0}), result));
  EXPECT_OK(client()->UnregisterExecutable(handle));
}

// A tuple nested as deep as shapes may (ShapeUtil::kMaxTupleNesting
// levels) and taken apart again.
TEST_P(ProgramSizeTest, TupleNestedToTheLimit) {
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<float>({1, 2}), &args);
  XlaOp t = Tuple(&b, {x});
  for (int i = 1; i < ShapeUtil::kMaxTupleNesting; ++i) t = Tuple(&b, {t});
  for (int i = 1; i < ShapeUtil::kMaxTupleNesting; ++i) t = GetTupleElement(t, 0);
  Add(GetTupleElement(t, 0), x);
  ComputeAndCompareR1<float>(&b, {2, 4}, args);
}

// One level more is refused with the limit in the message: by the builder,
// and by the verifier and the text parser for a module that did not come
// from the builder.
TEST_P(ProgramSizeTest, TupleNestedBeyondTheLimitIsRefused) {
  XlaBuilder b(TestName());
  XlaOp t = Tuple(&b, {ConstantR0<float>(&b, 1)});
  for (int i = 1; i < ShapeUtil::kMaxTupleNesting; ++i) t = Tuple(&b, {t});
  ASSERT_OK(b.first_error());
  Tuple(&b, {t});
  const absl::Status refused = b.Build().status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << refused;
  EXPECT_NE(refused.message().find(absl::StrCat("the limit is ", ShapeUtil::kMaxTupleNesting)), std::string::npos)
      << refused;

  Shape deep = ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(F32, {})});
  for (int i = 0; i < ShapeUtil::kMaxTupleNesting; ++i) deep = ShapeUtil::MakeTupleShape({deep});
  EXPECT_EQ(ShapeUtil::ValidateShape(deep).code(), absl::StatusCode::kInvalidArgument);
  const std::string text =
      absl::StrCat("HloModule deep\nENTRY main {\n  ROOT p = ", deep.ToString(), " parameter(0)\n}\n");
  EXPECT_FALSE(ParseHloModule(text).ok());
}

TEST_P(ProgramSizeTest, ConcatenateOf50000Operands) {
  constexpr int kOperands = 50000;
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<float>({1, 2}), &args);
  std::vector<XlaOp> parts;
  parts.reserve(kOperands);
  for (int i = 0; i < kOperands; ++i) parts.push_back(i % 2 == 0 ? x : Neg(x));
  ConcatInDim(&b, parts, 0);
  std::vector<float> expected;
  for (int i = 0; i < kOperands; ++i) {
    const float sign = i % 2 == 0 ? 1 : -1;
    expected.push_back(sign * 1);
    expected.push_back(sign * 2);
  }
  ComputeAndCompareR1<float>(&b, absl::Span<const float>(expected), args);
}

TEST_P(ProgramSizeTest, TupleOf100000Elements) {
  constexpr int kElements = 100000;
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR0<float>(3), &args);
  std::vector<XlaOp> elements(kElements, x);
  XlaOp t = Tuple(&b, elements);
  Add(GetTupleElement(t, 0), GetTupleElement(t, kElements - 1));
  ComputeAndCompareR0<float>(&b, 6, args);
}

XLA_CLIENT_TEST_P(ProgramSizeTest);

}  // namespace
}  // namespace xla
