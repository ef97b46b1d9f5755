#include "backends/cpu/runtime/runtime_complex.h"

#include <cmath>
#include <complex>
#include <limits>

#include "xla/evaluator/reference_math.h"

namespace xla {
namespace cpu {
namespace {

template <typename R> using C = std::complex<R>;

// The evaluator's formulas, shared with it (reference_math.h), so both
// avoid the same overflows.
template <typename R> C<R> Sign(C<R> x) { return reference_math::ComplexSign(x); }
template <typename R> C<R> Expm1(C<R> x) { return reference_math::ComplexExpm1(x); }
template <typename R> C<R> Log1p(C<R> x) { return reference_math::ComplexLog1p(x); }
template <typename R> C<R> Logistic(C<R> x) { return reference_math::ComplexLogistic(x); }
template <typename R> C<R> Cbrt(C<R> x) { return reference_math::ComplexCbrt(x); }
template <typename R> C<R> Rsqrt(C<R> x) { return C<R>(1) / std::sqrt(x); }
template <typename R> C<R> Exp(C<R> x) { return std::exp(x); }
template <typename R> C<R> Log(C<R> x) { return std::log(x); }
template <typename R> C<R> Sqrt(C<R> x) { return std::sqrt(x); }
template <typename R> C<R> Sin(C<R> x) { return std::sin(x); }
template <typename R> C<R> Cos(C<R> x) { return std::cos(x); }
template <typename R> C<R> Tan(C<R> x) { return std::tan(x); }
template <typename R> C<R> Tanh(C<R> x) { return std::tanh(x); }

template <typename R> C<R> Multiply(C<R> a, C<R> b) { return a * b; }
template <typename R> C<R> Divide(C<R> a, C<R> b) { return a / b; }
template <typename R> C<R> Power(C<R> a, C<R> b) {
  // 1^x = 1 and x^0 = 1 for every x (Kahan), as XLA does.
  if (a == C<R>(1) || b == C<R>(0)) return C<R>(1);
  if (a == C<R>(0) && b.imag() == 0 && b.real() > 0) return C<R>(0);
  return std::pow(a, b);
}

template <typename R, C<R> (*F)(C<R>)> void Unary(R re, R im, R* out) {
  C<R> r = F(C<R>(re, im));
  out[0] = r.real();
  out[1] = r.imag();
}
template <typename R, C<R> (*F)(C<R>, C<R>)> void Binary(R ar, R ai, R br, R bi, R* out) {
  C<R> r = F(C<R>(ar, ai), C<R>(br, bi));
  out[0] = r.real();
  out[1] = r.imag();
}
template <typename R> R Abs(R re, R im) { return std::abs(C<R>(re, im)); }

}  // namespace

const std::vector<RuntimeSymbol>& ComplexRuntimeSymbols() {
  static const auto* symbols = [] {
    auto* v = new std::vector<RuntimeSymbol>;
#define XLA_CPU_COMPLEX_UNARY(op)                                                                       \
  v->push_back({"__xla_cpu_runtime_" #op "C64", reinterpret_cast<void*>(&Unary<float, op<float>>)});   \
  v->push_back({"__xla_cpu_runtime_" #op "C128", reinterpret_cast<void*>(&Unary<double, op<double>>)});
#define XLA_CPU_COMPLEX_BINARY(op)                                                                      \
  v->push_back({"__xla_cpu_runtime_" #op "C64", reinterpret_cast<void*>(&Binary<float, op<float>>)});  \
  v->push_back({"__xla_cpu_runtime_" #op "C128", reinterpret_cast<void*>(&Binary<double, op<double>>)});
    XLA_CPU_COMPLEX_UNARY(Sign) XLA_CPU_COMPLEX_UNARY(Expm1) XLA_CPU_COMPLEX_UNARY(Log1p)
    XLA_CPU_COMPLEX_UNARY(Logistic) XLA_CPU_COMPLEX_UNARY(Rsqrt) XLA_CPU_COMPLEX_UNARY(Exp)
    XLA_CPU_COMPLEX_UNARY(Log) XLA_CPU_COMPLEX_UNARY(Sqrt) XLA_CPU_COMPLEX_UNARY(Sin)
    XLA_CPU_COMPLEX_UNARY(Cos) XLA_CPU_COMPLEX_UNARY(Tan) XLA_CPU_COMPLEX_UNARY(Tanh) XLA_CPU_COMPLEX_UNARY(Cbrt)
    XLA_CPU_COMPLEX_BINARY(Multiply) XLA_CPU_COMPLEX_BINARY(Divide) XLA_CPU_COMPLEX_BINARY(Power)
#undef XLA_CPU_COMPLEX_UNARY
#undef XLA_CPU_COMPLEX_BINARY
    v->push_back({"__xla_cpu_runtime_AbsC64", reinterpret_cast<void*>(&Abs<float>)});
    v->push_back({"__xla_cpu_runtime_AbsC128", reinterpret_cast<void*>(&Abs<double>)});
    return v;
  }();
  return *symbols;
}

}  // namespace cpu
}  // namespace xla
