#include "backends/cpu/codegen/polynomial_math.h"

#include <initializer_list>

#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

namespace xla {
namespace cpu {

namespace {

bool IsF64(llvm::Value* x) { return x->getType()->isDoubleTy(); }

llvm::Value* C(llvm::Value* like, double v) { return llvm::ConstantFP::get(like->getType(), v); }

llvm::Value* FMulAdd(llvm::IRBuilder<>* b, llvm::Value* x, llvm::Value* y, llvm::Value* z) {
  return b->CreateIntrinsic(llvm::Intrinsic::fmuladd, {x->getType()}, {x, y, z});
}

llvm::Value* Unary(llvm::IRBuilder<>* b, llvm::Intrinsic::ID id, llvm::Value* x) {
  return b->CreateIntrinsic(id, {x->getType()}, {x});
}

llvm::Value* Binary(llvm::IRBuilder<>* b, llvm::Intrinsic::ID id, llvm::Value* x, llvm::Value* y) {
  return b->CreateIntrinsic(id, {x->getType()}, {x, y});
}

// Horner: c[0]*z^(n-1) + ... + c[n-1].
llvm::Value* Horner(llvm::IRBuilder<>* b, llvm::Value* z, std::initializer_list<double> coeffs) {
  auto it = coeffs.begin();
  llvm::Value* p = C(z, *it++);
  for (; it != coeffs.end(); ++it) p = FMulAdd(b, p, z, C(z, *it));
  return p;
}

// NaN inputs give themselves (the approximations clamp them away).
llvm::Value* PropagateNaN(llvm::IRBuilder<>* b, llvm::Value* x, llvm::Value* result) {
  return b->CreateSelect(b->CreateFCmpUNO(x, x), x, result);
}

// Estrin's scheme for a degree-4 polynomial c[0]*z^4 + ... + c[4]: two
// independent FMAs, then two on z^2 (same operation count as Horner, about
// half its dependency chain).
llvm::Value* Estrin4(llvm::IRBuilder<>* b, llvm::Value* z, llvm::Value* zz, const double (&c)[5]) {
  llvm::Value* lo = FMulAdd(b, C(z, c[3]), z, C(z, c[4]));
  llvm::Value* mid = FMulAdd(b, C(z, c[1]), z, C(z, c[2]));
  return FMulAdd(b, FMulAdd(b, C(z, c[0]), zz, mid), zz, lo);
}

// e^r - 1 for |r| <= ln2/2 (f32), for exp: r + r^2 P(r) with P of degree 4
// fitted to the error relative to e^r (Lawson's weighted least squares
// towards minimax; at most 3.6e-9 with the coefficients rounded to float).
// One FMA less than Cephes' degree 5, in loops bound by exp's instruction
// count (softmax: about 6% faster), for +0.006 ulp at most (see ExpF32).
llvm::Value* ExpM1OfReducedForExpF32(llvm::IRBuilder<>* b, llvm::Value* r) {
  llvm::Value* rr = b->CreateFMul(r, r);
  llvm::Value* p = Estrin4(b, r, rr, {1.3814539415761828e-3, 8.3687454462051392e-3, 4.1668388992547989e-2,
                                      1.6666521131992340e-1, 4.9999994039535522e-1});
  return FMulAdd(b, p, rr, r);
}

// The f64 exp kernel for x already clamped to a finite range where
// n = round(x*log2(e)) fits (see EmitFastExp): r = x - n*ln2 (two-constant
// Cody-Waite, exact products), e^r - 1 by Cephes' Pade form, then scaled by
// 2^n.
// `split_scale`: (1 + (e^r - 1)) * 2^(n/2) * 2^(n - n/2) (two exponent-field
// powers), so that overflow gives inf and subnormal results are rounded once;
// returns e^x. Without it (callers whose n stays well inside the exponent
// range, n >= 0): returns e^x + 1 as one FMA (e^r - 1) * 2^n + (2^n + 1),
// shorter than scaling and adding in turn.
// `half_x`, when given, is x/2 exactly: n is computed from it so that the
// multiply does not wait for the doubling.
llvm::Value* ExpOfClampedF64(llvm::IRBuilder<>* b, llvm::Value* xc, bool split_scale, llvm::Value* half_x = nullptr) {
  llvm::Type* ity = b->getInt64Ty();
  llvm::Value* scaled = half_x != nullptr ? b->CreateFMul(half_x, C(xc, 2 * 1.4426950408889634))
                                          : b->CreateFMul(xc, C(xc, 1.4426950408889634));
  llvm::Value* n = Unary(b, llvm::Intrinsic::roundeven, scaled);
  llvm::Value* r = FMulAdd(b, n, C(xc, -6.93145751953125E-1), xc);
  r = FMulAdd(b, n, C(xc, -1.42860682030941723212E-6), r);
  llvm::Value* rr = b->CreateFMul(r, r);
  llvm::Value* px = b->CreateFMul(r, Horner(b, rr, {1.26177193074810590878E-4, 3.02994407707441961300E-2,
                                                    9.99999999999999999910E-1}));
  llvm::Value* q = Horner(b, rr, {3.00198505138664455042E-6, 2.52448340349684104192E-3,
                                  2.27265548208155028766E-1, 2.00000000000000000009E0});
  llvm::Value* em1 = b->CreateFMul(C(xc, 2.0), b->CreateFDiv(px, b->CreateFSub(q, px)));  // e^r - 1
  auto pow2 = [&](llvm::Value* k) {
    return b->CreateBitCast(b->CreateShl(b->CreateAdd(k, llvm::ConstantInt::get(ity, 1023)), 52), xc->getType());
  };
  llvm::Value* ni = b->CreateFPToSI(n, ity);
  if (!split_scale) {
    llvm::Value* scale = pow2(ni);
    return FMulAdd(b, em1, scale, b->CreateFAdd(scale, C(xc, 1.0)));
  }
  llvm::Value* n1 = b->CreateAShr(ni, 1);
  llvm::Value* er = b->CreateFAdd(em1, C(xc, 1.0));
  return b->CreateFMul(b->CreateFMul(er, pow2(n1)), pow2(b->CreateSub(ni, n1)));
}

// tanh (f32): x P(x^2) / Q(x^2), P and Q of degree 4 with P(0) = Q(0) = 1
// (tiny x give x itself), a rational fit of tanh(x)/x on [0, 9.5] (Loeb's
// linearized least squares with Lawson's reweighting towards minimax of the
// relative error; my own fit): 3.5e-8 relative with the coefficients rounded
// to float. Both polynomials have positive coefficients, so Horner's scheme
// is stable. x is clamped to [-9.5, 9.5] by compares that keep NaN (tanh
// rounds to +-1 from 9.011), the quotient to [-1, 1] (its roundings can
// carry it a step past 1 near the clamp).
// Measured: max 5.49 ulp (x ~ 7.23) in a sweep of every 17th float in
// [0, 12] (odd: the negative side is the same), mean 0.08 ulp; the roundings
// of x^2, P, Q, x*P and the quotient each cost up to an ulp of results near
// 1. Eigen's 13/6 rational (XLA's CPU tanh) measures 5.29 ulp max, mean 1.0,
// over [4e-4, 12] in the same sweep. The former E/(E+2) form (E = e^(2|x|)
// - 1 by range reduction) was 2.42 ulp, but with 40% more instructions and a
// longer dependency chain (about 50 cycles against 35): GELU over 16M floats
// ran 25-30% slower with it.
llvm::Value* EmitFastTanhF32(llvm::IRBuilder<>* b, llvm::Value* x) {
  llvm::Value* xc = b->CreateSelect(b->CreateFCmpULT(x, C(x, 9.5)), x, C(x, 9.5));
  xc = b->CreateSelect(b->CreateFCmpUGT(xc, C(x, -9.5)), xc, C(x, -9.5));
  llvm::Value* t = b->CreateFMul(xc, xc);
  llvm::Value* p = Horner(b, t, {0x1.af60cp-27, 0x1.5003dep-16, 0x1.c58a1ep-9, 0x1.116f2p-3, 1.0});
  llvm::Value* q = Horner(b, t, {0x1.8fda9cp-21, 0x1.527648p-12, 0x1.a5c3eap-6, 0x1.de0cdap-2, 1.0});
  llvm::Value* r = b->CreateFDiv(b->CreateFMul(xc, p), q);
  r = b->CreateSelect(b->CreateFCmpULT(r, C(x, 1.0)), r, C(x, 1.0));
  return b->CreateSelect(b->CreateFCmpUGT(r, C(x, -1.0)), r, C(x, -1.0));
}

// exp (f32), everything in one pass with no NaN select: x clamped to
// [-104, 89] by compares that keep NaN (which then propagates through the
// arithmetic), r = x - n*ln2 (two-constant Cody-Waite) with n = round(x*
// log2(e)), e^r - 1 by a degree-6 polynomial (ExpM1OfReducedForExpF32), and
// e^r * 2^n in two steps that are exact until the last: times 2^(n - k), a
// normal number for k = -64 below zero and 64 above, then times 2^k, which
// rounds once (subnormal results) or overflows to inf. n comes from an FMA with
// 1.5*2^23 + 127 - k, which rounds to an integer and leaves n + 127 - k,
// 2^(n - k)'s exponent field, in the low bits. Same results as a split scale
// (1 + (e^r - 1)) * 2^(n/2) * 2^(n - n/2), with fewer instructions and a
// shorter chain: loops such as softmax's are bound by exp's instruction count.
// `non_positive` (x <= 0 or NaN): no upper clamp, and k = -64 always.
llvm::Value* ExpF32(llvm::IRBuilder<>* b, llvm::Value* x, bool non_positive) {
  llvm::Type* ity = b->getInt32Ty();
  llvm::Type* vty = x->getType();
  if (auto* vec = llvm::dyn_cast<llvm::VectorType>(vty)) ity = llvm::VectorType::get(ity, vec->getElementCount());
  llvm::Value* xc = b->CreateSelect(b->CreateFCmpUGT(x, C(x, -104.0)), x, C(x, -104.0));
  if (!non_positive) xc = b->CreateSelect(b->CreateFCmpULT(xc, C(x, 89.0)), xc, C(x, 89.0));
  llvm::Value* negative = non_positive ? b->getTrue() : b->CreateFCmpOLT(xc, C(x, 0.0));
  const double kRoundMagic = 12582912.0 + 127.0;  // 1.5 * 2^23 + 127
  llvm::Value* magic = b->CreateSelect(negative, C(x, kRoundMagic + 64), C(x, kRoundMagic - 64));
  llvm::Value* shifted = FMulAdd(b, xc, C(x, 1.4426950408889634), magic);
  llvm::Value* n = b->CreateFSub(shifted, magic);
  llvm::Value* r = FMulAdd(b, n, C(x, -0.693359375), xc);
  r = FMulAdd(b, n, C(x, 2.12194440e-4), r);
  llvm::Value* m = ExpM1OfReducedForExpF32(b, r);  // e^r - 1
  llvm::Value* two_to_n_minus_k = b->CreateBitCast(b->CreateShl(b->CreateBitCast(shifted, ity), 23), vty);
  llvm::Value* two_to_k = b->CreateSelect(negative, C(x, 0x1p-64), C(x, 0x1p64));
  // (1 + m) * 2^(n - k) as one FMA: the product is a normal number, so
  // rounding once gives what rounding 1 + m and scaling it exactly gave.
  return b->CreateFMul(FMulAdd(b, m, two_to_n_minus_k, two_to_n_minus_k), two_to_k);
}

}  // namespace

// exp: f32 by ExpF32 (NaN propagates through its arithmetic); f64 with x
// clamped so n = round(x*log2(e)) stays in range, then ExpOfClampedF64 with
// the split scale, NaN propagated by a select.
// Measured: f32 max 0.96 ulp (1.004 in a sweep of every 37th float: the
// degree-6 polynomial; Cephes' degree 7 gave 0.998), f64 max 1.64 ulp
// (subnormal results counted in units of the subnormal spacing).
llvm::Value* EmitFastExp(llvm::IRBuilder<>* b, llvm::Value* x, bool non_positive) {
  if (!IsF64(x)) return ExpF32(b, x, non_positive);
  llvm::Value* xc = Binary(b, llvm::Intrinsic::maxnum, x, C(x, -746.0));
  xc = Binary(b, llvm::Intrinsic::minnum, xc, C(x, 710.0));
  return PropagateNaN(b, x, ExpOfClampedF64(b, xc, /*split_scale=*/true));
}

// log: x = m * 2^e with m in [sqrt(1/2), sqrt(2)) (subnormals scaled first),
// log(m) by Cephes' polynomial in m-1 (f32) or rational function of
// 2(m-1)/(m+1) (f64), plus e*ln2 in two parts. Specials by selects:
// log(+-0) = -inf, log(x<0) = NaN, log(inf) = inf, NaN -> NaN.
// Measured: f32 max 0.79 ulp, f64 max 1.91 ulp (over all positive bit
// patterns, subnormals included).
llvm::Value* EmitFastLog(llvm::IRBuilder<>* b, llvm::Value* x) {
  const bool f64 = IsF64(x);
  llvm::Type* ity = f64 ? b->getInt64Ty() : b->getInt32Ty();
  auto I = [&](uint64_t v) { return llvm::ConstantInt::get(ity, v); };
  const int mantissa_bits = f64 ? 52 : 23;
  const double min_normal = f64 ? 2.2250738585072014e-308 : 1.17549435e-38;
  const int sub_scale = f64 ? 54 : 23;
  llvm::Value* is_sub = b->CreateFCmpOLT(x, C(x, min_normal));
  llvm::Value* xs = b->CreateSelect(is_sub, b->CreateFMul(x, C(x, f64 ? 18014398509481984.0 : 8388608.0)), x);
  llvm::Value* bits = b->CreateBitCast(xs, ity);
  llvm::Value* e = b->CreateSub(b->CreateAnd(b->CreateLShr(bits, mantissa_bits), I(f64 ? 0x7ff : 0xff)),
                                I(f64 ? 1022 : 126));
  e = b->CreateSub(e, b->CreateSelect(is_sub, I(sub_scale), I(0)));
  llvm::Value* m = b->CreateBitCast(
      b->CreateOr(b->CreateAnd(bits, I(f64 ? 0x000fffffffffffffull : 0x007fffff)),
                  I(f64 ? 0x3fe0000000000000ull : 0x3f000000)),
      x->getType());  // [0.5, 1)
  llvm::Value* lt = b->CreateFCmpOLT(m, C(x, 0.70710678118654752440));
  e = b->CreateSub(e, b->CreateZExt(lt, ity));
  llvm::Value* fe = b->CreateSIToFP(e, x->getType());
  llvm::Value* result;
  if (f64) {
    // z = m-1 (or 2m-1), y = (z+2)/2; s = z/y = 2(m'-1)/(m'+1).
    llvm::Value* z = b->CreateSelect(lt, b->CreateFSub(m, C(x, 0.5)), b->CreateFSub(b->CreateFSub(m, C(x, 0.5)), C(x, 0.5)));
    llvm::Value* y = b->CreateSelect(lt, FMulAdd(b, C(x, 0.5), z, C(x, 0.5)), FMulAdd(b, C(x, 0.5), m, C(x, 0.5)));
    llvm::Value* s = b->CreateFDiv(z, y);
    llvm::Value* ss = b->CreateFMul(s, s);
    llvm::Value* rnum = Horner(b, ss, {-7.89580278884799154124E-1, 1.63866645699558079767E1, -6.41409952958715622951E1});
    llvm::Value* rden = Horner(b, ss, {1.0, -3.56722798256324312549E1, 3.12093766372244180303E2,
                                       -7.69691943550460008604E2});
    llvm::Value* t = b->CreateFMul(s, b->CreateFDiv(b->CreateFMul(ss, rnum), rden));
    t = FMulAdd(b, fe, C(x, -2.121944400546905827679e-4), t);
    t = b->CreateFAdd(t, s);
    result = FMulAdd(b, fe, C(x, 0.693359375), t);
  } else {
    llvm::Value* mm = b->CreateSelect(lt, b->CreateFSub(b->CreateFAdd(m, m), C(x, 1.0)), b->CreateFSub(m, C(x, 1.0)));
    llvm::Value* z = b->CreateFMul(mm, mm);
    llvm::Value* p = Horner(b, mm, {7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                                    1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                                    3.3333331174E-1});
    llvm::Value* y = b->CreateFMul(b->CreateFMul(mm, z), p);
    y = FMulAdd(b, fe, C(x, -2.12194440e-4), y);
    y = FMulAdd(b, z, C(x, -0.5), y);
    result = FMulAdd(b, fe, C(x, 0.693359375), b->CreateFAdd(mm, y));
  }
  llvm::Value* inf = llvm::ConstantFP::getInfinity(x->getType());
  result = b->CreateSelect(b->CreateFCmpOEQ(x, inf), inf, result);
  result = b->CreateSelect(b->CreateFCmpOEQ(x, C(x, 0.0)), llvm::ConstantFP::getInfinity(x->getType(), true), result);
  result = b->CreateSelect(b->CreateFCmpOLT(x, C(x, 0.0)), llvm::ConstantFP::getNaN(x->getType()), result);
  return PropagateNaN(b, x, result);
}

// tanh (f64): for |x| < 0.625 Cephes' rational function x + x^3 P(x^2)/Q(x^2),
// exact sign and -0; beyond, sign(x) * (1 - 2/(e^(2|x|)+1)) with |x|
// clamped to 40 where the result rounds to 1 anyway, so +-inf give +-1. The
// exp there needs no range clamps, NaN select or split scale (its argument
// is in [1.25, 80], never NaN: minnum(NaN, c) is c), and NaN inputs take the
// small branch (an unordered compare), whose arithmetic propagates them.
// Measured: max 1.13 ulp.
llvm::Value* EmitFastTanh(llvm::IRBuilder<>* b, llvm::Value* x) {
  if (!IsF64(x)) return EmitFastTanhF32(b, x);
  llvm::Value* ax = Unary(b, llvm::Intrinsic::fabs, x);
  llvm::Value* z = b->CreateFMul(x, x);
  llvm::Value* p = Horner(b, z, {-9.64399179425052238628E-1, -9.92877231001918586564E1, -1.61468768441708447952E3});
  llvm::Value* q = Horner(b, z, {1.0, 1.12811678491632931402E2, 2.23548839060100448583E3,
                                 4.84406305325125486048E3});
  llvm::Value* small = FMulAdd(b, b->CreateFMul(x, z), b->CreateFDiv(p, q), x);
  llvm::Value* clamped = Binary(b, llvm::Intrinsic::minnum, ax, C(x, 40.0));
  llvm::Value* e_plus_1 = ExpOfClampedF64(b, b->CreateFAdd(clamped, clamped), /*split_scale=*/false, /*half_x=*/clamped);
  llvm::Value* large = b->CreateFSub(C(x, 1.0), b->CreateFDiv(C(x, 2.0), e_plus_1));
  large = Binary(b, llvm::Intrinsic::copysign, large, x);
  return b->CreateSelect(b->CreateFCmpULT(ax, C(x, 0.625)), small, large);
}

// logistic(x) = 1 / (1 + e^-x) for x >= 0 and e^x / (1 + e^x) for x < 0
// (one exp of -|x|, never overflowing, so results far below zero stay
// accurate subnormals instead of the evaluator's 0 past exp overflow).
// Measured: f32 max 2.61 ulp, f64 max 2.64 ulp (exp, add, divide roundings).
llvm::Value* EmitFastLogistic(llvm::IRBuilder<>* b, llvm::Value* x) {
  llvm::Value* e = EmitFastExp(b, b->CreateFNeg(b->CreateIntrinsic(llvm::Intrinsic::fabs, {x->getType()}, {x})),
                               /*non_positive=*/true);
  llvm::Value* r = b->CreateFDiv(C(x, 1.0), b->CreateFAdd(C(x, 1.0), e));
  return b->CreateSelect(b->CreateFCmpOLT(x, C(x, 0.0)), b->CreateFMul(e, r), r);
}

// erf (f32): Eigen's rational approximation x (P(x^2) / Q(x^2)) on x clamped
// to [-4, 4] (erf rounds to +-1 beyond). Measured: max 7.42 ulp, at
// |x| ~ 3.9 where erf ~ 1 (absolute error < 4.5e-7; relative < 5e-7);
// within 2 ulp for |x| < 2.
llvm::Value* EmitFastErfF32(llvm::IRBuilder<>* b, llvm::Value* x) {
  llvm::Value* xc = Binary(b, llvm::Intrinsic::maxnum, x, C(x, -4.0));
  xc = Binary(b, llvm::Intrinsic::minnum, xc, C(x, 4.0));
  llvm::Value* x2 = b->CreateFMul(xc, xc);
  llvm::Value* p = Horner(b, x2, {-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
                                  -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
                                  -1.60960333262415e-02});
  llvm::Value* q = Horner(b, x2, {-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
                                  -7.37332916720468e-03, -1.42647390514189e-02});
  // x * (P/Q), not (x P) / Q: P ~ -0.016, so x P is subnormal for |x|
  // below ~7e-37 and lost up to 22 ulp near FLT_MIN (found by hlo_fuzz).
  return PropagateNaN(b, x, b->CreateFMul(xc, b->CreateFDiv(p, q)));
}

}  // namespace cpu
}  // namespace xla
