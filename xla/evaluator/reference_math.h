// Scalar reference formulas of the evaluator that a backend may call to give
// bit-identical results (the CPU runtime's complex functions should include
// this rather than copy it). Header only, standard headers only.
//
// Each keeps the plain formula where it is accurate and switches only where
// that one overflows, underflows or mishandles a special value.
#ifndef XLA_EVALUATOR_REFERENCE_MATH_H_
#define XLA_EVALUATOR_REFERENCE_MATH_H_

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

namespace xla {
namespace reference_math {

// A type with a wider exponent range, where e^a of a c64/c128 component that
// overflows (or underflows to a subnormal) is still finite (normal).
template <typename C> struct WiderFloat { using type = long double; };
template <> struct WiderFloat<float> { using type = double; };

template <typename C> C Logistic(C x) {
  // For x < 0, e^x / (1 + e^x): 1 / (1 + e^-x) would overflow e^-x (f32 below
  // about -88.7) and give 0 instead of a tiny, possibly subnormal, value.
  if (x < C(0)) {
    C e = std::exp(x);
    return e / (C(1) + e);
  }
  return C(1) / (C(1) + std::exp(-x));  // NaN stays NaN
}

template <typename C> std::complex<C> ComplexSign(std::complex<C> x) {
  if (std::isnan(x.real()) || std::isnan(x.imag())) {
    return {std::numeric_limits<C>::quiet_NaN(), std::numeric_limits<C>::quiet_NaN()};
  }
  if (x.real() == 0 && x.imag() == 0) return x;
  const C m = std::abs(x);
  if ((std::isfinite(m) && m >= std::numeric_limits<C>::min()) || std::isinf(x.real()) || std::isinf(x.imag())) {
    return x / std::complex<C>(m);
  }
  // |x| overflowed (x = (max, max) gave 0) or is subnormal and rounded
  // ((denorm_min, denorm_min) gave (1, 1)): scale by a power of two first.
  const int e = std::ilogb(std::max(std::fabs(x.real()), std::fabs(x.imag())));
  const std::complex<C> y(std::scalbn(x.real(), -e), std::scalbn(x.imag(), -e));
  return y / std::complex<C>(std::abs(y));
}

template <typename C> std::complex<C> ComplexLogistic(std::complex<C> x) {
  const std::complex<C> w = std::exp(-x);
  if ((std::isfinite(w.real()) && std::isfinite(w.imag())) || !std::isfinite(x.real()) ||
      !std::isfinite(x.imag())) {
    return std::complex<C>(1) / (std::complex<C>(1) + w);
  }
  // e^-x overflowed (Re x below about -88.7 for c64), so |e^x| < 1/max and
  // e^x / (1 + e^x) rounds to e^x; taken in a wider type, whose exponent
  // range keeps the subnormal result to one rounding.
  using W = typename WiderFloat<C>::type;
  const std::complex<W> e = std::exp(std::complex<W>(x.real(), x.imag()));
  return {static_cast<C>(e.real()), static_cast<C>(e.imag())};
}

template <typename C> std::complex<C> ComplexExpm1(std::complex<C> x) {
  // exp(a)cos(b) - 1 = expm1(a)cos(b) - 2 sin^2(b/2), accurate near 0.
  C a = x.real(), b = x.imag();
  if constexpr (!std::is_same_v<C, long double>) {
    if (std::isfinite(a) && !std::isfinite(std::exp(a))) {
      // e^a overflows though e^a cos(b) or e^a sin(b) may not: wider type.
      using W = typename WiderFloat<C>::type;
      const std::complex<W> r = ComplexExpm1(std::complex<W>(a, b));
      return {static_cast<C>(r.real()), static_cast<C>(r.imag())};
    }
  }
  C s = std::sin(b / 2);
  // e^a sin(0) is exactly 0 (with b's sign) even where e^a is infinite.
  C im = b == 0 ? b : std::exp(a) * std::sin(b);
  return {std::expm1(a) * std::cos(b) - 2 * s * s, im};
}

template <typename C> std::complex<C> ComplexLog1p(std::complex<C> x) {
  C a = x.real(), b = x.imag();
  // log|1+x| = 0.5 * log1p(t), t = 2a + a^2 + b^2 = |1+x|^2 - 1.
  const C t = a * (C(2) + a) + b * b;
  C re;
  if ((std::isfinite(a) && std::isfinite(b)) && (std::isinf(t) || t < C(-0.9375))) {
    // t overflowed (|x| above about 1.8e19 for c64), or |1+x| < 1/4 where t
    // has lost x's low bits (a near -1: x = -1 + 1e-10i gave -inf, not
    // log(1e-10)). |1+x| directly: 1+a is exact for a in [-2, -1/2].
    re = std::log(std::hypot(C(1) + a, b));
  } else {
    re = C(0.5) * std::log1p(t);
  }
  return {re, std::atan2(b, C(1) + a)};
}

// The principal cube root, |x|^(1/3) e^(i arg(x) / 3) (XLA's polar form;
// StableHLO's cbrt on complex): |arg / 3| <= pi / 3 keeps cos >= 1/2, so
// neither part cancels. c64 is computed in double and rounded once.
template <typename C> std::complex<C> ComplexCbrt(std::complex<C> x) {
  using W = std::conditional_t<std::is_same_v<C, float>, double, C>;
  const W a = x.real(), b = x.imag();
  W r = std::cbrt(std::hypot(a, b));  // hypot: no overflow in a^2 + b^2
  if (std::isinf(r) && std::isfinite(a) && std::isfinite(b)) {
    // |x| itself overflowed (c128 (max, max)): cbrt|x| = 2 cbrt|x / 8|.
    r = 2 * std::cbrt(std::hypot(a / 8, b / 8));
  } else if (std::max(std::fabs(a), std::fabs(b)) < std::numeric_limits<W>::min()) {
    // Subnormal parts: |x| would round to a multiple of the smallest
    // subnormal (3 ulp -> 6 ulp); scaled by 8^k into the normals (exact).
    constexpr int k = std::numeric_limits<W>::digits / 3 + 1;
    r = std::ldexp(std::cbrt(std::hypot(std::ldexp(a, 3 * k), std::ldexp(b, 3 * k))), -k);
  }
  const W t = std::atan2(b, a) / 3;
  const W s = std::sin(t);
  // r sin(0) is exactly 0 (with b's sign) even where r is infinite.
  const W im = s == 0 ? s : r * s;
  return {static_cast<C>(r * std::cos(t)), static_cast<C>(im)};
}

}  // namespace reference_math
}  // namespace xla

#endif  // XLA_EVALUATOR_REFERENCE_MATH_H_
