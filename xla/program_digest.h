// The digest a program is compiled by: SHA-256 over its deterministic
// serialization (or its text), tagged with its form. A serialization of
// more than 1 MiB is hashed as a tree, on two threads: SHA-256 over the
// SHA-256 digests of its 1 MiB blocks (program_digest.cc). The service computes it
// for every program it compiles and returns it (CompileResponse.
// program_digest); a client may then compile the same program again by
// sending only the digest (CompileRequest.program_digest), which skips the
// upload, the parse, the verifier and the canonical fingerprint. The client
// library memoizes it per XlaComputation with this same function.
#ifndef XLA_PROGRAM_DIGEST_H_
#define XLA_PROGRAM_DIGEST_H_

#include <string>

#include "absl/strings/string_view.h"
#include "proto/hlo.pb.h"

namespace xla {

constexpr size_t kProgramDigestBytes = 32;

std::string ProgramDigest(const HloModuleProto& module);
std::string HloTextDigest(absl::string_view hlo_text);
std::string StableHloTextDigest(absl::string_view stablehlo_text);

// The bytes of `message` in protobuf's deterministic serialization (map
// entries sorted), so equal messages give equal bytes in one build.
std::string DeterministicBytes(const google::protobuf::MessageLite& message);

}  // namespace xla

#endif  // XLA_PROGRAM_DIGEST_H_
