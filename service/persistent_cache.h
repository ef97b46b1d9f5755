// PersistentCache: executables saved in a directory, so that a restarted
// process (the daemon, xla_run, a LocalClient) loads them instead of
// compiling (--xla_cache_dir). It stores opaque payloads under string keys;
// the service makes the key (the module's fingerprint plus the backend's
// Compiler::PersistentKey) and the backend the payload.
//
// One file per key, named by the key's SHA-256. A file holds a magic word,
// the key, the payload and checksums (XXH3-128) of both: a damaged,
// truncated or foreign file (another key's, another format) is detected,
// counted as rejected, removed, and reported as a miss, so the caller
// compiles again. The checksums find damage, not forgery: the directory is
// trusted (below), and a checksum at memory speed keeps a load of a large
// executable cheap. The payload starts 64-byte aligned in the file, and a
// lookup maps the file rather than reading it, so a reader may use large
// payload parts (a model's weights) in place.
// Files are written to a temporary name and renamed into place, so several
// processes may share one directory and readers never see half a file.
// Hits refresh a file's modification time; beyond `max_bytes` the least
// recently used files are removed after each write.
//
// The directory must be trusted like the binary itself: its files are code
// that runs in the process.
#ifndef SERVICE_PERSISTENT_CACHE_H_
#define SERVICE_PERSISTENT_CACHE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace xla {

class PersistentCache {
 public:
  // Creates `directory` (and its parents) when missing.
  static absl::StatusOr<std::unique_ptr<PersistentCache>> Open(const std::string& directory, int64_t max_bytes);

  // A payload found by Lookup: a private (copy-on-write) mapping of its
  // file, checked, 64-byte aligned, valid while this object lives. The
  // file may be replaced or removed meanwhile (writers rename, evictions
  // unlink: the mapping keeps the old file's bytes).
  class Payload {
   public:
    ~Payload();
    Payload(const Payload&) = delete;
    Payload& operator=(const Payload&) = delete;
    absl::string_view bytes() const { return bytes_; }

   private:
    friend class PersistentCache;
    Payload(void* mapping, size_t mapping_bytes, absl::string_view bytes)
        : mapping_(mapping), mapping_bytes_(mapping_bytes), bytes_(bytes) {}
    void* const mapping_;
    const size_t mapping_bytes_;
    const absl::string_view bytes_;
  };

  // The payload saved under `key`; null for a miss (no file, or a file
  // rejected as described above).
  // kUncounted: a record that leads to another entry (whose lookups and
  // writes count), so that the counters count executables.
  enum Counting { kCounted, kUncounted };
  std::shared_ptr<const Payload> Lookup(absl::string_view key, Counting counting = kCounted);
  // Saves `payload` under `key`, then evicts. An error leaves the directory
  // as it was (the caller logs it; the compile itself succeeded).
  absl::Status Insert(absl::string_view key, absl::string_view payload, Counting counting = kCounted);

  // The key and payload of the intact entry file at `path` (any key);
  // DataLoss for a damaged one. For tools and tests.
  struct Entry {
    std::string key, payload;
  };
  static absl::StatusOr<Entry> ReadEntryFile(const std::string& path);

  // The file `key` is saved in (for tests and operators).
  std::string PathFor(absl::string_view key) const;
  const std::string& directory() const { return directory_; }

  struct Stats {
    int64_t hits = 0, misses = 0, rejected = 0, writes = 0, evictions = 0;
  };
  Stats stats() const;
  // The payload Lookup(key) returned was refused by its reader (an intact
  // entry written for another target or build): the file is removed, and
  // the lookup counted as rejected and as a miss instead of a hit (the
  // caller compiles and saves a new one).
  void Reject(absl::string_view key);

 private:
  PersistentCache(std::string directory, int64_t max_bytes) : directory_(std::move(directory)), max_bytes_(max_bytes) {}
  // Removes the least recently used files until the total is within
  // max_bytes_, keeping `keep`; also removes temporary files that a
  // crashed writer left behind.
  void Evict(const std::string& keep);

  const std::string directory_;
  const int64_t max_bytes_;
  mutable absl::Mutex mutex_;
  Stats stats_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace xla

#endif  // SERVICE_PERSISTENT_CACHE_H_
