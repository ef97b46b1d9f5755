#include "xla/sha256.h"

#include <openssl/evp.h>

namespace xla {
namespace {

// Fetched once: OpenSSL 3 looks EVP_sha256() up in its provider tables, under
// locks, on every digest initialized with it.
const EVP_MD* Sha256Algorithm() {
  static const EVP_MD* const algorithm = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    return fetched != nullptr ? fetched : EVP_sha256();
  }();
  return algorithm;
}

}  // namespace

Sha256Hasher::Sha256Hasher() : context_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(context_, Sha256Algorithm(), nullptr); }

Sha256Hasher::~Sha256Hasher() { EVP_MD_CTX_free(context_); }

void Sha256Hasher::Update(absl::string_view piece) { EVP_DigestUpdate(context_, piece.data(), piece.size()); }

std::string Sha256Hasher::Finish() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_DigestFinal_ex(context_, digest, &size);
  return std::string(reinterpret_cast<char*>(digest), size);
}

std::string Sha256(std::initializer_list<absl::string_view> pieces) {
  Sha256Hasher hasher;
  for (absl::string_view piece : pieces) hasher.Update(piece);
  return hasher.Finish();
}

}  // namespace xla
