// The builder's rng, batch-norm, dimension-size and composite-call free
// functions. Each is one instruction whose shape comes from shape inference
// through the builder's DistributedOp hook; RngBernoulli is built from
// RngUniform, a compare and a convert as the 2017 document describes.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/xla_builder.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

XlaOp Rng(XlaOp a, XlaOp b, const Shape& shape, RandomDistribution distribution) {
  if (a.builder() == nullptr) return XlaOp();
  HloInstructionProto attrs;
  attrs.set_distribution(distribution);
  return a.builder()->DistributedOp(HloOpcode::kRng, {a, b}, std::move(attrs), nullptr, shape);
}

HloInstructionProto BatchNormAttributes(float epsilon, int64_t feature_index) {
  HloInstructionProto attrs;
  attrs.set_epsilon(epsilon);
  attrs.set_feature_index(feature_index);
  return attrs;
}

}  // namespace

XlaOp RngUniform(XlaOp a, XlaOp b, const Shape& shape) { return Rng(a, b, shape, RNG_UNIFORM); }

XlaOp RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape) { return Rng(mu, sigma, shape, RNG_NORMAL); }

XlaOp RngBernoulli(XlaOp mean, const Shape& shape) {
  XlaBuilder* b = mean.builder();
  if (b == nullptr) return XlaOp();
  absl::StatusOr<Shape> mean_shape = b->GetShape(mean);
  if (!mean_shape.ok()) return b->ReportError(mean_shape.status());
  const PrimitiveType t = mean_shape->element_type();
  if (!ShapeUtil::IsScalar(*mean_shape) || !primitive_util::IsFloatingPointType(t)) {
    return b->ReportError(
        InvalidArgument("RngBernoulli: mean must be a floating-point scalar, got %s", mean_shape->ToString()));
  }
  if (!shape.IsArray() || !(primitive_util::IsIntegralType(shape.element_type()) || shape.element_type() == PRED)) {
    return b->ReportError(
        InvalidArgument("RngBernoulli: the output shape must have an integer or pred element type, got %s",
                        shape.ToString()));
  }
  const Shape uniform_shape = ShapeUtil::ChangeElementType(shape, t);
  XlaOp u = RngUniform(ConstantLiteral(b, Literal::CreateR0<double>(0.0).Convert(t).value()),
                       ConstantLiteral(b, Literal::CreateR0<double>(1.0).Convert(t).value()), uniform_shape);
  XlaOp hit = Lt(u, Broadcast(mean, shape.dimensions()));
  return ConvertElementType(hit, shape.element_type());
}

XlaOp BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset, float epsilon, int64_t feature_index) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->DistributedOp(HloOpcode::kBatchNormTraining, {operand, scale, offset},
                                          BatchNormAttributes(epsilon, feature_index));
}

XlaOp BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean, XlaOp variance, float epsilon,
                         int64_t feature_index) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->DistributedOp(HloOpcode::kBatchNormInference, {operand, scale, offset, mean, variance},
                                          BatchNormAttributes(epsilon, feature_index));
}

XlaOp BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp mean, XlaOp variance, XlaOp grad_output, float epsilon,
                    int64_t feature_index) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->DistributedOp(HloOpcode::kBatchNormGrad, {operand, scale, mean, variance, grad_output},
                                          BatchNormAttributes(epsilon, feature_index));
}

XlaOp GetDimensionSize(XlaOp operand, int64_t dimension) {
  if (operand.builder() == nullptr) return XlaOp();
  HloInstructionProto attrs;
  attrs.add_dimensions(dimension);
  return operand.builder()->DistributedOp(HloOpcode::kGetDimensionSize, {operand}, std::move(attrs));
}

XlaOp SetDimensionSize(XlaOp operand, XlaOp size, int64_t dimension) {
  if (operand.builder() == nullptr) return XlaOp();
  HloInstructionProto attrs;
  attrs.add_dimensions(dimension);
  return operand.builder()->DistributedOp(HloOpcode::kSetDimensionSize, {operand, size}, std::move(attrs));
}

XlaOp OptimizationBarrier(XlaOp operand) {
  if (operand.builder() == nullptr) return XlaOp();
  return operand.builder()->DistributedOp(HloOpcode::kOptimizationBarrier, {operand}, {});
}

XlaOp CompositeCall(XlaBuilder* builder, const XlaComputation& computation, absl::Span<const XlaOp> operands,
                    const std::string& name, const std::string& attributes, int64_t version) {
  if (name.empty()) return builder->ReportError(InvalidArgument("CompositeCall: the composite needs a name"));
  HloInstructionProto attrs;
  auto& map = *attrs.mutable_frontend_attributes()->mutable_map();
  map["composite.name"] = name;
  map["composite.attributes"] = attributes;
  map["composite.version"] = absl::StrCat(version);
  return builder->DistributedOp(HloOpcode::kCall, operands, std::move(attrs), &computation);
}

}  // namespace xla
