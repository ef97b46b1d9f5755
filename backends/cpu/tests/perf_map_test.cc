// The perf map (perf_map.h): with XLA_CPU_PERF_MAP set, compiling a module
// appends its entry function and outlined loops to /tmp/perf-<pid>.map
// with their addresses and sizes; without it nothing is written.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

struct MapEntry {
  uint64_t start = 0, size = 0;
  std::string name;
};

std::string MapPath() { return absl::StrFormat("/tmp/perf-%d.map", getpid()); }

std::vector<MapEntry> ReadMap() {
  std::vector<MapEntry> entries;
  std::ifstream in(MapPath());
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields = absl::StrSplit(line, absl::MaxSplits(' ', 2));
    MapEntry e;
    EXPECT_EQ(fields.size(), 3u) << line;
    if (fields.size() != 3) continue;
    EXPECT_TRUE(absl::SimpleHexAtoi(fields[0], &e.start)) << line;
    EXPECT_TRUE(absl::SimpleHexAtoi(fields[1], &e.size)) << line;
    e.name = fields[2];
    entries.push_back(e);
  }
  return entries;
}

const char kModule[] = R"(HloModule perf_map_module
ENTRY e {
  x = f32[300,400] parameter(0)
  ROOT r = f32[300,400] negate(x)
})";

TEST(PerfMapTest, CompiledFunctionsAreListedOnlyWhenAsked) {
  std::remove(MapPath().c_str());
  std::vector<Literal> args = cpu_test::RandomArguments(kModule, 1);

  unsetenv("XLA_CPU_PERF_MAP");
  ASSERT_TRUE(cpu_test::RunOnCpu(kModule, args, cpu_test::WithThreads(2)).ok());
  EXPECT_TRUE(ReadMap().empty());

  setenv("XLA_CPU_PERF_MAP", "1", 1);
  auto result = cpu_test::RunOnCpu(kModule, args, cpu_test::WithThreads(2));
  unsetenv("XLA_CPU_PERF_MAP");
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<MapEntry> entries = ReadMap();
  std::remove(MapPath().c_str());
  bool entry = false, loop = false;
  for (const MapEntry& e : entries) {
    SCOPED_TRACE(e.name);
    EXPECT_NE(e.start, 0u);
    EXPECT_GT(e.size, 0u);
    EXPECT_LT(e.size, 1u << 20);
    entry |= e.name == "perf_map_module:xla_cpu_entry";
    loop |= e.name == "perf_map_module:r.parallel";  // the outlined loop keeps its name
  }
  EXPECT_TRUE(entry);
  EXPECT_TRUE(loop);
  // Functions do not overlap.
  for (size_t i = 0; i < entries.size(); ++i) {
    for (size_t j = i + 1; j < entries.size(); ++j) {
      EXPECT_TRUE(entries[i].start + entries[i].size <= entries[j].start ||
                  entries[j].start + entries[j].size <= entries[i].start)
          << entries[i].name << " and " << entries[j].name;
    }
  }
}

}  // namespace
}  // namespace cpu
}  // namespace xla
