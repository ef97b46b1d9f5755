// StableHLO types -> HLO shapes. Element types HLO lacks (i2/i4, ui2/ui4,
// the f8/f6/f4 families, tf32, quantized types) are rejected with an error
// naming the missing PrimitiveType, never dropped or widened.
#ifndef XLA_STABLEHLO_TYPE_CONVERSION_H_
#define XLA_STABLEHLO_TYPE_CONVERSION_H_

#include "absl/status/statusor.h"
#include "xla/shape.h"
#include "xla/stablehlo/ast.h"
#include "xla/stablehlo/lexer.h"

namespace xla {
namespace stablehlo {

// tensor -> array shape, tuple -> tuple shape, token -> token shape; a bare
// element type -> a scalar shape. Errors are located at the type.
absl::StatusOr<Shape> TypeToShape(const Type& type, const Lexer& lexer);

}  // namespace stablehlo
}  // namespace xla

#endif  // XLA_STABLEHLO_TYPE_CONVERSION_H_
