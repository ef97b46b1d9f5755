// StableHLO types -> HLO shapes. A `!quant.uniform` type is its storage
// type (the parser resolved it; quant_lowering.cc keeps the parameters).
// Element types HLO lacks (tf32, other dialect types) are rejected with an
// error naming the type, never dropped or widened.
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
