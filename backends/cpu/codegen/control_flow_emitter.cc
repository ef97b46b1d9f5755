// While, conditional and call as real control flow inside the one emitted
// function (IrEmitter::EmitControlFlow).
//
//   while:       the loop state lives in the while's own arena leaves (tuple
//                state flattened depth-first). Init is copied in; then
//                header: condition(state) -> pred slot; branch to body or exit
//                body:   body(state) -> separate "next" leaves, copied back
//                        into the state (the body may read any state leaf
//                        while writing any result leaf), branch to header.
//   conditional: pred (true -> branch 0) or s32 index (out of range -> last
//                branch, as the evaluator) selects a block by br/switch; each
//                branch computation writes the conditional's leaves.
//   call:        the callee emitted inline on the operands' leaves.
//   select:      of tuples by a scalar pred: a branch copying the chosen
//                operand's leaves into the select's.
//   copy:        of a tuple: each leaf copied into the copy's layout.
//   A branch or callee whose root has other layouts than the instruction
//   writes scratch leaves, copied into the instruction's.
//
// Computations are emitted inline at their call site (IrEmitter::
// EmitComputation), each with arena space of its own (no reuse yet).
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/cpu/codegen/ir_emitter_internal.h"
#include "llvm/IR/Function.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

using ir_emitter_internal::FlattenShape;

absl::Status IrEmitter::EmitControlFlow(const HloInstruction& hlo) {
  llvm::LLVMContext& ctx = module_->getContext();
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> out, LeafAddresses(*trees_.at(&hlo)));
  std::vector<Shape> out_shapes;
  FlattenShape(hlo.shape(), &out_shapes);
  auto operand_leaves = [&](const HloInstruction* operand) -> absl::StatusOr<std::vector<llvm::Value*>> {
    return LeafAddresses(*trees_.at(operand));
  };
  // Copies each leaf of `from` (in `from_shapes`) into `to` (in `to_shapes`).
  auto copy_leaves = [&](const std::vector<llvm::Value*>& from, const std::vector<Shape>& from_shapes,
                         const std::vector<llvm::Value*>& to, const std::vector<Shape>& to_shapes,
                         absl::string_view what) -> absl::Status {
    if (from.size() != to.size() || from_shapes.size() != from.size() || to_shapes.size() != to.size()) {
      return InvalidArgument("CPU backend: %s: %s leaves do not match", hlo.name(), what);
    }
    for (size_t j = 0; j < to.size(); ++j) {
      RETURN_IF_ERROR(EmitCopy(from[j], from_shapes[j], to[j], to_shapes[j], absl::StrCat(hlo.name(), ".", what)));
    }
    return absl::OkStatus();
  };
  // `leaves` (of `have` shapes) in the layouts `computation` expects of its
  // parameter `number`, copied where they differ: a computation reads its
  // parameters in their own layouts, which may differ from its operand's
  // (the simplifier drops a layout-changing reshape or copy as a logical
  // no-op).
  auto relaid_for = [&](std::vector<llvm::Value*> leaves, const std::vector<Shape>& have,
                        const HloComputation& computation, int64_t number) -> absl::StatusOr<std::vector<llvm::Value*>> {
    std::vector<Shape> want;
    FlattenShape(computation.parameter_instruction(number)->shape(), &want);
    if (have.size() != leaves.size() || want.size() != leaves.size()) {
      return InvalidArgument("CPU backend: %s: an operand does not match %s's parameter %d", hlo.name(),
                             computation.name(), number);
    }
    for (size_t j = 0; j < leaves.size(); ++j) {
      if (have[j] == want[j]) continue;
      ASSIGN_OR_RETURN(llvm::Value * relaid, NextScratchSlot(ShapeUtil::ByteSizeOfElements(want[j])));
      RETURN_IF_ERROR(EmitCopy(leaves[j], have[j], relaid, want[j], absl::StrCat(hlo.name(), ".argument")));
      leaves[j] = relaid;
    }
    return leaves;
  };
  auto argument_leaves = [&](const HloInstruction* operand, const HloComputation& computation,
                             int64_t number) -> absl::StatusOr<std::vector<llvm::Value*>> {
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> leaves, operand_leaves(operand));
    return relaid_for(std::move(leaves), LeafShapes(*trees_.at(operand)), computation, number);
  };
  // Emits a branch or callee writing the instruction's leaves. A computation
  // writes its results in its root's layout: where that differs from the
  // instruction's, it writes scratch leaves that are then copied over.
  auto emit_into_out = [&](const HloComputation& computation, std::vector<llvm::Value*> args) -> absl::Status {
    const Shape& root_shape = computation.root_instruction()->shape();
    if (root_shape == hlo.shape()) return EmitComputation(computation, std::move(args), out);
    std::vector<Shape> root_shapes;
    FlattenShape(root_shape, &root_shapes);
    if (root_shapes.size() != out.size()) {
      return InvalidArgument("CPU backend: %s: %s returns %s", hlo.name(), computation.name(), root_shape.ToString());
    }
    std::vector<llvm::Value*> scratch;
    for (const Shape& s : root_shapes) {
      ASSIGN_OR_RETURN(llvm::Value * slot, NextScratchSlot(ShapeUtil::ByteSizeOfElements(s)));
      scratch.push_back(slot);
    }
    RETURN_IF_ERROR(EmitComputation(computation, std::move(args), scratch));
    return copy_leaves(scratch, root_shapes, out, out_shapes, "relayout");
  };
  switch (hlo.opcode()) {
    case HloOpcode::kSelect: {
      const HloInstruction* pred = hlo.operand(0);
      if (!ShapeUtil::IsScalar(pred->shape()) || pred->shape().element_type() != PRED) {
        return InvalidArgument("CPU backend: %s: selecting tuples needs a pred scalar", hlo.name());
      }
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> sel, operand_leaves(pred));
      ElementalIrEmitter elemental(ctx_, [](const HloInstruction*) { return nullptr; });
      llvm::Value* p = elemental.LoadElement(sel.at(0), pred->shape(), {});
      auto* merge = llvm::BasicBlock::Create(ctx, hlo.name() + ".merge", fn);
      llvm::BasicBlock* blocks[2] = {llvm::BasicBlock::Create(ctx, hlo.name() + ".true", fn, merge),
                                     llvm::BasicBlock::Create(ctx, hlo.name() + ".false", fn, merge)};
      b_.CreateCondBr(p, blocks[0], blocks[1]);
      for (int i = 0; i < 2; ++i) {
        b_.SetInsertPoint(blocks[i]);
        const HloInstruction* operand = hlo.operand(1 + i);
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> in, operand_leaves(operand));
        RETURN_IF_ERROR(copy_leaves(in, LeafShapes(*trees_.at(operand)), out, out_shapes, "copy"));
        b_.CreateBr(merge);
      }
      b_.SetInsertPoint(merge);
      return absl::OkStatus();
    }
    case HloOpcode::kCopy: {  // of a tuple: leaf by leaf, each into its own layout
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> in, operand_leaves(hlo.operand(0)));
      return copy_leaves(in, LeafShapes(*trees_.at(hlo.operand(0))), out, out_shapes, "leaf");
    }
    case HloOpcode::kCall: {
      std::vector<llvm::Value*> args;
      for (int64_t k = 0; k < hlo.operand_count(); ++k) {
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> leaves, argument_leaves(hlo.operand(k), *hlo.to_apply(), k));
        args.insert(args.end(), leaves.begin(), leaves.end());
      }
      return emit_into_out(*hlo.to_apply(), std::move(args));
    }
    case HloOpcode::kWhile: {
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> init, operand_leaves(hlo.operand(0)));
      RETURN_IF_ERROR(copy_leaves(init, LeafShapes(*trees_.at(hlo.operand(0))), out, out_shapes, "init"));
      std::vector<llvm::Value*> next;
      for (const Shape& s : out_shapes) {
        ASSIGN_OR_RETURN(llvm::Value * slot, NextScratchSlot(ShapeUtil::ByteSizeOfElements(s)));
        next.push_back(slot);
      }
      ASSIGN_OR_RETURN(llvm::Value * pred, NextScratchSlot(1));
      auto* header = llvm::BasicBlock::Create(ctx, hlo.name() + ".header", fn);
      auto* body = llvm::BasicBlock::Create(ctx, hlo.name() + ".body", fn);
      auto* exit = llvm::BasicBlock::Create(ctx, hlo.name() + ".exit", fn);
      // Every 1024th iteration asks the run's ExecutionControl whether to
      // stop (deadline or cancel); stopping returns from the entry function.
      llvm::IRBuilder<> entry_builder(&fn->getEntryBlock(), fn->getEntryBlock().begin());
      llvm::AllocaInst* trips = entry_builder.CreateAlloca(b_.getInt64Ty(), nullptr, hlo.name() + ".trips");
      b_.CreateStore(b_.getInt64(0), trips);
      b_.CreateBr(header);
      b_.SetInsertPoint(header);
      llvm::Value* trip = b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), trips), b_.getInt64(1));
      b_.CreateStore(trip, trips);
      auto* ask = llvm::BasicBlock::Create(ctx, hlo.name() + ".ask", fn, body);
      auto* cond = llvm::BasicBlock::Create(ctx, hlo.name() + ".cond", fn, body);
      b_.CreateCondBr(b_.CreateICmpEQ(b_.CreateAnd(trip, b_.getInt64(1023)), b_.getInt64(0)), ask, cond);
      b_.SetInsertPoint(ask);
      llvm::FunctionCallee should_stop = module_->getOrInsertFunction(
          "__xla_runtime_ShouldStop", llvm::FunctionType::get(b_.getInt1Ty(), {b_.getPtrTy()}, false));
      b_.CreateCondBr(b_.CreateCall(should_stop, {control_}), AbortBlock(), cond);
      b_.SetInsertPoint(cond);
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> cond_state, relaid_for(out, out_shapes, *hlo.while_condition(), 0));
      RETURN_IF_ERROR(EmitComputation(*hlo.while_condition(), std::move(cond_state), {pred}));
      b_.CreateCondBr(b_.CreateICmpNE(b_.CreateLoad(b_.getInt8Ty(), pred), b_.getInt8(0)), body, exit);
      b_.SetInsertPoint(body);
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> body_state, relaid_for(out, out_shapes, *hlo.while_body(), 0));
      RETURN_IF_ERROR(EmitComputation(*hlo.while_body(), std::move(body_state), next));
      const std::vector<Shape> body_shapes = [&] {
        std::vector<Shape> v;
        FlattenShape(hlo.while_body()->root_instruction()->shape(), &v);
        return v;
      }();
      // The body's results are written in its root's layout.
      RETURN_IF_ERROR(copy_leaves(next, body_shapes, out, out_shapes, "next"));
      b_.CreateBr(header);
      b_.SetInsertPoint(exit);
      return absl::OkStatus();
    }
    case HloOpcode::kConditional: {
      const HloInstruction* selector = hlo.operand(0);
      const auto branches = hlo.branch_computations();
      const int64_t n = static_cast<int64_t>(branches.size());
      if (n == 0 || hlo.operand_count() != n + 1) return Internal("CPU backend: malformed conditional");
      const PrimitiveType type = selector->shape().element_type();
      if (selector->shape().rank() != 0 || (type != PRED && type != S32) || (type == PRED && n != 2)) {
        return absl::UnimplementedError(absl::StrCat("CPU backend: conditional selector ",
                                                     selector->shape().ToString(), " (in ", hlo.ToString(), ")"));
      }
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> sel, operand_leaves(selector));
      ElementalIrEmitter elemental(ctx_, [](const HloInstruction*) { return nullptr; });
      llvm::Value* index = elemental.LoadElement(sel.at(0), selector->shape(), {});
      auto* merge = llvm::BasicBlock::Create(ctx, hlo.name() + ".merge", fn);
      std::vector<llvm::BasicBlock*> blocks;
      for (int64_t i = 0; i < n; ++i) {
        blocks.push_back(llvm::BasicBlock::Create(ctx, absl::StrCat(hlo.name(), ".branch", i), fn, merge));
      }
      if (type == PRED) {
        b_.CreateCondBr(index, blocks[0], blocks[1]);
      } else {
        llvm::SwitchInst* sw = b_.CreateSwitch(index, blocks[n - 1], n - 1);
        for (int64_t i = 0; i + 1 < n; ++i) sw->addCase(b_.getInt32(i), blocks[i]);
      }
      for (int64_t i = 0; i < n; ++i) {
        b_.SetInsertPoint(blocks[i]);
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> args, argument_leaves(hlo.operand(i + 1), *branches[i], 0));
        RETURN_IF_ERROR(emit_into_out(*branches[i], std::move(args)));
        b_.CreateBr(merge);
      }
      b_.SetInsertPoint(merge);
      return absl::OkStatus();
    }
    default:
      return Internal("CPU backend: %s is not control flow", hlo.name());
  }
}

}  // namespace cpu
}  // namespace xla
