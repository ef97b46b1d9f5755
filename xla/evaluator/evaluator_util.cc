// Small helpers shared by the evaluator's op-family files.
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "xla/evaluator/evaluator_internal.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

namespace {
thread_local const std::atomic<uint8_t>* current_stop_flag = nullptr;
}  // namespace

bool StopRequested() {
  return current_stop_flag != nullptr && current_stop_flag->load(std::memory_order_relaxed) != 0;
}

ScopedStopFlag::ScopedStopFlag(const std::atomic<uint8_t>* flag) : previous_(current_stop_flag) {
  if (flag != nullptr) current_stop_flag = flag;
}

ScopedStopFlag::~ScopedStopFlag() { current_stop_flag = previous_; }


PrimitiveType AccumulationType(PrimitiveType result_type) {
  if (result_type == F16 || result_type == BF16 || primitive_util::IsSmallFloatType(result_type)) return F32;
  if (primitive_util::IsNarrowIntegralType(result_type)) {
    return primitive_util::IsSignedIntegralType(result_type) ? S32 : U32;
  }
  return result_type;
}

std::string InstrLabel(const HloInstruction& instruction) {
  return absl::StrCat(HloOpcodeString(instruction.opcode()), " '", instruction.name(), "'");
}

Shape RowMajorShape(const Shape& shape) {
  return ShapeUtil::MakeShape(shape.element_type(), shape.dimensions());
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= dims[d];
  }
  return strides;
}

absl::Status ExpectArray(const HloInstruction& instruction, const Shape& shape,
                         absl::string_view what) {
  if (!shape.IsArray()) {
    return InvalidArgument("HloEvaluator: %s: %s must be an array, got %s", InstrLabel(instruction),
                           what, shape.ToString());
  }
  return absl::OkStatus();
}

absl::Status ExpectSameDims(const HloInstruction& instruction, const Shape& operand,
                            const Shape& expected, absl::string_view what) {
  RETURN_IF_ERROR(ExpectArray(instruction, operand, what));
  if (!ShapeUtil::SameDimensions(operand, expected)) {
    return InvalidArgument("HloEvaluator: %s: %s has shape %s but %s is expected",
                           InstrLabel(instruction), what, operand.ToString(), expected.ToString());
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ReadIndexScalar(const HloInstruction& instruction, const Literal& scalar,
                                        absl::string_view what) {
  const Shape& s = scalar.shape();
  if (!s.IsArray() || s.rank() != 0 || !primitive_util::IsIntegralType(s.element_type())) {
    return InvalidArgument("HloEvaluator: %s: %s must be an integral scalar, got %s",
                           InstrLabel(instruction), what, s.ToString());
  }
  if (s.element_type() == U64) {
    uint64_t v = scalar.data<uint64_t>()[0];
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return std::numeric_limits<int64_t>::max();
    }
    return static_cast<int64_t>(v);
  }
  return scalar.GetAsInt64(0);
}

namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

template <typename E>
void StridedCopyTyped(const E* src, int64_t src_offset, absl::Span<const int64_t> src_strides, E* dst,
                      int64_t dst_offset, absl::Span<const int64_t> dst_strides,
                      absl::Span<const int64_t> dims) {
  const int rank = static_cast<int>(dims.size());
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  if (rank == 0) {
    dst[dst_offset] = src[src_offset];
    return;
  }
  // Innermost dimension is a tight loop; the outer ones advance an odometer.
  const int inner = rank - 1;
  const int64_t n = dims[inner], ss = src_strides[inner], ds = dst_strides[inner];
  std::vector<int64_t> index(rank, 0);
  int64_t s = src_offset, t = dst_offset;
  while (true) {
    const E* sp = src + s;
    E* dp = dst + t;
    if (ss == 1 && ds == 1) {
      std::memcpy(dp, sp, n * sizeof(E));
    } else {
      for (int64_t i = 0; i < n; ++i) dp[i * ds] = sp[i * ss];
    }
    int d = inner - 1;
    for (; d >= 0; --d) {
      s += src_strides[d];
      t += dst_strides[d];
      if (++index[d] < dims[d]) break;
      s -= src_strides[d] * dims[d];
      t -= dst_strides[d] * dims[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace

void StridedCopy(int width, const void* src, int64_t src_offset, absl::Span<const int64_t> src_strides,
                 void* dst, int64_t dst_offset, absl::Span<const int64_t> dst_strides,
                 absl::Span<const int64_t> dims) {
  switch (width) {
    case 1:
      return StridedCopyTyped(static_cast<const uint8_t*>(src), src_offset, src_strides,
                              static_cast<uint8_t*>(dst), dst_offset, dst_strides, dims);
    case 2:
      return StridedCopyTyped(static_cast<const uint16_t*>(src), src_offset, src_strides,
                              static_cast<uint16_t*>(dst), dst_offset, dst_strides, dims);
    case 4:
      return StridedCopyTyped(static_cast<const uint32_t*>(src), src_offset, src_strides,
                              static_cast<uint32_t*>(dst), dst_offset, dst_strides, dims);
    case 8:
      return StridedCopyTyped(static_cast<const uint64_t*>(src), src_offset, src_strides,
                              static_cast<uint64_t*>(dst), dst_offset, dst_strides, dims);
    case 16:
      return StridedCopyTyped(static_cast<const Bytes16*>(src), src_offset, src_strides,
                              static_cast<Bytes16*>(dst), dst_offset, dst_strides, dims);
    default:
      break;
  }
  std::abort();  // every array element type has one of the widths above
}

}  // namespace evaluator_internal
}  // namespace xla
