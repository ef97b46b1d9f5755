// ClientLibrary: hands out LocalClients over in-process services, one per
// backend name, created on first use and kept for the process lifetime.
#ifndef CLIENT_CLIENT_LIBRARY_H_
#define CLIENT_CLIENT_LIBRARY_H_

#include <string>

#include "absl/status/statusor.h"
#include "client/local_client.h"
#include "xla/service_interface.h"

namespace xla {

class ClientLibrary {
 public:
  // `backend` empty selects the service's default backend.
  static absl::StatusOr<LocalClient*> GetOrCreateLocalClient(const std::string& backend = "");
  // With more options (ServiceOptions::cache_dir: a persistent executable
  // cache). One client per distinct backend and cache directory.
  static absl::StatusOr<LocalClient*> GetOrCreateLocalClient(const ServiceOptions& options);
  static LocalClient* LocalClientOrDie();
};

}  // namespace xla

#endif  // CLIENT_CLIENT_LIBRARY_H_
