// Chunked transfer of array data: a value is a sequence of array leaves (a
// tuple's arrays in depth-first order), each a dense byte range in its
// layout. The sender cuts the concatenated bytes into chunks of any size; the
// receiver appends chunks into the preallocated leaves. Used by the gRPC
// client and server so literals of any size fit gRPC's message limit.
#ifndef XLA_CHUNKED_TRANSFER_H_
#define XLA_CHUNKED_TRANSFER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/literal.h"

namespace xla {

struct LeafBytes {
  uint8_t* data;
  int64_t size;
  bool is_pred;  // bytes must be 0 or 1
};

// Array leaves of a literal (writable), in depth-first order.
std::vector<LeafBytes> LiteralLeaves(Literal& literal);

// Appends incoming bytes to the leaves in order.
class LeafWriter {
 public:
  explicit LeafWriter(std::vector<LeafBytes> leaves);
  // InvalidArgument if more bytes arrive than the leaves hold, or a PRED
  // byte is not 0/1.
  absl::Status Append(absl::string_view bytes);
  // InvalidArgument unless every leaf byte was written.
  absl::Status Finish() const;
  int64_t bytes_written() const { return written_; }

 private:
  std::vector<LeafBytes> leaves_;
  size_t leaf_ = 0;
  int64_t offset_ = 0;  // within the current leaf
  int64_t written_ = 0;
  int64_t total_ = 0;
};

// Calls `emit` with consecutive pieces of at most `chunk_bytes` covering all
// leaves; stops at the first error.
absl::Status ForEachChunk(absl::Span<const LeafBytes> leaves, int64_t chunk_bytes,
                          const std::function<absl::Status(absl::string_view)>& emit);

}  // namespace xla

#endif  // XLA_CHUNKED_TRANSFER_H_
