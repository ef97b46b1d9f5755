// Fuzz target: every request handler of the Service (what the daemon runs
// for each RPC), on the interpreter backend under tight limits. The first
// byte picks the method, the rest is its request proto. Each input runs in
// a fresh session that already holds a few buffers (handles 1..3) and an
// executable (handle 1), so that handles in fuzzed requests reach real
// objects; the session is closed after the input, and nothing may stay
// allocated.
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "proto/xla.pb.h"
#include "service/service.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"

namespace xla {
namespace {

Service& TheService() {
  static Service* service = [] {
    ServiceLimits limits;
    limits.max_memory_bytes = int64_t{256} << 20;
    limits.max_session_bytes = int64_t{64} << 20;
    limits.max_run_seconds = 1;
    limits.max_compile_seconds = 1;
    limits.wait_seconds = 0.05;
    limits.num_devices = 2;
    limits.max_infeed_values = 4;
    limits.allow_request_dump_to = false;
    return Service::Create("interpreter", limits).value().release();
  }();
  return *service;
}

void Seed(Service& service, SessionId s) {
  for (const Literal& literal : {Literal::CreateR1<float>({1, 2, 3, 4}), Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}}),
                                 Literal::MakeTuple({Literal::CreateR0<float>(1), Literal::CreateR0<int32_t>(2)})}) {
    (void)service.TransferLiteralToServer(s, literal);
  }
  CompileRequest compile;
  compile.set_hlo_text(R"(HloModule axpy
ENTRY e {
  a = f32[] parameter(0)
  x = f32[4] parameter(1)
  b = f32[4] broadcast(a), dimensions={}
  ROOT r = f32[4] multiply(b, x)
}
)");
  CompileResponse compiled;
  (void)service.Compile(s, compile, &compiled);
}

template <typename Request, typename Response, typename Call>
void Run(const uint8_t* data, size_t size, Call call) {
  Request request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return;
  Response response;
  (void)call(request, &response);
}

}  // namespace
}  // namespace xla

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xla;  // NOLINT: the request and response types
  if (size == 0) return 0;
  Service& service = TheService();
  const SessionId s = service.OpenSession("fuzz");
  Seed(service, s);
  const uint8_t method = data[0] % 19;
  ++data;
  --size;
#define XLA_FUZZ_CALL(REQUEST, RESPONSE, NAME) \
  Run<REQUEST, RESPONSE>(data, size, [&](const REQUEST& r, RESPONSE* out) { return service.NAME(s, r, out); })
  switch (method) {
    case 0: XLA_FUZZ_CALL(CompileRequest, CompileResponse, Compile); break;
    case 1: XLA_FUZZ_CALL(ExecuteRequest, ExecuteResponse, Execute); break;
    case 2: XLA_FUZZ_CALL(ExecuteGraphRequest, ExecuteResponse, ExecuteGraph); break;
    case 3: XLA_FUZZ_CALL(ExecuteParallelRequest, ExecuteParallelResponse, ExecuteParallel); break;
    case 4: XLA_FUZZ_CALL(TransferToServerRequest, TransferToServerResponse, TransferToServer); break;
    case 5: XLA_FUZZ_CALL(TransferToClientRequest, TransferToClientResponse, TransferToClient); break;
    case 6: XLA_FUZZ_CALL(UnregisterRequest, UnregisterResponse, Unregister); break;
    case 7: XLA_FUZZ_CALL(DeconstructTupleRequest, DeconstructTupleResponse, DeconstructTuple); break;
    case 8: XLA_FUZZ_CALL(GetShapeRequest, GetShapeResponse, GetShape); break;
    case 9: XLA_FUZZ_CALL(GetComputationShapeRequest, GetComputationShapeResponse, GetComputationShape); break;
    case 10: XLA_FUZZ_CALL(ComputeConstantGraphRequest, ComputeConstantResponse, ComputeConstantGraph); break;
    case 11: XLA_FUZZ_CALL(TransferToInfeedRequest, TransferToInfeedResponse, TransferToInfeed); break;
    case 12: XLA_FUZZ_CALL(TransferFromOutfeedRequest, TransferFromOutfeedResponse, TransferFromOutfeed); break;
    case 13: XLA_FUZZ_CALL(UnregisterExecutableRequest, UnregisterExecutableResponse, UnregisterExecutable); break;
    case 14: XLA_FUZZ_CALL(GetDeviceHandlesRequest, GetDeviceHandlesResponse, GetDeviceHandles); break;
    case 15: XLA_FUZZ_CALL(CreateChannelHandleRequest, CreateChannelHandleResponse, CreateChannelHandle); break;
    case 16: XLA_FUZZ_CALL(ExecuteAsyncRequest, ExecuteAsyncResponse, ExecuteAsync); break;
    case 17: XLA_FUZZ_CALL(WaitForExecutionRequest, WaitForExecutionResponse, WaitForExecution); break;
    default: XLA_FUZZ_CALL(ResetDeviceRequest, ResetDeviceResponse, ResetDevice); break;
  }
#undef XLA_FUZZ_CALL
  if (!service.CloseSession(s).ok()) std::abort();
  // Every byte the input's session held is back.
  if (service.allocation_tracker().bytes_in_use() != 0) std::abort();
  return 0;
}
