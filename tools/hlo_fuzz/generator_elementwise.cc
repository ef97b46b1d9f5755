// Elementwise op families: unary and binary math, compare, select, clamp,
// convert. The error model decides which ops may take approximate operands.
#include "absl/strings/str_cat.h"
#include "tools/hlo_fuzz/generator_internal.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace hlo_fuzz {
namespace {

using O = HloOpcode;

bool IsInt(PrimitiveType t) { return primitive_util::IsIntegralType(t); }

std::string Call(HloOpcode op, const std::string& a) { return absl::StrCat(HloOpcodeString(op), "(", a, ")"); }
std::string Call(HloOpcode op, const std::string& a, const std::string& b) {
  return absl::StrCat(HloOpcodeString(op), "(", a, ", ", b, ")");
}

}  // namespace

bool Generator::UnaryFloatOp() {
  Value* x = Pick([](const Value& v) { return IsFloat(v.shape.element_type()); });
  if (x == nullptr) return false;
  static const HloOpcode kOps[] = {O::kAbs,     O::kNegate,   O::kSign,  O::kFloor,  O::kCeil, O::kRoundNearestEven,
                                   O::kRoundNearestAfz, O::kSqrt, O::kRsqrt, O::kExp, O::kLog, O::kTanh,
                                   O::kLogistic, O::kSin,     O::kCos,   O::kExpm1,  O::kLog1p, O::kCbrt,
                                   O::kIsFinite, O::kErf,     O::kTan};
  static const std::vector<int> kWeights = {3, 3, 2, 2, 2, 2, 2, 3, 2, 4, 3, 4, 3, 1, 1, 1, 1, 1, 2, 1, 1};
  const PrimitiveType t = x->shape.element_type();
  for (int attempt = 0; attempt < 4; ++attempt) {
    const HloOpcode op = kOps[Weighted(kWeights)];
    const PrimitiveType out = op == O::kIsFinite ? PRED : t;
    const Precision p = UnaryPrecision(op, t, out, x->precision);
    if (p.unusable) continue;
    Emit(MakeShape(out, x->shape.dimensions()), Call(op, Use(x)), p, HloOpcodeString(op));
    return true;
  }
  return false;
}

bool Generator::UnaryIntOp() {
  Value* x = Pick([](const Value& v) { return IsInt(v.shape.element_type()) || v.shape.element_type() == PRED; });
  if (x == nullptr) return false;
  const PrimitiveType t = x->shape.element_type();
  HloOpcode op = O::kNot;
  if (t != PRED) {
    const bool is_signed = primitive_util::IsSignedIntegralType(t);
    static const HloOpcode kOps[] = {O::kAbs, O::kNegate, O::kNot, O::kPopulationCount, O::kClz, O::kSign};
    op = kOps[Weighted({is_signed ? 3 : 0, 3, 2, 2, 2, is_signed ? 2 : 0})];
  }
  const Precision p = UnaryPrecision(op, t, t, x->precision);
  if (p.unusable) return false;
  Emit(MakeShape(t, x->shape.dimensions()), Call(op, Use(x)), p, HloOpcodeString(op));
  return true;
}

bool Generator::BinaryOp(bool floats) {
  Value* x = Pick([&](const Value& v) {
    const PrimitiveType t = v.shape.element_type();
    return floats ? IsFloat(t) : (IsInt(t) || t == PRED);
  });
  if (x == nullptr) return false;
  const PrimitiveType t = x->shape.element_type();
  const std::vector<int64_t>& dims = x->shape.dimensions();
  std::vector<HloOpcode> ops;
  std::vector<int> weights;
  if (floats) {
    ops = {O::kAdd, O::kSubtract, O::kMultiply, O::kDivide, O::kRemainder, O::kPower, O::kMaximum, O::kMinimum,
           O::kAtan2};
    weights = {5, 4, 5, 3, 2, 2, 3, 3, 1};
  } else if (t == PRED) {
    ops = {O::kAnd, O::kOr, O::kXor, O::kAdd, O::kMultiply};  // add/multiply: or/and
    weights = {2, 2, 2, 1, 1};
  } else {
    ops = {O::kAdd, O::kSubtract, O::kMultiply, O::kDivide, O::kRemainder, O::kPower, O::kMaximum,
           O::kMinimum, O::kAnd, O::kOr, O::kXor, O::kShiftLeft, O::kShiftRightArithmetic,
           O::kShiftRightLogical};
    weights = {4, 3, 4, 3, 3, 2, 2, 2, 2, 2, 2, 3, 3, 3};
  }
  for (int attempt = 0; attempt < 4; ++attempt) {
    const HloOpcode op = ops[Weighted(weights)];
    Value* y;
    const bool shift =
        op == O::kShiftLeft || op == O::kShiftRightArithmetic || op == O::kShiftRightLogical;
    if (shift && Chance(0.5)) {
      // Shift counts below, at and past the bit width (and negative).
      const int bits = primitive_util::BitWidth(t);
      std::vector<std::string> counts = {"0", "1", std::to_string(bits - 1), std::to_string(bits),
                                         std::to_string(bits + 1), "100"};
      if (primitive_util::IsSignedIntegralType(t)) counts.push_back("-1");
      Value* c = ScalarConstant(t, counts[Uniform(static_cast<int>(counts.size()))]);
      y = dims.empty() ? c
                       : Emit(MakeShape(t, dims), absl::StrCat("broadcast(", Use(c), "), dimensions={}"),
                              c->precision, "broadcast");
    } else {
      y = FindOrMake(t, dims, /*exact=*/attempt >= 1);
    }
    Value* a = x;
    Value* b = y;
    if (Chance(0.5)) std::swap(a, b);
    const Precision p = BinaryPrecision(op, t, a->precision, b->precision);
    if (p.unusable) continue;
    Emit(MakeShape(t, dims), Call(op, Use(a), Use(b)), p, HloOpcodeString(op));
    return true;
  }
  return false;
}

bool Generator::CompareOp() {
  Value* x = Pick([](const Value& v) { return v.precision.exact() && v.shape.element_type() != PRED; });
  if (x == nullptr) return false;
  const PrimitiveType t = x->shape.element_type();
  Value* y = FindOrMake(t, x->shape.dimensions(), /*exact=*/true);
  static const char* kDirections[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  std::string rhs = absl::StrCat("compare(", Use(x), ", ", Use(y), "), direction=", kDirections[Uniform(6)]);
  if (IsFloat(t) && Chance(0.08) && !TotalOrderComparePrecision(x->precision, y->precision).unusable) {
    absl::StrAppend(&rhs, ", type=TOTALORDER");
    Count("compare:totalorder");
  }
  Emit(MakeShape(PRED, x->shape.dimensions()), rhs, Exact(1), "compare");
  return true;
}

bool Generator::SelectOp() {
  Value* on_true = Pick([](const Value&) { return true; });
  if (on_true == nullptr) return false;
  const PrimitiveType t = on_true->shape.element_type();
  const std::vector<int64_t>& dims = on_true->shape.dimensions();
  const std::vector<int64_t> pred_dims = Chance(0.2) ? std::vector<int64_t>{} : dims;
  if (pred_dims.empty() && !dims.empty()) Count("select:scalar-pred");
  Value* pred = Pick([&](const Value& v) {
    return v.shape.element_type() == PRED && v.shape.dimensions() == pred_dims && v.precision.exact();
  });
  if (pred == nullptr || Chance(0.3)) {
    // A fresh comparison of exact values.
    const PrimitiveType ct = Chance(0.5) ? RandomFloatType() : RandomIntType();
    Value* a = FindOrMake(ct, pred_dims, true);
    Value* b = FindOrMake(ct, pred_dims, true);
    static const char* kDirections[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    pred = Emit(MakeShape(PRED, pred_dims),
                absl::StrCat("compare(", Use(a), ", ", Use(b), "), direction=", kDirections[Uniform(6)]), Exact(1),
                "compare");
  }
  Value* on_false = FindOrMake(t, dims, false);
  if (Chance(0.5)) std::swap(on_true, on_false);
  const Precision p = SelectPrecision(pred->precision, on_true->precision, on_false->precision);
  if (p.unusable) return false;
  Emit(MakeShape(t, dims), absl::StrCat("select(", Use(pred), ", ", Use(on_true), ", ", Use(on_false), ")"), p,
       "select");
  return true;
}

bool Generator::ClampOp() {
  Value* x = Pick([](const Value& v) { return v.shape.element_type() != PRED; });
  if (x == nullptr) return false;
  const PrimitiveType t = x->shape.element_type();
  const bool scalar_bounds = Chance(0.6);
  auto bound = [&]() -> Value* {
    return scalar_bounds ? ScalarConstant(t) : FindOrMake(t, x->shape.dimensions(), false);
  };
  Value* lo = bound();
  Value* hi = bound();
  if (scalar_bounds && !x->shape.dimensions().empty()) Count("clamp:scalar-bounds");
  const Precision p = ClampPrecision(lo->precision, x->precision, hi->precision);
  if (p.unusable) return false;
  Emit(MakeShape(t, x->shape.dimensions()),
       absl::StrCat("clamp(", Use(lo), ", ", Use(x), ", ", Use(hi), ")"), p, "clamp");
  return true;
}

bool Generator::ConvertOp() {
  Value* x = Pick([](const Value&) { return true; });
  if (x == nullptr) return false;
  const PrimitiveType from = x->shape.element_type();
  for (int attempt = 0; attempt < 4; ++attempt) {
    const PrimitiveType to = attempt < 2 ? RandomArrayType() : RandomFloatType();
    if (to == from) continue;
    const Precision p = UnaryPrecision(HloOpcode::kConvert, from, to, x->precision);
    if (p.unusable) continue;
    Emit(MakeShape(to, x->shape.dimensions()), absl::StrCat("convert(", Use(x), ")"), p, "convert");
    Count(absl::StrCat("convert:", TypeName(from), "->", TypeName(to)));
    return true;
  }
  return false;
}

}  // namespace hlo_fuzz
}  // namespace xla
