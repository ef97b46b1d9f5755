// Every module in backends/cpu/tests/fuzz_regressions/ (one per bug the
// fuzzer found) must give the interpreter's values on the CPU backend, with 1
// thread and with the file's thread count (its `// hlo_fuzz:` line).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/hlo_fuzz/differential_runner.h"

namespace xla {
namespace hlo_fuzz {
namespace {

constexpr char kFolder[] = "backends/cpu/tests/fuzz_regressions";

std::vector<std::string> RegressionFiles() {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(kFolder, error)) {
    if (entry.path().extension() == ".hlo") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class FuzzRegressionTest : public testing::TestWithParam<std::string> {};

TEST_P(FuzzRegressionTest, CpuMatchesInterpreter) {
  std::ifstream in(std::string(kFolder) + "/" + GetParam());
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty()) << GetParam();
  RunOptions options = RunOptionsFromText(text.str());
  const RunResult result = RunDifferential(text.str(), options);
  EXPECT_TRUE(result.verdict == Verdict::kMatch) << GetParam() << ": " << VerdictName(result.verdict) << ": "
                                              << result.detail << "\n" << text.str();
}

std::string TestName(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - 4);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Files, FuzzRegressionTest, testing::ValuesIn(RegressionFiles()), TestName);

TEST(FuzzRegressionFolderTest, HasFiles) { EXPECT_FALSE(RegressionFiles().empty()) << "no .hlo files in " << kFolder; }

}  // namespace
}  // namespace hlo_fuzz
}  // namespace xla
