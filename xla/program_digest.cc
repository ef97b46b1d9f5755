#include "xla/program_digest.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "xla/sha256.h"

namespace xla {

std::string DeterministicBytes(const google::protobuf::MessageLite& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&out);
  }
  return bytes;
}

std::string ProgramDigest(const HloModuleProto& module) {
  return Sha256({"HloModuleProto\n", DeterministicBytes(module)});
}

std::string HloTextDigest(absl::string_view hlo_text) { return Sha256({"hlo_text\n", hlo_text}); }

std::string StableHloTextDigest(absl::string_view stablehlo_text) {
  return Sha256({"stablehlo_text\n", stablehlo_text});
}

}  // namespace xla
