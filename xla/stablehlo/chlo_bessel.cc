// bessel_i1e(x) = exp(-|x|) I1(x), with Cephes' Chebyshev expansions (i1e
// in i1.c) as XLA uses them: one in |x|/2 - 2 on [0, 8], one in 32/|x| - 2
// above, where the exp(-|x|) scaling keeps every term bounded. f32 drops
// the terms below its precision.
#include "absl/types/span.h"
#include "xla/stablehlo/chlo_formulas.h"

namespace xla {
namespace stablehlo {
namespace {

using H = HloInstruction*;

constexpr double kI1eA[] = {
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9,  -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6,  -1.32731636560394358279E-5,
    4.78156510755005422638E-5,  -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3,  -1.05640848946261981558E-2,
    2.47264490306265168283E-2,  -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1};
// f32 uses the last 17 of kI1eA.
constexpr size_t kI1eAF32Terms = 17;

constexpr double kI1eB[] = {
    7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
    3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
    -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
    7.78576235018280120474E-1};
// f32 uses the last 7 of kI1eB.
constexpr size_t kI1eBF32Terms = 7;

// Cephes' chbevl: sum'_k c_k T_k(t/2) by Clenshaw's recurrence (the series
// is in t = 2u for u in [-1, 1]; half the first term, hence the final 1/2).
H Chebyshev(ExpressionBuilder& b, H t, absl::Span<const double> c) {
  H b0 = b.Const(0, t), b1 = b0, b2 = b0;
  for (double ck : c) {
    b2 = b1;
    b1 = b0;
    b0 = b.Add(b.Sub(b.Mul(t, b1), b2), b.Const(ck, t));
  }
  return b.Mul(b.Const(0.5, t), b.Sub(b0, b2));
}

}  // namespace

H BesselI1e(ExpressionBuilder& b, H x) {
  const bool f64 = x->shape().element_type() == F64;
  absl::Span<const double> a(kI1eA), c(kI1eB);
  if (!f64) {
    a = a.subspan(a.size() - kI1eAF32Terms);
    c = c.subspan(c.size() - kI1eBF32Terms);
  }
  H z = b.Abs(x);
  H two = b.Const(2, x);
  H small = b.Mul(z, Chebyshev(b, b.Sub(b.Mul(b.Const(0.5, x), z), two), a));
  H large = b.Div(Chebyshev(b, b.Sub(b.Div(b.Const(32, x), z), two), c), b.Sqrt(z));
  // I1 is odd.
  return b.Mul(b.Sign(x), b.Select(b.Compare("LE", z, b.Const(8, x)), small, large));
}

}  // namespace stablehlo
}  // namespace xla
