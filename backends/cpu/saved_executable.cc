#include "backends/cpu/saved_executable.h"

#include <climits>
#include <cstdint>
#include <cstring>

#include "backends/host_memory_pool.h"
#include "llvm/Support/Endian.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {
namespace {

constexpr char kMagic[8] = {'X', 'L', 'A', 'C', 'P', 'U', '2', '\n'};
constexpr size_t kHeaderBytes = sizeof(kMagic) + 8;
// Where the code expects its constants (as ExternalConstants::Add copies them).
constexpr uint64_t kConstantAlignment = HostMemoryPool::kAlignment;

uint64_t RoundUp(uint64_t n) { return (n + kConstantAlignment - 1) / kConstantAlignment * kConstantAlignment; }

}  // namespace

absl::StatusOr<std::string> EncodeSavedExecutable(CpuExecutableProto proto,
                                                  absl::Span<const absl::string_view> constants) {
  if (static_cast<size_t>(proto.external_constants_size()) != constants.size()) {
    return InvalidArgument("CPU backend: %d constants for %d constant entries", constants.size(),
                           proto.external_constants_size());
  }
  // The offsets depend on the proto's size, which depends on the offsets'
  // varint sizes: the proto is laid out with the largest offsets first
  // (fixed below), so the data starts after any size the proto may take.
  uint64_t data_bytes = 0;
  for (absl::string_view c : constants) data_bytes += RoundUp(c.size());
  for (int i = 0; i < proto.external_constants_size(); ++i) {
    proto.mutable_external_constants(i)->set_offset(INT64_MAX);
    proto.mutable_external_constants(i)->set_size(static_cast<int64_t>(constants[i].size()));
  }
  const uint64_t start = RoundUp(kHeaderBytes + proto.ByteSizeLong());
  uint64_t offset = start;
  for (int i = 0; i < proto.external_constants_size(); ++i) {
    proto.mutable_external_constants(i)->set_offset(static_cast<int64_t>(offset));
    offset += RoundUp(constants[i].size());
  }
  const std::string serialized = proto.SerializeAsString();  // no larger than with INT64_MAX offsets
  std::string bytes(kMagic, sizeof(kMagic));
  bytes.resize(kHeaderBytes);
  llvm::support::endian::write64le(bytes.data() + sizeof(kMagic), serialized.size());
  bytes += serialized;
  bytes.resize(start + data_bytes, '\0');
  for (int i = 0; i < proto.external_constants_size(); ++i) {
    std::memcpy(bytes.data() + proto.external_constants(i).offset(), constants[i].data(), constants[i].size());
  }
  return bytes;
}

absl::StatusOr<DecodedSavedExecutable> DecodeSavedExecutable(absl::string_view bytes) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return InvalidArgument("CPU backend: not a saved executable (or one of another format)");
  }
  const uint64_t proto_bytes = llvm::support::endian::read64le(bytes.data() + sizeof(kMagic));
  DecodedSavedExecutable decoded;
  if (proto_bytes > bytes.size() - kHeaderBytes || proto_bytes > INT_MAX ||
      !decoded.proto.ParseFromArray(bytes.data() + kHeaderBytes, static_cast<int>(proto_bytes))) {
    return InvalidArgument("CPU backend: a saved executable that does not parse");
  }
  const uint64_t data_start = kHeaderBytes + proto_bytes;
  for (const CpuExternalConstantProto& constant : decoded.proto.external_constants()) {
    const uint64_t offset = static_cast<uint64_t>(constant.offset());
    const uint64_t size = static_cast<uint64_t>(constant.size());
    if (constant.offset() < 0 || constant.size() < 0 || offset % kConstantAlignment != 0 || offset < data_start ||
        offset > bytes.size() || size > bytes.size() - offset) {
      return InvalidArgument("CPU backend: the saved executable's constant %s lies outside it", constant.symbol());
    }
    decoded.constants.push_back(bytes.substr(offset, size));
  }
  return decoded;
}

}  // namespace cpu
}  // namespace xla
