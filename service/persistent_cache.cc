#include "service/persistent_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <system_error>
#include <tuple>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "xla/sha256.h"

namespace xla {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'X', 'L', 'A', 'E', 'X', 'E', '1', '\n'};
constexpr size_t kDigestBytes = 32;
// magic, key length, payload length, digest
constexpr size_t kHeaderBytes = sizeof(kMagic) + 8 + 8 + kDigestBytes;
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

// The whole file, or nullopt when it cannot be read or exceeds `limit`.
std::optional<std::string> ReadFile(const std::string& path, int64_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0 || size > limit) return std::nullopt;
  std::string bytes(static_cast<size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), size)) return std::nullopt;
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
  const size_t body = bytes.size() - kHeaderBytes;
  if (key_size > body || payload_size != body - key_size) return std::nullopt;
  const absl::string_view digest = bytes.substr(sizeof(kMagic) + 16, kDigestBytes);
  ParsedEntry entry{bytes.substr(kHeaderBytes, key_size), bytes.substr(kHeaderBytes + key_size)};
  if (Sha256({entry.key, entry.payload}) != digest) return std::nullopt;
  return entry;
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
  std::optional<std::string> bytes = ReadFile(path, INT64_MAX);
  if (!bytes.has_value()) return absl::NotFoundError(absl::StrCat("persistent cache: cannot read ", path));
  std::optional<ParsedEntry> entry = ParseEntry(*bytes);
  if (!entry.has_value()) return absl::DataLossError(absl::StrCat("persistent cache: ", path, " is damaged"));
  return Entry{std::string(entry->key), std::string(entry->payload)};
}

std::string PersistentCache::PathFor(absl::string_view key) const {
  return absl::StrCat(directory_, "/", absl::BytesToHexString(Sha256({key})), kSuffix);
}

std::optional<std::string> PersistentCache::Lookup(absl::string_view key, Counting counting) {
  const std::string path = PathFor(key);
  std::optional<std::string> bytes = ReadFile(path, max_bytes_);
  std::optional<absl::string_view> payload;
  if (bytes.has_value()) {
    std::optional<ParsedEntry> entry = ParseEntry(*bytes);
    if (entry.has_value() && entry->key == key) payload = entry->payload;
  }
  const int64_t counted = counting == kCounted ? 1 : 0;
  absl::MutexLock lock(&mutex_);
  if (!bytes.has_value() && access(path.c_str(), F_OK) != 0) {
    stats_.misses += counted;
    return std::nullopt;
  }
  if (!payload.has_value()) {
    // Damaged, truncated, too large, or another key's: the compile that
    // follows saves a good one.
    stats_.misses += counted;
    ++stats_.rejected;
    unlink(path.c_str());
    return std::nullopt;
  }
  stats_.hits += counted;
  utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // now: recently used
  // The payload is the file's tail: moved to the front of the bytes read,
  // not copied into a second string of the payload's size.
  bytes->erase(0, static_cast<size_t>(payload->data() - bytes->data()));
  return std::move(*bytes);
}

absl::Status PersistentCache::Insert(absl::string_view key, absl::string_view payload, Counting counting) {
  std::string bytes(kMagic, sizeof(kMagic));
  AppendU64(&bytes, key.size());
  AppendU64(&bytes, payload.size());
  bytes += Sha256({key, payload});
  absl::StrAppend(&bytes, key, payload);
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
