// ClientTest: the fixture of the end-to-end op tests. Every test builds a
// computation with XlaBuilder, runs it through the Client API on one backend
// (the test parameter), and checks the result against an expected literal
// and/or against the reference evaluator (HloEvaluator) run directly on the
// same computation.
//
// Backends: TestBackends() lists the backend names every ClientTest suite is
// instantiated for; adding a backend (or a remote client) is one line there
// (and one branch in GetClientForBackend for a new kind of client).
#ifndef TESTS_CLIENT_TEST_BASE_H_
#define TESTS_CLIENT_TEST_BASE_H_

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "client/client.h"
#include "client/xla_builder.h"
#include "client/xla_computation.h"
#include "gtest/gtest.h"
#include "xla/literal.h"
#include "xla/literal_comparison.h"
#include "xla/shape.h"
#include "xla/shape_util.h"

namespace xla {
namespace test {

// Backend names every ClientTest suite runs on (XLA_TEST_BACKENDS, comma
// separated, overrides the built-in list).
const std::vector<std::string>& TestBackends();

// The client for a backend name of TestBackends() (in-process for now).
absl::StatusOr<Client*> GetClientForBackend(const std::string& name);

// Exact comparison: same shape; integers and preds bit-equal; floats equal in
// value and in the sign of zero, NaN equal to NaN (any payload); complex per
// component. (literal_comparison::Equal compares through double, which
// cannot tell -0 from +0, nor 64-bit integers that differ in low bits.)
absl::Status ExactlyEqual(const Literal& expected, const Literal& actual);

// Parses literal text ("f32[2] {1, 2}"); a parse error fails the test and
// returns an empty tuple.
Literal L(absl::string_view text);

// Random literal of an array (or tuple) shape: floats uniform in [lo, hi),
// integers uniform in [lo, hi] clamped to the type's range, preds 50/50,
// complex per component.
Literal RandomLiteral(const Shape& shape, std::mt19937& rng, double lo, double hi);

// Evaluates `computation` with the reference evaluator, bypassing the
// client, the service and the backend.
absl::StatusOr<Literal> EvaluateWithReference(const XlaComputation& computation,
                                              absl::Span<const Literal> args);

// Adds a parameter shaped like `value` (next free number) and appends
// `value` to `args`.
XlaOp AddParam(XlaBuilder* builder, const Literal& value, std::vector<Literal>* args,
               const std::string& name = "");

class ClientTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  void TearDown() override;

  Client* client() const { return client_; }
  const std::string& backend() const { return GetParam(); }
  // "SuiteName.TestName/backend", a readable builder name.
  std::string TestName() const;

  // Builds `builder` and runs it on the backend: transfers `args`, compiles,
  // executes by handle, transfers the result back, releases everything.
  absl::StatusOr<Literal> Execute(XlaBuilder* builder, absl::Span<const Literal> args);
  absl::StatusOr<Literal> ExecuteComputation(const XlaComputation& computation, absl::Span<const Literal> args);
  // The same through Client::ExecuteAndTransfer (compile-through-cache path).
  absl::StatusOr<Literal> ExecuteAndTransfer(const XlaComputation& computation, absl::Span<const Literal> args);

  // Runs `builder` on `args`; compares with `expected` exactly (ExactlyEqual)
  // or within `error`. Also checks that the result's shape is the
  // computation's declared result shape and that the reference evaluator
  // agrees with the backend.
  void ComputeAndCompare(XlaBuilder* builder, absl::Span<const Literal> args, const Literal& expected,
                         std::optional<ErrorSpec> error = std::nullopt);
  void ComputeAndCompare(XlaBuilder* builder, const Literal& expected,
                         std::optional<ErrorSpec> error = std::nullopt) {
    ComputeAndCompare(builder, {}, expected, error);
  }
  // Expected value given as literal text, e.g. "f32[2] {1, 2}".
  void ComputeAndCompareText(XlaBuilder* builder, absl::Span<const Literal> args, absl::string_view expected,
                             std::optional<ErrorSpec> error = std::nullopt) {
    ComputeAndCompare(builder, args, L(expected), error);
  }

  template <typename T>
  void ComputeAndCompareR0(XlaBuilder* builder, T expected, absl::Span<const Literal> args = {},
                           std::optional<ErrorSpec> error = std::nullopt) {
    ComputeAndCompare(builder, args, Literal::CreateR0<T>(expected), error);
  }
  template <typename T>
  void ComputeAndCompareR1(XlaBuilder* builder, absl::Span<const T> expected, absl::Span<const Literal> args = {},
                           std::optional<ErrorSpec> error = std::nullopt) {
    ComputeAndCompare(builder, args, Literal::CreateR1<T>(expected), error);
  }
  template <typename T>
  void ComputeAndCompareR1(XlaBuilder* builder, std::initializer_list<T> expected,
                           absl::Span<const Literal> args = {}, std::optional<ErrorSpec> error = std::nullopt) {
    ComputeAndCompare(builder, args, Literal::CreateR1<T>(expected), error);
  }
  template <typename T>
  void ComputeAndCompareR2(XlaBuilder* builder, std::initializer_list<std::initializer_list<T>> expected,
                           absl::Span<const Literal> args = {}, std::optional<ErrorSpec> error = std::nullopt) {
    ComputeAndCompare(builder, args, Literal::CreateR2<T>(expected), error);
  }
  template <typename T>
  void ComputeAndCompareR3(XlaBuilder* builder,
                           std::initializer_list<std::initializer_list<std::initializer_list<T>>> expected,
                           absl::Span<const Literal> args = {}, std::optional<ErrorSpec> error = std::nullopt) {
    ComputeAndCompare(builder, args, Literal::CreateR3<T>(expected), error);
  }

  // Expects builder->Build() to fail with `code` and a message containing
  // `substring`.
  void ExpectBuildError(XlaBuilder* builder, absl::string_view substring,
                        absl::StatusCode code = absl::StatusCode::kInvalidArgument);

  // Differential testing: runs the computation of `builder` on the backend
  // and on the reference evaluator for `trials` sets of random arguments
  // (shaped by the computation's parameters, from std::mt19937(seed)) and
  // compares the results within `error`.
  struct RandomSpec {
    double lo = -10;
    double hi = 10;
    int trials = 3;
    uint32_t seed = 42;
  };
  void CompareWithReferenceOnRandomInputs(XlaBuilder* builder, ErrorSpec error, const RandomSpec& spec);
  void CompareWithReferenceOnRandomInputs(XlaBuilder* builder, ErrorSpec error) {
    CompareWithReferenceOnRandomInputs(builder, error, RandomSpec());
  }
  // Same for given arguments.
  void CompareWithReference(const XlaComputation& computation, absl::Span<const Literal> args,
                            std::optional<ErrorSpec> error);

  int64_t LiveBuffers();

 private:
  Client* client_ = nullptr;
  int64_t live_buffers_at_start_ = -1;
};

// Names a parameterized instance after its backend ("interpreter").
std::string BackendParamName(const ::testing::TestParamInfo<std::string>& info);

}  // namespace test
}  // namespace xla

// Instantiates a ClientTest-derived suite on every backend of TestBackends().
#define XLA_CLIENT_TEST_P(suite)                                                      \
  INSTANTIATE_TEST_SUITE_P(AllBackends, suite, ::testing::ValuesIn(::xla::test::TestBackends()), \
                           ::xla::test::BackendParamName)

// Fails the test (and returns) if `expr` (a StatusOr) is an error; else
// assigns its value to `lhs`.
#define XLA_TEST_CONCAT_INNER(a, b) a##b
#define XLA_TEST_CONCAT(a, b) XLA_TEST_CONCAT_INNER(a, b)
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL(XLA_TEST_CONCAT(_xla_test_or_, __LINE__), lhs, expr)
#define ASSERT_OK_AND_ASSIGN_IMPL(statusor, lhs, expr)        \
  auto statusor = (expr);                                     \
  ASSERT_TRUE(statusor.ok()) << statusor.status().ToString(); \
  lhs = std::move(statusor).value()
#define EXPECT_OK(expr)                                    \
  do {                                                     \
    ::absl::Status _xla_test_s = (expr);                   \
    EXPECT_TRUE(_xla_test_s.ok()) << _xla_test_s.ToString(); \
  } while (0)
#define ASSERT_OK(expr)                                    \
  do {                                                     \
    ::absl::Status _xla_test_s = (expr);                   \
    ASSERT_TRUE(_xla_test_s.ok()) << _xla_test_s.ToString(); \
  } while (0)

#endif  // TESTS_CLIENT_TEST_BASE_H_
