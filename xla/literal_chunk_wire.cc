#include "xla/literal_chunk_wire.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

// Field 2 (`data`), wire type 2 (length-delimited).
constexpr uint32_t kDataTag = (LiteralChunk::kDataFieldNumber << 3) | 2;
// The tag and a 64-bit varint length.
constexpr int kMaxHeaderBytes = 11;

struct SliceOwner {
  std::shared_ptr<const void> owner;
};
void ReleaseSliceOwner(void* owner) { delete static_cast<SliceOwner*>(owner); }

// The length of a data-only chunk, and its header's size, when `header`
// (the chunk's first bytes) starts one.
bool DecodeDataHeader(const uint8_t* header, int size, uint64_t* length, int* header_bytes) {
  google::protobuf::io::CodedInputStream in(header, size);
  if (in.ReadTag() != kDataTag || !in.ReadVarint64(length)) return false;
  *header_bytes = in.CurrentPosition();
  return true;
}

}  // namespace

grpc::ByteBuffer DataChunkReferencing(absl::string_view bytes, std::shared_ptr<const void> owner) {
  using google::protobuf::io::CodedOutputStream;
  uint8_t header[kMaxHeaderBytes];
  uint8_t* end = CodedOutputStream::WriteTagToArray(kDataTag, header);
  end = CodedOutputStream::WriteVarint64ToArray(bytes.size(), end);
  const int n = static_cast<int>(end - header);
  if (bytes.empty()) {
    grpc::Slice only(header, n);
    return grpc::ByteBuffer(&only, 1);
  }
  // gRPC only reads the bytes; its slice type has no const form.
  grpc::Slice slices[2] = {grpc::Slice(header, n),
                           grpc::Slice(const_cast<char*>(bytes.data()), bytes.size(), &ReleaseSliceOwner,
                                       new SliceOwner{std::move(owner)})};
  return grpc::ByteBuffer(slices, 2);
}

absl::StatusOr<bool> ReadChunk(const grpc::ByteBuffer& raw,
                               absl::FunctionRef<absl::Status(absl::string_view)> append, LiteralChunk* parsed) {
  std::vector<grpc::Slice> slices;
  if (!raw.Dump(&slices).ok()) return InvalidArgument("a transfer chunk could not be read (corrupt compression?)");
  // The header may in principle be split across slices.
  uint8_t header[kMaxHeaderBytes];
  int have = 0;
  for (const grpc::Slice& slice : slices) {
    const int take = std::min<int>(kMaxHeaderBytes - have, slice.size());
    std::copy_n(slice.begin(), take, header + have);
    have += take;
    if (have == kMaxHeaderBytes) break;
  }
  uint64_t length = 0;
  int header_bytes = 0;
  if (DecodeDataHeader(header, have, &length, &header_bytes) && length == raw.Length() - header_bytes) {
    uint64_t skip = header_bytes;
    for (const grpc::Slice& slice : slices) {
      const uint64_t size = slice.size();
      if (skip >= size) {
        skip -= size;
        continue;
      }
      RETURN_IF_ERROR(append(absl::string_view(reinterpret_cast<const char*>(slice.begin()) + skip, size - skip)));
      skip = 0;
    }
    return false;
  }
  if (!ParseFromByteBuffer(raw, parsed)) {
    return InvalidArgument("a transfer chunk (%d bytes) is not a valid xla.LiteralChunk", raw.Length());
  }
  return true;
}

}  // namespace xla
