#include "client/grpc_client.h"

#include "xla/status_macros.h"

namespace xla {
absl::StatusOr<std::unique_ptr<GrpcClient>> GrpcClient::Connect(const std::string& target,
                                                                const GrpcClientOptions& options) {
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (options.tls_root_certs.empty()) {
    credentials = grpc::InsecureChannelCredentials();
  } else {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = options.tls_root_certs;
    credentials = grpc::SslCredentials(ssl);
  }
  auto stub = std::make_unique<GrpcStub>(grpc::CreateChannel(target, credentials), options.auth_token,
                                         options.call_timeout);
  RETURN_IF_ERROR(stub->OpenSession(options.client_name));
  return absl::WrapUnique(new GrpcClient(std::move(stub)));
}

GrpcClient::~GrpcClient() { stub_->CloseSession().IgnoreError(); }

}  // namespace xla
