#include "backends/cpu/codegen/alias_analysis.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Metadata.h"

namespace xla {
namespace cpu {

namespace {

// On base pointers and on tagged accesses: !{i64 kind, i64 begin, i64 end}.
constexpr char kBufferKind[] = "xla.buffer";
constexpr char kAccessKind[] = "xla.buffer.access";
// Beyond this many regions the quadratic noalias lists cost more compile
// time than they are worth: nothing is attached.
constexpr size_t kMaxRegions = 1024;

llvm::MDNode* RegionNode(llvm::LLVMContext& ctx, const BufferRegion& region) {
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  return llvm::MDNode::get(ctx, {llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i64, region.kind)),
                                 llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i64, region.begin)),
                                 llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i64, region.end))});
}

BufferRegion RegionOf(const llvm::MDNode& node) {
  auto field = [&](int i) {
    return llvm::mdconst::extract<llvm::ConstantInt>(node.getOperand(i))->getSExtValue();
  };
  return {static_cast<BufferRegion::Kind>(field(0)), field(1), field(2)};
}

}  // namespace

bool MayOverlap(const BufferRegion& a, const BufferRegion& b) {
  if (a.kind != b.kind) return false;
  return a.begin < b.end && b.begin < a.end;
}

void MarkBufferRegion(llvm::Value* base, const BufferRegion& region) {
  auto* inst = llvm::dyn_cast_or_null<llvm::Instruction>(base);
  if (inst == nullptr || region.end <= region.begin) return;
  inst->setMetadata(kBufferKind, RegionNode(inst->getContext(), region));
}

void CopyBufferRegion(llvm::Value* base, llvm::Value* copy) {
  auto* from = llvm::dyn_cast_or_null<llvm::Instruction>(base);
  auto* to = llvm::dyn_cast_or_null<llvm::Instruction>(copy);
  if (from == nullptr || to == nullptr) return;
  if (llvm::MDNode* node = from->getMetadata(kBufferKind)) to->setMetadata(kBufferKind, node);
}

std::optional<BufferRegion> RegionOfMark(unsigned kind, const llvm::MDNode& node) {
  llvm::LLVMContext& ctx = node.getContext();
  if (kind != ctx.getMDKindID(kBufferKind) && kind != ctx.getMDKindID(kAccessKind)) return std::nullopt;
  return RegionOf(node);
}

void TagBufferAccess(llvm::Instruction* access, llvm::Value* base) {
  auto* inst = llvm::dyn_cast_or_null<llvm::Instruction>(base);
  if (access == nullptr || inst == nullptr) return;
  if (llvm::MDNode* node = inst->getMetadata(kBufferKind)) access->setMetadata(kAccessKind, node);
}

void AttachAliasScopes(llvm::Module& module) {
  llvm::LLVMContext& ctx = module.getContext();
  const unsigned buffer_kind = ctx.getMDKindID(kBufferKind);
  const unsigned access_kind = ctx.getMDKindID(kAccessKind);
  // Region nodes are uniqued: equal regions are one node.
  std::vector<llvm::MDNode*> regions;
  absl::flat_hash_map<llvm::MDNode*, size_t> region_index;
  std::vector<std::pair<llvm::Instruction*, size_t>> accesses;
  for (llvm::Function& fn : module) {
    for (llvm::Instruction& inst : llvm::instructions(fn)) {
      inst.setMetadata(buffer_kind, nullptr);
      llvm::MDNode* node = inst.getMetadata(access_kind);
      if (node == nullptr) continue;
      inst.setMetadata(access_kind, nullptr);
      auto [it, inserted] = region_index.try_emplace(node, regions.size());
      if (inserted) regions.push_back(node);
      accesses.push_back({&inst, it->second});
    }
  }
  if (regions.size() < 2 || regions.size() > kMaxRegions) return;
  std::vector<BufferRegion> parsed;
  for (llvm::MDNode* node : regions) parsed.push_back(RegionOf(*node));
  llvm::MDBuilder md(ctx);
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain("xla.buffers");
  std::vector<llvm::Metadata*> scopes;
  for (const BufferRegion& r : parsed) {
    const char* kind = r.kind == BufferRegion::kParam    ? "param"
                       : r.kind == BufferRegion::kResult ? "result"
                       : r.kind == BufferRegion::kArena  ? "arena"
                                                         : "row-scratch";
    scopes.push_back(md.createAnonymousAliasScope(domain, absl::StrCat(kind, "[", r.begin, ",", r.end, ")")));
  }
  std::vector<llvm::MDNode*> scope_lists, noalias_lists;
  for (size_t i = 0; i < parsed.size(); ++i) {
    std::vector<llvm::Metadata*> others;
    for (size_t j = 0; j < parsed.size(); ++j) {
      if (!MayOverlap(parsed[i], parsed[j])) others.push_back(scopes[j]);
    }
    scope_lists.push_back(llvm::MDNode::get(ctx, {scopes[i]}));
    noalias_lists.push_back(others.empty() ? nullptr : llvm::MDNode::get(ctx, others));
  }
  for (const auto& [inst, region] : accesses) {
    inst->setMetadata(llvm::LLVMContext::MD_alias_scope, scope_lists[region]);
    if (noalias_lists[region] != nullptr) inst->setMetadata(llvm::LLVMContext::MD_noalias, noalias_lists[region]);
  }
}

}  // namespace cpu
}  // namespace xla
