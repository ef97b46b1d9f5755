// SHA-256 (OpenSSL's libcrypto): the persistent cache's checksums and file
// names, and the program digests clients compile by.
#ifndef XLA_SHA256_H_
#define XLA_SHA256_H_

#include <initializer_list>
#include <string>

#include "absl/strings/string_view.h"

namespace xla {

// The 32-byte digest of the pieces, concatenated.
std::string Sha256(std::initializer_list<absl::string_view> pieces);

}  // namespace xla

#endif  // XLA_SHA256_H_
