// SHA-256 (OpenSSL's libcrypto): the persistent cache's checksums and file
// names, and the program digests clients compile by.
#ifndef XLA_SHA256_H_
#define XLA_SHA256_H_

#include <initializer_list>
#include <string>

#include "absl/strings/string_view.h"

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of this header

namespace xla {

// The 32-byte digest of the pieces, concatenated.
std::string Sha256(std::initializer_list<absl::string_view> pieces);

// The same, fed piece by piece (for input never held in one string).
class Sha256Hasher {
 public:
  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void Update(absl::string_view piece);
  // The digest of everything fed; the hasher is done after this.
  std::string Finish();

 private:
  ::evp_md_ctx_st* context_;
};

}  // namespace xla

#endif  // XLA_SHA256_H_
