#include "xla/stablehlo/type_conversion.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {

absl::StatusOr<Shape> TypeToShape(const Type& type, const Lexer& lexer) {
  switch (type.kind) {
    case Type::kToken:
      return ShapeUtil::MakeTokenShape();
    case Type::kTuple: {
      std::vector<Shape> elements;
      for (const Type& t : type.elements) {
        ASSIGN_OR_RETURN(Shape s, TypeToShape(t, lexer));
        elements.push_back(std::move(s));
      }
      return ShapeUtil::MakeTupleShape(elements);
    }
    case Type::kTensor:
    case Type::kElement:
      break;
  }
  if (type.element_type == PRIMITIVE_TYPE_INVALID) {
    std::string why = "HLO has no such element type";
    if (type.element == "tf32") {
      why = "tf32 (1 sign, 8 exponent and 10 mantissa bits in 19) is not an XLA element type";
    }
    return lexer.Error(type.loc, absl::StrCat("unsupported element type '", type.element, "' (", why, ")"));
  }
  for (int64_t d : type.dims) {
    if (d < 0) return lexer.Error(type.loc, "negative dimension size");
  }
  Shape shape = ShapeUtil::MakeShape(type.element_type, type.dims);
  absl::Status valid = ShapeUtil::ValidateShape(shape);
  if (!valid.ok()) return lexer.Error(type.loc, valid.message());
  return shape;
}

}  // namespace stablehlo
}  // namespace xla
