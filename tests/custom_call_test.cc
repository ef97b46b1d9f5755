// CustomCall through the client API on every backend: handlers this binary
// registers (XLA_REGISTER_CUSTOM_CALL) with hand-worked values, typed and
// opaque attributes, tuple results, handler errors, unknown targets at
// compile time, and names of libc functions that must never be reachable.
// The remote daemon (grpc:*) has none of this binary's handlers, so there
// only the error cases run; tests/daemon/custom_call_daemon_test.cc runs a
// plugin's target there.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/client_test_base.h"
#include "xla/custom_call/custom_call_registry.h"

namespace xla {
namespace {

using test::AddParam;
using test::ClientTest;

// out = (x + 1) * scale over f32, scale a typed attribute.
absl::Status AddOneAndScale(absl::Span<const CustomCallOperand> operands, absl::Span<const CustomCallResult> results,
                            const CustomCallAttributes& attrs) {
  if (operands.size() != 1 || results.size() != 1) return InvalidArgument("takes one operand and one result");
  ASSIGN_OR_RETURN(auto x, operands[0].typed<float>());
  ASSIGN_OR_RETURN(auto out, results[0].typed<float>());
  ASSIGN_OR_RETURN(double scale, attrs.GetFloat("scale"));
  if (x.size() != out.size()) return InvalidArgument("operand and result sizes differ");
  for (size_t i = 0; i < x.size(); ++i) out[i] = (x[i] + 1.0f) * static_cast<float>(scale);
  return absl::OkStatus();
}
XLA_REGISTER_CUSTOM_CALL("test.add_one_and_scale", AddOneAndScale);

// (min(a, b), max(a, b)) elementwise: two results.
absl::Status MinMax(absl::Span<const CustomCallOperand> operands, absl::Span<const CustomCallResult> results,
                    const CustomCallAttributes&) {
  if (operands.size() != 2 || results.size() != 2) return InvalidArgument("takes two operands and two results");
  ASSIGN_OR_RETURN(auto a, operands[0].typed<float>());
  ASSIGN_OR_RETURN(auto b, operands[1].typed<float>());
  ASSIGN_OR_RETURN(auto lo, results[0].typed<float>());
  ASSIGN_OR_RETURN(auto hi, results[1].typed<float>());
  for (size_t i = 0; i < a.size(); ++i) {
    lo[i] = std::min(a[i], b[i]);
    hi[i] = std::max(a[i], b[i]);
  }
  return absl::OkStatus();
}
XLA_REGISTER_CUSTOM_CALL("test.min_max", MinMax);

// The operation-semantics document's example: x f32[2], y f32[2x3] ->
// f32[3x3] with z[0][0] = x[1] + y[1][0] (the rest zero here).
absl::Status MyFunc(absl::Span<const CustomCallOperand> operands, absl::Span<const CustomCallResult> results,
                    const CustomCallAttributes&) {
  ASSIGN_OR_RETURN(auto x, operands[0].typed<float>());
  ASSIGN_OR_RETURN(auto y, operands[1].typed<float>());
  ASSIGN_OR_RETURN(auto z, results[0].typed<float>());
  if (x.size() != 2 || y.size() != 6 || z.size() != 9) return InvalidArgument("myfunc: unexpected sizes");
  std::fill(z.begin(), z.end(), 0.0f);
  z[0] = x[1] + y[1 * 3 + 0];
  return absl::OkStatus();
}
XLA_REGISTER_CUSTOM_CALL("myfunc", MyFunc);

// The opaque backend_config's length as an s32 scalar.
absl::Status OpaqueLength(absl::Span<const CustomCallOperand>, absl::Span<const CustomCallResult> results,
                          const CustomCallAttributes& attrs) {
  ASSIGN_OR_RETURN(auto out, results[0].typed<int32_t>());
  out[0] = static_cast<int32_t>(attrs.opaque().size());
  return absl::OkStatus();
}
XLA_REGISTER_CUSTOM_CALL("test.opaque_length", OpaqueLength);

absl::Status Fail(absl::Span<const CustomCallOperand>, absl::Span<const CustomCallResult>,
                  const CustomCallAttributes& attrs) {
  return absl::FailedPreconditionError(absl::StrCat("the widget is jammed (", attrs.opaque(), ")"));
}
XLA_REGISTER_CUSTOM_CALL("test.fail", Fail);

class CustomCallTest : public ClientTest {
 protected:
  // This binary's handlers are not in the remote daemon.
  bool Remote() const { return absl::StartsWith(backend(), "grpc:"); }
};

#define SKIP_IF_REMOTE() \
  if (Remote()) GTEST_SKIP() << "the daemon runs only its own and its plugins' targets"

TEST_P(CustomCallTest, AddOneAndScaleWithATypedAttribute) {
  SKIP_IF_REMOTE();
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR2<float>({{0, 1, 2}, {-1, 0.5f, 10}}), &args);
  CustomCall(&b, "test.add_one_and_scale", {x}, ShapeUtil::MakeShape(F32, {2, 3}), "{scale = 2.5 : f32}",
             /*has_side_effect=*/false, API_VERSION_TYPED_FFI);
  ComputeAndCompare(&b, args, Literal::CreateR2<float>({{2.5f, 5, 7.5f}, {0, 3.75f, 27.5f}}));
}

TEST_P(CustomCallTest, TheDocumentsExample) {
  SKIP_IF_REMOTE();
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<float>({1, 2}), &args);
  XlaOp y = AddParam(&b, Literal::CreateR2<float>({{10, 20, 30}, {40, 50, 60}}), &args);
  CustomCall(&b, "myfunc", {x, y}, ShapeUtil::MakeShape(F32, {3, 3}));
  ComputeAndCompare(&b, args, Literal::CreateR2<float>({{42, 0, 0}, {0, 0, 0}, {0, 0, 0}}));
}

TEST_P(CustomCallTest, TwoResultsAsATupleFeedingOtherOps) {
  SKIP_IF_REMOTE();
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp a = AddParam(&b, Literal::CreateR1<float>({1, 5, -3, 0}), &args);
  XlaOp c = AddParam(&b, Literal::CreateR1<float>({2, 4, -7, 0}), &args);
  const Shape f4 = ShapeUtil::MakeShape(F32, {4});
  XlaOp mm = CustomCall(&b, "test.min_max", {Add(a, a), c}, ShapeUtil::MakeTupleShape({f4, f4}));
  // Used by ordinary ops afterwards: hi - lo.
  Tuple(&b, {GetTupleElement(mm, 0), Sub(GetTupleElement(mm, 1), GetTupleElement(mm, 0))});
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateR1<float>({2, 4, -7, 0}));
  expected.push_back(Literal::CreateR1<float>({0, 6, 1, 0}));
  ComputeAndCompare(&b, args, Literal::MakeTuple(std::move(expected)));
}

TEST_P(CustomCallTest, ChainedCallsOnRandomInputsMatchTheEvaluator) {
  SKIP_IF_REMOTE();
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {17, 33}), "x");
  XlaOp y = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {17, 33}), "y");
  const Shape s = ShapeUtil::MakeShape(F32, {17, 33});
  XlaOp first = CustomCall(&b, "test.add_one_and_scale", {Mul(x, y)}, s, "{scale = -0.5}", false,
                           API_VERSION_TYPED_FFI);
  XlaOp mm = CustomCall(&b, "test.min_max", {first, Exp(x)}, ShapeUtil::MakeTupleShape({s, s}));
  Add(CustomCall(&b, "test.add_one_and_scale", {GetTupleElement(mm, 1)}, s, "{scale = 3}", false,
                 API_VERSION_TYPED_FFI),
      GetTupleElement(mm, 0));
  CompareWithReferenceOnRandomInputs(&b, ErrorSpec{1e-5, 1e-5}, {-3, 3, 3, 7});
}

TEST_P(CustomCallTest, InsideALoopOnAScalarConstant) {
  SKIP_IF_REMOTE();
  // while (i < 3) { i += 1; v = (v + 1) * 2 } from v = 0.5 (a constant):
  // 0.5 -> 3 -> 8 -> 18.
  const Shape state = ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(S32, {}), ShapeUtil::MakeShape(F32, {})});
  XlaBuilder cond(TestName() + "_cond");
  Lt(GetTupleElement(Parameter(&cond, 0, state, "s"), 0), ConstantR0<int32_t>(&cond, 3));
  XlaBuilder body(TestName() + "_body");
  XlaOp s = Parameter(&body, 0, state, "s");
  Tuple(&body, {Add(GetTupleElement(s, 0), ConstantR0<int32_t>(&body, 1)),
                CustomCall(&body, "test.add_one_and_scale", {GetTupleElement(s, 1)}, ShapeUtil::MakeShape(F32, {}),
                           "{scale = 2.0 : f32}", false, API_VERSION_TYPED_FFI)});
  absl::StatusOr<XlaComputation> c = cond.Build();
  absl::StatusOr<XlaComputation> bd = body.Build();
  ASSERT_TRUE(c.ok() && bd.ok());
  XlaBuilder b(TestName());
  GetTupleElement(While(*c, *bd, Tuple(&b, {ConstantR0<int32_t>(&b, 0), ConstantR0<float>(&b, 0.5f)})), 1);
  ComputeAndCompareR0<float>(&b, 18.0f);
}

TEST_P(CustomCallTest, OpaqueBackendConfig) {
  SKIP_IF_REMOTE();
  XlaBuilder b(TestName());
  CustomCall(&b, "test.opaque_length", {}, ShapeUtil::MakeShape(S32, {}), "any text, {not parsed}");
  ComputeAndCompareR0<int32_t>(&b, 22);
}

TEST_P(CustomCallTest, AnUnusedCallStillRuns) {
  // Custom calls are kept by the passes: an unused failing one still fails.
  SKIP_IF_REMOTE();
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<float>({1}), &args);
  CustomCall(&b, "test.fail", {x}, ShapeUtil::MakeShape(F32, {1}), "unused");
  Neg(x);
  absl::StatusOr<Literal> r = Execute(&b, args);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "the widget is jammed (unused)")) << r.status();
}

TEST_P(CustomCallTest, HandlerErrorsBecomeTheExecutionsStatus) {
  SKIP_IF_REMOTE();
  XlaBuilder b(TestName());
  std::vector<Literal> args;
  XlaOp x = AddParam(&b, Literal::CreateR1<float>({1, 2}), &args);
  CustomCall(&b, "test.fail", {x}, ShapeUtil::MakeShape(F32, {2}), "code 7");
  absl::StatusOr<Literal> r = Execute(&b, args);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "custom call 'test.fail'")) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "the widget is jammed (code 7)")) << r.status();

  // A declared result the handler cannot fill is its error too; so is a
  // missing attribute.
  XlaBuilder w(TestName() + "_wrong_type");
  std::vector<Literal> wargs;
  XlaOp y = AddParam(&w, Literal::CreateR1<float>({1, 2}), &wargs);
  CustomCall(&w, "test.add_one_and_scale", {y}, ShapeUtil::MakeShape(S32, {2}), "{scale = 1.0}", false,
             API_VERSION_TYPED_FFI);
  r = Execute(&w, wargs);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "custom-call buffer holds s32 elements, not the type asked for")) << r.status();

  XlaBuilder m(TestName() + "_missing_attribute");
  std::vector<Literal> margs;
  XlaOp z = AddParam(&m, Literal::CreateR1<float>({1, 2}), &margs);
  CustomCall(&m, "test.add_one_and_scale", {z}, ShapeUtil::MakeShape(F32, {2}), "{}", false, API_VERSION_TYPED_FFI);
  r = Execute(&m, margs);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "custom-call attribute 'scale' is missing")) << r.status();
}

TEST_P(CustomCallTest, BadDeclarationsAreBuildErrors) {
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2}), "x");
  CustomCall(&b, "", {x}, ShapeUtil::MakeShape(F32, {2}));
  ExpectBuildError(&b, "CustomCall: custom_call_target is empty");

  XlaBuilder l(TestName() + "_layouts");
  XlaOp y = Parameter(&l, 0, ShapeUtil::MakeShape(F32, {2, 3}), "y");
  CustomCallWithLayout(&l, "test.min_max", {y}, ShapeUtil::MakeShape(F32, {2, 3}),
                       {ShapeUtil::MakeShapeWithLayout(F32, {3, 2}, {1, 0})});
  ExpectBuildError(&l, "operand layout constraint 0 is f32[3,2] but operand 0 is f32[2,3]");

  XlaBuilder n(TestName() + "_count");
  XlaOp z = Parameter(&n, 0, ShapeUtil::MakeShape(F32, {2}), "z");
  CustomCallWithLayout(&n, "test.min_max", {z}, ShapeUtil::MakeShape(F32, {2}), {});
  CustomCallWithLayout(&n, "test.min_max", {z, z}, ShapeUtil::MakeShape(F32, {2}),
                       {ShapeUtil::MakeShapeWithLayout(F32, {2}, {0})});
  ExpectBuildError(&n, "1 operand layout constraints for 2 operands");
}

TEST_P(CustomCallTest, UnknownTargetsFailToCompileNamingThem) {
  // Names of libc functions are just names: nothing looks them up as
  // symbols, so they fail like any unregistered target, before running.
  for (const char* target : {"system", "printf", "exit", "malloc", "dlsym", "not_registered"}) {
    XlaBuilder b(TestName() + "_" + target);
    XlaOp cmd = ConstantR1<uint8_t>(&b, {'e', 'c', 'h', 'o', ' ', 'x', 0});
    CustomCall(&b, target, {cmd}, ShapeUtil::MakeShape(S32, {}), "touch /tmp/xla_custom_call_pwned");
    absl::StatusOr<XlaComputation> computation = b.Build();
    ASSERT_TRUE(computation.ok()) << computation.status();
    absl::StatusOr<ExecutionHandle> compiled = client()->Compile(*computation);
    ASSERT_FALSE(compiled.ok()) << target;
    EXPECT_EQ(compiled.status().code(), absl::StatusCode::kNotFound) << compiled.status();
    EXPECT_TRUE(absl::StrContains(compiled.status().message(),
                                  absl::StrCat("target '", target, "' is not registered")))
        << compiled.status();
  }
  // The service keeps serving.
  XlaBuilder ok(TestName() + "_after");
  Add(ConstantR1<float>(&ok, {1, 2}), ConstantR1<float>(&ok, {3, 4}));
  ComputeAndCompareR1<float>(&ok, {4, 6});
}

TEST_P(CustomCallTest, FromStableHlo) {
  // An unregistered target imports and then fails to compile, naming it.
  absl::StatusOr<ExecutionHandle> unknown = client()->CompileStableHlo(R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @system(%x) {backend_config = "rm -rf /"} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound) << unknown.status();
  EXPECT_TRUE(absl::StrContains(unknown.status().message(), "target 'system' is not registered")) << unknown.status();

  SKIP_IF_REMOTE();
  ASSERT_OK_AND_ASSIGN(ExecutionHandle handle, client()->CompileStableHlo(R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @test.add_one_and_scale(%x) {backend_config = {scale = 3.0 : f32}, api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
})"));
  ASSERT_OK_AND_ASSIGN(auto x, client()->TransferToServer(Literal::CreateR1<float>({0, 1, -1})));
  GlobalData* args[] = {x.get()};
  ASSERT_OK_AND_ASSIGN(auto result, client()->Execute(handle, args));
  ASSERT_OK_AND_ASSIGN(Literal value, client()->TransferToClient(*result));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({3, 6, 0}), value));
  EXPECT_OK(client()->UnregisterExecutable(handle));
}

XLA_CLIENT_TEST_P(CustomCallTest);

}  // namespace
}  // namespace xla
