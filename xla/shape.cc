#include "xla/shape.h"

#include <ostream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_join.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {

std::string Layout::ToString() const {
  if (!has_padding()) return absl::StrCat("{", absl::StrJoin(minor_to_major_, ","), "}");
  const std::string value = absl::AsciiStrToLower(absl::StripSuffix(PaddingValue_Name(padding_value()), "_PAD"));
  return absl::StrCat("{", absl::StrJoin(minor_to_major_, ","), ":P[", absl::StrJoin(padded_dimensions_, ","), "]",
                      value, "}");
}

bool Shape::IsArray() const { return primitive_util::IsArrayType(element_type_); }

const Layout& Shape::layout() const {
  if (layout_.has_value()) return *layout_;
  // Row-major layouts for every rank that can be asked for; shared, immutable.
  static const auto* kDefaults = [] {
    auto* v = new std::vector<Layout>();
    for (int r = 0; r <= 64; ++r) v->push_back(ShapeUtil::DefaultLayout(r));
    return v;
  }();
  return (*kDefaults)[std::min<int>(rank(), 64)];
}

bool Shape::Compatible(const Shape& other) const {
  if (element_type_ != other.element_type_) return false;
  if (IsTuple()) {
    if (tuple_shapes_.size() != other.tuple_shapes_.size()) return false;
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (!tuple_shapes_[i].Compatible(other.tuple_shapes_[i])) return false;
    }
    return true;
  }
  return dimensions_ == other.dimensions_;
}

bool Shape::operator==(const Shape& other) const {
  if (!Compatible(other)) return false;
  if (IsTuple()) {
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (tuple_shapes_[i] != other.tuple_shapes_[i]) return false;
    }
    return true;
  }
  if (!IsArray()) return true;
  return layout() == other.layout();
}

std::string Shape::ToString(bool print_layout) const {
  if (IsTuple()) {
    std::vector<std::string> parts;
    for (const Shape& s : tuple_shapes_) parts.push_back(s.ToString(print_layout));
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  std::string out = absl::StrCat(primitive_util::LowercaseName(element_type_), "[",
                                 absl::StrJoin(dimensions_, ","), "]");
  if (print_layout && IsArray() && rank() > 0) absl::StrAppend(&out, layout().ToString());
  return out;
}

ShapeProto Shape::ToProto() const {
  ShapeProto proto;
  proto.set_element_type(element_type_);
  for (int64_t d : dimensions_) proto.add_dimensions(d);
  for (const Shape& s : tuple_shapes_) *proto.add_tuple_shapes() = s.ToProto();
  if (layout_.has_value()) {
    for (int64_t d : layout_->minor_to_major()) proto.mutable_layout()->add_minor_to_major(d);
    for (int64_t d : layout_->padded_dimensions()) proto.mutable_layout()->add_padded_dimensions(d);
    if (layout_->has_padding()) proto.mutable_layout()->set_padding_value(layout_->padding_value());
  }
  return proto;
}

std::string ProgramShape::ToString() const {
  std::vector<std::string> params;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    std::string name = i < parameter_names_.size() ? parameter_names_[i] : absl::StrCat("p", i);
    params.push_back(absl::StrCat(name, ": ", parameters_[i].ToString()));
  }
  return absl::StrCat("(", absl::StrJoin(params, ", "), ") -> ", result_.ToString());
}

ProgramShapeProto ProgramShape::ToProto() const {
  ProgramShapeProto proto;
  for (const Shape& s : parameters_) *proto.add_parameters() = s.ToProto();
  for (const std::string& n : parameter_names_) proto.add_parameter_names(n);
  *proto.mutable_result() = result_.ToProto();
  return proto;
}

std::ostream& operator<<(std::ostream& os, const Shape& shape) { return os << shape.ToString(true); }

}  // namespace xla
