#include "xla/stablehlo/expression_builder.h"

#include "xla/shape_util.h"

namespace xla {
namespace stablehlo {

bool ExpressionBuilder::Ok(std::initializer_list<H> operands) const {
  if (!status_.ok()) return false;
  for (H h : operands) {
    if (h == nullptr) return false;
  }
  return true;
}

ExpressionBuilder::H ExpressionBuilder::Take(absl::StatusOr<H> result) {
  if (!result.ok()) {
    if (status_.ok()) status_ = result.status();
    return nullptr;
  }
  return *result;
}

ExpressionBuilder::H ExpressionBuilder::Const(double value, H like) {
  if (!Ok({like})) return nullptr;
  absl::StatusOr<Literal> scalar = Literal::CreateR0<double>(value).Convert(like->shape().element_type());
  if (!scalar.ok()) return Take(scalar.status());
  H c = e_.AddConstant(scope_, std::move(*scalar));
  if (like->shape().rank() == 0) return c;
  return Take(e_.Emit(op_, scope_, HloOpcode::kBroadcast, {c}, {}, {}, like->shape()));
}

ExpressionBuilder::H ExpressionBuilder::Unary(HloOpcode opcode, H x) {
  if (!Ok({x})) return nullptr;
  return Take(e_.Emit(op_, scope_, opcode, {x}));
}

ExpressionBuilder::H ExpressionBuilder::Binary(HloOpcode opcode, H a, H b) {
  if (!Ok({a, b})) return nullptr;
  return Take(e_.Emit(op_, scope_, opcode, {a, b}));
}

ExpressionBuilder::H ExpressionBuilder::Compare(const char* direction, H a, H b) {
  if (!Ok({a, b})) return nullptr;
  HloInstructionProto attrs;
  attrs.set_comparison_direction(direction);
  return Take(e_.Emit(op_, scope_, HloOpcode::kCompare, {a, b}, attrs));
}

ExpressionBuilder::H ExpressionBuilder::Select(H pred, H a, H b) {
  if (!Ok({pred, a, b})) return nullptr;
  return Take(e_.Emit(op_, scope_, HloOpcode::kSelect, {pred, a, b}));
}

ExpressionBuilder::H ExpressionBuilder::Convert(H x, PrimitiveType type) {
  if (!Ok({x})) return nullptr;
  if (x->shape().element_type() == type) return x;
  return Take(e_.Emit(op_, scope_, HloOpcode::kConvert, {x}, {}, {}, ShapeUtil::ChangeElementType(x->shape(), type)));
}

ExpressionBuilder::H ExpressionBuilder::BitcastConvert(H x, PrimitiveType type) {
  if (!Ok({x})) return nullptr;
  return Take(
      e_.Emit(op_, scope_, HloOpcode::kBitcastConvert, {x}, {}, {}, ShapeUtil::ChangeElementType(x->shape(), type)));
}

ExpressionBuilder::H ExpressionBuilder::Polynomial(H x, absl::Span<const double> coefficients) {
  if (coefficients.empty()) return Const(0, x);
  H p = Const(coefficients[0], x);
  for (size_t i = 1; i < coefficients.size(); ++i) p = Add(Mul(p, x), Const(coefficients[i], x));
  return p;
}

}  // namespace stablehlo
}  // namespace xla
