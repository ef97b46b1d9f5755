#include "client/grpc_client.h"

#include "xla/status_macros.h"

namespace xla {
namespace {
// Values at most this large go in one message; larger ones are streamed.
constexpr int64_t kUnaryTransferLimit = 1 << 20;
}

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
  auto stub = std::make_unique<GrpcStub>(grpc::CreateChannel(target, credentials), options.auth_token);
  RETURN_IF_ERROR(stub->OpenSession(options.client_name));
  return absl::WrapUnique(new GrpcClient(std::move(stub)));
}

GrpcClient::~GrpcClient() { stub_->CloseSession().IgnoreError(); }

absl::StatusOr<std::unique_ptr<GlobalData>> GrpcClient::TransferToServer(const Literal& literal) {
  if (literal.shape().IsTuple() || literal.size_bytes() > kUnaryTransferLimit) {
    GlobalDataHandle handle;
    RETURN_IF_ERROR(stub_->TransferToServerStream(literal, &handle));
    return std::make_unique<GlobalData>(stub_.get(), handle);
  }
  return Client::TransferToServer(literal);
}

absl::StatusOr<Literal> GrpcClient::TransferToClient(const GlobalData& data, const Shape* shape_with_layout) {
  // The size is unknown until the server answers, so always stream.
  TransferToClientRequest request;
  *request.mutable_data() = data.handle();
  if (shape_with_layout != nullptr) *request.mutable_shape_with_layout() = shape_with_layout->ToProto();
  Literal literal;
  RETURN_IF_ERROR(stub_->TransferToClientStream(request, &literal));
  return literal;
}

}  // namespace xla
