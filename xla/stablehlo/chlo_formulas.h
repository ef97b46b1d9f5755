// The chlo decompositions that have a file of their own (one function
// family each), called by chlo_lowering.cc. Real formulas take f32 or f64
// operands (f16/bf16 are computed in f32 by the caller, as XLA does);
// complex ones take c64 or c128.
#ifndef XLA_STABLEHLO_CHLO_FORMULAS_H_
#define XLA_STABLEHLO_CHLO_FORMULAS_H_

#include "xla/stablehlo/expression_builder.h"

namespace xla {
namespace stablehlo {

// chlo_bessel.cc
HloInstruction* BesselI1e(ExpressionBuilder& b, HloInstruction* x);

// chlo_complex_inverse_trig.cc
HloInstruction* ComplexAsin(ExpressionBuilder& b, HloInstruction* z);
HloInstruction* ComplexAcos(ExpressionBuilder& b, HloInstruction* z);
HloInstruction* ComplexAsinh(ExpressionBuilder& b, HloInstruction* z);
HloInstruction* ComplexAcosh(ExpressionBuilder& b, HloInstruction* z);
HloInstruction* ComplexAtanh(ExpressionBuilder& b, HloInstruction* z);
HloInstruction* ComplexAtan(ExpressionBuilder& b, HloInstruction* z);

// chlo_error_functions.cc
HloInstruction* ErfInv(ExpressionBuilder& b, HloInstruction* x);
HloInstruction* Erfc(ExpressionBuilder& b, HloInstruction* x);

}  // namespace stablehlo
}  // namespace xla

#endif  // XLA_STABLEHLO_CHLO_FORMULAS_H_
