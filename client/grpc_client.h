// GrpcClient: a Client whose service is a remote xla_service daemon. Opens a
// session on connect and closes it on destruction (the daemon frees the
// session's buffers). Literals move in chunks (see GrpcStub).
#ifndef CLIENT_GRPC_CLIENT_H_
#define CLIENT_GRPC_CLIENT_H_

#include <memory>
#include <string>

#include "client/client.h"
#include "client/grpc_stub.h"

namespace xla {

struct GrpcClientOptions {
  std::string auth_token;       // sent as metadata when non-empty
  std::string tls_root_certs;   // PEM; empty for an insecure channel
  std::string client_name = "xla-client";
  // Each call's deadline (zero: none). A call past it fails with
  // DEADLINE_EXCEEDED, and the daemon stops the run it started at the run's
  // next loop check, as it does when the call is cancelled.
  absl::Duration call_timeout = absl::ZeroDuration();
};

class GrpcClient : public Client {
 public:
  // `target` is "host:port".
  static absl::StatusOr<std::unique_ptr<GrpcClient>> Connect(const std::string& target,
                                                             const GrpcClientOptions& options = {});
  ~GrpcClient() override;

  // Ends the session now (later calls fail with NOT_FOUND / FAILED_PRECONDITION).
  absl::Status CloseSession() { return stub_->CloseSession(); }
  const std::string& session_id() const { return stub_->session_id(); }

 private:
  explicit GrpcClient(std::unique_ptr<GrpcStub> stub) : Client(stub.get()), stub_(std::move(stub)) {}
  std::unique_ptr<GrpcStub> stub_;
};

}  // namespace xla

#endif  // CLIENT_GRPC_CLIENT_H_
