// Uniform quantized types (`!quant.uniform`), lowered as StableHLO's
// quant-to-integer legalization does: a quantized tensor is its storage
// tensor in HLO, its scales and zero points are importer-side type
// information, and the quantization ops become HLO arithmetic. Following
// the StableHLO specification's quantize/dequantize (upstream docs/spec.md;
// the copy in ../shared/spec predates its quantization sections):
//   quantize(x)   = convert<storage>(round_nearest_even(clamp(storage_min,
//                     x / scale + zero_point, storage_max)))
//   dequantize(q) = convert<expressed>(q - zero_point) * scale
// with per-axis scales and zero points broadcast along the quantization
// axis. (The subtraction is done in a wider integer so that it cannot wrap.)
// Element-wise ops, compare, dot_general and convolution on quantized values
// are dequantize -> op -> quantize (the spec's dequantize_op_quantize);
// data-movement ops work on the storage when every quantized type involved
// is the same; other ops reject quantized types.
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/emitter.h"
#include "xla/stablehlo/expression_builder.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {
namespace {

using H = HloInstruction*;

bool IsQuantized(const Type& t) {
  if (t.quant.has_value()) return true;
  for (const Type& e : t.elements) {
    if (IsQuantized(e)) return true;
  }
  return false;
}

// Ops that only pass values along (calls, control flow, tuples, checks,
// constants and bitcasts, which see the storage bits).
bool IsPlumbing(const std::string& name) {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "func.call", "call", "stablehlo.while", "stablehlo.if", "stablehlo.case", "stablehlo.tuple",
      "stablehlo.get_tuple_element", "stablehlo.optimization_barrier", "stablehlo.custom_call",
      "stablehlo.constant", "stablehlo.bitcast_convert", "stablehlo.composite"};
  return ops->contains(name) || absl::StartsWith(name, "check.") || absl::StartsWith(name, "interpreter.");
}

// Ops that move elements without computing on them: correct on the storage
// when operands and results share one quantized type.
bool IsDataMovement(const std::string& name) {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "broadcast_in_dim", "concatenate", "dynamic_slice", "dynamic_update_slice", "gather", "pad", "reshape",
      "reverse", "select", "slice", "transpose"};
  return ops->contains(name);
}

// dequantize_op_quantize ops of the spec.
bool IsComputation(const std::string& name) {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "abs", "add", "atan2", "cbrt", "ceil", "clamp", "compare", "convolution", "cosine", "divide", "dot_general",
      "exponential", "exponential_minus_one", "floor", "log", "log_plus_one", "logistic", "maximum", "minimum",
      "multiply", "negate", "power", "remainder", "round_nearest_afz", "round_nearest_even", "rsqrt", "sign", "sine",
      "sqrt", "subtract", "tan", "tanh"};
  return ops->contains(name);
}

// The expressed (float) type in place of every quantized element type.
Type Expressed(Type t) {
  if (t.quant.has_value()) {
    t.element_type = t.quant->expressed;
    t.element = std::string(primitive_util::LowercaseName(t.element_type));
    t.quant.reset();
  }
  for (Type& e : t.elements) e = Expressed(std::move(e));
  return t;
}

class Quantizer {
 public:
  Quantizer(Emitter* e, const Op* op, Scope* scope) : e_(*e), op_(*op), scope_(*scope), b_(e, op, scope) {}

  // `values` (one per index along the axis, or one) of type `type`, as a
  // tensor of `shape`.
  absl::StatusOr<H> Parameter(const QuantizedType& q, const std::vector<double>& values, PrimitiveType type,
                              const Shape& shape) {
    const Shape target = ShapeUtil::ChangeElementType(shape, type);
    absl::StatusOr<Literal> literal = q.axis.has_value() ? Literal::CreateR1<double>(values).Convert(type)
                                                         : Literal::CreateR0<double>(values[0]).Convert(type);
    if (!literal.ok()) return e_.OpError(op_, literal.status().message());
    H c = e_.AddConstant(scope_, std::move(*literal));
    HloInstructionProto attrs;
    if (q.axis.has_value()) attrs.add_dimensions(*q.axis);
    if (!q.axis.has_value() && target.rank() == 0) return c;
    return e_.Emit(op_, scope_, HloOpcode::kBroadcast, {c}, attrs, {}, target);
  }

  absl::StatusOr<H> Quantize(H x, const QuantizedType& q) {
    const Shape& shape = x->shape();
    if (!primitive_util::IsFloatingPointType(shape.element_type())) {
      return e_.OpError(op_, absl::StrCat("quantizes floats, got ", shape.ToString()));
    }
    x = b_.Convert(x, q.expressed);
    std::vector<double> zps(q.zero_points.begin(), q.zero_points.end());
    ASSIGN_OR_RETURN(H scale, Parameter(q, q.scales, q.expressed, shape));
    ASSIGN_OR_RETURN(H zero_point, Parameter(q, zps, q.expressed, shape));
    H y = b_.Add(b_.Div(x, scale), zero_point);
    H lo = b_.Const(static_cast<double>(q.storage_min), y);
    H hi = b_.Const(static_cast<double>(q.storage_max), y);
    if (!b_.status().ok()) return b_.status();
    ASSIGN_OR_RETURN(H clamped, e_.Emit(op_, scope_, HloOpcode::kClamp, {lo, y, hi}));
    H rounded = b_.Unary(HloOpcode::kRoundNearestEven, clamped);
    H out = b_.Convert(rounded, q.storage);
    RETURN_IF_ERROR(b_.status());
    return out;
  }

  absl::StatusOr<H> Dequantize(H x, const QuantizedType& q) {
    const Shape& shape = x->shape();
    if (shape.element_type() != q.storage) {
      return e_.OpError(op_, absl::StrCat("a quantized value's storage is ", shape.ToString(), ", not ",
                                          primitive_util::LowercaseName(q.storage)));
    }
    const PrimitiveType wide = primitive_util::BitWidth(q.storage) >= 32 ? S64 : S32;
    std::vector<double> zps(q.zero_points.begin(), q.zero_points.end());
    ASSIGN_OR_RETURN(H zero_point, Parameter(q, zps, wide, shape));
    ASSIGN_OR_RETURN(H scale, Parameter(q, q.scales, q.expressed, shape));
    H out = b_.Mul(b_.Convert(b_.Sub(b_.Convert(x, wide), zero_point), q.expressed), scale);
    RETURN_IF_ERROR(b_.status());
    return out;
  }

 private:
  Emitter& e_;
  const Op& op_;
  Scope& scope_;
  ExpressionBuilder b_;
};

}  // namespace

bool Emitter::HasQuantizedTypes(const Op& op) {
  for (const Type& t : op.operand_types) {
    if (IsQuantized(t)) return true;
  }
  for (const Type& t : op.result_types) {
    if (IsQuantized(t)) return true;
  }
  return false;
}

absl::StatusOr<Values> Emitter::LowerQuantizedOp(const Op& op, Scope& scope) {
  if (IsPlumbing(op.name)) return LowerStablehloOp(op, scope);
  const std::string name = absl::StartsWith(op.name, "stablehlo.") ? op.name.substr(10) : op.name;
  // Operand i's type: as listed, else (single-type pretty form) the result's.
  auto operand_type = [&](size_t i) -> const Type* {
    if (op.operand_types.size() == op.operands.size()) return &op.operand_types[i];
    if (op.operand_types.empty() && op.result_types.size() == 1) return &op.result_types[0];
    return nullptr;
  };
  const Type* first = nullptr;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const Type* t = operand_type(i);
    if (t == nullptr && IsComputation(name)) return OpError(op, "needs its operand types written out");
  }
  ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
  Quantizer quantizer(this, &op, &scope);
  if (name == "uniform_quantize" || name == "uniform_dequantize") {
    if (operands.size() != 1 || op.result_types.size() != 1) return OpError(op, "takes one operand and one result");
    const Type* in = operand_type(0);
    const Type& out = op.result_types[0];
    HloInstruction* x = operands[0];
    if (in != nullptr && in->quant.has_value()) {
      ASSIGN_OR_RETURN(x, quantizer.Dequantize(x, *in->quant));
    } else if (name == "uniform_dequantize") {
      return OpError(op, "needs a quantized operand");
    }
    if (name == "uniform_dequantize") {
      if (out.quant.has_value() || out.element_type != in->quant->expressed) {
        return OpError(op, absl::StrCat("the result must be the operand's expressed type ",
                                        primitive_util::LowercaseName(in->quant->expressed), ", got ",
                                        out.ToString()));
      }
      return Values{x};
    }
    if (!out.quant.has_value()) return OpError(op, absl::StrCat("needs a quantized result type, got ", out.ToString()));
    ASSIGN_OR_RETURN(HloInstruction * q, quantizer.Quantize(x, *out.quant));
    return Values{q};
  }
  if (IsDataMovement(name)) {
    for (const std::vector<Type>* types : {&op.operand_types, &op.result_types}) {
      for (const Type& t : *types) {
        if (!t.quant.has_value()) continue;
        if (first == nullptr) first = &t;
        if (!(*t.quant == *first->quant)) {
          return OpError(op, absl::StrCat("moves quantized values between different quantized types (", first->element,
                                          " and ", t.element, "); supported only when they are the same"));
        }
      }
    }
    return LowerStablehloOp(op, scope);
  }
  if (!IsComputation(name)) {
    std::string type;
    for (const std::vector<Type>* types : {&op.operand_types, &op.result_types}) {
      for (const Type& t : *types) {
        if (type.empty() && IsQuantized(t)) type = t.ToString();
      }
    }
    return OpError(op, absl::StrCat("quantized operands and results (", type,
                                    ") are not supported for this op; supported: uniform_quantize, "
                                    "uniform_dequantize, bitcast_convert, element-wise ops, compare, dot_general, "
                                    "convolution and data movement with one quantized type"));
  }
  // dequantize -> the op on the expressed types -> quantize.
  Op expressed = op;
  expressed.operand_types.clear();
  Scope inner;
  inner.parent = &scope;
  inner.comp = scope.comp;
  inner.in_reducer = scope.in_reducer;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const Type* t = operand_type(i);
    expressed.operand_types.push_back(Expressed(*t));
    const ValueRef& ref = op.operands[i];
    HloInstruction* v = operands[i];
    if (t->quant.has_value()) {
      ASSIGN_OR_RETURN(v, quantizer.Dequantize(v, *t->quant));
    }
    // Bind the (dequantized) operand under its own name for the op's handler.
    Values bound(ref.has_index ? ref.index + 1 : 1, v);
    if (ref.has_index) {
      auto outer = scope.values.find(ref.name);
      if (outer != scope.values.end() && outer->second.size() > bound.size()) bound.resize(outer->second.size(), v);
    }
    bound[ref.has_index ? ref.index : 0] = v;
    inner.values[ref.name] = std::move(bound);
  }
  for (Type& t : expressed.result_types) t = Expressed(t);
  ASSIGN_OR_RETURN(Values results, LowerStablehloOp(expressed, inner));
  for (size_t i = 0; i < results.size() && i < op.result_types.size(); ++i) {
    if (op.result_types[i].quant.has_value()) {
      ASSIGN_OR_RETURN(results[i], quantizer.Quantize(results[i], *op.result_types[i].quant));
    }
  }
  return results;
}

}  // namespace stablehlo
}  // namespace xla
