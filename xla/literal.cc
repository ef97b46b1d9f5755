#include "xla/literal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <ostream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "xla/status_macros.h"

namespace xla {

using primitive_util::ArrayTypeSwitch;
using primitive_util::is_complex_v;
using primitive_util::is_float_v;

Literal::Literal() : shape_(ShapeUtil::MakeTupleShape({})) {}

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) elements_.emplace_back(s);
  } else if (shape.IsArray()) {
    bytes_.assign(ShapeUtil::ByteSizeOfStorage(shape), 0);
    if (shape.layout().has_padding()) FillPadding();
  }
}

void Literal::FillPadding() {
  const PaddingValue value = shape_.layout().padding_value();
  if (value == ZERO_PAD || value == UNKNOWN_PAD) return;  // already zeros
  const Literal fill = value == ONE_PAD      ? One(element_type())
                       : value == LOWEST_PAD ? MinValue(element_type())
                                             : MaxValue(element_type());
  const int w = primitive_util::ByteWidth(element_type());
  std::vector<int64_t> index(shape_.rank());
  for (int64_t i = 0; i < ShapeUtil::StorageElementsIn(shape_); ++i) {
    ShapeUtil::MultiIndex(shape_, i, absl::MakeSpan(index));
    bool in_array = true;
    for (int d = 0; d < shape_.rank(); ++d) in_array &= index[d] < shape_.dimensions(d);
    if (!in_array) std::memcpy(bytes_.data() + i * w, fill.bytes_.data(), w);
  }
}

double Literal::GetAsDouble(int64_t linear) const {
  return ArrayTypeSwitch(element_type(), [&](auto tag) -> double {
    using T = decltype(tag);
    if constexpr (is_complex_v<T>) {
      return static_cast<double>(data<T>()[linear].real());
    } else {
      return static_cast<double>(data<T>()[linear]);
    }
  });
}

int64_t Literal::GetAsInt64(int64_t linear) const {
  return ArrayTypeSwitch(element_type(), [&](auto tag) -> int64_t {
    using T = decltype(tag);
    if constexpr (is_complex_v<T>) {
      return static_cast<int64_t>(data<T>()[linear].real());
    } else if constexpr (is_float_v<T>) {
      return static_cast<int64_t>(static_cast<double>(data<T>()[linear]));
    } else {
      return static_cast<int64_t>(data<T>()[linear]);
    }
  });
}

absl::StatusOr<int64_t> Literal::GetIntegralScalar() const {
  if (!shape_.IsArray() || element_count() != 1 ||
      !(primitive_util::IsIntegralType(element_type()) || element_type() == PRED)) {
    return InvalidArgument("expected an integral scalar, got %s", shape_.ToString());
  }
  return GetAsInt64(0);
}

void Literal::SetFromDouble(int64_t linear, double value) {
  ArrayTypeSwitch(element_type(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_complex_v<T>) {
      data<T>()[linear] = T(static_cast<typename T::value_type>(value), 0);
    } else if constexpr (std::is_same_v<T, bool>) {
      data<T>()[linear] = value != 0;
    } else {
      data<T>()[linear] = static_cast<T>(value);
    }
  });
}

void Literal::CopyElementFrom(const Literal& src, int64_t src_linear, int64_t dst_linear) {
  int w = primitive_util::ByteWidth(element_type());
  std::memcpy(bytes_.data() + dst_linear * w, src.bytes_.data() + src_linear * w, w);
}

std::vector<Literal> Literal::DecomposeTuple() && {
  std::vector<Literal> out = std::move(elements_);
  elements_.clear();
  shape_ = ShapeUtil::MakeTupleShape({});
  return out;
}

Literal Literal::MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal lit;
  lit.shape_ = ShapeUtil::MakeTupleShape(std::move(shapes));
  lit.elements_ = std::move(elements);
  return lit;
}

Literal Literal::CreateToken() { return Literal(ShapeUtil::MakeTokenShape()); }

Literal Literal::Zero(PrimitiveType type) { return Literal(ShapeUtil::MakeScalarShape(type)); }

Literal Literal::One(PrimitiveType type) {
  Literal lit(ShapeUtil::MakeScalarShape(type));
  lit.SetFromDouble(0, 1.0);
  return lit;
}

Literal Literal::MinValue(PrimitiveType type) {
  Literal lit(ShapeUtil::MakeScalarShape(type));
  ArrayTypeSwitch(type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_complex_v<T>) {
    } else if constexpr (is_small_float_class_v<T>) {
      // Formats without inf take their lowest finite value, as XLA does.
      const SmallFloatFormat& f = T::format();
      lit.data<T>()[0] = f.has_inf() ? static_cast<T>(-std::numeric_limits<float>::infinity())
                         : f.is_signed ? T::FromBits(f.max_finite_bits() | f.sign_bit())
                                       : T::FromBits(0);
    } else if constexpr (is_float_v<T>) {
      lit.data<T>()[0] = static_cast<T>(-std::numeric_limits<float>::infinity());
      if constexpr (std::is_same_v<T, double>) lit.data<T>()[0] = -std::numeric_limits<double>::infinity();
    } else {
      lit.data<T>()[0] = std::numeric_limits<T>::lowest();
    }
  });
  return lit;
}

Literal Literal::MaxValue(PrimitiveType type) {
  Literal lit(ShapeUtil::MakeScalarShape(type));
  ArrayTypeSwitch(type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_complex_v<T>) {
    } else if constexpr (is_small_float_class_v<T>) {
      const SmallFloatFormat& f = T::format();
      lit.data<T>()[0] = f.has_inf() ? static_cast<T>(std::numeric_limits<float>::infinity())
                                     : T::FromBits(f.max_finite_bits());
    } else if constexpr (is_float_v<T>) {
      lit.data<T>()[0] = static_cast<T>(std::numeric_limits<float>::infinity());
      if constexpr (std::is_same_v<T, double>) lit.data<T>()[0] = std::numeric_limits<double>::infinity();
    } else {
      lit.data<T>()[0] = std::numeric_limits<T>::max();
    }
  });
  return lit;
}

absl::StatusOr<Literal> Literal::Reshape(absl::Span<const int64_t> dimensions) const {
  if (!shape_.IsArray()) return InvalidArgument("Reshape of non-array literal %s", shape_.ToString());
  Shape new_shape = ShapeUtil::MakeShape(element_type(), dimensions);
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(new_shape));
  if (ShapeUtil::ElementsIn(new_shape) != element_count()) {
    return InvalidArgument("cannot reshape %s to %s: element counts differ", shape_.ToString(),
                           new_shape.ToString());
  }
  Literal out = Relayout(ShapeUtil::DefaultLayout(shape_.rank()));
  out.shape_ = new_shape;
  return out;
}

namespace {

// f64 and wide integers to f16/bf16 with one rounding (to nearest even).
// Through a plain float it would round twice: s32 16842753 -> bf16 gave
// 16777216, not 16908288, and f64 1 + 2^-8 + 2^-40 gave 1, not 1 + 2^-7.
// Rounding to float "to odd" first keeps the single rounding's result, as
// float has more than two bits beyond f16's and bf16's.
template <typename To, typename From>
To RoundToSmallFloat(From v) {
  const long double x = static_cast<long double>(v);  // exact for f64, s64, u64
  float f = static_cast<float>(x);
  if (std::isfinite(f) && static_cast<long double>(f) != x) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    if ((bits & 1) == 0) {
      f = std::nextafter(f, x > f ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
    }
  }
  return static_cast<To>(f);
}

// One element converted with XLA's ConvertElementType rules.
template <typename To, typename From>
To ConvertValue(From v) {
  if constexpr (is_complex_v<From>) {
    if constexpr (is_complex_v<To>) {
      return To(static_cast<typename To::value_type>(v.real()), static_cast<typename To::value_type>(v.imag()));
    } else {
      return ConvertValue<To>(v.real());
    }
  } else if constexpr (is_complex_v<To>) {
    return To(ConvertValue<typename To::value_type>(v), 0);
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<double>(v) != 0;
  } else if constexpr (is_float_v<From> && !is_float_v<To>) {
    // Float to integer saturates; NaN converts to zero.
    double d = static_cast<double>(v);
    if (std::isnan(d)) return To(0);
    if (d <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (d >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(d);
  } else if constexpr (is_float_v<To> && (std::is_same_v<From, half> || std::is_same_v<From, bfloat16>)) {
    return static_cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, half> || std::is_same_v<To, bfloat16>) {
    if constexpr (std::is_same_v<From, float> || std::is_same_v<From, half> || std::is_same_v<From, bfloat16> ||
                  sizeof(From) <= 2) {
      return static_cast<To>(static_cast<float>(v));  // exact in float: one rounding
    } else {
      return RoundToSmallFloat<To>(v);
    }
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace

absl::StatusOr<Literal> Literal::Convert(PrimitiveType type) const {
  if (!shape_.IsArray() || !primitive_util::IsArrayType(type)) {
    return InvalidArgument("Convert from %s to %s is not an array conversion", shape_.ToString(),
                           primitive_util::LowercaseName(type));
  }
  Shape out_shape = shape_;
  out_shape.set_element_type(type);
  Literal out(out_shape);
  ArrayTypeSwitch(element_type(), [&](auto from_tag) {
    using From = decltype(from_tag);
    ArrayTypeSwitch(type, [&](auto to_tag) {
      using To = decltype(to_tag);
      auto src = data<From>();
      auto dst = out.data<To>();
      for (size_t i = 0; i < src.size(); ++i) dst[i] = ConvertValue<To>(src[i]);
    });
  });
  return out;
}

absl::StatusOr<Literal> Literal::BitcastConvert(const Shape& to) const {
  if (!shape_.IsArray() || !to.IsArray()) return InvalidArgument("BitcastConvert needs arrays");
  if (primitive_util::BitWidth(element_type()) < 8 || primitive_util::BitWidth(to.element_type()) < 8) {
    return BitcastConvertBits(to);
  }
  if (ShapeUtil::ByteSizeOfElements(to) != ShapeUtil::ByteSizeOfElements(shape_)) {
    return InvalidArgument("BitcastConvert from %s to %s changes the byte size", shape_.ToString(),
                           to.ToString());
  }
  Literal src = Relayout(ShapeUtil::DefaultLayout(shape_.rank()));
  Literal out(ShapeUtil::MakeShape(to.element_type(), to.dimensions()));
  // An empty literal's storage may have no data pointer (memcpy's is never null).
  if (!src.bytes_.empty()) std::memcpy(out.bytes_.data(), src.bytes_.data(), src.bytes_.size());
  if (to.has_layout()) return out.Relayout(to.layout());
  return out;
}

absl::StatusOr<Literal> Literal::BitcastConvertBits(const Shape& to) const {
  const int from_bits = primitive_util::BitWidth(element_type());
  const int to_bits = primitive_util::BitWidth(to.element_type());
  const int64_t bits = element_count() * from_bits;
  if (ShapeUtil::ElementsIn(to) * to_bits != bits) {
    return InvalidArgument("BitcastConvert from %s to %s changes the number of bits", shape_.ToString(),
                           to.ToString());
  }
  // The elements' bits in a little-endian stream: bit i % w of element i / w
  // of a w-bit type (pred element i is bit i of the wider side's bytes; the
  // low half of an s8 is s4 element 0). Narrow signed results are
  // sign-extended into their byte.
  Literal src = Relayout(ShapeUtil::DefaultLayout(shape_.rank()));
  Literal out(ShapeUtil::MakeShape(to.element_type(), to.dimensions()));
  std::fill(out.bytes_.begin(), out.bytes_.end(), 0);
  const int from_bytes = primitive_util::ByteWidth(element_type());
  const int to_bytes = primitive_util::ByteWidth(to.element_type());
  auto bit_at = [&](int64_t i) -> int {
    const int64_t element = i / from_bits, bit = i % from_bits;
    const uint8_t byte = src.bytes_[element * from_bytes + bit / 8];
    if (element_type() == PRED) return byte != 0 ? 1 : 0;
    return (byte >> (bit % 8)) & 1;
  };
  for (int64_t i = 0; i < bits; ++i) {
    if (!bit_at(i)) continue;
    const int64_t element = i / to_bits, bit = i % to_bits;
    out.bytes_[element * to_bytes + bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
  }
  if (primitive_util::IsNarrowIntegralType(to.element_type()) &&
      primitive_util::IsSignedIntegralType(to.element_type())) {
    for (uint8_t& b : out.bytes_) {
      if ((b >> (to_bits - 1)) & 1) b |= static_cast<uint8_t>(0xFFu << to_bits);
    }
  }
  if (to.has_layout()) return out.Relayout(to.layout());
  return out;
}

Literal Literal::Relayout(const Layout& layout) const {
  if (!shape_.IsArray() || layout.minor_to_major().size() != static_cast<size_t>(shape_.rank())) {
    return *this;
  }
  Shape out_shape = shape_;
  out_shape.set_layout(layout);
  if (shape_.layout() == layout) {
    Literal out = *this;
    out.shape_ = out_shape;
    return out;
  }
  // Callers validate shapes from outside; a padding that does not fit would
  // write out of bounds, so it is dropped rather than trusted.
  if (layout.has_padding() && !ShapeUtil::ValidateShape(out_shape).ok()) out_shape.set_layout(layout.WithoutPadding());
  Literal out(out_shape);
  const int w = primitive_util::ByteWidth(element_type());
  const bool padded = shape_.layout().has_padding() || out_shape.layout().has_padding();
  const Shape& order = padded ? ShapeUtil::MakeShape(element_type(), shape_.dimensions()) : shape_;
  std::vector<int64_t> index(shape_.rank());
  for (int64_t i = 0; i < element_count(); ++i) {
    ShapeUtil::MultiIndex(order, i, absl::MakeSpan(index));
    const int64_t from = padded ? ShapeUtil::LinearIndex(shape_, index) : i;
    const int64_t to = ShapeUtil::LinearIndex(out_shape, index);
    std::memcpy(out.bytes_.data() + to * w, bytes_.data() + from * w, w);
  }
  return out;
}

Literal Literal::RelayoutTo(const Shape& shape_with_layout) const {
  if (shape_.IsTuple() && shape_with_layout.IsTuple() &&
      shape_with_layout.tuple_shapes_size() == shape_.tuple_shapes_size()) {
    std::vector<Literal> elems;
    for (int i = 0; i < shape_.tuple_shapes_size(); ++i) {
      elems.push_back(elements_[i].RelayoutTo(shape_with_layout.tuple_shapes(i)));
    }
    return MakeTuple(std::move(elems));
  }
  return Relayout(shape_with_layout.layout());
}

absl::StatusOr<Literal> Literal::BroadcastScalar(const Literal& scalar, const Shape& shape) {
  if (!scalar.shape().IsArray() || scalar.element_count() != 1) {
    return InvalidArgument("BroadcastScalar needs a scalar, got %s", scalar.shape().ToString());
  }
  Shape out_shape = ShapeUtil::WithoutPadding(ShapeUtil::ChangeElementType(shape, scalar.element_type()));
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(out_shape));
  Literal out(out_shape);
  int w = primitive_util::ByteWidth(scalar.element_type());
  for (int64_t i = 0; i < out.element_count(); ++i) {
    std::memcpy(out.bytes_.data() + i * w, scalar.bytes_.data(), w);
  }
  return out;
}

namespace {

template <typename T>
bool ElementEqual(T a, T b) {
  if constexpr (is_complex_v<T>) {
    return ElementEqual(a.real(), b.real()) && ElementEqual(a.imag(), b.imag());
  } else if constexpr (is_float_v<T>) {
    double x = static_cast<double>(a), y = static_cast<double>(b);
    return x == y || (std::isnan(x) && std::isnan(y));
  } else {
    return a == b;
  }
}

}  // namespace

bool Literal::operator==(const Literal& other) const {
  if (!shape_.Compatible(other.shape_)) return false;
  if (shape_.IsTuple()) {
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (elements_[i] != other.elements_[i]) return false;
    }
    return true;
  }
  if (!shape_.IsArray()) return true;
  // Padding positions are not values: compare the unpadded arrays.
  if (shape_.layout().has_padding() || other.shape_.layout().has_padding()) {
    const Layout unpadded = shape_.layout().WithoutPadding();
    return Relayout(unpadded) == other.Relayout(unpadded);
  }
  // Copy only when the layouts differ.
  std::optional<Literal> relaid;
  if (other.shape_.layout() != shape_.layout()) relaid = other.Relayout(shape_.layout());
  const Literal& rhs = relaid.has_value() ? *relaid : other;
  if (!primitive_util::IsFloatingPointType(element_type()) && !primitive_util::IsComplexType(element_type())) {
    return std::memcmp(bytes_.data(), rhs.bytes_.data(), bytes_.size()) == 0;
  }
  return ArrayTypeSwitch(element_type(), [&](auto tag) {
    using T = decltype(tag);
    auto a = data<T>();
    auto b = rhs.data<T>();
    for (size_t i = 0; i < a.size(); ++i) {
      if (!ElementEqual(a[i], b[i])) return false;
    }
    return true;
  });
}

namespace {

// Shortest decimal text that reads back to the same value of type T.
template <typename T>
std::string FloatToString(T value) {
  double d = static_cast<double>(value);
  if (std::isnan(d)) return std::signbit(d) ? "-nan" : "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  // Integral values print without an exponent ("10", not "1e+01").
  if (d == std::trunc(d) && std::fabs(d) < 1e15) return absl::StrFormat("%.0f", d);
  int max_digits = std::is_same_v<T, double> ? 17 : 9;
  for (int p = 1; p < max_digits; ++p) {
    std::string s = absl::StrFormat("%.*g", p, d);
    double back = std::strtod(s.c_str(), nullptr);
    if (static_cast<T>(back) == value) return s;
  }
  return absl::StrFormat("%.*g", max_digits, d);
}

template <typename T>
std::string ElementToString(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (is_complex_v<T>) {
    return absl::StrCat("(", FloatToString(v.real()), ", ", FloatToString(v.imag()), ")");
  } else if constexpr (is_float_v<T>) {
    return FloatToString(v);
  } else if constexpr (sizeof(T) == 1) {
    return absl::StrCat(static_cast<int>(v));
  } else {
    return absl::StrCat(v);
  }
}

}  // namespace

std::string Literal::ToStringWithoutShape() const {
  if (shape_.IsTuple()) {
    std::vector<std::string> parts;
    for (const Literal& e : elements_) parts.push_back(e.ToString());
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  if (shape_.IsToken()) return "token";
  std::vector<std::string> strs(element_count());
  ArrayTypeSwitch(element_type(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<int64_t> index(shape_.rank());
    for (int64_t i = 0; i < element_count(); ++i) {
      ShapeUtil::MultiIndex(ShapeUtil::MakeShape(element_type(), shape_.dimensions()), i,
                            absl::MakeSpan(index));
      strs[i] = ElementToString(Get<T>(index));
    }
  });
  if (shape_.rank() == 0) return strs[0];
  // A zero-element array prints its nested empty braces as the document does
  // ("f32[2,0] {{}, {}}"), unless there would be more than kMaxEmptyBraces
  // of them (f32[1000000000,0] would have a billion): then "{}", which the
  // parser also takes.
  if (strs.empty()) {
    constexpr int64_t kMaxEmptyBraces = 4096;
    int64_t braces = 1;
    for (int64_t d : shape_.dimensions()) {
      if (d == 0) break;
      braces *= d;
      if (braces > kMaxEmptyBraces) return "{}";
    }
  }
  // Emit nested braces in row-major order.
  std::string out;
  int64_t next = 0;
  std::function<void(int)> emit = [&](int dim) {
    out += "{";
    for (int64_t i = 0; i < shape_.dimensions(dim); ++i) {
      if (i > 0) out += ", ";
      if (dim + 1 == shape_.rank()) {
        out += strs[next++];
      } else {
        emit(dim + 1);
      }
    }
    out += "}";
  };
  emit(0);
  return out;
}

std::string Literal::ToString() const {
  if (shape_.IsTuple()) return ToStringWithoutShape();
  bool show_layout = shape_.has_layout() && !ShapeUtil::HasDefaultLayout(shape_);
  return absl::StrCat(shape_.ToString(show_layout), " ", ToStringWithoutShape());
}

std::ostream& operator<<(std::ostream& os, const Literal& literal) { return os << literal.ToString(); }

LiteralProto Literal::ToProto() const {
  LiteralProto proto;
  *proto.mutable_shape() = shape_.ToProto();
  if (shape_.IsTuple()) {
    for (const Literal& e : elements_) *proto.add_tuple_literals() = e.ToProto();
    return proto;
  }
  if (!shape_.IsArray()) return proto;
  std::string raw(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
  switch (element_type()) {
    case PRED: for (bool b : data<bool>()) proto.add_preds(b); break;
    case S8: proto.set_s8s(raw); break;
    case U8: proto.set_u8s(raw); break;
    case S16: proto.set_s16s(raw); break;
    case U16: proto.set_u16s(raw); break;
    case F16: proto.set_f16s(raw); break;
    case BF16: proto.set_bf16s(raw); break;
    case S2: proto.set_s2s(raw); break;
    case S4: proto.set_s4s(raw); break;
    case U2: proto.set_u2s(raw); break;
    case U4: proto.set_u4s(raw); break;
    case F4E2M1FN: proto.set_f4e2m1fns(raw); break;
    case F6E2M3FN: proto.set_f6e2m3fns(raw); break;
    case F6E3M2FN: proto.set_f6e3m2fns(raw); break;
    case F8E3M4: proto.set_f8e3m4s(raw); break;
    case F8E4M3B11FNUZ: proto.set_f8e4m3b11fnuzs(raw); break;
    case F8E4M3FN: proto.set_f8e4m3fns(raw); break;
    case F8E4M3FNUZ: proto.set_f8e4m3fnuzs(raw); break;
    case F8E4M3: proto.set_f8e4m3s(raw); break;
    case F8E5M2FNUZ: proto.set_f8e5m2fnuzs(raw); break;
    case F8E5M2: proto.set_f8e5m2s(raw); break;
    case F8E8M0FNU: proto.set_f8e8m0fnus(raw); break;
    case S32: for (int32_t v : data<int32_t>()) proto.add_s32s(v); break;
    case S64: for (int64_t v : data<int64_t>()) proto.add_s64s(v); break;
    case U32: for (uint32_t v : data<uint32_t>()) proto.add_u32s(v); break;
    case U64: for (uint64_t v : data<uint64_t>()) proto.add_u64s(v); break;
    case F32: proto.mutable_f32s()->Add(data<float>().begin(), data<float>().end()); break;
    case F64: proto.mutable_f64s()->Add(data<double>().begin(), data<double>().end()); break;
    case C64:
      for (complex64 c : data<complex64>()) { proto.add_c64s(c.real()); proto.add_c64s(c.imag()); }
      break;
    case C128:
      for (complex128 c : data<complex128>()) { proto.add_c128s(c.real()); proto.add_c128s(c.imag()); }
      break;
    default: break;
  }
  return proto;
}

absl::StatusOr<Literal> Literal::FromProto(const LiteralProto& proto) {
  ASSIGN_OR_RETURN(Shape shape, ShapeUtil::FromProto(proto.shape()));
  if (shape.IsTuple()) {
    if (proto.tuple_literals_size() != shape.tuple_shapes_size()) {
      return InvalidArgument("tuple literal has %d elements but its shape %s has %d",
                             proto.tuple_literals_size(), shape.ToString(), shape.tuple_shapes_size());
    }
    std::vector<Literal> elems;
    for (int i = 0; i < proto.tuple_literals_size(); ++i) {
      ASSIGN_OR_RETURN(Literal e, FromProto(proto.tuple_literals(i)));
      if (!e.shape().Compatible(shape.tuple_shapes(i))) {
        return InvalidArgument("tuple element %d has shape %s but the tuple shape says %s", i,
                               e.shape().ToString(), shape.tuple_shapes(i).ToString());
      }
      elems.push_back(std::move(e));
    }
    Literal lit = MakeTuple(std::move(elems));
    lit.shape_ = shape;
    return lit;
  }
  if (shape.IsToken()) return Literal(shape);
  // Padded layouts carry their padding positions too (the memory image).
  const int64_t n = ShapeUtil::StorageElementsIn(shape);
  const int64_t bytes = ShapeUtil::ByteSizeOfStorage(shape);
  auto count_error = [&](int64_t got) {
    return InvalidArgument("literal of shape %s needs %d elements but the proto holds %d",
                           shape.ToString(), n, got);
  };
  auto from_bytes = [&](const std::string& raw) -> absl::StatusOr<Literal> {
    if (static_cast<int64_t>(raw.size()) != bytes) {
      return InvalidArgument("literal of shape %s needs %d bytes but the proto holds %d",
                             shape.ToString(), bytes, static_cast<int64_t>(raw.size()));
    }
    Literal lit(shape);
    if (bytes > 0) std::memcpy(lit.bytes_.data(), raw.data(), bytes);
    return lit;
  };
  // Types narrower than a byte: every byte must be a value the type holds
  // (sign-extended for S2/S4, high bits clear for the others).
  auto from_narrow_bytes = [&](const std::string& raw) -> absl::StatusOr<Literal> {
    ASSIGN_OR_RETURN(Literal lit, from_bytes(raw));
    const int bits = primitive_util::BitWidth(shape.element_type());
    const bool sign_extended = primitive_util::IsSignedIntegralType(shape.element_type());
    for (int64_t i = 0; i < bytes; ++i) {
      const uint8_t b = lit.bytes_[i];
      const uint8_t high = static_cast<uint8_t>(b >> (bits - (sign_extended ? 1 : 0)));
      const uint8_t all_high = static_cast<uint8_t>(0xFFu >> (bits - (sign_extended ? 1 : 0)));
      if (high != 0 && !(sign_extended && high == all_high)) {
        return InvalidArgument("literal of shape %s: byte %d (0x%02x) is not a %d-bit value", shape.ToString(),
                               i, b, bits);
      }
    }
    return lit;
  };
  auto from_repeated = [&](const auto& field, auto tag) -> absl::StatusOr<Literal> {
    using T = decltype(tag);
    if (field.size() != n) return count_error(field.size());
    Literal lit(shape);
    std::copy(field.begin(), field.end(), lit.data<T>().begin());
    return lit;
  };
  auto from_pairs = [&](const auto& field, auto tag) -> absl::StatusOr<Literal> {
    using T = decltype(tag);
    if (field.size() != 2 * n) return count_error(field.size() / 2);
    Literal lit(shape);
    for (int64_t i = 0; i < n; ++i) lit.data<T>()[i] = T(field[2 * i], field[2 * i + 1]);
    return lit;
  };
  switch (shape.element_type()) {
    case PRED: {
      if (proto.preds_size() != n) return count_error(proto.preds_size());
      Literal lit(shape);
      std::copy(proto.preds().begin(), proto.preds().end(), lit.data<bool>().begin());
      return lit;
    }
    case S8: return from_bytes(proto.s8s());
    case U8: return from_bytes(proto.u8s());
    case S16: return from_bytes(proto.s16s());
    case U16: return from_bytes(proto.u16s());
    case F16: return from_bytes(proto.f16s());
    case BF16: return from_bytes(proto.bf16s());
    case S2: return from_narrow_bytes(proto.s2s());
    case S4: return from_narrow_bytes(proto.s4s());
    case U2: return from_narrow_bytes(proto.u2s());
    case U4: return from_narrow_bytes(proto.u4s());
    case F4E2M1FN: return from_narrow_bytes(proto.f4e2m1fns());
    case F6E2M3FN: return from_narrow_bytes(proto.f6e2m3fns());
    case F6E3M2FN: return from_narrow_bytes(proto.f6e3m2fns());
    case F8E3M4: return from_bytes(proto.f8e3m4s());
    case F8E4M3B11FNUZ: return from_bytes(proto.f8e4m3b11fnuzs());
    case F8E4M3FN: return from_bytes(proto.f8e4m3fns());
    case F8E4M3FNUZ: return from_bytes(proto.f8e4m3fnuzs());
    case F8E4M3: return from_bytes(proto.f8e4m3s());
    case F8E5M2FNUZ: return from_bytes(proto.f8e5m2fnuzs());
    case F8E5M2: return from_bytes(proto.f8e5m2s());
    case F8E8M0FNU: return from_bytes(proto.f8e8m0fnus());
    case S32: return from_repeated(proto.s32s(), int32_t{});
    case S64: return from_repeated(proto.s64s(), int64_t{});
    case U32: return from_repeated(proto.u32s(), uint32_t{});
    case U64: return from_repeated(proto.u64s(), uint64_t{});
    case F32: return from_repeated(proto.f32s(), float{});
    case F64: return from_repeated(proto.f64s(), double{});
    case C64: return from_pairs(proto.c64s(), complex64{});
    case C128: return from_pairs(proto.c128s(), complex128{});
    default: return InvalidArgument("literal has unsupported element type %s", shape.ToString());
  }
}

namespace {

// Parser of literal text: shapes (delegated to ShapeUtil::ParseShape) and
// nested-brace values.
class LiteralTextParser {
 public:
  explicit LiteralTextParser(absl::string_view text) : text_(text) {}

  absl::StatusOr<Literal> ParseWithShape() {
    SkipSpace();
    if (Peek() == '(') {
      ++pos_;
      std::vector<Literal> elems;
      SkipSpace();
      if (Peek() != ')') {
        while (true) {
          ASSIGN_OR_RETURN(Literal e, ParseWithShape());
          elems.push_back(std::move(e));
          SkipSpace();
          if (Peek() == ',') { ++pos_; continue; }
          break;
        }
      }
      RETURN_IF_ERROR(Expect(')'));
      return Literal::MakeTuple(std::move(elems));
    }
    ASSIGN_OR_RETURN(Shape shape, ParseArrayShape());
    return ParseValueOf(shape);
  }

  absl::StatusOr<Literal> ParseValueOf(const Shape& shape) {
    if (shape.IsTuple()) {
      RETURN_IF_ERROR(Expect('('));
      std::vector<Literal> elems;
      for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
        if (i > 0) RETURN_IF_ERROR(Expect(','));
        ASSIGN_OR_RETURN(Literal e, ParseValueOf(shape.tuple_shapes(i)));
        elems.push_back(std::move(e));
      }
      RETURN_IF_ERROR(Expect(')'));
      return Literal::MakeTuple(std::move(elems));
    }
    if (shape.IsToken()) {
      SkipSpace();
      if (text_.substr(pos_, 5) == "token") pos_ += 5;
      return Literal::CreateToken();
    }
    Shape row_major = ShapeUtil::MakeShape(shape.element_type(), shape.dimensions());
    Literal lit(row_major);
    int64_t next = 0;
    // A zero-element array is "{}" whatever its dimensions (what the printer
    // writes); the nested form is accepted too.
    const size_t value_start = pos_;
    if (shape.rank() > 0 && ShapeUtil::HasZeroElements(shape) && Expect('{').ok()) {
      SkipSpace();
      if (Peek() == '}') {
        ++pos_;
        if (shape.has_layout()) return lit.Relayout(shape.layout());
        return lit;
      }
    }
    pos_ = value_start;
    RETURN_IF_ERROR(ParseDim(lit, 0, &next));
    if (shape.has_layout()) return lit.Relayout(shape.layout());
    return lit;
  }

  absl::Status ExpectEnd() {
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected trailing text");
    return absl::OkStatus();
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < text_.size()) {
      if (absl::ascii_isspace(text_[pos_])) {
        ++pos_;
      } else if (text_.substr(pos_, 2) == "/*") {
        size_t end = text_.find("*/", pos_ + 2);
        pos_ = end == absl::string_view::npos ? text_.size() : end + 2;
      } else {
        break;
      }
    }
  }
  absl::Status Error(absl::string_view what) const {
    return InvalidArgument("literal text: %s at offset %d in '%s'", what, pos_,
                           text_.size() > 200 ? absl::StrCat(text_.substr(0, 200), "...") : std::string(text_));
  }
  absl::Status Expect(char c) {
    SkipSpace();
    if (Peek() != c) return Error(absl::StrCat("expected '", std::string(1, c), "'"));
    ++pos_;
    return absl::OkStatus();
  }

  // Element type, dims, and a layout only when '{' follows ']' directly.
  absl::StatusOr<Shape> ParseArrayShape() {
    SkipSpace();
    size_t start = pos_;
    size_t close = text_.find(']', pos_);
    if (close == absl::string_view::npos) {
      // token has no brackets
      if (text_.substr(pos_, 5) == "token") { pos_ += 5; return ShapeUtil::MakeTokenShape(); }
      return Error("expected a shape");
    }
    pos_ = close + 1;
    if (Peek() == '{') {
      size_t end = text_.find('}', pos_);
      if (end == absl::string_view::npos) return Error("unterminated layout");
      pos_ = end + 1;
    }
    return ShapeUtil::ParseShape(text_.substr(start, pos_ - start));
  }

  absl::Status ParseDim(Literal& lit, int dim, int64_t* next) {
    if (dim == lit.shape().rank()) return ParseElement(lit, (*next)++);
    RETURN_IF_ERROR(Expect('{'));
    int64_t n = lit.shape().dimensions(dim);
    for (int64_t i = 0; i < n; ++i) {
      SkipSpace();
      if (Peek() == '}') {
        return Error(absl::StrCat("too few elements in dimension ", dim, " (", i, " of ", n, ")"));
      }
      if (i > 0) RETURN_IF_ERROR(Expect(','));
      RETURN_IF_ERROR(ParseDim(lit, dim + 1, next));
    }
    SkipSpace();
    if (Peek() == ',') return Error(absl::StrCat("too many elements in dimension ", dim));
    if (Peek() != '}') return Error(absl::StrCat("too few elements in dimension ", dim));
    ++pos_;
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Token() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && (absl::ascii_isalnum(text_[pos_]) || text_[pos_] == '.' ||
                                   text_[pos_] == '-' || text_[pos_] == '+' || text_[pos_] == '_')) {
      ++pos_;
    }
    if (start == pos_) return Error("expected a number");
    return std::string(text_.substr(start, pos_ - start));
  }

  absl::StatusOr<double> ParseFloat() {
    ASSIGN_OR_RETURN(std::string tok, Token());
    std::string lower = absl::AsciiStrToLower(tok);
    if (lower == "nan" || lower == "+nan") return std::numeric_limits<double>::quiet_NaN();
    if (lower == "-nan") return -std::numeric_limits<double>::quiet_NaN();
    if (lower == "inf" || lower == "+inf") return std::numeric_limits<double>::infinity();
    if (lower == "-inf") return -std::numeric_limits<double>::infinity();
    if (lower == "true") return 1.0;
    if (lower == "false") return 0.0;
    char* end = nullptr;
    double v = std::strtod(tok.c_str(), &end);
    if (end != tok.c_str() + tok.size()) return Error(absl::StrCat("bad number '", tok, "'"));
    return v;
  }

  absl::Status ParseElement(Literal& lit, int64_t linear) {
    PrimitiveType type = lit.element_type();
    if (primitive_util::IsComplexType(type)) {
      RETURN_IF_ERROR(Expect('('));
      ASSIGN_OR_RETURN(double re, ParseFloat());
      RETURN_IF_ERROR(Expect(','));
      ASSIGN_OR_RETURN(double im, ParseFloat());
      RETURN_IF_ERROR(Expect(')'));
      if (type == C64) {
        lit.data<complex64>()[linear] = complex64(re, im);
      } else {
        lit.data<complex128>()[linear] = complex128(re, im);
      }
      return absl::OkStatus();
    }
    if (primitive_util::IsFloatingPointType(type)) {
      ASSIGN_OR_RETURN(double v, ParseFloat());
      lit.SetFromDouble(linear, v);
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(std::string tok, Token());
    if (type == PRED) {
      if (tok == "true" || tok == "1") { lit.data<bool>()[linear] = true; return absl::OkStatus(); }
      if (tok == "false" || tok == "0") { lit.data<bool>()[linear] = false; return absl::OkStatus(); }
      return Error(absl::StrCat("bad pred value '", tok, "'"));
    }
    bool ok = ArrayTypeSwitch(type, [&](auto tag) -> bool {
      using T = decltype(tag);
      if constexpr ((std::is_integral_v<T> && !std::is_same_v<T, bool>) || is_int_n_v<T>) {
        if constexpr (std::numeric_limits<T>::is_signed) {
          int64_t v;
          if (!absl::SimpleAtoi(tok, &v) || v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
              v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
            return false;
          }
          lit.data<T>()[linear] = static_cast<T>(v);
        } else {
          uint64_t v;
          if (!absl::SimpleAtoi(tok, &v) || v > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
            return false;
          }
          lit.data<T>()[linear] = static_cast<T>(v);
        }
        return true;
      } else {
        return false;
      }
    });
    if (!ok) {
      return Error(absl::StrCat("'", tok, "' is not a valid ", primitive_util::LowercaseName(type)));
    }
    return absl::OkStatus();
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<Literal> Literal::Parse(absl::string_view text) {
  LiteralTextParser parser(text);
  ASSIGN_OR_RETURN(Literal lit, parser.ParseWithShape());
  RETURN_IF_ERROR(parser.ExpectEnd());
  return lit;
}

absl::StatusOr<Literal> Literal::ParseValue(absl::string_view text, const Shape& shape) {
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  LiteralTextParser parser(text);
  ASSIGN_OR_RETURN(Literal lit, parser.ParseValueOf(shape));
  RETURN_IF_ERROR(parser.ExpectEnd());
  return lit;
}

}  // namespace xla
