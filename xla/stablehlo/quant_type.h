// Parsing MLIR's uniform quantized element type,
//   !quant.uniform<i8<-127:127>:f32:1, {0.1:-30, 0.5}>
// storage type i/u 2, 4, 8, 16 or 32 bits (optional narrowed <min:max>),
// expressed type f16/bf16/f32/f64, optional quantization axis, then one
// `scale[:zero_point]` or a `{...}` list of them (per axis).
#ifndef XLA_STABLEHLO_QUANT_TYPE_H_
#define XLA_STABLEHLO_QUANT_TYPE_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/stablehlo/ast.h"
#include "xla/stablehlo/lexer.h"

namespace xla {
namespace stablehlo {

// `text` is the whole `!quant...<...>` spelling, found at offset `loc` of
// the source; errors point into it.
absl::StatusOr<QuantizedType> ParseQuantizedType(absl::string_view text, size_t loc, const Lexer& lexer);

// Checks a quantized tensor type's axis and scale count against its
// dimensions (per-axis: dims[axis] scales).
absl::Status CheckQuantizedTensor(const Type& type, const Lexer& lexer);

}  // namespace stablehlo
}  // namespace xla

#endif  // XLA_STABLEHLO_QUANT_TYPE_H_
