#include "xla/chunked_transfer.h"

#include <algorithm>
#include <cstring>

#include "xla/status_macros.h"

namespace xla {

std::vector<LeafBytes> LiteralLeaves(Literal& literal) {
  std::vector<LeafBytes> leaves;
  if (literal.shape().IsTuple()) {
    for (Literal& e : literal.tuple_elements()) {
      for (const LeafBytes& l : LiteralLeaves(e)) leaves.push_back(l);
    }
  } else if (literal.shape().IsArray()) {
    leaves.push_back({static_cast<uint8_t*>(literal.untyped_data()), literal.size_bytes(),
                      literal.element_type() == PRED});
  }
  return leaves;
}

LeafWriter::LeafWriter(std::vector<LeafBytes> leaves) : leaves_(std::move(leaves)) {
  for (const LeafBytes& l : leaves_) total_ += l.size;
}

absl::Status LeafWriter::Append(absl::string_view bytes) {
  const uint8_t* src = reinterpret_cast<const uint8_t*>(bytes.data());
  int64_t remaining = bytes.size();
  if (remaining > total_ - written_) {
    return InvalidArgument("transfer carries more data than its shape holds (%d bytes expected)", total_);
  }
  while (remaining > 0) {
    while (leaf_ < leaves_.size() && offset_ == leaves_[leaf_].size) {
      ++leaf_;
      offset_ = 0;
    }
    LeafBytes& leaf = leaves_[leaf_];
    int64_t n = std::min(remaining, leaf.size - offset_);
    if (leaf.is_pred) {
      for (int64_t i = 0; i < n; ++i) {
        if (src[i] > 1) return InvalidArgument("pred element has byte value %d (must be 0 or 1)", src[i]);
      }
    }
    std::memcpy(leaf.data + offset_, src, n);
    offset_ += n;
    src += n;
    remaining -= n;
    written_ += n;
  }
  return absl::OkStatus();
}

absl::Status LeafWriter::Finish() const {
  if (written_ != total_) {
    return InvalidArgument("transfer ended after %d bytes but its shape holds %d", written_, total_);
  }
  return absl::OkStatus();
}

absl::Status ForEachChunk(absl::Span<const LeafBytes> leaves, int64_t chunk_bytes,
                          const std::function<absl::Status(absl::string_view)>& emit) {
  for (const LeafBytes& leaf : leaves) {
    for (int64_t offset = 0; offset < leaf.size; offset += chunk_bytes) {
      int64_t n = std::min(chunk_bytes, leaf.size - offset);
      RETURN_IF_ERROR(emit(absl::string_view(reinterpret_cast<const char*>(leaf.data) + offset, n)));
    }
  }
  return absl::OkStatus();
}

}  // namespace xla
