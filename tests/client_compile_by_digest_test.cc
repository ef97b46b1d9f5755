// Client::Compile sends a computation's digest before the computation when
// it knows the digest (compiled before) or the computation is large (more
// than 1 MiB: a model with its weights), so that a service that already
// holds the executable never receives, copies or parses the module. A
// recording ServiceInterface between the client and the service shows
// which requests went.
#include <memory>
#include <string>
#include <vector>

#include "client/client.h"
#include "client/client_library.h"
#include "client/xla_builder.h"
#include "gtest/gtest.h"
#include "xla/program_digest.h"
#include "xla/service_interface.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

// Forwards every call to `inner`, recording what each Compile carried.
class RecordingService : public ServiceInterface {
 public:
  explicit RecordingService(ServiceInterface* inner) : inner_(inner) {}

  enum Sent { kDigestOnly, kProgram };
  std::vector<Sent> compiles;

  absl::Status Compile(const CompileRequest& arg, CompileResponse* result) override {
    compiles.push_back(arg.has_computation() ? kProgram : kDigestOnly);
    return inner_->Compile(arg, result);
  }

#define FORWARD(Method, Request, Response) \
  absl::Status Method(const Request& arg, Response* result) override { return inner_->Method(arg, result); }
  FORWARD(TransferToServer, TransferToServerRequest, TransferToServerResponse)
  FORWARD(TransferToClient, TransferToClientRequest, TransferToClientResponse)
  FORWARD(Unregister, UnregisterRequest, UnregisterResponse)
  FORWARD(DeconstructTuple, DeconstructTupleRequest, DeconstructTupleResponse)
  FORWARD(GetShape, GetShapeRequest, GetShapeResponse)
  FORWARD(GetComputationShape, GetComputationShapeRequest, GetComputationShapeResponse)
  FORWARD(Execute, ExecuteRequest, ExecuteResponse)
  FORWARD(ExecuteGraph, ExecuteGraphRequest, ExecuteResponse)
  FORWARD(ExecuteParallel, ExecuteParallelRequest, ExecuteParallelResponse)
  FORWARD(ExecuteAsync, ExecuteAsyncRequest, ExecuteAsyncResponse)
  FORWARD(WaitForExecution, WaitForExecutionRequest, WaitForExecutionResponse)
  FORWARD(TransferToInfeed, TransferToInfeedRequest, TransferToInfeedResponse)
  FORWARD(TransferFromOutfeed, TransferFromOutfeedRequest, TransferFromOutfeedResponse)
  FORWARD(UnregisterExecutable, UnregisterExecutableRequest, UnregisterExecutableResponse)
  FORWARD(ComputeConstantGraph, ComputeConstantGraphRequest, ComputeConstantResponse)
  FORWARD(GetDeviceHandles, GetDeviceHandlesRequest, GetDeviceHandlesResponse)
  FORWARD(CreateChannelHandle, CreateChannelHandleRequest, CreateChannelHandleResponse)
  FORWARD(ResetDevice, ResetDeviceRequest, ResetDeviceResponse)
  FORWARD(GetServiceInfo, GetServiceInfoRequest, GetServiceInfoResponse)
#undef FORWARD

 private:
  ServiceInterface* inner_;
};

class ClientCompileByDigestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServiceOptions options;
    options.backend = "interpreter";
    auto service = CreateInProcessService(options);
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    recorder_ = std::make_unique<RecordingService>(service_.get());
    client_ = std::make_unique<Client>(recorder_.get());
  }

  std::unique_ptr<ServiceInterface> service_;
  std::unique_ptr<RecordingService> recorder_;
  std::unique_ptr<Client> client_;
};

constexpr int64_t kLargeElements = 300 * 1024;  // 1.2 MB of f32 weights

// x + w, w a constant of `elements` floats.
XlaComputation AddWeights(int64_t elements) {
  XlaBuilder b("add_weights");
  Literal weights(ShapeUtil::MakeShape(F32, {elements}));
  for (int64_t i = 0; i < elements; ++i) weights.data<float>()[i] = static_cast<float>(i % 101);
  Add(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {elements}), "x"), ConstantLiteral(&b, weights));
  return b.Build().value();
}

TEST_F(ClientCompileByDigestTest, ALargeComputationGoesByItsDigestFirst) {
  using Sent = RecordingService::Sent;
  const XlaComputation large = AddWeights(kLargeElements);
  ASSERT_GT(large.proto().ByteSizeLong(), size_t{1} << 20);
  // The service has never seen it: the digest, then the program.
  auto first = client_->Compile(large);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(recorder_->compiles, (std::vector<Sent>{RecordingService::kDigestOnly, RecordingService::kProgram}));
  EXPECT_EQ(large.KnownProgramDigest(), ProgramDigest(large.proto()));

  // The same program in a computation that never compiled (another client
  // process, or a restarted one): the digest alone, answered from the cache.
  const XlaComputation again(large.proto());
  ASSERT_TRUE(again.KnownProgramDigest().empty());
  recorder_->compiles.clear();
  bool hit = false;
  auto second = client_->Compile(again, {}, nullptr, &hit);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(hit);
  EXPECT_EQ(recorder_->compiles, std::vector<Sent>{RecordingService::kDigestOnly});
  EXPECT_EQ(again.KnownProgramDigest(), large.KnownProgramDigest());

  // And it runs: x + w with x = 1.
  Literal x(ShapeUtil::MakeShape(F32, {kLargeElements}));
  for (int64_t i = 0; i < kLargeElements; ++i) x.data<float>()[i] = 1.0f;
  auto x_data = client_->TransferToServer(x);
  ASSERT_TRUE(x_data.ok()) << x_data.status();
  auto result = client_->Execute(*second, {x_data->get()});
  ASSERT_TRUE(result.ok()) << result.status();
  Literal got = client_->TransferToClient(**result).value();
  for (int64_t i : {int64_t{0}, int64_t{100}, int64_t{101}, kLargeElements - 1}) {
    EXPECT_EQ(got.data<float>()[i], 1.0f + static_cast<float>(i % 101)) << i;
  }
}

TEST_F(ClientCompileByDigestTest, ASmallComputationGoesWithItsProgramTheFirstTime) {
  using Sent = RecordingService::Sent;
  const XlaComputation small = AddWeights(1000);
  ASSERT_TRUE(client_->Compile(small).ok());
  EXPECT_EQ(recorder_->compiles, std::vector<Sent>{RecordingService::kProgram});
  // Then by the digest the service returned.
  recorder_->compiles.clear();
  ASSERT_TRUE(client_->Compile(small).ok());
  EXPECT_EQ(recorder_->compiles, std::vector<Sent>{RecordingService::kDigestOnly});
}

}  // namespace
}  // namespace xla
