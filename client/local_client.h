// LocalClient: a Client that owns an in-process service.
#ifndef CLIENT_LOCAL_CLIENT_H_
#define CLIENT_LOCAL_CLIENT_H_

#include <memory>

#include "client/client.h"

namespace xla {

class LocalClient : public Client {
 public:
  explicit LocalClient(std::unique_ptr<ServiceInterface> service)
      : Client(service.get()), owned_service_(std::move(service)) {}

 private:
  std::unique_ptr<ServiceInterface> owned_service_;
};

}  // namespace xla

#endif  // CLIENT_LOCAL_CLIENT_H_
