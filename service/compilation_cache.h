// CompilationCache: fingerprint of (module, options, backend) -> executable,
// bounded by the executables' total size in bytes with least-recently-used
// eviction. Counts hits, misses and evictions for the service's info.
//
// Compile requests find entries through aliases too (AddAlias): the
// service's key of a request's program digest, options and argument shapes,
// which a later request with the same program reaches without loading,
// verifying or fingerprinting the module.
//
// Thread-safe (one mutex over the maps, the LRU list and the counters).
// Executables are shared_ptrs, so an evicted one stays alive while a run or
// an execution handle still uses it.
#ifndef SERVICE_COMPILATION_CACHE_H_
#define SERVICE_COMPILATION_CACHE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "backends/backend.h"
#include "proto/xla_data.pb.h"

namespace xla {

class CompilationCache {
 public:
  explicit CompilationCache(int64_t max_bytes = int64_t{256} << 20) : max_bytes_(max_bytes) {}

  // A stable key: the digest of the module's proto with its names and ids
  // replaced by positions (they differ between builds of one computation),
  // plus options and backend.
  static std::string Fingerprint(const HloModule& module, const DebugOptions& options,
                                 const std::string& backend);

  std::shared_ptr<Executable> Lookup(const std::string& key);
  void Insert(const std::string& key, std::shared_ptr<Executable> executable);

  // Makes `alias` find the entry under `key` (when it is still cached), with
  // the program shape its compile responses carry. Aliases leave with their
  // entry; an entry keeps its kMaxAliasesPerEntry most recent ones.
  static constexpr int kMaxAliasesPerEntry = 8;
  void AddAlias(const std::string& alias, const std::string& key,
                std::shared_ptr<const ProgramShapeProto> program_shape);
  struct AliasHit {
    std::shared_ptr<Executable> executable;
    std::shared_ptr<const ProgramShapeProto> program_shape;
  };
  // A hit counts as a cache hit; a miss counts nothing (the request then
  // loads its module and looks up its key, which counts).
  std::optional<AliasHit> LookupAlias(const std::string& alias);

  struct Stats {
    int64_t entries = 0, bytes = 0, hits = 0, misses = 0, evictions = 0;
  };
  Stats stats() const;

 private:
  struct Entry {
    std::shared_ptr<Executable> executable;
    int64_t bytes;
    std::list<std::string>::iterator lru_position;
    std::vector<std::string> aliases;  // oldest first
  };
  struct Alias {
    Entry* entry;
    std::shared_ptr<const ProgramShapeProto> program_shape;
  };
  void RemoveAlias(Entry* entry, size_t index) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const int64_t max_bytes_;
  mutable absl::Mutex mutex_;
  // Node-based: aliases point at entries.
  absl::node_hash_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::string, Alias> aliases_ ABSL_GUARDED_BY(mutex_);
  std::list<std::string> lru_ ABSL_GUARDED_BY(mutex_);  // front = most recent
  Stats stats_ ABSL_GUARDED_BY(mutex_);
  int64_t bytes_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace xla

#endif  // SERVICE_COMPILATION_CACHE_H_
