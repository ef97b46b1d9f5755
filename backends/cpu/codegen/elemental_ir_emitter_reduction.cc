// ElementalIrEmitter, elements computed by inner loops or computations
// (elemental_ir_emitter.h): reduce and variadic reduce, reduce-window
// (straight-line or looped windows), dot and convolution elements, and
// scalar computations applied to register values (reducers, map).
#include "backends/cpu/codegen/elemental_ir_emitter.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/complex_ir_emitter.h"
#include "backends/cpu/codegen/elemental_ir_emitter_internal.h"
#include "backends/cpu/transforms/matmul_plan.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

using namespace elemental_internal;  // NOLINT: the elemental emitter's own helpers

namespace {

// True when `computation` is a single float add/multiply of its two
// parameters: its reduction may then be reassociated (vector accumulators).
bool IsReassociableReducer(const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr || computation.num_parameters() != 2) return false;
  if (root->opcode() != HloOpcode::kAdd && root->opcode() != HloOpcode::kMultiply) return false;
  return root->operand(0)->opcode() == HloOpcode::kParameter && root->operand(1)->opcode() == HloOpcode::kParameter;
}

}  // namespace

absl::StatusOr<std::vector<llvm::Value*>> ElementalIrEmitter::EmitVariadicReduceElement(const HloInstruction* hlo,
                                                                                      const IrIndex& index) {
  const int64_t n = hlo->operand_count() / 2;
  if (n < 1 || hlo->operand_count() != 2 * n) return NotImplemented(*hlo, "reduce with an odd operand count");
  const Shape& in_shape = hlo->operand(0)->shape();
  std::vector<bool> reduced(in_shape.rank(), false);
  for (int64_t d : hlo->dimensions()) reduced[d] = true;
  std::vector<int64_t> red_sizes;
  for (int d = 0; d < in_shape.rank(); ++d) {
    if (reduced[d]) red_sizes.push_back(in_shape.dimensions(d));
  }
  std::vector<llvm::AllocaInst*> accs;
  for (int64_t i = 0; i < n; ++i) {
    const PrimitiveType type = hlo->operand(i)->shape().element_type();
    ASSIGN_OR_RETURN(llvm::Value * init, EmitElement(hlo->operand(n + i), {}));
    accs.push_back(EntryAlloca(IrValueType(type, b_->getContext()), absl::StrCat("reduce.acc", i)));
    b_->CreateStore(init, accs.back());
  }
  // Row-major order over the reduced dimensions, as the evaluator folds.
  std::vector<int64_t> order(red_sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;
  RETURN_IF_ERROR(EmitLoopNest(*ctx_, red_sizes, order, "reduce.inner", [&](const IrIndex& red) -> absl::Status {
    IrIndex full(in_shape.rank());
    size_t kept = 0, r = 0;
    for (int d = 0; d < in_shape.rank(); ++d) full[d] = reduced[d] ? red[r++] : index[kept++];
    std::vector<llvm::Value*> args(2 * n);
    for (int64_t i = 0; i < n; ++i) {
      args[i] = b_->CreateLoad(accs[i]->getAllocatedType(), accs[i]);
      ASSIGN_OR_RETURN(args[n + i], EmitElement(hlo->operand(i), full));
    }
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> v, EmitScalarComputationValues(*hlo->to_apply(), args, false));
    if (static_cast<int64_t>(v.size()) != n) return NotImplemented(*hlo, "reducer not returning N values");
    for (int64_t i = 0; i < n; ++i) b_->CreateStore(v[i], accs[i]);
    return absl::OkStatus();
  }));
  std::vector<llvm::Value*> out;
  for (llvm::AllocaInst* acc : accs) out.push_back(b_->CreateLoad(acc->getAllocatedType(), acc));
  return out;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitReduceElement(const HloInstruction* hlo, const IrIndex& index) {
  if (hlo->operand_count() != 2) return NotImplemented(*hlo, "variadic reduce as a fused value");
  const HloInstruction* operand = hlo->operand(0);
  const Shape& in_shape = operand->shape();
  const PrimitiveType type = hlo->shape().element_type();
  std::vector<bool> reduced(in_shape.rank(), false);
  for (int64_t d : hlo->dimensions()) reduced[d] = true;
  std::vector<int64_t> red_dims, red_sizes;
  for (int d = 0; d < in_shape.rank(); ++d) {
    if (reduced[d]) {
      red_dims.push_back(d);
      red_sizes.push_back(in_shape.dimensions(d));
    }
  }
  ASSIGN_OR_RETURN(llvm::Value * init, EmitElement(hlo->operand(1), {}));
  llvm::AllocaInst* acc = EntryAlloca(IrValueType(type, b_->getContext()), "reduce.acc");
  b_->CreateStore(init, acc);
  // Row-major order over the reduced dimensions, as the evaluator folds.
  std::vector<int64_t> order(red_dims.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;
  const bool reassociate = IsFloat(type) && !IsSmallFloat(type) && IsReassociableReducer(*hlo->to_apply());
  RETURN_IF_ERROR(EmitLoopNest(*ctx_, red_sizes, order, "reduce.inner", [&](const IrIndex& red) -> absl::Status {
    IrIndex full(in_shape.rank());
    size_t kept = 0, r = 0;
    for (int d = 0; d < in_shape.rank(); ++d) full[d] = reduced[d] ? red[r++] : index[kept++];
    ASSIGN_OR_RETURN(llvm::Value * x, EmitElement(operand, full));
    llvm::Value* a = b_->CreateLoad(acc->getAllocatedType(), acc);
    ASSIGN_OR_RETURN(llvm::Value * v, EmitScalarComputation(*hlo->to_apply(), {a, x}, reassociate));
    b_->CreateStore(v, acc);
    return absl::OkStatus();
  }));
  return b_->CreateLoad(acc->getAllocatedType(), acc);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitReduceWindowElement(const HloInstruction* hlo,
                                                                         const IrIndex& index) {
  if (hlo->operand_count() != 2) return NotImplemented(*hlo, "variadic reduce-window as a fused value");
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> v, EmitVariadicReduceWindowElement(hlo, index));
  return v.at(0);
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalIrEmitter::EmitVariadicReduceWindowElement(
    const HloInstruction* hlo, const IrIndex& index) {
  const int64_t n = hlo->operand_count() / 2;
  const Shape& in_shape = hlo->operand(0)->shape();
  const Window& window = hlo->attributes().window();
  const int64_t rank = in_shape.rank();
  std::vector<int64_t> sizes(rank), order(rank);
  for (int64_t d = 0; d < rank; ++d) {
    sizes[d] = window.dimensions(d).size();
    order[d] = rank - 1 - d;
  }
  std::vector<llvm::Value*> inits(n);
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(inits[i], EmitElement(hlo->operand(n + i), {}));
  }
  const bool empty = ShapeUtil::HasZeroElements(in_shape);
  // Folds the operands at window position `k` into `acc`. Row-major over
  // the window, as the evaluator folds; padding and base dilation holes hold
  // the init values. The operands are read at an index clamped into range
  // and replaced outside, so there are no branches.
  auto fold = [&](const IrIndex& k, std::vector<llvm::Value*>& acc) -> absl::Status {
    llvm::Value* inside = b_->getTrue();
    IrIndex in(rank);
    for (int64_t d = 0; d < rank; ++d) {
      const WindowDimension& w = window.dimensions(d);
      llvm::Value* pos = b_->CreateAdd(
          b_->CreateMul(index[d], b_->getInt64(w.stride())),
          b_->CreateSub(b_->CreateMul(k[d], b_->getInt64(w.window_dilation())), b_->getInt64(w.padding_low())));
      inside = b_->CreateAnd(inside, b_->CreateICmpSGE(pos, b_->getInt64(0)));
      if (w.base_dilation() > 1) {
        inside = b_->CreateAnd(inside, b_->CreateICmpEQ(b_->CreateSRem(pos, b_->getInt64(w.base_dilation())),
                                                        b_->getInt64(0)));
        pos = b_->CreateSDiv(pos, b_->getInt64(w.base_dilation()));
      }
      const int64_t last = in_shape.dimensions(d) - 1;
      inside = b_->CreateAnd(inside, b_->CreateICmpSLE(pos, b_->getInt64(last)));
      llvm::Value* low = b_->CreateSelect(b_->CreateICmpSGT(pos, b_->getInt64(0)), pos, b_->getInt64(0));
      in[d] = b_->CreateSelect(b_->CreateICmpSLT(low, b_->getInt64(last)), low, b_->getInt64(last));
    }
    std::vector<llvm::Value*> args(2 * n);
    for (int64_t i = 0; i < n; ++i) {
      args[i] = acc[i];
      args[n + i] = inits[i];
      if (!empty) {
        ASSIGN_OR_RETURN(llvm::Value * loaded, EmitElement(hlo->operand(i), in));
        args[n + i] = b_->CreateSelect(inside, loaded, inits[i]);
      }
    }
    ASSIGN_OR_RETURN(acc, EmitScalarComputationValues(*hlo->to_apply(), args, /*reassociate=*/false));
    if (static_cast<int64_t>(acc.size()) != n) return Internal("CPU backend: %s: reducer arity mismatch", hlo->name());
    return absl::OkStatus();
  };
  int64_t positions = 1;
  for (int64_t size : sizes) positions *= size;
  if (positions <= kMaxStraightLineWindowPositions) {
    // Small windows (pooling's 3x3) straight-line: the loop around the
    // element, over the features, is then innermost and vectorizes (a loop
    // over the window there kept it scalar: 3x3/2 max pooling of
    // [8,112,112,64] took 12 ms).
    std::vector<llvm::Value*> acc = inits;
    std::vector<int64_t> k(rank, 0);
    for (int64_t p = 0; p < positions; ++p) {
      IrIndex k_index(rank);
      for (int64_t d = 0; d < rank; ++d) k_index[d] = b_->getInt64(k[d]);
      RETURN_IF_ERROR(fold(k_index, acc));
      for (int64_t d = rank - 1; d >= 0 && ++k[d] == sizes[d]; --d) k[d] = 0;  // row-major successor
    }
    return acc;
  }
  std::vector<llvm::AllocaInst*> accs(n);
  for (int64_t i = 0; i < n; ++i) {
    accs[i] = EntryAlloca(inits[i]->getType(), "window.acc");
    b_->CreateStore(inits[i], accs[i]);
  }
  RETURN_IF_ERROR(EmitLoopNest(*ctx_, sizes, order, "window", [&](const IrIndex& k) -> absl::Status {
    std::vector<llvm::Value*> acc(n);
    for (int64_t i = 0; i < n; ++i) acc[i] = b_->CreateLoad(accs[i]->getAllocatedType(), accs[i]);
    RETURN_IF_ERROR(fold(k, acc));
    for (int64_t i = 0; i < n; ++i) b_->CreateStore(acc[i], accs[i]);
    return absl::OkStatus();
  }));
  std::vector<llvm::Value*> out(n);
  for (int64_t i = 0; i < n; ++i) out[i] = b_->CreateLoad(accs[i]->getAllocatedType(), accs[i]);
  return out;
}

llvm::Value* ElementalIrEmitter::MultiplyAdd(PrimitiveType type, llvm::Value* acc, llvm::Value* l, llvm::Value* r) {
  if (type == PRED) return b_->CreateOr(acc, b_->CreateAnd(l, r));
  if (IsComplex(type)) {
    ComplexIrEmitter complex(b_, module_);
    return complex.Add(acc, complex.Multiply(type, l, r));
  }
  if (IsFloat(type)) return b_->CreateFAdd(acc, b_->CreateFMul(l, r));
  return b_->CreateAdd(acc, b_->CreateMul(l, r));
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitDotElement(const HloInstruction* hlo, const IrIndex& index) {
  const auto& dnums = hlo->attributes().dot_dimension_numbers();
  const HloInstruction* lhs = hlo->operand(0);
  const HloInstruction* rhs = hlo->operand(1);
  const PrimitiveType type = hlo->shape().element_type();
  const std::vector<int64_t> lhs_free =
      DotFreeDimensions(lhs->shape().rank(), dnums.lhs_batch_dimensions(), dnums.lhs_contracting_dimensions());
  const std::vector<int64_t> rhs_free =
      DotFreeDimensions(rhs->shape().rank(), dnums.rhs_batch_dimensions(), dnums.rhs_contracting_dimensions());
  const int nb = dnums.lhs_batch_dimensions_size();
  const int nc = dnums.lhs_contracting_dimensions_size();
  IrIndex li(lhs->shape().rank()), ri(rhs->shape().rank());
  for (int i = 0; i < nb; ++i) {
    li[dnums.lhs_batch_dimensions(i)] = index[i];
    ri[dnums.rhs_batch_dimensions(i)] = index[i];
  }
  for (size_t i = 0; i < lhs_free.size(); ++i) li[lhs_free[i]] = index[nb + i];
  for (size_t i = 0; i < rhs_free.size(); ++i) ri[rhs_free[i]] = index[nb + lhs_free.size() + i];
  std::vector<int64_t> sizes(nc), order(nc);
  for (int i = 0; i < nc; ++i) {
    sizes[i] = lhs->shape().dimensions(dnums.lhs_contracting_dimensions(i));
    order[i] = nc - 1 - i;
  }
  llvm::AllocaInst* acc = EntryAlloca(IrValueType(type, b_->getContext()), "dot.acc");
  b_->CreateStore(Zero(type), acc);
  RETURN_IF_ERROR(EmitLoopNest(*ctx_, sizes, order, "dot.k", [&](const IrIndex& k) -> absl::Status {
    for (int i = 0; i < nc; ++i) {
      li[dnums.lhs_contracting_dimensions(i)] = k[i];
      ri[dnums.rhs_contracting_dimensions(i)] = k[i];
    }
    ASSIGN_OR_RETURN(llvm::Value * l, EmitElement(lhs, li));
    ASSIGN_OR_RETURN(llvm::Value * r, EmitElement(rhs, ri));
    l = EmitConvert(lhs->shape().element_type(), type, l);
    r = EmitConvert(rhs->shape().element_type(), type, r);
    // The sum (only) of real floats may be reassociated, so LLVM vectorizes
    // it (the runtime's products sum in their own order too); integer sums
    // are exact in any order anyway.
    llvm::IRBuilder<>::FastMathFlagGuard keep_flags(*b_);
    if (IsFloat(type)) {
      llvm::FastMathFlags reassociate;
      reassociate.setAllowReassoc();
      b_->setFastMathFlags(reassociate);
    }
    b_->CreateStore(MultiplyAdd(type, b_->CreateLoad(acc->getAllocatedType(), acc), l, r), acc);
    return absl::OkStatus();
  }));
  return b_->CreateLoad(acc->getAllocatedType(), acc);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitConvolutionElement(const HloInstruction* hlo,
                                                                        const IrIndex& index) {
  const HloInstruction* lhs = hlo->operand(0);
  const HloInstruction* rhs = hlo->operand(1);
  const PrimitiveType type = hlo->shape().element_type();
  const HloInstructionProto& attrs = hlo->attributes();
  const ConvolutionDimensionNumbers& dnums = attrs.convolution_dimension_numbers();
  const int64_t spatial = dnums.input_spatial_dimensions_size();
  const int64_t fgc = std::max<int64_t>(attrs.feature_group_count(), 1);
  const int64_t bgc = std::max<int64_t>(attrs.batch_group_count(), 1);
  const int64_t kernel_in = rhs->shape().dimensions(dnums.kernel_input_feature_dimension());
  const int64_t kernel_out = rhs->shape().dimensions(dnums.kernel_output_feature_dimension());
  const int64_t batch_per_group = lhs->shape().dimensions(dnums.input_batch_dimension()) / bgc;

  // Output feature oz reads feature group oz / (kernel_out / fgc) and batch
  // group oz / (kernel_out / bgc), as the evaluator does.
  llvm::Value* oz = index[dnums.output_feature_dimension()];
  llvm::Value* feature_group = b_->CreateUDiv(oz, b_->getInt64(kernel_out / fgc));
  llvm::Value* batch_group = b_->CreateUDiv(oz, b_->getInt64(kernel_out / bgc));
  IrIndex li(lhs->shape().rank()), ri(rhs->shape().rank());
  li[dnums.input_batch_dimension()] = b_->CreateAdd(b_->CreateMul(batch_group, b_->getInt64(batch_per_group)),
                                                    index[dnums.output_batch_dimension()]);
  llvm::Value* feature_base = b_->CreateMul(feature_group, b_->getInt64(kernel_in));
  ri[dnums.kernel_output_feature_dimension()] = oz;

  std::vector<int64_t> sizes(spatial), order(spatial);
  for (int64_t i = 0; i < spatial; ++i) {
    sizes[i] = rhs->shape().dimensions(dnums.kernel_spatial_dimensions(i));
    order[i] = spatial - 1 - i;
  }
  // Padding and lhs-dilation holes read as zeros that still take part in
  // the products (0 x inf is NaN), as in the evaluator: the lhs index is
  // clamped into range and the loaded value replaced by zero outside.
  const bool empty_lhs = ShapeUtil::ElementsIn(lhs->shape()) == 0;
  // Mixed precision (s32 from s8, f32 from bf16): operands are converted to
  // the accumulation type, f32 for f16/bf16 results, as in the evaluator.
  const PrimitiveType acc_type = IsSmallFloat(type) ? F32 : type;
  llvm::AllocaInst* acc = EntryAlloca(IrValueType(acc_type, b_->getContext()), "conv.acc");
  b_->CreateStore(Zero(acc_type), acc);
  RETURN_IF_ERROR(EmitLoopNest(*ctx_, sizes, order, "conv.k", [&](const IrIndex& k) -> absl::Status {
    llvm::Value* inside = b_->getTrue();
    for (int64_t i = 0; i < spatial; ++i) {
      const WindowDimension& w = attrs.window().dimensions(i);
      llvm::Value* pos = b_->CreateAdd(
          b_->CreateMul(index[dnums.output_spatial_dimensions(i)], b_->getInt64(w.stride())),
          b_->CreateSub(b_->CreateMul(k[i], b_->getInt64(w.window_dilation())), b_->getInt64(w.padding_low())));
      inside = b_->CreateAnd(inside, b_->CreateICmpSGE(pos, b_->getInt64(0)));
      if (w.base_dilation() > 1) {
        inside = b_->CreateAnd(inside, b_->CreateICmpEQ(b_->CreateSRem(pos, b_->getInt64(w.base_dilation())),
                                                        b_->getInt64(0)));
        pos = b_->CreateSDiv(pos, b_->getInt64(w.base_dilation()));
      }
      const int64_t in_size = lhs->shape().dimensions(dnums.input_spatial_dimensions(i));
      inside = b_->CreateAnd(inside, b_->CreateICmpSLT(pos, b_->getInt64(in_size)));
      llvm::Value* low = b_->CreateSelect(b_->CreateICmpSGT(pos, b_->getInt64(0)), pos, b_->getInt64(0));
      li[dnums.input_spatial_dimensions(i)] =
          b_->CreateSelect(b_->CreateICmpSLT(low, b_->getInt64(in_size - 1)), low, b_->getInt64(in_size - 1));
      ri[dnums.kernel_spatial_dimensions(i)] =
          w.window_reversal() ? b_->CreateSub(b_->getInt64(sizes[i] - 1), k[i]) : k[i];
    }
    return EmitForLoop(*ctx_, kernel_in, "conv.iz", [&](llvm::Value* iz) -> absl::Status {
      li[dnums.input_feature_dimension()] = b_->CreateAdd(feature_base, iz);
      ri[dnums.kernel_input_feature_dimension()] = iz;
      llvm::Value* l = Zero(acc_type);
      if (!empty_lhs) {
        ASSIGN_OR_RETURN(llvm::Value * loaded, EmitElement(lhs, li));
        l = b_->CreateSelect(inside, EmitConvert(lhs->shape().element_type(), acc_type, loaded), Zero(acc_type));
      }
      ASSIGN_OR_RETURN(llvm::Value * r, EmitElement(rhs, ri));
      r = EmitConvert(rhs->shape().element_type(), acc_type, r);
      b_->CreateStore(MultiplyAdd(acc_type, b_->CreateLoad(acc->getAllocatedType(), acc), l, r), acc);
      return absl::OkStatus();
    });
  }));
  return b_->CreateLoad(acc->getAllocatedType(), acc);
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitScalarComputation(const HloComputation& computation,
                                                                      absl::Span<llvm::Value* const> args,
                                                                      bool reassociate) {
  if (computation.root_instruction()->shape().IsTuple()) {
    return NotImplemented(*computation.root_instruction(), "tuple root in a scalar computation");
  }
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> v, EmitScalarComputationValues(computation, args, reassociate));
  return v.at(0);
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalIrEmitter::EmitScalarComputationValues(
    const HloComputation& computation, absl::Span<llvm::Value* const> args, bool reassociate) {
  absl::flat_hash_map<const HloInstruction*, llvm::Value*> values;
  // Tuples inside the computation are plumbing: the tuple instruction each
  // tuple-shaped value stands for (get-tuple-element resolves through it).
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> tuple_of;
  const HloInstruction* root = computation.root_instruction();
  for (const HloInstruction* hlo : computation.instructions()) {
    const Shape& shape = hlo->shape();
    if (hlo == root && hlo->opcode() == HloOpcode::kTuple) continue;
    if (hlo->opcode() == HloOpcode::kTuple) {
      tuple_of[hlo] = hlo;
      continue;
    }
    if (hlo->opcode() == HloOpcode::kGetTupleElement) {
      auto it = tuple_of.find(hlo->operand(0));
      if (it == tuple_of.end() || hlo->tuple_index() < 0 || hlo->tuple_index() >= it->second->operand_count()) {
        return NotImplemented(*hlo, "get-tuple-element of this value in a reducer");
      }
      const HloInstruction* element = it->second->operand(hlo->tuple_index());
      if (element->shape().IsTuple()) {
        tuple_of[hlo] = tuple_of.at(element);
      } else {
        values[hlo] = values.at(element);
      }
      continue;
    }
    if (!ShapeUtil::IsScalar(shape)) return NotImplemented(*hlo, "non-scalar instruction in a reducer");
    RETURN_IF_ERROR(CheckSupportedElementType(shape.element_type(), *hlo));
    std::vector<llvm::Value*> ops;
    for (const HloInstruction* o : hlo->operands()) ops.push_back(values.at(o));
    const HloOpcode op = hlo->opcode();
    llvm::Value* v = nullptr;
    if (op == HloOpcode::kParameter) {
      v = args[hlo->parameter_number()];
    } else if (op == HloOpcode::kConstant) {
      v = EmitLiteralElement(hlo->literal(), 0);
    } else if (op == HloOpcode::kConvert) {
      v = EmitConvert(hlo->operand(0)->shape().element_type(), shape.element_type(), ops[0]);
    } else if (op == HloOpcode::kCompare) {
      ASSIGN_OR_RETURN(v, EmitCompare(*hlo, hlo->operand(0)->shape().element_type(), ops[0], ops[1]));
    } else if (op == HloOpcode::kSelect) {
      v = b_->CreateSelect(ops[0], ops[1], ops[2]);
    } else if (IsElementwiseUnary(op) || op == HloOpcode::kCopy) {
      if (hlo->operand(0)->shape().element_type() != shape.element_type() && op != HloOpcode::kIsFinite &&
          !IsComplexToReal(op, hlo->operand(0)->shape().element_type())) {
        return OpNotImplemented(*hlo, hlo->operand(0)->shape().element_type());
      }
      ASSIGN_OR_RETURN(v, EmitUnaryOp(*hlo, hlo->operand(0)->shape().element_type(), ops[0]));
    } else if (op == HloOpcode::kComplex) {
      ASSIGN_OR_RETURN(v, EmitComplexFromParts(*hlo, ops[0], ops[1]));
    } else if (IsElementwiseBinary(op)) {
      ASSIGN_OR_RETURN(v, EmitBinaryOp(*hlo, shape.element_type(), ops[0], ops[1], reassociate));
    } else {
      return NotImplemented(*hlo, absl::StrCat(HloOpcodeString(op), " in a reducer"));
    }
    values[hlo] = RoundToType(shape.element_type(), v);
  }
  std::vector<llvm::Value*> out;
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* o : root->operands()) {
      if (!o->shape().IsArray()) return NotImplemented(*root, "nested tuple root in a reducer");
      out.push_back(values.at(o));
    }
  } else {
    out.push_back(values.at(root));
  }
  return out;
}

absl::StatusOr<llvm::Value*> ElementalIrEmitter::EmitMapElement(const HloInstruction* hlo, const IrIndex& index) {
  const Shape& shape = hlo->shape();
  const PrimitiveType type = shape.element_type();
  const HloComputation* fn = hlo->to_apply();
  if (fn == nullptr || fn->num_parameters() != hlo->operand_count() || hlo->operand_count() == 0) {
    return InvalidArgument("CPU backend: %s: map needs one scalar parameter per operand", hlo->name());
  }
  std::vector<llvm::Value*> args;
  for (int i = 0; i < hlo->operand_count(); ++i) {
    const Shape& os = hlo->operand(i)->shape();
    const Shape& ps = fn->parameter_instruction(i)->shape();
    if (os.dimensions() != shape.dimensions() || !ShapeUtil::IsScalar(ps) || ps.element_type() != os.element_type()) {
      return InvalidArgument("CPU backend: %s: map operand %d does not match", hlo->name(), i);
    }
    ASSIGN_OR_RETURN(llvm::Value * x, EmitElement(hlo->operand(i), index));
    args.push_back(x);
  }
  if (!ShapeUtil::IsScalar(fn->root_instruction()->shape()) ||
      fn->root_instruction()->shape().element_type() != type) {
    return InvalidArgument("CPU backend: %s: map computation result does not match", hlo->name());
  }
  return EmitScalarComputation(*fn, args, /*reassociate=*/false);
}

}  // namespace cpu
}  // namespace xla
