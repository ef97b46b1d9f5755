#include "backends/cpu/codegen/module_partition.h"

#include <algorithm>
#include <utility>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace xla {
namespace cpu {
namespace {

// Adds the functions whose instructions use `value` (directly or through
// constant expressions) to *functions; false when some use is not inside a
// function (another global's initializer), which the split does not handle.
bool AddUsingFunctions(const llvm::Value* value, std::vector<const llvm::Function*>* functions) {
  for (const llvm::User* user : value->users()) {
    if (const auto* instruction = llvm::dyn_cast<llvm::Instruction>(user)) {
      functions->push_back(instruction->getFunction());
    } else if (llvm::isa<llvm::Constant>(user) && !llvm::isa<llvm::GlobalValue>(user)) {
      if (!AddUsingFunctions(user, functions)) return false;
    } else {
      return false;
    }
  }
  return true;
}

// A symbol another part refers to: external, under a name no runtime
// function has (instruction names come from the program).
void Externalize(llvm::GlobalValue* value) {
  if (!value->hasLocalLinkage()) return;
  value->setLinkage(llvm::GlobalValue::ExternalLinkage);
  value->setVisibility(llvm::GlobalValue::DefaultVisibility);
  value->setDSOLocal(false);
  value->setName("__xla_part." + (value->hasName() ? value->getName().str() : std::string("global")));
}

}  // namespace

int PartitionModule(llvm::Module& module, int max_parts,
                    const std::function<void(int part, std::string bitcode)>& part_ready) {
  if (max_parts < 2 || !module.alias_empty() || !module.ifunc_empty()) return 0;

  // Groups of functions that must share a part: a direct call keeps callee
  // and caller together (so the callee can be inlined), unless the callee
  // is marked kSeparablePartAttribute.
  llvm::EquivalenceClasses<const llvm::Function*> groups;
  int64_t total_instructions = 0;
  for (const llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    groups.insert(&function);
    total_instructions += function.getInstructionCount();
  }
  const int64_t parts_by_size = total_instructions / kMinInstructionsPerPart;
  if (parts_by_size < 2) return 0;
  for (const llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    for (const llvm::Use& use : function.uses()) {
      const llvm::User* user = use.getUser();
      if (const auto* call = llvm::dyn_cast<llvm::CallBase>(user); call != nullptr && call->isCallee(&use)) {
        if (!function.hasFnAttribute(kSeparablePartAttribute)) groups.unionSets(&function, call->getFunction());
      } else if (!llvm::isa<llvm::Instruction>(user)) {
        return 0;  // e.g. a table of function pointers
      }
    }
  }

  // The groups, heaviest first, each to the lightest part so far.
  std::vector<std::pair<int64_t, const llvm::Function*>> weights;  // (instructions, leader)
  for (auto group = groups.begin(); group != groups.end(); ++group) {
    if (!group->isLeader()) continue;
    int64_t instructions = 0;
    for (auto member = groups.member_begin(group); member != groups.member_end(); ++member) {
      instructions += (*member)->getInstructionCount();
    }
    weights.emplace_back(instructions, group->getData());
  }
  const int parts = static_cast<int>(std::min<int64_t>({max_parts, parts_by_size, static_cast<int64_t>(weights.size())}));
  if (parts < 2) return 0;
  std::sort(weights.begin(), weights.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second->getName() < b.second->getName();
  });
  std::vector<int64_t> load(parts, 0);
  absl::flat_hash_map<const llvm::GlobalValue*, int> part_of;
  for (const auto& [instructions, leader] : weights) {
    const int lightest = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    load[lightest] += instructions;
    for (auto member = groups.findLeader(leader); member != groups.member_end(); ++member) {
      part_of[*member] = lightest;
    }
  }

  // Globals the split does not handle, found before anything is changed.
  std::vector<std::vector<const llvm::Function*>> global_users;
  for (llvm::GlobalVariable& global : module.globals()) {
    if (global.hasAppendingLinkage()) return 0;  // llvm.used and the like
    global_users.emplace_back();
    if (!global.isDeclaration() && !AddUsingFunctions(&global, &global_users.back())) return 0;
  }
  // Globals: with their only part, copied when small constants several
  // parts read, else in the first part that reads them.
  absl::flat_hash_map<const llvm::GlobalValue*, absl::btree_set<int>> copied_into;
  const llvm::DataLayout& layout = module.getDataLayout();
  size_t global_index = 0;
  for (llvm::GlobalVariable& global : module.globals()) {
    const std::vector<const llvm::Function*>& users = global_users[global_index++];
    if (global.isDeclaration()) continue;
    absl::btree_set<int> reading_parts;
    for (const llvm::Function* user : users) reading_parts.insert(part_of.at(user));
    if (reading_parts.size() > 1 && global.isConstant() && global.hasLocalLinkage() &&
        layout.getTypeAllocSize(global.getValueType()) <= kMaxCopiedConstantBytes) {
      copied_into[&global] = std::move(reading_parts);
      continue;
    }
    part_of[&global] = reading_parts.empty() ? 0 : *reading_parts.begin();
    if (reading_parts.size() > 1) Externalize(&global);
  }
  // Functions another part takes the address of.
  for (llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    const int home = part_of.at(&function);
    std::vector<const llvm::Function*> users;
    AddUsingFunctions(&function, &users);  // non-instruction uses were refused above
    if (std::any_of(users.begin(), users.end(), [&](const llvm::Function* f) { return part_of.at(f) != home; })) {
      Externalize(&function);
    }
  }

  auto in_part = [&](const llvm::GlobalValue* value, int p) {
    if (auto it = part_of.find(value); it != part_of.end()) return it->second == p;
    if (auto it = copied_into.find(value); it != copied_into.end()) return it->second.contains(p);
    return false;
  };
  const int last = parts - 1;
  for (int p = 0; p < last; ++p) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue* value) { return in_part(value, p); });
    std::string bitcode;
    llvm::raw_string_ostream os(bitcode);
    llvm::WriteBitcodeToFile(*part, os);
    os.flush();
    part_ready(p, std::move(bitcode));
  }
  // The last part, in place: the others' definitions become declarations,
  // as CloneModule makes them.
  for (llvm::Function& function : module) {
    if (function.isDeclaration() || in_part(&function, last)) continue;
    function.deleteBody();  // external now
    function.setComdat(nullptr);
  }
  for (llvm::GlobalVariable& global : module.globals()) {
    if (global.isDeclaration() || in_part(&global, last)) continue;
    global.setInitializer(nullptr);
    global.setLinkage(llvm::GlobalValue::ExternalLinkage);
    global.setComdat(nullptr);
  }
  return parts;
}

}  // namespace cpu
}  // namespace xla
