// Literal: a host value of any Shape (array of any element type, or tuple of
// literals). Array data is dense, stored in the order of the shape's layout;
// a padded layout (the 2017 overview's padded_dimensions) stores the padded
// memory image, padding positions holding the padding value. Get/Set,
// Relayout, Convert, comparison, text and protos honor padding; the other
// transformations return unpadded literals.
// Literals cross every boundary: client <-> service, evaluator, tests.
#ifndef XLA_LITERAL_H_
#define XLA_LITERAL_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/xla_data.pb.h"
#include "xla/primitive_util.h"
#include "xla/shape.h"
#include "xla/shape_util.h"

namespace xla {

class Literal {
 public:
  // An empty tuple.
  Literal();
  // Zero-initialized literal of `shape` (tuples get zero elements recursively).
  // `shape` must be valid (ShapeUtil::ValidateShape).
  explicit Literal(const Shape& shape);

  Literal(const Literal&) = default;
  Literal(Literal&&) = default;
  Literal& operator=(const Literal&) = default;
  Literal& operator=(Literal&&) = default;

  const Shape& shape() const { return shape_; }
  PrimitiveType element_type() const { return shape_.element_type(); }
  int64_t element_count() const { return ShapeUtil::ElementsIn(shape_); }

  // --- Array access -------------------------------------------------------
  template <typename T> absl::Span<const T> data() const {
    return absl::Span<const T>(reinterpret_cast<const T*>(bytes_.data()), bytes_.size() / sizeof(T));
  }
  template <typename T> absl::Span<T> data() {
    return absl::Span<T>(reinterpret_cast<T*>(bytes_.data()), bytes_.size() / sizeof(T));
  }
  const void* untyped_data() const { return bytes_.data(); }
  void* untyped_data() { return bytes_.data(); }
  int64_t size_bytes() const { return static_cast<int64_t>(bytes_.size()); }

  template <typename T> T Get(absl::Span<const int64_t> index) const {
    return data<T>()[ShapeUtil::LinearIndex(shape_, index)];
  }
  template <typename T> void Set(absl::Span<const int64_t> index, T value) {
    data<T>()[ShapeUtil::LinearIndex(shape_, index)] = value;
  }
  // Element at a linear position (in layout order) as double / int64 / bool;
  // complex values give their real part.
  double GetAsDouble(int64_t linear) const;
  int64_t GetAsInt64(int64_t linear) const;
  // The value of an integral (or pred) scalar literal.
  absl::StatusOr<int64_t> GetIntegralScalar() const;
  // Sets element `linear` from a double (integral types truncate).
  void SetFromDouble(int64_t linear, double value);
  // Copies one element from `src` at src_linear to this at dst_linear (same type).
  void CopyElementFrom(const Literal& src, int64_t src_linear, int64_t dst_linear);

  // --- Tuples ---------------------------------------------------------------
  const std::vector<Literal>& tuple_elements() const { return elements_; }
  std::vector<Literal>& tuple_elements() { return elements_; }
  // Splits a tuple literal into its elements (moves them out).
  std::vector<Literal> DecomposeTuple() &&;

  // --- Factories ------------------------------------------------------------
  template <typename T> static Literal CreateR0(T value) {
    Literal lit(ShapeUtil::MakeShape(primitive_util::NativeToPrimitiveType<T>(), {}));
    lit.data<T>()[0] = value;
    return lit;
  }
  template <typename T> static Literal CreateR1(absl::Span<const T> values) {
    Literal lit(ShapeUtil::MakeShape(primitive_util::NativeToPrimitiveType<T>(),
                                     {static_cast<int64_t>(values.size())}));
    std::copy(values.begin(), values.end(), lit.data<T>().begin());
    return lit;
  }
  template <typename T> static Literal CreateR1(std::initializer_list<T> values) {
    return CreateR1<T>(absl::Span<const T>(values.begin(), values.size()));
  }
  template <typename T>
  static Literal CreateR2(std::initializer_list<std::initializer_list<T>> rows) {
    int64_t n0 = rows.size(), n1 = n0 ? rows.begin()->size() : 0;
    Literal lit(ShapeUtil::MakeShape(primitive_util::NativeToPrimitiveType<T>(), {n0, n1}));
    int64_t i = 0;
    for (const auto& row : rows) {
      int64_t j = 0;
      for (const T& v : row) lit.Set<T>({i, j++}, v);
      ++i;
    }
    return lit;
  }
  template <typename T>
  static Literal CreateR3(std::initializer_list<std::initializer_list<std::initializer_list<T>>> v) {
    int64_t n0 = v.size(), n1 = n0 ? v.begin()->size() : 0;
    int64_t n2 = n1 ? v.begin()->begin()->size() : 0;
    Literal lit(ShapeUtil::MakeShape(primitive_util::NativeToPrimitiveType<T>(), {n0, n1, n2}));
    int64_t i = 0;
    for (const auto& plane : v) {
      int64_t j = 0;
      for (const auto& row : plane) {
        int64_t k = 0;
        for (const T& x : row) lit.Set<T>({i, j, k++}, x);
        ++j;
      }
      ++i;
    }
    return lit;
  }
  // Row-major `values` shaped as `dims`; values.size() must match.
  template <typename T>
  static absl::StatusOr<Literal> CreateFromVector(absl::Span<const int64_t> dims,
                                                  absl::Span<const T> values);
  static Literal MakeTuple(std::vector<Literal> elements);
  static Literal CreateToken();

  // Scalars of any array type.
  static Literal Zero(PrimitiveType type);
  static Literal One(PrimitiveType type);
  static Literal MinValue(PrimitiveType type);  // -inf for floats
  static Literal MaxValue(PrimitiveType type);  // +inf for floats

  // --- Transformations --------------------------------------------------------
  // Same elements in row-major order with new dimensions (element count must match).
  absl::StatusOr<Literal> Reshape(absl::Span<const int64_t> dimensions) const;
  // Element-wise conversion (XLA ConvertElementType semantics: float->int
  // saturates and NaN becomes 0; complex->real takes the real part).
  absl::StatusOr<Literal> Convert(PrimitiveType type) const;
  // Reinterprets the bits; equal widths keep the shape, other widths add or
  // remove a minor dimension as the operation-semantics document says. pred
  // is one bit (StableHLO's i1): pred[8] <-> u8[] packs element i as bit i;
  // the narrow types use their bit width (s4[2] <-> s8[], element 0 low).
  absl::StatusOr<Literal> BitcastConvert(const Shape& to) const;
  // Copy with the data in another layout (arrays; tuples recurse with `layout`
  // applied to arrays of matching rank).
  Literal Relayout(const Layout& layout) const;
  Literal RelayoutTo(const Shape& shape_with_layout) const;  // whole shape incl. tuples
  // Broadcast a scalar literal to `shape` (element type taken from this).
  static absl::StatusOr<Literal> BroadcastScalar(const Literal& scalar, const Shape& shape);

  // --- Comparison and text --------------------------------------------------
  // Same shape (layouts ignored) and the same values; NaN equals NaN.
  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }

  // "f32[2,2] {{1, 2}, {3, 4}}"; tuples "(f32[] 1, s32[2] {1, 2})".
  std::string ToString() const;
  // Only the value part: "{{1, 2}, {3, 4}}".
  std::string ToStringWithoutShape() const;

  LiteralProto ToProto() const;
  // Validates the shape and that the data size matches it.
  static absl::StatusOr<Literal> FromProto(const LiteralProto& proto);

  // Parses "f32[2] {1, 2}" (shape then value) and tuples.
  static absl::StatusOr<Literal> Parse(absl::string_view text);
  // Parses only a value part for a known shape: "{1, 2}", "42", "(1, 2)".
  static absl::StatusOr<Literal> ParseValue(absl::string_view text, const Shape& shape);

 private:
  // Writes the layout's padding value at the padding positions.
  void FillPadding();
  // BitcastConvert where a side is narrower than a byte (pred, S2/S4/U2/U4,
  // F4/F6): bit by bit.
  absl::StatusOr<Literal> BitcastConvertBits(const Shape& to) const;

  Shape shape_;
  std::vector<uint8_t> bytes_;    // arrays
  std::vector<Literal> elements_;  // tuples
};

template <typename T>
absl::StatusOr<Literal> Literal::CreateFromVector(absl::Span<const int64_t> dims,
                                                  absl::Span<const T> values) {
  Shape shape = ShapeUtil::MakeShape(primitive_util::NativeToPrimitiveType<T>(), dims);
  absl::Status valid = ShapeUtil::ValidateShape(shape);
  if (!valid.ok()) return valid;
  if (ShapeUtil::ElementsIn(shape) != static_cast<int64_t>(values.size())) {
    return absl::InvalidArgumentError("CreateFromVector: value count does not match " +
                                      shape.ToString());
  }
  Literal lit(shape);
  std::copy(values.begin(), values.end(), lit.data<T>().begin());
  return lit;
}

std::ostream& operator<<(std::ostream& os, const Literal& literal);

}  // namespace xla

#endif  // XLA_LITERAL_H_
