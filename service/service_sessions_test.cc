// Sessions of one Service, each through its own SessionService: their runs
// go through the session's own state (no lock another session takes), so
// these tests check what that must keep true. Sessions running at once get
// their own results and free every buffer; a handle of one session is not
// another's; a session closed under a SessionService that kept its state
// refuses its calls and keeps nothing.
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "client/xla_builder.h"
#include "gtest/gtest.h"
#include "service/service.h"
#include "xla/literal.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

XlaComputation AddComputation() {
  XlaBuilder b("add");
  Add(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4}), "x"), Parameter(&b, 1, ShapeUtil::MakeShape(F32, {4}), "y"));
  absl::StatusOr<XlaComputation> built = b.Build();
  EXPECT_TRUE(built.ok()) << built.status();
  return built.ok() ? std::move(*built) : XlaComputation();
}

std::shared_ptr<Service> MakeService() {
  absl::StatusOr<std::unique_ptr<Service>> service = Service::Create("cpu", ServiceLimits{});
  EXPECT_TRUE(service.ok()) << service.status();
  return service.ok() ? std::shared_ptr<Service>(std::move(*service)) : nullptr;
}

TEST(ServiceSessionsTest, SessionsRunningAtOnceGetTheirOwnResultsAndFreeEverything) {
  std::shared_ptr<Service> service = MakeService();
  ASSERT_NE(service, nullptr);
  const XlaComputation add = AddComputation();
  constexpr int kSessions = 3;
  constexpr int kRuns = 300;
  std::vector<std::thread> threads;
  std::vector<absl::Status> failures(kSessions);
  for (int s = 0; s < kSessions; ++s) {
    threads.emplace_back([&, s] {
      SessionService session(service, service->OpenSession("test"), /*owns_session=*/true);
      Client client(&session);
      absl::StatusOr<ExecutionHandle> exe = client.Compile(add);
      if (!exe.ok()) {
        failures[s] = exe.status();
        return;
      }
      for (int r = 0; r < kRuns; ++r) {
        // Values unique to this session and run: a mixed-up buffer shows.
        const float base = 1000.0f * s + r;
        Literal x = Literal::CreateR1<float>({base, base + 1, base + 2, base + 3});
        Literal y = Literal::CreateR1<float>({0.5f, 0.5f, 0.5f, 0.5f});
        absl::StatusOr<std::unique_ptr<GlobalData>> dx = client.TransferToServer(x);
        absl::StatusOr<std::unique_ptr<GlobalData>> dy = client.TransferToServer(y);
        if (!dx.ok() || !dy.ok()) {
          failures[s] = !dx.ok() ? dx.status() : dy.status();
          return;
        }
        absl::StatusOr<std::unique_ptr<GlobalData>> sum = client.Execute(*exe, {dx->get(), dy->get()});
        if (!sum.ok()) {
          failures[s] = sum.status();
          return;
        }
        absl::StatusOr<Literal> got = client.TransferToClient(**sum);
        if (!got.ok()) {
          failures[s] = got.status();
          return;
        }
        const Literal expected = Literal::CreateR1<float>({base + 0.5f, base + 1.5f, base + 2.5f, base + 3.5f});
        if (*got != expected) {
          failures[s] = absl::InternalError(absl::StrCat("session ", s, " run ", r, ": got ", got->ToString()));
          return;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int s = 0; s < kSessions; ++s) EXPECT_TRUE(failures[s].ok()) << "session " << s << ": " << failures[s];
  EXPECT_EQ(service->open_sessions(), 0);
  EXPECT_EQ(service->allocation_tracker().live_handles(), 0);
  EXPECT_EQ(service->allocation_tracker().bytes_in_use(), 0);
}

TEST(ServiceSessionsTest, AnotherSessionsHandlesAreNotFound) {
  std::shared_ptr<Service> service = MakeService();
  ASSERT_NE(service, nullptr);
  SessionService a(service, service->OpenSession("a"), /*owns_session=*/true);
  SessionService b(service, service->OpenSession("b"), /*owns_session=*/true);
  Client client_a(&a), client_b(&b);
  absl::StatusOr<ExecutionHandle> exe_a = client_a.Compile(AddComputation());
  absl::StatusOr<ExecutionHandle> exe_b = client_b.Compile(AddComputation());
  ASSERT_TRUE(exe_a.ok() && exe_b.ok());
  absl::StatusOr<std::unique_ptr<GlobalData>> x = client_a.TransferToServer(Literal::CreateR1<float>({1, 2, 3, 4}));
  ASSERT_TRUE(x.ok()) << x.status();
  // A's data in B's run, and A's executable run by B.
  ExecuteRequest request;
  *request.mutable_handle() = *exe_b;
  *request.add_arguments() = (*x)->handle();
  *request.add_arguments() = (*x)->handle();
  ExecuteResponse response;
  absl::Status status = b.Execute(request, &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  *request.mutable_handle() = *exe_a;
  status = b.Execute(request, &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  // B releasing A's handle leaves it alone.
  b.ReleaseHandle((*x)->handle());
  absl::StatusOr<Literal> still = client_a.TransferToClient(**x);
  ASSERT_TRUE(still.ok()) << still.status();
  EXPECT_EQ(*still, Literal::CreateR1<float>({1, 2, 3, 4}));
}

TEST(ServiceSessionsTest, ClosedUnderItsSessionServiceRefusesCallsAndKeepsNothing) {
  std::shared_ptr<Service> service = MakeService();
  ASSERT_NE(service, nullptr);
  const SessionId id = service->OpenSession("closed by the operator");
  SessionService session(service, id, /*owns_session=*/false);
  Client client(&session);
  absl::StatusOr<ExecutionHandle> exe = client.Compile(AddComputation());
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::unique_ptr<GlobalData>> x = client.TransferToServer(Literal::CreateR1<float>({1, 2, 3, 4}));
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_GT(service->allocation_tracker().bytes_in_use(), 0);
  // An idle timeout of zero closes it, as the daemon's reaper would.
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(service->CloseIdleSessions(absl::ZeroDuration()), 1);
  EXPECT_EQ(service->allocation_tracker().bytes_in_use(), 0);
  EXPECT_EQ(service->allocation_tracker().live_handles(), 0);
  absl::StatusOr<std::unique_ptr<GlobalData>> sum = client.Execute(*exe, {x->get(), x->get()});
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kNotFound) << sum.status();
  absl::StatusOr<ExecutionHandle> again = client.Compile(AddComputation());
  EXPECT_FALSE(again.ok());
  absl::StatusOr<std::unique_ptr<GlobalData>> y = client.TransferToServer(Literal::CreateR1<float>({1, 2, 3, 4}));
  EXPECT_FALSE(y.ok());
  x->reset();  // its release finds nothing to release
  EXPECT_EQ(service->allocation_tracker().live_handles(), 0);
  EXPECT_EQ(service->allocation_tracker().bytes_in_use(), 0);
}

}  // namespace
}  // namespace xla
