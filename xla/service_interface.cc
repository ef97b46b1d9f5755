#include "xla/service_interface.h"

#include "absl/synchronization/mutex.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

absl::Mutex factory_mutex(absl::kConstInit);
InProcessServiceFactory* factory ABSL_GUARDED_BY(factory_mutex) = nullptr;

}  // namespace

void ServiceInterface::ReleaseHandle(const GlobalDataHandle& handle) {
  UnregisterRequest request;
  *request.add_data() = handle;
  UnregisterResponse response;
  Unregister(request, &response).IgnoreError();
}

absl::StatusOr<GlobalDataHandle> ServiceInterface::TransferLiteralToServer(const Literal& literal) {
  TransferToServerRequest request;
  *request.mutable_literal() = literal.ToProto();
  TransferToServerResponse response;
  RETURN_IF_ERROR(TransferToServer(request, &response));
  return response.data();
}

absl::StatusOr<Literal> ServiceInterface::TransferLiteralToClient(const GlobalDataHandle& handle,
                                                                  const Shape* shape_with_layout) {
  TransferToClientRequest request;
  *request.mutable_data() = handle;
  if (shape_with_layout != nullptr) *request.mutable_shape_with_layout() = shape_with_layout->ToProto();
  TransferToClientResponse response;
  RETURN_IF_ERROR(TransferToClient(request, &response));
  return Literal::FromProto(response.literal());
}

absl::StatusOr<GlobalDataHandle> ServiceInterface::TransferHostArrayInProcess(const Shape& shape, const void*,
                                                                              std::shared_ptr<const void>, bool*) {
  return FailedPrecondition(
      "TransferInProcess of %s: the service is not in this process (a remote client transfers with "
      "TransferToServer)",
      shape.ToString());
}

void RegisterInProcessServiceFactory(InProcessServiceFactory f) {
  absl::MutexLock lock(&factory_mutex);
  delete factory;
  factory = new InProcessServiceFactory(std::move(f));
}

absl::StatusOr<std::unique_ptr<ServiceInterface>> CreateInProcessService(const ServiceOptions& options) {
  InProcessServiceFactory f;
  {
    absl::MutexLock lock(&factory_mutex);
    if (factory == nullptr) {
      return FailedPrecondition("no in-process service is linked in (depend on //service:service)");
    }
    f = *factory;
  }
  return f(options);
}

}  // namespace xla
