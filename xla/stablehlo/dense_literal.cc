#include "xla/stablehlo/dense_literal.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/types.h"

namespace xla {
namespace stablehlo {
namespace {

struct Context {
  const Lexer& lexer;
  PrimitiveType type;
};

bool IsHex(absl::string_view text) {
  absl::ConsumePrefix(&text, "-");
  absl::ConsumePrefix(&text, "+");
  return absl::StartsWith(text, "0x") || absl::StartsWith(text, "0X");
}

// A narrow integer's (S2 S4 U2 U4) byte from any byte holding its bits:
// the low bits, sign- or zero-extended as the literal keeps them.
uint8_t NarrowByte(PrimitiveType type, uint8_t byte) {
  const int bits = primitive_util::BitWidth(type);
  uint8_t low = byte & static_cast<uint8_t>((1u << bits) - 1);
  if (primitive_util::IsSignedIntegralType(type) && ((low >> (bits - 1)) & 1)) {
    low |= static_cast<uint8_t>(0xFFu << bits);
  }
  return low;
}

// An integer literal as a two's-complement 64-bit pattern with range checks
// for `type`.
absl::StatusOr<uint64_t> ParseIntegerBits(const DenseNode& node, PrimitiveType type, const Lexer& lexer) {
  absl::string_view t = node.text;
  const bool neg = absl::ConsumePrefix(&t, "-");
  if (!neg) absl::ConsumePrefix(&t, "+");
  uint64_t magnitude;
  bool ok;
  if (absl::StartsWith(t, "0x") || absl::StartsWith(t, "0X")) {
    ok = t.size() <= 18 && absl::SimpleHexAtoi(t.substr(2), &magnitude);
  } else {
    ok = absl::SimpleAtoi(t, &magnitude);
  }
  if (!ok) return lexer.Error(node.loc, absl::StrCat("'", node.text, "' is not an integer"));
  const int bits = primitive_util::BitWidth(type);
  const bool is_signed = primitive_util::IsSignedIntegralType(type);
  if (type == PRED) {
    if (neg || magnitude > 1) return lexer.Error(node.loc, absl::StrCat("'", node.text, "' is not a valid i1"));
    return magnitude;
  }
  const uint64_t max_unsigned = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  if (is_signed) {
    const uint64_t max_pos = max_unsigned >> 1;
    if ((!neg && magnitude > max_pos) || (neg && magnitude > max_pos + 1)) {
      // Hex spellings may give the unsigned bit pattern of a negative value.
      if (!(IsHex(node.text) && !neg && magnitude <= max_unsigned)) {
        return lexer.Error(node.loc, absl::StrCat("'", node.text, "' is out of range for ",
                                                  primitive_util::LowercaseName(type)));
      }
    }
  } else if (neg ? magnitude != 0 : magnitude > max_unsigned) {
    return lexer.Error(node.loc,
                       absl::StrCat("'", node.text, "' is out of range for ", primitive_util::LowercaseName(type)));
  }
  return neg ? ~magnitude + 1 : magnitude;
}

absl::StatusOr<double> ParseDecimal(const DenseNode& node, const Lexer& lexer) {
  absl::string_view t = node.text;
  bool neg = absl::ConsumePrefix(&t, "-");
  if (!neg) absl::ConsumePrefix(&t, "+");
  if (t == "inf") return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (t == "nan") return std::numeric_limits<double>::quiet_NaN();
  double v;
  if (!absl::SimpleAtod(node.text, &v)) return lexer.Error(node.loc, absl::StrCat("'", node.text, "' is not a number"));
  return v;
}

// Writes one real element of a float type at `dst` (ByteWidth(type) bytes).
absl::Status StoreFloat(const DenseNode& node, PrimitiveType type, uint8_t* dst, const Lexer& lexer) {
  if (node.kind == DenseNode::kBool) return lexer.Error(node.loc, "a boolean in a float literal");
  if (node.kind != DenseNode::kNumber) return lexer.Error(node.loc, "expected a number");
  const int bytes = primitive_util::ByteWidth(type);
  if (IsHex(node.text)) {
    if (absl::StartsWith(node.text, "-")) return lexer.Error(node.loc, "a float bit pattern cannot be negative");
    uint64_t bits;
    absl::string_view digits = absl::string_view(node.text).substr(2);
    const int bit_width = primitive_util::BitWidth(type);
    if (digits.size() > 16 || !absl::SimpleHexAtoi(digits, &bits) ||
        (bit_width < 64 && bits >> bit_width != 0)) {
      return lexer.Error(node.loc, absl::StrCat("bit pattern '", node.text, "' does not fit ",
                                                primitive_util::LowercaseName(type)));
    }
    std::memcpy(dst, &bits, bytes);  // little-endian host
    return absl::OkStatus();
  }
  switch (type) {
    case F64: {
      ASSIGN_OR_RETURN(double v, ParseDecimal(node, lexer));
      std::memcpy(dst, &v, 8);
      return absl::OkStatus();
    }
    case F32: {
      // strtof rounds the decimal once, straight to float.
      std::string text = node.text;
      float v = std::strtof(text.c_str(), nullptr);
      ASSIGN_OR_RETURN(double check, ParseDecimal(node, lexer));
      if (std::isnan(check)) v = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(dst, &v, 4);
      return absl::OkStatus();
    }
    default: {
      if (!primitive_util::IsFloatingPointType(type)) return lexer.Error(node.loc, "not a float type");
      // f16, bf16 and the small floats: through the literal's own f64
      // conversion (rounds once).
      ASSIGN_OR_RETURN(double v, ParseDecimal(node, lexer));
      ASSIGN_OR_RETURN(Literal narrow, Literal::CreateR0<double>(v).Convert(type));
      std::memcpy(dst, narrow.untyped_data(), bytes);
      return absl::OkStatus();
    }
  }
}

absl::Status StoreElement(const DenseNode& node, PrimitiveType type, uint8_t* dst, const Lexer& lexer) {
  const int bytes = primitive_util::ByteWidth(type);
  if (type == PRED) {
    if (node.kind == DenseNode::kBool) {
      *dst = node.value ? 1 : 0;
      return absl::OkStatus();
    }
    if (node.kind != DenseNode::kNumber) return lexer.Error(node.loc, "expected true or false");
    ASSIGN_OR_RETURN(uint64_t v, ParseIntegerBits(node, type, lexer));
    *dst = static_cast<uint8_t>(v);
    return absl::OkStatus();
  }
  if (primitive_util::IsIntegralType(type)) {
    if (node.kind != DenseNode::kNumber) return lexer.Error(node.loc, "expected an integer");
    if (node.text.find_first_of(".eE") != std::string::npos && !IsHex(node.text)) {
      return lexer.Error(node.loc, absl::StrCat("'", node.text, "' is not an integer"));
    }
    ASSIGN_OR_RETURN(uint64_t v, ParseIntegerBits(node, type, lexer));
    std::memcpy(dst, &v, bytes);
    if (primitive_util::IsNarrowIntegralType(type)) *dst = NarrowByte(type, *dst);
    return absl::OkStatus();
  }
  if (primitive_util::IsComplexType(type)) {
    PrimitiveType component = primitive_util::ComplexComponentType(type);
    const int half_bytes = bytes / 2;
    if (node.kind == DenseNode::kComplex && node.items.size() == 2) {
      RETURN_IF_ERROR(StoreFloat(node.items[0], component, dst, lexer));
      return StoreFloat(node.items[1], component, dst + half_bytes, lexer);
    }
    return lexer.Error(node.loc, "expected a complex element (re, im)");
  }
  return StoreFloat(node, type, dst, lexer);
}

// Checks that `node` is a nested list of exactly `dims` and appends its
// leaves in row-major order.
absl::Status Flatten(const DenseNode& node, absl::Span<const int64_t> dims, std::vector<const DenseNode*>* out,
                     const Lexer& lexer) {
  if (dims.empty()) {
    if (node.kind == DenseNode::kList) return lexer.Error(node.loc, "the literal has more nesting than the type");
    out->push_back(&node);
    return absl::OkStatus();
  }
  if (node.kind != DenseNode::kList) return lexer.Error(node.loc, "the literal has less nesting than the type");
  if (static_cast<int64_t>(node.items.size()) != dims[0]) {
    return lexer.Error(node.loc, absl::StrCat("the literal has ", node.items.size(), " elements where the type has ",
                                              dims[0]));
  }
  for (const DenseNode& item : node.items) RETURN_IF_ERROR(Flatten(item, dims.subspan(1), out, lexer));
  return absl::OkStatus();
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

absl::StatusOr<Literal> DenseToLiteral(const DenseAttr& dense, const Shape& shape, size_t loc, const Lexer& lexer) {
  if (!shape.IsArray()) return lexer.Error(loc, "a dense literal needs a tensor type");
  const PrimitiveType type = shape.element_type();
  const int64_t width = primitive_util::ByteWidth(type);
  const int64_t count = ShapeUtil::ElementsIn(shape);
  if (count * width > kMaxConstantBytes) {
    return lexer.Error(loc, absl::StrCat("constant of ", count * width, " bytes is larger than the ",
                                         kMaxConstantBytes, "-byte limit"));
  }
  Literal literal(shape);
  uint8_t* data = static_cast<uint8_t*>(literal.untyped_data());
  if (dense.empty) {
    if (count != 0) return lexer.Error(loc, absl::StrCat("dense<> is empty but ", shape.ToString(), " has ", count,
                                                         " elements"));
    return literal;
  }
  if (dense.is_blob) {
    if (dense.blob.size() % 2 != 0) return lexer.Error(loc, "the hex blob has an odd number of digits");
    const int64_t blob_bytes = static_cast<int64_t>(dense.blob.size() / 2);
    if (blob_bytes != count * width && !(blob_bytes == width && count > 0)) {
      return lexer.Error(loc, absl::StrCat("the hex blob has ", blob_bytes, " bytes but ", shape.ToString(), " needs ",
                                           count * width, " (or ", width, " for a splat)"));
    }
    std::vector<uint8_t> bytes(blob_bytes);
    for (int64_t i = 0; i < blob_bytes; ++i) {
      bytes[i] = static_cast<uint8_t>(HexValue(dense.blob[2 * i]) * 16 + HexValue(dense.blob[2 * i + 1]));
    }
    for (int64_t i = 0; i < count; ++i) {
      const uint8_t* src = blob_bytes == count * width ? bytes.data() + i * width : bytes.data();
      if (type == PRED && *src > 1) return lexer.Error(loc, "an i1 byte in the hex blob is neither 0 nor 1");
      // Types narrower than a byte take one byte per element, as MLIR
      // stores them; the bits above the width must be clear (integers may
      // also give them sign-extended).
      const int bit_width = primitive_util::BitWidth(type);
      if (type != PRED && bit_width < 8) {
        const bool narrow_int = primitive_util::IsNarrowIntegralType(type);
        if ((*src >> bit_width) != 0 && !(narrow_int && NarrowByte(type, *src) == *src)) {
          return lexer.Error(loc, absl::StrCat("a byte of the hex blob (0x", absl::Hex(*src, absl::kZeroPad2),
                                               ") does not fit ", primitive_util::LowercaseName(type)));
        }
        data[i] = narrow_int ? NarrowByte(type, *src) : *src;
        continue;
      }
      std::memcpy(data + i * width, src, width);
    }
    return literal;
  }
  if (dense.root.kind != DenseNode::kList) {
    // Splat.
    if (count == 0) return literal;
    RETURN_IF_ERROR(StoreElement(dense.root, type, data, lexer));
    for (int64_t i = 1; i < count; ++i) std::memcpy(data + i * width, data, width);
    return literal;
  }
  std::vector<const DenseNode*> leaves;
  RETURN_IF_ERROR(Flatten(dense.root, shape.dimensions(), &leaves, lexer));
  for (int64_t i = 0; i < count; ++i) RETURN_IF_ERROR(StoreElement(*leaves[i], type, data + i * width, lexer));
  return literal;
}

absl::StatusOr<int64_t> NumberToInt(const Attr& attr, const Lexer& lexer) {
  if (attr.kind == Attr::kBool) return attr.b ? 1 : 0;
  if (attr.kind != Attr::kNumber) return lexer.Error(attr.loc, "expected an integer");
  int64_t v;
  if (!absl::SimpleAtoi(attr.text, &v)) return lexer.Error(attr.loc, absl::StrCat("'", attr.text, "' is not an integer"));
  return v;
}

absl::StatusOr<double> NumberToDouble(const Attr& attr, const Lexer& lexer) {
  if (attr.kind != Attr::kNumber) return lexer.Error(attr.loc, "expected a number");
  double v;
  if (!absl::SimpleAtod(attr.text, &v)) return lexer.Error(attr.loc, absl::StrCat("'", attr.text, "' is not a number"));
  return v;
}

}  // namespace stablehlo
}  // namespace xla
