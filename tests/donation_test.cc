// Donated arguments and input/output aliasing through the client API, on
// every backend (in process and over gRPC): a donated handle is consumed by
// the run and its values become the result's where the module aliases them
// (XlaBuilder::SetUpAlias); a training loop that donates its weights every
// step matches the evaluator step for step; donations the service cannot
// honour safely are refused before anything is consumed.
#include <memory>
#include <random>
#include <vector>

#include "tests/client_test_base.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace test {
namespace {

class DonationTest : public ClientTest {
 protected:
  // w' = w - 0.25 * g, its result aliased to w (parameter 0).
  XlaComputation SgdStep(int64_t n, bool must_alias = false) {
    XlaBuilder b(TestName());
    const Shape shape = ShapeUtil::MakeShape(F32, {n});
    XlaOp w = Parameter(&b, 0, shape, "w");
    XlaOp g = Parameter(&b, 1, shape, "g");
    Sub(w, Mul(ConstantR0<float>(&b, 0.25f), g));
    b.SetUpAlias({}, 0, {}, must_alias);
    absl::StatusOr<XlaComputation> c = b.Build();
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? std::move(*c) : XlaComputation();
  }

  int64_t LiveBuffers() {
    absl::StatusOr<GetServiceInfoResponse> info = client()->GetServiceInfo();
    EXPECT_TRUE(info.ok()) << info.status();
    return info.ok() ? info->live_buffers() : -1;
  }
};

TEST_P(DonationTest, TrainingLoopDonatingItsWeightsMatchesTheEvaluator) {
  constexpr int64_t kN = 4096;
  const XlaComputation step = SgdStep(kN);
  ASSERT_OK_AND_ASSIGN(ExecutionHandle handle, client()->Compile(step));
  std::mt19937 rng(3);
  Literal w = RandomLiteral(ShapeUtil::MakeShape(F32, {kN}), rng, -1, 1);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> weights, client()->TransferToServer(w));
  const int64_t live_before = LiveBuffers();
  for (int i = 0; i < 4; ++i) {
    Literal g = RandomLiteral(ShapeUtil::MakeShape(F32, {kN}), rng, -1, 1);
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> gradient, client()->TransferToServer(g));
    ASSERT_OK_AND_ASSIGN(Literal expected, EvaluateWithReference(step, {w, g}));
    const GlobalDataHandle donated = weights->handle();
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> next,
                         client()->ExecuteDonating(handle, {weights.get(), gradient.get()}, {0}));
    // The donated handle is gone on the service.
    GlobalData stale(nullptr, donated);
    absl::StatusOr<Literal> old = client()->TransferToClient(stale);
    EXPECT_EQ(old.status().code(), absl::StatusCode::kNotFound) << old.status();
    ASSERT_OK_AND_ASSIGN(Literal got, client()->TransferToClient(*next));
    EXPECT_OK(ExactlyEqual(expected, got));
    weights = std::move(next);
    w = std::move(got);
  }
  // One weights buffer, as before the loop: none leaked, none doubled.
  EXPECT_EQ(LiveBuffers(), live_before);
  EXPECT_OK(client()->UnregisterExecutable(handle));
}

TEST_P(DonationTest, WithoutDonationTheArgumentIsKept) {
  const XlaComputation step = SgdStep(8);
  ASSERT_OK_AND_ASSIGN(ExecutionHandle handle, client()->Compile(step));
  const Literal w = L("f32[8] {1, 2, 3, 4, 5, 6, 7, 8}");
  const Literal g = L("f32[8] {4, 4, 4, 4, 8, 8, 8, 8}");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> wd, client()->TransferToServer(w));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> gd, client()->TransferToServer(g));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> out, client()->Execute(handle, {wd.get(), gd.get()}));
  ASSERT_OK_AND_ASSIGN(Literal got, client()->TransferToClient(*out));
  EXPECT_OK(ExactlyEqual(L("f32[8] {0, 1, 2, 3, 3, 4, 5, 6}"), got));
  ASSERT_OK_AND_ASSIGN(Literal kept, client()->TransferToClient(*wd));
  EXPECT_OK(ExactlyEqual(w, kept));
  EXPECT_OK(client()->UnregisterExecutable(handle));
}

TEST_P(DonationTest, RefusedDonationsConsumeNothing) {
  const XlaComputation step = SgdStep(8);
  ASSERT_OK_AND_ASSIGN(ExecutionHandle handle, client()->Compile(step));
  const Literal w = L("f32[8] {1, 2, 3, 4, 5, 6, 7, 8}");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> wd, client()->TransferToServer(w));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> gd, client()->TransferToServer(w));
  auto expect_refused = [&](absl::Span<GlobalData* const> args, std::vector<int64_t> donated,
                            absl::StatusCode code, absl::string_view message) {
    absl::StatusOr<std::unique_ptr<GlobalData>> r = client()->ExecuteDonating(handle, args, donated);
    EXPECT_EQ(r.status().code(), code) << r.status();
    EXPECT_NE(r.status().message().find(message), absl::string_view::npos) << r.status();
  };
  expect_refused({wd.get(), gd.get()}, {2}, absl::StatusCode::kInvalidArgument, "donated argument 2");
  expect_refused({wd.get(), gd.get()}, {0, 0}, absl::StatusCode::kInvalidArgument, "donated twice");
  expect_refused({wd.get(), wd.get()}, {0}, absl::StatusCode::kInvalidArgument, "also argument 1");
  // A buffer another handle holds too (a tuple's element) cannot be written.
  XlaBuilder tb("tuple");
  Tuple(&tb, {Parameter(&tb, 0, ShapeUtil::MakeShape(F32, {8}), "x")});
  ASSERT_OK_AND_ASSIGN(XlaComputation tuple, tb.Build());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> t, client()->Execute(tuple, {wd.get()}));
  ASSERT_OK_AND_ASSIGN(std::vector<std::unique_ptr<GlobalData>> parts, client()->DeconstructTuple(*t));
  ASSERT_EQ(parts.size(), 1u);
  expect_refused({parts[0].get(), gd.get()}, {0}, absl::StatusCode::kFailedPrecondition, "held elsewhere");
  // Every handle is still there and unchanged.
  for (GlobalData* d : {wd.get(), gd.get(), parts[0].get()}) {
    ASSERT_OK_AND_ASSIGN(Literal still, client()->TransferToClient(*d));
    EXPECT_OK(ExactlyEqual(w, still));
  }
  // A must-alias parameter must be donated.
  ASSERT_OK_AND_ASSIGN(ExecutionHandle must, client()->Compile(SgdStep(8, /*must_alias=*/true)));
  absl::StatusOr<std::unique_ptr<GlobalData>> r = client()->Execute(must, {wd.get(), gd.get()});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_NE(r.status().message().find("must be donated"), absl::string_view::npos) << r.status();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> out, client()->ExecuteDonating(must, {wd.get(), gd.get()}, {0}));
  ASSERT_OK_AND_ASSIGN(Literal got, client()->TransferToClient(*out));
  EXPECT_OK(ExactlyEqual(L("f32[8] {0.75, 1.5, 2.25, 3, 3.75, 4.5, 5.25, 6}"), got));
  EXPECT_OK(client()->UnregisterExecutable(handle));
  EXPECT_OK(client()->UnregisterExecutable(must));
}

TEST_P(DonationTest, DonatingWithoutAnAliasOnlyConsumes) {
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4}), "x");
  Rev(x, {0});
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  ASSERT_OK_AND_ASSIGN(ExecutionHandle handle, client()->Compile(c));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> xd, client()->TransferToServer(L("f32[4] {1, 2, 3, 4}")));
  const GlobalDataHandle donated = xd->handle();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> out, client()->ExecuteDonating(handle, {xd.get()}, {0}));
  ASSERT_OK_AND_ASSIGN(Literal got, client()->TransferToClient(*out));
  EXPECT_OK(ExactlyEqual(L("f32[4] {4, 3, 2, 1}"), got));
  GlobalData stale(nullptr, donated);
  EXPECT_EQ(client()->TransferToClient(stale).status().code(), absl::StatusCode::kNotFound);
  EXPECT_OK(client()->UnregisterExecutable(handle));
}

TEST_P(DonationTest, BadAliasesFailAtBuild) {
  {
    XlaBuilder b("wrong_shape");
    Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4}), "x");
    ConstantR1<float>(&b, {1, 2, 3});
    b.SetUpAlias({}, 0, {});
    ExpectBuildError(&b, "differ in shape");
  }
  {
    XlaBuilder b("no_parameter");
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4}), "x");
    Neg(x);
    b.SetUpAlias({}, 1, {});
    ExpectBuildError(&b, "parameter 1 does not exist");
  }
  {
    XlaBuilder b("twice");
    XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4}), "x");
    Tuple(&b, {Neg(x), Abs(x)});
    b.SetUpAlias({0}, 0, {});
    b.SetUpAlias({1}, 0, {});
    ExpectBuildError(&b, "parameter leaf is aliased twice");
  }
}

TEST(InputOutputAliasTextTest, ParsesPrintsAndRejects) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(HloModule m, input_output_alias={ {1}: (0, {}, must-alias), {0}: (1, {}) }
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT t = (f32[2], f32[2]) tuple(b, a)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_EQ((*module)->input_output_aliases().size(), 2u);
  EXPECT_TRUE((*module)->input_output_aliases()[0].must_alias);
  EXPECT_EQ((*module)->input_output_aliases()[1].parameter, 1);
  const std::string text = (*module)->ToString();
  EXPECT_NE(text.find("input_output_alias={ {1}: (0, {}, must-alias), {0}: (1, {}, may-alias) }"), std::string::npos)
      << text;
  absl::StatusOr<std::unique_ptr<HloModule>> again = ParseHloModule(text);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->input_output_aliases(), (*module)->input_output_aliases());
  for (const char* bad : {"{ {0}: (0, {}, sometimes) }", "{ {0}: 0 }", "{ {0}: (0, {}) } trailing"}) {
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(
        absl::StrCat("HloModule m, input_output_alias=", bad, "\nENTRY e {\n  ROOT a = f32[2] parameter(0)\n}"));
    EXPECT_FALSE(m.ok()) << bad;
  }
}

XLA_CLIENT_TEST_P(DonationTest);

}  // namespace
}  // namespace test
}  // namespace xla
