#include "backends/cpu/codegen/streaming_stores.h"

#include <vector>

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Metadata.h"

namespace xla {
namespace cpu {

namespace {
constexpr char kStreamingKind[] = "xla.streaming";
}  // namespace

void MarkStreamingBuffer(llvm::Value* base) {
  auto* inst = llvm::dyn_cast_or_null<llvm::Instruction>(base);
  if (inst == nullptr) return;
  inst->setMetadata(kStreamingKind, llvm::MDNode::get(inst->getContext(), {}));
}

void CopyStreamingMark(llvm::Value* base, llvm::Value* copy) {
  auto* from = llvm::dyn_cast_or_null<llvm::Instruction>(base);
  auto* to = llvm::dyn_cast_or_null<llvm::Instruction>(copy);
  if (from == nullptr || to == nullptr) return;
  if (llvm::MDNode* node = from->getMetadata(kStreamingKind)) to->setMetadata(kStreamingKind, node);
}

bool IsStreamingBuffer(const llvm::Value* pointer) {
  const auto* base = llvm::dyn_cast<llvm::Instruction>(llvm::getUnderlyingObject(pointer));
  return base != nullptr && base->getMetadata(kStreamingKind) != nullptr;
}

int64_t MakeStreamingStoresNonTemporal(llvm::Module& module) {
  const llvm::DataLayout& layout = module.getDataLayout();
  llvm::MDNode* nontemporal = llvm::MDNode::get(
      module.getContext(), {llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                               llvm::Type::getInt32Ty(module.getContext()), 1))});
  int64_t changed = 0;
  for (llvm::Function& fn : module) {
    bool fence = false;
    for (llvm::Instruction& inst : llvm::instructions(fn)) {
      auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
      if (store == nullptr || !store->getValueOperand()->getType()->isVectorTy()) continue;
      const uint64_t bytes = layout.getTypeStoreSize(store->getValueOperand()->getType()).getFixedValue();
      // vmovntps and kin need the store's own alignment; narrower vectors
      // would be split into scalar streaming stores.
      if (bytes < 16 || store->getAlign().value() < bytes) continue;
      if (!IsStreamingBuffer(store->getPointerOperand())) continue;
      store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
      fence = true;
      ++changed;
    }
    if (!fence) continue;
    std::vector<llvm::ReturnInst*> returns;
    for (llvm::BasicBlock& block : fn) {
      if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator())) returns.push_back(ret);
    }
    for (llvm::ReturnInst* ret : returns) {
      llvm::IRBuilder<> b(ret);
      b.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {});
    }
  }
  return changed;
}

}  // namespace cpu
}  // namespace xla
