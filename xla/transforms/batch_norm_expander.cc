#include "xla/transforms/batch_norm_expander.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/literal.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"
#include "xla/transforms/hlo_rewrite_util.h"

namespace xla {
namespace {

// Builds the expansion of one batch-norm instruction in its computation.
class Expansion {
 public:
  Expansion(HloComputation* computation, NameUniquer* names, const HloInstruction* bn)
      : computation_(computation), names_(names) {
    const Shape& x = bn->operand(0)->shape();
    type_ = x.element_type();
    compute_ = type_ == F64 ? F64 : F32;
    feature_index_ = bn->attributes().feature_index();
    dims_.assign(x.dimensions().begin(), x.dimensions().end());
    features_ = dims_[feature_index_];
    per_feature_ = 1;
    for (size_t d = 0; d < dims_.size(); ++d) {
      if (static_cast<int64_t>(d) != feature_index_) {
        reduce_dims_.push_back(d);
        per_feature_ *= dims_[d];
      }
    }
  }

  Shape Array() const { return ShapeUtil::MakeShape(compute_, dims_); }
  Shape Vector() const { return ShapeUtil::MakeShape(compute_, {features_}); }

  absl::StatusOr<HloInstruction*> Op(HloOpcode opcode, const Shape& shape, std::vector<HloInstruction*> operands,
                                     HloInstructionProto attrs = {}, std::vector<HloComputation*> called = {}) {
    return MakeInstruction(computation_, names_, opcode, shape, operands, std::move(attrs), called);
  }
  absl::StatusOr<HloInstruction*> Binary(HloOpcode opcode, HloInstruction* x, HloInstruction* y) {
    return Op(opcode, x->shape(), {x, y});
  }
  absl::StatusOr<HloInstruction*> ToCompute(HloInstruction* x) {
    if (x->shape().element_type() == compute_) return x;
    return Op(HloOpcode::kConvert, ShapeUtil::ChangeElementType(x->shape(), compute_), {x});
  }
  absl::StatusOr<HloInstruction*> ToType(HloInstruction* x) {
    if (type_ == compute_) return x;
    return Op(HloOpcode::kConvert, ShapeUtil::ChangeElementType(x->shape(), type_), {x});
  }
  HloInstruction* Scalar(double v) {
    return MakeConstant(computation_, names_,
                        compute_ == F64 ? Literal::CreateR0<double>(v) : Literal::CreateR0<float>(static_cast<float>(v)));
  }
  // A scalar constant as a [F] vector.
  absl::StatusOr<HloInstruction*> VectorOf(double v) {
    HloInstructionProto attrs;
    return Op(HloOpcode::kBroadcast, Vector(), {Scalar(v)}, attrs);
  }
  // A [F] vector along the feature dimension of the operand's shape.
  absl::StatusOr<HloInstruction*> AlongFeatures(HloInstruction* v) {
    HloInstructionProto attrs;
    attrs.add_dimensions(feature_index_);
    return Op(HloOpcode::kBroadcast, Array(), {v}, attrs);
  }
  // Sum over every dimension but the feature dimension: [F].
  absl::StatusOr<HloInstruction*> SumPerFeature(HloInstruction* x) {
    HloInstructionProto attrs;
    for (int64_t d : reduce_dims_) attrs.add_dimensions(d);
    return Op(HloOpcode::kReduce, Vector(), {x, Scalar(0.0)}, attrs, {AddComputation()});
  }
  // rsqrt(var + eps) and var + eps, [F].
  absl::StatusOr<HloInstruction*> VarPlusEps(HloInstruction* var, float epsilon) {
    ASSIGN_OR_RETURN(HloInstruction * eps, VectorOf(epsilon));
    return Binary(HloOpcode::kAdd, var, eps);
  }
  absl::StatusOr<HloInstruction*> MeanOf(HloInstruction* sum) {
    ASSIGN_OR_RETURN(HloInstruction * n, VectorOf(static_cast<double>(per_feature_)));
    return Binary(HloOpcode::kDivide, sum, n);
  }
  int64_t feature_index() const { return feature_index_; }

 private:
  // (a, b) -> a + b in the compute type, added once per expansion.
  HloComputation* AddComputation() {
    if (add_ != nullptr) return add_;
    HloModule* module = computation_->parent();
    std::string name = "batch_norm_add";
    for (int i = 1; module->GetComputationByName(name) != nullptr; ++i) name = absl::StrCat("batch_norm_add.", i);
    add_ = module->AddEmbeddedComputationBefore(std::make_unique<HloComputation>(name), computation_);
    const Shape s = ShapeUtil::MakeScalarShape(compute_);
    HloInstruction* a = AddInstructionWithUniqueName(add_, HloInstruction::CreateParameter(0, s, ""), names_, "lhs");
    HloInstruction* b = AddInstructionWithUniqueName(add_, HloInstruction::CreateParameter(1, s, ""), names_, "rhs");
    add_->set_root_instruction(
        AddInstructionWithUniqueName(add_, HloInstruction::CreateBinary(HloOpcode::kAdd, s, a, b), names_, "sum"));
    return add_;
  }

  HloComputation* computation_;
  NameUniquer* names_;
  HloComputation* add_ = nullptr;
  PrimitiveType type_, compute_;
  int64_t feature_index_, features_, per_feature_;
  std::vector<int64_t> dims_, reduce_dims_;
};

absl::StatusOr<HloInstruction*> Tuple(HloComputation* computation, NameUniquer* names, const HloInstruction* bn,
                                      std::vector<HloInstruction*> parts) {
  HloInstruction* tuple = AddInstructionWithUniqueName(computation, HloInstruction::CreateTuple(parts), names,
                                                       "batch_norm");
  *tuple->mutable_shape() = bn->shape();
  return tuple;
}

absl::StatusOr<bool> Expand(HloComputation* computation, NameUniquer* names, HloInstruction* bn) {
  // Malformed instructions are left for the verifier to report.
  std::vector<const Shape*> shapes;
  for (const HloInstruction* o : bn->operands()) shapes.push_back(&o->shape());
  if (!ShapeInference::InferInstructionShape(bn->opcode(), bn->attributes(), shapes, {}, bn->shape()).ok()) {
    return false;
  }
  Expansion e(computation, names, bn);
  const float epsilon = bn->attributes().epsilon();
  std::vector<HloInstruction*> in;
  for (int64_t i = 0; i < bn->operand_count(); ++i) {
    ASSIGN_OR_RETURN(HloInstruction * c, e.ToCompute(bn->mutable_operand(i)));
    in.push_back(c);
  }
  HloInstruction* x = in[0];
  HloInstruction* scale = in[1];
  HloInstruction* result = nullptr;
  if (bn->opcode() == HloOpcode::kBatchNormTraining || bn->opcode() == HloOpcode::kBatchNormInference) {
    HloInstruction *mean, *var;
    if (bn->opcode() == HloOpcode::kBatchNormTraining) {
      ASSIGN_OR_RETURN(HloInstruction * sum, e.SumPerFeature(x));
      ASSIGN_OR_RETURN(mean, e.MeanOf(sum));
    } else {
      mean = in[3];
    }
    ASSIGN_OR_RETURN(HloInstruction * mean_b, e.AlongFeatures(mean));
    ASSIGN_OR_RETURN(HloInstruction * diff, e.Binary(HloOpcode::kSubtract, x, mean_b));
    if (bn->opcode() == HloOpcode::kBatchNormTraining) {
      ASSIGN_OR_RETURN(HloInstruction * square, e.Binary(HloOpcode::kMultiply, diff, diff));
      ASSIGN_OR_RETURN(HloInstruction * sum_square, e.SumPerFeature(square));
      ASSIGN_OR_RETURN(var, e.MeanOf(sum_square));
    } else {
      var = in[4];
    }
    ASSIGN_OR_RETURN(HloInstruction * var_eps, e.VarPlusEps(var, epsilon));
    ASSIGN_OR_RETURN(HloInstruction * rsqrt, e.Op(HloOpcode::kRsqrt, var_eps->shape(), {var_eps}));
    ASSIGN_OR_RETURN(HloInstruction * factor, e.Binary(HloOpcode::kMultiply, scale, rsqrt));
    ASSIGN_OR_RETURN(HloInstruction * factor_b, e.AlongFeatures(factor));
    ASSIGN_OR_RETURN(HloInstruction * offset_b, e.AlongFeatures(in[2]));
    ASSIGN_OR_RETURN(HloInstruction * scaled, e.Binary(HloOpcode::kMultiply, diff, factor_b));
    ASSIGN_OR_RETURN(HloInstruction * y, e.Binary(HloOpcode::kAdd, scaled, offset_b));
    ASSIGN_OR_RETURN(y, e.ToType(y));
    if (bn->opcode() == HloOpcode::kBatchNormInference) {
      result = y;
      *result->mutable_shape() = bn->shape();
    } else {
      ASSIGN_OR_RETURN(mean, e.ToType(mean));
      ASSIGN_OR_RETURN(var, e.ToType(var));
      ASSIGN_OR_RETURN(result, Tuple(computation, names, bn, {y, mean, var}));
    }
  } else {
    HloInstruction* mean = in[2];
    HloInstruction* var = in[3];
    HloInstruction* dy = in[4];
    ASSIGN_OR_RETURN(HloInstruction * mean_b, e.AlongFeatures(mean));
    ASSIGN_OR_RETURN(HloInstruction * diff, e.Binary(HloOpcode::kSubtract, x, mean_b));
    ASSIGN_OR_RETURN(HloInstruction * grad_offset, e.SumPerFeature(dy));
    ASSIGN_OR_RETURN(HloInstruction * dy_diff, e.Binary(HloOpcode::kMultiply, dy, diff));
    ASSIGN_OR_RETURN(HloInstruction * s, e.SumPerFeature(dy_diff));
    ASSIGN_OR_RETURN(HloInstruction * var_eps, e.VarPlusEps(var, epsilon));
    ASSIGN_OR_RETURN(HloInstruction * rsqrt, e.Op(HloOpcode::kRsqrt, var_eps->shape(), {var_eps}));
    ASSIGN_OR_RETURN(HloInstruction * grad_scale, e.Binary(HloOpcode::kMultiply, s, rsqrt));
    ASSIGN_OR_RETURN(HloInstruction * d, e.MeanOf(grad_offset));
    ASSIGN_OR_RETURN(HloInstruction * s_mean, e.MeanOf(s));
    ASSIGN_OR_RETURN(HloInstruction * c, e.Binary(HloOpcode::kDivide, s_mean, var_eps));
    ASSIGN_OR_RETURN(HloInstruction * d_b, e.AlongFeatures(d));
    ASSIGN_OR_RETURN(HloInstruction * c_b, e.AlongFeatures(c));
    ASSIGN_OR_RETURN(HloInstruction * c_diff, e.Binary(HloOpcode::kMultiply, c_b, diff));
    ASSIGN_OR_RETURN(HloInstruction * centered, e.Binary(HloOpcode::kSubtract, dy, d_b));
    ASSIGN_OR_RETURN(HloInstruction * inner, e.Binary(HloOpcode::kSubtract, centered, c_diff));
    ASSIGN_OR_RETURN(HloInstruction * factor, e.Binary(HloOpcode::kMultiply, scale, rsqrt));
    ASSIGN_OR_RETURN(HloInstruction * factor_b, e.AlongFeatures(factor));
    ASSIGN_OR_RETURN(HloInstruction * dx, e.Binary(HloOpcode::kMultiply, factor_b, inner));
    ASSIGN_OR_RETURN(dx, e.ToType(dx));
    ASSIGN_OR_RETURN(grad_scale, e.ToType(grad_scale));
    ASSIGN_OR_RETURN(grad_offset, e.ToType(grad_offset));
    ASSIGN_OR_RETURN(result, Tuple(computation, names, bn, {dx, grad_scale, grad_offset}));
  }
  return ReplaceInstruction(bn, result);
}

}  // namespace

absl::StatusOr<bool> BatchNormExpander::Run(HloModule* module) {
  bool changed = false;
  for (HloOpcode opcode :
       {HloOpcode::kBatchNormTraining, HloOpcode::kBatchNormInference, HloOpcode::kBatchNormGrad}) {
    ASSIGN_OR_RETURN(bool c, RewriteEach(module, opcode, Expand));
    changed |= c;
  }
  return changed;
}

}  // namespace xla
