// batch-norm-training, -inference and -grad, computed directly from the
// formulas of operation-semantics.md in double precision and rounded once
// to the element type (an independent check of the batch-norm-expander
// pass, whose HLO computes in f32 or f64). The variance is the mean squared
// deviation from the mean (two passes).
#include <cmath>
#include <vector>

#include "xla/evaluator/evaluator_internal.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {
namespace {

// Operands as doubles, and for each element of the operand its feature.
struct Features {
  int64_t count = 0;       // F
  int64_t per_feature = 0;  // N: elements of each feature
  std::vector<int64_t> feature_of;  // per operand element (row-major)
};

Features Layout(const Shape& operand, int64_t feature_index) {
  Features f;
  f.count = operand.dimensions(feature_index);
  const int64_t total = ShapeUtil::ElementsIn(operand);
  f.per_feature = f.count == 0 ? 0 : total / f.count;
  int64_t inner = 1;
  for (int64_t d = feature_index + 1; d < operand.rank(); ++d) inner *= operand.dimensions(d);
  f.feature_of.resize(total);
  for (int64_t i = 0; i < total; ++i) f.feature_of[i] = (i / inner) % f.count;
  return f;
}

absl::StatusOr<std::vector<double>> AsDoubles(const Literal& literal) {
  ASSIGN_OR_RETURN(Literal converted, literal.Convert(F64));
  auto data = converted.data<double>();
  return std::vector<double>(data.begin(), data.end());
}

absl::StatusOr<Literal> FromDoubles(const std::vector<double>& values, const Shape& shape) {
  Literal out(ShapeUtil::ChangeElementType(RowMajorShape(shape), F64));
  std::copy(values.begin(), values.end(), out.data<double>().begin());
  return out.Convert(shape.element_type());
}

// Per-feature mean of `values`.
std::vector<double> FeatureMeans(const Features& f, const std::vector<double>& values) {
  std::vector<double> sums(f.count, 0.0);
  for (size_t i = 0; i < values.size(); ++i) sums[f.feature_of[i]] += values[i];
  for (double& s : sums) s /= static_cast<double>(f.per_feature);
  return sums;
}

absl::StatusOr<Literal> Tuple3(const std::vector<double>& x, const Shape& x_shape, const std::vector<double>& a,
                               const std::vector<double>& b, const Shape& feature_shape) {
  std::vector<Literal> parts;
  ASSIGN_OR_RETURN(Literal p0, FromDoubles(x, x_shape));
  ASSIGN_OR_RETURN(Literal p1, FromDoubles(a, feature_shape));
  ASSIGN_OR_RETURN(Literal p2, FromDoubles(b, feature_shape));
  parts.push_back(std::move(p0));
  parts.push_back(std::move(p1));
  parts.push_back(std::move(p2));
  return Literal::MakeTuple(std::move(parts));
}

}  // namespace

absl::StatusOr<Literal> EvaluateBatchNorm(const HloInstruction& instruction,
                                          absl::Span<const Literal* const> operands) {
  const HloOpcode opcode = instruction.opcode();
  const int64_t fi = instruction.attributes().feature_index();
  const double eps = instruction.attributes().epsilon();
  std::vector<const Shape*> shapes;
  for (const Literal* l : operands) shapes.push_back(&l->shape());
  RETURN_IF_ERROR(ShapeInference::InferInstructionShape(opcode, instruction.attributes(), shapes, {},
                                                        instruction.shape())
                      .status());
  const Shape& x_shape = operands[0]->shape();
  const Shape& feature_shape = operands[1]->shape();
  const Features f = Layout(x_shape, fi);
  std::vector<std::vector<double>> in;
  for (const Literal* l : operands) {
    ASSIGN_OR_RETURN(std::vector<double> v, AsDoubles(*l));
    in.push_back(std::move(v));
  }
  const std::vector<double>& x = in[0];
  const std::vector<double>& scale = in[1];
  std::vector<double> y(x.size());
  if (opcode == HloOpcode::kBatchNormInference) {
    const std::vector<double>&offset = in[2], &mean = in[3], &var = in[4];
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t l = f.feature_of[i];
      y[i] = (x[i] - mean[l]) * scale[l] / std::sqrt(var[l] + eps) + offset[l];
    }
    return FromDoubles(y, x_shape);
  }
  if (opcode == HloOpcode::kBatchNormTraining) {
    const std::vector<double>& offset = in[2];
    const std::vector<double> mean = FeatureMeans(f, x);
    std::vector<double> squares(x.size());
    for (size_t i = 0; i < x.size(); ++i) squares[i] = (x[i] - mean[f.feature_of[i]]) * (x[i] - mean[f.feature_of[i]]);
    const std::vector<double> var = FeatureMeans(f, squares);
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t l = f.feature_of[i];
      y[i] = (x[i] - mean[l]) * scale[l] / std::sqrt(var[l] + eps) + offset[l];
    }
    return Tuple3(y, x_shape, mean, var, feature_shape);
  }
  if (opcode == HloOpcode::kBatchNormGrad) {
    const std::vector<double>&mean = in[2], &var = in[3], &gy = in[4];
    std::vector<double> grad_offset(f.count, 0.0), sum_gy_diff(f.count, 0.0);
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t l = f.feature_of[i];
      grad_offset[l] += gy[i];
      sum_gy_diff[l] += gy[i] * (x[i] - mean[l]);
    }
    std::vector<double> grad_scale(f.count);
    for (int64_t l = 0; l < f.count; ++l) grad_scale[l] = sum_gy_diff[l] / std::sqrt(var[l] + eps);
    const double n = static_cast<double>(f.per_feature);
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t l = f.feature_of[i];
      const double c = sum_gy_diff[l] / n / (var[l] + eps);
      const double d = grad_offset[l] / n;
      y[i] = scale[l] / std::sqrt(var[l] + eps) * (gy[i] - d - c * (x[i] - mean[l]));
    }
    return Tuple3(y, x_shape, grad_scale, grad_offset, feature_shape);
  }
  return Internal("HloEvaluator: %s is not a batch-norm op", InstrLabel(instruction));
}

}  // namespace evaluator_internal
}  // namespace xla
