#include "tools/hlo_fuzz/precision.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace xla {
namespace hlo_fuzz {
namespace {

bool IsSmallFloat(PrimitiveType t) { return t == F16 || t == BF16; }

// The type arithmetic of `t` is carried out in (f16/bf16 in f32 on both
// backends, rounded back after every op).
PrimitiveType ComputeType(PrimitiveType t) { return IsSmallFloat(t) ? F32 : t; }

double SmallestSubnormal(PrimitiveType t) {
  switch (t) {
    case F16: return std::ldexp(1.0, -24);
    case BF16: return std::ldexp(1.0, -133);
    case F32: return std::ldexp(1.0, -149);
    case F64: return std::ldexp(1.0, -1074);
    default: return 0;
  }
}

// err * mag where an exact operand (err 0) contributes nothing even when its
// magnitude is unbounded.
double Scaled(double err, double mag) { return err == 0 ? 0 : err * mag; }

// The result of one approximated function of exact operands, of type `t`,
// with finite values bounded by `mag`.
Precision Approx(PrimitiveType t, double mag) {
  Precision p;
  p.rel = kApproxUlps * Epsilon(ComputeType(t)) + (IsSmallFloat(t) ? Epsilon(t) : 0);
  p.abs = 8 * SmallestSubnormal(t);
  p.mag = mag;
  return p;
}

Precision Finish(Precision p) {
  if (!std::isfinite(p.abs) || !std::isfinite(p.rel) || p.rel > 0.05) return Unusable();
  return p;
}

// Which NaN and which zero sign an elementwise op returns, from its
// operand's: any arithmetic may pick another NaN; ops mapping +-0 to +-0
// pass a varying zero sign on.
void SetUnaryFlags(HloOpcode opcode, const Precision& x, Precision* r) {
  if (r->unusable) return;
  r->nan_bits_vary = opcode != HloOpcode::kCopy && opcode != HloOpcode::kNegate ? true : x.nan_bits_vary;
  switch (opcode) {
    case HloOpcode::kAbs: case HloOpcode::kExp: case HloOpcode::kCos: case HloOpcode::kLogistic:
    case HloOpcode::kLog: case HloOpcode::kIsFinite: case HloOpcode::kRsqrt:
      r->zero_sign_varies = false;
      break;
    default:
      r->zero_sign_varies = x.zero_sign_varies;
  }
}

Precision FloatUnaryValue(HloOpcode opcode, PrimitiveType t, const Precision& x);

Precision FloatUnary(HloOpcode opcode, PrimitiveType t, const Precision& x) {
  // +-0 gives +-inf.
  if (opcode == HloOpcode::kRsqrt && x.zero_sign_varies) return Unusable();
  Precision r = FloatUnaryValue(opcode, t, x);
  SetUnaryFlags(opcode, x, &r);
  return r;
}

Precision FloatUnaryValue(HloOpcode opcode, PrimitiveType t, const Precision& x) {
  Precision r;
  switch (opcode) {
    case HloOpcode::kCopy:
      return x;
    case HloOpcode::kAbs:
      r = x;
      r.nonneg = true;
      r.product = false;
      return r;
    case HloOpcode::kNegate:
      r = x;
      r.nonneg = false;
      return r;
    // Discontinuous functions: a rounding difference in the operand could
    // move the result by a whole step.
    case HloOpcode::kSign:
      return x.exact() ? Exact(1) : Unusable();
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kRoundNearestAfz:
      if (!x.exact()) return Unusable();
      r = Exact(x.mag + 1);
      r.nonneg = x.nonneg;
      return r;
    case HloOpcode::kIsFinite:
      return x.exact() ? Exact(1) : Unusable();
    case HloOpcode::kSqrt:  // correctly rounded (IEEE) on both sides
      if (!x.exact()) return Unusable();
      r = Exact(std::sqrt(x.mag));
      r.nonneg = true;
      return r;
    case HloOpcode::kRsqrt:
      if (!x.exact()) return Unusable();
      r = Approx(t, kInf);
      r.nonneg = true;
      return r;
    case HloOpcode::kCbrt:
      return x.exact() ? Approx(t, std::cbrt(x.mag)) : Unusable();
    case HloOpcode::kExp:
    case HloOpcode::kExpm1: {
      r = Approx(t, std::exp(x.mag));
      r.nonneg = opcode == HloOpcode::kExp;
      if (x.exact()) return r;
      if (opcode != HloOpcode::kExp) return Unusable();
      // exp(x + d) = exp(x) * e^d: an absolute error of the operand becomes
      // a relative one of the result.
      const double d = x.abs + Scaled(x.rel, x.mag);
      if (!(d <= 1e-3)) return Unusable();
      r.rel += 1.01 * d;
      return r;
    }
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
      // Finite logarithms of any float are below 745 in magnitude.
      return x.exact() ? Approx(t, 800) : Unusable();
    case HloOpcode::kTanh:
      // 1-Lipschitz, and |tanh(x(1+r)) - tanh(x)| <= r |tanh(x)|.
      r = Approx(t, 1);
      r.rel += x.rel;
      r.abs += x.abs;
      return Finish(r);
    case HloOpcode::kLogistic:
      // Slope <= 1/4; a relative error r of x moves it by <= 0.224 r.
      r = Approx(t, 1);
      r.abs += x.abs / 4 + 0.23 * x.rel;
      r.nonneg = true;
      return Finish(r);
    case HloOpcode::kSin:
    case HloOpcode::kCos:
    case HloOpcode::kErf:
      return x.exact() ? Approx(t, 1) : Unusable();
    case HloOpcode::kTan:
      return x.exact() ? Approx(t, kInf) : Unusable();
    default:
      return Unusable();
  }
}

Precision ConvertPrecision(PrimitiveType from, PrimitiveType to, const Precision& x) {
  if (!IsFloat(to)) {
    // To an integer or pred: saturation and truncation are discontinuous.
    if (!x.exact()) return Unusable();
    Precision r = Exact(std::min(x.mag, TypeMagnitude(to)));
    r.nonneg = to == PRED || x.nonneg;
    return r;
  }
  if (!IsFloat(from)) return Exact(std::min(x.mag, TypeMagnitude(from)));
  // Float to float rounds correctly, so exact stays exact (a NaN's payload
  // may change).
  Precision r = x;
  r.product = false;
  r.nan_bits_vary = true;
  if (x.exact()) return r;
  if (Epsilon(to) > Epsilon(from)) {
    r.rel += Epsilon(to);
    r.abs += 8 * SmallestSubnormal(to);
  }
  return Finish(r);
}

}  // namespace

std::string Precision::ToString() const {
  if (unusable) return "unusable";
  if (exact()) {
    return absl::StrCat("exact(mag=", mag, product ? ", product" : "", nan_bits_vary ? ", nan bits vary" : "",
                        zero_sign_varies ? ", zero sign varies" : "", ")");
  }
  return absl::StrCat("approx(rel=", rel, ", abs=", abs, ", mag=", mag, nonneg ? ", nonneg" : "",
                      product ? ", product" : "", ")");
}

Precision Exact(double mag) {
  Precision p;
  p.mag = mag;
  return p;
}

Precision Unusable() {
  Precision p;
  p.unusable = true;
  return p;
}

double Epsilon(PrimitiveType type) {
  switch (type) {
    case F16: return std::ldexp(1.0, -10);
    case BF16: return std::ldexp(1.0, -7);
    case F32: return std::ldexp(1.0, -23);
    case F64: return std::ldexp(1.0, -52);
    default: return 0;
  }
}

bool IsFloat(PrimitiveType type) { return type == F16 || type == BF16 || type == F32 || type == F64; }

double TypeMagnitude(PrimitiveType type) {
  switch (type) {
    case PRED: return 1;
    case S8: return 128;
    case U8: return 255;
    case S16: return 32768;
    case U16: return 65535;
    case S32: return std::ldexp(1.0, 31);
    case U32: return std::ldexp(1.0, 32);
    case S64: return std::ldexp(1.0, 63);
    case U64: return std::ldexp(1.0, 64);
    case F16: return 65504;
    case BF16: return 3.3895313892515355e38;
    case F32: return 3.4028234663852886e38;
    case F64: return 1.7976931348623157e308;
    default: return kInf;
  }
}

Precision Join(absl::Span<const Precision> operands) {
  Precision r;
  if (operands.empty()) return r;
  r.mag = 0;
  r.nonneg = true;
  r.may_be_inf = false;
  for (const Precision& p : operands) {
    if (p.unusable) return Unusable();
    r.rel = std::max(r.rel, p.rel);
    r.abs = std::max(r.abs, p.abs);
    r.mag = std::max(r.mag, p.mag);
    r.nonneg = r.nonneg && p.nonneg;
    r.product = r.product || p.product;
    r.nan_bits_vary = r.nan_bits_vary || p.nan_bits_vary;
    r.zero_sign_varies = r.zero_sign_varies || p.zero_sign_varies;
    r.may_be_inf = r.may_be_inf || p.may_be_inf;
  }
  return r;
}

Precision UnaryPrecision(HloOpcode opcode, PrimitiveType in, PrimitiveType out, const Precision& x) {
  if (x.unusable) return Unusable();
  if (opcode == HloOpcode::kConvert) return ConvertPrecision(in, out, x);
  if (IsFloat(in)) return FloatUnary(opcode, in, x);
  // Integer and pred ops are exact as long as their operand is.
  if (!x.exact()) return Unusable();
  switch (opcode) {
    case HloOpcode::kAbs:
    case HloOpcode::kNegate:
    case HloOpcode::kCopy:
      return Exact(x.mag);
    case HloOpcode::kSign:
      return Exact(1);
    default:
      return Exact(TypeMagnitude(out));
  }
}

Precision FloatBinaryValue(HloOpcode opcode, PrimitiveType type, const Precision& a, const Precision& b);

Precision BinaryPrecision(HloOpcode opcode, PrimitiveType type, const Precision& a, const Precision& b) {
  if (a.unusable || b.unusable) return Unusable();
  if (!IsFloat(type)) {
    if (!a.exact() || !b.exact()) return Unusable();
    switch (opcode) {
      case HloOpcode::kCompare: return Exact(1);
      case HloOpcode::kMaximum:
      case HloOpcode::kMinimum: return Exact(std::max(a.mag, b.mag));
      default: return Exact(TypeMagnitude(type));
    }
  }
  if (opcode == HloOpcode::kCompare) return a.exact() && b.exact() ? Exact(1) : Unusable();
  // The sign of a zero divisor, base or atan2 argument decides the sign of
  // an infinity or of pi.
  const bool sign_sensitive =
      (opcode == HloOpcode::kDivide && b.zero_sign_varies) ||
      ((opcode == HloOpcode::kPower || opcode == HloOpcode::kAtan2) && (a.zero_sign_varies || b.zero_sign_varies));
  if (sign_sensitive) return Unusable();
  Precision r = FloatBinaryValue(opcode, type, a, b);
  if (!r.unusable) {
    r.nan_bits_vary = true;
    r.zero_sign_varies = a.zero_sign_varies || b.zero_sign_varies;
  }
  return r;
}

Precision FloatBinaryValue(HloOpcode opcode, PrimitiveType type, const Precision& a, const Precision& b) {
  const double eps = Epsilon(type);
  const bool small = IsSmallFloat(type);
  Precision r;
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract: {
      // LLVM may contract a*b+c into one FMA, skipping the product's
      // rounding (f16/bf16 products are rounded to their type in between).
      double fused = 0;
      if (!small && a.product) fused += a.mag;
      if (!small && b.product) fused += b.mag;
      r.mag = a.mag + b.mag;
      const bool same_sign_sum = opcode == HloOpcode::kAdd && a.nonneg && b.nonneg;
      if (a.exact() && b.exact() && fused == 0) {
        r.nonneg = same_sign_sum;
        return r;
      }
      if (same_sign_sum) {
        // No cancellation: relative errors do not grow.
        r.rel = std::max(a.rel, b.rel) + eps;
        r.abs = a.abs + b.abs + Scaled(eps, fused);
        r.nonneg = true;
      } else {
        r.abs = a.abs + b.abs + Scaled(a.rel, a.mag) + Scaled(b.rel, b.mag) + eps * r.mag + Scaled(eps, fused);
      }
      return Finish(r);
    }
    case HloOpcode::kMultiply:
      r.mag = a.mag * b.mag;
      r.product = !small;
      r.nonneg = a.nonneg && b.nonneg;
      if (a.exact() && b.exact()) return r;
      r.rel = a.rel + b.rel + a.rel * b.rel + eps;
      r.abs = Scaled(a.abs, b.mag * (1 + b.rel)) + Scaled(b.abs, a.mag * (1 + a.rel)) + a.abs * b.abs;
      return Finish(r);
    case HloOpcode::kDivide:
      // A perturbed divisor near zero could change sign or overflow.
      if (!b.exact()) return Unusable();
      if (a.exact()) return Exact(kInf);
      if (a.abs > 0) return Unusable();
      r.rel = a.rel + eps;
      return Finish(r);
    case HloOpcode::kRemainder:
      // |fmod(a, b)| <= |a|, and < |b| unless b is infinite (fmod(a, inf) = a).
      if (!a.exact() || !b.exact()) return Unusable();
      return Exact(b.may_be_inf ? a.mag : std::min(a.mag, b.mag));
    case HloOpcode::kPower:
      return a.exact() && b.exact() ? Approx(type, kInf) : Unusable();
    case HloOpcode::kAtan2:
      return a.exact() && b.exact() ? Approx(type, 4) : Unusable();
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum: {
      const Precision both[] = {a, b};
      r = Join(both);
      r.product = false;
      r.nonneg = opcode == HloOpcode::kMaximum ? (a.nonneg || b.nonneg) : (a.nonneg && b.nonneg);
      return r;
    }
    default:
      return Unusable();
  }
}

Precision ClampPrecision(const Precision& lo, const Precision& x, const Precision& hi) {
  const Precision all[] = {lo, x, hi};
  Precision r = Join(all);
  if (r.unusable) return r;
  // Finite bounds bound the result; an infinite one does not (clamp(-1, x,
  // inf) is any x >= -1).
  if (!lo.may_be_inf && !hi.may_be_inf) r.mag = std::min(x.mag, std::max(lo.mag, hi.mag));
  r.nonneg = lo.nonneg;
  r.product = false;
  r.nan_bits_vary = true;
  return r;
}

Precision TotalOrderComparePrecision(const Precision& a, const Precision& b) {
  if (!a.exact() || !b.exact() || a.nan_bits_vary || b.nan_bits_vary || a.zero_sign_varies || b.zero_sign_varies) {
    return Unusable();
  }
  return Exact(1);
}

Precision SelectPrecision(const Precision& pred, const Precision& on_true, const Precision& on_false) {
  if (!pred.exact()) return Unusable();
  const Precision both[] = {on_true, on_false};
  return Join(both);
}

Precision ReassociatedSumPrecision(PrimitiveType acc, PrimitiveType out, const Precision& term, int64_t n) {
  if (term.unusable) return Unusable();
  if (n == 0) return Exact(0);
  if (n == 1) {
    Precision r = term;
    r.product = false;
    r = ConvertPrecision(acc, out, r);
    r.nan_bits_vary = r.zero_sign_varies = true;
    return r;
  }
  const double m = term.mag;
  const double bound = static_cast<double>(n) * m;
  // Another order could overflow where the interpreter's does not (or round
  // across the result type's overflow threshold).
  if (!(bound <= TypeMagnitude(acc) / 4) || !(bound <= TypeMagnitude(out) / 4)) return Unusable();
  Precision r;
  r.mag = bound;
  r.nonneg = term.nonneg;
  // Each of the n-1 partial sums rounds by at most eps * n * m.
  r.abs = static_cast<double>(n) * (term.abs + Scaled(term.rel, m)) + static_cast<double>(n) * bound * Epsilon(acc);
  if (out != acc) r.abs += Epsilon(out) * bound;
  r.nan_bits_vary = r.zero_sign_varies = true;
  return Finish(r);
}

Precision ContractionPrecision(PrimitiveType in, PrimitiveType out, const Precision& lhs, const Precision& rhs,
                               int64_t n) {
  if (lhs.unusable || rhs.unusable) return Unusable();
  if (!IsFloat(out)) {
    return lhs.exact() && rhs.exact() ? Exact(TypeMagnitude(out)) : Unusable();
  }
  const PrimitiveType acc = ComputeType(out);
  Precision term = BinaryPrecision(HloOpcode::kMultiply, acc, lhs, rhs);
  return ReassociatedSumPrecision(acc, out, term, n);
}

}  // namespace hlo_fuzz
}  // namespace xla
