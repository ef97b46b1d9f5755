#include "backends/cpu/codegen/ir_emitter.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/alias_analysis.h"
#include "backends/cpu/codegen/buffer_assignment.h"
#include "backends/cpu/codegen/collective_emitter.h"
#include "backends/cpu/codegen/custom_call_emitter.h"
#include "backends/cpu/codegen/dot_emitter.h"
#include "backends/cpu/codegen/random_bits_emitter.h"
#include "backends/cpu/codegen/linalg_emitter.h"
#include "backends/cpu/codegen/scatter_emitter.h"
#include "backends/cpu/codegen/sort_emitter.h"
#include "backends/cpu/transforms/cpu_fusion.h"
#include "backends/cpu/codegen/ir_emitter_internal.h"
#include "backends/cpu/transforms/matmul_plan.h"
#include "backends/cpu/codegen/parallel_loop_emitter.h"
#include "backends/cpu/codegen/reduction_emitter.h"
#include "backends/cpu/transforms/row_fusion.h"
#include "backends/cpu/codegen/streaming_stores.h"
#include "backends/host_memory_pool.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Intrinsics.h"
#include "xla/primitive_util.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

using namespace ir_emitter_internal;  // NOLINT: the emitter's own helpers

absl::Status IrEmitter::CheckInstruction(const HloInstruction& hlo) {
  if (hlo.opcode() == HloOpcode::kFusion) {
    // Its fused instructions are checked in its place.
    if (hlo.called_computations().size() != 1) return Internal("CPU backend: %s: a fusion calls one computation", hlo.name());
    const HloComputation* fused = hlo.called_computations().front();
    for (const HloInstruction* h : fused->instructions()) {
      if (h->opcode() == HloOpcode::kParameter || (h == fused->root_instruction() && h->opcode() == HloOpcode::kTuple)) {
        continue;
      }
      RETURN_IF_ERROR(CheckInstruction(*h));
    }
    return absl::OkStatus();
  }
  if (hlo.opcode() == HloOpcode::kInfeed) {
    // (value, token): the value's arrays are written by the runtime.
    const Shape& value = hlo.shape().tuple_shapes(0);
    for (const Shape& s : value.IsTuple() ? value.tuple_shapes() : std::vector<Shape>{value}) {
      if (!s.IsArray()) return NotImplemented(hlo, "infeed of a nested tuple");
      RETURN_IF_ERROR(CheckSupportedElementType(s.element_type(), hlo));
    }
  } else if (hlo.opcode() == HloOpcode::kSend || hlo.opcode() == HloOpcode::kRecv ||
             hlo.opcode() == HloOpcode::kRecvDone || hlo.opcode() == HloOpcode::kSendDone) {
    // (value, u32[], token), (value, token) or a token: the value's arrays
    // are read or written by the runtime.
    std::function<absl::Status(const Shape&, int)> check = [&](const Shape& s, int depth) -> absl::Status {
      if (s.IsTuple()) {
        if (depth >= 2) return NotImplemented(hlo, absl::StrCat(HloOpcodeString(hlo.opcode()), " of a nested tuple"));
        for (const Shape& e : s.tuple_shapes()) RETURN_IF_ERROR(check(e, depth + 1));
      } else if (s.IsArray()) {
        RETURN_IF_ERROR(CheckSupportedElementType(s.element_type(), hlo));
      }
      return absl::OkStatus();
    };
    RETURN_IF_ERROR(check(hlo.shape(), 0));
  } else if (WritesTupleOfArrays(hlo)) {
    for (const Shape& s : hlo.shape().tuple_shapes()) {
      if (!s.IsArray()) return NotImplemented(hlo, absl::StrCat(HloOpcodeString(hlo.opcode()), " with a nested tuple result"));
      RETURN_IF_ERROR(CheckSupportedElementType(s.element_type(), hlo));
    }
  } else if (hlo.shape().IsTuple() && !IsPlumbing(hlo) && !IsControlFlow(hlo) &&
             hlo.opcode() != HloOpcode::kParameter) {
    return NotImplemented(hlo, absl::StrCat(HloOpcodeString(hlo.opcode()), " producing a tuple"));
  }
  if (hlo.shape().IsArray()) RETURN_IF_ERROR(CheckSupportedElementType(hlo.shape().element_type(), hlo));
  // Opcodes no handler emits (Visit's default case), before any code.
  if (!IsPlumbing(hlo) && !HasStorageOfItsOwn(hlo) && !IsFusibleOpcode(hlo.opcode()) && !IsControlFlow(hlo) &&
      !HasEmitter(hlo.opcode())) {
    return NotImplemented(hlo, HloOpcodeString(hlo.opcode()));
  }
  return absl::OkStatus();
}

llvm::BasicBlock* IrEmitter::AbortBlock() {
  if (abort_block_ == nullptr) {
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    abort_block_ = llvm::BasicBlock::Create(module_->getContext(), "stopped", fn);
    llvm::IRBuilder<> builder(abort_block_);
    builder.CreateRetVoid();
  }
  return abort_block_;
}

void IrEmitter::EmitStopCheck(const std::string& after) {
  if (ctx_.stop_flag == nullptr) return;
  // Only where a return ends the run (not inside an outlined function).
  if (AbortBlock()->getParent() != b_.GetInsertBlock()->getParent()) return;
  llvm::LoadInst* stop = b_.CreateLoad(b_.getInt8Ty(), ctx_.stop_flag, after + ".stop");
  stop->setVolatile(true);
  auto* go_on = llvm::BasicBlock::Create(module_->getContext(), after + ".go_on", b_.GetInsertBlock()->getParent());
  b_.CreateCondBr(b_.CreateICmpNE(stop, b_.getInt8(0)), AbortBlock(), go_on);
  b_.SetInsertPoint(go_on);
}

absl::StatusOr<llvm::Value*> IrEmitter::NextScratchSlot(int64_t bytes) {
  const int64_t reserved = (std::max<int64_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  if (scratch_next_ + reserved > scratch_end_) {
    return Internal("CPU backend: control-flow temporaries exceed their assigned %d bytes", scratch_end_);
  }
  Slot slot{Slot::kArena, scratch_next_, reserved};
  scratch_next_ += reserved;
  return SlotAddress(slot, nullptr);
}

absl::StatusOr<std::vector<llvm::Value*>> IrEmitter::LeafAddresses(const ValueTree& tree) {
  std::vector<llvm::Value*> out;
  if (tree.is_tuple) {
    for (const auto& e : tree.elements) {
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> sub, LeafAddresses(*e));
      out.insert(out.end(), sub.begin(), sub.end());
    }
    return out;
  }
  auto it = leaf_addresses_.find(&tree);
  if (it == leaf_addresses_.end()) return Internal("CPU backend: a control-flow operand leaf has no buffer");
  out.push_back(it->second);
  return out;
}

absl::Status IrEmitter::EmitCopy(llvm::Value* src, const Shape& src_shape, llvm::Value* dst, const Shape& dst_shape,
                                 const std::string& name) {
  // Tokens have no storage: a token leaf of a loop state or a tuple copy
  // (a token threaded through a while loop) copies nothing.
  if (src_shape.IsToken() && dst_shape.IsToken()) return absl::OkStatus();
  ElementalIrEmitter elemental(ctx_, [](const HloInstruction*) { return nullptr; });
  return EmitLoopNestForShape(ctx_, dst_shape, name, [&](const IrIndex& index) {
    elemental.StoreElement(elemental.LoadElement(src, src_shape, index), dst, dst_shape, index);
    return absl::OkStatus();
  });
}

llvm::Value* IrEmitter::SlotAddress(const Slot& slot, const HloInstruction* hlo) {
  switch (slot.kind) {
    case Slot::kParam:
      return param_leaves_.at(slot.index);
    case Slot::kResult:
      return result_leaves_.at(slot.index);
    case Slot::kArena: {
      llvm::Value* address = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), arena_, slot.index, hlo ? hlo->name() : "");
      MarkBufferRegion(address, BufferRegion::Arena(slot.index, slot.index + slot.bytes));
      return address;
    }
    case Slot::kGlobal: {
      if (auto it = constant_globals_.find(hlo); it != constant_globals_.end()) return it->second;
      const Literal& literal = hlo->literal();
      llvm::Type* elem = IrStorageType(literal.element_type(), module_->getContext());
      int64_t n = literal.element_count();
      if (primitive_util::IsComplexType(literal.element_type())) {
        // Constant data arrays hold scalars: complex as interleaved parts.
        elem = elem->getStructElementType(0);
        n *= 2;
      }
      llvm::GlobalVariable* global = nullptr;
      if (external_constant_min_bytes_ > 0 && literal.size_bytes() >= external_constant_min_bytes_) {
        // A declaration, not dso_local: the data may lie anywhere, reached
        // through the GOT.
        std::string symbol = absl::StrCat("__xla_constant.", external_constants_.size());
        global = new llvm::GlobalVariable(*module_, llvm::ArrayType::get(elem, n), /*isConstant=*/true,
                                          llvm::GlobalValue::ExternalLinkage, nullptr, symbol);
        external_constants_.push_back(ExternalConstant{std::move(symbol), &literal});
      } else {
        llvm::Constant* init = llvm::ConstantDataArray::getRaw(
            llvm::StringRef(static_cast<const char*>(literal.untyped_data()), literal.size_bytes()), n, elem);
        global = new llvm::GlobalVariable(*module_, init->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::PrivateLinkage, init, hlo->name());
        global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
      }
      global->setAlignment(llvm::Align(kAlignment));
      constant_globals_[hlo] = global;
      return global;
    }
    case Slot::kNone:
    case Slot::kRowScratch:  // on the stack of the row loop
      return nullptr;
  }
  return nullptr;
}

const HloInstruction* IrEmitter::Resolve(const HloInstruction* hlo) const { return FusionOperandOf(hlo); }

absl::StatusOr<llvm::Value*> IrEmitter::AddressOf(const HloInstruction* hlo) {
  auto it = addresses_.find(Resolve(hlo));
  if (it == addresses_.end() || it->second == nullptr) {
    return Internal("CPU backend: %s has no buffer", hlo->name());
  }
  return it->second;
}

absl::StatusOr<std::vector<llvm::Value*>> IrEmitter::LeafAddressesOf(const HloInstruction* hlo) {
  auto it = trees_.find(Resolve(hlo));
  if (it == trees_.end()) return Internal("CPU backend: %s has no buffers", hlo->name());
  return LeafAddresses(*it->second);
}

llvm::Value* IrEmitter::BufferOf(const HloInstruction* hlo) {
  hlo = Resolve(hlo);
  auto it = addresses_.find(hlo);
  if (it == addresses_.end()) return nullptr;
  // Constants with one element are immediates.
  if (hlo->opcode() == HloOpcode::kConstant && ShapeUtil::ElementsIn(hlo->shape()) == 1) return nullptr;
  return it->second;
}

bool IrEmitter::HasEmitter(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kFusion: case HloOpcode::kDot: case HloOpcode::kReduce: case HloOpcode::kReduceWindow:
    case HloOpcode::kConvolution: case HloOpcode::kScatter: case HloOpcode::kSelectAndScatter:
    case HloOpcode::kDynamicUpdateSlice: case HloOpcode::kRngBitGenerator: case HloOpcode::kSort:
    case HloOpcode::kFft: case HloOpcode::kTriangularSolve: case HloOpcode::kCholesky:
    case HloOpcode::kAfterAll: case HloOpcode::kCustomCall:
      return true;
    default:
      return CollectiveEmitter::Handles(opcode);
  }
}

absl::Status IrEmitter::Visit(const HloInstruction& hlo, ElementalIrEmitter& elemental) {
  // Arrays without elements need no code (control flow still runs).
  if (hlo.shape().IsArray() && ShapeUtil::HasZeroElements(hlo.shape()) && !IsControlFlow(hlo)) {
    return absl::OkStatus();
  }
  switch (hlo.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
      return absl::OkStatus();  // in place before the code runs, or names for other values' buffers
    case HloOpcode::kFusion: {
      // A fusion with structural twins offers its kernels for sharing.
      ctx_.sharing_key = sharing_.CandidateKey(hlo);
      ctx_.sharing_ordinal = 0;
      absl::Status emitted = IsFusionOfKind(hlo, kRowGroupFusion) ? EmitRowGroup(hlo) : EmitFusion(hlo, elemental);
      ctx_.sharing_key.clear();
      return emitted;
    }
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
      return EmitControlFlow(hlo);
    case HloOpcode::kSelect:
    case HloOpcode::kCopy:
      return hlo.shape().IsTuple() ? EmitControlFlow(hlo) : EmitElementLoop(hlo, elemental);
    case HloOpcode::kDot:
      return DotEmitter::UsesRuntime(hlo) ? DotEmitter(ctx_, *this).EmitRuntimeMatMul(hlo)
                                          : EmitElementLoop(hlo, elemental);
    case HloOpcode::kReduce:
      if (hlo.shape().IsTuple()) return ReductionEmitter(ctx_, *this).EmitVariadicReduce(hlo);
      if (KeepsMinorDimension(hlo)) return ReductionEmitter(ctx_, *this).EmitMinorKeepingReduce(hlo);
      return EmitElementLoop(hlo, elemental);
    case HloOpcode::kReduceWindow:
      return hlo.shape().IsTuple() ? ReductionEmitter(ctx_, *this).EmitVariadicReduce(hlo)
                                   : EmitElementLoop(hlo, elemental);
    case HloOpcode::kScatter:
      return ScatterEmitter(ctx_, *this).EmitScatter(hlo);
    case HloOpcode::kSelectAndScatter:
      return ScatterEmitter(ctx_, *this).EmitSelectAndScatter(hlo);
    case HloOpcode::kDynamicUpdateSlice:
      return ScatterEmitter(ctx_, *this).EmitDynamicUpdateSlice(hlo, elemental);
    case HloOpcode::kSort:
      return SortEmitter(ctx_, *this).EmitSort(hlo);
    case HloOpcode::kConvolution:
      return EmitElementLoop(hlo, elemental);
    case HloOpcode::kRngBitGenerator:
      return RandomBitsEmitter(ctx_, *this).EmitRngBitGenerator(hlo);
    case HloOpcode::kFft:
      return LinalgEmitter(ctx_, *this).EmitFft(hlo);
    case HloOpcode::kTriangularSolve:
      return LinalgEmitter(ctx_, *this).EmitTriangularSolve(hlo);
    case HloOpcode::kCholesky:
      return LinalgEmitter(ctx_, *this).EmitCholesky(hlo);
    case HloOpcode::kAfterAll:
      return absl::OkStatus();  // a token has no storage
    case HloOpcode::kCustomCall:
      return CustomCallEmitter(ctx_, *this, control_, [this] { return AbortBlock(); }, &custom_calls_).Emit(hlo);
    default:
      if (CollectiveEmitter::Handles(hlo.opcode())) {
        return CollectiveEmitter(ctx_, *this, control_, [this] { return AbortBlock(); }).Emit(hlo);
      }
      if (IsFusibleOpcode(hlo.opcode())) return EmitElementLoop(hlo, elemental);
      return NotImplemented(hlo, HloOpcodeString(hlo.opcode()));
  }
}

absl::Status IrEmitter::EmitElementLoop(const HloInstruction& hlo, ElementalIrEmitter& elemental) {
  llvm::Value* out = addresses_.at(&hlo);
  ElementalIrEmitter probe(ctx_, [this](const HloInstruction* h) { return BufferOf(h); });
  const ElementLoop loop(hlo, RowMajorReshapeOperand(hlo), probe);
  return EmitParallelLoopNest(ctx_, loop.looped->shape(), hlo.name(), EstimateElementCost(hlo), InnerWork(hlo), loop.pieces,
      [&](const IrIndex& index, int64_t piece, const ValueRemap& remap) -> absl::Status {
        // Buffers are read through `remap`: the loop may be outlined.
        ElementalIrEmitter local(ctx_, [&](const HloInstruction* h) { return remap(BufferOf(h)); });
        ASSIGN_OR_RETURN(llvm::Value * v, loop.Element(local, index, piece));
        local.StoreElement(v, remap(out), loop.looped->shape(), index);
        return absl::OkStatus();
      });
}

absl::Status IrEmitter::EmitFusion(const HloInstruction& fusion, ElementalIrEmitter& elemental) {
  const HloInstruction* root = fusion.called_computations().front()->root_instruction();
  // The root is emitted as the instruction it is, into the fusion's buffer.
  // (Copied out first: inserting may move the maps' elements.)
  std::shared_ptr<const ValueTree> tree = trees_.at(&fusion);
  trees_[root] = std::move(tree);
  if (auto it = addresses_.find(&fusion); it != addresses_.end()) {
    llvm::Value* address = it->second;
    addresses_[root] = address;
  }
  if (IsFusionOfKind(fusion, kOutputFusion)) {
    const HloInstruction* dot = nullptr;
    for (const HloInstruction* h : fusion.called_computations().front()->instructions()) {
      if (h->opcode() == HloOpcode::kDot) dot = h;
    }
    if (dot == nullptr || !DotEmitter::UsesRuntime(*dot)) {
      return Internal("CPU backend: %s: an output fusion needs a dot the runtime computes", fusion.name());
    }
    return DotEmitter(ctx_, *this).EmitRuntimeMatMul(*dot, root);
  }
  return Visit(*root, elemental);
}

absl::Status IrEmitter::EmitEntryFunction(const HloComputation& computation, const std::string& name) {
  llvm::LLVMContext& ctx = module_->getContext();
  llvm::Type* ptr = b_.getPtrTy();
  auto* fn_type = llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, ptr, ptr, ptr}, false);
  llvm::Function* fn = llvm::Function::Create(fn_type, llvm::GlobalValue::ExternalLinkage, name, module_);
  fn->setDoesNotThrow();
  for (int i = 0; i < 3; ++i) fn->addParamAttr(i, llvm::Attribute::NoAlias);
  if (ctx_.threads > 1) {
    ctx_.device = fn->getArg(3);
    ctx_.device->setName("device");
  }
  control_ = fn->getArg(4);
  control_->setName("control");
  params_ = fn->getArg(0);
  results_ = fn->getArg(1);
  arena_ = fn->getArg(2);
  params_->setName("params");
  results_->setName("results");
  arena_->setName("arena");
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  if (computation.parent() != nullptr) {
    sharing_.CountFusions(*computation.parent());
    ctx_.sharing = &sharing_;
  }
  llvm::FunctionCallee stop_flag_of = module_->getOrInsertFunction(
      "__xla_runtime_StopFlag", llvm::FunctionType::get(ptr, {ptr}, false));
  if (auto* decl = llvm::dyn_cast<llvm::Function>(stop_flag_of.getCallee())) {
    decl->setDoesNotThrow();
    decl->setDoesNotAccessMemory();
    decl->setWillReturn();
    // The flag is a byte no buffer of the run overlaps: its volatile reads in
    // loops must not look like they might alias the values they compute.
    decl->addRetAttr(llvm::Attribute::NoAlias);
  }
  ctx_.stop_flag = b_.CreateCall(stop_flag_of, {control_}, "stop_flag");
  std::vector<Shape> param_shapes, result_shapes;
  for (const HloInstruction* p : computation.parameter_instructions()) FlattenShape(p->shape(), &param_shapes);
  FlattenShape(computation.root_instruction()->shape(), &result_shapes);
  std::vector<llvm::Value*> params, results;
  // Every leaf buffer is a HostMemoryPool block of its own: 64-byte aligned.
  llvm::MDNode* aligned = llvm::MDNode::get(
      module_->getContext(), {llvm::ConstantAsMetadata::get(b_.getInt64(HostMemoryPool::kAlignment))});
  // The pointer arrays are not written while the run lasts: their loads are
  // invariant, so an outlined kernel reloads a pointer itself instead of
  // being passed it (parallel_loop_emitter.cc).
  llvm::MDNode* invariant = llvm::MDNode::get(module_->getContext(), {});
  for (size_t i = 0; i < param_shapes.size(); ++i) {
    auto* load = b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, params_, i), absl::StrCat("param", i));
    load->setMetadata(llvm::LLVMContext::MD_align, aligned);
    load->setMetadata(llvm::LLVMContext::MD_invariant_load, invariant);
    params.push_back(load);
    MarkBufferRegion(params.back(), BufferRegion::Param(i));
  }
  // A result leaf written in place of a donated parameter shares its
  // storage: LLVM must not take its stores and the parameter's loads for
  // independent (it would reorder or vectorize across them).
  absl::flat_hash_map<int64_t, int64_t> in_place_param_leaf;
  if (&computation == computation.parent()->entry_computation()) {
    for (const InPlaceResult& in_place : assignment_.in_place_results()) {
      int64_t leaf = 0;
      for (int64_t p = 0; p < in_place.parameter; ++p) {
        std::vector<Shape> leaves;
        FlattenShape(computation.parameter_instruction(p)->shape(), &leaves);
        leaf += static_cast<int64_t>(leaves.size());
      }
      in_place_param_leaf[in_place.result_leaf] = leaf;
    }
  }
  for (size_t i = 0; i < result_shapes.size(); ++i) {
    auto* load = b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, results_, i), absl::StrCat("result", i));
    load->setMetadata(llvm::LLVMContext::MD_align, aligned);
    load->setMetadata(llvm::LLVMContext::MD_invariant_load, invariant);
    results.push_back(load);
    auto in_place = in_place_param_leaf.find(static_cast<int64_t>(i));
    MarkBufferRegion(results.back(), in_place != in_place_param_leaf.end() ? BufferRegion::Param(in_place->second)
                                                                           : BufferRegion::Result(i));
    if (ShapeUtil::ByteSizeOfElements(result_shapes[i]) >= kMinStreamingResultBytes) MarkStreamingBuffer(load);
  }
  RETURN_IF_ERROR(EmitComputation(computation, std::move(params), std::move(results)));
  b_.CreateRetVoid();
  AttachAliasScopes(*module_);
  return absl::OkStatus();
}

absl::Status IrEmitter::EmitComputation(const HloComputation& computation, std::vector<llvm::Value*> params,
                                        std::vector<llvm::Value*> results) {
  std::vector<llvm::Value*> saved_params = std::move(param_leaves_), saved_results = std::move(result_leaves_);
  param_leaves_ = std::move(params);
  result_leaves_ = std::move(results);
  std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  // A computation emitted again (e.g. shared by two whiles) starts afresh.
  std::function<void(const ValueTree&)> forget = [&](const ValueTree& tree) {
    leaf_addresses_.erase(&tree);
    for (const auto& e : tree.elements) forget(*e);
  };
  const ComputationBuffers* buffers = assignment_.ForComputation(computation);
  if (buffers == nullptr) return Internal("CPU backend: computation %s has no buffer assignment", computation.name());
  for (const auto& [h, tree] : buffers->values) {
    if (auto it = trees_.find(h); it != trees_.end()) forget(*it->second);
    addresses_.erase(h);
    trees_[h] = tree;
  }
  for (const HloInstruction* h : order) {
    if (trees_.contains(h)) RETURN_IF_ERROR(CheckInstruction(*h));
  }
  // Row-group members, in order (their buffers, or none for row scratch).
  std::vector<const HloInstruction*> with_members;
  for (const HloInstruction* h : order) {
    if (!trees_.contains(h)) continue;
    with_members.push_back(h);
    if (IsFusionOfKind(*h, kRowGroupFusion)) {
      for (const HloInstruction* m : RowGroupMembers(*h)) with_members.push_back(m);
    }
  }

  // Base addresses of every array value, once, before the loops.
  for (const HloInstruction* h : with_members) {
    auto it = trees_.find(h);
    if (it == trees_.end() || it->second->is_tuple) continue;
    if (llvm::Value* address = SlotAddress(it->second->slot, h)) addresses_[h] = address;
  }
  // Leaves reached through get-tuple-element (of parameters or of control
  // flow) share the address of the leaf.
  std::function<void(const ValueTree&)> leaves = [&](const ValueTree& tree) {
    if (tree.is_tuple) {
      for (const auto& e : tree.elements) leaves(*e);
    } else if (tree.slot.kind != Slot::kNone && tree.slot.kind != Slot::kRowScratch &&
               !leaf_addresses_.contains(&tree)) {
      leaf_addresses_[&tree] = SlotAddress(tree.slot, tree.producer);
    }
  };
  for (const HloInstruction* h : with_members) {
    auto it = trees_.find(h);
    if (it == trees_.end()) continue;
    const ValueTree* tree = it->second.get();
    if (!tree->is_tuple && addresses_.contains(h)) {
      leaf_addresses_.emplace(tree, addresses_.at(h));
    } else {
      leaves(*tree);
    }
    if (!tree->is_tuple && !addresses_.contains(h) && leaf_addresses_.contains(tree)) {
      llvm::Value* address = leaf_addresses_.at(tree);
      addresses_[h] = address;
    }
  }

  ElementalIrEmitter elemental(ctx_, [this](const HloInstruction* h) { return BufferOf(h); });
  // Loops emitted (a row group's members each count).
  int64_t emitted_loops = 0;
  int64_t code_weight = 0;
  for (const HloInstruction* h : order) {
    if (!trees_.contains(h) || HasStorageOfItsOwn(*h) || IsPlumbing(*h)) continue;
    if (IsFusionOfKind(*h, kRowGroupFusion)) {
      for (const HloInstruction* m : RowGroupMembers(*h)) code_weight += CodeWeight(*m);
      emitted_loops += static_cast<int64_t>(RowGroupMembers(*h).size());
    } else if (h->shape().IsArray()) {
      code_weight += CodeWeight(*h);
      ++emitted_loops;
    }
  }
  ScopedOutlineAllRanges outline(ctx_, emitted_loops > kMaxInlineLoops);
  const int64_t enclosing_code_weight = ctx_.computation_code_weight;
  ctx_.computation_code_weight = code_weight;
  for (const HloInstruction* h : order) {
    if (!trees_.contains(h)) continue;  // unreachable
    // A control-flow instruction's temporaries for its emitter to take.
    const int64_t saved_next = scratch_next_, saved_end = scratch_end_;
    if (auto it = buffers->control_flow_scratch.find(h); it != buffers->control_flow_scratch.end()) {
      scratch_next_ = it->second.index;
      scratch_end_ = it->second.index + it->second.bytes;
    }
    if (stop_check_) RETURN_IF_ERROR(stop_check_());
    RETURN_IF_ERROR(Visit(*h, elemental));
    scratch_next_ = saved_next;
    scratch_end_ = saved_end;
    if (!HasStorageOfItsOwn(*h) && !IsPlumbing(*h)) EmitStopCheck(h->name());
  }
  // Result leaves held elsewhere (parameters, constants, repeated values).
  for (const ResultCopy& copy : buffers->result_copies) {
    auto src = leaf_addresses_.find(copy.source.get());
    if (src == leaf_addresses_.end()) return Internal("CPU backend: result leaf %d has no buffer", copy.leaf);
    RETURN_IF_ERROR(EmitCopy(src->second, copy.source->shape, result_leaves_.at(copy.leaf), copy.shape,
                             absl::StrCat("copy", copy.leaf)));
  }
  param_leaves_ = std::move(saved_params);
  result_leaves_ = std::move(saved_results);
  ctx_.computation_code_weight = enclosing_code_weight;
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace xla
