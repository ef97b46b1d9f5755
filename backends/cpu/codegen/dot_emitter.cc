// Dots through the runtime's matmul kernels (matmul_plan.h): the call, and
// the elementwise epilogue the kernel applies block by block when a dot's
// only use is a chain ending at a materialized value.
#include "backends/cpu/codegen/dot_emitter.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/alias_analysis.h"
#include "backends/cpu/codegen/buffer_assignment.h"
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

bool DotEmitter::UsesRuntime(const HloInstruction& hlo) { return PlanRuntimeMatMul(hlo).has_value(); }

absl::Status DotEmitter::EmitRuntimeMatMul(const HloInstruction& dot, const HloInstruction* epilogue) {
  const std::optional<MatMulPlan> plan = PlanRuntimeMatMul(dot);
  if (!plan.has_value()) return Internal("CPU backend: %s: not a runtime matmul", dot.name());
  const int64_t m = plan->m, n = plan->n, k = plan->k, batch = plan->batch;
  const bool transpose_lhs = plan->transpose_lhs, transpose_rhs = plan->transpose_rhs;
  const bool f32 = dot.shape().element_type() == F32;
  llvm::Type* elem = f32 ? b_.getFloatTy() : b_.getDoubleTy();
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::FunctionCallee matmul = module_->getOrInsertFunction(
      f32 ? "__xla_cpu_runtime_MatMulF32" : "__xla_cpu_runtime_MatMulF64",
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, ptr, ptr, i64, i64, i64, i32, i32, ptr, ptr, ptr}, false));
  llvm::Value* device = ctx_.device != nullptr ? ctx_.device : llvm::ConstantPointerNull::get(b_.getPtrTy());
  ASSIGN_OR_RETURN(llvm::Value * out, buffers_.AddressOf(epilogue != nullptr ? epilogue : &dot));
  ASSIGN_OR_RETURN(llvm::Value * a, buffers_.AddressOf(dot.operand(0)));
  ASSIGN_OR_RETURN(llvm::Value * bm, buffers_.AddressOf(dot.operand(1)));
  llvm::Value* epilogue_fn = llvm::ConstantPointerNull::get(b_.getPtrTy());
  llvm::Value* epilogue_context = llvm::ConstantPointerNull::get(b_.getPtrTy());
  if (epilogue != nullptr) {
    // epilogue(captured, out, row_begin, row_end, col_begin, col_end): the
    // epilogue's expression over the block, the dot's values read from the
    // block itself (each element is read before it is overwritten).
    const std::string name = epilogue->name() + ".epilogue";
    ASSIGN_OR_RETURN(
        OutlinedFunction fn,
        EmitOutlinedFunction(ctx_, name, {ptr, i64, i64, i64, i64},
            [&](llvm::Function* function, const ValueRemap& remap) -> absl::Status {
              function->addParamAttr(1, llvm::Attribute::NoAlias);  // the only access to its buffer
              llvm::Value* block = function->getArg(1);
              ElementalIrEmitter local(ctx_, [&](const HloInstruction* h) {
                return h == &dot ? block : remap(buffers_.BufferOf(h));
              });
              const std::vector<int64_t>& dims = epilogue->shape().dimensions();
              return EmitForLoop(ctx_, function->getArg(2), function->getArg(3), name + ".row", [&](llvm::Value* row) {
                // The row's index in the leading (lhs free) dimensions, row-major.
                IrIndex index(dims.size());
                llvm::Value* rest = row;
                for (size_t d = dims.size() - 1; d-- > 0;) {
                  index[d] = d == 0 ? rest : b_.CreateURem(rest, b_.getInt64(dims[d]));
                  if (d > 0) rest = b_.CreateUDiv(rest, b_.getInt64(dims[d]));
                }
                return EmitForLoop(ctx_, function->getArg(4), function->getArg(5), name + ".col",
                                   [&](llvm::Value* col) -> absl::Status {
                                     index.back() = col;
                                     ASSIGN_OR_RETURN(llvm::Value * v, local.GenerateElement(epilogue, index));
                                     local.StoreElement(v, block, epilogue->shape(), index);
                                     return absl::OkStatus();
                                   });
              });
            }));
    epilogue_fn = fn.function;
    epilogue_context = fn.captured;
  }
  return EmitForLoop(ctx_, batch, dot.name() + ".batch", [&](llvm::Value* i) {
    auto at = [&](llvm::Value* base, int64_t size) {
      return b_.CreateInBoundsGEP(elem, base, {b_.CreateMul(i, b_.getInt64(size))});
    };
    b_.CreateCall(matmul, {device, at(out, m * n), at(a, m * k), at(bm, k * n), b_.getInt64(m), b_.getInt64(n),
                           b_.getInt64(k), b_.getInt32(transpose_lhs), b_.getInt32(transpose_rhs), epilogue_fn,
                           epilogue_context, ctx_.StopFlagArgument()});
    return absl::OkStatus();
  });
}

}  // namespace cpu
}  // namespace xla
