#include "backends/cpu/codegen/custom_call_emitter.h"

#include <cstdint>
#include <string>

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {
namespace {

absl::Status CheckRowMajor(const HloInstruction& hlo, const Shape& shape) {
  std::vector<Shape> leaves;
  CustomCallArrayLeaves(shape, &leaves);
  for (const Shape& s : leaves) {
    if (!ShapeUtil::HasDefaultLayout(s)) {
      return Unimplemented("CPU backend: %s: custom-call on %s, which is not row-major (handlers see row-major "
                           "buffers)",
                           hlo.name(), s.ToString(true));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CustomCallEmitter::AppendLeaves(const HloInstruction* hlo, std::vector<llvm::Value*>* out) {
  if (hlo->shape().IsTuple()) {
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> leaves, buffers_.LeafAddressesOf(hlo));
    out->insert(out->end(), leaves.begin(), leaves.end());
  } else if (hlo->shape().IsArray()) {
    ASSIGN_OR_RETURN(llvm::Value * address, buffers_.AddressOf(hlo));
    out->push_back(address);
  }
  return absl::OkStatus();
}

llvm::Value* CustomCallEmitter::PointerArray(const std::vector<llvm::Value*>& pointers, const std::string& name) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Value* array =
      entry.CreateAlloca(llvm::ArrayType::get(ptr, std::max<size_t>(pointers.size(), 1)), nullptr, name);
  for (size_t i = 0; i < pointers.size(); ++i) {
    b_.CreateStore(pointers[i], b_.CreateConstInBoundsGEP1_64(ptr, array, i));
  }
  return array;
}

absl::Status CustomCallEmitter::Emit(const HloInstruction& hlo) {
  ASSIGN_OR_RETURN(std::unique_ptr<CustomCallInvocation> call, CustomCallInvocation::Bind(hlo));
  RETURN_IF_ERROR(CheckRowMajor(hlo, hlo.shape()));
  std::vector<llvm::Value*> operands, results;
  for (const HloInstruction* o : hlo.operands()) {
    RETURN_IF_ERROR(CheckRowMajor(hlo, o->shape()));
    RETURN_IF_ERROR(AppendLeaves(o, &operands));
  }
  RETURN_IF_ERROR(AppendLeaves(&hlo, &results));
  if (operands.size() != call->operand_leaves().size() || results.size() != call->result_leaves().size()) {
    return Internal("CPU backend: %s: custom-call leaves do not match its shapes", hlo.name());
  }
  llvm::Type* ptr = b_.getPtrTy();
  // The invocation lives as long as the executable, so its address is a
  // constant of the code (never a symbol looked up by name).
  llvm::Constant* invocation = llvm::ConstantExpr::getIntToPtr(
      b_.getInt64(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(call.get()))), ptr);
  llvm::FunctionCallee fn = module_->getOrInsertFunction(
      "__xla_cpu_runtime_CustomCall", llvm::FunctionType::get(b_.getInt1Ty(), {ptr, ptr, ptr, ptr}, false));
  llvm::Value* ok = b_.CreateCall(fn, {control_, invocation, PointerArray(operands, hlo.name() + ".operands"),
                                       PointerArray(results, hlo.name() + ".results")});
  llvm::Function* function = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* next = llvm::BasicBlock::Create(module_->getContext(), hlo.name() + ".ok", function);
  b_.CreateCondBr(ok, next, abort_block_());
  b_.SetInsertPoint(next);
  invocations_->push_back(std::move(call));
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace xla
