#include "xla/shape_inference.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/comparison.h"
#include "xla/primitive_util.h"
#include "xla/random_bits.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

using primitive_util::IsComplexType;
using primitive_util::IsFloatingPointType;
using primitive_util::IsIntegralType;
using primitive_util::IsSignedIntegralType;
using primitive_util::IsUnsignedIntegralType;

// "dynamic-slice" -> "DynamicSlice": the op's name in error messages.
std::string OpName(HloOpcode opcode) {
  std::string out;
  bool upper = true;
  for (char c : HloOpcodeString(opcode)) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out.push_back(upper ? absl::ascii_toupper(static_cast<unsigned char>(c)) : c);
    upper = false;
  }
  return out;
}

std::string TypeName(PrimitiveType type) { return std::string(primitive_util::LowercaseName(type)); }

std::string ListStr(absl::Span<const int64_t> values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

void ClearLayouts(Shape* shape) {
  shape->clear_layout();
  for (Shape& s : *shape->mutable_tuple_shapes()) ClearLayouts(&s);
}

Shape NoLayout(Shape shape) {
  ClearLayouts(&shape);
  return shape;
}

// The result of every inference is a valid shape; this catches sizes that
// overflow or go negative (e.g. a broadcast to 2^40 x 2^40 elements).
absl::StatusOr<Shape> Validated(absl::string_view op, Shape shape) {
  absl::Status s = ShapeUtil::ValidateShape(shape);
  if (!s.ok()) return InvalidArgument("%s: invalid result shape: %s", op, s.message());
  return NoLayout(std::move(shape));
}

absl::Status ExpectArray(absl::string_view op, absl::string_view what, const Shape& shape) {
  if (shape.IsArray()) return absl::OkStatus();
  return InvalidArgument("%s: %s must be an array, got %s", op, what, shape.ToString());
}

absl::Status ExpectNonNull(absl::string_view op, absl::Span<const Shape* const> shapes) {
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (shapes[i] == nullptr) return InvalidArgument("%s: operand %d has no shape (null)", op, i);
  }
  return absl::OkStatus();
}

// Every entry of `dims` names a dimension of `shape` and appears once.
absl::Status CheckDimensionList(absl::string_view op, absl::string_view what,
                                absl::Span<const int64_t> dims, const Shape& shape) {
  std::vector<bool> seen(shape.rank(), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= shape.rank()) {
      return InvalidArgument("%s: %s %s: dimension %d is out of range for %s (rank %d)", op, what,
                             ListStr(dims), d, shape.ToString(), shape.rank());
    }
    if (seen[d]) {
      return InvalidArgument("%s: %s %s: dimension %d appears more than once", op, what, ListStr(dims), d);
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

bool CheckedAdd(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }
bool CheckedMul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

// --- Element-wise type rules ---------------------------------------------------

// Checks the element types of a binary element-wise op and returns the result
// element type (PRED for compare, complex for complex).
absl::StatusOr<PrimitiveType> BinaryResultType(HloOpcode opcode, const Shape& lhs, const Shape& rhs) {
  const std::string op = OpName(opcode);
  if (!IsElementwiseBinary(opcode)) return InvalidArgument("%s is not an element-wise binary op", op);
  RETURN_IF_ERROR(ExpectArray(op, "lhs", lhs));
  RETURN_IF_ERROR(ExpectArray(op, "rhs", rhs));
  if (lhs.element_type() != rhs.element_type()) {
    return InvalidArgument("%s: element types differ: lhs %s, rhs %s", op, lhs.ToString(), rhs.ToString());
  }
  const PrimitiveType t = lhs.element_type();
  auto type_error = [&](absl::string_view expected) {
    return InvalidArgument("%s: operands must have %s element type, got %s (lhs %s, rhs %s)", op, expected,
                           TypeName(t), lhs.ToString(), rhs.ToString());
  };
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
      // On booleans: logical or / and (StableHLO's add and multiply).
      return t;
    case HloOpcode::kSubtract:
    case HloOpcode::kDivide:
    case HloOpcode::kPower:
      if (t == PRED) return type_error("an arithmetic (non-pred)");
      return t;
    case HloOpcode::kRemainder:
      // No remainder is defined for complex numbers.
      if (t == PRED || IsComplexType(t)) return type_error("an integral or floating-point");
      return t;
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
      return t;
    case HloOpcode::kAtan2:
      // atan2 takes real operands (a complex number's angle is Atan2(Imag, Real)).
      if (!IsFloatingPointType(t)) return type_error("a floating-point");
      return t;
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      if (t != PRED && !IsIntegralType(t)) return type_error("a pred or integral");
      return t;
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
      if (!IsIntegralType(t)) return type_error("an integral");
      return t;
    case HloOpcode::kComplex:
      if (t == F32) return C64;
      if (t == F64) return C128;
      return type_error("an f32 or f64");
    case HloOpcode::kCompare:
      return PRED;
    default:
      break;
  }
  return InvalidArgument("%s is not an element-wise binary op", op);
}

absl::StatusOr<Shape> InferHloBinaryShape(HloOpcode opcode, const Shape& lhs, const Shape& rhs) {
  ASSIGN_OR_RETURN(PrimitiveType t, BinaryResultType(opcode, lhs, rhs));
  if (!ShapeUtil::SameDimensions(lhs, rhs)) {
    return InvalidArgument(
        "%s: operands must have the same dimensions in HLO (broadcasts are explicit instructions): "
        "lhs %s, rhs %s",
        OpName(opcode), lhs.ToString(), rhs.ToString());
  }
  return ShapeUtil::MakeShape(t, lhs.dimensions());
}

// Same-rank broadcasting: each pair of sizes is equal or one of them is 1.
absl::StatusOr<std::vector<int64_t>> DegenerateBroadcast(const std::string& op, const Shape& lhs,
                                                         absl::Span<const int64_t> a,
                                                         absl::Span<const int64_t> b, const Shape& rhs) {
  std::vector<int64_t> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || b[i] == 1) {
      out[i] = a[i];
    } else if (a[i] == 1) {
      out[i] = b[i];
    } else {
      return InvalidArgument(
          "%s: dimension %d is incompatible for broadcasting: lhs has size %d and rhs has size %d "
          "(sizes must be equal or one of them 1; lhs %s, rhs %s)",
          op, i, a[i], b[i], lhs.ToString(), rhs.ToString());
    }
  }
  return out;
}

absl::Status CheckComparisonType(const std::string& op, absl::string_view type_text, const Shape& lhs) {
  auto type_or = StringToComparisonType(type_text);
  if (!type_or.ok()) {
    return InvalidArgument("%s: invalid comparison_type '%s' (expected FLOAT, TOTALORDER, SIGNED or UNSIGNED)",
                           op, type_text);
  }
  const PrimitiveType t = lhs.element_type();
  bool ok = false;
  switch (*type_or) {
    case ComparisonType::kFloat: ok = IsFloatingPointType(t) || IsComplexType(t); break;
    case ComparisonType::kTotalOrder: ok = IsFloatingPointType(t); break;
    case ComparisonType::kSigned: ok = IsSignedIntegralType(t); break;
    case ComparisonType::kUnsigned: ok = IsUnsignedIntegralType(t) || t == PRED; break;
  }
  if (!ok) {
    return InvalidArgument("%s: comparison_type %s does not apply to element type %s (operand %s)", op,
                           type_text, TypeName(t), lhs.ToString());
  }
  return absl::OkStatus();
}

absl::Status CheckScalarIndices(const std::string& op, const Shape& operand,
                                absl::Span<const Shape> start_index_shapes) {
  if (static_cast<int64_t>(start_index_shapes.size()) != operand.rank()) {
    return InvalidArgument("%s: expected %d start indices (one scalar per dimension of operand %s), got %d",
                           op, operand.rank(), operand.ToString(), start_index_shapes.size());
  }
  for (size_t i = 0; i < start_index_shapes.size(); ++i) {
    const Shape& s = start_index_shapes[i];
    if (!ShapeUtil::IsScalar(s) || !IsIntegralType(s.element_type())) {
      return InvalidArgument("%s: start index %d must be an integral scalar, got %s", op, i, s.ToString());
    }
    if (s.element_type() != start_index_shapes[0].element_type()) {
      return InvalidArgument("%s: start indices must all have the same type: index 0 is %s but index %d is %s",
                             op, start_index_shapes[0].ToString(), i, s.ToString());
    }
  }
  return absl::OkStatus();
}

// At least one operand, every one an array with operand 0's dimensions
// (sort, map).
absl::Status ExpectArraysOfOneShape(absl::string_view op, absl::Span<const Shape* const> operands) {
  RETURN_IF_ERROR(ExpectNonNull(op, operands));
  if (operands.empty()) return InvalidArgument("%s: needs at least one operand", op);
  const Shape& first = *operands[0];
  for (size_t i = 0; i < operands.size(); ++i) {
    RETURN_IF_ERROR(ExpectArray(op, absl::StrCat("operand ", i), *operands[i]));
    if (!ShapeUtil::SameDimensions(*operands[i], first)) {
      return InvalidArgument("%s: all operands must have the same dimensions: operand 0 %s, operand %d %s", op,
                             first.ToString(), i, operands[i]->ToString());
    }
  }
  return absl::OkStatus();
}

// The opcodes InferInstructionShape knows; everything else is Unimplemented.
bool InShapeInferenceSlice(HloOpcode opcode) {
  if (IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode)) return true;
  switch (opcode) {
    case HloOpcode::kParameter: case HloOpcode::kConstant: case HloOpcode::kCopy:
    case HloOpcode::kSelect: case HloOpcode::kClamp: case HloOpcode::kConvert:
    case HloOpcode::kBitcastConvert: case HloOpcode::kBroadcast: case HloOpcode::kReshape:
    case HloOpcode::kTranspose: case HloOpcode::kReverse: case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice: case HloOpcode::kDynamicUpdateSlice: case HloOpcode::kConcatenate:
    case HloOpcode::kPad: case HloOpcode::kTuple: case HloOpcode::kGetTupleElement:
    case HloOpcode::kIota: case HloOpcode::kDot: case HloOpcode::kReduce: case HloOpcode::kMap:
    case HloOpcode::kCall: case HloOpcode::kWhile: case HloOpcode::kConditional:
    case HloOpcode::kGather: case HloOpcode::kConvolution: case HloOpcode::kReduceWindow: case HloOpcode::kScatter:
    case HloOpcode::kSelectAndScatter: case HloOpcode::kBitcast: case HloOpcode::kFusion:
    case HloOpcode::kOptimizationBarrier: case HloOpcode::kReducePrecision:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kSort: case HloOpcode::kTopK:
    case HloOpcode::kFft: case HloOpcode::kTriangularSolve: case HloOpcode::kCholesky:
    case HloOpcode::kCustomCall:
    case HloOpcode::kRng: case HloOpcode::kBatchNormTraining: case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad: case HloOpcode::kGetDimensionSize: case HloOpcode::kSetDimensionSize:
      return true;
    default:
      return false;
  }
}

// A convolution's feature/batch group count: 0 (unset in the proto) means 1.
int64_t GroupCount(int64_t count) { return count == 0 ? 1 : count; }

std::string ParamListStr(const ProgramShape& ps) { return ps.ToString(); }

}  // namespace

// --- Element-wise ops -----------------------------------------------------------

absl::StatusOr<Shape> ShapeInference::InferUnaryOpShape(HloOpcode opcode, const Shape& operand) {
  const std::string op = OpName(opcode);
  if (!IsElementwiseUnary(opcode)) return InvalidArgument("%s is not an element-wise unary op", op);
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  const PrimitiveType t = operand.element_type();
  const bool is_float = IsFloatingPointType(t);
  const bool is_complex = IsComplexType(t);
  auto type_error = [&](absl::string_view expected) {
    return InvalidArgument("%s: operand must have %s element type, got %s", op, expected, operand.ToString());
  };
  const Shape same = NoLayout(operand);
  switch (opcode) {
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kErf:
      if (!is_float) return type_error("a floating-point");
      return same;
    case HloOpcode::kIsFinite:
      if (!is_float) return type_error("a floating-point");
      return ShapeUtil::ChangeElementType(same, PRED);
    case HloOpcode::kCos:
    case HloOpcode::kSin:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kSqrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kCbrt:  // complex: the principal cube root (StableHLO)
      if (!is_float && !is_complex) return type_error("a floating-point or complex");
      return same;
    case HloOpcode::kReal:
    case HloOpcode::kImag:
      if (is_complex) return ShapeUtil::ChangeElementType(same, primitive_util::ComplexComponentType(t));
      if (!is_float) return type_error("a floating-point or complex");
      return same;
    case HloOpcode::kAbs:
      if (is_complex) return ShapeUtil::ChangeElementType(same, primitive_util::ComplexComponentType(t));
      if (!is_float && !IsSignedIntegralType(t)) return type_error("a signed integral, floating-point or complex");
      return same;
    case HloOpcode::kSign:
      if (!is_float && !is_complex && !IsSignedIntegralType(t)) {
        return type_error("a signed integral, floating-point or complex");
      }
      return same;
    case HloOpcode::kNegate:
      if (!is_float && !is_complex && !IsIntegralType(t)) return type_error("an integral, floating-point or complex");
      return same;
    case HloOpcode::kNot:
      if (t != PRED && !IsIntegralType(t)) return type_error("a pred or integral");
      return same;
    case HloOpcode::kClz:
    case HloOpcode::kPopulationCount:
      if (!IsIntegralType(t)) return type_error("an integral");
      return same;
    default:
      break;
  }
  return InvalidArgument("%s is not an element-wise unary op", op);
}

absl::StatusOr<Shape> ShapeInference::InferBinaryOpShape(HloOpcode opcode, const Shape& lhs, const Shape& rhs,
                                                         absl::Span<const int64_t> broadcast_dimensions) {
  const std::string op = OpName(opcode);
  ASSIGN_OR_RETURN(PrimitiveType t, BinaryResultType(opcode, lhs, rhs));
  if (lhs.rank() == rhs.rank()) {
    if (!broadcast_dimensions.empty()) {
      for (size_t i = 0; i < broadcast_dimensions.size(); ++i) {
        if (broadcast_dimensions.size() != static_cast<size_t>(lhs.rank()) ||
            broadcast_dimensions[i] != static_cast<int64_t>(i)) {
          return InvalidArgument(
              "%s: broadcast_dimensions %s must be empty or the identity for operands of equal rank "
              "(lhs %s, rhs %s)",
              op, ListStr(broadcast_dimensions), lhs.ToString(), rhs.ToString());
        }
      }
    }
    ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                     DegenerateBroadcast(op, lhs, lhs.dimensions(), rhs.dimensions(), rhs));
    return ShapeUtil::MakeShape(t, dims);
  }
  const bool lhs_smaller = lhs.rank() < rhs.rank();
  const Shape& smaller = lhs_smaller ? lhs : rhs;
  const Shape& larger = lhs_smaller ? rhs : lhs;
  if (broadcast_dimensions.empty()) {
    if (smaller.rank() == 0) return ShapeUtil::MakeShape(t, larger.dimensions());
    return InvalidArgument(
        "%s: operands of different ranks need broadcast_dimensions (one per dimension of the "
        "lower-rank operand): lhs %s, rhs %s",
        op, lhs.ToString(), rhs.ToString());
  }
  if (static_cast<int64_t>(broadcast_dimensions.size()) != smaller.rank()) {
    return InvalidArgument(
        "%s: broadcast_dimensions %s must have one entry per dimension of the lower-rank operand %s "
        "(rank %d) (lhs %s, rhs %s)",
        op, ListStr(broadcast_dimensions), smaller.ToString(), smaller.rank(), lhs.ToString(), rhs.ToString());
  }
  // Expand the smaller shape to the larger rank with size-1 dimensions, then
  // broadcast degenerate dimensions.
  std::vector<int64_t> expanded(larger.rank(), 1);
  for (size_t i = 0; i < broadcast_dimensions.size(); ++i) {
    const int64_t d = broadcast_dimensions[i];
    if (d < 0 || d >= larger.rank()) {
      return InvalidArgument("%s: broadcast dimension %d (entry %d of %s) is out of range for %s (rank %d)", op, d,
                             i, ListStr(broadcast_dimensions), larger.ToString(), larger.rank());
    }
    if (i > 0 && d <= broadcast_dimensions[i - 1]) {
      return InvalidArgument("%s: broadcast_dimensions %s must be strictly increasing", op,
                             ListStr(broadcast_dimensions));
    }
    const int64_t small_size = smaller.dimensions(i);
    const int64_t large_size = larger.dimensions(d);
    if (small_size != large_size && small_size != 1 && large_size != 1) {
      return InvalidArgument(
          "%s: dimension %d of %s (size %d) is mapped to dimension %d of %s (size %d); sizes must be "
          "equal or one of them 1 (broadcast_dimensions %s)",
          op, i, smaller.ToString(), small_size, d, larger.ToString(), large_size, ListStr(broadcast_dimensions));
    }
    expanded[d] = small_size;
  }
  std::vector<int64_t> dims;
  if (lhs_smaller) {
    ASSIGN_OR_RETURN(dims, DegenerateBroadcast(op, lhs, expanded, rhs.dimensions(), rhs));
  } else {
    ASSIGN_OR_RETURN(dims, DegenerateBroadcast(op, lhs, lhs.dimensions(), expanded, rhs));
  }
  return ShapeUtil::MakeShape(t, dims);
}

absl::StatusOr<Shape> ShapeInference::InferTernaryOpShape(HloOpcode opcode, const Shape& a, const Shape& b,
                                                          const Shape& c) {
  const std::string op = OpName(opcode);
  if (opcode == HloOpcode::kSelect) {
    const Shape& pred = a;
    const Shape& on_true = b;
    const Shape& on_false = c;
    if (!on_true.Compatible(on_false)) {
      return InvalidArgument("%s: on_true and on_false must have the same shape: on_true %s, on_false %s", op,
                             on_true.ToString(), on_false.ToString());
    }
    if (!on_true.IsArray() && !on_true.IsTuple()) {
      return InvalidArgument("%s: on_true and on_false must be arrays or tuples, got %s", op, on_true.ToString());
    }
    if (!pred.IsArray() || pred.element_type() != PRED) {
      return InvalidArgument("%s: pred must be a pred array, got %s", op, pred.ToString());
    }
    if (pred.rank() != 0) {
      if (on_true.IsTuple()) {
        return InvalidArgument("%s: pred must be a scalar when selecting between tuples, got %s (on_true %s)", op,
                               pred.ToString(), on_true.ToString());
      }
      if (!ShapeUtil::SameDimensions(pred, on_true)) {
        return InvalidArgument("%s: pred must be a scalar or have the dimensions of on_true: pred %s, on_true %s",
                               op, pred.ToString(), on_true.ToString());
      }
    }
    return NoLayout(on_true);
  }
  if (opcode == HloOpcode::kClamp) {
    const Shape& min = a;
    const Shape& operand = b;
    const Shape& max = c;
    RETURN_IF_ERROR(ExpectArray(op, "min", min));
    RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
    RETURN_IF_ERROR(ExpectArray(op, "max", max));
    if (primitive_util::IsComplexType(operand.element_type())) {
      return InvalidArgument("%s: complex numbers are not ordered, so they cannot be clamped (operand %s)", op,
                             operand.ToString());
    }
    for (const auto& [name, s] : {std::pair<const char*, const Shape*>{"min", &min}, {"max", &max}}) {
      if (s->element_type() != operand.element_type()) {
        return InvalidArgument("%s: element types differ: %s %s, operand %s", op, name, s->ToString(),
                               operand.ToString());
      }
      if (s->rank() != 0 && !ShapeUtil::SameDimensions(*s, operand)) {
        return InvalidArgument("%s: %s must be a scalar or have the shape of operand: %s %s, operand %s", op, name,
                               name, s->ToString(), operand.ToString());
      }
    }
    return NoLayout(operand);
  }
  return InvalidArgument("%s is not a ternary op (select or clamp)", op);
}

absl::StatusOr<Shape> ShapeInference::InferConvertShape(const Shape& operand, PrimitiveType new_type) {
  RETURN_IF_ERROR(ExpectArray("Convert", "operand", operand));
  if (!primitive_util::IsArrayType(new_type)) {
    return InvalidArgument("Convert: target element type %s is not an array element type (operand %s)",
                           TypeName(new_type), operand.ToString());
  }
  // Complex to a real, integer or pred type takes the real part (StableHLO's
  // convert; the evaluator and the CPU backend do so).
  return ShapeUtil::MakeShape(new_type, operand.dimensions());
}

absl::StatusOr<Shape> ShapeInference::InferBitcastConvertShape(const Shape& operand, PrimitiveType new_type) {
  const char* op = "BitcastConvert";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  if (!primitive_util::IsArrayType(new_type)) {
    return InvalidArgument("%s: target element type %s is not an array element type (operand %s)", op,
                           TypeName(new_type), operand.ToString());
  }
  const PrimitiveType old_type = operand.element_type();
  // pred is StableHLO's i1: one bit (num_bits(i1) = 1), so pred[..., 32]
  // and f32[...] bitcast into each other.
  const int64_t old_bits = primitive_util::BitWidth(old_type);
  const int64_t new_bits = primitive_util::BitWidth(new_type);
  std::vector<int64_t> dims = operand.dimensions();
  if (std::max(old_bits, new_bits) % std::min(old_bits, new_bits) != 0) {
    return InvalidArgument("%s: %s (%d bits) and %s (%d bits) do not divide into each other (operand %s)", op,
                           TypeName(old_type), old_bits, TypeName(new_type), new_bits, operand.ToString());
  }
  if (new_bits < old_bits) {
    // A new minor-most dimension holds the pieces of each element.
    dims.push_back(old_bits / new_bits);
  } else if (new_bits > old_bits) {
    const int64_t ratio = new_bits / old_bits;
    if (dims.empty() || dims.back() != ratio) {
      return InvalidArgument(
          "%s: converting %s to the wider type %s needs a minor-most dimension of size %d (%d-bit to %d-bit)", op,
          operand.ToString(), TypeName(new_type), ratio, old_bits, new_bits);
    }
    dims.pop_back();
  }
  return ShapeUtil::MakeShape(new_type, dims);
}

absl::StatusOr<Shape> ShapeInference::InferBitcastShape(const Shape& operand, const Shape& declared_shape) {
  const char* op = "Bitcast";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  RETURN_IF_ERROR(ExpectArray(op, "result", declared_shape));
  absl::Status valid = ShapeUtil::ValidateShape(declared_shape);
  if (!valid.ok()) return InvalidArgument("%s: invalid result shape: %s", op, valid.message());
  const PrimitiveType from = operand.element_type(), to = declared_shape.element_type();
  if (from != to && (from == PRED || to == PRED)) {
    return InvalidArgument("%s: pred has no defined bit representation; cannot bitcast %s to %s", op,
                           operand.ToString(), declared_shape.ToString());
  }
  // A byte of a type narrower than a byte holds only some bit patterns.
  if (from != to && (primitive_util::BitWidth(from) < 8 || primitive_util::BitWidth(to) < 8)) {
    return InvalidArgument("%s: %s and %s have no common byte representation; cannot bitcast %s to %s (use "
                           "bitcast-convert)", op, TypeName(from), TypeName(to), operand.ToString(),
                           declared_shape.ToString());
  }
  // As on XLA's CPU/GPU backends: any reinterpretation of the same bytes.
  const int64_t from_bytes = ShapeUtil::ByteSizeOfElements(operand);
  const int64_t to_bytes = ShapeUtil::ByteSizeOfElements(declared_shape);
  if (from_bytes != to_bytes) {
    return InvalidArgument("%s: operand %s has %d bytes but the result %s has %d; a bitcast keeps the byte size", op,
                           operand.ToString(), from_bytes, declared_shape.ToString(), to_bytes);
  }
  return NoLayout(declared_shape);
}

absl::StatusOr<Shape> ShapeInference::InferFusionShape(absl::Span<const Shape* const> operands,
                                                       const ProgramShape& fused) {
  const char* op = "Fusion";
  RETURN_IF_ERROR(ExpectNonNull(op, operands));
  if (operands.size() != fused.parameters().size()) {
    return InvalidArgument("%s: the fused computation takes %d parameters but the fusion has %d operands "
                           "(fused computation %s)",
                           op, fused.parameters().size(), operands.size(), ParamListStr(fused));
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i]->Compatible(fused.parameters()[i])) {
      return InvalidArgument("%s: operand %d has shape %s but the fused computation's parameter %d is %s "
                             "(fused computation %s)",
                             op, i, operands[i]->ToString(), i, fused.parameters()[i].ToString(),
                             ParamListStr(fused));
    }
  }
  return NoLayout(fused.result());
}

// --- Shape-changing ops -----------------------------------------------------------

absl::StatusOr<Shape> ShapeInference::InferBroadcastShape(const Shape& operand, absl::Span<const int64_t> sizes) {
  RETURN_IF_ERROR(ExpectArray("Broadcast", "operand", operand));
  for (int64_t s : sizes) {
    if (s < 0) {
      return InvalidArgument("Broadcast: broadcast sizes %s must be non-negative (operand %s)", ListStr(sizes),
                             operand.ToString());
    }
  }
  std::vector<int64_t> dims(sizes.begin(), sizes.end());
  dims.insert(dims.end(), operand.dimensions().begin(), operand.dimensions().end());
  return Validated("Broadcast", ShapeUtil::MakeShape(operand.element_type(), dims));
}

absl::StatusOr<Shape> ShapeInference::InferBroadcastInDimShape(const Shape& operand,
                                                               absl::Span<const int64_t> out_dimensions,
                                                               absl::Span<const int64_t> broadcast_dimensions) {
  const char* op = "Broadcast";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  for (int64_t s : out_dimensions) {
    if (s < 0) return InvalidArgument("%s: output sizes %s must be non-negative", op, ListStr(out_dimensions));
  }
  const Shape out = ShapeUtil::MakeShape(operand.element_type(), out_dimensions);
  if (static_cast<int64_t>(broadcast_dimensions.size()) != operand.rank()) {
    return InvalidArgument(
        "%s: dimensions %s must have one entry per operand dimension (operand %s has rank %d; output %s)", op,
        ListStr(broadcast_dimensions), operand.ToString(), operand.rank(), out.ToString());
  }
  RETURN_IF_ERROR(CheckDimensionList(op, "dimensions", broadcast_dimensions, out));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const int64_t out_dim = broadcast_dimensions[i];
    if (operand.dimensions(i) != 1 && operand.dimensions(i) != out_dimensions[out_dim]) {
      return InvalidArgument(
          "%s: operand dimension %d (size %d) is mapped to output dimension %d (size %d); sizes must be "
          "equal or the operand's 1 (operand %s, output %s, dimensions %s)",
          op, i, operand.dimensions(i), out_dim, out_dimensions[out_dim], operand.ToString(), out.ToString(),
          ListStr(broadcast_dimensions));
    }
  }
  return Validated(op, out);
}

absl::StatusOr<Shape> ShapeInference::InferReshapeShape(const Shape& operand, absl::Span<const int64_t> new_sizes) {
  const char* op = "Reshape";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  for (int64_t s : new_sizes) {
    if (s < 0) return InvalidArgument("%s: new sizes %s must be non-negative", op, ListStr(new_sizes));
  }
  ASSIGN_OR_RETURN(Shape out, Validated(op, ShapeUtil::MakeShape(operand.element_type(), new_sizes)));
  const int64_t in_elements = ShapeUtil::ElementsIn(operand);
  const int64_t out_elements = ShapeUtil::ElementsIn(out);
  if (in_elements != out_elements) {
    return InvalidArgument("%s: cannot reshape %s (%d elements) to %s (%d elements)", op, operand.ToString(),
                           in_elements, out.ToString(), out_elements);
  }
  return out;
}

absl::StatusOr<Shape> ShapeInference::InferTransposeShape(const Shape& operand,
                                                          absl::Span<const int64_t> permutation) {
  const char* op = "Transpose";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  if (static_cast<int64_t>(permutation.size()) != operand.rank()) {
    return InvalidArgument("%s: permutation %s must have %d entries, one per dimension of operand %s", op,
                           ListStr(permutation), operand.rank(), operand.ToString());
  }
  RETURN_IF_ERROR(CheckDimensionList(op, "permutation", permutation, operand));
  std::vector<int64_t> dims;
  for (int64_t p : permutation) dims.push_back(operand.dimensions(p));
  return ShapeUtil::MakeShape(operand.element_type(), dims);
}

absl::StatusOr<Shape> ShapeInference::InferReverseShape(const Shape& operand, absl::Span<const int64_t> dimensions) {
  RETURN_IF_ERROR(ExpectArray("Reverse", "operand", operand));
  RETURN_IF_ERROR(CheckDimensionList("Reverse", "dimensions", dimensions, operand));
  return NoLayout(operand);
}

absl::StatusOr<Shape> ShapeInference::InferSliceShape(const Shape& operand, absl::Span<const int64_t> starts,
                                                      absl::Span<const int64_t> limits,
                                                      absl::Span<const int64_t> strides) {
  const char* op = "Slice";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  const size_t rank = operand.rank();
  if (starts.size() != rank || limits.size() != rank || strides.size() != rank) {
    return InvalidArgument(
        "%s: need one start, limit and stride per dimension of operand %s (rank %d), got %d starts, %d limits, "
        "%d strides",
        op, operand.ToString(), rank, starts.size(), limits.size(), strides.size());
  }
  std::vector<int64_t> dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t start = starts[i], limit = limits[i], stride = strides[i], size = operand.dimensions(i);
    if (start < 0 || limit > size || start > limit || stride <= 0) {
      return InvalidArgument(
          "%s: dimension %d: invalid slice [start %d : limit %d : stride %d] of size %d (need 0 <= start <= limit "
          "<= size and stride >= 1; operand %s)",
          op, i, start, limit, stride, size, operand.ToString());
    }
    dims[i] = limit == start ? 0 : 1 + (limit - start - 1) / stride;
  }
  return ShapeUtil::MakeShape(operand.element_type(), dims);
}

absl::StatusOr<Shape> ShapeInference::InferDynamicSliceShape(const Shape& operand,
                                                             absl::Span<const Shape> start_index_shapes,
                                                             absl::Span<const int64_t> slice_sizes) {
  const std::string op = "DynamicSlice";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  RETURN_IF_ERROR(CheckScalarIndices(op, operand, start_index_shapes));
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return InvalidArgument("%s: slice sizes %s must have one entry per dimension of operand %s", op,
                           ListStr(slice_sizes), operand.ToString());
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (slice_sizes[i] < 0 || slice_sizes[i] > operand.dimensions(i)) {
      return InvalidArgument("%s: slice size %d of dimension %d must be in [0, %d] (operand %s, slice sizes %s)", op,
                             slice_sizes[i], i, operand.dimensions(i), operand.ToString(), ListStr(slice_sizes));
    }
  }
  return ShapeUtil::MakeShape(operand.element_type(), slice_sizes);
}

absl::StatusOr<Shape> ShapeInference::InferDynamicUpdateSliceShape(const Shape& operand, const Shape& update,
                                                                   absl::Span<const Shape> start_index_shapes) {
  const std::string op = "DynamicUpdateSlice";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  RETURN_IF_ERROR(ExpectArray(op, "update", update));
  if (update.element_type() != operand.element_type()) {
    return InvalidArgument("%s: element types differ: operand %s, update %s", op, operand.ToString(),
                           update.ToString());
  }
  if (update.rank() != operand.rank()) {
    return InvalidArgument("%s: update %s must have the rank of operand %s", op, update.ToString(),
                           operand.ToString());
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (update.dimensions(i) > operand.dimensions(i)) {
      return InvalidArgument("%s: update dimension %d has size %d, larger than the operand's %d (operand %s, update %s)",
                             op, i, update.dimensions(i), operand.dimensions(i), operand.ToString(),
                             update.ToString());
    }
  }
  RETURN_IF_ERROR(CheckScalarIndices(op, operand, start_index_shapes));
  return NoLayout(operand);
}

absl::StatusOr<Shape> ShapeInference::InferConcatOpShape(absl::Span<const Shape* const> operands,
                                                         int64_t dimension) {
  const char* op = "Concatenate";
  RETURN_IF_ERROR(ExpectNonNull(op, operands));
  if (operands.empty()) return InvalidArgument("%s: needs at least one operand", op);
  const Shape& first = *operands[0];
  for (size_t i = 0; i < operands.size(); ++i) {
    RETURN_IF_ERROR(ExpectArray(op, absl::StrCat("operand ", i), *operands[i]));
  }
  if (first.rank() == 0) return InvalidArgument("%s: cannot concatenate scalars (operand 0 is %s)", op, first.ToString());
  if (dimension < 0 || dimension >= first.rank()) {
    return InvalidArgument("%s: dimension %d is out of range for operand 0 %s (rank %d)", op, dimension,
                           first.ToString(), first.rank());
  }
  std::vector<int64_t> dims = first.dimensions();
  for (size_t i = 1; i < operands.size(); ++i) {
    const Shape& s = *operands[i];
    if (s.element_type() != first.element_type()) {
      return InvalidArgument("%s: element types differ: operand 0 %s, operand %d %s", op, first.ToString(), i,
                             s.ToString());
    }
    if (s.rank() != first.rank()) {
      return InvalidArgument("%s: ranks differ: operand 0 %s, operand %d %s", op, first.ToString(), i, s.ToString());
    }
    for (int64_t d = 0; d < first.rank(); ++d) {
      if (d != dimension && s.dimensions(d) != first.dimensions(d)) {
        return InvalidArgument(
            "%s: operand %d %s differs from operand 0 %s in dimension %d, which is not the concatenated dimension %d",
            op, i, s.ToString(), first.ToString(), d, dimension);
      }
    }
    if (!CheckedAdd(dims[dimension], s.dimensions(dimension), &dims[dimension])) {
      return InvalidArgument("%s: concatenated dimension %d overflows", op, dimension);
    }
  }
  return Validated(op, ShapeUtil::MakeShape(first.element_type(), dims));
}

absl::StatusOr<Shape> ShapeInference::InferPadShape(const Shape& operand, const Shape& padding_value,
                                                    const PaddingConfig& padding_config) {
  const char* op = "Pad";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  if (!ShapeUtil::IsScalar(padding_value) || padding_value.element_type() != operand.element_type()) {
    return InvalidArgument("%s: padding value must be a scalar of the operand's element type: operand %s, padding value %s",
                           op, operand.ToString(), padding_value.ToString());
  }
  if (padding_config.dimensions_size() != operand.rank()) {
    return InvalidArgument("%s: padding config has %d dimensions but operand %s has rank %d", op,
                           padding_config.dimensions_size(), operand.ToString(), operand.rank());
  }
  std::vector<int64_t> dims(operand.rank());
  for (int i = 0; i < operand.rank(); ++i) {
    const auto& p = padding_config.dimensions(i);
    const int64_t size = operand.dimensions(i);
    if (p.interior_padding() < 0) {
      return InvalidArgument("%s: dimension %d has negative interior padding %d (operand %s)", op, i,
                             p.interior_padding(), operand.ToString());
    }
    int64_t interior = 0, total = 0;
    bool ok = CheckedMul(std::max<int64_t>(size - 1, 0), p.interior_padding(), &interior) &&
              CheckedAdd(size, interior, &total) && CheckedAdd(total, p.edge_padding_low(), &total) &&
              CheckedAdd(total, p.edge_padding_high(), &total);
    if (!ok) return InvalidArgument("%s: dimension %d: padded size overflows (operand %s)", op, i, operand.ToString());
    if (total < 0) {
      return InvalidArgument(
          "%s: dimension %d would have negative size %d (size %d, edge_padding_low %d, edge_padding_high %d, "
          "interior_padding %d; operand %s)",
          op, i, total, size, p.edge_padding_low(), p.edge_padding_high(), p.interior_padding(), operand.ToString());
    }
    dims[i] = total;
  }
  return Validated(op, ShapeUtil::MakeShape(operand.element_type(), dims));
}

absl::StatusOr<Shape> ShapeInference::InferTupleShape(absl::Span<const Shape* const> elements) {
  RETURN_IF_ERROR(ExpectNonNull("Tuple", elements));
  std::vector<Shape> shapes;
  for (const Shape* s : elements) shapes.push_back(NoLayout(*s));
  Shape tuple = ShapeUtil::MakeTupleShape(std::move(shapes));
  int nesting = 0;
  for (const Shape* s : elements) nesting = std::max(nesting, ShapeUtil::TupleNesting(*s) + 1);
  if (nesting > ShapeUtil::kMaxTupleNesting) {
    return InvalidArgument("Tuple: the result would nest %d levels deep; the limit is %d", nesting,
                           ShapeUtil::kMaxTupleNesting);
  }
  return tuple;
}

absl::StatusOr<Shape> ShapeInference::InferGetTupleElementShape(const Shape& tuple, int64_t index) {
  const char* op = "GetTupleElement";
  if (!tuple.IsTuple()) return InvalidArgument("%s: operand must be a tuple, got %s", op, tuple.ToString());
  if (index < 0 || index >= tuple.tuple_shapes_size()) {
    return InvalidArgument("%s: tuple index %d is out of range for %s (%d elements)", op, index, tuple.ToString(),
                           tuple.tuple_shapes_size());
  }
  return NoLayout(tuple.tuple_shapes(index));
}

absl::StatusOr<Shape> ShapeInference::InferIotaShape(const Shape& shape, int64_t iota_dimension) {
  const char* op = "Iota";
  RETURN_IF_ERROR(ExpectArray(op, "shape", shape));
  if (shape.element_type() == PRED) return InvalidArgument("%s: element type must be numeric, got %s", op, shape.ToString());
  if (shape.rank() == 0) return InvalidArgument("%s: shape must have rank >= 1, got %s", op, shape.ToString());
  if (iota_dimension < 0 || iota_dimension >= shape.rank()) {
    return InvalidArgument("%s: iota dimension %d is out of range for %s (rank %d)", op, iota_dimension,
                           shape.ToString(), shape.rank());
  }
  return Validated(op, shape);
}

absl::StatusOr<Shape> ShapeInference::InferReducePrecisionShape(const Shape& operand, int64_t exponent_bits,
                                                                int64_t mantissa_bits) {
  const char* op = "ReducePrecision";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  if (!IsFloatingPointType(operand.element_type())) {
    return InvalidArgument("%s: operand must have a floating-point element type, got %s", op, operand.ToString());
  }
  // One exponent bit at least: without it zero and infinity are the same
  // pattern (operation semantics).
  if (exponent_bits < 1) return InvalidArgument("%s: exponent_bits must be at least 1, got %d", op, exponent_bits);
  if (mantissa_bits < 0) return InvalidArgument("%s: mantissa_bits must be non-negative, got %d", op, mantissa_bits);
  return NoLayout(operand);
}

absl::StatusOr<Shape> ShapeInference::InferRngBitGeneratorShape(const Shape& state, RandomAlgorithm algorithm,
                                                                const Shape& output) {
  const char* op = "RngBitGenerator";
  RETURN_IF_ERROR(ExpectArray(op, "initial state", state));
  if (state.element_type() != U64 || state.rank() != 1) {
    return InvalidArgument("%s: the initial state must be a u64 vector, got %s", op, state.ToString());
  }
  RETURN_IF_ERROR(ExpectArray(op, "output", output));
  const PrimitiveType type = output.element_type();
  if (type == PRED || primitive_util::IsComplexType(type)) {
    return InvalidArgument("%s: the output must have an integer or floating-point element type, got %s", op,
                           output.ToString());
  }
  absl::Status s = CheckRandomBitsArguments(algorithm, state.dimensions(0), primitive_util::BitWidth(type));
  if (!s.ok()) return InvalidArgument("%s: %s (state %s, output %s)", op, s.message(), state.ToString(), output.ToString());
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(output));
  return ShapeUtil::MakeTupleShape({NoLayout(state), NoLayout(output)});
}

absl::StatusOr<Shape> ShapeInference::InferDotOpShape(const Shape& lhs, const Shape& rhs,
                                                      const DotDimensionNumbers& dnums) {
  const char* op = "Dot";
  RETURN_IF_ERROR(ExpectArray(op, "lhs", lhs));
  RETURN_IF_ERROR(ExpectArray(op, "rhs", rhs));
  const std::string both = absl::StrCat("lhs ", lhs.ToString(), ", rhs ", rhs.ToString());
  if (lhs.element_type() != rhs.element_type()) {
    return InvalidArgument("%s: element types differ: %s", op, both);
  }
  const auto& lc = dnums.lhs_contracting_dimensions();
  const auto& rc = dnums.rhs_contracting_dimensions();
  const auto& lb = dnums.lhs_batch_dimensions();
  const auto& rb = dnums.rhs_batch_dimensions();
  if (lc.size() != rc.size()) {
    return InvalidArgument("%s: lhs has %d contracting dimensions but rhs has %d (%s)", op, lc.size(), rc.size(),
                           both);
  }
  if (lb.size() != rb.size()) {
    return InvalidArgument("%s: lhs has %d batch dimensions but rhs has %d (%s)", op, lb.size(), rb.size(), both);
  }
  // Batch and contracting dimensions of one side: in range, each used once.
  auto check_side = [&](absl::string_view side, const Shape& s, const auto& batch,
                        const auto& contracting) -> absl::Status {
    std::vector<bool> used(s.rank(), false);
    for (const auto* list : {&batch, &contracting}) {
      const char* kind = list == &batch ? "batch" : "contracting";
      for (int64_t d : *list) {
        if (d < 0 || d >= s.rank()) {
          return InvalidArgument("%s: %s %s dimension %d is out of range for %s (rank %d)", op, side, kind, d,
                                 s.ToString(), s.rank());
        }
        if (used[d]) {
          return InvalidArgument("%s: %s dimension %d is used more than once as a batch or contracting dimension (%s)",
                                 op, side, d, both);
        }
        used[d] = true;
      }
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(check_side("lhs", lhs, lb, lc));
  RETURN_IF_ERROR(check_side("rhs", rhs, rb, rc));
  for (int i = 0; i < lc.size(); ++i) {
    if (lhs.dimensions(lc[i]) != rhs.dimensions(rc[i])) {
      return InvalidArgument("%s: lhs contracting dimension %d has size %d but rhs contracting dimension %d has size %d (%s)",
                             op, lc[i], lhs.dimensions(lc[i]), rc[i], rhs.dimensions(rc[i]), both);
    }
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < lb.size(); ++i) {
    if (lhs.dimensions(lb[i]) != rhs.dimensions(rb[i])) {
      return InvalidArgument("%s: lhs batch dimension %d has size %d but rhs batch dimension %d has size %d (%s)", op,
                             lb[i], lhs.dimensions(lb[i]), rb[i], rhs.dimensions(rb[i]), both);
    }
    dims.push_back(lhs.dimensions(lb[i]));
  }
  auto append_free = [&](const Shape& s, const auto& batch, const auto& contracting) {
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
        dims.push_back(s.dimensions(d));
      }
    }
  };
  append_free(lhs, lb, lc);
  append_free(rhs, rb, rc);
  return Validated(op, ShapeUtil::MakeShape(lhs.element_type(), dims));
}

// --- Gather and convolution -------------------------------------------------------

namespace {

// The number of window positions along one dimension of size `in`: the base
// dilated and padded (negative padding crops), the window dilated, then
// stepped by the stride. Every size is bounded so nothing overflows.
absl::StatusOr<int64_t> WindowedSize(const char* op, const char* what, int64_t i, int64_t in,
                                     const WindowDimension& w) {
  if (w.stride() < 1 || w.base_dilation() < 1 || w.window_dilation() < 1) {
    return InvalidArgument("%s: window dimension %d needs stride and dilations of at least 1 (stride %d, "
                           "lhs_dilate %d, rhs_dilate %d)",
                           op, i, w.stride(), w.base_dilation(), w.window_dilation());
  }
  if (w.size() < 0) return InvalidArgument("%s: window dimension %d has negative size %d", op, i, w.size());
  // Each size must be representable: a wrapped product would pass for a
  // small one.
  int64_t dilated_base = 0, dilated_window = 0, padded = 0;
  const bool ok = (in == 0 || (CheckedMul(in - 1, w.base_dilation(), &dilated_base) &&
                               CheckedAdd(dilated_base, 1, &dilated_base))) &&
                  (w.size() == 0 || (CheckedMul(w.size() - 1, w.window_dilation(), &dilated_window) &&
                                     CheckedAdd(dilated_window, 1, &dilated_window))) &&
                  CheckedAdd(dilated_base, w.padding_low(), &padded) && CheckedAdd(padded, w.padding_high(), &padded);
  if (!ok) return InvalidArgument("%s: window dimension %d has sizes that overflow", op, i);
  if (padded < 0) return InvalidArgument("%s: %s %d has negative size %d after padding", op, what, i, padded);
  return padded < dilated_window ? 0 : (padded - dilated_window) / w.stride() + 1;
}

// `dims` is strictly increasing (the document requires sorted dimension lists
// for gather's offset_dims, collapsed_slice_dims and operand_batching_dims).
absl::Status CheckSorted(absl::string_view op, absl::string_view what, absl::Span<const int64_t> dims) {
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] <= dims[i - 1]) return InvalidArgument("%s: %s %s must be sorted and unique", op, what, ListStr(dims));
  }
  return absl::OkStatus();
}

// `dims` names dimensions of `shape`, strictly increasing.
absl::Status CheckSortedDimensions(absl::string_view op, absl::string_view what, absl::Span<const int64_t> dims,
                                   const Shape& shape) {
  RETURN_IF_ERROR(CheckSorted(op, what, dims));
  return CheckDimensionList(op, what, dims, shape);
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferGatherShape(const Shape& operand, const Shape& start_indices,
                                                       const GatherDimensionNumbers& dnums,
                                                       absl::Span<const int64_t> slice_sizes) {
  const char* op = "Gather";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  RETURN_IF_ERROR(ExpectArray(op, "start_indices", start_indices));
  if (!IsIntegralType(start_indices.element_type())) {
    return InvalidArgument("%s: start_indices must have an integral element type, got %s", op,
                           start_indices.ToString());
  }
  const int64_t rank = operand.rank();
  const int64_t index_vector_dim = dnums.index_vector_dim();
  if (index_vector_dim < 0 || index_vector_dim > start_indices.rank()) {
    return InvalidArgument("%s: index_vector_dim %d is out of range for start_indices %s (0..%d)", op,
                           index_vector_dim, start_indices.ToString(), start_indices.rank());
  }
  // index_vector_dim == rank(start_indices) means a trailing implicit 1.
  const int64_t index_vector_size =
      index_vector_dim == start_indices.rank() ? 1 : start_indices.dimensions(index_vector_dim);
  const auto& map = dnums.start_index_map();
  if (map.size() != index_vector_size) {
    return InvalidArgument("%s: start_index_map %s has %d entries but the index vector (dimension %d of %s) has %d",
                           op, ListStr(map), map.size(), index_vector_dim, start_indices.ToString(),
                           index_vector_size);
  }
  RETURN_IF_ERROR(CheckDimensionList(op, "start_index_map", map, operand));
  if (static_cast<int64_t>(slice_sizes.size()) != rank) {
    return InvalidArgument("%s: slice_sizes %s must have one entry per operand dimension (operand %s)", op,
                           ListStr(slice_sizes), operand.ToString());
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > operand.dimensions(d)) {
      return InvalidArgument("%s: slice size %d of dimension %d is out of range for operand %s", op, slice_sizes[d],
                             d, operand.ToString());
    }
  }
  const auto& collapsed = dnums.collapsed_slice_dims();
  const auto& operand_batching = dnums.operand_batching_dims();
  const auto& indices_batching = dnums.start_indices_batching_dims();
  RETURN_IF_ERROR(CheckSortedDimensions(op, "collapsed_slice_dims", collapsed, operand));
  RETURN_IF_ERROR(CheckSortedDimensions(op, "operand_batching_dims", operand_batching, operand));
  // The specification allows 0 as well, but a result element would then
  // read from an empty slice: there is no value to give it.
  for (const auto* list : {&collapsed, &operand_batching}) {
    for (int64_t d : *list) {
      if (slice_sizes[d] != 1) {
        return InvalidArgument("%s: dimension %d is collapsed or batching, so its slice size must be 1, got %d", op,
                               d, slice_sizes[d]);
      }
    }
  }
  for (int64_t d : collapsed) {
    if (std::find(operand_batching.begin(), operand_batching.end(), d) != operand_batching.end()) {
      return InvalidArgument("%s: dimension %d is both a collapsed and a batching dimension", op, d);
    }
  }
  for (int64_t d : map) {
    if (std::find(operand_batching.begin(), operand_batching.end(), d) != operand_batching.end()) {
      return InvalidArgument("%s: dimension %d is both in start_index_map and a batching dimension", op, d);
    }
  }
  if (indices_batching.size() != operand_batching.size()) {
    return InvalidArgument("%s: %d operand batching dimensions but %d start_indices batching dimensions", op,
                           operand_batching.size(), indices_batching.size());
  }
  RETURN_IF_ERROR(CheckDimensionList(op, "start_indices_batching_dims", indices_batching, start_indices));
  for (int i = 0; i < indices_batching.size(); ++i) {
    if (indices_batching[i] == index_vector_dim) {
      return InvalidArgument("%s: start_indices batching dimension %d is the index_vector_dim", op,
                             indices_batching[i]);
    }
    if (start_indices.dimensions(indices_batching[i]) != operand.dimensions(operand_batching[i])) {
      return InvalidArgument("%s: start_indices batching dimension %d has size %d but operand batching dimension %d "
                             "has size %d",
                             op, indices_batching[i], start_indices.dimensions(indices_batching[i]),
                             operand_batching[i], operand.dimensions(operand_batching[i]));
    }
  }
  // Result: the batch dimensions of start_indices (all but index_vector_dim)
  // interleaved with the offset dimensions (operand dimensions neither
  // collapsed nor batching, in order) at the positions offset_dims names.
  const auto& offset_dims = dnums.offset_dims();
  std::vector<int64_t> offset_sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(collapsed.begin(), collapsed.end(), d) == collapsed.end() &&
        std::find(operand_batching.begin(), operand_batching.end(), d) == operand_batching.end()) {
      offset_sizes.push_back(slice_sizes[d]);
    }
  }
  if (offset_dims.size() != static_cast<int64_t>(offset_sizes.size())) {
    return InvalidArgument("%s: offset_dims %s must have %d entries (operand rank %d minus %d collapsed and %d "
                           "batching dimensions)",
                           op, ListStr(offset_dims), offset_sizes.size(), rank, collapsed.size(),
                           operand_batching.size());
  }
  std::vector<int64_t> batch_sizes;
  for (int64_t d = 0; d < start_indices.rank(); ++d) {
    if (d != index_vector_dim) batch_sizes.push_back(start_indices.dimensions(d));
  }
  const int64_t result_rank = static_cast<int64_t>(batch_sizes.size() + offset_sizes.size());
  RETURN_IF_ERROR(CheckSorted(op, "offset_dims", offset_dims));
  for (int64_t d : offset_dims) {
    if (d < 0 || d >= result_rank) {
      return InvalidArgument("%s: offset dimension %d is out of range for the result's rank %d", op, d, result_rank);
    }
  }
  std::vector<int64_t> dims(result_rank);
  size_t next_offset = 0, next_batch = 0;
  for (int64_t d = 0; d < result_rank; ++d) {
    const bool is_offset = next_offset < static_cast<size_t>(offset_dims.size()) && offset_dims[next_offset] == d;
    dims[d] = is_offset ? offset_sizes[next_offset++] : batch_sizes[next_batch++];
  }
  return Validated(op, ShapeUtil::MakeShape(operand.element_type(), dims));
}

PrimitiveType ShapeInference::AccumulatingResultType(PrimitiveType operand_type, const Shape& declared_shape) {
  const PrimitiveType result_type = declared_shape.IsArray() ? declared_shape.element_type() : operand_type;
  const bool same_kind =
      (primitive_util::IsFloatingPointType(operand_type) && primitive_util::IsFloatingPointType(result_type)) ||
      (primitive_util::IsIntegralType(operand_type) && primitive_util::IsIntegralType(result_type));
  return same_kind ? result_type : operand_type;
}

absl::StatusOr<Shape> ShapeInference::InferConvolveShape(const Shape& lhs, const Shape& rhs, const Window& window,
                                                         const ConvolutionDimensionNumbers& dnums,
                                                         int64_t feature_group_count, int64_t batch_group_count) {
  const char* op = "Convolution";
  RETURN_IF_ERROR(ExpectArray(op, "lhs", lhs));
  RETURN_IF_ERROR(ExpectArray(op, "rhs", rhs));
  const std::string both = absl::StrCat("lhs ", lhs.ToString(), ", rhs ", rhs.ToString());
  if (lhs.element_type() != rhs.element_type()) return InvalidArgument("%s: element types differ: %s", op, both);
  if (lhs.element_type() == PRED) return InvalidArgument("%s: operands must be numbers, got pred (%s)", op, both);
  const int64_t spatial = dnums.input_spatial_dimensions_size();
  if (dnums.kernel_spatial_dimensions_size() != spatial || dnums.output_spatial_dimensions_size() != spatial) {
    return InvalidArgument("%s: input, kernel and output must have as many spatial dimensions (%d, %d, %d)", op,
                           spatial, dnums.kernel_spatial_dimensions_size(), dnums.output_spatial_dimensions_size());
  }
  if (lhs.rank() != spatial + 2 || rhs.rank() != spatial + 2) {
    return InvalidArgument("%s: lhs and rhs must have rank %d (%d spatial dimensions + 2) (%s)", op, spatial + 2,
                           spatial, both);
  }
  if (window.dimensions_size() != spatial) {
    return InvalidArgument("%s: the window has %d dimensions but there are %d spatial dimensions", op,
                           window.dimensions_size(), spatial);
  }
  // Each side's dimension numbers name every dimension once.
  auto check_labels = [&](absl::string_view what, std::vector<int64_t> dims) -> absl::Status {
    const Shape rank_shape = ShapeUtil::MakeShape(F32, std::vector<int64_t>(spatial + 2, 1));
    return CheckDimensionList(op, what, dims, rank_shape);
  };
  std::vector<int64_t> in_dims = {dnums.input_batch_dimension(), dnums.input_feature_dimension()};
  std::vector<int64_t> k_dims = {dnums.kernel_output_feature_dimension(), dnums.kernel_input_feature_dimension()};
  std::vector<int64_t> out_dims = {dnums.output_batch_dimension(), dnums.output_feature_dimension()};
  for (int64_t i = 0; i < spatial; ++i) {
    in_dims.push_back(dnums.input_spatial_dimensions(i));
    k_dims.push_back(dnums.kernel_spatial_dimensions(i));
    out_dims.push_back(dnums.output_spatial_dimensions(i));
  }
  RETURN_IF_ERROR(check_labels("input dimension numbers", in_dims));
  RETURN_IF_ERROR(check_labels("kernel dimension numbers", k_dims));
  RETURN_IF_ERROR(check_labels("output dimension numbers", out_dims));
  if (feature_group_count < 1 || batch_group_count < 1) {
    return InvalidArgument("%s: feature_group_count %d and batch_group_count %d must be at least 1", op,
                           feature_group_count, batch_group_count);
  }
  if (feature_group_count > 1 && batch_group_count > 1) {
    return InvalidArgument("%s: feature_group_count %d and batch_group_count %d cannot both exceed 1", op,
                           feature_group_count, batch_group_count);
  }
  const int64_t batch = lhs.dimensions(dnums.input_batch_dimension());
  const int64_t in_features = lhs.dimensions(dnums.input_feature_dimension());
  const int64_t kernel_in = rhs.dimensions(dnums.kernel_input_feature_dimension());
  const int64_t kernel_out = rhs.dimensions(dnums.kernel_output_feature_dimension());
  if (in_features % feature_group_count != 0 || in_features / feature_group_count != kernel_in) {
    return InvalidArgument("%s: input features %d divided by feature_group_count %d must equal the kernel's input "
                           "features %d (%s)",
                           op, in_features, feature_group_count, kernel_in, both);
  }
  if (kernel_out % feature_group_count != 0) {
    return InvalidArgument("%s: kernel output features %d must be a multiple of feature_group_count %d (%s)", op,
                           kernel_out, feature_group_count, both);
  }
  if (batch % batch_group_count != 0 || kernel_out % batch_group_count != 0) {
    return InvalidArgument("%s: input batch %d and kernel output features %d must be multiples of batch_group_count "
                           "%d (%s)",
                           op, batch, kernel_out, batch_group_count, both);
  }
  std::vector<int64_t> dims(spatial + 2);
  dims[dnums.output_batch_dimension()] = batch / batch_group_count;
  dims[dnums.output_feature_dimension()] = kernel_out;
  for (int64_t i = 0; i < spatial; ++i) {
    const WindowDimension& w = window.dimensions(i);
    const int64_t k = rhs.dimensions(dnums.kernel_spatial_dimensions(i));
    if (w.size() != k) {
      return InvalidArgument("%s: window size %d of spatial dimension %d does not match the kernel's size %d (%s)", op,
                             w.size(), i, k, both);
    }
    ASSIGN_OR_RETURN(dims[dnums.output_spatial_dimensions(i)],
                     WindowedSize(op, "spatial dimension", i, lhs.dimensions(dnums.input_spatial_dimensions(i)), w));
  }
  return Validated(op, ShapeUtil::MakeShape(lhs.element_type(), dims));
}

// --- Ops with called computations -------------------------------------------------

namespace {

// Reduce's and ReduceWindow's arguments: N arrays of one set of dimensions,
// then N scalar init values of their types; a reducer taking (T0..TN-1,
// T0..TN-1) and returning T0 or (T0..TN-1). Returns N.
absl::StatusOr<size_t> CheckReduction(const char* op, absl::Span<const Shape* const> arg_shapes,
                                      const ProgramShape& to_apply, const char* reducer = "reducer") {
  RETURN_IF_ERROR(ExpectNonNull(op, arg_shapes));
  if (arg_shapes.empty() || arg_shapes.size() % 2 != 0) {
    return InvalidArgument("%s: expects N operands followed by N init values (N >= 1), got %d arguments", op,
                           arg_shapes.size());
  }
  const size_t n = arg_shapes.size() / 2;
  const Shape& first = *arg_shapes[0];
  for (size_t i = 0; i < n; ++i) {
    const Shape& operand = *arg_shapes[i];
    const Shape& init = *arg_shapes[n + i];
    RETURN_IF_ERROR(ExpectArray(op, absl::StrCat("operand ", i), operand));
    if (!ShapeUtil::SameDimensions(operand, first)) {
      return InvalidArgument("%s: all operands must have the same dimensions: operand 0 %s, operand %d %s", op,
                             first.ToString(), i, operand.ToString());
    }
    if (!ShapeUtil::IsScalar(init) || init.element_type() != operand.element_type()) {
      return InvalidArgument("%s: init value %d must be a scalar of operand %d's element type: operand %s, init %s",
                             op, i, i, operand.ToString(), init.ToString());
    }
  }
  // Reducer: (T0..TN-1, T0..TN-1) -> T0 or (T0..TN-1), all scalars.
  if (to_apply.parameters().size() != 2 * n) {
    return InvalidArgument("%s: %s must take %d parameters (2 per operand) but takes %d: %s", op, reducer, 2 * n,
                           to_apply.parameters().size(), ParamListStr(to_apply));
  }
  std::vector<Shape> scalars;
  for (size_t i = 0; i < n; ++i) scalars.push_back(ShapeUtil::MakeScalarShape(arg_shapes[i]->element_type()));
  for (size_t p = 0; p < 2 * n; ++p) {
    if (!to_apply.parameters()[p].Compatible(scalars[p % n])) {
      return InvalidArgument("%s: %s parameter %d has shape %s but must be %s (%s %s)", op, reducer, p,
                             to_apply.parameters()[p].ToString(), scalars[p % n].ToString(), reducer,
                             ParamListStr(to_apply));
    }
  }
  const Shape expected_result = n == 1 ? scalars[0] : ShapeUtil::MakeTupleShape(scalars);
  if (!to_apply.result().Compatible(expected_result)) {
    return InvalidArgument("%s: %s must return %s but returns %s (%s %s)", op, reducer, expected_result.ToString(),
                           to_apply.result().ToString(), reducer, ParamListStr(to_apply));
  }
  return n;
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferReduceShape(absl::Span<const Shape* const> arg_shapes,
                                                       absl::Span<const int64_t> dimensions,
                                                       const ProgramShape& to_apply) {
  const char* op = "Reduce";
  ASSIGN_OR_RETURN(const size_t n, CheckReduction(op, arg_shapes, to_apply));
  const Shape& first = *arg_shapes[0];
  RETURN_IF_ERROR(CheckDimensionList(op, "dimensions", dimensions, first));
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < first.rank(); ++d) {
    if (std::find(dimensions.begin(), dimensions.end(), d) == dimensions.end()) kept.push_back(first.dimensions(d));
  }
  std::vector<Shape> results;
  for (size_t i = 0; i < n; ++i) results.push_back(ShapeUtil::MakeShape(arg_shapes[i]->element_type(), kept));
  return n == 1 ? results[0] : ShapeUtil::MakeTupleShape(std::move(results));
}

absl::StatusOr<Shape> ShapeInference::InferReduceWindowShape(absl::Span<const Shape* const> arg_shapes,
                                                             const Window& window, const ProgramShape& to_apply) {
  const char* op = "ReduceWindow";
  ASSIGN_OR_RETURN(const size_t n, CheckReduction(op, arg_shapes, to_apply));
  const Shape& first = *arg_shapes[0];
  if (window.dimensions_size() != first.rank()) {
    return InvalidArgument("%s: the window has %d dimensions but the operands have rank %d (%s)", op,
                           window.dimensions_size(), first.rank(), first.ToString());
  }
  std::vector<int64_t> dims(first.rank());
  // Every result element folds every window position: a window of more
  // positions than any array could hold is a mistake, not a workload.
  constexpr int64_t kMaxWindowPositions = int64_t{1} << 32;
  int64_t positions = 1;
  for (int64_t d = 0; d < first.rank(); ++d) {
    const WindowDimension& w = window.dimensions(d);
    if (w.size() < 1) return InvalidArgument("%s: window dimension %d has size %d (at least 1)", op, d, w.size());
    if (!CheckedMul(positions, w.size(), &positions) || positions > kMaxWindowPositions) {
      return InvalidArgument("%s: the window has more than %d positions", op, kMaxWindowPositions);
    }
    if (w.window_reversal()) return InvalidArgument("%s: window dimension %d cannot be reversed", op, d);
    ASSIGN_OR_RETURN(dims[d], WindowedSize(op, "dimension", d, first.dimensions(d), w));
  }
  std::vector<Shape> results;
  for (size_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(Shape result, Validated(op, ShapeUtil::MakeShape(arg_shapes[i]->element_type(), dims)));
    results.push_back(std::move(result));
  }
  if (n == 1) return results[0];
  return ShapeUtil::MakeTupleShape(std::move(results));
}

ShapeInference::ScatterUpdateDimensions ShapeInference::MapScatterUpdateDimensions(
    const ScatterDimensionNumbers& dnums, int64_t update_rank) {
  ScatterUpdateDimensions map;
  map.operand_dim.assign(update_rank, -1);
  map.index_dim.assign(update_rank, -1);
  int64_t next_operand = 0, next_index = 0;
  for (int64_t d = 0; d < update_rank; ++d) {
    if (absl::c_linear_search(dnums.update_window_dims(), d)) {
      while (absl::c_linear_search(dnums.inserted_window_dims(), next_operand) ||
             absl::c_linear_search(dnums.input_batching_dims(), next_operand)) {
        ++next_operand;
      }
      map.operand_dim[d] = next_operand++;
    } else {
      if (next_index == dnums.index_vector_dim()) ++next_index;
      map.index_dim[d] = next_index++;
    }
  }
  return map;
}

absl::StatusOr<Shape> ShapeInference::InferScatterShape(absl::Span<const Shape* const> arg_shapes,
                                                        const ScatterDimensionNumbers& dnums,
                                                        const ProgramShape& to_apply) {
  const char* op = "Scatter";
  RETURN_IF_ERROR(ExpectNonNull(op, arg_shapes));
  if (arg_shapes.size() < 3 || arg_shapes.size() % 2 != 1) {
    return InvalidArgument("%s: expects N operands, the scatter indices and N updates (N >= 1), got %d arguments", op,
                           arg_shapes.size());
  }
  const size_t n = arg_shapes.size() / 2;
  const Shape& operand = *arg_shapes[0];
  const Shape& indices = *arg_shapes[n];
  const Shape& updates = *arg_shapes[n + 1];
  // The combiner: (T0..TN-1 current, T0..TN-1 update) as a reducer is.
  std::vector<Shape> scalars;
  std::vector<const Shape*> reduction;
  for (size_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(ExpectArray(op, absl::StrCat("operand ", i), *arg_shapes[i]));
    scalars.push_back(ShapeUtil::MakeScalarShape(arg_shapes[i]->element_type()));
  }
  for (size_t i = 0; i < n; ++i) reduction.push_back(arg_shapes[i]);
  for (size_t i = 0; i < n; ++i) reduction.push_back(&scalars[i]);
  RETURN_IF_ERROR(CheckReduction(op, reduction, to_apply, "update computation").status());
  for (size_t i = 0; i < n; ++i) {
    const Shape& u = *arg_shapes[n + 1 + i];
    RETURN_IF_ERROR(ExpectArray(op, absl::StrCat("updates ", i), u));
    if (!ShapeUtil::SameDimensions(u, updates) || u.element_type() != arg_shapes[i]->element_type()) {
      return InvalidArgument("%s: updates %d %s must have updates 0's dimensions and operand %d's type (%s)", op, i,
                             u.ToString(), i, arg_shapes[i]->ToString());
    }
  }
  RETURN_IF_ERROR(ExpectArray(op, "scatter_indices", indices));
  if (!IsIntegralType(indices.element_type())) {
    return InvalidArgument("%s: scatter_indices must have an integral element type, got %s", op, indices.ToString());
  }
  const int64_t ivd = dnums.index_vector_dim();
  if (ivd < 0 || ivd > indices.rank()) {
    return InvalidArgument("%s: index_vector_dim %d is out of range for scatter_indices %s (0..%d)", op, ivd,
                           indices.ToString(), indices.rank());
  }
  const int64_t vector_size = ivd == indices.rank() ? 1 : indices.dimensions(ivd);
  const auto& window_dims = dnums.update_window_dims();
  const auto& inserted = dnums.inserted_window_dims();
  const auto& batching = dnums.input_batching_dims();
  const auto& index_batching = dnums.scatter_indices_batching_dims();
  const auto& to_operand = dnums.scatter_dims_to_operand_dims();
  RETURN_IF_ERROR(CheckSortedDimensions(op, "update_window_dims", window_dims, updates));
  RETURN_IF_ERROR(CheckSortedDimensions(op, "inserted_window_dims", inserted, operand));
  RETURN_IF_ERROR(CheckSortedDimensions(op, "input_batching_dims", batching, operand));
  RETURN_IF_ERROR(CheckDimensionList(op, "scatter_indices_batching_dims", index_batching, indices));
  for (int64_t d : inserted) {
    if (absl::c_linear_search(batching, d)) {
      return InvalidArgument("%s: dimension %d is both inserted and a batching dimension", op, d);
    }
  }
  if (to_operand.size() != vector_size) {
    return InvalidArgument("%s: scatter_dims_to_operand_dims %s has %d entries but the index vector has %d", op,
                           ListStr(to_operand), to_operand.size(), vector_size);
  }
  RETURN_IF_ERROR(CheckDimensionList(op, "scatter_dims_to_operand_dims", to_operand, operand));
  for (int64_t d : to_operand) {
    if (absl::c_linear_search(batching, d)) {
      return InvalidArgument("%s: dimension %d is both scattered to and a batching dimension", op, d);
    }
  }
  if (index_batching.size() != batching.size()) {
    return InvalidArgument("%s: %d input batching dimensions but %d scatter_indices batching dimensions", op,
                           batching.size(), index_batching.size());
  }
  for (int i = 0; i < index_batching.size(); ++i) {
    if (index_batching[i] == ivd) {
      return InvalidArgument("%s: scatter_indices batching dimension %d is the index_vector_dim", op, ivd);
    }
    if (indices.dimensions(index_batching[i]) != operand.dimensions(batching[i])) {
      return InvalidArgument("%s: scatter_indices batching dimension %d has size %d but input batching dimension %d "
                             "has size %d",
                             op, index_batching[i], indices.dimensions(index_batching[i]), batching[i],
                             operand.dimensions(batching[i]));
    }
  }
  if (operand.rank() != window_dims.size() + inserted.size() + batching.size()) {
    return InvalidArgument("%s: operand rank %d must equal the update window dimensions (%d) plus the inserted (%d) "
                           "and batching (%d) ones",
                           op, operand.rank(), window_dims.size(), inserted.size(), batching.size());
  }
  const int64_t scatter_rank = indices.rank() - (ivd < indices.rank() ? 1 : 0);
  if (updates.rank() != window_dims.size() + scatter_rank) {
    return InvalidArgument("%s: updates %s must have rank %d (%d window dimensions and %d scatter dimensions)", op,
                           updates.ToString(), window_dims.size() + scatter_rank, window_dims.size(), scatter_rank);
  }
  // Window dimensions fit the operand's dimensions that are neither
  // inserted nor batching; scatter dimensions match scatter_indices'.
  std::vector<int64_t> window_operand_dims, scatter_sizes;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (!absl::c_linear_search(inserted, d) && !absl::c_linear_search(batching, d)) window_operand_dims.push_back(d);
  }
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d != ivd) scatter_sizes.push_back(indices.dimensions(d));
  }
  size_t next_window = 0, next_scatter = 0;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    if (absl::c_linear_search(window_dims, d)) {
      const int64_t od = window_operand_dims[next_window++];
      if (updates.dimensions(d) > operand.dimensions(od)) {
        return InvalidArgument("%s: update window dimension %d has size %d, larger than operand dimension %d (%d)",
                               op, d, updates.dimensions(d), od, operand.dimensions(od));
      }
    } else if (updates.dimensions(d) != scatter_sizes[next_scatter++]) {
      return InvalidArgument("%s: update scatter dimension %d has size %d but scatter_indices has %d there", op, d,
                             updates.dimensions(d), scatter_sizes[next_scatter - 1]);
    }
  }
  if (n == 1) return NoLayout(operand);
  std::vector<Shape> results;
  for (size_t i = 0; i < n; ++i) results.push_back(NoLayout(*arg_shapes[i]));
  return ShapeUtil::MakeTupleShape(std::move(results));
}

absl::StatusOr<Shape> ShapeInference::InferSelectAndScatterShape(const Shape& operand, const ProgramShape& select,
                                                                 const Window& window, const Shape& source,
                                                                 const Shape& init_value,
                                                                 const ProgramShape& scatter) {
  const char* op = "SelectAndScatter";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  RETURN_IF_ERROR(ExpectArray(op, "source", source));
  const Shape scalar = ShapeUtil::MakeScalarShape(operand.element_type());
  if (!init_value.Compatible(scalar)) {
    return InvalidArgument("%s: init value must be a %s scalar, got %s", op, TypeName(operand.element_type()),
                           init_value.ToString());
  }
  if (select.parameters().size() != 2 || !select.parameters()[0].Compatible(scalar) ||
      !select.parameters()[1].Compatible(scalar) || !select.result().Compatible(ShapeUtil::MakeScalarShape(PRED))) {
    return InvalidArgument("%s: select must take two %s scalars and return a pred scalar: %s", op,
                           TypeName(operand.element_type()), ParamListStr(select));
  }
  if (scatter.parameters().size() != 2 || !scatter.parameters()[0].Compatible(scalar) ||
      !scatter.parameters()[1].Compatible(scalar) || !scatter.result().Compatible(scalar)) {
    return InvalidArgument("%s: scatter must take two %s scalars and return one: %s", op,
                           TypeName(operand.element_type()), ParamListStr(scatter));
  }
  if (window.dimensions_size() != operand.rank()) {
    return InvalidArgument("%s: the window has %d dimensions but the operand has rank %d", op,
                           window.dimensions_size(), operand.rank());
  }
  std::vector<int64_t> windows(operand.rank());
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const WindowDimension& w = window.dimensions(d);
    if (w.size() < 1) return InvalidArgument("%s: window dimension %d has size %d (at least 1)", op, d, w.size());
    if (w.base_dilation() > 1 || w.window_dilation() > 1 || w.window_reversal()) {
      return InvalidArgument("%s: window dimension %d cannot be dilated or reversed", op, d);
    }
    ASSIGN_OR_RETURN(windows[d], WindowedSize(op, "dimension", d, operand.dimensions(d), w));
  }
  const Shape expected_source = ShapeUtil::MakeShape(operand.element_type(), windows);
  if (!source.Compatible(expected_source)) {
    return InvalidArgument("%s: source %s must have one %s element per window: %s", op, source.ToString(),
                           TypeName(operand.element_type()), expected_source.ToString());
  }
  return NoLayout(operand);
}

absl::StatusOr<Shape> ShapeInference::InferSortShape(absl::Span<const Shape* const> operands, int64_t dimension,
                                                     const ProgramShape& comparator) {
  const char* op = "Sort";
  RETURN_IF_ERROR(ExpectArraysOfOneShape(op, operands));
  const Shape& first = *operands[0];
  if (dimension < 0 || dimension >= first.rank()) {
    return InvalidArgument("%s: dimension %d is out of range for operand %s of rank %d", op, dimension,
                           first.ToString(), first.rank());
  }
  const size_t n = operands.size();
  if (comparator.parameters().size() != 2 * n) {
    return InvalidArgument("%s: comparator must take %d parameters (2 per operand) but takes %d: %s", op, 2 * n,
                           comparator.parameters().size(), ParamListStr(comparator));
  }
  for (size_t p = 0; p < 2 * n; ++p) {
    const Shape expected = ShapeUtil::MakeScalarShape(operands[p / 2]->element_type());
    if (!comparator.parameters()[p].Compatible(expected)) {
      return InvalidArgument("%s: comparator parameter %d has shape %s but must be %s (the %s of operand %d %s; "
                             "comparator %s)",
                             op, p, comparator.parameters()[p].ToString(), expected.ToString(),
                             p % 2 == 0 ? "lhs" : "rhs", p / 2, operands[p / 2]->ToString(),
                             ParamListStr(comparator));
    }
  }
  if (!comparator.result().Compatible(ShapeUtil::MakeScalarShape(PRED))) {
    return InvalidArgument("%s: comparator must return pred[] but returns %s (comparator %s)", op,
                           comparator.result().ToString(), ParamListStr(comparator));
  }
  if (n == 1) return NoLayout(first);
  std::vector<Shape> results;
  for (const Shape* s : operands) results.push_back(NoLayout(*s));
  return ShapeUtil::MakeTupleShape(std::move(results));
}

absl::StatusOr<Shape> ShapeInference::InferTopKShape(const Shape& operand, int64_t k) {
  const char* op = "TopK";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  if (operand.rank() < 1) return InvalidArgument("%s: operand must have rank at least 1, got %s", op, operand.ToString());
  if (IsComplexType(operand.element_type())) {
    return InvalidArgument("%s: complex elements have no order (operand %s)", op, operand.ToString());
  }
  const int64_t last = operand.dimensions(operand.rank() - 1);
  if (k < 0 || k > last) {
    return InvalidArgument("%s: k = %d must be in [0, %d], the size of the last dimension of operand %s", op, k, last,
                           operand.ToString());
  }
  std::vector<int64_t> dims(operand.dimensions().begin(), operand.dimensions().end());
  dims.back() = k;
  return ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(operand.element_type(), dims), ShapeUtil::MakeShape(S32, dims)});
}

// --- Fft, TriangularSolve, Cholesky ---------------------------------------------

absl::StatusOr<Shape> ShapeInference::InferFftShape(const Shape& operand, FftType fft_type,
                                                    absl::Span<const int64_t> fft_length) {
  const std::string op = "Fft";
  RETURN_IF_ERROR(ExpectArray(op, "operand", operand));
  if (!FftType_IsValid(fft_type)) {
    return InvalidArgument("%s: fft_type %d is not FFT, IFFT, RFFT or IRFFT", op, static_cast<int>(fft_type));
  }
  const std::string type_name = FftType_Name(fft_type);
  const int64_t fft_rank = static_cast<int64_t>(fft_length.size());
  if (fft_rank < 1 || fft_rank > 3) {
    return InvalidArgument("%s: %s transforms 1 to 3 dimensions, but fft_length %s has %d entries", op, type_name,
                           ListStr(fft_length), fft_rank);
  }
  for (int64_t length : fft_length) {
    if (length < 0) return InvalidArgument("%s: fft_length %s has a negative entry", op, ListStr(fft_length));
  }
  if (operand.rank() < fft_rank) {
    return InvalidArgument("%s: %s of fft_length %s needs an operand of rank at least %d, got %s", op, type_name,
                           ListStr(fft_length), fft_rank, operand.ToString());
  }
  const PrimitiveType t = operand.element_type();
  const int64_t first = operand.rank() - fft_rank;  // the first transformed dimension
  const int64_t last_length = fft_length[fft_rank - 1];
  const int64_t half_length = last_length == 0 ? 0 : last_length / 2 + 1;
  // The transformed dimensions equal fft_length, except IRFFT's innermost
  // (the half spectrum, fft_length/2+1).
  auto check_lengths = [&](int64_t count) -> absl::Status {
    for (int64_t i = 0; i < count; ++i) {
      if (operand.dimensions(first + i) != fft_length[i]) {
        return InvalidArgument(
            "%s: %s needs the operand's innermost dimensions to equal fft_length %s, but dimension %d of %s is %d",
            op, type_name, ListStr(fft_length), first + i, operand.ToString(), operand.dimensions(first + i));
      }
    }
    return absl::OkStatus();
  };
  Shape result = NoLayout(operand);
  switch (fft_type) {
    case FFT:
    case IFFT:
      if (!IsComplexType(t)) {
        return InvalidArgument("%s: %s needs a complex (c64 or c128) operand, got %s", op, type_name,
                               operand.ToString());
      }
      RETURN_IF_ERROR(check_lengths(fft_rank));
      return result;
    case RFFT:
      if (t != F32 && t != F64) {
        return InvalidArgument("%s: RFFT needs an f32 or f64 operand, got %s", op, operand.ToString());
      }
      RETURN_IF_ERROR(check_lengths(fft_rank));
      result.set_element_type(t == F32 ? C64 : C128);
      (*result.mutable_dimensions())[operand.rank() - 1] = half_length;
      return result;
    case IRFFT:
      if (!IsComplexType(t)) {
        return InvalidArgument("%s: IRFFT needs a complex (c64 or c128) operand, got %s", op, operand.ToString());
      }
      RETURN_IF_ERROR(check_lengths(fft_rank - 1));
      if (operand.dimensions(operand.rank() - 1) != half_length) {
        return InvalidArgument(
            "%s: IRFFT needs the operand's innermost dimension to be fft_length/2+1 = %d (fft_length %s), got %s",
            op, half_length, ListStr(fft_length), operand.ToString());
      }
      result.set_element_type(primitive_util::ComplexComponentType(t));
      (*result.mutable_dimensions())[operand.rank() - 1] = last_length;
      return result;
    default:
      break;
  }
  return InvalidArgument("%s: unknown fft_type %d", op, static_cast<int>(fft_type));
}

namespace {

// TriangularSolve's and Cholesky's element types: floating-point or complex.
bool IsLinalgType(PrimitiveType t) { return IsFloatingPointType(t) || IsComplexType(t); }

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferTriangularSolveShape(const Shape& a, const Shape& b,
                                                                const TriangularSolveOptions& options) {
  const std::string op = "TriangularSolve";
  RETURN_IF_ERROR(ExpectArray(op, "a", a));
  RETURN_IF_ERROR(ExpectArray(op, "b", b));
  if (!IsLinalgType(a.element_type())) {
    return InvalidArgument("%s: a must have a floating-point or complex element type, got %s", op, a.ToString());
  }
  if (a.element_type() != b.element_type()) {
    return InvalidArgument("%s: a and b must have the same element type (a %s, b %s)", op, a.ToString(),
                           b.ToString());
  }
  if (a.rank() < 2 || a.rank() != b.rank()) {
    return InvalidArgument("%s: a and b must have the same rank, at least 2 (a %s, b %s)", op, a.ToString(),
                           b.ToString());
  }
  const int64_t rank = a.rank();
  const int64_t m = a.dimensions(rank - 1);
  if (a.dimensions(rank - 2) != m) {
    return InvalidArgument("%s: a must be a batch of square matrices [..., M, M], got %s", op, a.ToString());
  }
  for (int64_t i = 0; i + 2 < rank; ++i) {
    if (a.dimensions(i) != b.dimensions(i)) {
      return InvalidArgument("%s: a and b must have the same batch dimensions, but dimension %d differs (a %s, b %s)",
                             op, i, a.ToString(), b.ToString());
    }
  }
  const int64_t solved = options.left_side() ? rank - 2 : rank - 1;
  if (b.dimensions(solved) != m) {
    return InvalidArgument(
        "%s: with left_side=%s, b must be [..., %s] for a %s, but dimension %d of b %s is %d", op,
        options.left_side() ? "true" : "false", options.left_side() ? "M, K" : "K, M", a.ToString(), solved,
        b.ToString(), b.dimensions(solved));
  }
  switch (options.transpose_a()) {
    case TriangularSolveOptions::NO_TRANSPOSE:
    case TriangularSolveOptions::TRANSPOSE:
    case TriangularSolveOptions::ADJOINT:
      break;
    default:
      return InvalidArgument("%s: transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT, got %d", op,
                             static_cast<int>(options.transpose_a()));
  }
  return NoLayout(b);
}

absl::StatusOr<Shape> ShapeInference::InferCholeskyShape(const Shape& a) {
  const std::string op = "Cholesky";
  RETURN_IF_ERROR(ExpectArray(op, "a", a));
  if (!IsLinalgType(a.element_type())) {
    return InvalidArgument("%s: a must have a floating-point or complex element type, got %s", op, a.ToString());
  }
  if (a.rank() < 2) return InvalidArgument("%s: a must have rank at least 2, got %s", op, a.ToString());
  if (a.dimensions(a.rank() - 2) != a.dimensions(a.rank() - 1)) {
    return InvalidArgument("%s: a must be a batch of square matrices [..., N, N], got %s", op, a.ToString());
  }
  return NoLayout(a);
}

absl::StatusOr<Shape> ShapeInference::InferCustomCallShape(absl::Span<const Shape* const> operands,
                                                           const HloInstructionProto& attrs,
                                                           const Shape& declared_shape) {
  const std::string op = "CustomCall";
  if (attrs.custom_call_target().empty()) return InvalidArgument("%s: custom_call_target is empty", op);
  const std::string label = absl::StrCat(op, " '", attrs.custom_call_target(), "'");
  if (!CustomCallApiVersion_IsValid(attrs.custom_call_api_version())) {
    return InvalidArgument("%s: unknown api_version %d", label, attrs.custom_call_api_version());
  }
  if (declared_shape.element_type() == PRIMITIVE_TYPE_INVALID) {
    return InvalidArgument("%s: the result shape must be declared", label);
  }
  absl::Status valid = ShapeUtil::ValidateShape(declared_shape);
  if (!valid.ok()) return InvalidArgument("%s: invalid declared result shape: %s", label, valid.message());
  const auto& constraints = attrs.operand_shapes_with_layout();
  if (!constraints.empty()) {
    if (constraints.size() != static_cast<int>(operands.size())) {
      return InvalidArgument("%s: %d operand layout constraints for %d operands", label, constraints.size(),
                             operands.size());
    }
    for (size_t i = 0; i < operands.size(); ++i) {
      absl::StatusOr<Shape> c = ShapeUtil::FromProto(constraints[static_cast<int>(i)]);
      if (!c.ok()) return InvalidArgument("%s: operand layout constraint %d: %s", label, i, c.status().message());
      if (!c->Compatible(*operands[i])) {
        return InvalidArgument("%s: operand layout constraint %d is %s but operand %d is %s", label, i,
                               c->ToString(), i, operands[i]->ToString());
      }
      if (c->IsArray() && !c->has_layout()) {
        return InvalidArgument("%s: operand layout constraint %d (%s) has no layout", label, i, c->ToString());
      }
    }
  }
  return NoLayout(declared_shape);
}

absl::StatusOr<Shape> ShapeInference::InferMapShape(absl::Span<const Shape* const> operands,
                                                    const ProgramShape& to_apply,
                                                    absl::Span<const int64_t> dimensions) {
  const char* op = "Map";
  RETURN_IF_ERROR(ExpectArraysOfOneShape(op, operands));
  const Shape& first = *operands[0];
  // Only whole-array maps exist: dimensions are empty or {0, ..., rank-1}.
  if (!dimensions.empty()) {
    bool identity = static_cast<int64_t>(dimensions.size()) == first.rank();
    for (size_t i = 0; identity && i < dimensions.size(); ++i) identity = dimensions[i] == static_cast<int64_t>(i);
    if (!identity) {
      return InvalidArgument("%s: dimensions %s must be all dimensions of the operands in order (operand %s)", op,
                             ListStr(dimensions), first.ToString());
    }
  }
  if (to_apply.parameters().size() != operands.size()) {
    return InvalidArgument("%s: computation must take %d parameters (one per operand) but takes %d: %s", op,
                           operands.size(), to_apply.parameters().size(), ParamListStr(to_apply));
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape expected = ShapeUtil::MakeScalarShape(operands[i]->element_type());
    if (!to_apply.parameters()[i].Compatible(expected)) {
      return InvalidArgument("%s: computation parameter %d has shape %s but must be %s (operand %s; computation %s)",
                             op, i, to_apply.parameters()[i].ToString(), expected.ToString(),
                             operands[i]->ToString(), ParamListStr(to_apply));
    }
  }
  if (!ShapeUtil::IsScalar(to_apply.result())) {
    return InvalidArgument("%s: computation must return an array scalar, returns %s (computation %s)", op,
                           to_apply.result().ToString(), ParamListStr(to_apply));
  }
  return ShapeUtil::MakeShape(to_apply.result().element_type(), first.dimensions());
}

absl::StatusOr<Shape> ShapeInference::InferCallShape(absl::Span<const Shape* const> arg_shapes,
                                                     const ProgramShape& to_apply) {
  const char* op = "Call";
  RETURN_IF_ERROR(ExpectNonNull(op, arg_shapes));
  if (arg_shapes.size() != to_apply.parameters().size()) {
    return InvalidArgument("%s: computation takes %d parameters but %d arguments are given (computation %s)", op,
                           to_apply.parameters().size(), arg_shapes.size(), ParamListStr(to_apply));
  }
  for (size_t i = 0; i < arg_shapes.size(); ++i) {
    if (!arg_shapes[i]->Compatible(to_apply.parameters()[i])) {
      return InvalidArgument("%s: argument %d has shape %s but the computation's parameter %d is %s (computation %s)",
                             op, i, arg_shapes[i]->ToString(), i, to_apply.parameters()[i].ToString(),
                             ParamListStr(to_apply));
    }
  }
  return NoLayout(to_apply.result());
}

absl::StatusOr<Shape> ShapeInference::InferWhileShape(const ProgramShape& condition, const ProgramShape& body,
                                                      const Shape& init) {
  const char* op = "While";
  if (condition.parameters().size() != 1) {
    return InvalidArgument("%s: condition must take 1 parameter, takes %d (condition %s)", op,
                           condition.parameters().size(), ParamListStr(condition));
  }
  if (body.parameters().size() != 1) {
    return InvalidArgument("%s: body must take 1 parameter, takes %d (body %s)", op, body.parameters().size(),
                           ParamListStr(body));
  }
  if (!condition.result().Compatible(ShapeUtil::MakeScalarShape(PRED))) {
    return InvalidArgument("%s: condition must return pred[], returns %s (condition %s)", op,
                           condition.result().ToString(), ParamListStr(condition));
  }
  if (!condition.parameters()[0].Compatible(init)) {
    return InvalidArgument("%s: condition parameter %s does not match the init value %s", op,
                           condition.parameters()[0].ToString(), init.ToString());
  }
  if (!body.parameters()[0].Compatible(init)) {
    return InvalidArgument("%s: body parameter %s does not match the init value %s", op,
                           body.parameters()[0].ToString(), init.ToString());
  }
  if (!body.result().Compatible(init)) {
    return InvalidArgument("%s: body returns %s but the loop state (init value) is %s", op,
                           body.result().ToString(), init.ToString());
  }
  return NoLayout(init);
}

absl::StatusOr<Shape> ShapeInference::InferConditionalShape(const Shape& branch_index,
                                                            absl::Span<const ProgramShape> branches,
                                                            absl::Span<const Shape> branch_operands) {
  const char* op = "Conditional";
  const bool predicated = branch_index.IsArray() && branch_index.element_type() == PRED;
  if (!ShapeUtil::IsScalar(branch_index) || (!predicated && branch_index.element_type() != S32)) {
    return InvalidArgument("%s: branch index must be pred[] or s32[], got %s", op, branch_index.ToString());
  }
  if (predicated && branches.size() != 2) {
    return InvalidArgument("%s: a pred branch index needs exactly 2 branches, got %d", op, branches.size());
  }
  if (branches.empty()) return InvalidArgument("%s: needs at least one branch", op);
  if (branches.size() != branch_operands.size()) {
    return InvalidArgument("%s: %d branch computations but %d branch operands", op, branches.size(),
                           branch_operands.size());
  }
  for (size_t b = 0; b < branches.size(); ++b) {
    const ProgramShape& ps = branches[b];
    if (ps.parameters().size() != 1) {
      return InvalidArgument("%s: branch %d must take 1 parameter, takes %d (branch %s)", op, b,
                             ps.parameters().size(), ParamListStr(ps));
    }
    if (!ps.parameters()[0].Compatible(branch_operands[b])) {
      return InvalidArgument("%s: branch %d takes %s but its operand is %s", op, b, ps.parameters()[0].ToString(),
                             branch_operands[b].ToString());
    }
    if (!ps.result().Compatible(branches[0].result())) {
      return InvalidArgument("%s: branch %d returns %s but branch 0 returns %s", op, b, ps.result().ToString(),
                             branches[0].result().ToString());
    }
  }
  return NoLayout(branches[0].result());
}

// --- HLO-level dispatch -------------------------------------------------------------

absl::StatusOr<Shape> ShapeInference::InferInstructionShape(HloOpcode opcode, const HloInstructionProto& attrs,
                                                            absl::Span<const Shape* const> operands,
                                                            absl::Span<const ProgramShape* const> called,
                                                            const Shape& declared_shape) {
  const std::string op = OpName(opcode);
  RETURN_IF_ERROR(ExpectNonNull(op, operands));
  for (size_t i = 0; i < called.size(); ++i) {
    if (called[i] == nullptr) return InvalidArgument("%s: called computation %d is null", op, i);
  }
  auto expect_operands = [&](size_t n) -> absl::Status {
    if (operands.size() == n) return absl::OkStatus();
    return InvalidArgument("%s: expects %d operands, got %d", op, n, operands.size());
  };
  auto expect_at_least = [&](size_t n) -> absl::Status {
    if (operands.size() >= n) return absl::OkStatus();
    return InvalidArgument("%s: expects at least %d operands, got %d", op, n, operands.size());
  };
  if (IsDistributedOpcode(opcode)) return InferDistributedShape(opcode, attrs, operands, called, declared_shape);
  if (!InShapeInferenceSlice(opcode)) {
    return Unimplemented("%s: shape inference is not implemented yet", HloOpcodeString(opcode));
  }
  // How many computations each op calls (a conditional: one per branch,
  // checked against its operands by InferConditionalShape).
  if (opcode == HloOpcode::kConditional) {
    if (called.empty()) return InvalidArgument("%s: needs at least one branch computation", op);
  } else {
    size_t want_called = 0;
    if (opcode == HloOpcode::kWhile || opcode == HloOpcode::kSelectAndScatter) want_called = 2;
    if (opcode == HloOpcode::kReduce || opcode == HloOpcode::kMap || opcode == HloOpcode::kCall ||
        opcode == HloOpcode::kReduceWindow || opcode == HloOpcode::kScatter || opcode == HloOpcode::kFusion ||
        opcode == HloOpcode::kSort) {
      want_called = 1;
    }
    if (called.size() != want_called) {
      return InvalidArgument("%s: expects %d called computations, got %d", op, want_called, called.size());
    }
  }

  if (IsElementwiseUnary(opcode)) {
    RETURN_IF_ERROR(expect_operands(1));
    return InferUnaryOpShape(opcode, *operands[0]);
  }
  if (IsElementwiseBinary(opcode)) {
    RETURN_IF_ERROR(expect_operands(2));
    if (opcode == HloOpcode::kCompare) {
      if (attrs.comparison_direction().empty()) {
        return InvalidArgument("%s: comparison_direction is required (EQ, NE, LT, LE, GT or GE) (lhs %s, rhs %s)", op,
                               operands[0]->ToString(), operands[1]->ToString());
      }
      if (!StringToComparisonDirection(attrs.comparison_direction()).ok()) {
        return InvalidArgument("%s: invalid comparison_direction '%s' (expected EQ, NE, LT, LE, GT or GE)", op,
                               attrs.comparison_direction());
      }
      ASSIGN_OR_RETURN(Shape result, InferHloBinaryShape(opcode, *operands[0], *operands[1]));
      if (!attrs.comparison_type().empty()) {
        RETURN_IF_ERROR(CheckComparisonType(op, attrs.comparison_type(), *operands[0]));
      }
      return result;
    }
    return InferHloBinaryShape(opcode, *operands[0], *operands[1]);
  }

  switch (opcode) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant: {
      RETURN_IF_ERROR(expect_operands(0));
      absl::Status s = ShapeUtil::ValidateShape(declared_shape);
      if (!s.ok()) return InvalidArgument("%s: invalid shape: %s", op, s.message());
      return NoLayout(declared_shape);
    }
    case HloOpcode::kCopy:
      RETURN_IF_ERROR(expect_operands(1));
      return NoLayout(*operands[0]);
    case HloOpcode::kOptimizationBarrier:
      // Any shape (usually a tuple) passes through unchanged.
      RETURN_IF_ERROR(expect_operands(1));
      return NoLayout(*operands[0]);
    case HloOpcode::kBitcast:
      RETURN_IF_ERROR(expect_operands(1));
      return InferBitcastShape(*operands[0], declared_shape);
    case HloOpcode::kFusion:
      // fusion_kind (kLoop, kInput, ...) guides backends only; any kind is kept.
      return InferFusionShape(operands, *called[0]);
    case HloOpcode::kSelect:
    case HloOpcode::kClamp:
      RETURN_IF_ERROR(expect_operands(3));
      return InferTernaryOpShape(opcode, *operands[0], *operands[1], *operands[2]);
    case HloOpcode::kConvert:
      RETURN_IF_ERROR(expect_operands(1));
      return InferConvertShape(*operands[0], declared_shape.element_type());
    case HloOpcode::kBitcastConvert:
      RETURN_IF_ERROR(expect_operands(1));
      return InferBitcastConvertShape(*operands[0], declared_shape.element_type());
    case HloOpcode::kRngBitGenerator:
      RETURN_IF_ERROR(expect_operands(1));
      if (!declared_shape.IsTuple() || declared_shape.tuple_shapes().size() != 2) {
        return InvalidArgument("%s: declared shape must be a (state, output) tuple, got %s", op,
                               declared_shape.ToString());
      }
      return InferRngBitGeneratorShape(*operands[0], attrs.rng_algorithm(), declared_shape.tuple_shapes()[1]);
    case HloOpcode::kReducePrecision:
      RETURN_IF_ERROR(expect_operands(1));
      return InferReducePrecisionShape(*operands[0], attrs.exponent_bits(), attrs.mantissa_bits());
    case HloOpcode::kBroadcast:
      RETURN_IF_ERROR(expect_operands(1));
      if (!declared_shape.IsArray()) {
        return InvalidArgument("%s: declared shape must be an array, got %s", op, declared_shape.ToString());
      }
      return InferBroadcastInDimShape(*operands[0], declared_shape.dimensions(), attrs.dimensions());
    case HloOpcode::kReshape:
      RETURN_IF_ERROR(expect_operands(1));
      if (!declared_shape.IsArray()) {
        return InvalidArgument("%s: declared shape must be an array, got %s", op, declared_shape.ToString());
      }
      return InferReshapeShape(*operands[0], declared_shape.dimensions());
    case HloOpcode::kTranspose:
      RETURN_IF_ERROR(expect_operands(1));
      return InferTransposeShape(*operands[0], attrs.dimensions());
    case HloOpcode::kReverse:
      RETURN_IF_ERROR(expect_operands(1));
      return InferReverseShape(*operands[0], attrs.dimensions());
    case HloOpcode::kSlice: {
      RETURN_IF_ERROR(expect_operands(1));
      std::vector<int64_t> starts, limits, strides;
      for (const auto& sd : attrs.slice_dimensions()) {
        starts.push_back(sd.start());
        limits.push_back(sd.limit());
        strides.push_back(sd.stride());
      }
      return InferSliceShape(*operands[0], starts, limits, strides);
    }
    case HloOpcode::kDynamicSlice: {
      RETURN_IF_ERROR(expect_at_least(1));
      std::vector<Shape> indices;
      for (size_t i = 1; i < operands.size(); ++i) indices.push_back(*operands[i]);
      return InferDynamicSliceShape(*operands[0], indices, attrs.dynamic_slice_sizes());
    }
    case HloOpcode::kDynamicUpdateSlice: {
      RETURN_IF_ERROR(expect_at_least(2));
      std::vector<Shape> indices;
      for (size_t i = 2; i < operands.size(); ++i) indices.push_back(*operands[i]);
      return InferDynamicUpdateSliceShape(*operands[0], *operands[1], indices);
    }
    case HloOpcode::kConcatenate:
      if (attrs.dimensions_size() != 1) {
        return InvalidArgument("%s: needs exactly one dimension in dimensions, got %s", op,
                               ListStr(attrs.dimensions()));
      }
      return InferConcatOpShape(operands, attrs.dimensions(0));
    case HloOpcode::kPad:
      RETURN_IF_ERROR(expect_operands(2));
      return InferPadShape(*operands[0], *operands[1], attrs.padding_config());
    case HloOpcode::kTuple:
      return InferTupleShape(operands);
    case HloOpcode::kGetTupleElement:
      RETURN_IF_ERROR(expect_operands(1));
      return InferGetTupleElementShape(*operands[0], attrs.tuple_index());
    case HloOpcode::kIota:
      RETURN_IF_ERROR(expect_operands(0));
      if (attrs.dimensions_size() != 1) {
        return InvalidArgument("%s: needs exactly one iota dimension in dimensions, got %s", op,
                               ListStr(attrs.dimensions()));
      }
      return InferIotaShape(declared_shape, attrs.dimensions(0));
    case HloOpcode::kDot: {
      RETURN_IF_ERROR(expect_operands(2));
      ASSIGN_OR_RETURN(Shape shape, InferDotOpShape(*operands[0], *operands[1], attrs.dot_dimension_numbers()));
      shape.set_element_type(AccumulatingResultType(shape.element_type(), declared_shape));
      return shape;
    }
    case HloOpcode::kGather:
      RETURN_IF_ERROR(expect_operands(2));
      return InferGatherShape(*operands[0], *operands[1], attrs.gather_dimension_numbers(),
                              attrs.gather_slice_sizes());
    case HloOpcode::kConvolution: {
      RETURN_IF_ERROR(expect_operands(2));
      ASSIGN_OR_RETURN(Shape shape,
                       InferConvolveShape(*operands[0], *operands[1], attrs.window(),
                                          attrs.convolution_dimension_numbers(), GroupCount(attrs.feature_group_count()),
                                          GroupCount(attrs.batch_group_count())));
      shape.set_element_type(AccumulatingResultType(shape.element_type(), declared_shape));
      return shape;
    }
    case HloOpcode::kReduce:
      return InferReduceShape(operands, attrs.dimensions(), *called[0]);
    case HloOpcode::kReduceWindow:
      return InferReduceWindowShape(operands, attrs.window(), *called[0]);
    case HloOpcode::kScatter:
      return InferScatterShape(operands, attrs.scatter_dimension_numbers(), *called[0]);
    case HloOpcode::kSelectAndScatter:
      RETURN_IF_ERROR(expect_operands(3));
      return InferSelectAndScatterShape(*operands[0], *called[0], attrs.window(), *operands[1], *operands[2],
                                        *called[1]);
    case HloOpcode::kSort:
      if (attrs.dimensions_size() != 1) {
        return InvalidArgument("%s: needs exactly one sort dimension in dimensions, got %s", op,
                               ListStr(attrs.dimensions()));
      }
      return InferSortShape(operands, attrs.dimensions(0), *called[0]);
    case HloOpcode::kTopK:
      RETURN_IF_ERROR(expect_operands(1));
      return InferTopKShape(*operands[0], attrs.k());
    case HloOpcode::kFft:
      RETURN_IF_ERROR(expect_operands(1));
      return InferFftShape(*operands[0], attrs.fft_type(), attrs.fft_length());
    case HloOpcode::kTriangularSolve:
      RETURN_IF_ERROR(expect_operands(2));
      return InferTriangularSolveShape(*operands[0], *operands[1], attrs.triangular_solve_options());
    case HloOpcode::kCholesky:
      RETURN_IF_ERROR(expect_operands(1));
      return InferCholeskyShape(*operands[0]);
    case HloOpcode::kCustomCall:
      return InferCustomCallShape(operands, attrs, declared_shape);
    case HloOpcode::kRng:
      RETURN_IF_ERROR(expect_operands(2));
      return InferRngShape(*operands[0], *operands[1], attrs.distribution(), declared_shape);
    case HloOpcode::kBatchNormTraining:
      RETURN_IF_ERROR(expect_operands(3));
      return InferBatchNormTrainingShape(*operands[0], *operands[1], *operands[2], attrs.feature_index());
    case HloOpcode::kBatchNormInference:
      RETURN_IF_ERROR(expect_operands(5));
      return InferBatchNormInferenceShape(*operands[0], *operands[1], *operands[2], *operands[3], *operands[4],
                                          attrs.feature_index());
    case HloOpcode::kBatchNormGrad:
      RETURN_IF_ERROR(expect_operands(5));
      return InferBatchNormGradShape(*operands[0], *operands[1], *operands[2], *operands[3], *operands[4],
                                     attrs.feature_index());
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
      RETURN_IF_ERROR(expect_operands(opcode == HloOpcode::kGetDimensionSize ? 1 : 2));
      if (attrs.dimensions_size() != 1) {
        return InvalidArgument("%s: needs exactly one dimension in dimensions, got %s", op,
                               ListStr(attrs.dimensions()));
      }
      if (opcode == HloOpcode::kGetDimensionSize) return InferGetDimensionSizeShape(*operands[0], attrs.dimensions(0));
      return InferSetDimensionSizeShape(*operands[0], *operands[1], attrs.dimensions(0));
    case HloOpcode::kMap:
      return InferMapShape(operands, *called[0], attrs.dimensions());
    case HloOpcode::kCall:
      return InferCallShape(operands, *called[0]);
    case HloOpcode::kWhile:
      RETURN_IF_ERROR(expect_operands(1));
      return InferWhileShape(*called[0], *called[1], *operands[0]);
    case HloOpcode::kConditional: {
      RETURN_IF_ERROR(expect_at_least(2));
      std::vector<ProgramShape> branches;
      for (const ProgramShape* ps : called) branches.push_back(*ps);
      std::vector<Shape> branch_operands;
      for (size_t i = 1; i < operands.size(); ++i) branch_operands.push_back(*operands[i]);
      return InferConditionalShape(*operands[0], branches, branch_operands);
    }
    default:
      break;
  }
  return Unimplemented("%s: shape inference is not implemented yet", HloOpcodeString(opcode));
}

}  // namespace xla
