// dense<...> attributes -> Literals of a given array shape: splats, nested
// lists (checked against the shape), complex pairs, float bit patterns
// (0x7FC00000), and hex blobs of raw little-endian element bytes (a blob of
// exactly one element is a splat).
#ifndef XLA_STABLEHLO_DENSE_LITERAL_H_
#define XLA_STABLEHLO_DENSE_LITERAL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/literal.h"
#include "xla/shape.h"
#include "xla/stablehlo/ast.h"
#include "xla/stablehlo/lexer.h"

namespace xla {
namespace stablehlo {

// Literals larger than this are refused (a typo in a type must not make
// the importer allocate gigabytes).
inline constexpr int64_t kMaxConstantBytes = int64_t{1} << 30;

absl::StatusOr<Literal> DenseToLiteral(const DenseAttr& dense, const Shape& shape, size_t loc, const Lexer& lexer);

// One scalar number attribute (`1.5 : f64`, `3 : i64`) as int64 / double.
absl::StatusOr<int64_t> NumberToInt(const Attr& attr, const Lexer& lexer);
absl::StatusOr<double> NumberToDouble(const Attr& attr, const Lexer& lexer);

}  // namespace stablehlo
}  // namespace xla

#endif  // XLA_STABLEHLO_DENSE_LITERAL_H_
