#include "backends/cpu/codegen/parallel_loop_emitter.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/alias_analysis.h"
#include "backends/cpu/codegen/kernel_sharing.h"
#include "backends/cpu/runtime/runtime_parallel.h"
#include "backends/cpu/codegen/streaming_stores.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

namespace {

// A buffer address: a GEP by constants (into the arena, say) or a load
// marked invariant (a parameter's or result's pointer, read from the run's
// pointer arrays, which nothing writes while the run lasts).
bool IsRecomputableAddress(const llvm::Instruction& inst) {
  if (const auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst)) return gep->hasAllConstantIndices();
  if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
    return load->getType()->isPointerTy() && load->hasMetadata(llvm::LLVMContext::MD_invariant_load);
  }
  return false;
}

}  // namespace

ScopedOutlineAllRanges::ScopedOutlineAllRanges(EmitContext& context, bool enable)
    : ctx_(context), previous_(context.outline_all_ranges) {
  ctx_.outline_all_ranges = enable;
}
ScopedOutlineAllRanges::~ScopedOutlineAllRanges() { ctx_.outline_all_ranges = previous_; }

absl::StatusOr<OutlinedFunction> EmitOutlinedFunction(EmitContext& context, const std::string& name,
                                                       llvm::ArrayRef<llvm::Type*> extra_params,
                                                       const OutlinedBody& body) {
  llvm::IRBuilder<>* b = context.b;
  llvm::LLVMContext& ctx = b->getContext();
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Type* ptr = b->getPtrTy();
  std::vector<llvm::Type*> params = {ptr};
  params.insert(params.end(), extra_params.begin(), extra_params.end());
  auto* fn_type = llvm::FunctionType::get(b->getVoidTy(), params, false);
  // Internal, not private: the name stays in the object's symbol table, for
  // profilers (perf_map.h).
  llvm::Function* fn = llvm::Function::Create(fn_type, llvm::GlobalValue::InternalLinkage, name, module);
  fn->setDoesNotThrow();
  fn->addParamAttr(0, llvm::Attribute::NoAlias);
  fn->addParamAttr(0, llvm::Attribute::ReadOnly);

  // The body, emitted into `fn`; captured values are loaded in its entry block.
  std::vector<llvm::Value*> captured;
  {
    llvm::IRBuilderBase::InsertPointGuard guard(*b);
    llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
    llvm::BasicBlock* body_block = llvm::BasicBlock::Create(ctx, "body", fn);
    llvm::BranchInst::Create(body_block, entry);
    llvm::IRBuilder<> entry_builder(entry->getTerminator());
    llvm::Value* captured_array = fn->getArg(0);
    absl::flat_hash_map<llvm::Value*, llvm::Value*> remapped;
    // A caller's value reaches the body as a slot of the captured array, or,
    // when it is a buffer address the body can compute as cheaply itself
    // (IsRecomputableAddress), as a copy in the body's entry block. Without
    // the copies a program of thousands of buffers loaded every address in
    // the caller's entry block and stored it into each kernel's array: one
    // basic block of tens of thousands of instructions, where LLVM's
    // instruction selection spent 90% of the compile. A kernel that may be
    // shared (EmitContext::sharing_key) takes every address from the
    // array instead: its twins differ in nothing else.
    const bool shareable = context.sharing != nullptr && !context.sharing_key.empty();
    ValueRemap remap;
    remap = [&](llvm::Value* v) -> llvm::Value* {
      if (v == nullptr || llvm::isa<llvm::Constant>(v)) return v;
      if (auto it = remapped.find(v); it != remapped.end()) return it->second;
      llvm::Value* mapped = nullptr;
      if (auto* original = llvm::dyn_cast<llvm::Instruction>(v); original != nullptr && !shareable && IsRecomputableAddress(*original)) {
        // Operands first (a chain of a few GEPs and loads at most); the copy
        // keeps the original's metadata: alignment, buffer region, streaming.
        llvm::Instruction* copy = original->clone();
        for (unsigned i = 0; i < copy->getNumOperands(); ++i) copy->setOperand(i, remap(copy->getOperand(i)));
        entry_builder.Insert(copy, v->getName() + ".in_body");
        mapped = copy;
      } else {
        llvm::Value* slot = entry_builder.CreateConstInBoundsGEP1_64(ptr, captured_array, captured.size());
        auto* load = entry_builder.CreateLoad(ptr, slot, v->getName() + ".captured");
        if (original != nullptr) {  // the same alignment
          if (llvm::MDNode* align = original->getMetadata(llvm::LLVMContext::MD_align)) {
            load->setMetadata(llvm::LLVMContext::MD_align, align);
          } else if (auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(original)) {
            load->setMetadata(llvm::LLVMContext::MD_align,
                              llvm::MDNode::get(ctx, llvm::ConstantAsMetadata::get(
                                                         b->getInt64(alloca->getAlign().value()))));
          }
        }
        CopyBufferRegion(v, load);  // the same buffer: the same alias scope
        CopyStreamingMark(v, load);
        captured.push_back(v);
        mapped = load;
      }
      remapped[v] = mapped;
      return mapped;
    };
    b->SetInsertPoint(body_block);
    // The stop flag, as the outlined function sees it, while its body is
    // emitted.
    llvm::Value* const caller_stop_flag = context.stop_flag;
    context.stop_flag = remap(caller_stop_flag);
    absl::Status emitted = body(fn, remap);
    context.stop_flag = caller_stop_flag;
    RETURN_IF_ERROR(emitted);
    b->CreateRetVoid();
  }
  if (context.sharing != nullptr && !context.sharing_key.empty()) {
    // Never inlined: its alias scopes describe the first caller's buffers,
    // which equal the others' only up to renaming.
    fn->addFnAttr(llvm::Attribute::NoInline);
    fn = context.sharing->Share(absl::StrCat(context.sharing_key, "#", context.sharing_ordinal++), fn);
  }

  // The captured values, stored into a stack array of the caller.
  llvm::Function* caller = b->GetInsertBlock()->getParent();
  llvm::IRBuilder<> alloca_builder(&caller->getEntryBlock(), caller->getEntryBlock().begin());
  llvm::Value* array =
      alloca_builder.CreateAlloca(ptr, b->getInt64(std::max<size_t>(captured.size(), 1)), name + ".captured");
  for (size_t i = 0; i < captured.size(); ++i) {
    b->CreateStore(captured[i], b->CreateConstInBoundsGEP1_64(ptr, array, i));
  }
  return OutlinedFunction{fn, array};
}

absl::Status EmitParallelRange(EmitContext& context, int64_t n, const std::string& name,
                               const ElementCost& cost, int64_t total_work, const RangeBody& body) {
  llvm::IRBuilder<>* b = context.b;
  llvm::Value* device = context.device;
  const bool parallel = device != nullptr && n >= 2 && total_work >= kMinParallelWork;
  if (!parallel && !(context.outline_all_ranges && n >= 1)) {
    const ValueRemap identity = [](llvm::Value* v) { return v; };
    return body(b->getInt64(0), b->getInt64(n), identity);
  }
  llvm::Module* module = b->GetInsertBlock()->getModule();
  llvm::Type* ptr = b->getPtrTy();
  llvm::Type* i64 = b->getInt64Ty();
  ASSIGN_OR_RETURN(
      OutlinedFunction range,
      EmitOutlinedFunction(context, name + (parallel ? ".parallel" : ".serial"), {i64, i64},
                           [&](llvm::Function* fn, const ValueRemap& remap) {
                             if (n >= kAlignedChunksMinItems) {  // the runtime's ranges then start at multiples
                               b->CreateAssumption(b->CreateICmpEQ(
                                   b->CreateURem(fn->getArg(1), b->getInt64(kParallelForChunkMultiple)),
                                   b->getInt64(0)));
                             }
                             return body(fn->getArg(1), fn->getArg(2), remap);
                           }));
  llvm::Type* f64 = b->getDoubleTy();
  llvm::FunctionCallee parallel_for = module->getOrInsertFunction(
      "__xla_cpu_runtime_ParallelFor",
      llvm::FunctionType::get(b->getVoidTy(), {ptr, ptr, ptr, i64, f64, f64, f64}, false));
  llvm::Value* run_on = parallel ? device : llvm::ConstantPointerNull::get(b->getPtrTy());
  b->CreateCall(parallel_for, {run_on, range.function, range.captured, b->getInt64(n),
                               llvm::ConstantFP::get(f64, cost.bytes_loaded),
                               llvm::ConstantFP::get(f64, cost.bytes_stored), llvm::ConstantFP::get(f64, cost.cycles)});
  return absl::OkStatus();
}

absl::Status EmitParallelLoopNest(EmitContext& context, const Shape& shape,
                                  const std::string& name, const ElementCost& cost, int64_t inner_work,
                                  const std::function<absl::Status(const IrIndex&, const ValueRemap&)>& body) {
  return EmitParallelLoopNest(context, shape, name, cost, inner_work, LoopPieces{},
                              [&](const IrIndex& index, int64_t, const ValueRemap& remap) { return body(index, remap); });
}

absl::Status EmitParallelLoopNest(
    EmitContext& context, const Shape& shape, const std::string& name, const ElementCost& cost,
    int64_t inner_work, const LoopPieces& pieces,
    const std::function<absl::Status(const IrIndex&, int64_t piece, const ValueRemap&)>& body) {
  llvm::IRBuilder<>* b = context.b;
  if (shape.rank() == 0) {
    const ValueRemap identity = [](llvm::Value* v) { return v; };
    return EmitLoopNestForShape(context, shape, name, [&](const IrIndex& index) { return body(index, -1, identity); });
  }
  const std::vector<int64_t>& dims = shape.dimensions();
  const auto& minor_to_major = shape.layout().minor_to_major();
  const int64_t elements = ShapeUtil::ElementsIn(shape);
  const int rank = static_cast<int>(minor_to_major.size());
  // The range's items are rows of the most-major dimension, after skipping
  // major dimensions of size 1 (a batch of one: [1,75,75,64] would otherwise
  // be one item, run on one thread; see MajorRangeLevel). A dimension with fewer than
  // kMinRangeDimension rows is merged with the next one (items are then
  // pairs of indices), unless that one is the minor-most dimension, which
  // stays a loop of its own for the vectorizer.
  constexpr int64_t kMinRangeDimension = 16;
  const int major = MajorRangeLevel(shape);
  std::vector<int64_t> range_dims = {minor_to_major[major]};
  if (dims[range_dims[0]] < kMinRangeDimension && major >= 2) range_dims.push_back(minor_to_major[major - 1]);
  int64_t items = 1;
  for (int64_t d : range_dims) items *= dims[d];
  const std::vector<int64_t> inner_minor_to_major(minor_to_major.begin(),
                                                  minor_to_major.begin() + (major + 1 - range_dims.size()));
  const int64_t work = std::max<int64_t>(inner_work, 1);
  // Per item of the range: one row of the inner dimensions.
  const double inner_elements = items > 0 ? static_cast<double>(elements / items) : 0.0;
  ElementCost row_cost;
  row_cost.bytes_loaded = cost.bytes_loaded * inner_elements;
  row_cost.bytes_stored = cost.bytes_stored * inner_elements;
  row_cost.cycles = cost.cycles * inner_elements * static_cast<double>(work);
  return EmitParallelRange(
      context, items, name, row_cost, elements * work,
      [&](llvm::Value* begin, llvm::Value* end, const ValueRemap& remap) {
        return EmitForLoop(context, begin, end, name + ".outer", [&](llvm::Value* item) {
          IrIndex outer(rank, nullptr);
          for (int level = major + 1; level < rank; ++level) outer[minor_to_major[level]] = b->getInt64(0);
          if (range_dims.size() == 1) {
            outer[range_dims[0]] = item;
          } else {
            llvm::Value* rows = b->getInt64(dims[range_dims[1]]);
            outer[range_dims[0]] = b->CreateUDiv(item, rows);
            outer[range_dims[1]] = b->CreateURem(item, rows);
          }
          return EmitLoopNest(context, dims, inner_minor_to_major, name, pieces, [&](const IrIndex& inner, int64_t piece) {
            IrIndex index = inner;
            for (int d = 0; d < rank; ++d) {
              if (outer[d] != nullptr) index[d] = outer[d];
            }
            return body(index, piece, remap);
          });
        });
      });
}

}  // namespace cpu
}  // namespace xla
