#include "backends/cpu/codegen/sort_emitter.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/elemental_ir_emitter.h"
#include "backends/cpu/codegen/ir_emitter_internal.h"
#include "backends/cpu/codegen/parallel_loop_emitter.h"
#include "backends/cpu/codegen/scatter_emitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

using namespace ir_emitter_internal;  // NOLINT: the emitter's own helpers

absl::StatusOr<llvm::Function*> SortEmitter::EmitComparator(const HloInstruction& hlo) {
  const HloComputation& comparator = *hlo.to_apply();
  const int64_t n = hlo.operand_count();
  llvm::Type* ptr = b_.getPtrTy();
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr}, false);
  llvm::Function* fn = llvm::Function::Create(type, llvm::GlobalValue::PrivateLinkage,
                                              hlo.name() + ".comparator", module_);
  fn->setDoesNotThrow();
  llvm::IRBuilderBase::InsertPointGuard guard(b_);
  b_.SetInsertPoint(llvm::BasicBlock::Create(module_->getContext(), "entry", fn));
  // No buffers: everything the comparator reads is one of its parameters.
  ElementalIrEmitter elemental(ctx_, [](const HloInstruction*) -> llvm::Value* { return nullptr; });
  std::vector<llvm::Value*> args;
  for (int64_t p = 0; p < 2 * n; ++p) {
    llvm::Value* address = b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, fn->getArg(1), p));
    const Shape scalar = ShapeUtil::MakeScalarShape(hlo.operand(p / 2)->shape().element_type());
    args.push_back(elemental.LoadElement(address, scalar, {}));
  }
  ASSIGN_OR_RETURN(llvm::Value * less, elemental.EmitScalarComputation(comparator, args, /*reassociate=*/false));
  if (less->getType() != b_.getInt1Ty()) {
    return Internal("CPU backend: %s: the comparator does not give a pred", hlo.name());
  }
  b_.CreateStore(b_.CreateZExt(less, b_.getInt8Ty()), fn->getArg(0));
  b_.CreateRetVoid();
  return fn;
}

absl::Status SortEmitter::EmitSort(const HloInstruction& hlo) {
  const int64_t n = hlo.operand_count();
  if (n < 1 || hlo.to_apply() == nullptr || hlo.dimensions().size() != 1 ||
      (n > 1 && (!hlo.shape().IsTuple() || hlo.shape().tuple_shapes_size() != n))) {
    return InvalidArgument("CPU backend: %s: malformed sort", hlo.name());
  }
  auto result_shape = [&hlo](int64_t i) -> const Shape& {
    return hlo.shape().IsTuple() ? hlo.shape().tuple_shapes(i) : hlo.shape();
  };
  const int64_t dim = hlo.dimensions(0);
  if (dim < 0 || dim >= result_shape(0).rank()) return InvalidArgument("CPU backend: %s: bad sort dimension", hlo.name());
  // The operands into the results (never the operands' buffers), sorted there.
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> out, ScatterEmitter(ctx_, buffers_).CopyOperandsIntoResults(hlo, n));
  const int64_t length = result_shape(0).dimensions(dim);
  if (ShapeUtil::HasZeroElements(result_shape(0)) || length <= 1) return absl::OkStatus();
  ASSIGN_OR_RETURN(llvm::Function * less_than, EmitComparator(hlo));

  // Each result's element size and its stride along the sort dimension in
  // its own layout, as constant arrays.
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* ptr = b_.getPtrTy();
  std::vector<llvm::Constant*> strides, sizes;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& result = result_shape(i);
    const int64_t bytes = primitive_util::ByteWidth(result.element_type());
    int64_t stride = 1;
    for (int64_t d : result.layout().minor_to_major()) {
      if (d == dim) break;
      stride *= result.dimensions(d);
    }
    strides.push_back(b_.getInt64(stride * bytes));
    sizes.push_back(b_.getInt64(bytes));
  }
  auto constant_array = [&](const std::vector<llvm::Constant*>& values, const std::string& name) {
    auto* type = llvm::ArrayType::get(i64, values.size());
    return new llvm::GlobalVariable(*module_, type, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                    llvm::ConstantArray::get(type, values), name);
  };
  llvm::GlobalVariable* byte_strides = constant_array(strides, hlo.name() + ".strides");
  llvm::GlobalVariable* element_bytes = constant_array(sizes, hlo.name() + ".element_bytes");
  llvm::FunctionCallee sort_slice = module_->getOrInsertFunction(
      "__xla_cpu_runtime_SortSlice", llvm::FunctionType::get(b_.getVoidTy(), {i64, i64, ptr, ptr, ptr, ptr, ptr}, false));

  // One item per slice: result 0's shape with the sort dimension of size 1.
  Shape slices = result_shape(0);
  (*slices.mutable_dimensions())[dim] = 1;
  ElementCost cost;
  const double compares = static_cast<double>(length) * std::log2(static_cast<double>(length));
  cost.cycles = compares * 10;
  cost.bytes_loaded = cost.bytes_stored = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double bytes = static_cast<double>(length * primitive_util::ByteWidth(result_shape(i).element_type()));
    cost.bytes_loaded += 2 * bytes;
    cost.bytes_stored += bytes;
  }
  return EmitParallelLoopNest(ctx_, slices, hlo.name() + ".slices", cost, static_cast<int64_t>(compares),
      [&](const IrIndex& index, const ValueRemap& remap) -> absl::Status {
        ElementalIrEmitter local(ctx_, [](const HloInstruction*) -> llvm::Value* { return nullptr; });
        // The slices' starts, in a stack array of the function this runs in.
        llvm::Function* fn = b_.GetInsertBlock()->getParent();
        llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().getFirstInsertionPt());
        llvm::AllocaInst* bases = entry.CreateAlloca(ptr, b_.getInt64(n), hlo.name() + ".bases");
        for (int64_t i = 0; i < n; ++i) {
          const Shape& result = result_shape(i);
          llvm::Type* storage = IrStorageType(result.element_type(), b_.getContext());
          llvm::Value* start = b_.CreateInBoundsGEP(storage, remap(out[i]), {local.LinearIndex(result, index)});
          b_.CreateStore(start, b_.CreateConstInBoundsGEP1_64(ptr, bases, i));
        }
        b_.CreateCall(sort_slice, {b_.getInt64(length), b_.getInt64(n), bases, byte_strides, element_bytes,
                                   less_than, ctx_.StopFlagArgument()});
        return absl::OkStatus();
      });
}

}  // namespace cpu
}  // namespace xla
