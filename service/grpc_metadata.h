// What the daemon's gRPC services read from a call's metadata: a value by
// key, and the auth-token check (metadata "xla-auth-token") shared by the
// XlaService and the cluster coordinator.
#ifndef SERVICE_GRPC_METADATA_H_
#define SERVICE_GRPC_METADATA_H_

#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla {

// NOT_FOUND when the call has no such metadata.
absl::StatusOr<std::string> Metadata(const grpc::ServerContextBase& context, absl::string_view key);

// OK when `expected` is empty (no authentication) or the call carries it as
// "xla-auth-token" (compared in constant time); UNAUTHENTICATED otherwise.
absl::Status CheckAuthToken(const grpc::ServerContextBase& context, absl::string_view expected);

}  // namespace xla

#endif  // SERVICE_GRPC_METADATA_H_
