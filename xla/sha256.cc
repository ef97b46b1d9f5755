#include "xla/sha256.h"

#include <openssl/evp.h>

namespace xla {

std::string Sha256(std::initializer_list<absl::string_view> pieces) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  for (absl::string_view piece : pieces) EVP_DigestUpdate(ctx, piece.data(), piece.size());
  EVP_DigestFinal_ex(ctx, digest, &size);
  EVP_MD_CTX_free(ctx);
  return std::string(reinterpret_cast<char*>(digest), size);
}

}  // namespace xla
