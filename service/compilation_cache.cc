#include "service/compilation_cache.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "xla/program_digest.h"

namespace xla {

namespace {

// `proto` with everything that names or numbers its parts by position:
// names and ids differ between two builds of one computation (the builder
// numbers instructions process-wide) and mean nothing else. References by
// id (operands, control predecessors, roots, called computations, the
// entry) follow the renumbering.
void CanonicalizeNamesAndIds(HloModuleProto& proto) {
  absl::flat_hash_map<int64_t, int64_t> computation_index;
  for (int c = 0; c < proto.computations_size(); ++c) computation_index[proto.computations(c).id()] = c;
  auto renumber = [](const absl::flat_hash_map<int64_t, int64_t>& index, int64_t id) {
    auto it = index.find(id);
    return it == index.end() ? -1 - id : it->second;  // unknown ids stay distinct from known ones
  };
  proto.set_name("m");
  proto.set_id(0);
  proto.set_entry_computation_name("");
  proto.set_entry_computation_id(renumber(computation_index, proto.entry_computation_id()));
  proto.mutable_host_program_shape()->clear_parameter_names();
  for (int c = 0; c < proto.computations_size(); ++c) {
    HloComputationProto* computation = proto.mutable_computations(c);
    absl::flat_hash_map<int64_t, int64_t> instruction_index;
    for (int i = 0; i < computation->instructions_size(); ++i) instruction_index[computation->instructions(i).id()] = i;
    computation->set_name(absl::StrCat("c", c));
    computation->set_id(c);
    computation->set_root_id(renumber(instruction_index, computation->root_id()));
    computation->mutable_program_shape()->clear_parameter_names();
    for (int i = 0; i < computation->instructions_size(); ++i) {
      HloInstructionProto* instruction = computation->mutable_instructions(i);
      instruction->set_name(absl::StrCat("i", i));
      instruction->set_id(i);
      for (int64_t& id : *instruction->mutable_operand_ids()) id = renumber(instruction_index, id);
      for (int64_t& id : *instruction->mutable_control_predecessor_ids()) id = renumber(instruction_index, id);
      for (int64_t& id : *instruction->mutable_called_computation_ids()) id = renumber(computation_index, id);
    }
  }
}

}  // namespace

std::string CompilationCache::Fingerprint(const HloModule& module, const DebugOptions& options,
                                          const std::string& backend) {
  // The module as the service holds it (shapes, layouts, attributes,
  // constants), named and numbered by position, digested as its
  // deterministic serialization (xla/program_digest.h). The key used to be
  // the module's printed text: a model with an 11 MB constant was printed
  // as 2.8 million floats on every compile.
  HloModuleProto proto = module.ToProto();
  CanonicalizeNamesAndIds(proto);
  return absl::StrCat(backend, "\n", options.SerializeAsString(), "\n",
                      absl::BytesToHexString(ProgramDigest(proto)));
}

std::shared_ptr<Executable> CompilationCache::Lookup(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  lru_.splice(lru_.begin(), lru_, it->second.lru_position);
  return it->second.executable;
}

void CompilationCache::Insert(const std::string& key, std::shared_ptr<Executable> executable) {
  absl::MutexLock lock(&mutex_);
  if (entries_.contains(key)) return;  // a concurrent compile of the same module won
  // Every entry costs at least its key, so the bound holds for tiny executables.
  int64_t bytes = std::max<int64_t>(executable->SizeInBytes(), 0) + static_cast<int64_t>(key.size());
  lru_.push_front(key);
  entries_[key] = Entry{std::move(executable), bytes, lru_.begin()};
  bytes_ += bytes;
  // Evict least recently used entries, but never the one just inserted.
  while (bytes_ > max_bytes_ && lru_.size() > 1) {
    auto victim = entries_.find(lru_.back());
    while (!victim->second.aliases.empty()) RemoveAlias(&victim->second, 0);
    bytes_ -= victim->second.bytes;
    entries_.erase(victim);
    lru_.pop_back();
    ++stats_.evictions;
  }
}

void CompilationCache::RemoveAlias(Entry* entry, size_t index) {
  const std::string& alias = entry->aliases[index];
  auto it = aliases_.find(alias);
  const int64_t bytes = static_cast<int64_t>(alias.size()) + it->second.program_shape->ByteSizeLong();
  entry->bytes -= bytes;
  bytes_ -= bytes;
  aliases_.erase(it);
  entry->aliases.erase(entry->aliases.begin() + index);
}

void CompilationCache::AddAlias(const std::string& alias, const std::string& key,
                                std::shared_ptr<const ProgramShapeProto> program_shape) {
  absl::MutexLock lock(&mutex_);
  auto entry = entries_.find(key);
  if (entry == entries_.end() || aliases_.contains(alias)) return;
  Entry* target = &entry->second;
  if (target->aliases.size() >= kMaxAliasesPerEntry) RemoveAlias(target, 0);
  // Aliases count toward the bound, but never evict: the next Insert does.
  const int64_t bytes = static_cast<int64_t>(alias.size()) + program_shape->ByteSizeLong();
  target->bytes += bytes;
  bytes_ += bytes;
  target->aliases.push_back(alias);
  aliases_[alias] = Alias{target, std::move(program_shape)};
}

std::optional<CompilationCache::AliasHit> CompilationCache::LookupAlias(const std::string& alias) {
  absl::MutexLock lock(&mutex_);
  auto it = aliases_.find(alias);
  if (it == aliases_.end()) return std::nullopt;
  ++stats_.hits;
  Entry* entry = it->second.entry;
  lru_.splice(lru_.begin(), lru_, entry->lru_position);
  return AliasHit{entry->executable, it->second.program_shape};
}

CompilationCache::Stats CompilationCache::stats() const {
  absl::MutexLock lock(&mutex_);
  Stats s = stats_;
  s.entries = entries_.size();
  s.bytes = bytes_;
  return s;
}

}  // namespace xla
