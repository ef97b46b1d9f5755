#include "service/grpc_metadata.h"

#include "absl/strings/str_cat.h"

namespace xla {
namespace {

// Comparison whose time does not depend on where the strings differ.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

absl::StatusOr<std::string> Metadata(const grpc::ServerContextBase& context, absl::string_view key) {
  const auto& md = context.client_metadata();
  auto it = md.find(grpc::string_ref(key.data(), key.size()));
  if (it == md.end()) return absl::NotFoundError(absl::StrCat("missing metadata '", key, "'"));
  return std::string(it->second.data(), it->second.size());
}

absl::Status CheckAuthToken(const grpc::ServerContextBase& context, absl::string_view expected) {
  if (expected.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> token = Metadata(context, "xla-auth-token");
  if (!token.ok() || !ConstantTimeEquals(*token, expected)) {
    return absl::UnauthenticatedError("missing or wrong auth token (metadata 'xla-auth-token')");
  }
  return absl::OkStatus();
}

}  // namespace xla
