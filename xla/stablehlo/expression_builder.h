// ExpressionBuilder: element-wise HLO expressions for decompositions (chlo
// ops), written as arithmetic. The first error (from shape inference) is
// kept and later calls return null, so a formula needs one status check at
// its end instead of one per operation.
#ifndef XLA_STABLEHLO_EXPRESSION_BUILDER_H_
#define XLA_STABLEHLO_EXPRESSION_BUILDER_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "xla/stablehlo/emitter.h"

namespace xla {
namespace stablehlo {

class ExpressionBuilder {
 public:
  using H = HloInstruction*;
  ExpressionBuilder(Emitter* emitter, const Op* op, Scope* scope) : e_(*emitter), op_(*op), scope_(*scope) {}

  absl::Status status() const { return status_; }

  // `value` of `like`'s element type and shape.
  H Const(double value, H like);
  H Unary(HloOpcode opcode, H x);
  H Binary(HloOpcode opcode, H a, H b);
  H Compare(const char* direction, H a, H b);
  H Select(H pred, H a, H b);
  H Convert(H x, PrimitiveType type);
  H BitcastConvert(H x, PrimitiveType type);

  H Add(H a, H b) { return Binary(HloOpcode::kAdd, a, b); }
  H Sub(H a, H b) { return Binary(HloOpcode::kSubtract, a, b); }
  H Mul(H a, H b) { return Binary(HloOpcode::kMultiply, a, b); }
  H Div(H a, H b) { return Binary(HloOpcode::kDivide, a, b); }
  H Exp(H x) { return Unary(HloOpcode::kExp, x); }
  H Expm1(H x) { return Unary(HloOpcode::kExpm1, x); }
  H Log(H x) { return Unary(HloOpcode::kLog, x); }
  H Log1p(H x) { return Unary(HloOpcode::kLog1p, x); }
  H Sqrt(H x) { return Unary(HloOpcode::kSqrt, x); }
  H Abs(H x) { return Unary(HloOpcode::kAbs, x); }
  H Neg(H x) { return Unary(HloOpcode::kNegate, x); }
  H Sin(H x) { return Unary(HloOpcode::kSin, x); }
  H Cos(H x) { return Unary(HloOpcode::kCos, x); }
  H Sign(H x) { return Unary(HloOpcode::kSign, x); }
  H Atan2(H a, H b) { return Binary(HloOpcode::kAtan2, a, b); }
  H Max(H a, H b) { return Binary(HloOpcode::kMaximum, a, b); }
  H Min(H a, H b) { return Binary(HloOpcode::kMinimum, a, b); }
  H And(H a, H b) { return Binary(HloOpcode::kAnd, a, b); }
  H Or(H a, H b) { return Binary(HloOpcode::kOr, a, b); }
  H Not(H a) { return Unary(HloOpcode::kNot, a); }

  // c[0] x^(n-1) + ... + c[n-1] by Horner's rule, constants in x's type.
  H Polynomial(H x, absl::Span<const double> coefficients);

 private:
  bool Ok(std::initializer_list<H> operands) const;
  H Take(absl::StatusOr<H> result);

  Emitter& e_;
  const Op& op_;
  Scope& scope_;
  absl::Status status_;
};

}  // namespace stablehlo
}  // namespace xla

#endif  // XLA_STABLEHLO_EXPRESSION_BUILDER_H_
