// The fuzzer's error model: how far the CPU backend's value of an array may
// legitimately be from the interpreter's. Both the generator (to choose ops
// whose results stay comparable) and the runner (to get each output's
// tolerance, see precision_analysis.h) use these transfer functions, so the
// two can never disagree about what is exact.
//
// A value is one of:
//  - exact: the CPU must produce the interpreter's value (floats: equal as
//    numbers, -0 == +0, NaN matches any NaN). Integer, pred and data-movement
//    results, and float add/subtract/multiply/divide/sqrt/remainder/min/max/
//    floor/ceil/round/convert of exact operands (IEEE operations both sides
//    round the same way), and sums folded in a documented order (reduce-window,
//    scatter, sequential reducers).
//  - approximate, with |cpu - ref| <= abs + rel * |ref| (plus a subnormal
//    slack of 8 of the type's smallest subnormals): transcendental functions
//    (polynomial exp/log/tanh/logistic, libmvec sin/cos/pow/..., rel = 8 ulp
//    of the computing type, plus one ulp of f16/bf16 when rounded to them),
//    float sums the CPU may reassociate (reduce with a plain add reducer, dot,
//    convolution: n^2 * eps * max|term| absolute), a*b+c that LLVM may contract
//    into an FMA (eps * |a*b| absolute), and anything computed from approximate
//    operands (errors propagated to first order with the operands' magnitude
//    bounds `mag`).
//  - unusable: no bound holds (e.g. floor, compare or convert-to-int of an
//    approximate value can flip; a sum that may overflow in another order).
//    Such outputs are not compared; the generator avoids making them.
//
// Specials: approximate values keep NaN and +-inf exactly (the approximations
// map NaN->NaN, inf->their limits), except at overflow/underflow thresholds
// of approximate results, which random inputs hit with negligible probability.
// Which NaN an op returns (sign, payload) is unspecified, and so is the sign
// of a zero sum (+0 + -0 or just -0: dot and convolution accumulate from +0
// in the evaluator, from the first product on the CPU); both are tracked, so
// that only exact bits reach what can see them (a TOTALORDER compare, a
// divisor, rsqrt, power, atan2).
#ifndef TOOLS_HLO_FUZZ_PRECISION_H_
#define TOOLS_HLO_FUZZ_PRECISION_H_

#include <cstdint>
#include <limits>
#include <string>

#include "absl/types/span.h"
#include "proto/xla_data.pb.h"
#include "xla/hlo/hlo_opcode.h"

namespace xla {
namespace hlo_fuzz {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Relative error allowed for one transcendental function, in ulps of the
// type it is computed in (the CPU's f32 tanh is up to 5.5 ulp, libmvec up to
// 4, the evaluator's libm up to 1).
inline constexpr double kApproxUlps = 8;

struct Precision {
  double rel = 0;        // relative error bound
  double abs = 0;        // absolute error bound
  double mag = kInf;     // bound on |finite values| (both backends)
  bool nonneg = false;   // every value is >= 0 or NaN (sums cannot cancel)
  bool product = false;  // a float product a following add may fuse into an FMA
  bool nan_bits_vary = false;     // a NaN's sign or payload may differ
  bool zero_sign_varies = false;  // a zero may be -0 on one side and +0 on the other
  bool may_be_inf = true;  // some value may be infinite (`mag` bounds only finite ones)
  bool unusable = false; // no meaningful bound

  bool exact() const { return !unusable && rel == 0 && abs == 0; }
  std::string ToString() const;
};

Precision Exact(double mag = kInf);
Precision Unusable();

// Machine epsilon (2^-23 for f32, 2^-52 for f64, 2^-7 for bf16, 2^-10 for
// f16); 0 for non-float types.
double Epsilon(PrimitiveType type);
bool IsFloat(PrimitiveType type);
// Largest |value| of an integer or float type (pred: 1).
double TypeMagnitude(PrimitiveType type);

// The least upper bound: the worst error of any operand (data movement,
// select's data operands, max/min, concatenate, tuples' leaves...).
Precision Join(absl::Span<const Precision> operands);

// Elementwise unary op (including convert when `out` differs from `in`, and
// is-finite). `in` is the operand's element type.
Precision UnaryPrecision(HloOpcode opcode, PrimitiveType in, PrimitiveType out, const Precision& x);

// Elementwise binary op of operands of element type `type` (compare gives
// pred).
Precision BinaryPrecision(HloOpcode opcode, PrimitiveType type, const Precision& a, const Precision& b);

// A compare with type=TOTALORDER of floats: -0 < +0 and NaNs ordered by
// sign and payload, so those bits must be exact.
Precision TotalOrderComparePrecision(const Precision& a, const Precision& b);

// clamp(lo, x, hi) and select(pred, on_true, on_false).
Precision ClampPrecision(const Precision& lo, const Precision& x, const Precision& hi);
Precision SelectPrecision(const Precision& pred, const Precision& on_true, const Precision& on_false);

// A float sum of `n` terms of precision `term` in an order the CPU may pick
// (vectorized reduce, dot, convolution). `acc` is the accumulation type,
// `out` the result type (f16/bf16 dots accumulate in f32 and round once).
Precision ReassociatedSumPrecision(PrimitiveType acc, PrimitiveType out, const Precision& term, int64_t n);

// A dot or convolution: `n` products of lhs and rhs elements summed.
Precision ContractionPrecision(PrimitiveType in, PrimitiveType out, const Precision& lhs, const Precision& rhs,
                               int64_t n);

}  // namespace hlo_fuzz
}  // namespace xla

#endif  // TOOLS_HLO_FUZZ_PRECISION_H_
