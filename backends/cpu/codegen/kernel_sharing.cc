#include "backends/cpu/codegen/kernel_sharing.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/alias_analysis.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/FunctionComparator.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_printer.h"

namespace xla {
namespace cpu {

namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

// `text` without its ", metadata={...}" attributes (op names and source
// lines differ between otherwise equal layers).
std::string WithoutOpMetadata(const std::string& text) {
  static constexpr absl::string_view kMetadata = ", metadata={";
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t found = text.find(kMetadata.data(), pos, kMetadata.size());
    if (found == std::string::npos) break;
    out.append(text, pos, found - pos);
    size_t i = found + kMetadata.size();
    int depth = 1;
    bool quoted = false;
    for (; i < text.size() && depth > 0; ++i) {
      const char c = text[i];
      if (quoted) {
        if (c == '\\') ++i;
        else if (c == '"') quoted = false;
      } else if (c == '"') {
        quoted = true;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}') {
        --depth;
      }
    }
    pos = i;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

// Appends `computation` and, first, the computations its instructions call.
void AppendStructure(const HloComputation& computation, absl::flat_hash_set<const HloComputation*>& seen,
                     std::string& out) {
  if (!seen.insert(&computation).second) return;
  for (const HloInstruction* h : computation.instructions()) {
    for (const HloComputation* called : h->called_computations()) AppendStructure(*called, seen, out);
  }
  // Instruction by instruction: the computation's header would name its
  // parameters without the '%' that WithNamesNumbered renumbers.
  absl::StrAppend(&out, "%", computation.name(), " {\n");
  for (const HloInstruction* h : computation.instructions()) {
    absl::StrAppend(&out, h == computation.root_instruction() ? "ROOT " : "",
                    WithoutOpMetadata(HloInstructionToString(*h)), "\n");
  }
  out += "}\n";
}

// Every "%name" replaced by "%N", N its order of first appearance.
std::string WithNamesNumbered(const std::string& text) {
  absl::flat_hash_map<std::string, int> numbers;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '%') {
      out.push_back(text[i++]);
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && IsNameChar(text[end])) ++end;
    auto [it, inserted] = numbers.try_emplace(text.substr(i + 1, end - i - 1), numbers.size());
    absl::StrAppend(&out, "%", it->second);
    i = end;
  }
  return out;
}

// Serializes the metadata of a function's instructions, in order, so that
// two functions' texts are equal when their metadata is the same up to the
// identity of nodes: nodes (distinct loop ids, uniqued lists) are numbered
// by first appearance, and buffer region marks by first appearance too,
// followed by which pairs of those regions may overlap and their kinds
// (what AttachAliasScopes derives the function's noalias facts from).
class MetadataText {
 public:
  explicit MetadataText(const llvm::Function& fn) {
    llvm::SmallVector<llvm::StringRef, 16> kind_names;
    fn.getContext().getMDKindNames(kind_names);
    llvm::SmallVector<std::pair<unsigned, llvm::MDNode*>, 8> attached;
    for (const llvm::Instruction& inst : llvm::instructions(fn)) {
      inst.getAllMetadata(attached);
      for (const auto& [kind, node] : attached) {
        absl::StrAppend(&text_, kind < kind_names.size() ? kind_names[kind].str() : absl::StrCat(kind), "=");
        if (std::optional<BufferRegion> region = RegionOfMark(kind, *node)) {
          AppendRegion(node, *region);
        } else {
          AppendNode(node);
        }
        text_ += ";";
      }
      text_ += "|";
    }
    for (size_t i = 0; i < regions_.size(); ++i) {
      absl::StrAppend(&text_, "\nregion ", i, " kind ", static_cast<int>(regions_[i].kind), " overlaps");
      for (size_t j = 0; j < regions_.size(); ++j) {
        if (MayOverlap(regions_[i], regions_[j])) absl::StrAppend(&text_, " ", j);
      }
    }
  }
  const std::string& text() const { return text_; }

 private:
  void AppendRegion(const llvm::MDNode* node, const BufferRegion& region) {
    auto [it, inserted] = region_numbers_.try_emplace(node, regions_.size());
    if (inserted) regions_.push_back(region);
    absl::StrAppend(&text_, "R", it->second);
  }
  void AppendNode(const llvm::Metadata* md) {
    if (md == nullptr) {
      text_ += "null";
      return;
    }
    auto [it, inserted] = numbers_.try_emplace(md, numbers_.size());
    absl::StrAppend(&text_, "#", it->second);
    if (!inserted) return;
    if (const auto* s = llvm::dyn_cast<llvm::MDString>(md)) {
      absl::StrAppend(&text_, "'", s->getString().str(), "'");
    } else if (const auto* c = llvm::dyn_cast<llvm::ConstantAsMetadata>(md)) {
      std::string value;
      llvm::raw_string_ostream os(value);
      c->getValue()->printAsOperand(os, /*PrintType=*/true);
      absl::StrAppend(&text_, "<", os.str(), ">");
    } else if (const auto* node = llvm::dyn_cast<llvm::MDNode>(md)) {
      text_ += node->isDistinct() ? "distinct(" : "(";
      for (const llvm::MDOperand& op : node->operands()) {
        AppendNode(op.get());
        text_ += ",";
      }
      text_ += ")";
    } else {
      // Metadata naming a value of the function (none is emitted): never
      // equal to another function's.
      absl::StrAppend(&text_, "?", reinterpret_cast<uintptr_t>(md));
    }
  }

  std::string text_;
  absl::flat_hash_map<const llvm::Metadata*, int> numbers_;
  absl::flat_hash_map<const llvm::MDNode*, int> region_numbers_;
  std::vector<BufferRegion> regions_;
};

// The region marks of a function's instructions, taken off while it is
// compared: FunctionComparator compares a load's metadata by value, and
// the marks of two equal kernels name other offsets (MetadataText compares
// them by their overlaps instead). Put back on destruction.
class RegionMarksSetAside {
 public:
  explicit RegionMarksSetAside(llvm::Function& fn) {
    llvm::SmallVector<std::pair<unsigned, llvm::MDNode*>, 8> attached;
    for (llvm::Instruction& inst : llvm::instructions(fn)) {
      inst.getAllMetadata(attached);
      for (const auto& [kind, node] : attached) {
        if (RegionOfMark(kind, *node).has_value()) marks_.push_back({&inst, kind, node});
      }
    }
    for (const Mark& mark : marks_) mark.inst->setMetadata(mark.kind, nullptr);
  }
  ~RegionMarksSetAside() {
    for (const Mark& mark : marks_) mark.inst->setMetadata(mark.kind, mark.node);
  }
  RegionMarksSetAside(const RegionMarksSetAside&) = delete;
  RegionMarksSetAside& operator=(const RegionMarksSetAside&) = delete;

 private:
  struct Mark {
    llvm::Instruction* inst;
    unsigned kind;
    llvm::MDNode* node;
  };
  std::vector<Mark> marks_;
};

// Erases `fn` and then every internal function left without uses that it
// called or referred to; returns them all.
absl::flat_hash_set<llvm::Function*> EraseWithDeadCallees(llvm::Function* fn) {
  absl::flat_hash_set<llvm::Function*> erased;
  std::vector<llvm::Function*> pending = {fn};
  while (!pending.empty()) {
    llvm::Function* f = pending.back();
    pending.pop_back();
    absl::flat_hash_set<llvm::Function*> callees;
    for (const llvm::Instruction& inst : llvm::instructions(*f)) {
      for (const llvm::Use& op : inst.operands()) {
        if (auto* callee = llvm::dyn_cast<llvm::Function>(op.get()); callee != nullptr && callee != f) {
          callees.insert(callee);
        }
      }
    }
    f->eraseFromParent();
    erased.insert(f);
    for (llvm::Function* callee : callees) {
      if (callee->hasLocalLinkage() && callee->use_empty()) pending.push_back(callee);
    }
  }
  return erased;
}

}  // namespace

std::string FusionStructureKey(const HloInstruction& fusion) {
  std::string text = absl::StrCat(fusion.shape().ToString(/*print_layout=*/true), " ",
                                  HloOpcodeString(fusion.opcode()), "(");
  for (const HloInstruction* operand : fusion.operands()) {
    absl::StrAppend(&text, operand->shape().ToString(/*print_layout=*/true), ",");
  }
  absl::StrAppend(&text, ") ", WithoutOpMetadata(HloInstructionToString(fusion)), "\n");
  absl::flat_hash_set<const HloComputation*> seen;
  for (const HloComputation* called : fusion.called_computations()) AppendStructure(*called, seen, text);
  // The fusion's own name and its operands' are numbered too.
  return WithNamesNumbered(text);
}

bool SameKernel(llvm::Function& a, llvm::Function& b) {
  if (&a == &b) return true;
  if (a.isDeclaration() || b.isDeclaration()) return false;
  llvm::GlobalNumberState numbers;
  {
    RegionMarksSetAside a_marks(a), b_marks(b);
    if (llvm::FunctionComparator(&a, &b, &numbers).compare() != 0) return false;
  }
  return MetadataText(a).text() == MetadataText(b).text();
}

void KernelSharing::CountFusions(const HloModule& module) {
  absl::flat_hash_map<std::string, std::vector<const HloInstruction*>> by_key;
  for (const HloComputation* computation : module.computations()) {
    if (computation->fusion_instruction() != nullptr) continue;  // fused: emitted as part of its fusion
    for (const HloInstruction* h : computation->instructions()) {
      if (h->opcode() == HloOpcode::kFusion) by_key[FusionStructureKey(*h)].push_back(h);
    }
  }
  for (auto& [key, fusions] : by_key) {
    if (fusions.size() < 2) continue;
    for (const HloInstruction* h : fusions) keys_[h] = key;
  }
}

std::string KernelSharing::CandidateKey(const HloInstruction& fusion) const {
  auto it = keys_.find(&fusion);
  return it != keys_.end() ? it->second : std::string();
}

llvm::Function* KernelSharing::Share(const std::string& key, llvm::Function* function) {
  std::vector<llvm::Function*>& earlier = emitted_[key];
  for (llvm::Function* candidate : earlier) {
    if (SameKernel(*candidate, *function)) {
      // What the twin alone called goes too (kernels it outlined itself
      // that were not shared): none of it may be compared again.
      const absl::flat_hash_set<llvm::Function*> erased = EraseWithDeadCallees(function);
      for (auto& [unused, functions] : emitted_) {
        functions.erase(std::remove_if(functions.begin(), functions.end(),
                                       [&](llvm::Function* f) { return erased.contains(f); }),
                        functions.end());
      }
      ++shared_;
      return candidate;
    }
  }
  earlier.push_back(function);
  return function;
}

}  // namespace cpu
}  // namespace xla
