// Elementwise ops: unary math, binary arithmetic/logic, compare, complex,
// select and clamp. Each op switches on the element type once, then loops.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "xla/evaluator/elementwise_kernels.h"
#include "xla/evaluator/evaluator_internal.h"
#include "xla/evaluator/reduce_precision.h"
#include "xla/evaluator/reference_math.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

using primitive_util::ArrayTypeSwitch;
using primitive_util::is_complex_v;
using primitive_util::is_float_v;
using reference_math::ComplexCbrt;
using reference_math::ComplexExpm1;
using reference_math::ComplexLog1p;
using reference_math::ComplexLogistic;
using reference_math::ComplexSign;
using reference_math::Logistic;

namespace {

// out[i] = f(in[i]) for every element.
template <typename In, typename Out, typename F>
Literal MapUnaryTyped(const Literal& in, const Shape& out_shape, F f) {
  Literal out(out_shape);
  auto src = in.data<In>();
  auto dst = out.data<Out>();
  const int64_t n = static_cast<int64_t>(dst.size());
  for (int64_t i = 0; i < n; ++i) dst[i] = f(src[i]);
  return out;
}

template <typename C> C RoundHalfEven(C x) {
  if (!std::isfinite(x)) return x;
  C f = std::floor(x);
  C diff = x - f;
  C r;
  if (diff < C(0.5)) {
    r = f;
  } else if (diff > C(0.5)) {
    r = f + C(1);
  } else {
    r = std::fmod(f, C(2)) == 0 ? f : f + C(1);
  }
  return std::copysign(r, x);  // keeps -0 for -0.3 and -0
}

template <typename C> C RoundHalfAway(C x) { return std::round(x); }

template <typename C> C FloatSign(C x) {
  if (std::isnan(x)) return x;
  if (x > C(0)) return C(1);
  if (x < C(0)) return C(-1);
  return x;  // +-0
}

template <typename U> int CountLeadingZeros(U v) {
  int bits = sizeof(U) * 8;
  int n = 0;
  for (int i = bits - 1; i >= 0; --i) {
    if ((v >> i) & 1) break;
    ++n;
  }
  return n;
}

template <typename U> int PopCount(U v) {
  int n = 0;
  while (v) {
    v &= static_cast<U>(v - 1);
    ++n;
  }
  return n;
}

absl::Status UnaryTypeError(const HloInstruction& instruction, PrimitiveType type) {
  return InvalidArgument("HloEvaluator: %s: %s is not defined for element type %s",
                         InstrLabel(instruction), HloOpcodeString(instruction.opcode()),
                         primitive_util::LowercaseName(type));
}

}  // namespace

absl::StatusOr<Literal> EvaluateUnary(const HloInstruction& instruction, const Literal& operand) {
  const Shape& shape = instruction.shape();
  RETURN_IF_ERROR(ExpectArray(instruction, shape, "result"));
  RETURN_IF_ERROR(ExpectSameDims(instruction, operand.shape(), shape, "operand"));
  const PrimitiveType in_type = operand.element_type();
  const PrimitiveType out_type = shape.element_type();
  const HloOpcode op = instruction.opcode();
  const Shape out_shape = RowMajorShape(shape);

  // The result type each (op, operand type) must have.
  PrimitiveType expected_out = in_type;
  if (op == HloOpcode::kIsFinite) {
    expected_out = PRED;
  } else if (primitive_util::IsComplexType(in_type) &&
             (op == HloOpcode::kAbs || op == HloOpcode::kReal || op == HloOpcode::kImag)) {
    expected_out = primitive_util::ComplexComponentType(in_type);
  }
  if (out_type != expected_out) {
    return InvalidArgument("HloEvaluator: %s: result type %s does not match operand type %s",
                           InstrLabel(instruction), primitive_util::LowercaseName(out_type),
                           primitive_util::LowercaseName(in_type));
  }

  std::optional<Literal> result;
  absl::Status status = ArrayTypeSwitch(in_type, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    auto map = [&](auto f) {
      using Out = decltype(f(T{}));
      result = MapUnaryTyped<T, Out>(operand, out_shape, f);
      return absl::OkStatus();
    };
    if constexpr (std::is_same_v<T, bool>) {
      if (op == HloOpcode::kNot) return map([](bool x) -> bool { return !x; });
    } else if constexpr (is_int_n_v<T>) {
      // Computed on the byte value and wrapped to the width by T's constructor;
      // clz and popcount look at the width's bits only.
      constexpr unsigned kMask = (1u << T::kBitWidth) - 1;
      switch (op) {
        case HloOpcode::kNot: return map([](T x) -> T { return T(~static_cast<int>(x)); });
        case HloOpcode::kNegate: return map([](T x) -> T { return T(-static_cast<int>(x)); });
        case HloOpcode::kAbs: return map([](T x) -> T { return T(x < 0 ? -static_cast<int>(x) : static_cast<int>(x)); });
        case HloOpcode::kSign: return map([](T x) -> T { return T(x < 0 ? -1 : (x > 0 ? 1 : 0)); });
        case HloOpcode::kClz:
          return map([](T x) -> T {
            return T(CountLeadingZeros(static_cast<uint8_t>(static_cast<unsigned>(x) & kMask)) -
                     (8 - T::kBitWidth));
          });
        case HloOpcode::kPopulationCount:
          return map([](T x) -> T { return T(PopCount(static_cast<uint8_t>(static_cast<unsigned>(x) & kMask))); });
        default: break;
      }
    } else if constexpr (is_int_v<T>) {
      using U = std::make_unsigned_t<T>;
      switch (op) {
        case HloOpcode::kNot: return map([](T x) -> T { return static_cast<T>(~x); });
        case HloOpcode::kNegate: return map([](T x) -> T { return WrapSub(T(0), x); });
        case HloOpcode::kAbs:
          return map([](T x) -> T {
            if constexpr (std::is_signed_v<T>) return x < 0 ? WrapSub(T(0), x) : x;
            return x;
          });
        case HloOpcode::kSign:
          return map([](T x) -> T {
            if constexpr (std::is_signed_v<T>) return x < 0 ? T(-1) : (x > 0 ? T(1) : T(0));
            return x > 0 ? T(1) : T(0);
          });
        case HloOpcode::kClz:
          return map([](T x) -> T { return static_cast<T>(CountLeadingZeros(static_cast<U>(x))); });
        case HloOpcode::kPopulationCount:
          return map([](T x) -> T { return static_cast<T>(PopCount(static_cast<U>(x))); });
        default: break;
      }
    } else if constexpr (is_float_v<T>) {
      using C = ComputeT<T>;
      switch (op) {
        case HloOpcode::kAbs: return map([](T x) -> T { return T(std::fabs(C(x))); });
        case HloOpcode::kNegate: return map([](T x) -> T { return T(-C(x)); });
        case HloOpcode::kSign: return map([](T x) -> T { return T(FloatSign(C(x))); });
        case HloOpcode::kCeil: return map([](T x) -> T { return T(std::ceil(C(x))); });
        case HloOpcode::kFloor: return map([](T x) -> T { return T(std::floor(C(x))); });
        case HloOpcode::kRoundNearestAfz: return map([](T x) -> T { return T(RoundHalfAway(C(x))); });
        case HloOpcode::kRoundNearestEven: return map([](T x) -> T { return T(RoundHalfEven(C(x))); });
        case HloOpcode::kCbrt: return map([](T x) -> T { return T(std::cbrt(C(x))); });
        case HloOpcode::kCos: return map([](T x) -> T { return T(std::cos(C(x))); });
        case HloOpcode::kSin: return map([](T x) -> T { return T(std::sin(C(x))); });
        case HloOpcode::kTan: return map([](T x) -> T { return T(std::tan(C(x))); });
        case HloOpcode::kTanh: return map([](T x) -> T { return T(std::tanh(C(x))); });
        case HloOpcode::kErf: return map([](T x) -> T { return T(std::erf(C(x))); });
        case HloOpcode::kExp: return map([](T x) -> T { return T(std::exp(C(x))); });
        case HloOpcode::kExpm1: return map([](T x) -> T { return T(std::expm1(C(x))); });
        case HloOpcode::kLog: return map([](T x) -> T { return T(std::log(C(x))); });
        case HloOpcode::kLog1p: return map([](T x) -> T { return T(std::log1p(C(x))); });
        case HloOpcode::kLogistic: return map([](T x) -> T { return T(Logistic(C(x))); });
        case HloOpcode::kSqrt: return map([](T x) -> T { return T(std::sqrt(C(x))); });
        case HloOpcode::kRsqrt: return map([](T x) -> T { return T(C(1) / std::sqrt(C(x))); });
        case HloOpcode::kIsFinite: return map([](T x) -> bool { return std::isfinite(C(x)); });
        case HloOpcode::kReal: return map([](T x) -> T { return x; });
        case HloOpcode::kImag: return map([](T) -> T { return T(0); });
        default: break;
      }
    } else if constexpr (is_complex_v<T>) {
      using R = typename T::value_type;
      switch (op) {
        case HloOpcode::kAbs: return map([](T x) -> R { return std::abs(x); });
        case HloOpcode::kReal: return map([](T x) -> R { return x.real(); });
        case HloOpcode::kImag: return map([](T x) -> R { return x.imag(); });
        case HloOpcode::kNegate: return map([](T x) -> T { return -x; });
        case HloOpcode::kSign: return map([](T x) -> T { return ComplexSign(x); });
        case HloOpcode::kCos: return map([](T x) -> T { return std::cos(x); });
        case HloOpcode::kSin: return map([](T x) -> T { return std::sin(x); });
        case HloOpcode::kTan: return map([](T x) -> T { return std::tan(x); });
        case HloOpcode::kTanh: return map([](T x) -> T { return std::tanh(x); });
        case HloOpcode::kExp: return map([](T x) -> T { return std::exp(x); });
        case HloOpcode::kExpm1: return map([](T x) -> T { return ComplexExpm1(x); });
        case HloOpcode::kLog: return map([](T x) -> T { return std::log(x); });
        case HloOpcode::kLog1p: return map([](T x) -> T { return ComplexLog1p(x); });
        case HloOpcode::kLogistic: return map([](T x) -> T { return ComplexLogistic(x); });
        case HloOpcode::kSqrt: return map([](T x) -> T { return std::sqrt(x); });
        case HloOpcode::kRsqrt: return map([](T x) -> T { return T(1) / std::sqrt(x); });
        case HloOpcode::kCbrt: return map([](T x) -> T { return ComplexCbrt(x); });
        default: break;
      }
    }
    return UnaryTypeError(instruction, in_type);
  });
  RETURN_IF_ERROR(status);
  return std::move(*result);
}

namespace {

// out[i] = f(lhs[i], rhs[i]).
template <typename In, typename Out, typename F>
void MapBinaryTyped(const Literal& lhs, const Literal& rhs, Literal* out, F f) {
  auto a = lhs.data<In>();
  auto b = rhs.data<In>();
  auto dst = out->data<Out>();
  const int64_t n = static_cast<int64_t>(dst.size());
  for (int64_t i = 0; i < n; ++i) dst[i] = f(a[i], b[i]);
}

absl::Status CheckBinaryOperands(const HloInstruction& instruction, const Literal& lhs,
                                 const Literal& rhs) {
  const Shape& shape = instruction.shape();
  RETURN_IF_ERROR(ExpectArray(instruction, shape, "result"));
  RETURN_IF_ERROR(ExpectSameDims(instruction, lhs.shape(), shape, "lhs"));
  RETURN_IF_ERROR(ExpectSameDims(instruction, rhs.shape(), shape, "rhs"));
  if (lhs.element_type() != rhs.element_type()) {
    return InvalidArgument("HloEvaluator: %s: operand types differ (%s vs %s)", InstrLabel(instruction),
                           lhs.shape().ToString(), rhs.shape().ToString());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> EvaluateBinary(const HloInstruction& instruction, const Literal& lhs,
                                       const Literal& rhs) {
  RETURN_IF_ERROR(CheckBinaryOperands(instruction, lhs, rhs));
  const Shape& shape = instruction.shape();
  const HloOpcode op = instruction.opcode();
  const PrimitiveType type = lhs.element_type();
  Literal out(RowMajorShape(shape));

  if (op == HloOpcode::kComplex) {
    if (!(type == F32 && shape.element_type() == C64) && !(type == F64 && shape.element_type() == C128)) {
      return InvalidArgument("HloEvaluator: %s: complex needs f32->c64 or f64->c128, got %s -> %s",
                             InstrLabel(instruction), primitive_util::LowercaseName(type),
                             primitive_util::LowercaseName(shape.element_type()));
    }
    if (type == F32) {
      MapBinaryTyped<float, complex64>(lhs, rhs, &out, [](float a, float b) { return complex64(a, b); });
    } else {
      MapBinaryTyped<double, complex128>(lhs, rhs, &out,
                                         [](double a, double b) { return complex128(a, b); });
    }
    return out;
  }

  if (!IsSameTypeBinary(op)) {
    return Internal("HloEvaluator: %s is not a binary elementwise op", InstrLabel(instruction));
  }
  if (shape.element_type() != type) {
    return InvalidArgument("HloEvaluator: %s: result type %s does not match operand type %s",
                           InstrLabel(instruction), primitive_util::LowercaseName(shape.element_type()),
                           primitive_util::LowercaseName(type));
  }
  absl::Status status = WithBinaryKernel(op, type, [&](auto tag, auto kernel) {
    using T = decltype(tag);
    MapBinaryTyped<T, T>(lhs, rhs, &out, kernel);
    return absl::OkStatus();
  });
  if (!status.ok()) return AddErrorContext(status, InstrLabel(instruction));
  return out;
}

namespace {

template <typename V> bool CompareValues(ComparisonDirection dir, const V& a, const V& b) {
  switch (dir) {
    case ComparisonDirection::kEq: return a == b;
    case ComparisonDirection::kNe: return a != b;
    case ComparisonDirection::kLt: return a < b;
    case ComparisonDirection::kLe: return a <= b;
    case ComparisonDirection::kGt: return a > b;
    case ComparisonDirection::kGe: return a >= b;
  }
  return false;
}

template <typename R> bool CompareComplex(ComparisonDirection dir, std::complex<R> a, std::complex<R> b) {
  // Lexicographic on (real, imag) with IEEE comparisons of the parts.
  switch (dir) {
    case ComparisonDirection::kEq: return a.real() == b.real() && a.imag() == b.imag();
    case ComparisonDirection::kNe: return a.real() != b.real() || a.imag() != b.imag();
    case ComparisonDirection::kLt:
      return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
    case ComparisonDirection::kLe:
      return a.real() < b.real() || (a.real() == b.real() && a.imag() <= b.imag());
    case ComparisonDirection::kGt:
      return a.real() > b.real() || (a.real() == b.real() && a.imag() > b.imag());
    case ComparisonDirection::kGe:
      return a.real() > b.real() || (a.real() == b.real() && a.imag() >= b.imag());
  }
  return false;
}

// Loops once per direction so the inner loop has no switch.
template <typename T, typename Key>
void CompareLoop(ComparisonDirection dir, const Literal& lhs, const Literal& rhs, Literal* out, Key key) {
  auto a = lhs.data<T>();
  auto b = rhs.data<T>();
  auto dst = out->data<bool>();
  const int64_t n = static_cast<int64_t>(dst.size());
  switch (dir) {
    case ComparisonDirection::kEq:
      for (int64_t i = 0; i < n; ++i) dst[i] = key(a[i]) == key(b[i]);
      break;
    case ComparisonDirection::kNe:
      for (int64_t i = 0; i < n; ++i) dst[i] = key(a[i]) != key(b[i]);
      break;
    case ComparisonDirection::kLt:
      for (int64_t i = 0; i < n; ++i) dst[i] = key(a[i]) < key(b[i]);
      break;
    case ComparisonDirection::kLe:
      for (int64_t i = 0; i < n; ++i) dst[i] = key(a[i]) <= key(b[i]);
      break;
    case ComparisonDirection::kGt:
      for (int64_t i = 0; i < n; ++i) dst[i] = key(a[i]) > key(b[i]);
      break;
    case ComparisonDirection::kGe:
      for (int64_t i = 0; i < n; ++i) dst[i] = key(a[i]) >= key(b[i]);
      break;
  }
}

}  // namespace

absl::StatusOr<Literal> EvaluateCompare(const HloInstruction& instruction, const Literal& lhs,
                                        const Literal& rhs) {
  RETURN_IF_ERROR(CheckBinaryOperands(instruction, lhs, rhs));
  const Shape& shape = instruction.shape();
  if (shape.element_type() != PRED) {
    return InvalidArgument("HloEvaluator: %s: compare must produce pred, got %s", InstrLabel(instruction),
                           shape.ToString());
  }
  // The direction must be given and valid (the accessor defaults silently).
  ASSIGN_OR_RETURN(ComparisonDirection dir,
                   StringToComparisonDirection(instruction.attributes().comparison_direction()));
  const ComparisonType ctype = instruction.comparison_type();
  if (!instruction.attributes().comparison_type().empty()) {
    RETURN_IF_ERROR(StringToComparisonType(instruction.attributes().comparison_type()).status());
  }
  const PrimitiveType type = lhs.element_type();
  Literal out(RowMajorShape(shape));

  auto bad_type = [&]() {
    return InvalidArgument("HloEvaluator: %s: comparison type %s is not valid for element type %s",
                           InstrLabel(instruction), ComparisonTypeString(ctype),
                           primitive_util::LowercaseName(type));
  };
  absl::Status status = ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      if (ctype != ComparisonType::kUnsigned) return bad_type();
      CompareLoop<T>(dir, lhs, rhs, &out, [](bool v) { return static_cast<int>(v); });
    } else if constexpr (is_int_v<T> || is_int_n_v<T>) {
      ComparisonType want =
          std::numeric_limits<T>::is_signed ? ComparisonType::kSigned : ComparisonType::kUnsigned;
      if (ctype != want) return bad_type();
      if constexpr (is_int_n_v<T>) {
        CompareLoop<T>(dir, lhs, rhs, &out, [](T v) { return static_cast<int>(v); });
      } else {
        CompareLoop<T>(dir, lhs, rhs, &out, [](T v) { return v; });
      }
    } else if constexpr (is_float_v<T>) {
      if (ctype == ComparisonType::kFloat) {
        CompareLoop<T>(dir, lhs, rhs, &out, [](T v) { return static_cast<ComputeT<T>>(v); });
      } else if (ctype == ComparisonType::kTotalOrder) {
        CompareLoop<T>(dir, lhs, rhs, &out, [](T v) { return TotalOrderKey(v); });
      } else {
        return bad_type();
      }
    } else {
      if (ctype != ComparisonType::kFloat) return bad_type();
      auto a = lhs.data<T>();
      auto b = rhs.data<T>();
      auto dst = out.data<bool>();
      for (size_t i = 0; i < dst.size(); ++i) dst[i] = CompareComplex(dir, a[i], b[i]);
    }
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(status);
  return out;
}

absl::StatusOr<Literal> EvaluateSelect(const HloInstruction& instruction, const Literal& pred,
                                       const Literal& on_true, const Literal& on_false) {
  const Shape& shape = instruction.shape();
  if (shape.IsTuple()) {
    // Tuples are selected whole, by a scalar pred.
    if (!ShapeUtil::IsScalar(pred.shape()) || pred.element_type() != PRED || !on_true.shape().Compatible(shape) ||
        !on_false.shape().Compatible(shape)) {
      return InvalidArgument("HloEvaluator: %s: selecting tuples %s needs a pred scalar and operands of that shape",
                             InstrLabel(instruction), shape.ToString());
    }
    return pred.data<bool>()[0] ? on_true : on_false;
  }
  RETURN_IF_ERROR(ExpectArray(instruction, shape, "result"));
  RETURN_IF_ERROR(ExpectSameDims(instruction, on_true.shape(), shape, "on_true"));
  RETURN_IF_ERROR(ExpectSameDims(instruction, on_false.shape(), shape, "on_false"));
  RETURN_IF_ERROR(ExpectArray(instruction, pred.shape(), "pred"));
  if (pred.element_type() != PRED) {
    return InvalidArgument("HloEvaluator: %s: pred must have type pred, got %s", InstrLabel(instruction),
                           pred.shape().ToString());
  }
  const bool scalar_pred = pred.shape().rank() == 0;
  if (!scalar_pred) RETURN_IF_ERROR(ExpectSameDims(instruction, pred.shape(), shape, "pred"));
  if (on_true.element_type() != shape.element_type() || on_false.element_type() != shape.element_type()) {
    return InvalidArgument("HloEvaluator: %s: branch types must match the result %s", InstrLabel(instruction),
                           shape.ToString());
  }
  if (scalar_pred) return pred.data<bool>()[0] ? on_true : on_false;
  Literal out(RowMajorShape(shape));
  auto p = pred.data<bool>();
  ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = decltype(tag);
    auto a = on_true.data<T>();
    auto b = on_false.data<T>();
    auto o = out.data<T>();
    for (size_t i = 0; i < o.size(); ++i) o[i] = p[i] ? a[i] : b[i];
  });
  return out;
}

absl::StatusOr<Literal> EvaluateClamp(const HloInstruction& instruction, const Literal& min,
                                      const Literal& operand, const Literal& max) {
  const Shape& shape = instruction.shape();
  RETURN_IF_ERROR(ExpectArray(instruction, shape, "result"));
  RETURN_IF_ERROR(ExpectSameDims(instruction, operand.shape(), shape, "operand"));
  for (const auto& [lit, what] : {std::pair<const Literal*, const char*>{&min, "min"}, {&max, "max"}}) {
    RETURN_IF_ERROR(ExpectArray(instruction, lit->shape(), what));
    if (lit->shape().rank() != 0) RETURN_IF_ERROR(ExpectSameDims(instruction, lit->shape(), shape, what));
    if (lit->element_type() != shape.element_type()) {
      return InvalidArgument("HloEvaluator: %s: %s type differs from the result %s", InstrLabel(instruction),
                             what, shape.ToString());
    }
  }
  if (operand.element_type() != shape.element_type()) {
    return InvalidArgument("HloEvaluator: %s: operand type differs from the result %s",
                           InstrLabel(instruction), shape.ToString());
  }
  const bool min_scalar = min.shape().rank() == 0, max_scalar = max.shape().rank() == 0;
  Literal out(RowMajorShape(shape));
  absl::Status status = ArrayTypeSwitch(shape.element_type(), [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    if constexpr (is_complex_v<T>) {
      return InvalidArgument("HloEvaluator: %s: clamp is not defined for complex types",
                             InstrLabel(instruction));
    } else {
      auto lo = min.data<T>();
      auto hi = max.data<T>();
      auto x = operand.data<T>();
      auto o = out.data<T>();
      for (size_t i = 0; i < o.size(); ++i) {
        T l = lo[min_scalar ? 0 : i], h = hi[max_scalar ? 0 : i];
        if constexpr (is_float_v<T>) {
          using C = ComputeT<T>;
          o[i] = T(FloatMin(FloatMax(C(x[i]), C(l)), C(h)));
        } else {
          T v = x[i] > l ? x[i] : l;
          o[i] = v < h ? v : h;
        }
      }
      return absl::OkStatus();
    }
  });
  RETURN_IF_ERROR(status);
  return out;
}

absl::StatusOr<Literal> EvaluateReducePrecision(const HloInstruction& instruction, const Literal& operand) {
  const Shape& shape = instruction.shape();
  RETURN_IF_ERROR(ExpectArray(instruction, shape, "result"));
  RETURN_IF_ERROR(ExpectArray(instruction, operand.shape(), "operand"));
  RETURN_IF_ERROR(ExpectSameDims(instruction, operand.shape(), shape, "operand"));
  const int exponent_bits = instruction.attributes().exponent_bits();
  const int mantissa_bits = instruction.attributes().mantissa_bits();
  if (operand.element_type() != shape.element_type() || exponent_bits < 1 || mantissa_bits < 0) {
    return InvalidArgument("HloEvaluator: %s: needs a float operand of the result's type, exponent_bits >= 1 and "
                           "mantissa_bits >= 0 (got %s, e%d m%d)",
                           InstrLabel(instruction), operand.shape().ToString(), exponent_bits, mantissa_bits);
  }
  std::optional<Literal> result;
  absl::Status status = ArrayTypeSwitch(shape.element_type(), [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    if constexpr (is_float_v<T>) {
      using Uint = std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
      const int src_mantissa = std::numeric_limits<T>::digits - 1;
      const int src_exponent = static_cast<int>(sizeof(T) * 8) - 1 - src_mantissa;
      result = MapUnaryTyped<T, T>(operand, RowMajorShape(shape), [&](T x) {
        Uint bits;
        std::memcpy(&bits, &x, sizeof(T));
        bits = ReducePrecisionBits<Uint>(bits, src_exponent, src_mantissa, exponent_bits, mantissa_bits);
        T out;
        std::memcpy(&out, &bits, sizeof(T));
        return out;
      });
      return absl::OkStatus();
    }
    return InvalidArgument("HloEvaluator: %s: reduce-precision needs a floating-point operand, got %s",
                           InstrLabel(instruction), operand.shape().ToString());
  });
  RETURN_IF_ERROR(status);
  return *std::move(result);
}

}  // namespace evaluator_internal
}  // namespace xla
