// Construction, validation, parsing and arithmetic on Shapes.
#ifndef XLA_SHAPE_UTIL_H_
#define XLA_SHAPE_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/shape.h"

namespace xla {

class ShapeUtil {
 public:
  static Shape MakeShape(PrimitiveType type, absl::Span<const int64_t> dimensions);
  static Shape MakeShapeWithLayout(PrimitiveType type, absl::Span<const int64_t> dimensions,
                                   absl::Span<const int64_t> minor_to_major);
  static Shape MakeScalarShape(PrimitiveType type) { return MakeShape(type, {}); }
  static Shape MakeTupleShape(std::vector<Shape> shapes);
  static Shape MakeTokenShape();
  // Same dimensions with another element type (arrays only; tuples recurse).
  static Shape ChangeElementType(const Shape& shape, PrimitiveType type);

  static bool IsScalar(const Shape& shape) { return shape.IsArray() && shape.rank() == 0; }
  static bool IsEffectiveScalar(const Shape& shape);  // array with one element
  static int64_t ElementsIn(const Shape& shape);  // arrays only
  // Bytes of the dense array data (0 for tuples and tokens).
  static int64_t ByteSizeOfElements(const Shape& shape);
  // Positions an array occupies in memory: ElementsIn, or the product of the
  // padded dimensions for a padded layout; and their bytes.
  static int64_t StorageElementsIn(const Shape& shape);
  static int64_t ByteSizeOfStorage(const Shape& shape);
  // Whether any array in `shape` has a padded layout; the shape without any.
  static bool HasPadding(const Shape& shape);
  static Shape WithoutPadding(const Shape& shape);
  // InvalidArgument naming `what` if `shape` has a padded layout anywhere
  // (computation shapes, device buffers).
  static absl::Status CheckNoPadding(const Shape& shape, absl::string_view what);
  static bool SameDimensions(const Shape& a, const Shape& b);
  static bool HasZeroElements(const Shape& shape);

  // Default row-major layout {rank-1, ..., 0}.
  static Layout DefaultLayout(int rank);
  // The shape with a row-major layout set on every array in it.
  static Shape WithDefaultLayout(const Shape& shape);
  static bool HasDefaultLayout(const Shape& shape);
  // Whether every array of `a` has the layout of the same array of `b`, for
  // shapes already known Compatible (then a == b exactly when this holds).
  static bool SameLayouts(const Shape& a, const Shape& b);

  // Checks element type, non-negative dimensions, a permutation layout, no
  // overflow of the element count (limit 2^62 bytes), recursively for tuples,
  // and tuple nesting of at most kMaxTupleNesting levels.
  static absl::Status ValidateShape(const Shape& shape);
  // How deep tuples may nest (a tuple of arrays is 1 level), the same bound
  // as the HLO text parser's. Every level's shape holds the levels below it,
  // so a module's size grows with the square of the depth, and code that
  // walks shapes recurses per level.
  static constexpr int kMaxTupleNesting = 64;
  // The levels of tuple nesting of `shape`: 0 for an array or token.
  static int TupleNesting(const Shape& shape);
  // Validated; dimensions marked dynamic (is_dynamic_dimension) are refused.
  static absl::StatusOr<Shape> FromProto(const ShapeProto& proto);
  // InvalidArgument if any dimension of `proto` or its tuple elements is
  // marked dynamic (for shape protos that are kept rather than converted).
  static absl::Status CheckStaticShapeProto(const ShapeProto& proto);
  static absl::StatusOr<ProgramShape> ProgramShapeFromProto(const ProgramShapeProto& proto);

  // Parses HLO spellings: "f32[2,3]", "f32[2,3]{1,0}", "(f32[], s32[2])",
  // "token[]", "pred[]", "f32[]". Trailing text is an error, and so are
  // dynamic dimensions ("<=4", "?").
  static absl::StatusOr<Shape> ParseShape(absl::string_view text);

  // Linear position (in the shape's layout, padding included) of a
  // multi-index, and back (a padding position gives an index beyond the
  // dimensions).
  static int64_t LinearIndex(const Shape& shape, absl::Span<const int64_t> index);
  static void MultiIndex(const Shape& shape, int64_t linear, absl::Span<int64_t> index);

  // Calls fn(index) for every index of `shape` in row-major order; stops and
  // returns the first error. For zero-element shapes calls nothing.
  template <typename Fn>
  static absl::Status ForEachIndex(const Shape& shape, Fn&& fn) {
    std::vector<int64_t> index(shape.rank(), 0);
    if (HasZeroElements(shape)) return absl::OkStatus();
    while (true) {
      absl::Status s = fn(absl::Span<const int64_t>(index));
      if (!s.ok()) return s;
      int d = shape.rank() - 1;
      for (; d >= 0; --d) {
        if (++index[d] < shape.dimensions(d)) break;
        index[d] = 0;
      }
      if (d < 0) return absl::OkStatus();
    }
  }

  // Sub-shape at a tuple index path.
  static absl::StatusOr<const Shape*> TryGetSubshape(const Shape& shape,
                                                    absl::Span<const int64_t> index);
};

}  // namespace xla

#endif  // XLA_SHAPE_UTIL_H_
