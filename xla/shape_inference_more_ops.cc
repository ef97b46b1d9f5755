// Shape inference for rng (RngUniform, RngNormal), the three batch-norm ops
// and get-/set-dimension-size (operation-semantics.md). Every constraint the
// document states is an InvalidArgument naming the op and the shapes; element
// types the document allows but this system does not generate yet are
// Unimplemented.
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "xla/primitive_util.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

Shape WithoutLayout(Shape shape) {
  shape.clear_layout();
  for (Shape& s : *shape.mutable_tuple_shapes()) s = WithoutLayout(s);
  return shape;
}

bool IsBatchNormType(PrimitiveType t) { return t == F16 || t == BF16 || t == F32 || t == F64; }

// scale/offset/mean/variance: rank 1, the feature dimension's size, the
// operand's element type.
absl::Status CheckFeatureVector(absl::string_view op, absl::string_view what, const Shape& v, const Shape& operand,
                                int64_t feature_index) {
  const int64_t features = operand.dimensions(feature_index);
  if (!v.IsArray() || v.rank() != 1 || v.dimensions(0) != features) {
    return InvalidArgument("%s: %s must be a rank-1 array of the feature dimension's size %d (feature_index %d of %s), got %s",
                           op, what, features, feature_index, operand.ToString(), v.ToString());
  }
  if (v.element_type() != operand.element_type()) {
    return InvalidArgument("%s: %s must have the operand's element type %s, got %s", op, what,
                           primitive_util::LowercaseName(operand.element_type()), v.ToString());
  }
  return absl::OkStatus();
}

absl::Status CheckBatchNormOperand(absl::string_view op, const Shape& operand, int64_t feature_index) {
  if (!operand.IsArray()) return InvalidArgument("%s: operand must be an array, got %s", op, operand.ToString());
  if (operand.rank() < 1) return InvalidArgument("%s: operand must have rank at least 1, got %s", op, operand.ToString());
  if (!primitive_util::IsFloatingPointType(operand.element_type())) {
    return InvalidArgument("%s: operand must have a floating-point element type, got %s", op, operand.ToString());
  }
  if (!IsBatchNormType(operand.element_type())) {
    return Unimplemented("%s: element type %s is not supported (f16, bf16, f32 and f64 are)", op,
                         primitive_util::LowercaseName(operand.element_type()));
  }
  if (feature_index < 0 || feature_index >= operand.rank()) {
    return InvalidArgument("%s: feature_index %d is out of range for operand %s (rank %d)", op, feature_index,
                           operand.ToString(), operand.rank());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferRngShape(const Shape& a, const Shape& b, RandomDistribution distribution,
                                                    const Shape& shape) {
  const char* op = distribution == RNG_NORMAL ? "RngNormal" : "RngUniform";
  if (distribution != RNG_UNIFORM && distribution != RNG_NORMAL) {
    return InvalidArgument("Rng: distribution must be rng_uniform or rng_normal, got %s",
                           RandomDistribution_Name(distribution));
  }
  const char* a_name = distribution == RNG_NORMAL ? "mu" : "a";
  const char* b_name = distribution == RNG_NORMAL ? "sigma" : "b";
  if (!ShapeUtil::IsScalar(a) || !ShapeUtil::IsScalar(b)) {
    return InvalidArgument("%s: %s and %s must be scalars, got %s and %s", op, a_name, b_name, a.ToString(),
                           b.ToString());
  }
  if (!shape.IsArray()) return InvalidArgument("%s: the output shape must be an array, got %s", op, shape.ToString());
  if (a.element_type() != b.element_type() || a.element_type() != shape.element_type()) {
    return InvalidArgument("%s: %s, %s and the output shape must have one element type, got %s, %s and %s", op,
                           a_name, b_name, a.ToString(), b.ToString(), shape.ToString());
  }
  const PrimitiveType t = shape.element_type();
  if (distribution == RNG_NORMAL) {
    if (!primitive_util::IsFloatingPointType(t)) {
      return InvalidArgument("%s: needs a floating-point element type, got %s", op, shape.ToString());
    }
  } else if (!primitive_util::IsFloatingPointType(t) && !primitive_util::IsIntegralType(t) && t != PRED) {
    return InvalidArgument("%s: needs a boolean, integer or floating-point element type, got %s", op,
                           shape.ToString());
  }
  if (primitive_util::IsSmallFloatType(t) || primitive_util::IsNarrowIntegralType(t)) {
    return Unimplemented("%s: element type %s is not supported (pred, 8- to 64-bit integers, f16, bf16, f32 and f64 are)",
                         op, primitive_util::LowercaseName(t));
  }
  RETURN_IF_ERROR(ShapeUtil::ValidateShape(shape));
  return WithoutLayout(shape);
}

absl::StatusOr<Shape> ShapeInference::InferBatchNormTrainingShape(const Shape& operand, const Shape& scale,
                                                                  const Shape& offset, int64_t feature_index) {
  const char* op = "BatchNormTraining";
  RETURN_IF_ERROR(CheckBatchNormOperand(op, operand, feature_index));
  RETURN_IF_ERROR(CheckFeatureVector(op, "scale", scale, operand, feature_index));
  RETURN_IF_ERROR(CheckFeatureVector(op, "offset", offset, operand, feature_index));
  const Shape features = WithoutLayout(scale);
  return ShapeUtil::MakeTupleShape({WithoutLayout(operand), features, features});
}

absl::StatusOr<Shape> ShapeInference::InferBatchNormInferenceShape(const Shape& operand, const Shape& scale,
                                                                   const Shape& offset, const Shape& mean,
                                                                   const Shape& variance, int64_t feature_index) {
  const char* op = "BatchNormInference";
  RETURN_IF_ERROR(CheckBatchNormOperand(op, operand, feature_index));
  RETURN_IF_ERROR(CheckFeatureVector(op, "scale", scale, operand, feature_index));
  RETURN_IF_ERROR(CheckFeatureVector(op, "offset", offset, operand, feature_index));
  RETURN_IF_ERROR(CheckFeatureVector(op, "mean", mean, operand, feature_index));
  RETURN_IF_ERROR(CheckFeatureVector(op, "variance", variance, operand, feature_index));
  return WithoutLayout(operand);
}

absl::StatusOr<Shape> ShapeInference::InferBatchNormGradShape(const Shape& operand, const Shape& scale,
                                                              const Shape& mean, const Shape& variance,
                                                              const Shape& grad_output, int64_t feature_index) {
  const char* op = "BatchNormGrad";
  RETURN_IF_ERROR(CheckBatchNormOperand(op, operand, feature_index));
  RETURN_IF_ERROR(CheckFeatureVector(op, "scale", scale, operand, feature_index));
  RETURN_IF_ERROR(CheckFeatureVector(op, "mean", mean, operand, feature_index));
  RETURN_IF_ERROR(CheckFeatureVector(op, "variance", variance, operand, feature_index));
  if (!grad_output.IsArray() || !ShapeUtil::SameDimensions(grad_output, operand) ||
      grad_output.element_type() != operand.element_type()) {
    return InvalidArgument("%s: grad_output must have the operand's shape %s, got %s", op, operand.ToString(),
                           grad_output.ToString());
  }
  const Shape features = WithoutLayout(scale);
  return ShapeUtil::MakeTupleShape({WithoutLayout(operand), features, features});
}

absl::StatusOr<Shape> ShapeInference::InferGetDimensionSizeShape(const Shape& operand, int64_t dimension) {
  const char* op = "GetDimensionSize";
  if (!operand.IsArray()) return InvalidArgument("%s: operand must be an array, got %s", op, operand.ToString());
  if (dimension < 0 || dimension >= operand.rank()) {
    return InvalidArgument("%s: dimension %d is out of range for %s (rank %d)", op, dimension, operand.ToString(),
                           operand.rank());
  }
  if (operand.dimensions(dimension) > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("%s: dimension %d of %s does not fit the s32 result", op, dimension, operand.ToString());
  }
  return ShapeUtil::MakeScalarShape(S32);
}

absl::StatusOr<Shape> ShapeInference::InferSetDimensionSizeShape(const Shape& operand, const Shape& size,
                                                                 int64_t dimension) {
  const char* op = "SetDimensionSize";
  if (!operand.IsArray()) return InvalidArgument("%s: operand must be an array, got %s", op, operand.ToString());
  if (dimension < 0 || dimension >= operand.rank()) {
    return InvalidArgument("%s: dimension %d is out of range for %s (rank %d)", op, dimension, operand.ToString(),
                           operand.rank());
  }
  if (!ShapeUtil::IsScalar(size) || size.element_type() != S32) {
    return InvalidArgument("%s: size must be an s32 scalar, got %s", op, size.ToString());
  }
  return WithoutLayout(operand);
}

}  // namespace xla
