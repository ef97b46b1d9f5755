#include "client/client_library.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace xla {
namespace {

absl::Mutex clients_mutex(absl::kConstInit);
std::map<std::string, std::unique_ptr<LocalClient>>* clients ABSL_GUARDED_BY(clients_mutex) = nullptr;

}  // namespace

absl::StatusOr<LocalClient*> ClientLibrary::GetOrCreateLocalClient(const std::string& backend) {
  ServiceOptions options;
  options.backend = backend;
  return GetOrCreateLocalClient(options);
}

absl::StatusOr<LocalClient*> ClientLibrary::GetOrCreateLocalClient(const ServiceOptions& options) {
  const std::string key =
      absl::StrCat(options.backend, "\n", options.cache_dir, "\n", options.cache_dir_bytes, "\n", options.num_devices);
  absl::MutexLock lock(&clients_mutex);
  if (clients == nullptr) clients = new std::map<std::string, std::unique_ptr<LocalClient>>();
  auto it = clients->find(key);
  if (it != clients->end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<ServiceInterface>> service = CreateInProcessService(options);
  if (!service.ok()) return service.status();
  auto client = std::make_unique<LocalClient>(std::move(*service));
  LocalClient* raw = client.get();
  (*clients)[key] = std::move(client);
  return raw;
}

LocalClient* ClientLibrary::LocalClientOrDie() {
  absl::StatusOr<LocalClient*> client = GetOrCreateLocalClient();
  if (!client.ok()) {
    std::fprintf(stderr, "ClientLibrary: %s\n", client.status().ToString().c_str());
    std::abort();
  }
  return *client;
}

}  // namespace xla
