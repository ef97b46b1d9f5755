#include "service/persistent_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>
#include <tuple>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "llvm/Support/xxhash.h"
#include "xla/sha256.h"

namespace xla {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'X', 'L', 'A', 'E', 'X', 'E', '2', '\n'};
constexpr size_t kChecksumBytes = 16;
// magic, key length, payload length, the key's and the payload's checksums
constexpr size_t kHeaderBytes = sizeof(kMagic) + 8 + 8 + 2 * kChecksumBytes;
// The payload's offset in the file (and so in a page-aligned mapping) is a
// multiple of this.
constexpr size_t kPayloadAlignment = 64;
constexpr char kSuffix[] = ".xlaexe";
constexpr char kTemporaryPrefix[] = ".tmp.";
// A temporary file this old belongs to a writer that died.
constexpr absl::Duration kStaleTemporary = absl::Minutes(10);

void AppendU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t ReadU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// XXH3-128 of `bytes`, 16 bytes little-endian.
std::string Checksum(absl::string_view bytes) {
  const llvm::XXH128_hash_t hash =
      llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  std::string out;
  AppendU64(&out, hash.low64);
  AppendU64(&out, hash.high64);
  return out;
}

size_t PayloadOffset(uint64_t key_size) {
  return (kHeaderBytes + key_size + kPayloadAlignment - 1) / kPayloadAlignment * kPayloadAlignment;
}

// The file's bytes for `key` and `payload`.
std::string EncodeEntry(absl::string_view key, absl::string_view payload) {
  std::string bytes(kMagic, sizeof(kMagic));
  AppendU64(&bytes, key.size());
  AppendU64(&bytes, payload.size());
  bytes += Checksum(key);
  bytes += Checksum(payload);
  bytes.append(key.data(), key.size());
  bytes.resize(PayloadOffset(key.size()), '\0');
  bytes.append(payload.data(), payload.size());
  return bytes;
}

struct ParsedEntry {
  absl::string_view key, payload;
};

// The key and payload of file `bytes` when it is intact.
std::optional<ParsedEntry> ParseEntry(absl::string_view bytes) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) return std::nullopt;
  const uint64_t key_size = ReadU64(bytes.data() + sizeof(kMagic));
  const uint64_t payload_size = ReadU64(bytes.data() + sizeof(kMagic) + 8);
  if (key_size > bytes.size() || PayloadOffset(key_size) > bytes.size() ||
      payload_size != bytes.size() - PayloadOffset(key_size)) {
    return std::nullopt;
  }
  const absl::string_view checksums = bytes.substr(sizeof(kMagic) + 16, 2 * kChecksumBytes);
  ParsedEntry entry{bytes.substr(kHeaderBytes, key_size), bytes.substr(PayloadOffset(key_size))};
  if (Checksum(entry.key) != checksums.substr(0, kChecksumBytes) ||
      Checksum(entry.payload) != checksums.substr(kChecksumBytes)) {
    return std::nullopt;
  }
  return entry;
}

// A private mapping of the file at `path`; null when it cannot be mapped,
// is empty or exceeds `limit`.
struct Mapping {
  void* address = nullptr;
  size_t bytes = 0;
  absl::string_view view() const { return absl::string_view(static_cast<const char*>(address), bytes); }
};
std::optional<Mapping> MapFile(const std::string& path, int64_t limit) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st;
  std::optional<Mapping> mapping;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= limit) {
    const size_t bytes = static_cast<size_t>(st.st_size);
    // Populated while read-only (populating a writable private mapping
    // would copy every page), then made writable: a reader that writes
    // gets its own copy of a page, as with memory it had read into.
    void* address = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (address != MAP_FAILED) {
      if (mprotect(address, bytes, PROT_READ | PROT_WRITE) == 0) {
        mapping = Mapping{address, bytes};
      } else {
        munmap(address, bytes);
      }
    }
  }
  close(fd);
  return mapping;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PersistentCache>> PersistentCache::Open(const std::string& directory,
                                                                       int64_t max_bytes) {
  if (directory.empty()) return absl::InvalidArgumentError("persistent cache: no directory");
  if (max_bytes <= 0) return absl::InvalidArgumentError("persistent cache: the size bound must be positive");
  std::error_code error;
  fs::create_directories(directory, error);
  if (error || !fs::is_directory(directory)) {
    return absl::InvalidArgumentError(absl::StrCat("persistent cache: cannot use directory '", directory,
                                                   "': ", error ? error.message() : "not a directory"));
  }
  if (access(directory.c_str(), R_OK | W_OK | X_OK) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("persistent cache: directory '", directory, "' is not readable and writable"));
  }
  return std::unique_ptr<PersistentCache>(new PersistentCache(directory, max_bytes));
}

absl::StatusOr<PersistentCache::Entry> PersistentCache::ReadEntryFile(const std::string& path) {
  std::optional<Mapping> mapping = MapFile(path, INT64_MAX);
  if (!mapping.has_value()) return absl::NotFoundError(absl::StrCat("persistent cache: cannot read ", path));
  std::optional<ParsedEntry> entry = ParseEntry(mapping->view());
  absl::StatusOr<Entry> result =
      entry.has_value() ? absl::StatusOr<Entry>(Entry{std::string(entry->key), std::string(entry->payload)})
                        : absl::DataLossError(absl::StrCat("persistent cache: ", path, " is damaged"));
  munmap(mapping->address, mapping->bytes);
  return result;
}

std::string PersistentCache::PathFor(absl::string_view key) const {
  return absl::StrCat(directory_, "/", absl::BytesToHexString(Sha256({key})), kSuffix);
}

PersistentCache::Payload::~Payload() { munmap(mapping_, mapping_bytes_); }

std::shared_ptr<const PersistentCache::Payload> PersistentCache::Lookup(absl::string_view key, Counting counting) {
  const std::string path = PathFor(key);
  std::optional<Mapping> mapping = MapFile(path, max_bytes_);
  std::shared_ptr<const Payload> payload;
  if (mapping.has_value()) {
    std::optional<ParsedEntry> entry = ParseEntry(mapping->view());
    if (entry.has_value() && entry->key == key) {
      payload.reset(new Payload(mapping->address, mapping->bytes, entry->payload));
    } else {
      munmap(mapping->address, mapping->bytes);
    }
  }
  const int64_t counted = counting == kCounted ? 1 : 0;
  absl::MutexLock lock(&mutex_);
  if (!mapping.has_value() && access(path.c_str(), F_OK) != 0) {
    stats_.misses += counted;
    return nullptr;
  }
  if (payload == nullptr) {
    // Damaged, truncated, empty, too large, or another key's: the compile
    // that follows saves a good one.
    stats_.misses += counted;
    ++stats_.rejected;
    unlink(path.c_str());
    return nullptr;
  }
  stats_.hits += counted;
  utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // now: recently used
  return payload;
}

absl::Status PersistentCache::Insert(absl::string_view key, absl::string_view payload, Counting counting) {
  const std::string bytes = EncodeEntry(key, payload);
  if (static_cast<int64_t>(bytes.size()) > max_bytes_) {
    return absl::ResourceExhaustedError(absl::StrCat("persistent cache: an entry of ", bytes.size(),
                                                     " bytes exceeds the cache's bound of ", max_bytes_));
  }
  const std::string path = PathFor(key);
  std::random_device random;
  const std::string temporary = absl::StrCat(directory_, "/", kTemporaryPrefix, getpid(), ".", random(), ".",
                                             absl::BytesToHexString(Sha256({key})).substr(0, 16));
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("persistent cache: creating ", temporary, ": ", std::strerror(errno)));
  }
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  const int saved_errno = errno;
  const bool closed = close(fd) == 0;
  if (written != bytes.size() || !closed || rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(written != bytes.size() ? saved_errno : errno);
    unlink(temporary.c_str());
    return absl::InternalError(absl::StrCat("persistent cache: writing ", path, ": ", reason));
  }
  {
    absl::MutexLock lock(&mutex_);
    if (counting == kCounted) ++stats_.writes;
  }
  Evict(path);
  return absl::OkStatus();
}

void PersistentCache::Evict(const std::string& keep) {
  struct File {
    std::string path;
    int64_t bytes;
    struct timespec modified;
  };
  std::vector<File> files;
  int64_t total = 0;
  const struct timespec stale = absl::ToTimespec(absl::Now() - kStaleTemporary);
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_, error)) {
    const std::string name = entry.path().filename().string();
    struct stat st;
    if (stat(entry.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (name.rfind(kTemporaryPrefix, 0) == 0) {
      if (st.st_mtim.tv_sec < stale.tv_sec) unlink(entry.path().c_str());
      continue;
    }
    if (name.size() <= std::strlen(kSuffix) || name.compare(name.size() - std::strlen(kSuffix), std::string::npos,
                                                             kSuffix) != 0) {
      continue;  // not ours
    }
    files.push_back(File{entry.path().string(), static_cast<int64_t>(st.st_size), st.st_mtim});
    total += st.st_size;
  }
  if (total <= max_bytes_) return;
  std::sort(files.begin(), files.end(), [](const File& a, const File& b) {
    return std::tie(a.modified.tv_sec, a.modified.tv_nsec) < std::tie(b.modified.tv_sec, b.modified.tv_nsec);
  });
  int64_t evicted = 0;
  for (const File& f : files) {
    if (total <= max_bytes_) break;
    if (f.path == keep) continue;
    // Another process may have removed it already; either way it is gone.
    if (unlink(f.path.c_str()) == 0) ++evicted;
    total -= f.bytes;
  }
  absl::MutexLock lock(&mutex_);
  stats_.evictions += evicted;
}

void PersistentCache::Reject(absl::string_view key) {
  unlink(PathFor(key).c_str());
  absl::MutexLock lock(&mutex_);
  ++stats_.rejected;
  --stats_.hits;
  ++stats_.misses;
}

PersistentCache::Stats PersistentCache::stats() const {
  absl::MutexLock lock(&mutex_);
  return stats_;
}

}  // namespace xla
