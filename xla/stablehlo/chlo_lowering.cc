// chlo ops, decomposed into HLO as upstream's chlo-legalize-to-stablehlo
// does where HLO has no single op: overflow-safe and cancellation-free
// formulations, with f16/bf16 computed in f32 (as XLA does).
#include <cmath>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/chlo_formulas.h"
#include "xla/stablehlo/emitter.h"
#include "xla/stablehlo/expression_builder.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {
namespace {

using H = HloInstruction*;

// sqrt of the largest finite value of `type` (f32 or f64): above it, x*x
// overflows and the large-argument forms take over.
double SqrtMax(PrimitiveType type) {
  return type == F64 ? std::sqrt(std::numeric_limits<double>::max())
                     : std::sqrt(static_cast<double>(std::numeric_limits<float>::max()));
}

// Real formulas on f32/f64 operands.
H Sinh(ExpressionBuilder& b, H x) {
  // e^(|x| + log 1/2) never overflows before sinh does; near zero, expm1
  // avoids the cancellation of e^x - e^-x.
  H half_log = b.Const(std::log(0.5), x);
  H large = b.Sub(b.Exp(b.Add(x, half_log)), b.Exp(b.Sub(half_log, x)));
  H e = b.Expm1(x);
  H small = b.Mul(b.Const(0.5, x), b.Add(e, b.Div(e, b.Add(e, b.Const(1, x)))));
  return b.Select(b.Compare("LT", b.Abs(x), b.Const(1, x)), small, large);
}

H Cosh(ExpressionBuilder& b, H x) {
  H half_log = b.Const(std::log(0.5), x);
  return b.Add(b.Exp(b.Add(x, half_log)), b.Exp(b.Sub(half_log, x)));
}

H Asinh(ExpressionBuilder& b, H x, PrimitiveType type) {
  H a = b.Abs(x);
  H one = b.Const(1, x);
  // log1p(a + a^2 / (1 + sqrt(1 + a^2))) is exact near 0; log(a) + log 2
  // where a^2 would overflow.
  H small = b.Log1p(b.Add(a, b.Div(b.Mul(a, a), b.Add(one, b.Sqrt(b.Add(one, b.Mul(a, a)))))));
  H large = b.Add(b.Log(a), b.Const(std::log(2.0), x));
  H r = b.Select(b.Compare("GE", a, b.Const(SqrtMax(type), x)), large, small);
  return b.Mul(b.Sign(x), r);
}

H Acosh(ExpressionBuilder& b, H x, PrimitiveType type) {
  // acosh(x) = log1p(t + sqrt(t (t + 2))), t = x - 1: no cancellation near 1.
  H t = b.Sub(x, b.Const(1, x));
  H small = b.Log1p(b.Add(t, b.Sqrt(b.Mul(t, b.Add(t, b.Const(2, x))))));
  H large = b.Add(b.Log(x), b.Const(std::log(2.0), x));
  return b.Select(b.Compare("GE", x, b.Const(SqrtMax(type), x)), large, small);
}

H Atanh(ExpressionBuilder& b, H x) {
  return b.Mul(b.Const(0.5, x), b.Sub(b.Log1p(x), b.Log1p(b.Neg(x))));
}

H Asin(ExpressionBuilder& b, H x) {
  // 2 atan2(x, 1 + sqrt((1 - x)(1 + x))).
  H one = b.Const(1, x);
  H root = b.Sqrt(b.Mul(b.Sub(one, x), b.Add(one, x)));
  return b.Mul(b.Const(2, x), b.Atan2(x, b.Add(one, root)));
}

H Acos(ExpressionBuilder& b, H x) {
  // 2 atan2(sqrt((1 - x)(1 + x)), 1 + x): no cancellation near +-1; at
  // -1 it is atan2(0, 0), so pi is selected there.
  H one = b.Const(1, x);
  H opx = b.Add(one, x);
  H r = b.Mul(b.Const(2, x), b.Atan2(b.Sqrt(b.Mul(b.Sub(one, x), opx)), opx));
  return b.Select(b.Compare("EQ", x, b.Const(-1, x)), b.Const(M_PI, x), r);
}

// The next representable value after x towards y (bit arithmetic, exact).
H NextAfter(ExpressionBuilder& b, H x, H y) {
  const PrimitiveType type = x->shape().element_type();
  const int bits = primitive_util::BitWidth(type);
  const PrimitiveType int_type = bits == 64 ? S64 : bits == 32 ? S32 : S16;
  H xi = b.BitcastConvert(x, int_type);
  H yi = b.BitcastConvert(y, int_type);
  const double sign_bit = bits == 64 ? -9223372036854775808.0 : -std::ldexp(1.0, bits - 1);
  H sign_mask = b.Const(sign_bit, xi);
  // From zero: the smallest subnormal with y's sign.
  H from_zero = b.Binary(HloOpcode::kOr, b.Binary(HloOpcode::kAnd, yi, sign_mask), b.Const(1, xi));
  // Away from zero adds 1 to the bits (of either sign), towards subtracts 1.
  H zero = b.Const(0, x);
  H away = b.Select(b.Compare("GT", x, zero), b.Compare("GT", y, x), b.Compare("LT", y, x));
  H stepped = b.Add(xi, b.Select(away, b.Const(1, xi), b.Const(-1, xi)));
  H r = b.Select(b.Compare("EQ", x, zero), from_zero, stepped);
  H result = b.BitcastConvert(r, type);
  result = b.Select(b.Compare("EQ", x, y), y, result);
  H nan = b.Add(x, y);
  H any_nan = b.Binary(HloOpcode::kOr, b.Compare("NE", x, x), b.Compare("NE", y, y));
  return b.Select(any_nan, nan, result);
}

// Lanczos approximation (g = 7, 9 terms), as XLA's math library uses for
// lgamma and digamma.
constexpr double kLanczosGamma = 7;
constexpr double kBaseLanczosCoeff = 0.99999999999980993227684700473478;
constexpr double kLanczosCoefficients[] = {676.520368121885098567009190444019, -1259.13921672240287047156078755283,
                                           771.3234287776530788486528258894,   -176.61502916214059906584551354,
                                           12.507343278686904814458936853,     -0.13857109526572011689554706,
                                           9.984369578019570859563e-6,         1.50563273514931155834e-7};

H Lgamma(ExpressionBuilder& b, H x) {
  const double pi = M_PI;
  H one = b.Const(1, x);
  H half = b.Const(0.5, x);
  // Below 1/2, the reflection formula lgamma(x) = log(pi / |sin(pi x)|) -
  // lgamma(1 - x) applies.
  H reflect = b.Compare("LT", x, half);
  H z = b.Select(reflect, b.Neg(x), b.Sub(x, one));
  H acc = b.Const(kBaseLanczosCoeff, x);
  for (int i = 0; i < 8; ++i) acc = b.Add(acc, b.Div(b.Const(kLanczosCoefficients[i], x), b.Add(z, b.Const(i + 1, x))));
  H t = b.Add(z, b.Const(kLanczosGamma + 0.5, x));
  // log(t) without the rounding of t itself.
  H log_t = b.Add(b.Const(std::log(kLanczosGamma + 0.5), x), b.Log1p(b.Div(z, b.Const(kLanczosGamma + 0.5, x))));
  H log_y = b.Add(b.Add(b.Const(std::log(std::sqrt(2 * pi)), x), b.Mul(b.Sub(b.Add(z, half), b.Div(t, log_t)), log_t)),
                  b.Log(acc));
  H abs_x = b.Abs(x);
  H frac = b.Sub(abs_x, b.Unary(HloOpcode::kFloor, abs_x));
  H reduced = b.Select(b.Compare("GT", frac, half), b.Sub(one, frac), frac);
  H denom = b.Log(b.Sin(b.Mul(b.Const(pi, x), reduced)));
  H finite = b.Unary(HloOpcode::kIsFinite, denom);
  H reflection = b.Select(finite, b.Sub(b.Sub(b.Const(std::log(pi), x), denom), log_y), b.Neg(denom));
  H r = b.Select(reflect, reflection, log_y);
  H inf = b.Const(std::numeric_limits<double>::infinity(), x);
  return b.Select(b.Compare("EQ", abs_x, inf), inf, r);
}

H Digamma(ExpressionBuilder& b, H x) {
  const double pi = M_PI;
  H one = b.Const(1, x);
  H half = b.Const(0.5, x);
  H reflect = b.Compare("LT", x, half);
  H z = b.Select(reflect, b.Neg(x), b.Sub(x, one));
  H num = b.Const(0, x);
  H denom = b.Const(kBaseLanczosCoeff, x);
  for (int i = 0; i < 8; ++i) {
    H d = b.Add(z, b.Const(i + 1, x));
    H c = b.Const(kLanczosCoefficients[i], x);
    num = b.Sub(num, b.Div(c, b.Mul(d, d)));
    denom = b.Add(denom, b.Div(c, d));
  }
  H t = b.Add(z, b.Const(kLanczosGamma + 0.5, x));
  H log_t = b.Add(b.Const(std::log(kLanczosGamma + 0.5), x), b.Log1p(b.Div(z, b.Const(kLanczosGamma + 0.5, x))));
  H y = b.Sub(b.Add(log_t, b.Div(num, denom)), b.Div(b.Const(kLanczosGamma, x), t));
  // digamma(x) = digamma(1 - x) - pi cot(pi x), with x reduced for accuracy.
  H floor_x = b.Unary(HloOpcode::kFloor, x);
  H reduced = b.Add(x, b.Abs(b.Unary(HloOpcode::kFloor, b.Add(x, half))));
  H pi_r = b.Mul(b.Const(pi, x), reduced);
  H reflection = b.Sub(y, b.Div(b.Mul(b.Const(pi, x), b.Cos(pi_r)), b.Sin(pi_r)));
  H r = b.Select(reflect, reflection, y);
  // Poles at the non-positive integers.
  H pole = b.Binary(HloOpcode::kAnd, b.Compare("LE", x, b.Const(0, x)), b.Compare("EQ", x, floor_x));
  return b.Select(pole, b.Const(std::numeric_limits<double>::quiet_NaN(), x), r);
}

}  // namespace

absl::StatusOr<Values> Emitter::LowerChloOp(const Op& op, Scope& scope) {
  const std::string name = op.name.substr(5);
  if (name == "scan") return LowerScan(op, scope);
  if (name == "ragged_dot") return LowerRaggedDot(op, scope);
  ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
  if (name == "tan" || name == "erf") {
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, name == "tan" ? HloOpcode::kTan : HloOpcode::kErf, operands));
    return Values{r};
  }
  if (name == "top_k") {
    // The k largest of each row along the last dimension, largest first;
    // XLA's order: floats by total order, equal values by position (topk).
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(int64_t k, IntAttr(op, {"k"}));
    HloInstructionProto attrs;
    attrs.set_k(k);
    attrs.set_largest(true);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kTopK, operands, attrs));
    return Untuple(scope, r);
  }
  ExpressionBuilder b(this, &op, &scope);
  if (name == "next_after") {
    RETURN_IF_ERROR(ExpectOperands(op, 2));
    if (!primitive_util::IsFloatingPointType(operands[0]->shape().element_type()) ||
        !operands[0]->shape().Compatible(operands[1]->shape())) {
      return OpError(op, "takes two float operands of one shape");
    }
    H r = NextAfter(b, operands[0], operands[1]);
    RETURN_IF_ERROR(b.status());
    return Values{r};
  }
  static const char* kUnary[] = {"sinh", "cosh", "asinh", "acosh", "atanh", "asin", "acos", "atan", "lgamma", "digamma",
                                 "erf_inv", "erfc", "bessel_i1e"};
  bool unary = false;
  for (const char* u : kUnary) unary |= name == u;
  if (!unary) return OpError(op, "this chlo op has no decomposition yet");
  RETURN_IF_ERROR(ExpectOperands(op, 1));
  H x = operands[0];
  const PrimitiveType type = x->shape().element_type();
  if (primitive_util::IsComplexType(type)) {
    H r = nullptr;
    if (name == "asin") r = ComplexAsin(b, x);
    else if (name == "acos") r = ComplexAcos(b, x);
    else if (name == "asinh") r = ComplexAsinh(b, x);
    else if (name == "acosh") r = ComplexAcosh(b, x);
    else if (name == "atanh") r = ComplexAtanh(b, x);
    else if (name == "atan") r = ComplexAtan(b, x);
    if (r != nullptr) {
      RETURN_IF_ERROR(b.status());
      return Values{r};
    }
    if (name != "sinh" && name != "cosh") return OpError(op, "the complex form has no decomposition yet");
    // sinh(a+bi) = sinh a cos b + i cosh a sin b; cosh(a+bi) = cosh a cos b + i sinh a sin b.
    H re = b.Unary(HloOpcode::kReal, x);
    H im = b.Unary(HloOpcode::kImag, x);
    H sh = Sinh(b, re), ch = Cosh(b, re);
    H real = b.Mul(name == "sinh" ? sh : ch, b.Cos(im));
    H imag = b.Mul(name == "sinh" ? ch : sh, b.Sin(im));
    r = b.Binary(HloOpcode::kComplex, real, imag);
    RETURN_IF_ERROR(b.status());
    return Values{r};
  }
  if (!primitive_util::IsFloatingPointType(type)) return OpError(op, "takes a float or complex operand");
  const PrimitiveType compute = type == F64 ? F64 : F32;
  H xc = b.Convert(x, compute);
  H r;
  if (name == "sinh") r = Sinh(b, xc);
  else if (name == "cosh") r = Cosh(b, xc);
  else if (name == "asinh") r = Asinh(b, xc, compute);
  else if (name == "acosh") r = Acosh(b, xc, compute);
  else if (name == "atanh") r = Atanh(b, xc);
  else if (name == "asin") r = Asin(b, xc);
  else if (name == "acos") r = Acos(b, xc);
  else if (name == "lgamma") r = Lgamma(b, xc);
  else if (name == "digamma") r = Digamma(b, xc);
  else if (name == "erf_inv") r = ErfInv(b, xc);
  else if (name == "erfc") r = Erfc(b, xc);
  else if (name == "bessel_i1e") r = BesselI1e(b, xc);
  else r = b.Atan2(xc, b.Const(1, xc));
  r = b.Convert(r, type);
  RETURN_IF_ERROR(b.status());
  return Values{r};
}

}  // namespace stablehlo
}  // namespace xla
