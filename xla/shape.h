// Shape: an element type with dimensions and an optional layout (for arrays),
// or a tuple of shapes. Value type; cheap enough to copy.
#ifndef XLA_SHAPE_H_
#define XLA_SHAPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "proto/xla_data.pb.h"

namespace xla {

// Minor-to-major dimension order of an array's elements in memory, and the
// 2017 overview's optional padding: each dimension may occupy a wider extent
// (padded_dimensions, in dimension order) whose extra positions hold
// padding_value. A padded layout describes host memory (literals and
// transfers); device buffers and computation shapes are never padded.
class Layout {
 public:
  Layout() = default;
  explicit Layout(std::vector<int64_t> minor_to_major) : minor_to_major_(std::move(minor_to_major)) {}
  Layout(std::vector<int64_t> minor_to_major, std::vector<int64_t> padded_dimensions, PaddingValue padding_value)
      : minor_to_major_(std::move(minor_to_major)),
        padded_dimensions_(std::move(padded_dimensions)),
        padding_value_(padding_value) {}
  const std::vector<int64_t>& minor_to_major() const { return minor_to_major_; }
  int64_t minor_to_major(int i) const { return minor_to_major_[i]; }

  bool has_padding() const { return !padded_dimensions_.empty(); }
  const std::vector<int64_t>& padded_dimensions() const { return padded_dimensions_; }
  // ZERO_PAD when a padded layout leaves it unset.
  PaddingValue padding_value() const {
    return padding_value_ == INVALID_PAD && has_padding() ? ZERO_PAD : padding_value_;
  }
  // The same order without padding.
  Layout WithoutPadding() const { return Layout(minor_to_major_); }

  bool operator==(const Layout& other) const {
    return minor_to_major_ == other.minor_to_major_ && padded_dimensions_ == other.padded_dimensions_ &&
           padding_value() == other.padding_value();
  }
  bool operator!=(const Layout& other) const { return !(*this == other); }
  std::string ToString() const;  // "{1,0}", padded "{0,1:P[3,5]zero}"

 private:
  std::vector<int64_t> minor_to_major_;
  std::vector<int64_t> padded_dimensions_;
  PaddingValue padding_value_ = INVALID_PAD;
};

class Shape {
 public:
  Shape() = default;
  Shape(PrimitiveType element_type, std::vector<int64_t> dimensions)
      : element_type_(element_type), dimensions_(std::move(dimensions)) {}

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType t) { element_type_ = t; }

  bool IsTuple() const { return element_type_ == TUPLE; }
  bool IsToken() const { return element_type_ == TOKEN; }
  bool IsArray() const;  // an element type other than TUPLE/TOKEN/invalid

  int rank() const { return static_cast<int>(dimensions_.size()); }
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int i) const { return dimensions_[i]; }
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }

  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  const Shape& tuple_shapes(int i) const { return tuple_shapes_[i]; }
  int tuple_shapes_size() const { return static_cast<int>(tuple_shapes_.size()); }
  std::vector<Shape>* mutable_tuple_shapes() { return &tuple_shapes_; }

  bool has_layout() const { return layout_.has_value(); }
  const Layout& layout() const;  // default (row-major) layout if none is set
  void set_layout(Layout layout) { layout_ = std::move(layout); }
  void clear_layout() { layout_.reset(); }

  // Equal element type and dimensions (and tuple elements); layouts ignored.
  bool Compatible(const Shape& other) const;
  // Compatible and the same layouts (an absent layout equals row-major).
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

  // "f32[2,3]" / "(f32[], s32[4])"; with layout "f32[2,3]{1,0}".
  std::string ToString(bool print_layout = false) const;

  ShapeProto ToProto() const;

 private:
  friend class ShapeUtil;
  PrimitiveType element_type_ = PRIMITIVE_TYPE_INVALID;
  std::vector<int64_t> dimensions_;
  std::vector<Shape> tuple_shapes_;
  std::optional<Layout> layout_;
};

// A computation's signature.
class ProgramShape {
 public:
  std::vector<Shape>& parameters() { return parameters_; }
  const std::vector<Shape>& parameters() const { return parameters_; }
  std::vector<std::string>& parameter_names() { return parameter_names_; }
  const std::vector<std::string>& parameter_names() const { return parameter_names_; }
  Shape& result() { return result_; }
  const Shape& result() const { return result_; }
  std::string ToString() const;  // "(x: f32[2], y: f32[2]) -> f32[2]"
  ProgramShapeProto ToProto() const;

 private:
  std::vector<Shape> parameters_;
  std::vector<std::string> parameter_names_;
  Shape result_;
};

std::ostream& operator<<(std::ostream& os, const Shape& shape);

}  // namespace xla

#endif  // XLA_SHAPE_H_
