#include "service/persistent_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace xla {
namespace {

namespace fs = std::filesystem;

std::string FreshDirectory(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/persistent_cache_test_", name, "_", getpid());
  fs::remove_all(dir);
  return dir;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// A found payload's bytes; empty for a miss.
std::string Bytes(const std::shared_ptr<const PersistentCache::Payload>& payload) {
  return payload == nullptr ? "" : std::string(payload->bytes());
}

// Sets a file's modification time `seconds_ago` into the past.
void Age(const std::string& path, int seconds_ago) {
  struct timespec times[2];
  clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= seconds_ago;
  times[1] = times[0];
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST(PersistentCacheTest, SavesAndLoadsAcrossInstances) {
  const std::string dir = FreshDirectory("roundtrip") + "/nested/dir";
  auto cache = PersistentCache::Open(dir, 1 << 20).value();
  EXPECT_EQ(cache->Lookup("key one"), nullptr);
  ASSERT_TRUE(cache->Insert("key one", std::string("payload\0with a zero", 19)).ok());
  // Another instance on the same directory: another process, restarted.
  auto reopened = PersistentCache::Open(dir, 1 << 20).value();
  auto found = reopened->Lookup("key one");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->bytes(), absl::string_view("payload\0with a zero", 19));
  // 64-byte aligned, for readers that use parts in place.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(found->bytes().data()) % 64, 0u);
  EXPECT_EQ(reopened->Lookup("key two"), nullptr);
  EXPECT_EQ(cache->stats().writes, 1);
  EXPECT_EQ(cache->stats().misses, 1);
  EXPECT_EQ(reopened->stats().hits, 1);
  EXPECT_EQ(reopened->stats().misses, 1);
  EXPECT_EQ(reopened->stats().rejected, 0);
  auto entry = PersistentCache::ReadEntryFile(cache->PathFor("key one"));
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_EQ(entry->key, "key one");
}

TEST(PersistentCacheTest, APayloadOutlivesItsFileAndIsPrivateToItsReader) {
  const std::string dir = FreshDirectory("mapping");
  auto cache = PersistentCache::Open(dir, 1 << 20).value();
  const std::string payload(10000, 'a');
  ASSERT_TRUE(cache->Insert("k", payload).ok());
  auto found = cache->Lookup("k");
  ASSERT_NE(found, nullptr);
  // Replaced by another writer, then removed: the mapping keeps the bytes
  // it was given.
  ASSERT_TRUE(cache->Insert("k", std::string(10000, 'b')).ok());
  EXPECT_EQ(found->bytes(), payload);
  fs::remove(cache->PathFor("k"));
  EXPECT_EQ(found->bytes(), payload);
  // A reader's write changes its own copy only.
  ASSERT_TRUE(cache->Insert("k", payload).ok());
  auto mine = cache->Lookup("k");
  ASSERT_NE(mine, nullptr);
  const_cast<char*>(mine->bytes().data())[0] = 'z';
  EXPECT_EQ(Bytes(cache->Lookup("k")), payload);
}

TEST(PersistentCacheTest, DamagedTruncatedAndForeignFilesAreRejectedAndRemoved) {
  const std::string dir = FreshDirectory("damaged");
  auto cache = PersistentCache::Open(dir, 1 << 20).value();
  const std::string payload(5000, 'p');
  ASSERT_TRUE(cache->Insert("k", payload).ok());
  const std::string path = cache->PathFor("k");
  const std::string good = ReadAll(path);

  // One flipped byte in the payload.
  std::string flipped = good;
  flipped[flipped.size() - 100] ^= 0x10;
  WriteAll(path, flipped);
  EXPECT_EQ(cache->Lookup("k"), nullptr);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(PersistentCache::ReadEntryFile(path).status().code(), absl::StatusCode::kNotFound);

  // Cut short, as by a crash without the temporary-file rename.
  WriteAll(path, good.substr(0, good.size() / 2));
  EXPECT_EQ(cache->Lookup("k"), nullptr);
  WriteAll(path, "");
  EXPECT_EQ(cache->Lookup("k"), nullptr);

  // Another key's intact file under this key's name.
  ASSERT_TRUE(cache->Insert("other", payload).ok());
  fs::copy_file(cache->PathFor("other"), path, fs::copy_options::overwrite_existing);
  EXPECT_EQ(cache->Lookup("k"), nullptr);
  EXPECT_EQ(Bytes(cache->Lookup("other")), payload);

  EXPECT_EQ(cache->stats().rejected, 4);
  EXPECT_EQ(cache->stats().hits, 1);
  // A good save afterwards is found again.
  ASSERT_TRUE(cache->Insert("k", payload).ok());
  EXPECT_EQ(Bytes(cache->Lookup("k")), payload);
}

TEST(PersistentCacheTest, EvictsTheLeastRecentlyUsedBeyondItsBound) {
  const std::string dir = FreshDirectory("evict");
  // Room for three entries of about 1100 bytes.
  auto cache = PersistentCache::Open(dir, 3500).value();
  const std::string payload(1000, 'x');
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(cache->Insert(absl::StrCat("k", i), payload).ok());
    Age(cache->PathFor(absl::StrCat("k", i)), 100 - i);  // k0 oldest
  }
  ASSERT_NE(cache->Lookup("k0"), nullptr);  // now the most recent
  ASSERT_TRUE(cache->Insert("k3", payload).ok());
  EXPECT_EQ(cache->stats().evictions, 1);
  EXPECT_TRUE(fs::exists(cache->PathFor("k0")));
  EXPECT_FALSE(fs::exists(cache->PathFor("k1")));
  EXPECT_TRUE(fs::exists(cache->PathFor("k2")));
  EXPECT_TRUE(fs::exists(cache->PathFor("k3")));
  // An entry larger than the whole bound is refused, and nothing is lost.
  EXPECT_EQ(cache->Insert("huge", std::string(4000, 'y')).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(fs::exists(cache->PathFor("k3")));
}

TEST(PersistentCacheTest, RemovesTemporaryFilesLeftByDeadWriters) {
  const std::string dir = FreshDirectory("stale");
  auto cache = PersistentCache::Open(dir, 1 << 20).value();
  const std::string stale = dir + "/.tmp.1.2.dead", fresh = dir + "/.tmp.3.4.busy";
  WriteAll(stale, "half");
  WriteAll(fresh, "half");
  Age(stale, 3600);
  ASSERT_TRUE(cache->Insert("k", "v").ok());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));  // maybe another process still writing it
}

TEST(PersistentCacheTest, ConcurrentWritersAndReadersSeeWholeEntriesOnly) {
  const std::string dir = FreshDirectory("concurrent");
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto cache = PersistentCache::Open(dir, 1 << 22).value();  // one per "process"
      for (int i = 0; i < 50; ++i) {
        const std::string key = absl::StrCat("k", i % 5);
        const std::string payload(20000 + (i % 5), static_cast<char>('a' + i % 5));
        if ((i + t) % 2 == 0) {
          if (!cache->Insert(key, payload).ok()) ++wrong;
        } else if (auto got = cache->Lookup(key)) {
          if (got->bytes() != payload) ++wrong;
        }
        if (cache->stats().rejected != 0) ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(PersistentCacheTest, UnusableDirectoriesAreClearErrors) {
  const std::string dir = FreshDirectory("file");
  fs::create_directories(dir);
  WriteAll(dir + "/plain", "x");
  auto not_a_directory = PersistentCache::Open(dir + "/plain", 1 << 20);
  EXPECT_EQ(not_a_directory.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(not_a_directory.status().message().find("plain"), std::string::npos);
  EXPECT_EQ(PersistentCache::Open("", 1 << 20).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PersistentCache::Open(dir, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace xla
