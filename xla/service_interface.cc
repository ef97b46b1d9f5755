#include "xla/service_interface.h"

#include "absl/synchronization/mutex.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

absl::Mutex factory_mutex(absl::kConstInit);
InProcessServiceFactory* factory ABSL_GUARDED_BY(factory_mutex) = nullptr;

}  // namespace

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
