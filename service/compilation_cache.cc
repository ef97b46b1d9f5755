#include "service/compilation_cache.h"

#include "absl/strings/str_cat.h"

namespace xla {

std::string CompilationCache::Fingerprint(const HloModule& module, const DebugOptions& options,
                                          const std::string& backend) {
  // Names carry no meaning but differ between two builds of the same
  // computation, so rename everything by position before printing. The
  // printed module covers shapes, layouts, attributes and constants; the
  // serialized options and the backend name complete the key. The full text
  // is the key (no hash collisions to reason about).
  HloModuleProto proto = module.ToProto();
  proto.set_name("m");
  for (int c = 0; c < proto.computations_size(); ++c) {
    HloComputationProto* computation = proto.mutable_computations(c);
    if (computation->id() == proto.entry_computation_id()) proto.set_entry_computation_name(absl::StrCat("c", c));
    computation->set_name(absl::StrCat("c", c));
    for (int i = 0; i < computation->instructions_size(); ++i) {
      computation->mutable_instructions(i)->set_name(absl::StrCat("i", i));
    }
  }
  std::string text;
  absl::StatusOr<std::unique_ptr<HloModule>> canonical = HloModule::CreateFromProto(proto);
  text = canonical.ok() ? (*canonical)->ToString() : module.ToString();
  return absl::StrCat(backend, "\n", options.SerializeAsString(), "\n", text);
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
