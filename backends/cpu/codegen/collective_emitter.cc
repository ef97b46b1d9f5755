#include "backends/cpu/codegen/collective_emitter.h"

#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/codegen/elemental_ir_emitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "xla/collectives/collective_ops.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// The runtime reads and writes row-major arrays.
absl::Status CheckRowMajor(const HloInstruction& hlo, const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) RETURN_IF_ERROR(CheckRowMajor(hlo, s));
    return absl::OkStatus();
  }
  if (shape.IsArray() && !ShapeUtil::HasDefaultLayout(shape)) {
    return Unimplemented("CPU backend: %s: %s with a non-row-major layout %s", hlo.name(),
                         HloOpcodeString(hlo.opcode()), shape.ToString(true));
  }
  return absl::OkStatus();
}

}  // namespace

bool CollectiveEmitter::Handles(HloOpcode opcode) {
  return IsDistributedOpcode(opcode) && opcode != HloOpcode::kAfterAll;  // a token has no code
}

absl::Status CollectiveEmitter::Emit(const HloInstruction& hlo) {
  RETURN_IF_ERROR(CheckRowMajor(hlo, hlo.shape()));
  for (const HloInstruction* o : hlo.operands()) RETURN_IF_ERROR(CheckRowMajor(hlo, o->shape()));
  switch (hlo.opcode()) {
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return EmitProcessId(hlo);
    case HloOpcode::kInfeed:
      return EmitInfeed(hlo);
    case HloOpcode::kOutfeed:
      return EmitOutfeed(hlo);
    case HloOpcode::kSend:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
      return EmitTransfer(hlo);
    case HloOpcode::kSendDone:
      return absl::OkStatus();  // the send did the work; a token has no storage
    default:
      return EmitCollective(hlo);
  }
}

std::pair<llvm::Value*, llvm::Value*> CollectiveEmitter::Description(const HloInstruction& hlo) {
  return Description(hlo, collectives::CollectiveOp::ToProto(hlo));
}

std::pair<llvm::Value*, llvm::Value*> CollectiveEmitter::Description(const HloInstruction& hlo,
                                                                     const HloInstructionProto& proto) {
  const std::string bytes = proto.SerializeAsString();
  llvm::Constant* init = llvm::ConstantDataArray::getString(module_->getContext(), bytes, /*AddNull=*/false);
  auto* global = new llvm::GlobalVariable(*module_, init->getType(), /*isConstant=*/true,
                                         llvm::GlobalValue::PrivateLinkage, init, hlo.name() + ".desc");
  return {global, b_.getInt64(static_cast<int64_t>(bytes.size()))};
}

llvm::Value* CollectiveEmitter::PointerArray(const std::vector<llvm::Value*>& pointers, const std::string& name) {
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

void CollectiveEmitter::CheckCall(llvm::Value* ok, const HloInstruction& hlo) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* next = llvm::BasicBlock::Create(module_->getContext(), hlo.name() + ".ok", fn);
  b_.CreateCondBr(ok, next, abort_block_());
  b_.SetInsertPoint(next);
}

absl::Status CollectiveEmitter::EmitProcessId(const HloInstruction& hlo) {
  ASSIGN_OR_RETURN(llvm::Value * out, buffers_.AddressOf(&hlo));
  llvm::FunctionCallee fn = module_->getOrInsertFunction(
      "__xla_cpu_runtime_ProcessId", llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy(), b_.getInt32Ty()}, false));
  llvm::Value* id = b_.CreateCall(fn, {control_, b_.getInt32(hlo.opcode() == HloOpcode::kReplicaId ? 0 : 1)});
  b_.CreateStore(id, out);
  return absl::OkStatus();
}

absl::Status CollectiveEmitter::EmitInfeed(const HloInstruction& hlo) {
  // The value's leaves; the token has no storage to fill.
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> arrays, ArrayLeaves(&hlo));
  auto [desc, size] = Description(hlo);
  llvm::Type* ptr = b_.getPtrTy();
  llvm::FunctionCallee fn = module_->getOrInsertFunction(
      "__xla_cpu_runtime_Infeed", llvm::FunctionType::get(b_.getInt1Ty(), {ptr, ptr, b_.getInt64Ty(), ptr}, false));
  CheckCall(b_.CreateCall(fn, {control_, desc, size, PointerArray(arrays, hlo.name() + ".leaves")}), hlo);
  return absl::OkStatus();
}

absl::Status CollectiveEmitter::EmitOutfeed(const HloInstruction& hlo) {
  const HloInstruction* value = hlo.operand(0);
  std::vector<llvm::Value*> leaves;
  if (value->shape().IsTuple()) {
    ASSIGN_OR_RETURN(leaves, buffers_.LeafAddressesOf(value));
  } else {
    ASSIGN_OR_RETURN(llvm::Value * address, buffers_.AddressOf(value));
    leaves.push_back(address);
  }
  auto [desc, size] = Description(hlo);
  llvm::Type* ptr = b_.getPtrTy();
  llvm::FunctionCallee fn = module_->getOrInsertFunction(
      "__xla_cpu_runtime_Outfeed", llvm::FunctionType::get(b_.getInt1Ty(), {ptr, ptr, b_.getInt64Ty(), ptr}, false));
  CheckCall(b_.CreateCall(fn, {control_, desc, size, PointerArray(leaves, hlo.name() + ".leaves")}), hlo);
  return absl::OkStatus();
}

absl::StatusOr<llvm::Function*> CollectiveEmitter::EmitCombiner(const HloInstruction& hlo) {
  if (hlo.called_computations().size() != 1 || hlo.called_computations()[0] == nullptr) {
    return InvalidArgument("CPU backend: %s: %s needs one reducer", hlo.name(), HloOpcodeString(hlo.opcode()));
  }
  const HloComputation& reducer = *hlo.called_computations()[0];
  const PrimitiveType type = hlo.operand(0)->shape().element_type();
  llvm::LLVMContext& ctx = module_->getContext();
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* ptr = b_.getPtrTy();
  auto* fn_type = llvm::FunctionType::get(b_.getVoidTy(), {i64, ptr, ptr, i64}, false);
  llvm::Function* fn =
      llvm::Function::Create(fn_type, llvm::GlobalValue::InternalLinkage, hlo.name() + ".combine", module_);
  fn->setDoesNotThrow();
  const llvm::IRBuilderBase::InsertPoint saved = b_.saveIP();
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx, "loop", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "done", fn);
  b_.SetInsertPoint(entry);
  llvm::Value* acc = fn->getArg(1);
  llvm::Value* other = fn->getArg(2);
  llvm::Value* count = fn->getArg(3);
  b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), loop, done);
  b_.SetInsertPoint(loop);
  llvm::PHINode* k = b_.CreatePHI(i64, 2, "k");
  k->addIncoming(b_.getInt64(0), entry);
  // Elements are read and written as a rank-1 array (stride 1); its size
  // only needs to exceed one, so the index is not folded away.
  const Shape row = ShapeUtil::MakeShape(type, {std::numeric_limits<int32_t>::max()});
  ElementalIrEmitter elemental(ctx_, [](const HloInstruction*) { return nullptr; });
  llvm::Value* a = elemental.LoadElement(acc, row, {k});
  llvm::Value* x = elemental.LoadElement(other, row, {k});
  absl::StatusOr<llvm::Value*> r = elemental.EmitScalarComputation(reducer, {a, x}, /*reassociate=*/false);
  if (!r.ok()) {
    b_.restoreIP(saved);
    return r.status();
  }
  elemental.StoreElement(*r, acc, row, {k});
  llvm::Value* next = b_.CreateAdd(k, b_.getInt64(1));
  k->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpSLT(next, count), loop, done);
  b_.SetInsertPoint(done);
  b_.CreateRetVoid();
  b_.restoreIP(saved);
  return fn;
}

absl::Status CollectiveEmitter::EmitCollective(const HloInstruction& hlo) {
  std::vector<llvm::Value*> operands, results;
  for (const HloInstruction* o : hlo.operands()) {
    ASSIGN_OR_RETURN(llvm::Value * address, buffers_.AddressOf(o));
    operands.push_back(address);
  }
  if (hlo.shape().IsTuple()) {
    ASSIGN_OR_RETURN(results, buffers_.LeafAddressesOf(&hlo));
  } else {
    ASSIGN_OR_RETURN(llvm::Value * address, buffers_.AddressOf(&hlo));
    results.push_back(address);
  }
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Value* combine = llvm::ConstantPointerNull::get(llvm::PointerType::get(module_->getContext(), 0));
  if (hlo.opcode() == HloOpcode::kAllReduce || hlo.opcode() == HloOpcode::kReduceScatter) {
    ASSIGN_OR_RETURN(llvm::Function * f, EmitCombiner(hlo));
    combine = f;
  }
  auto [desc, size] = Description(hlo);
  llvm::FunctionCallee fn = module_->getOrInsertFunction(
      "__xla_cpu_runtime_Collective",
      llvm::FunctionType::get(b_.getInt1Ty(), {ptr, ptr, b_.getInt64Ty(), ptr, ptr, ptr}, false));
  CheckCall(b_.CreateCall(fn, {control_, desc, size, PointerArray(operands, hlo.name() + ".operands"),
                               PointerArray(results, hlo.name() + ".results"), combine}),
            hlo);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<llvm::Value*>> CollectiveEmitter::ArrayLeaves(const HloInstruction* hlo) {
  if (hlo->shape().IsArray()) {
    ASSIGN_OR_RETURN(llvm::Value * address, buffers_.AddressOf(hlo));
    return std::vector<llvm::Value*>{address};
  }
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> leaves, buffers_.LeafAddressesOf(hlo));
  std::vector<Shape> shapes;
  std::function<void(const Shape&)> flatten = [&](const Shape& s) {
    if (s.IsTuple()) {
      for (const Shape& e : s.tuple_shapes()) flatten(e);
    } else {
      shapes.push_back(s);
    }
  };
  flatten(hlo->shape());
  if (leaves.size() != shapes.size()) return Internal("CPU backend: %s: leaves do not match its shape", hlo->name());
  std::vector<llvm::Value*> arrays;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (shapes[i].IsArray()) arrays.push_back(leaves[i]);
  }
  return arrays;
}

absl::Status CollectiveEmitter::EmitTransfer(const HloInstruction& hlo) {
  std::vector<llvm::Value*> in;
  if (hlo.opcode() == HloOpcode::kSend) {
    ASSIGN_OR_RETURN(in, ArrayLeaves(hlo.operand(0)));
  }
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> out, ArrayLeaves(&hlo));
  HloInstructionProto proto = collectives::CollectiveOp::ToProto(hlo);
  proto.set_channel_id(collectives::TransferChannel(hlo));
  auto [desc, size] = Description(hlo, proto);
  llvm::Type* ptr = b_.getPtrTy();
  llvm::FunctionCallee fn = module_->getOrInsertFunction(
      "__xla_cpu_runtime_Transfer",
      llvm::FunctionType::get(b_.getInt1Ty(), {ptr, ptr, b_.getInt64Ty(), ptr, ptr}, false));
  CheckCall(b_.CreateCall(fn, {control_, desc, size, PointerArray(in, hlo.name() + ".in"),
                               PointerArray(out, hlo.name() + ".out")}),
            hlo);
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace xla
