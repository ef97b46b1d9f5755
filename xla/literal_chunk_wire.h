// The streamed transfers' messages (LiteralChunk of proto/xla_service.proto)
// as raw gRPC byte buffers, so that array bytes move between the network and
// their home without a copy through a protobuf string:
//   - a sender's data chunk refers to the array's own memory (one slice for
//     the two-to-eleven-byte field header, one for the bytes);
//   - a receiver copies each received slice straight into the destination
//     array (LeafWriter), instead of parsing it into a message first.
// A chunk of any other encoding (a shape, unknown fields, the data field
// repeated: anything another client's protobuf library may write) is parsed
// as a LiteralChunk, so every valid message is still accepted.
#ifndef XLA_LITERAL_CHUNK_WIRE_H_
#define XLA_LITERAL_CHUNK_WIRE_H_

#include <memory>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "proto/xla_service.pb.h"

namespace xla {

// A LiteralChunk with only `data` set to `bytes`, which it refers to, not
// copies: `owner` is held until gRPC drops its last reference to them.
grpc::ByteBuffer DataChunkReferencing(absl::string_view bytes, std::shared_ptr<const void> owner);

// Any message (a chunk with a shape, a request, a response) to and from a
// raw buffer, for the paths that send raw messages.
template <typename Message>
absl::StatusOr<grpc::ByteBuffer> SerializeToByteBuffer(const Message& message) {
  grpc::ByteBuffer raw;
  bool own_buffer = false;
  grpc::Status status = grpc::SerializationTraits<Message>::Serialize(message, &raw, &own_buffer);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("serializing a ", Message::descriptor()->full_name(), ": ",
                                            status.error_message()));
  }
  return raw;
}
// False when `raw` is not a valid `Message` (malformed bytes, or a string
// field that is not UTF-8).
template <typename Message>
bool ParseFromByteBuffer(const grpc::ByteBuffer& raw, Message* message) {
  grpc::ByteBuffer body(raw);  // shares the slices
  grpc::ProtoBufferReader reader(&body);
  return reader.status().ok() && message->ParseFromZeroCopyStream(&reader);
}

// Reads a received chunk. A chunk that holds only data (what this project's
// senders write) passes its bytes to `append`, slice by slice, straight from
// the received buffer, and returns false. Any other valid encoding is parsed
// into *parsed and returns true: the caller takes its shape and data from
// there. InvalidArgument when the bytes are not a LiteralChunk; an error of
// `append` is returned as it is.
absl::StatusOr<bool> ReadChunk(const grpc::ByteBuffer& raw,
                               absl::FunctionRef<absl::Status(absl::string_view)> append, LiteralChunk* parsed);

}  // namespace xla

#endif  // XLA_LITERAL_CHUNK_WIRE_H_
