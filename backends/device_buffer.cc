#include "backends/device_buffer.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "backends/host_memory_pool.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {

absl::StatusOr<std::shared_ptr<DeviceBuffer>> DeviceBuffer::AllocateArray(const Shape& shape) {
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  if (!shape.IsArray() && !shape.IsToken()) return InvalidArgument("AllocateArray: %s is not an array", shape.ToString());
  RETURN_IF_ERROR(ShapeUtil::CheckNoPadding(shape, "a device buffer"));
  return AllocateCheckedArray(shape);
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> DeviceBuffer::AllocateCheckedArray(const Shape& shape) {
  auto buffer = Make(shape);
  buffer->size_bytes_ = ShapeUtil::ByteSizeOfElements(shape);
  buffer->data_ = HostMemoryPool::Global().Allocate(std::max<int64_t>(buffer->size_bytes_, 1));
  if (buffer->data_ == nullptr) {
    return ResourceExhausted("could not allocate %d bytes for %s", buffer->size_bytes_, shape.ToString());
  }
  return buffer;
}

std::shared_ptr<DeviceBuffer> DeviceBuffer::MakeTuple(const Shape& shape,
                                                      std::vector<std::shared_ptr<const DeviceBuffer>> elements) {
  auto buffer = Make(shape);
  buffer->elements_ = std::move(elements);
  return buffer;
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> DeviceBuffer::AllocateTree(const Shape& shape) {
  if (!shape.IsTuple()) {
    return AllocateArray(shape.IsArray() && !shape.has_layout() ? ShapeUtil::WithDefaultLayout(shape) : shape);
  }
  std::vector<std::shared_ptr<const DeviceBuffer>> elements;
  for (const Shape& s : shape.tuple_shapes()) {
    ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> e, AllocateTree(s));
    elements.push_back(std::move(e));
  }
  return MakeTuple(shape, std::move(elements));
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> DeviceBuffer::AllocateTreeOfCheckedShape(const Shape& shape) {
  if (!shape.IsTuple()) {
    if (shape.IsArray() && !shape.has_layout()) return AllocateTree(shape);  // not the checked form after all
    return AllocateCheckedArray(shape);
  }
  std::vector<std::shared_ptr<const DeviceBuffer>> elements;
  elements.reserve(shape.tuple_shapes().size());
  for (const Shape& s : shape.tuple_shapes()) {
    ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> e, AllocateTreeOfCheckedShape(s));
    elements.push_back(std::move(e));
  }
  return MakeTuple(shape, std::move(elements));
}

int64_t DeviceBuffer::ByteSizeOfTree(const Shape& shape) {
  if (!shape.IsTuple()) return ShapeUtil::ByteSizeOfElements(shape);
  int64_t total = 0;
  for (const Shape& s : shape.tuple_shapes()) total += ByteSizeOfTree(s);
  return total;
}

std::vector<DeviceBuffer*> DeviceBuffer::MutableLeaves() {
  if (!shape_.IsTuple()) return {this};
  std::vector<DeviceBuffer*> leaves;
  for (const auto& e : elements_) {
    for (DeviceBuffer* leaf : const_cast<DeviceBuffer*>(e.get())->MutableLeaves()) leaves.push_back(leaf);
  }
  return leaves;
}

DeviceBuffer::~DeviceBuffer() {
  if (host_owner_ == nullptr) HostMemoryPool::Global().Free(data_, std::max<int64_t>(size_bytes_, 1));
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> DeviceBuffer::FromHostArray(const Shape& shape, const void* data,
                                                                         std::shared_ptr<const void> owner,
                                                                         bool* aliased) {
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  if (!shape.IsArray()) return InvalidArgument("FromHostArray: %s is not an array", shape.ToString());
  const Shape with_layout = shape.has_layout() ? shape : ShapeUtil::WithDefaultLayout(shape);
  const int64_t bytes = ShapeUtil::ByteSizeOfStorage(with_layout);
  if (data == nullptr && bytes > 0) return InvalidArgument("FromHostArray: no data for %s", shape.ToString());
  const bool can_alias = !with_layout.layout().has_padding() &&
                         reinterpret_cast<uintptr_t>(data) % HostMemoryPool::kAlignment == 0 && bytes > 0;
  if (aliased != nullptr) *aliased = can_alias;
  if (can_alias) {
    auto buffer = Make(with_layout);
    buffer->size_bytes_ = bytes;
    buffer->data_ = const_cast<void*>(data);  // never written: device buffers are immutable once made
    buffer->host_owner_ = owner != nullptr ? std::move(owner) : std::shared_ptr<const void>(data, [](const void*) {});
    return buffer;
  }
  // One copy: straight into a dense buffer (dropping any padding on the way).
  const Shape dense = ShapeUtil::WithoutPadding(with_layout);
  ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> buffer, AllocateArray(dense));
  if (!with_layout.layout().has_padding()) {
    if (bytes > 0) std::memcpy(buffer->data_, data, bytes);
    return buffer;
  }
  const int w = primitive_util::ByteWidth(shape.element_type());
  const Shape order = ShapeUtil::MakeShape(shape.element_type(), shape.dimensions());
  std::vector<int64_t> index(shape.rank());
  const auto* src = static_cast<const uint8_t*>(data);
  auto* dst = static_cast<uint8_t*>(buffer->data_);
  for (int64_t i = 0; i < ShapeUtil::ElementsIn(shape); ++i) {
    ShapeUtil::MultiIndex(order, i, absl::MakeSpan(index));
    std::memcpy(dst + ShapeUtil::LinearIndex(dense, index) * w, src + ShapeUtil::LinearIndex(with_layout, index) * w,
                w);
  }
  return buffer;
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> DeviceBuffer::FromLiteral(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    std::vector<std::shared_ptr<const DeviceBuffer>> elements;
    for (const Literal& e : literal.tuple_elements()) {
      ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> eb, FromLiteral(e));
      elements.push_back(std::move(eb));
    }
    return MakeTuple(shape, std::move(elements));
  }
  // Device buffers are dense: a padded host literal loses its padding here.
  if (shape.IsArray() && shape.has_layout() && shape.layout().has_padding()) {
    return FromLiteral(literal.Relayout(shape.layout().WithoutPadding()));
  }
  Shape with_layout = shape.has_layout() ? shape : ShapeUtil::WithDefaultLayout(shape);
  ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> buffer, AllocateArray(with_layout));
  if (literal.size_bytes() > 0) std::memcpy(buffer->data_, literal.untyped_data(), literal.size_bytes());
  return buffer;
}

Literal DeviceBuffer::ToLiteral() const {
  if (shape_.IsTuple()) {
    std::vector<Literal> elements;
    for (const auto& e : elements_) elements.push_back(e->ToLiteral());
    return Literal::MakeTuple(std::move(elements));
  }
  Literal literal(shape_);
  if (size_bytes_ > 0) std::memcpy(literal.untyped_data(), data_, size_bytes_);
  return literal;
}

int64_t DeviceBuffer::TotalBytes() const {
  int64_t total = size_bytes_;
  for (const auto& e : elements_) total += e->TotalBytes();
  return total;
}

}  // namespace xla
