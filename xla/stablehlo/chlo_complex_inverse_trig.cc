// Complex asin, acos, asinh, acosh, atanh and atan, on real and imaginary
// parts so that no intermediate overflows, underflows or cancels.
//
// asin/acos follow Hull, Fairgrieve and Tang, "Implementing the complex
// arcsine and arccosine functions using exception handling" (TOMS 1997) in
// the reduced-region form StableHLO's chlo decomposition uses (3 regions
// for the real part, 4 for the imaginary part); asinh and acosh are
// rotations of them. atanh uses Kahan's real-part form
// log1p(4x / ((1 - x)^2 + y^2)) / 4, which stays accurate where the
// textbook (log1p(z) - log1p(-z)) / 2 cancels (|z| large); atan is a
// rotation of atanh.
#include <cmath>
#include <limits>

#include "xla/stablehlo/chlo_formulas.h"

namespace xla {
namespace stablehlo {
namespace {

using H = HloInstruction*;

H Re(ExpressionBuilder& b, H z) { return b.Unary(HloOpcode::kReal, z); }
H Im(ExpressionBuilder& b, H z) { return b.Unary(HloOpcode::kImag, z); }
H MakeComplex(ExpressionBuilder& b, H re, H im) { return b.Binary(HloOpcode::kComplex, re, im); }

double MaxFinite(H x) {
  return x->shape().element_type() == F64 ? std::numeric_limits<double>::max() : std::numeric_limits<float>::max();
}
double MinNormal(H x) {
  return x->shape().element_type() == F64 ? std::numeric_limits<double>::min() : std::numeric_limits<float>::min();
}

// Whether x's sign bit is set (true for -0 too).
H SignBit(ExpressionBuilder& b, H x) {
  H bits = b.BitcastConvert(x, x->shape().element_type() == F64 ? S64 : S32);
  return b.Compare("LT", bits, b.Const(0, bits));
}

// hypot(a, b) of non-negative a, b without overflow: mx sqrt(1 + (mn/mx)^2),
// with the first-order term where the square root rounds to 1.
H Hypot(ExpressionBuilder& b, H p, H q) {
  H one = b.Const(1, p);
  H mx = b.Max(p, q);
  H mn = b.Min(p, q);
  H ratio = b.Div(mn, mx);
  H r = b.Mul(ratio, ratio);
  H sqa = b.Sqrt(b.Add(one, r));
  H tiny_r = b.And(b.Compare("EQ", sqa, one), b.Compare("GT", r, b.Const(0, p)));
  H general = b.Select(tiny_r, b.Add(mx, b.Div(b.Mul(mx, r), b.Const(2, p))), b.Mul(mx, sqa));
  // mn == mx also covers 0/0.
  return b.Select(b.Compare("EQ", mx, mn), b.Mul(b.Const(std::sqrt(2.0), p), mx), general);
}

// The parts Hull et al.'s arcsine and arccosine share, for x = |Re z|,
// y = |Im z|: asin's real part is atan2(Re z, q) and acos's atan2(q, Re z);
// both imaginary parts are +-imag.
struct AsinAcosParts {
  H q;
  H imag;
};

AsinAcosParts HullAsinAcos(ExpressionBuilder& b, H x, H y) {
  H one = b.Const(1, x), half = b.Const(0.5, x), zero = b.Const(0, x);
  const double safe_max = std::sqrt(MaxFinite(x)) / 8;
  const double safe_min = std::sqrt(MinNormal(x)) * 4;
  H safe_max_c = b.Const(safe_max, x);
  H xp1 = b.Add(x, one), xm1 = b.Sub(x, one);
  // a = (|z + 1| + |z - 1|) / 2 >= 1.
  H r = Hypot(b, b.Abs(xp1), y);
  H s = Hypot(b, b.Abs(xm1), y);
  H a = b.Mul(half, b.Add(r, s));
  H half_apx = b.Mul(half, b.Add(a, x));
  H yy = b.Mul(y, y);
  H rpxp1 = b.Add(r, xp1);
  H smxm1 = b.Sub(s, xm1);
  H spxm1 = b.Add(s, xm1);

  // q = sqrt(a^2 - x^2), with a - x from sums rather than differences;
  // y itself where a ~ |z| (Hull's case 5).
  H q_le1 = b.Sqrt(b.Mul(half_apx, b.Add(b.Div(yy, rpxp1), smxm1)));
  H q_gt1 = b.Mul(y, b.Sqrt(b.Add(b.Div(half_apx, rpxp1), b.Div(half_apx, spxm1))));
  H q = b.Select(b.Compare("GE", b.Max(x, y), safe_max_c), y, b.Select(b.Compare("LE", x, one), q_le1, q_gt1));

  // imag = log(a + sqrt(a^2 - 1)) = log1p(am1 + sqrt(am1 (a + 1))).
  // For large y it is log 2 + log y + log1p((x/y)^2) / 2; the threshold
  // moves down by 1e-6 (or up by 1e2 for huge x) so that Hull's case 4
  // (x large but below eps y) falls in this region too.
  H safe_max_opt = b.Select(b.Compare("LT", x, b.Const(safe_max * 1e12, x)), b.Const(safe_max * 1e-6, x),
                            b.Const(safe_max * 1e2, x));
  H y_large = b.Compare("GE", y, safe_max_opt);
  H mx = b.Select(y_large, y, x);
  H inf = b.Const(std::numeric_limits<double>::infinity(), x);
  H xoy = b.Select(b.And(y_large, b.Not(b.Compare("EQ", y, inf))), b.Div(x, y), zero);
  H imag_large = b.Add(b.Add(b.Const(std::log(2.0), x), b.Log(mx)), b.Mul(half, b.Log1p(b.Mul(xoy, xoy))));
  // Tiny y with x < 1 (Hull's cases 1 and 2): a - 1 = -(x + 1)(x - 1) / (a + 1).
  H tiny = b.And(b.Compare("LT", y, b.Const(safe_min, x)), b.Compare("LT", x, one));
  H ap1 = b.Add(a, one);
  H half_yy = b.Mul(half, yy);
  H divide_half_yy_rpxp1 = b.Div(half_yy, rpxp1);
  H am1_general = b.Select(b.Compare("GE", x, one), b.Add(divide_half_yy_rpxp1, b.Mul(half, spxm1)),
                           b.Select(b.Compare("LE", a, b.Const(1.5, x)),
                                    b.Add(divide_half_yy_rpxp1, b.Div(half_yy, smxm1)), b.Sub(a, one)));
  H am1 = b.Select(tiny, b.Neg(b.Div(b.Mul(xp1, xm1), ap1)), am1_general);
  H sq = b.Sqrt(b.Mul(am1, ap1));
  H imag_small = b.Select(tiny, b.Div(y, sq), b.Log1p(b.Add(am1, sq)));
  H imag = b.Select(b.Compare("GE", mx, b.Select(y_large, safe_max_opt, safe_max_c)), imag_large, imag_small);
  return {q, imag};
}

}  // namespace

H ComplexAsin(ExpressionBuilder& b, H z) {
  H sx = Re(b, z), sy = Im(b, z);
  AsinAcosParts p = HullAsinAcos(b, b.Abs(sx), b.Abs(sy));
  H zero = b.Const(0, sx);
  return MakeComplex(b, b.Atan2(sx, p.q), b.Select(b.Compare("LT", sy, zero), b.Neg(p.imag), p.imag));
}

H ComplexAcos(ExpressionBuilder& b, H z) {
  H sx = Re(b, z), sy = Im(b, z);
  AsinAcosParts p = HullAsinAcos(b, b.Abs(sx), b.Abs(sy));
  H zero = b.Const(0, sx);
  return MakeComplex(b, b.Atan2(p.q, sx), b.Select(b.Compare("LT", sy, zero), p.imag, b.Neg(p.imag)));
}

H ComplexAsinh(ExpressionBuilder& b, H z) {
  // asinh(z) = -i asin(iz).
  H w = ComplexAsin(b, MakeComplex(b, b.Neg(Im(b, z)), Re(b, z)));
  return MakeComplex(b, Im(b, w), b.Neg(Re(b, w)));
}

H ComplexAcosh(ExpressionBuilder& b, H z) {
  // acosh(z) = i acos(z) for Im z >= 0, -i acos(z) below (the principal
  // branch has Re acosh >= 0).
  H w = ComplexAcos(b, z);
  H rotated = MakeComplex(b, b.Neg(Im(b, w)), Re(b, w));
  H sy = Im(b, z);
  return b.Select(b.Compare("LT", sy, b.Const(0, sy)), b.Unary(HloOpcode::kNegate, rotated), rotated);
}

H ComplexAtanh(ExpressionBuilder& b, H z) {
  H x = Re(b, z), y = Im(b, z);
  H one = b.Const(1, x), zero = b.Const(0, x), quarter = b.Const(0.25, x), half = b.Const(0.5, x);
  H ax = b.Abs(x), ay = b.Abs(y);
  // Re = log(|1 + z|^2 / |1 - z|^2) / 4 = log1p(4x / ((1 - x)^2 + y^2)) / 4;
  // Im = atan2(2y, (1 - x)(1 + x) - y^2) / 2.
  H omx = b.Sub(one, x);
  H re = b.Mul(quarter, b.Log1p(b.Div(b.Mul(b.Const(4, x), x), b.Add(b.Mul(omx, omx), b.Mul(y, y)))));
  H im = b.Mul(half, b.Atan2(b.Mul(b.Const(2, x), y), b.Sub(b.Mul(omx, b.Add(one, x)), b.Mul(y, y))));
  // Where the squares could overflow, atanh(z) ~ 1/z: Re = x / |z|^2
  // (scaled by the larger part m), Im = +-pi/2 with y's sign.
  H m = b.Max(ax, ay);
  H xm = b.Div(x, m), ym = b.Div(y, m);
  H re_large = b.Div(b.Div(xm, b.Add(b.Mul(xm, xm), b.Mul(ym, ym))), m);
  H inf = b.Const(std::numeric_limits<double>::infinity(), x);
  // 1/inf: a zero with x's sign.
  re_large = b.Select(b.Compare("EQ", m, inf), b.Select(SignBit(b, x), b.Const(-0.0, x), zero), re_large);
  H half_pi = b.Const(M_PI / 2, x);
  H im_large = b.Select(SignBit(b, y), b.Neg(half_pi), half_pi);
  H large = b.Compare("GE", m, b.Const(std::sqrt(MaxFinite(x)) / 8, x));
  return MakeComplex(b, b.Select(large, re_large, re), b.Select(large, im_large, im));
}

H ComplexAtan(ExpressionBuilder& b, H z) {
  // atan(z) = -i atanh(iz).
  H w = ComplexAtanh(b, MakeComplex(b, b.Neg(Im(b, z)), Re(b, z)));
  return MakeComplex(b, Im(b, w), b.Neg(Re(b, w)));
}

}  // namespace stablehlo
}  // namespace xla
