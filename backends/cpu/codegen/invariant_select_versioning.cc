#include "backends/cpu/codegen/invariant_select_versioning.h"

#include <vector>

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

namespace xla {
namespace cpu {

namespace {

// The scalar conditions of `loop`'s selects that are computed outside it
// (constants are InstCombine's business), and how many selects use them.
int64_t InvariantSelectConditions(const llvm::Loop& loop, llvm::SmallSetVector<llvm::Value*, 8>* conditions) {
  int64_t selects = 0;
  for (llvm::BasicBlock* block : loop.blocks()) {
    for (llvm::Instruction& inst : *block) {
      auto* select = llvm::dyn_cast<llvm::SelectInst>(&inst);
      if (select == nullptr) continue;
      llvm::Value* condition = select->getCondition();
      if (!condition->getType()->isIntegerTy(1) || llvm::isa<llvm::Constant>(condition) ||
          !loop.isLoopInvariant(condition)) {
        continue;
      }
      conditions->insert(condition);
      ++selects;
    }
  }
  return selects;
}

int64_t InstructionCount(const llvm::Loop& loop) {
  int64_t count = 0;
  for (const llvm::BasicBlock* block : loop.blocks()) count += static_cast<int64_t>(block->size());
  return count;
}

// Versions `loop` as described in the header, when it qualifies (its shape,
// its size, enough invariant selects); returns whether the function changed.
bool VersionOnInvariantSelects(llvm::Loop* loop, llvm::LoopInfo& loop_info, llvm::DominatorTree& dominators) {
  if (loop->getUniqueExitBlock() == nullptr || InstructionCount(*loop) > kMaxVersionedLoopInstructions) return false;
  llvm::SmallSetVector<llvm::Value*, 8> conditions;
  if (InvariantSelectConditions(*loop, &conditions) < kMinInvariantSelects) return false;
  // The function passes since the last loop pass may have left the loop
  // without a preheader or dedicated exits, or folded its LCSSA phis (a sum
  // used after the loop): canonical form again, as the vectorizer does.
  bool changed = llvm::simplifyLoop(loop, &dominators, &loop_info, nullptr, nullptr, nullptr, /*PreserveLCSSA=*/false);
  changed |= llvm::formLCSSA(*loop, dominators, &loop_info, nullptr);
  llvm::BasicBlock* preheader = loop->getLoopPreheader();
  llvm::BasicBlock* exit = loop->getUniqueExitBlock();
  if (preheader == nullptr || exit == nullptr || !loop->hasDedicatedExits()) return changed;

  // preheader (now the check) -> original preheader -> loop, and a copy of
  // that preheader and loop beside it.
  llvm::BasicBlock* check = preheader;
  llvm::BasicBlock* general_preheader = llvm::SplitBlock(check, check->getTerminator(), &dominators, &loop_info,
                                                         nullptr, loop->getHeader()->getName() + ".ph");
  llvm::ValueToValueMapTy map;
  llvm::SmallVector<llvm::BasicBlock*, 8> copy_blocks;
  llvm::Loop* copy = llvm::cloneLoopWithPreheader(general_preheader, check, loop, map, ".invariant", &loop_info,
                                                  &dominators, copy_blocks);
  llvm::remapInstructionsInBlocks(copy_blocks, map);

  // Both loops leave through `exit`: its LCSSA phis take the copy's values
  // from the copy's exiting blocks.
  for (llvm::PHINode& phi : exit->phis()) {
    const unsigned incoming = phi.getNumIncomingValues();
    for (unsigned i = 0; i < incoming; ++i) {
      llvm::BasicBlock* from = phi.getIncomingBlock(i);
      if (!loop->contains(from)) continue;
      llvm::Value* value = phi.getIncomingValue(i);
      llvm::Value* copied = map.lookup(value);
      phi.addIncoming(copied != nullptr ? copied : value, llvm::cast<llvm::BasicBlock>(map[from]));
    }
  }
  dominators.changeImmediateDominator(exit, check);

  // The copy runs when every condition holds: its selects take their first
  // operand.
  llvm::IRBuilder<> builder(check->getTerminator());
  llvm::Value* all = conditions[0];
  for (size_t i = 1; i < conditions.size(); ++i) all = builder.CreateAnd(all, conditions[i], "invariant.selects.hold");
  builder.CreateCondBr(all, copy->getLoopPreheader(), general_preheader);
  check->getTerminator()->eraseFromParent();
  for (llvm::BasicBlock* block : copy->blocks()) {
    for (llvm::Instruction& inst : llvm::make_early_inc_range(*block)) {
      auto* select = llvm::dyn_cast<llvm::SelectInst>(&inst);
      if (select == nullptr || !conditions.contains(select->getCondition())) continue;
      select->replaceAllUsesWith(select->getTrueValue());
      select->eraseFromParent();
    }
  }
  // `exit` now has predecessors in two loops: each gets exit blocks of its
  // own again (loop-simplify form, which the vectorizer expects).
  llvm::formDedicatedExitBlocks(loop, &dominators, &loop_info, nullptr, /*PreserveLCSSA=*/true);
  llvm::formDedicatedExitBlocks(copy, &dominators, &loop_info, nullptr, /*PreserveLCSSA=*/true);
  return true;
}

}  // namespace

llvm::PreservedAnalyses InvariantSelectVersioningPass::run(llvm::Function& function,
                                                          llvm::FunctionAnalysisManager& analyses) {
  llvm::LoopInfo& loop_info = analyses.getResult<llvm::LoopAnalysis>(function);
  llvm::DominatorTree& dominators = analyses.getResult<llvm::DominatorTreeAnalysis>(function);
  std::vector<llvm::Loop*> innermost;
  for (llvm::Loop* loop : loop_info.getLoopsInPreorder()) {
    if (loop->isInnermost()) innermost.push_back(loop);
  }
  bool changed = false;
  for (llvm::Loop* loop : innermost) changed |= VersionOnInvariantSelects(loop, loop_info, dominators);
  if (!changed) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses preserved;
  preserved.preserve<llvm::LoopAnalysis>();
  preserved.preserve<llvm::DominatorTreeAnalysis>();
  return preserved;
}

}  // namespace cpu
}  // namespace xla
