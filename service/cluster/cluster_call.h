// How a daemon calls its cluster's coordinator: every call carries the
// daemons' auth token and a deadline, and a failed call becomes a status
// that says what was being done.
#ifndef SERVICE_CLUSTER_CLUSTER_CALL_H_
#define SERVICE_CLUSTER_CLUSTER_CALL_H_

#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace xla {

inline void PrepareClusterCall(grpc::ClientContext* context, const std::string& auth_token, absl::Duration timeout) {
  if (!auth_token.empty()) context->AddMetadata("xla-auth-token", auth_token);
  context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
}

// "what: CODE: message", with the call's code (absl and gRPC share them).
inline absl::Status ClusterCallStatus(const grpc::Status& status, absl::string_view what) {
  if (status.ok()) return absl::OkStatus();
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  return absl::Status(code, absl::StrCat(what, ": ", absl::StatusCodeToString(code), ": ", status.error_message()));
}

}  // namespace xla

#endif  // SERVICE_CLUSTER_CLUSTER_CALL_H_
