// erf_inv and erfc, with the polynomial approximations XLA uses: Giles'
// "Approximating the erfinv function" (GPU Computing Gems, 2011) for
// erf_inv, Cephes' ndtr.c rational forms for erfc.
#include <limits>

#include "xla/stablehlo/chlo_formulas.h"

namespace xla {
namespace stablehlo {
namespace {

using H = HloInstruction*;

bool IsF64(H x) { return x->shape().element_type() == F64; }

// Giles' single-precision fit: a polynomial in w - 2.5 (central) or
// sqrt(w) - 3 (tails), w = -log(1 - x^2).
H ErfInvF32(ExpressionBuilder& b, H x, H w) {
  static constexpr double kCentral[] = {2.81022636e-08, 3.43273939e-07, -3.5233877e-06,
                                        -4.39150654e-06, 0.00021858087, -0.00125372503,
                                        -0.00417768164, 0.246640727, 1.50140941};
  static constexpr double kTail[] = {-0.000200214257, 0.000100950558, 0.00134934322,
                                     -0.00367342844, 0.00573950773, -0.0076224613,
                                     0.00943887047, 1.00167406, 2.83297682};
  H central = b.Compare("LT", w, b.Const(5, x));
  H central_p = b.Polynomial(b.Sub(w, b.Const(2.5, x)), kCentral);
  H tail_p = b.Polynomial(b.Sub(b.Sqrt(w), b.Const(3, x)), kTail);
  return b.Select(central, central_p, tail_p);
}

// Giles' double-precision fit: three ranges of w.
H ErfInvF64(ExpressionBuilder& b, H x, H w) {
  static constexpr double kBelow6_25[] = {
      -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
      1.115787767802518096e-17,   -1.333171662854620906e-16, 2.0972767875968561637e-17,
      6.6376381343583238325e-15,  -4.0545662729752068639e-14, -8.1519341976054721522e-14,
      2.6335093153082322977e-12,  -1.2975133253453532498e-11, -5.4154120542946279317e-11,
      1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08,
      4.2347877827932403518e-07,  -1.3654692000834678645e-06, -1.3882523362786468719e-05,
      0.0001867342080340571352,   -0.00074070253416626697512, -0.0060336708714301490533,
      0.24015818242558961693,     1.6536545626831027356};
  static constexpr double kBelow16[] = {
      2.2137376921775787049e-09,  9.0756561938885390979e-08, -2.7517406297064545428e-07,
      1.8239629214389227755e-08,  1.5027403968909827627e-06, -4.013867526981545969e-06,
      2.9234449089955446044e-06,  1.2475304481671778723e-05, -4.7318229009055733981e-05,
      6.8284851459573175448e-05,  2.4031110387097893999e-05, -0.0003550375203628474796,
      0.00095328937973738049703,  -0.0016882755560235047313, 0.0024914420961078508066,
      -0.0037512085075692412107,  0.005370914553590063617,   1.0052589676941592334,
      3.0838856104922207635};
  static constexpr double kAbove16[] = {
      -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
      -3.7894654401267369937e-09, 7.6157012080783393804e-09,  -1.4960026627149240478e-08,
      2.9147953450901080826e-08,  -6.7711997758452339498e-08, 2.2900482228026654717e-07,
      -9.9298272942317002539e-07, 4.5260625972231537039e-06,  -1.9681778105531670567e-05,
      7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026,
      1.0103004648645343977,      4.8499064014085844221};
  H sqrt_w = b.Sqrt(w);
  H p1 = b.Polynomial(b.Sub(w, b.Const(3.125, x)), kBelow6_25);
  H p2 = b.Polynomial(b.Sub(sqrt_w, b.Const(3.25, x)), kBelow16);
  H p3 = b.Polynomial(b.Sub(sqrt_w, b.Const(5, x)), kAbove16);
  return b.Select(b.Compare("LT", w, b.Const(6.25, x)), p1, b.Select(b.Compare("LT", w, b.Const(16, x)), p2, p3));
}

// Cephes' erf on |x| < 1 (T/U, or T alone in f32); outside, 1 - erfc.
H ErfSmall(ExpressionBuilder& b, H x) {
  H x2 = b.Mul(x, x);
  if (IsF64(x)) {
    static constexpr double kT[] = {9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
                                    7.00332514112805075473E3, 5.55923013010394962768E4};
    static constexpr double kU[] = {1.0,
                                    3.35617141647503099647E1,
                                    5.21357949780152679795E2,
                                    4.59432382970980127987E3,
                                    2.26290000613890934246E4,
                                    4.92673942608635921086E4};
    return b.Div(b.Mul(x, b.Polynomial(x2, kT)), b.Polynomial(x2, kU));
  }
  static constexpr double kT[] = {7.853861353153693E-5,  -8.010193625184903E-4, 5.188327685732524E-3,
                                  -2.685381193529856E-2, 1.128358514861418E-1,  -3.761262582423300E-1,
                                  1.128379165726710E+0};
  return b.Mul(x, b.Polynomial(x2, kT));
}

// Cephes' erfc for |x| >= 1: exp(-x^2) times a rational function of |x|
// (f64) or 1/|x| times a polynomial in 1/x^2 (f32); 0 where exp(-x^2)
// underflows, and erfc(-x) = 2 - erfc(x).
H ErfcLarge(ExpressionBuilder& b, H x) {
  H abs_x = b.Abs(x);
  H z = b.Neg(b.Mul(x, x));
  H exp_z = b.Exp(z);
  H approx;
  double max_log;
  if (IsF64(x)) {
    static constexpr double kP[] = {2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
                                    4.86371970985681366614E1,   1.96520832956077098242E2,  5.26445194995477358631E2,
                                    9.34528527171957607540E2,   1.02755188689515710272E3,  5.57535335369399327526E2};
    static constexpr double kQ[] = {1.0,
                                    1.32281951154744992508E1,
                                    8.67072140885989742329E1,
                                    3.54937778887819891062E2,
                                    9.75708501743205489753E2,
                                    1.82390916687909736289E3,
                                    2.24633760818710981792E3,
                                    1.65666309194161350182E3,
                                    5.57535340817727675546E2};
    static constexpr double kR[] = {5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
                                    6.16021097993053585195E0,  7.40974269950448939160E0, 2.97886665372100240670E0};
    static constexpr double kS[] = {1.0,
                                    2.26052863220117276590E0,
                                    9.39603524938001434673E0,
                                    1.20489539808096656605E1,
                                    1.70814450747565897222E1,
                                    9.60896809063285878198E0,
                                    3.36907645100081516050E0};
    H below8 = b.Div(b.Mul(exp_z, b.Polynomial(abs_x, kP)), b.Polynomial(abs_x, kQ));
    H above8 = b.Div(b.Mul(exp_z, b.Polynomial(abs_x, kR)), b.Polynomial(abs_x, kS));
    approx = b.Select(b.Compare("LT", abs_x, b.Const(8, x)), below8, above8);
    max_log = 7.09782712893383996843E2;
  } else {
    static constexpr double kP[] = {2.326819970068386E-2,  -1.387039388740657E-1, 3.687424674597105E-1,
                                    -5.824733027278666E-1, 6.210004621745983E-1,  -4.944515323274145E-1,
                                    3.404879937665872E-1,  -2.741127028184656E-1, 5.638259427386472E-1};
    static constexpr double kR[] = {-1.047766399936249E+1, 1.297719955372516E+1,  -7.495518717768503E+0,
                                    2.921019019210786E+0,  -1.015265279202700E+0, 4.218463358204948E-1,
                                    -2.820767439740514E-1, 5.641895067754075E-1};
    H one = b.Const(1, x);
    H inv_x2 = b.Div(one, b.Mul(x, x));
    H poly = b.Select(b.Compare("LT", abs_x, b.Const(2, x)), b.Polynomial(inv_x2, kP), b.Polynomial(inv_x2, kR));
    approx = b.Mul(b.Mul(exp_z, b.Div(one, abs_x)), poly);
    max_log = 88.72283905206835;
  }
  H zero = b.Const(0, x);
  H clamped = b.Select(b.Compare("LT", z, b.Const(-max_log, x)), zero, approx);
  return b.Select(b.Compare("LT", x, zero), b.Sub(b.Const(2, x), clamped), clamped);
}

}  // namespace

H ErfInv(ExpressionBuilder& b, H x) {
  // w = -log(1 - x^2), NaN for |x| > 1. log1p(-x^2) is exact for small x;
  // near |x| = 1 the rounding of x^2 would dominate 1 - x^2 (XLA's form
  // loses ~1e-12 in f64 at erf_inv = 3), so there 1 - x^2 is (1 - |x|)(1 + |x|),
  // whose first factor is exact.
  H one = b.Const(1, x);
  H ax = b.Abs(x);
  H w_small = b.Neg(b.Log1p(b.Neg(b.Mul(x, x))));
  H w_large = b.Neg(b.Log(b.Mul(b.Sub(one, ax), b.Add(one, ax))));
  H w = b.Select(b.Compare("LT", ax, b.Const(0.5, x)), w_small, w_large);
  H p = IsF64(x) ? ErfInvF64(b, x, w) : ErfInvF32(b, x, w);
  // erf_inv(+-1) = +-inf, where the polynomial is indeterminate.
  H inf = b.Const(std::numeric_limits<double>::infinity(), x);
  return b.Select(b.Compare("EQ", ax, one), b.Mul(x, inf), b.Mul(p, x));
}

H Erfc(ExpressionBuilder& b, H x) {
  // Below 1 in magnitude erfc is near 1 and 1 - erf loses nothing; above,
  // it is small and needs its own form.
  H one = b.Const(1, x);
  H small = b.Sub(one, ErfSmall(b, x));
  return b.Select(b.Compare("LT", b.Abs(x), one), small, ErfcLarge(b, x));
}

}  // namespace stablehlo
}  // namespace xla
