#include "xla/shape_util.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/primitive_util.h"
#include "xla/status_macros.h"

namespace xla {

Shape ShapeUtil::MakeShape(PrimitiveType type, absl::Span<const int64_t> dimensions) {
  return Shape(type, std::vector<int64_t>(dimensions.begin(), dimensions.end()));
}

Shape ShapeUtil::MakeShapeWithLayout(PrimitiveType type, absl::Span<const int64_t> dimensions,
                                     absl::Span<const int64_t> minor_to_major) {
  Shape s = MakeShape(type, dimensions);
  s.set_layout(Layout(std::vector<int64_t>(minor_to_major.begin(), minor_to_major.end())));
  return s;
}

Shape ShapeUtil::MakeTupleShape(std::vector<Shape> shapes) {
  Shape s(TUPLE, {});
  *s.mutable_tuple_shapes() = std::move(shapes);
  return s;
}

Shape ShapeUtil::MakeTokenShape() { return Shape(TOKEN, {}); }

Shape ShapeUtil::ChangeElementType(const Shape& shape, PrimitiveType type) {
  if (shape.IsTuple()) {
    std::vector<Shape> elems;
    for (const Shape& s : shape.tuple_shapes()) elems.push_back(ChangeElementType(s, type));
    return MakeTupleShape(std::move(elems));
  }
  Shape s = shape;
  s.set_element_type(type);
  return s;
}

bool ShapeUtil::IsEffectiveScalar(const Shape& shape) {
  return shape.IsArray() && ElementsIn(shape) == 1;
}

int64_t ShapeUtil::ElementsIn(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) n *= d;
  return n;
}

int64_t ShapeUtil::ByteSizeOfElements(const Shape& shape) {
  if (!shape.IsArray()) return 0;
  return ElementsIn(shape) * primitive_util::ByteWidth(shape.element_type());
}

int64_t ShapeUtil::StorageElementsIn(const Shape& shape) {
  if (!shape.IsArray() || !shape.has_layout() || !shape.layout().has_padding()) return ElementsIn(shape);
  int64_t n = 1;
  for (int64_t d : shape.layout().padded_dimensions()) n *= d;
  return n;
}

int64_t ShapeUtil::ByteSizeOfStorage(const Shape& shape) {
  if (!shape.IsArray()) return 0;
  return StorageElementsIn(shape) * primitive_util::ByteWidth(shape.element_type());
}

bool ShapeUtil::HasPadding(const Shape& shape) {
  if (shape.IsTuple()) {
    return std::any_of(shape.tuple_shapes().begin(), shape.tuple_shapes().end(),
                       [](const Shape& s) { return HasPadding(s); });
  }
  return shape.IsArray() && shape.has_layout() && shape.layout().has_padding();
}

Shape ShapeUtil::WithoutPadding(const Shape& shape) {
  Shape s = shape;
  if (s.IsTuple()) {
    for (Shape& e : *s.mutable_tuple_shapes()) e = WithoutPadding(e);
  } else if (HasPadding(s)) {
    s.set_layout(s.layout().WithoutPadding());
  }
  return s;
}

absl::Status ShapeUtil::CheckNoPadding(const Shape& shape, absl::string_view what) {
  if (!HasPadding(shape)) return absl::OkStatus();
  return InvalidArgument("%s: shape %s has a padded layout; padded layouts describe host memory in transfers "
                         "and literals only",
                         what, shape.ToString(true));
}

bool ShapeUtil::SameDimensions(const Shape& a, const Shape& b) { return a.dimensions() == b.dimensions(); }

bool ShapeUtil::SameLayouts(const Shape& a, const Shape& b) {
  if (a.IsTuple() != b.IsTuple()) return false;
  if (a.IsTuple()) {
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!SameLayouts(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  return !a.IsArray() || a.layout() == b.layout();
}

bool ShapeUtil::HasZeroElements(const Shape& shape) {
  return std::any_of(shape.dimensions().begin(), shape.dimensions().end(),
                     [](int64_t d) { return d == 0; });
}

Layout ShapeUtil::DefaultLayout(int rank) {
  std::vector<int64_t> m2m(rank);
  for (int i = 0; i < rank; ++i) m2m[i] = rank - 1 - i;
  return Layout(std::move(m2m));
}

Shape ShapeUtil::WithDefaultLayout(const Shape& shape) {
  Shape s = shape;
  if (s.IsTuple()) {
    for (Shape& e : *s.mutable_tuple_shapes()) e = WithDefaultLayout(e);
  } else if (s.IsArray()) {
    s.set_layout(DefaultLayout(s.rank()));
  }
  return s;
}

bool ShapeUtil::HasDefaultLayout(const Shape& shape) {
  if (shape.IsTuple()) {
    return std::all_of(shape.tuple_shapes().begin(), shape.tuple_shapes().end(),
                       [](const Shape& s) { return HasDefaultLayout(s); });
  }
  return !shape.IsArray() || shape.layout() == DefaultLayout(shape.rank());
}

int ShapeUtil::TupleNesting(const Shape& shape) {
  int below = 0;
  for (const Shape& s : shape.tuple_shapes()) below = std::max(below, TupleNesting(s));
  return shape.IsTuple() ? below + 1 : 0;
}

absl::Status ShapeUtil::ValidateShape(const Shape& shape) {
  if (shape.IsTuple()) {
    if (shape.rank() != 0) return InvalidArgument("tuple shape has dimensions: %s", shape.ToString());
    if (const int nesting = TupleNesting(shape); nesting > kMaxTupleNesting) {
      return InvalidArgument("tuple shape nests %d levels deep; the limit is %d", nesting, kMaxTupleNesting);
    }
    for (const Shape& s : shape.tuple_shapes()) RETURN_IF_ERROR(ValidateShape(s));
    return absl::OkStatus();
  }
  if (shape.IsToken()) {
    if (shape.rank() != 0) return InvalidArgument("token shape has dimensions");
    return absl::OkStatus();
  }
  if (!shape.IsArray()) {
    return InvalidArgument("shape has invalid element type %d", static_cast<int>(shape.element_type()));
  }
  if (!shape.tuple_shapes().empty()) return InvalidArgument("array shape has tuple elements");
  if (shape.rank() > 64) return InvalidArgument("shape rank %d exceeds 64", shape.rank());
  // Bound the total size so later byte arithmetic cannot overflow.
  const int64_t kMaxBytes = int64_t{1} << 62;
  int64_t bytes = primitive_util::ByteWidth(shape.element_type());
  for (int64_t d : shape.dimensions()) {
    if (d < 0) return InvalidArgument("shape %s has a negative dimension", shape.ToString());
    if (d > 0 && bytes > kMaxBytes / d) {
      return InvalidArgument("shape %s is too large (more than 2^62 bytes)", shape.ToString());
    }
    bytes = d == 0 ? 0 : bytes * d;
  }
  if (shape.has_layout()) {
    const auto& m2m = shape.layout().minor_to_major();
    if (static_cast<int>(m2m.size()) != shape.rank()) {
      return InvalidArgument("layout %s of shape %s does not have rank %d entries",
                             shape.layout().ToString(), shape.ToString(), shape.rank());
    }
    std::vector<bool> seen(shape.rank(), false);
    for (int64_t d : m2m) {
      if (d < 0 || d >= shape.rank() || seen[d]) {
        return InvalidArgument("layout %s of shape %s is not a permutation of the dimensions",
                               shape.layout().ToString(), shape.ToString());
      }
      seen[d] = true;
    }
    const Layout& layout = shape.layout();
    if (layout.has_padding()) {
      if (static_cast<int>(layout.padded_dimensions().size()) != shape.rank()) {
        return InvalidArgument("layout %s of shape %s: padded_dimensions needs %d entries (one per dimension)",
                               layout.ToString(), shape.ToString(), shape.rank());
      }
      int64_t padded_bytes = primitive_util::ByteWidth(shape.element_type());
      for (int i = 0; i < shape.rank(); ++i) {
        const int64_t p = layout.padded_dimensions()[i];
        if (p < shape.dimensions(i)) {
          return InvalidArgument("layout %s of shape %s: dimension %d is padded to %d, less than its size %d",
                                 layout.ToString(), shape.ToString(), i, p, shape.dimensions(i));
        }
        if (p > 0 && padded_bytes > kMaxBytes / p) {
          return InvalidArgument("layout %s of shape %s: the padded array is too large (more than 2^62 bytes)",
                                 layout.ToString(), shape.ToString());
        }
        padded_bytes = p == 0 ? 0 : padded_bytes * p;
      }
      if (!PaddingValue_IsValid(layout.padding_value()) || layout.padding_value() == INVALID_PAD) {
        return InvalidArgument("layout of shape %s: invalid padding_value %d", shape.ToString(),
                               static_cast<int>(layout.padding_value()));
      }
    }
  }
  return absl::OkStatus();
}

namespace {

// Shape has no dynamic dimensions: a dynamic one would be misread as static
// with its bound as size, so it is refused. All-false entries (XLA writes one
// per dimension) are fine. This level only; callers recurse.
absl::Status CheckNoDynamicDimension(const ShapeProto& proto) {
  for (int i = 0; i < proto.is_dynamic_dimension_size(); ++i) {
    if (proto.is_dynamic_dimension(i)) {
      return InvalidArgument("shape proto %s[%s]: dimension %d is dynamic (is_dynamic_dimension is true); "
                             "dynamic shapes are not supported",
                             primitive_util::LowercaseName(proto.element_type()),
                             absl::StrJoin(proto.dimensions(), ","), i);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ShapeUtil::CheckStaticShapeProto(const ShapeProto& proto) {
  RETURN_IF_ERROR(CheckNoDynamicDimension(proto));
  for (const ShapeProto& e : proto.tuple_shapes()) RETURN_IF_ERROR(CheckStaticShapeProto(e));
  return absl::OkStatus();
}

absl::StatusOr<Shape> ShapeUtil::FromProto(const ShapeProto& proto) {
  RETURN_IF_ERROR(CheckNoDynamicDimension(proto));
  Shape shape(proto.element_type(), {proto.dimensions().begin(), proto.dimensions().end()});
  if (proto.element_type() == TUPLE) {
    for (const ShapeProto& e : proto.tuple_shapes()) {
      ASSIGN_OR_RETURN(Shape es, FromProto(e));
      shape.mutable_tuple_shapes()->push_back(std::move(es));
    }
  } else if (proto.tuple_shapes_size() > 0) {
    return InvalidArgument("non-tuple shape proto has tuple_shapes");
  }
  if (proto.has_layout() && primitive_util::IsArrayType(proto.element_type())) {
    const LayoutProto& layout = proto.layout();
    if (layout.padded_dimensions_size() == 0 && layout.padding_value() != INVALID_PAD) {
      return InvalidArgument("shape proto %s[%s]: padding_value %d without padded_dimensions",
                             primitive_util::LowercaseName(proto.element_type()),
                             absl::StrJoin(proto.dimensions(), ","), static_cast<int>(layout.padding_value()));
    }
    if (layout.minor_to_major_size() > 0 || proto.dimensions_size() == 0) {
      shape.set_layout(Layout({layout.minor_to_major().begin(), layout.minor_to_major().end()},
                              {layout.padded_dimensions().begin(), layout.padded_dimensions().end()},
                              layout.padding_value()));
    } else if (layout.padded_dimensions_size() > 0) {
      return InvalidArgument("shape proto %s[%s]: padded_dimensions without minor_to_major",
                             primitive_util::LowercaseName(proto.element_type()),
                             absl::StrJoin(proto.dimensions(), ","));
    }
  }
  RETURN_IF_ERROR(ValidateShape(shape));
  return shape;
}

absl::StatusOr<ProgramShape> ShapeUtil::ProgramShapeFromProto(const ProgramShapeProto& proto) {
  ProgramShape ps;
  for (const ShapeProto& p : proto.parameters()) {
    ASSIGN_OR_RETURN(Shape s, FromProto(p));
    ps.parameters().push_back(std::move(s));
  }
  for (const std::string& n : proto.parameter_names()) ps.parameter_names().push_back(n);
  ASSIGN_OR_RETURN(ps.result(), FromProto(proto.result()));
  return ps;
}

namespace {

// Recursive-descent parser over a shape string.
class ShapeParser {
 public:
  explicit ShapeParser(absl::string_view text) : text_(text) {}

  absl::StatusOr<Shape> ParseAll() {
    ASSIGN_OR_RETURN(Shape s, Parse());
    SkipSpace();
    if (pos_ != text_.size()) {
      return InvalidArgument("unexpected text after shape at offset %d in '%s'", pos_, text_);
    }
    return s;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) { ++pos_; return true; }
    return false;
  }
  absl::Status Error(absl::string_view what) {
    return InvalidArgument("bad shape '%s': %s at offset %d", text_, what, pos_);
  }
  absl::StatusOr<int64_t> ParseInt() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
    int64_t v;
    if (start == pos_ || !absl::SimpleAtoi(text_.substr(start, pos_ - start), &v)) {
      return Error("expected a number");
    }
    return v;
  }

  absl::StatusOr<Shape> Parse() {
    if (Consume('(')) {
      std::vector<Shape> elems;
      if (!Consume(')')) {
        do {
          ASSIGN_OR_RETURN(Shape e, Parse());
          elems.push_back(std::move(e));
        } while (Consume(','));
        if (!Consume(')')) return Error("expected ')'");
      }
      return ShapeUtil::MakeTupleShape(std::move(elems));
    }
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && absl::ascii_isalnum(text_[pos_])) ++pos_;
    ASSIGN_OR_RETURN(PrimitiveType type,
                     primitive_util::TypeFromLowercaseName(text_.substr(start, pos_ - start)));
    if (type == TUPLE || type == OPAQUE_TYPE) return Error("expected an element type");
    std::vector<int64_t> dims;
    if (!Consume('[')) {
      if (type == TOKEN) return ShapeUtil::MakeTokenShape();
      return Error("expected '['");
    }
    if (!Consume(']')) {
      do {
        // Dynamic dimensions ("<=5" bounded, "?" unbounded) are refused, never
        // read as static sizes: every shape here is static.
        SkipSpace();
        const size_t dim_start = pos_;
        if (Consume('?')) {
          return InvalidArgument("unbounded dynamic dimension '?' is not supported (dimension %d of '%s'); "
                                 "only static shapes are",
                                 dims.size(), text_);
        }
        if (Consume('<')) {
          Consume('=');
          SkipSpace();
          while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
          return InvalidArgument("bounded dynamic dimension '%s' is not supported (dimension %d of '%s'); "
                                 "only static shapes are",
                                 text_.substr(dim_start, pos_ - dim_start), dims.size(), text_);
        }
        ASSIGN_OR_RETURN(int64_t d, ParseInt());
        dims.push_back(d);
      } while (Consume(','));
      if (!Consume(']')) return Error("expected ']'");
    }
    Shape shape(type, std::move(dims));
    if (type == TOKEN) {
      if (shape.rank() != 0) return Error("token takes no dimensions");
      return shape;
    }
    size_t before_layout = pos_;
    if (Consume('{')) {
      std::vector<int64_t> m2m;
      SkipSpace();
      if (!Consume('}')) {
        do {
          ASSIGN_OR_RETURN(int64_t d, ParseInt());
          m2m.push_back(d);
        } while (Consume(','));
        // Tiling and memory-space suffixes (":T(8,128)") are accepted and dropped.
        if (Consume(':')) {
          int depth = 0;
          while (pos_ < text_.size() && !(depth == 0 && text_[pos_] == '}')) {
            if (text_[pos_] == '(') ++depth;
            if (text_[pos_] == ')') --depth;
            ++pos_;
          }
        }
        if (!Consume('}')) { pos_ = before_layout; return Error("expected '}' after layout"); }
      }
      shape.set_layout(Layout(std::move(m2m)));
    }
    RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
    return shape;
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<Shape> ShapeUtil::ParseShape(absl::string_view text) { return ShapeParser(text).ParseAll(); }

int64_t ShapeUtil::LinearIndex(const Shape& shape, absl::Span<const int64_t> index) {
  const Layout& layout = shape.layout();
  const auto& extents = layout.has_padding() ? layout.padded_dimensions() : shape.dimensions();
  int64_t linear = 0, stride = 1;
  for (int64_t dim : layout.minor_to_major()) {
    linear += index[dim] * stride;
    stride *= extents[dim];
  }
  return linear;
}

void ShapeUtil::MultiIndex(const Shape& shape, int64_t linear, absl::Span<int64_t> index) {
  const Layout& layout = shape.layout();
  const auto& extents = layout.has_padding() ? layout.padded_dimensions() : shape.dimensions();
  for (int64_t dim : layout.minor_to_major()) {
    int64_t size = extents[dim];
    index[dim] = size == 0 ? 0 : linear % size;
    linear = size == 0 ? 0 : linear / size;
  }
}

absl::StatusOr<const Shape*> ShapeUtil::TryGetSubshape(const Shape& shape,
                                                      absl::Span<const int64_t> index) {
  const Shape* s = &shape;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_shapes_size()) {
      return InvalidArgument("invalid tuple index %d into shape %s", i, s->ToString());
    }
    s = &s->tuple_shapes(i);
  }
  return s;
}

}  // namespace xla
