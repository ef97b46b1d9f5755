#include "xla/program_digest.h"

#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "xla/sha256.h"

namespace xla {
namespace {

// Serialized bytes go through a small buffer into the hash: a module with
// megabytes of constants is never copied whole (as its serialization into
// one string would be, growing and page-faulting as it goes).
class HashingOutputStream : public google::protobuf::io::ZeroCopyOutputStream {
 public:
  explicit HashingOutputStream(Sha256Hasher* hasher) : hasher_(hasher), buffer_(kBufferBytes) {}

  bool Next(void** data, int* size) override {
    Flush();
    *data = buffer_.data();
    *size = static_cast<int>(buffer_.size());
    used_ = buffer_.size();
    return true;
  }
  void BackUp(int count) override { used_ -= static_cast<size_t>(count); }
  int64_t ByteCount() const override { return static_cast<int64_t>(hashed_ + used_); }

  // Hashes what the last buffer holds.
  void Flush() {
    hasher_->Update(absl::string_view(buffer_.data(), used_));
    hashed_ += used_;
    used_ = 0;
  }

 private:
  static constexpr size_t kBufferBytes = 64 << 10;
  Sha256Hasher* hasher_;
  std::vector<char> buffer_;
  size_t used_ = 0;
  size_t hashed_ = 0;
};

}  // namespace

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
  // SHA-256 of the tag and DeterministicBytes(module), streamed.
  Sha256Hasher hasher;
  hasher.Update("HloModuleProto\n");
  HashingOutputStream stream(&hasher);
  {
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    module.SerializeToCodedStream(&out);
  }  // the coded stream gives back what it did not use
  stream.Flush();
  return hasher.Finish();
}

std::string HloTextDigest(absl::string_view hlo_text) { return Sha256({"hlo_text\n", hlo_text}); }

std::string StableHloTextDigest(absl::string_view stablehlo_text) {
  return Sha256({"stablehlo_text\n", stablehlo_text});
}

}  // namespace xla
