// DeviceBuffer: a value held by the service on a device. Every backend here
// runs on the host, so device memory is host memory: 64-byte aligned bytes
// for arrays (in the shape's layout), shared element buffers for tuples (a
// tuple element handle is a view that shares ownership of the element).
// Immutable once created, so it can be shared between handles and threads.
#ifndef BACKENDS_DEVICE_BUFFER_H_
#define BACKENDS_DEVICE_BUFFER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/literal.h"
#include "xla/shape.h"

namespace xla {

class DeviceBuffer {
  // Only DeviceBuffer can name this: its factories make buffers with one
  // allocation for the buffer and its shared_ptr's count (make_shared).
  struct Key {
    explicit Key() = default;
  };

 public:
  // Allocates an array buffer of `shape` (contents uninitialized).
  static absl::StatusOr<std::shared_ptr<DeviceBuffer>> AllocateArray(const Shape& shape);
  static std::shared_ptr<DeviceBuffer> MakeTuple(const Shape& shape,
                                                 std::vector<std::shared_ptr<const DeviceBuffer>> elements);
  // Allocates a whole tree (tuples of arrays) for `shape`, contents uninitialized.
  static absl::StatusOr<std::shared_ptr<DeviceBuffer>> AllocateTree(const Shape& shape);
  // The same for a shape known to be valid, with layouts and without
  // padding (an executable's result, checked when it was compiled): no
  // checks on the run's path.
  static absl::StatusOr<std::shared_ptr<DeviceBuffer>> AllocateTreeOfCheckedShape(const Shape& shape);
  // Bytes of array data in a tree of `shape`.
  static int64_t ByteSizeOfTree(const Shape& shape);
  // Copies a literal into a new buffer tree.
  static absl::StatusOr<std::shared_ptr<DeviceBuffer>> FromLiteral(const Literal& literal);
  // An array from host memory the caller hands over (TransferInProcess):
  // aliased without a copy when `data` is 64-byte aligned and `shape`'s
  // layout is not padded (`owner` then stays alive, and the memory must not
  // change, as long as the buffer does), else copied once into a dense
  // buffer. `data` holds ShapeUtil::ByteSizeOfStorage(shape) bytes.
  static absl::StatusOr<std::shared_ptr<DeviceBuffer>> FromHostArray(const Shape& shape, const void* data,
                                                                    std::shared_ptr<const void> owner,
                                                                    bool* aliased = nullptr);
  // Copies the buffer tree into a literal.
  Literal ToLiteral() const;

  // Public for make_shared; only the factories can make a Key.
  DeviceBuffer(Key, const Shape& shape) : shape_(shape) {}
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  const Shape& shape() const { return shape_; }
  const void* data() const { return data_; }
  void* mutable_data() { return data_; }
  int64_t size_bytes() const { return size_bytes_; }
  // False for a buffer over memory the host lent (FromHostArray's aliasing):
  // a run may not write into it even when donated.
  bool owns_memory() const { return host_owner_ == nullptr; }
  const std::vector<std::shared_ptr<const DeviceBuffer>>& elements() const { return elements_; }

  // Bytes of the whole tree, counting shared elements once per reference.
  int64_t TotalBytes() const;
  // Array leaves in depth-first order, writable: only for a tree this caller
  // just allocated and has not shared yet (chunked transfers fill it).
  std::vector<DeviceBuffer*> MutableLeaves();

 private:
  // AllocateArray after its checks.
  static absl::StatusOr<std::shared_ptr<DeviceBuffer>> AllocateCheckedArray(const Shape& shape);
  static std::shared_ptr<DeviceBuffer> Make(const Shape& shape) { return std::make_shared<DeviceBuffer>(Key(), shape); }
  Shape shape_;
  void* data_ = nullptr;
  // Set for an aliased host array: the caller's memory, not the pool's.
  std::shared_ptr<const void> host_owner_;
  int64_t size_bytes_ = 0;
  std::vector<std::shared_ptr<const DeviceBuffer>> elements_;
};

}  // namespace xla

#endif  // BACKENDS_DEVICE_BUFFER_H_
