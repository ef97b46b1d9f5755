// Custom calls through a real xla_service daemon: it runs the targets of
// the plugin an operator names (--custom_call_plugin), and a remote client
// naming `system`, `printf`, `exit` or `malloc` gets a compile-time
// NOT_FOUND while the daemon keeps serving; a plugin that does not load
// stops the daemon at startup.
#include <string>
#include <vector>

#include "client/grpc_client.h"
#include "client/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/daemon_process.h"
#include "xla/literal_comparison.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

using ::testing::HasSubstr;

constexpr char kPlugin[] = "xla/custom_call/test_plugin.so";

XlaComputation Calls(const std::string& target) {
  XlaBuilder b("calls_" + target);
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {3}), "x");
  CustomCall(&b, target, {x}, ShapeUtil::MakeShape(F32, {3}), "/bin/sh -c 'touch /tmp/xla_custom_call_pwned'");
  return b.Build().value();
}

class CustomCallDaemonTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CustomCallDaemonTest, RunsPluginTargetsAndRefusesEverythingElse) {
  auto daemon = DaemonProcess::Start({"--backend=" + GetParam(), std::string("--custom_call_plugin=") + kPlugin});
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  EXPECT_THAT((*daemon)->Log(), HasSubstr(std::string("loaded custom-call plugin ") + kPlugin));
  auto client = GrpcClient::Connect((*daemon)->target());
  ASSERT_TRUE(client.ok()) << client.status();
  auto x = (*client)->TransferToServer(Literal::CreateR1<float>({1.5f, -2, 0}));
  ASSERT_TRUE(x.ok()) << x.status();
  GlobalData* args[] = {x->get()};

  auto negate = [&] {
    absl::StatusOr<Literal> r = (*client)->ExecuteAndTransfer(Calls("test_plugin.negate"), args);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(literal_comparison::Equal(Literal::CreateR1<float>({-1.5f, 2, 0}), *r).ok()) << r->ToString();
  };
  negate();
  for (const char* target : {"system", "printf", "exit", "malloc", "XlaRegisterCustomCalls"}) {
    absl::StatusOr<ExecutionHandle> compiled = (*client)->Compile(Calls(target));
    ASSERT_FALSE(compiled.ok()) << target;
    EXPECT_EQ(compiled.status().code(), absl::StatusCode::kNotFound) << compiled.status();
    EXPECT_THAT(std::string(compiled.status().message()),
                HasSubstr(std::string("target '") + target + "' is not registered"));
    ASSERT_TRUE((*daemon)->running()) << (*daemon)->Log();
  }
  negate();  // still serving
  EXPECT_EQ((*daemon)->Stop(), 0) << (*daemon)->Log();
}

INSTANTIATE_TEST_SUITE_P(Backends, CustomCallDaemonTest, ::testing::Values("interpreter", "cpu"));

TEST(CustomCallDaemonStartupTest, APluginThatDoesNotLoadIsAStartupError) {
  auto missing = DaemonProcess::Start({"--custom_call_plugin=/nonexistent/libplugin.so"});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("custom-call plugin '/nonexistent/libplugin.so' does not load"));
  // The same plugin twice registers its target twice.
  auto twice = DaemonProcess::Start({std::string("--custom_call_plugin=") + kPlugin,
                                     std::string("--custom_call_plugin=") + kPlugin});
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(std::string(twice.status().message()), HasSubstr("'test_plugin.negate' is already registered"));
}

}  // namespace
}  // namespace xla
