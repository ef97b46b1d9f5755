#include "backends/cpu/codegen/loop_emitter.h"

#include <initializer_list>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

namespace {

// Loops emitted so far on this thread: a loop whose body emitted none is
// innermost.

// Rough latency-bound work of one iteration: the value-computing
// instructions (memory, address and control instructions excluded).
int64_t BodyCost(const llvm::BasicBlock& first, const llvm::BasicBlock* skip) {
  int64_t cost = 0;
  for (auto it = first.getIterator(), end = first.getParent()->end(); it != end; ++it) {
    if (&*it == skip) continue;
    for (const llvm::Instruction& inst : *it) {
      if (llvm::isa<llvm::BinaryOperator, llvm::UnaryOperator, llvm::CastInst, llvm::CmpInst, llvm::SelectInst,
                    llvm::IntrinsicInst>(inst)) {
        ++cost;
      }
    }
  }
  return cost;
}

// Interleave count for an innermost loop of `cost` per iteration: loops
// this long (e.g. a fused tanh polynomial) are bound by one iteration's
// dependency chain, so running 4 independent vector iterations at once keeps
// the FP units busy (measured on GELU: 4 beats 2 by ~10% and no hint by ~25%;
// on exp, 4 beats LLVM's own choice by ~20%, despite the spills of loop
// constants it costs on 16-register AVX2); cheaper ones are left to LLVM's
// cost model. 8 spills more than it overlaps: GELU 5% and Mish (x *
// tanh(log(1 + e^x)), ~75 vector instructions) 35% slower than with 4.
int InterleaveCount(int64_t cost) { return cost >= kLongLoopBodyCost ? 4 : 0; }

}  // namespace

absl::Status EmitForLoop(EmitContext& context, int64_t trip_count, const std::string& name,
                         const std::function<absl::Status(llvm::Value*)>& body) {
  llvm::IRBuilder<>* b = context.b;
  return EmitForLoop(context, b->getInt64(0), b->getInt64(trip_count), name, body);
}

absl::Status EmitForLoop(EmitContext& context, llvm::Value* begin, llvm::Value* end, const std::string& name,
                         const std::function<absl::Status(llvm::Value*)>& body) {
  llvm::IRBuilder<>* b = context.b;
  llvm::Function* fn = b->GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b->getContext();
  llvm::BasicBlock* preheader = b->GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx, name + ".header", fn);
  llvm::BasicBlock* body_bb = llvm::BasicBlock::Create(ctx, name + ".body", fn);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx, name + ".exit", fn);
  b->CreateBr(header);

  b->SetInsertPoint(header);
  llvm::PHINode* iv = b->CreatePHI(b->getInt64Ty(), 2, name + ".iv");
  iv->addIncoming(begin, preheader);
  b->CreateCondBr(b->CreateICmpSLT(iv, end), body_bb, exit);

  b->SetInsertPoint(body_bb);
  const int64_t loops_before = context.loops_emitted++;
  RETURN_IF_ERROR(body(iv));
  // The body may have created blocks; the latch is wherever it ended.
  llvm::Value* next = b->CreateAdd(iv, b->getInt64(1), name + ".next", /*HasNUW=*/true, /*HasNSW=*/true);
  iv->addIncoming(next, b->GetInsertBlock());
  llvm::BranchInst* latch;
  if (context.loops_emitted > loops_before + 1 && context.stop_flag != nullptr) {
    // An outer loop leaves early once the run should stop: one volatile byte
    // load per iteration of a loop around loops costs nothing measurable,
    // and bounds the time to stop by one pass of the inner loops (innermost
    // loops stay free of it, for the vectorizer).
    llvm::LoadInst* stop = b->CreateLoad(b->getInt8Ty(), context.stop_flag, name + ".stop");
    stop->setVolatile(true);
    latch = b->CreateCondBr(b->CreateICmpNE(stop, b->getInt8(0)), exit, header);
  } else {
    latch = b->CreateBr(header);
  }
  // The loop's llvm.loop metadata with its hints, e.g. {"llvm.loop.unroll.disable"}.
  auto set_loop_hints = [&](std::initializer_list<llvm::ArrayRef<llvm::Metadata*>> hints) {
    std::vector<llvm::Metadata*> operands = {nullptr};
    for (llvm::ArrayRef<llvm::Metadata*> hint : hints) operands.push_back(llvm::MDNode::get(ctx, hint));
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(ctx, operands);
    loop_id->replaceOperandWith(0, loop_id);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  };
  llvm::Metadata* const unroll_disable[] = {llvm::MDString::get(ctx, "llvm.loop.unroll.disable")};
  if (context.loops_emitted > loops_before + 1) {
    // Not innermost: once its inner loops are unrolled fully, the unroller
    // would copy their code once per iteration of this one too (a [9,10,512]
    // slice: 640 vector stores in one block instead of 64). Such blocks make
    // no faster code, and the machine schedulers' dependency graphs grow
    // with their square: SSD-MobileNet compiled in 4.2-4.6 s instead of
    // 8.5-9.1 s, with the same run time.
    set_loop_hints({unroll_disable});
  } else if (context.loops_emitted == loops_before + 1) {
    // Blocks the body created follow `exit` (they are appended to fn).
    const int64_t cost = BodyCost(*body_bb, exit);
    auto* const_begin = llvm::dyn_cast<llvm::ConstantInt>(begin);
    auto* const_end = llvm::dyn_cast<llvm::ConstantInt>(end);
    if (const_begin != nullptr && const_end != nullptr &&
        const_end->getSExtValue() - const_begin->getSExtValue() < kMinVectorizedTripCount &&
        cost >= kLongLoopBodyCost) {
      // LLVM vectorizes loops this short only by masking the tail, and on
      // long bodies whose masked operations it must scalarize (bf16's i16
      // loads on AVX2) its sinking of their operands takes forever: a bf16
      // GELU over [7,5] never finished compiling. Fully unrolled (they are
      // short enough), the SLP vectorizer takes them instead.
      llvm::Metadata* const vectorize_disable[] = {llvm::MDString::get(ctx, "llvm.loop.vectorize.enable"),
                                                   llvm::ConstantAsMetadata::get(b->getFalse())};
      set_loop_hints({vectorize_disable});
    } else if (const int count = InterleaveCount(cost); count > 0) {
      llvm::Metadata* const interleave[] = {llvm::MDString::get(ctx, "llvm.loop.interleave.count"),
                                            llvm::ConstantAsMetadata::get(b->getInt32(count))};
      // Not unrolled either: the interleaved vector body is long already,
      // and a row of 128 floats (2 iterations of 4 interleaved 16-lane
      // vectors) was unrolled fully, doubling the code of every row-group
      // member for no run-time gain (the bench's chains compiled 10% faster
      // without; GELU and softmax ran the same).
      set_loop_hints({interleave, unroll_disable});
    }
  }

  b->SetInsertPoint(exit);
  return absl::OkStatus();
}

absl::Status EmitLoopNest(EmitContext& context, const std::vector<int64_t>& dims,
                          const std::vector<int64_t>& minor_to_major, const std::string& name,
                          const std::function<absl::Status(const IrIndex&)>& body) {
  return EmitLoopNest(context, dims, minor_to_major, name, LoopPieces{},
                      [&](const IrIndex& index, int64_t) { return body(index); });
}

absl::Status EmitLoopNest(EmitContext& context, const std::vector<int64_t>& dims,
                          const std::vector<int64_t>& minor_to_major, const std::string& name,
                          const LoopPieces& pieces,
                          const std::function<absl::Status(const IrIndex&, int64_t piece)>& body) {
  llvm::IRBuilder<>* b = context.b;
  IrIndex index(dims.size(), nullptr);
  int64_t piece = -1;
  // Recursion from the major-most dimension inwards.
  std::function<absl::Status(int)> emit = [&](int level) -> absl::Status {
    if (level < 0) return body(index, piece);
    const int64_t dim = minor_to_major[level];
    const std::string loop_name = absl::StrCat(name, ".d", dim);
    auto inner = [&](llvm::Value* iv) {
      index[dim] = iv;
      return emit(level - 1);
    };
    if (dim != pieces.dim) return EmitForLoop(context, dims[dim], loop_name, inner);
    for (size_t p = 0; p + 1 < pieces.starts.size(); ++p) {
      if (pieces.starts[p + 1] <= pieces.starts[p]) continue;
      piece = static_cast<int64_t>(p);
      RETURN_IF_ERROR(EmitForLoop(context, b->getInt64(pieces.starts[p]), b->getInt64(pieces.starts[p + 1]),
                                  absl::StrCat(loop_name, ".p", p), inner));
    }
    piece = -1;
    return absl::OkStatus();
  };
  return emit(static_cast<int>(minor_to_major.size()) - 1);
}

absl::Status EmitLoopNestForShape(EmitContext& context, const Shape& shape, const std::string& name,
                                  const std::function<absl::Status(const IrIndex&)>& body) {
  return EmitLoopNest(context, shape.dimensions(), shape.layout().minor_to_major(), name, body);
}

}  // namespace cpu
}  // namespace xla
